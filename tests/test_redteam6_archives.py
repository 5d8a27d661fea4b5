"""Archives whose directory alone is the attack."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path


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
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from skillyard.install import Installer\n"
        "base = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmRSS:')][0]\n"
        "r = Installer(Path(sys.argv[2])).install(sys.argv[1]).to_dict()\n"
        "hwm = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM:')][0]\n"
        "print(json.dumps({'result': r, 'grew_mb': (hwm - base) // 1024}))\n"
    )
    cp = subprocess.run(
        [sys.executable, "-c", script, str(archive), str(tmp_path / "skills")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cp.returncode == 0, cp.stderr[-2000:]
    out = json.loads(cp.stdout)
    assert out["result"]["error"] == "package rejected", out
    assert out["grew_mb"] < 100, out
