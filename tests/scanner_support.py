"""Shared helpers for the scanner's class tests: a skill written as real files, and what blocks it.

Holds no tests itself; the test_scanner_* files import it.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from skillyard.install import scan_path

USE_SCRIPTS = "Use the scripts.\n"


def skill_dir(root: Path, files: dict[str, str], skill_md: str = USE_SCRIPTS) -> Path:
    """A skill named `demo` under `root`: a SKILL.md whose body is `skill_md`, plus `files`."""
    d = root / "demo"
    d.mkdir(parents=True)
    files = {"SKILL.md": f"---\nname: demo\ndescription: d\n---\n{skill_md}", **files}
    for rel, body in files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body, "utf-8")
    return d


def blocking(root: Path, files: dict[str, str], skill_md: str = USE_SCRIPTS) -> dict[str, str]:
    """rule id -> title of every unsuppressed finding at high or above (what the default policy blocks)."""
    report = scan_path(skill_dir(root, files, skill_md))
    return {
        f.rule_id: f.title
        for f in report.findings
        if f.severity in ("high", "critical") and f.suppressed is None
    }


def blocked(root: Path, files: dict[str, str], skill_md: str = USE_SCRIPTS) -> set[str]:
    """The rule ids of `blocking`."""
    return set(blocking(root, files, skill_md))


def zip_bytes(members: dict[str, str]) -> bytes:
    """A zip archive holding `members` (name -> text), as bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, body in members.items():
            z.writestr(name, body)
    return buf.getvalue()


def blocked_with_file(root: Path, rel: str, data: bytes) -> set[str]:
    """The rule ids that block a plain skill once the binary `data` is added at `rel`."""
    d = skill_dir(root, {})
    (d / rel).parent.mkdir(parents=True, exist_ok=True)
    (d / rel).write_bytes(data)
    return {
        f.rule_id
        for f in scan_path(d).findings
        if f.severity in ("high", "critical") and f.suppressed is None
    }
