"""SKILL.toml templates that put a value where bash or a program runs it as code through a variable:
a prompt bash expands (`PS4`), a file bash sources (`BASH_ENV`), a command line git runs
(`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`), an exported function (`BASH_FUNC_f%%`). Quoting does not
protect the value there, so only integers may fill it. These tests run real bash and git through the
real runner and look for a canary file a hostile value would create."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillyard.model import Skill, ToolArg, ToolSpec
from skillyard.toml_tools import ToolArgError, build_invocation, lint_tool
from toml_run_support import run_tool, scratch_skill, skill_in

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

#: (template, a value that creates the canary when the template runs it)
RUN_AS_CODE = [
    ("PS4={x}; set -x; true", "$(touch CANARY)"),
    ('PS4="{x}"; set -x; true', "$(touch CANARY)"),
    ("export PS4={x}; set -x; true", "$(touch CANARY)"),
    ('v={x}; PS4="+ $v"; set -x; true', "$(touch CANARY)"),
    ("for PS4 in {x}; do set -x; true; done", "$(touch CANARY)"),
    ("printf -v PS4 %s {x}; set -x; true", "$(touch CANARY)"),
    ("BASH_ENV={x} bash -c true", "$(touch CANARY)"),
    ("bash -c 'PS4=$1; set -x; true' _ {x}", "$(touch CANARY)"),
    ("set -- {x}; PS4=$1; set -x; true", "$(touch CANARY)"),
    (
        'HOME={x}; PS4="$HOME"; set -x; true',
        "$(touch CANARY)",
    ),  # the runner's HOME, until the template sets it
    ("env 'BASH_FUNC_f%%={x}' bash -c f", "() { touch CANARY; }"),
    pytest.param(
        "GIT_SSH_COMMAND={x} git ls-remote ssh://example.invalid/x", "touch CANARY;", marks=needs_git
    ),
    pytest.param(
        "env GIT_SSH_COMMAND={x} git ls-remote ssh://example.invalid/x", "touch CANARY;", marks=needs_git
    ),  # argv mode: no shell of skillyard's, but git runs the variable with sh
    pytest.param(
        "env {x} git ls-remote ssh://example.invalid/x", "GIT_SSH_COMMAND=touch CANARY;", marks=needs_git
    ),  # env takes NAME=value words before its program: the value names the variable itself
    ("env -S {x}", "touch CANARY"),
    pytest.param(
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0={x}; "
        "git ls-remote ssh://example.invalid/x",
        "touch CANARY;",
        marks=needs_git,
    ),
    pytest.param(
        "GIT_EXTERNAL_DIFF={x} git diff --no-index --ext-diff a.txt b.txt", "touch CANARY;", marks=needs_git
    ),
]

#: Held to integers too, although running them here would need a library, a terminal or an editor.
NOT_RUN_HERE = [
    "LD_PRELOAD={x} true",
    "export EDITOR={x}; git commit",
    "VISUAL={x} crontab -e",
    "PAGER={x} man ls",
    "GIT_PAGER={x} git log",
    "SSH_ASKPASS={x} ssh host",
    "PROMPT_COMMAND={x} bash -i",
    "ENV={x} sh -i",
    "declare -x LESSOPEN={x}; less file",
    "local_var=1; GIT_SSH={x} git fetch",
    "PS4[0]={x}; set -x",
    'f() { export EDITOR="$1"; }; f {x}; git commit',
    'read -r HOME < {x}; EDITOR="$HOME/ed" git commit',
    "PS4+={x}; set -x",
]


@pytest.fixture
def skill_dir() -> Iterator[Path]:
    with scratch_skill("codevars", "code variables", {"a.txt": "a\n", "b.txt": "b\n"}) as d:
        yield d


def _skill(d: Path) -> Skill:
    return skill_in(d, "codevars", "code variables")


@pytest.mark.parametrize(("command", "value"), RUN_AS_CODE)
def test_a_string_in_a_variable_run_as_code_is_refused(skill_dir: Path, command: str, value: str) -> None:
    s = ToolSpec("code", "code", command, args=(ToolArg("x"),))
    diags = lint_tool(s, "SKILL.toml")
    assert [d.code for d in diags] == ["tool-template"], diags
    assert "runs as code" in diags[0].message and "declare the argument as type integer" in diags[0].message
    canary = skill_dir / "skill" / "CANARY"
    with pytest.raises(ToolArgError, match="unusable command template"):
        build_invocation(s, {"x": value})
    text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local", timeout=20)
    assert err and "unusable command template" in text, text
    assert not canary.exists()


@pytest.mark.parametrize("command", NOT_RUN_HERE)
def test_other_variables_run_as_code_take_integers_only(command: str) -> None:
    s = ToolSpec("code", "code", command, args=(ToolArg("x"),))
    assert [d.code for d in lint_tool(s)] == ["tool-template"]
    assert lint_tool(ToolSpec("code", "code", command, args=(ToolArg("x", type="integer"),))) == []


@pytest.mark.parametrize(
    "command",
    [
        "PS4='+ $LINENO: '; set -x; printf '%s\\n' {x}",
        "export PAGER=cat GIT_PAGER=cat; printf '%s\\n' {x}",
        'PATH="$SKILL_DIR:$PATH" GIT_SSH_COMMAND="ssh -i $HOME/key" printf \'%s\\n\' {x}',
        "ENV=prod printf '%s\\n' {x}",
        "printf '%s\\n' --editor={x}",
        "v={x}; printf '%s\\n' \"$v\"",
        "env LANG=C printf '%s\\n' {x}",
        'env NAME={x} bash -c \'printf "%s\\n" "$NAME"\'',
    ],
)
def test_legitimate_templates_keep_string_values(skill_dir: Path, command: str) -> None:
    s = ToolSpec("plain", "plain", command, args=(ToolArg("x"),))
    assert lint_tool(s) == []
    value = "$(touch CANARY)"
    text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
    assert not err and text.endswith(value), text
    assert not (skill_dir / "skill" / "CANARY").exists()


def test_an_integer_in_such_a_variable_still_runs(skill_dir: Path) -> None:
    s = ToolSpec("n", "n", 'PS4={n}; set -x; echo "$PS4"', args=(ToolArg("n", type="integer"),))
    assert lint_tool(s) == []
    assert run_tool(_skill(skill_dir), s, {"n": 7}, executor="local") == ("7", False)
    text, err = run_tool(_skill(skill_dir), s, {"n": "$(touch CANARY)"}, executor="local")
    assert err and "declared as integer" in text
    assert not (skill_dir / "skill" / "CANARY").exists()
