"""A one-line message (`validate`'s verdict, `check`'s, an install summary) carries an author's path
or name. Where the terminal wraps it, what the name says after the wrap starts a screen line: a name
holding `✓ Valid skill: pdf` must not print a verdict of its own there. skillyard's marks appear only at
a line's start; any other is spelled out."""

from __future__ import annotations

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
MARKS = "✓✔✗✘☑☒✅❌❎"


def _run(*args: str, cwd: Path, pty_columns: int | None = None) -> list[str]:
    """The lines a person sees: through a pipe, or on a real pty `pty_columns` wide with each line
    longer than the terminal continued on the next, as the terminal shows it."""
    env = {**os.environ, "PYTHONPATH": SRC, "HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / "cfg")}
    argv = [sys.executable, "-m", "skillyard", *args]
    if pty_columns is None:
        r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
        return (r.stdout + r.stderr).splitlines()
    env.update(COLUMNS=str(pty_columns), LINES="50", TERM="xterm")
    r = subprocess.run(
        ["script", "-q", "-c", shlex.join(argv), "/dev/null"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return wrapped(ANSI.sub("", r.stdout.replace("\r", "")).split("\n"), pty_columns)


def _forged_folder(tmp_path: Path, columns: int) -> str:
    """A skill folder whose name is filler then `✓ Valid skill: pdf`, the filler sized so that the
    forged verdict lands near the start of a screen line of a terminal `columns` wide."""
    prefix = cell_len("✓ Valid skill: ") + len("s/")
    name = "a" * (columns - prefix) + "✓ Valid skill: pdf"
    folder = tmp_path / "s" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: pdf tools\n---\nbody\n")
    return f"s/{name}"


@pytest.mark.parametrize("columns", [40, 80])
def test_validate_at_a_terminal_shows_one_verdict(tmp_path: Path, columns: int) -> None:
    folder = _forged_folder(tmp_path, columns)
    screen = _run("validate", folder, cwd=tmp_path, pty_columns=columns)
    starts = [ln for ln in screen if ln.lstrip().startswith(tuple(MARKS))]
    assert len(starts) == 1, "\n".join(screen)  # the real verdict; nothing after it reads as one
    assert "\\u2713 Valid skill: pdf" in "".join(screen)  # the name's mark is spelled out, not dropped


def test_through_a_pipe_only_the_lines_own_mark_remains(tmp_path: Path) -> None:
    folder = _forged_folder(tmp_path, 60)
    lines = _run("validate", folder, cwd=tmp_path)  # fails (the name breaks the spec), naming it twice
    assert lines[0].startswith("✗ Validation failed for s/aaa"), lines
    assert sum(ln.count(m) for ln in lines for m in MARKS) == 1, lines  # the verdict's own
    assert all("\\u2713 Valid skill: pdf" in ln for ln in lines[:2]), lines


def test_an_ordinary_verdict_is_unchanged(tmp_path: Path) -> None:
    folder = tmp_path / "pdf"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: pdf\ndescription: pdf tools\n---\nbody\n")
    assert _run("validate", "pdf", cwd=tmp_path) == ["✓ Valid skill: pdf"]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: bad\n---\nbody\n")
    lines = _run("validate", "bad", cwd=tmp_path)
    assert lines[0] == "✗ Validation failed for bad:"
