"""Installing skills safely: sources, trust, package hygiene, scanning, lockfile.

Pipeline: source → staging → package checks → scanner → trust policy → atomic commit →
lockfile. See docs/install.md and docs/scanner.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Where each public name lives. Loaded on first use: `skillyard audit` needs the scanner, not
#: the installer's network and locking code.
_WHERE = {
    "HygieneError": "errors",
    "InstallError": "errors",
    "SourceError": "errors",
    "Limits": "hygiene",
    "Installer": "installer",
    "InstallResult": "installer",
    "accept": "installer",
    "LockEntry": "lockfile",
    "Lockfile": "lockfile",
    "LockfileError": "lockfile",
    "is_modified": "lockfile",
    "tree_hash": "lockfile",
    "Finding": "scanner",
    "Rule": "scanner",
    "ScanPolicy": "scanner",
    "ScanReport": "scanner",
    "load_rules": "scanner",
    "render_human": "scanner",
    "render_plain": "scanner",
    "scan_path": "scanner",
    "scan_text": "scanner",
    "to_sarif": "scanner",
    "SourceSpec": "sources",
    "parse_source": "sources",
    "TrustError": "trust",
    "TrustPolicy": "trust",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:  # the same names, for type checkers (`__all__` below is read from _WHERE)
    from skillyard.install.errors import HygieneError, InstallError, SourceError  # noqa: F401
    from skillyard.install.hygiene import Limits  # noqa: F401
    from skillyard.install.installer import Installer, InstallResult, accept  # noqa: F401
    from skillyard.install.lockfile import LockEntry, Lockfile, LockfileError, is_modified, tree_hash  # noqa: F401
    from skillyard.install.scanner import (  # noqa: F401
        Finding,
        Rule,
        ScanPolicy,
        ScanReport,
        load_rules,
        render_human,
        render_plain,
        scan_path,
        scan_text,
        to_sarif,
    )
    from skillyard.install.sources import SourceSpec, parse_source  # noqa: F401
    from skillyard.install.trust import TrustError, TrustPolicy  # noqa: F401

__all__ = sorted(_WHERE)
