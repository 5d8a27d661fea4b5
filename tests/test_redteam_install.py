"""Hostile packages against the install path, beyond tests/test_install_hygiene.py.

Everything runs the real installer: archives written here, git repositories
made with the git binary in temporary directories.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

#: A tar header, built by hand: the standard library refuses to write the hostile ones.
_BLOCK = 512


def _header(name: str, size: int, kind: bytes) -> bytes:
    h = bytearray(_BLOCK)
    h[0 : len(name)] = name.encode()
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def _long_name_bomb(path: Path, size: int) -> None:
    """A gzip'd tar whose first header announces a GNU long name of `size` bytes (a few hundred KiB packed)."""
    with gzip.open(path, "wb", compresslevel=1) as g:
        g.write(_header("././@LongLink", size, b"L"))
        chunk = b"a" * (1 << 20)
        for _ in range(size // len(chunk)):
            g.write(chunk)
        g.write(_header("SKILL.md", 0, b"0") + b"\0" * (2 * _BLOCK))


def test_tar_header_bomb_is_refused_within_bounded_memory(tmp_path: Path) -> None:
    """tarfile reads a long-name or pax header whole; its size must count against the package limit."""
    bomb = tmp_path / "bomb.tar.gz"
    _long_name_bomb(bomb, 384 << 20)
    script = (
        "import json, resource, sys\n"
        "from pathlib import Path\n"
        "from skillyard.install import Installer\n"
        "r = Installer(Path(sys.argv[2])).install(sys.argv[1]).to_dict()\n"
        "print(json.dumps({'result': r, 'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))\n"
    )
    cp = subprocess.run(
        [sys.executable, "-c", script, str(bomb), str(tmp_path / "skills")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cp.returncode == 0, cp.stderr[-2000:]
    out = json.loads(cp.stdout)
    assert out["result"]["installed"] is False and out["result"]["error"] == "package rejected", out
    assert out["rss_mb"] < 250, out  # the header alone is 384 MiB
    assert not (tmp_path / "skills" / "SKILL.md").exists()
