"""What loading a SKILL.toml may cost: its commands hold 65,536 characters in all (a 1 MiB file of
commands took seconds to check and kept some 80 MB), and a long template is not kept compiled."""

from __future__ import annotations

import json
from pathlib import Path

from skillyard.parsing.skill_toml import MAX_COMMAND_CHARS, parse_skill_toml
from skillyard.toml_tools import compile_template
from skillyard.toml_tools.template import CACHED_TEMPLATE_CHARS


def _write(tmp_path: Path, commands: list[str]) -> str:
    folder = tmp_path / "big"
    folder.mkdir()
    lines = ["[skill]", 'name = "big"', 'description = "many long commands"', ""]
    for i, command in enumerate(commands):
        lines += ["[[tools]]", f'name = "t{i}"', f"command = {json.dumps(command)}", ""]
    path = folder / "SKILL.toml"
    path.write_text("\n".join(lines))
    return str(path)


def _long(i: int, chars: int) -> str:
    return f"echo {{x}} {i}; " + "echo a b c d e; " * (chars // 16)


def test_commands_past_the_budget_are_dropped_with_an_error(tmp_path: Path) -> None:
    commands = [_long(i, 8000) for i in range(120)]  # a 1 MiB file
    path = _write(tmp_path, commands)
    assert Path(path).stat().st_size > 900_000
    skill, diags = parse_skill_toml(path, "project")
    assert skill is not None
    kept = [t.name for t in skill.tools]
    assert kept == [f"t{i}" for i in range(len(kept))] and 0 < len(kept) < 10
    assert sum(len(t.command) for t in skill.tools) <= MAX_COMMAND_CHARS
    dropped = [d for d in diags if d.code == "toml-bad-tool"]
    assert len(dropped) == 120 - len(kept)
    assert all(d.level == "error" for d in dropped)
    assert f"may hold {MAX_COMMAND_CHARS} characters in all" in dropped[0].message
    assert "scripts/" in dropped[0].message


def test_ordinary_commands_all_load(tmp_path: Path) -> None:
    commands = [f"grep -c -- {{pattern}} data/file{i}.txt" for i in range(200)]
    skill, diags = parse_skill_toml(_write(tmp_path, commands), "project")
    assert skill is not None and len(skill.tools) == 200
    assert not [d for d in diags if d.level == "error"]


def test_one_command_of_the_whole_budget_still_loads(tmp_path: Path) -> None:
    command = "echo {x}; " + "#" * (MAX_COMMAND_CHARS - 10)
    skill, _diags = parse_skill_toml(_write(tmp_path, [command, "echo {y}"]), "project")
    assert skill is not None and [t.name for t in skill.tools] == ["t0"]


def test_a_long_template_is_not_kept_compiled() -> None:
    compile_template.cache_clear()
    short = "echo {x} | wc -c"
    assert compile_template(short) is compile_template(short)
    long = _long(0, 4 * CACHED_TEMPLATE_CHARS)
    first = compile_template(long)
    assert first.error is None and first.names == ("x",)
    assert compile_template(long) is not first  # compiled again: nothing of it was kept
    assert compile_template(long) == first
    compile_template.cache_clear()
