"""Widths for display are terminal cells: a CJK name takes two cells a character, and a column sized
by its length in characters folded it (the mark on one line, the name on the next ones)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")
WIDE = "数据分析报表生成工具数据分析报表"  # 16 characters, 32 cells
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _tty(columns: int, *args: str) -> list[str]:
    """The lines a terminal `columns` wide is sent by `skillyard ARGS`, run on a real pty."""
    cmd = shlex.join([sys.executable, "-m", "skillyard", *args])
    env = {**os.environ, "PYTHONPATH": SRC, "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    r = subprocess.run(
        ["script", "-q", "-c", cmd, "/dev/null"], env=env, capture_output=True, text=True, timeout=120
    )
    return [ANSI.sub("", ln) for ln in r.stdout.replace("\r", "").split("\n")]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name, desc in (
        (WIDE, "Make reports from tables of numbers, with charts and long prose that goes on and on"),
        ("pdf", "PDF files handled in every way you could possibly want and then some more"),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nbody\n")
    return tmp_path


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("command", [["list"], ["search", "reports"]])
def test_a_wide_name_stays_whole_beside_its_mark(root: Path, columns: int, command: list[str]) -> None:
    lines = _tty(columns, "--root", str(root), *command)
    assert any(ln.startswith(f"✓ {WIDE}") for ln in lines), "\n".join(lines)
