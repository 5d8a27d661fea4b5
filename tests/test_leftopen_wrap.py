"""A long skill name of visible filler then ` ✓ pdf-official`: wherever it folds, in the table or at
the terminal's edge, no line it takes starts with a mark, as the row of a usable `pdf-official` does."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from terminal_support import wrapped

SRC = str(Path(__file__).resolve().parents[1] / "src")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
FORGED = ("x" * 55 + " ✓ pdf-official", "数" * 27 + " ✓ pdf-official")


def _screen(columns: int, *args: str) -> tuple[list[str], list[str]]:
    """(the lines `skillyard ARGS` sends a terminal `columns` wide, run on a real pty; the lines the
    terminal shows, a line longer than itself continued on the next)."""
    cmd = shlex.join([sys.executable, "-m", "skillyard", *args])
    env = {**os.environ, "PYTHONPATH": SRC, "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm"}
    r = subprocess.run(
        ["script", "-q", "-c", cmd, "/dev/null"], env=env, capture_output=True, text=True, timeout=120
    )
    sent = [ANSI.sub("", ln) for ln in r.stdout.replace("\r", "").split("\n")]
    return sent, wrapped(sent, columns)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for folder, name, extra in (
        ("evil", FORGED[0], "requires: {bins: [no-such-program-here]}\n"),
        ("evil-wide", FORGED[1], "requires: {bins: [no-such-program-here]}\n"),
        ("pdf-official", "pdf-official", ""),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "SKILL.md").write_text(
            f'---\nname: "{name}"\ndescription: pdf tools\n{extra}---\nbody\n', encoding="utf-8"
        )
    return tmp_path


def _check(columns: int, sent: list[str], shown: list[str]) -> None:
    marked = [ln for ln in shown if ln.startswith(("✓", "✗"))]
    assert len(marked) == 3, f"COLUMNS={columns}\n" + "\n".join(shown)
    assert len([ln for ln in marked if ln.startswith("✓")]) == 1  # pdf-official's own row
    table = [ln for ln in sent if "problem(s) found while loading" not in ln]  # skillyard's own words
    assert all(cell_len(ln) <= columns for ln in table), f"COLUMNS={columns}: a row wider than the terminal"


@pytest.mark.parametrize("command", [["list"], ["search", "pdf"]])
def test_no_folded_part_of_a_name_starts_a_line_with_a_mark(root: Path, command: list[str]) -> None:
    for columns in range(40, 201):
        _check(columns, *_screen(columns, "--root", str(root), *command))


def test_list_verbose_folds_the_same_way(root: Path) -> None:
    for columns in (*range(40, 201, 4), 57, 58, 59):
        _check(columns, *_screen(columns, "--root", str(root), "list", "-v"))


def test_json_output_keeps_the_name_whole(root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC}
    r = subprocess.run(
        [sys.executable, "-m", "skillyard", "--root", str(root), "list", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    names = {s["name"]: s["eligible"] for s in json.loads(r.stdout)["skills"]}
    assert names == {FORGED[0]: False, FORGED[1]: False, "pdf-official": True}
