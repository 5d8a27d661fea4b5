"""Classes the twelfth corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from scanner_support import skill_dir
from skillyard.install import scan_path

RUN = "Run `bash scripts/run.sh`.\n"


def _zip(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, body in members.items():
            z.writestr(name, body)
    return buf.getvalue()


def _blocking_with(tmp_path: Path, rel: str, data: bytes) -> set[str]:
    d = skill_dir(tmp_path, {})
    (d / rel).parent.mkdir(parents=True, exist_ok=True)
    (d / rel).write_bytes(data)
    return {
        f.rule_id
        for f in scan_path(d).findings
        if f.severity in ("high", "critical") and f.suppressed is None
    }


# ------------------------------------------------ package formats that are zip files by definition


def test_an_extension_package_that_is_a_zip_is_what_its_name_says(tmp_path: Path) -> None:
    members = {"extension.vsixmanifest": "<PackageManifest/>", "extension/package.json": "{}"}
    for i, rel in enumerate(("fixtures/editor-theme-0.3.vsix", "fixtures/Acme.Tools.1.2.0.nupkg")):
        assert "SY-MFT-002" not in _blocking_with(tmp_path / str(i), rel, _zip(members)), rel


def test_a_zip_named_as_a_script_or_an_image_still_misleads(tmp_path: Path) -> None:
    for i, rel in enumerate(("scripts/setup.py", "assets/logo.png")):
        assert "SY-MFT-002" in _blocking_with(tmp_path / str(i), rel, _zip({"a.txt": "x"})), rel
