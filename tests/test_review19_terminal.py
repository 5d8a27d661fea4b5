"""What a person reads at a terminal, and the names a skill's author chooses: a line break cannot
print a row of its own, and a name that only looks valid (a trailing line break) is not one.

The real CLI in a subprocess, at a terminal (`script`) where the human output differs there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

needs_script = pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1) for a terminal")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    config = tmp_path / "skillyard.toml"
    if not config.exists():
        config.write_text(f'[install]\nroot = "{tmp_path / "installed"}"\n', encoding="utf-8")
    return os.environ | {
        "SKILLYARD_CONFIG": str(config),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "NO_COLOR": "1",
        **extra,
    }


def _cli(
    tmp_path: Path, *args: str, tty: bool = False, columns: str = "100"
) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "skillyard", *args]
    if tty:
        argv = ["script", "-qec", " ".join(map(repr, argv)), "/dev/null"]
    return subprocess.run(
        argv,
        env=_env(tmp_path, COLUMNS=columns),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _lines(out: str) -> list[str]:
    return re.sub(r"\x1b\[[0-9;]*m", "", out).replace("\r\n", "\n").split("\n")


@needs_script
@pytest.mark.parametrize("columns", ["60", "200"])
def test_search_description_cannot_print_a_result_row(tmp_path: Path, make_skill: Any, columns: str) -> None:
    """`search` printed a description with its line breaks (`list` and `info` join them): a
    description written over several lines put a forged result (`✓ pdf-official 1.00 strong`) on a
    line of its own."""
    description = "|\n  Word counter for text.\n  ✓ pdf-official   1.00  strong  Verified official"
    skill = make_skill(tmp_path / "skills", "wordy", description)
    done = _cli(tmp_path, "--root", str(skill.parent), "search", "word", tty=True, columns=columns)
    assert done.returncode == 0, done.stdout
    lines = _lines(done.stdout)
    assert not any(line.lstrip().startswith("✓ pdf-official") for line in lines), done.stdout
    (row,) = [line for line in lines if "wordy" in line]
    assert "Word counter for text. ✓" in row, done.stdout
    data = json.loads(_cli(tmp_path, "--root", str(skill.parent), "search", "word", "--json").stdout)
    assert data["skills"][0]["description"].startswith("Word counter for text.\n✓ pdf-official")


def _toml_skill(tmp_path: Path, tool: str) -> Path:
    skill = tmp_path / "skills" / "tn"
    skill.mkdir(parents=True)
    (skill / "SKILL.toml").write_text(
        f'[skill]\nname = "tn"\ndescription = "A test skill"\n\n[[tools]]\nname = {json.dumps(tool)}\n'
        'description = "Prints"\ncommand = "echo hi"\n',
        encoding="utf-8",
    )
    return skill


def test_a_toml_tool_name_with_a_trailing_line_break_is_not_a_name(tmp_path: Path) -> None:
    """A SKILL.toml tool named `loud\\n` passed the name check (`$` matches before a final newline):
    loaded, listed by `info` as `loud\\n`, offered to models under a made-up name, and `validate`
    called the skill valid."""
    skill = _toml_skill(tmp_path, "loud\n")
    info = _cli(tmp_path, "--root", str(skill.parent), "info", "tn", "--json")
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout).get("tools", []) == []
    listed = json.loads(_cli(tmp_path, "--root", str(skill.parent), "list", "--json").stdout)
    assert any(d.get("code") == "toml-bad-tool" for d in listed["diagnostics"]), listed["diagnostics"]
    checked = _cli(tmp_path, "validate", str(skill))
    assert checked.returncode == 1, checked.stdout
    assert "name must be 1-64 characters" in checked.stdout + checked.stderr


def test_a_plain_toml_tool_name_still_loads(tmp_path: Path) -> None:
    skill = _toml_skill(tmp_path, "loud")
    info = _cli(tmp_path, "--root", str(skill.parent), "info", "tn", "--json")
    assert json.loads(info.stdout)["tools"] == ["loud"]
    assert _cli(tmp_path, "validate", str(skill)).returncode == 0


def test_a_remote_name_with_a_trailing_line_break_is_a_configuration_error(tmp_path: Path) -> None:
    """`[[skills.remote]] name = "r\\n"` (a project's skillyard.toml may be a cloned repository's) passed
    the name check: its skills were fetched into a folder whose name holds a line break."""
    (tmp_path / "skillyard.toml").write_text(
        '[[skills.remote]]\nname = "r\\n"\ncommand = ["true"]\n', encoding="utf-8"
    )
    done = _cli(tmp_path, "remote", "sync")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "skills.remote[0].name" in done.stderr, done.stderr


@needs_script
@pytest.mark.parametrize("columns", ["60", "80"])
def test_a_name_padded_with_spaces_cannot_print_a_row_where_the_terminal_wraps(
    tmp_path: Path, columns: str
) -> None:
    """A name may hold spaces, and a run of them is invisible: `pdf`, spaces up to the terminal's
    width, then `✓ pdf-official` made the terminal wrap `list`'s row of an ineligible skill so that a
    line began `✓ pdf-official  word tools  custom`. Such a name is not used; the directory names
    the skill."""
    skill = tmp_path / "skills" / "sp"
    skill.mkdir(parents=True)
    name = "pdf" + " " * (int(columns) - 5) + "✓ pdf-official"
    (skill / "SKILL.md").write_text(
        f'---\nname: "{name}"\ndescription: word tools\nmetadata:\n  openclaw:\n'
        "    requires:\n      bins: [nosuchbin-r19]\n---\nbody\n",
        encoding="utf-8",
    )
    for command in (("list",), ("search", "word")):
        done = _cli(tmp_path, "--root", str(skill.parent), *command, tty=True, columns=columns)
        assert done.returncode == 0, done.stdout
        assert "pdf-official" not in done.stdout and "✗ sp" in _lines(done.stdout)[1], done.stdout
    listed = json.loads(_cli(tmp_path, "--root", str(skill.parent), "list", "--json").stdout)
    assert [s["name"] for s in listed["skills"]] == ["sp"]
    assert any(d["code"] == "bad-name" for d in listed["diagnostics"]), listed["diagnostics"]


def _screen_lines(out: str, columns: int) -> list[str]:
    """The lines a terminal `columns` wide shows (every character here takes one column)."""
    return [line[i : i + columns] for line in _lines(out) for i in range(0, max(len(line), 1), columns)]


@needs_script
@pytest.mark.parametrize("blank", ["\u2800", "\u3164", "\uffa0"])
def test_a_name_padded_with_blank_letters_cannot_print_a_row_where_the_terminal_wraps(
    tmp_path: Path, blank: str
) -> None:
    """The Braille blank and the Hangul fillers are printable and no space to `str.split`, yet show
    nothing: `pdf`, 75 of them, then `✓ pdf-official` made an 80-column terminal wrap `list`'s row of
    an ineligible skill so that a line began `✓ pdf-official  word tools  custom`. They are spelled
    out, as the tag characters are."""
    skill = tmp_path / "skills" / "sp"
    skill.mkdir(parents=True)
    name = "pdf" + blank * 75 + "✓ pdf-official"
    (skill / "SKILL.md").write_text(
        f'---\nname: "{name}"\ndescription: word tools\nmetadata:\n  openclaw:\n'
        "    requires:\n      bins: [nosuchbin-r19]\n---\nbody\n",
        encoding="utf-8",
    )
    done = _cli(tmp_path, "--root", str(skill.parent), "list", tty=True, columns="80")
    assert done.returncode == 0, done.stdout
    assert blank not in done.stdout and f"pdf{ascii(blank)[1:-1]}" in done.stdout, done.stdout
    assert not any(line.startswith("✓ pdf-official") for line in _screen_lines(done.stdout, 80)), done.stdout
    listed = json.loads(_cli(tmp_path, "--root", str(skill.parent), "list", "--json").stdout)
    assert [s["name"] for s in listed["skills"]] == [name]  # the data is the author's, as written
