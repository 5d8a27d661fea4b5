"""SKILL.toml shell templates: two more places where bash runs a value as code although it arrives
as a quoted expansion. `set -x` expands PS4 as a prompt (command substitutions included), and
`compgen -W` expands its word list again (`-C` runs a command). A value that reaches either is held
to integers; a literal PS4 and a value given to compgen as the word to complete keep working. Real
bash runs through the real runner, and a canary file shows whether a value ran."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillyard.model import Skill, ToolArg, ToolSpec
from skillyard.toml_tools import ToolArgError, build_invocation, lint_tool
from toml_run_support import run_tool, scratch_skill, skill_in


@pytest.fixture
def skill_dir() -> Iterator[Path]:
    with scratch_skill("trace", "trace tools") as d:
        yield d


def _skill(d: Path) -> Skill:
    return skill_in(d, "trace", "trace tools")


@pytest.mark.parametrize(
    "command",
    [
        "PS4={x}; set -x; true",
        "v={x}; PS4=$v; set -x; :",
        'v={x}; export PS4="$v"; set -x; :',
        "v={x}; declare -x PS4=$v; set -x; :",
        "PS4={x} bash -xc :",  # bash imports PS4 from the environment unless it runs as root
        'v={x}; compgen -W "$v" -- a',
        "compgen -W {x} -- a; :",
        "compgen -C {x} a; :",
    ],
)
def test_a_value_expanded_as_a_prompt_or_a_word_list_is_refused(skill_dir: Path, command: str) -> None:
    s = ToolSpec("trace", "trace", command, args=(ToolArg("x"),))
    diags = lint_tool(s)
    assert [d.code for d in diags] == ["tool-template"], diags
    assert "declare the argument as type integer" in diags[0].message
    canary = skill_dir / "CANARY"
    value = "$(touch${IFS}" + str(canary) + ")"
    with pytest.raises(ToolArgError, match="unusable command template"):
        build_invocation(s, {"x": value})
    text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
    assert err, text
    assert not canary.exists()


@pytest.mark.parametrize(
    ("command", "out"),
    [
        ("PS4='+ $LINENO '; set -x; echo {x}; set +x", "VALUE"),
        ("v={x}; PS4='+ $v '; echo \"$v\"", "VALUE"),  # the prompt expands $v once: its text is not run
        ('compgen -W "alpha beta" -- {x}; :', ""),
    ],
)
def test_a_literal_prompt_and_a_word_to_complete_keep_string_values(
    skill_dir: Path, command: str, out: str
) -> None:
    s = ToolSpec("trace", "trace", command, args=(ToolArg("x"),))
    assert lint_tool(s) == []
    canary = skill_dir / "CANARY"
    value = "$(touch${IFS}" + str(canary) + ")"
    text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
    assert not err, text
    assert (value in text) == (out == "VALUE")
    assert not canary.exists()
