"""Installing skills safely: sources, trust, package hygiene, scanning, lockfile.

Pipeline: source → staging → package checks → scanner → trust policy → atomic commit →
lockfile. See docs/install.md and docs/scanner.md.
"""

from __future__ import annotations

from skillyard.install.errors import HygieneError, InstallError, SourceError
from skillyard.install.hygiene import Limits
from skillyard.install.installer import Installer, InstallResult, accept
from skillyard.install.lockfile import LockEntry, Lockfile, LockfileError, is_modified, tree_hash
from skillyard.install.scanner import (
    Finding,
    Rule,
    ScanPolicy,
    ScanReport,
    load_rules,
    render_human,
    scan_path,
    scan_text,
    to_sarif,
)
from skillyard.install.sources import SourceSpec, parse_source
from skillyard.install.trust import TrustError, TrustPolicy

__all__ = [
    "Finding",
    "HygieneError",
    "InstallError",
    "InstallResult",
    "Installer",
    "Limits",
    "LockEntry",
    "Lockfile",
    "LockfileError",
    "Rule",
    "ScanPolicy",
    "ScanReport",
    "SourceError",
    "SourceSpec",
    "TrustError",
    "TrustPolicy",
    "accept",
    "is_modified",
    "load_rules",
    "parse_source",
    "render_human",
    "scan_path",
    "scan_text",
    "to_sarif",
    "tree_hash",
]
