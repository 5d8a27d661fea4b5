"""Archives whose directory alone is the attack."""

from __future__ import annotations

import zipfile
from pathlib import Path

from install_support import install_measured


def test_a_zip_of_countless_empty_entries_is_refused_before_its_directory_is_read(tmp_path: Path) -> None:
    """Under the 50 MB download cap fit ~450,000 empty entries; ZipFile turns every one into an
    object before the entry count can be checked (0.5 GB). The end record says how large the
    directory is, so it is refused from that."""
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("SKILL.md", "---\nname: many\ndescription: Many entries.\n---\nHi.\n")
        for i in range(450_000):
            zf.writestr(zipfile.ZipInfo(f"{i:x}"), b"")
    assert archive.stat().st_size < 50 * 1024 * 1024
    out = install_measured(str(archive), tmp_path / "skills", timeout=300)
    assert out["result"]["error"] == "package rejected", out
    assert out["grew_mb"] < 100, out
