"""The start-up cache written by starts that are killed while writing it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from skillyard.registry import Registry

SRC = Path(__file__).resolve().parents[1] / "src"

# A start killed at the moment its cache file would be renamed into place (fully written, not yet in use).
KILLED_START = r"""
import os, signal, sys
from pathlib import Path
from skillyard.registry import Registry
os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
Registry(Registry.from_roots([sys.argv[1]]).roots, cache=Path(sys.argv[2]))
"""


def test_what_killed_writers_left_is_cleared_by_the_next_write(tmp_path: Path, make_skill: Any) -> None:
    skills = tmp_path / "skills"
    make_skill(skills, "alpha")
    cache = tmp_path / "cache" / "registry.marshal"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    for _ in range(3):
        cp = subprocess.run(
            [sys.executable, "-c", KILLED_START, str(skills), str(cache)],
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert cp.returncode == -9, cp.stderr
    assert len(list(cache.parent.iterdir())) == 3  # one temp file per killed start
    make_skill(skills, "beta")  # a change, so the next start writes the cache
    reg = Registry(Registry.from_roots([skills]).roots, cache=cache)
    assert sorted(s.name for s in reg.skills) == ["alpha", "beta"]
    assert [p.name for p in cache.parent.iterdir()] == ["registry.marshal"]
