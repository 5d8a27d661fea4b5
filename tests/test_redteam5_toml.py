"""Hostile SKILL.toml templates and values: bash declaration builtins, and templates built to be slow to check.

`declare -a arr="$v"` parses a value that looks like `([sub]=x)` as an array assignment and runs the
command substitutions of its subscripts, and `declare -x "$v"` evaluates the subscript of the name
`v` holds: quoting does not protect a value there, just as in arithmetic. These tests run real bash
through the real runner and look for a canary file a hostile value would create.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillyard.model import Skill, ToolArg, ToolSpec
from skillyard.toml_tools import ToolArgError, arith, build_invocation, compile_template, lint_tool
from toml_run_support import run_tool, scratch_skill, skill_in

#: Templates where bash evaluates a string value as code although it arrives as a quoted expansion.
DECLARATIONS = [
    "declare -x {x}",
    "declare -- {x}; echo done",
    "declare -g {x}",
    "declare -a arr={x}; echo done",
    "declare -a 'arr={x}'",
    'declare -a "arr={x}"',
    "typeset -a arr={x}",
    "declare -A map={x}",
    "f() { local -a arr={x}; }; f",
    "arr=(); declare arr={x}",
    "f() { local arr=(); local arr={x}; }; f",
    "export -a arr={x}",
    "readonly -a arr={x}",
    "command declare -a arr={x}",
]


@pytest.fixture
def skill_dir() -> Iterator[Path]:
    with scratch_skill("decl", "declaration tools") as d:
        yield d


def _skill(d: Path) -> Skill:
    return skill_in(d, "decl", "declaration tools")


def _hostile(canary: Path) -> list[str]:
    return [
        f"a[$(touch {canary})]=1",
        f"([$(touch {canary})]=1)",
        f"([0]=x [1]=`touch {canary}`)",
    ]


@pytest.mark.parametrize("command", DECLARATIONS)
def test_string_in_a_declaration_is_refused_at_load(skill_dir: Path, command: str) -> None:
    s = ToolSpec("decl", "decl", command, args=(ToolArg("x"),))
    diags = lint_tool(s, "SKILL.toml")
    assert [d.code for d in diags] == ["tool-template"], diags
    assert "declare the argument as type integer" in diags[0].message
    canary = skill_dir / "CANARY"
    for value in _hostile(canary):
        with pytest.raises(ToolArgError, match="unusable command template"):
            build_invocation(s, {"x": value})
        text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
        assert err, text
    assert not canary.exists()


@pytest.mark.parametrize(
    "command", ["declare -a arr={x}; echo ${arr[@]}", "f() { local n={x}; echo $n; }; f"]
)
def test_integer_in_a_declaration_still_runs(skill_dir: Path, command: str) -> None:
    s = ToolSpec("decl", "decl", command, args=(ToolArg("x", type="integer"),))
    assert lint_tool(s) == []
    assert run_tool(_skill(skill_dir), s, {"x": 7}, executor="local") == ("7", False)
    canary = skill_dir / "CANARY"
    for value in _hostile(canary):
        text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
        assert err and "declared as integer" in text
    assert not canary.exists()


@pytest.mark.parametrize(
    "command",
    [
        "export NAME={x}; printenv NAME",
        "readonly NAME={x}; echo $NAME",
        "declare -x NAME; NAME={x}; echo $NAME",
        'f() { local out={x}; echo "$out"; }; f',
        'declare msg={x}; echo "$msg"',
    ],
)
def test_plain_exports_keep_string_values(skill_dir: Path, command: str) -> None:
    """export and readonly without -a never parse `(...)` in a value, nor declare and local for a
    variable the template never makes an array: a string stays text."""
    s = ToolSpec("decl", "decl", command, args=(ToolArg("x"),))
    assert lint_tool(s) == []
    canary = skill_dir / "CANARY"
    value = f"([$(touch {canary})]=1)"
    assert run_tool(_skill(skill_dir), s, {"x": value}, executor="local") == (value, False)
    assert not canary.exists()


def test_nested_shell_declaration_of_a_positional_parameter_is_refused() -> None:
    s = ToolSpec("decl", "decl", "bash -c 'declare -a a=\"$1\"' _ {x}", args=(ToolArg("x"),))
    assert [d.code for d in lint_tool(s)] == ["tool-template"]


def _count_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = arith.match_close

    def counting(src: str, i: int, open_ch: str, close_ch: str) -> int | None:
        calls.append(i)
        return real(src, i, open_ch, close_ch)

    monkeypatch.setattr(arith, "match_close", counting)
    return calls


@pytest.mark.parametrize(
    "body",
    [
        "((" * 3000,  # never closed: each look for `))` read to the end
        "(" * 3000 + "x" + ") " * 3000,  # closed, but never by `))`
    ],
)
def test_many_subshell_parens_are_checked_in_linear_time(monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    compile_template.cache_clear()
    calls = _count_scans(monkeypatch)
    ct = compile_template("echo {x}; " + body)
    assert len(calls) <= 2, len(calls)
    # what the scanner did not follow is treated as arithmetic: a string placeholder is refused
    s = ToolSpec("t", "t", ct.source, args=(ToolArg("x"),))
    assert [d.code for d in lint_tool(s)] == ["tool-template"]
    compile_template.cache_clear()


def test_one_subshell_paren_is_still_followed() -> None:
    s = ToolSpec("t", "t", "((cd /tmp && ls) | wc -l) >/dev/null; echo {x}", args=(ToolArg("x"),))
    assert lint_tool(s) == []


def test_largest_template_of_parens_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    compile_template.cache_clear()
    calls = _count_scans(monkeypatch)
    ct = compile_template("echo {x}; " + "((" * 32_000)
    assert ct.names == ("x",)
    assert len(calls) <= 2
    compile_template.cache_clear()


#: A placeholder written in pieces: bash joins them into the text `{n}`, but no placeholder is there.
SPLIT = [
    'let n="{n""}"; echo $n',
    "let n='{n''}'; echo $n",
    'let n="{""n}"; echo $n',
    'declare -i m; m="{\\\nn}"; echo $m',
    "m={n\\\n}; echo $((m))",
    "x=0; (( x + {\\\nn} )); echo $x",
    "bash -c 'echo $(( $1 ))' _ {\\\nn}",
]


@pytest.mark.parametrize("command", SPLIT)
def test_a_placeholder_written_in_pieces_is_text(skill_dir: Path, command: str) -> None:
    """The word scanner once joined the pieces into a placeholder the arithmetic scanner (which reads
    `{name}` runs) never saw: a string value then reached `let` unchecked."""
    s = ToolSpec("split", "split", command, args=(ToolArg("n"),))
    assert compile_template(command).names == ()
    canary = skill_dir / "CANARY"
    for value in _hostile(canary):
        with pytest.raises(ToolArgError, match="unknown argument"):
            build_invocation(s, {"n": value})
        text, err = run_tool(_skill(skill_dir), s, {"n": value}, executor="local")
        assert err and "unknown argument" in text
    assert not canary.exists()


def test_an_array_repeated_in_a_shell_template_cannot_build_a_huge_script(skill_dir: Path) -> None:
    """Each occurrence of an array placeholder expands to one `"${SKILLYARD_ARR_i_a}"` per item: 800
    occurrences and 1000 items made a 20 MB script, built by copying it once per occurrence (seconds,
    quadratic), that no kernel would then run. Refused before it is built, with the reason."""
    command = "printf '%s\\n' " + " ".join(["{a}"] * 800) + " | wc -l"
    s = ToolSpec("many", "many", command, args=(ToolArg("a", type="array"),))
    with pytest.raises(ToolArgError, match=r"make the command too long \(\d+ characters; at most 131071\)"):
        build_invocation(s, {"a": ["x"] * 1000})
    text, err = run_tool(_skill(skill_dir), s, {"a": ["x"] * 1000}, executor="local")
    assert err and "too long" in text
    assert run_tool(_skill(skill_dir), s, {"a": ["x"] * 4}, executor="local") == ("3200", False)


def test_a_full_array_still_runs_in_shell_mode(skill_dir: Path) -> None:
    s = ToolSpec("arr", "arr", "printf '%s\\n' {a} | wc -l", args=(ToolArg("a", type="array"),))
    assert run_tool(_skill(skill_dir), s, {"a": [f"-x{i}" for i in range(1000)]}, executor="local")[
        1
    ]  # dashes
    items = [f"item {i}; $(touch x)" for i in range(1000)]
    assert run_tool(_skill(skill_dir), s, {"a": items}, executor="local") == ("1000", False)
    inv = build_invocation(s, {"a": items})
    assert inv.script is not None and inv.script.count('"${SKILLYARD_ARR_') == 1000


#: A nameref's target is a name bash evaluates, subscript included, on every use.
NAMEREFS = [
    "declare -n r={x}; echo $r",
    "f() { local -n r={x}; echo $r; }; f",
    "declare -n r; for r in {x}; do echo $r; done",
    "declare -n r; r={x}; echo $r",
    "f() { local -n r=$1; echo $r; }; f {x}",
    'f() { declare -n r="$1"; echo $r; }; f {x}',
    "set -- {x}; declare -n r=$1; echo $r",
    "eval 'declare -n r=$1'; echo {x}",
    "bash -c 'declare -n r=$1; echo $r' _ {x}",
]


@pytest.mark.parametrize("command", NAMEREFS)
def test_a_template_with_a_nameref_takes_integers_only(skill_dir: Path, command: str) -> None:
    s = ToolSpec("ref", "ref", command, args=(ToolArg("x"),))
    diags = lint_tool(s, "SKILL.toml")
    assert [d.code for d in diags] == ["tool-template"], diags
    canary = skill_dir / "CANARY"
    for value in _hostile(canary):
        text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
        assert err and "unusable command template" in text
    assert not canary.exists()


def test_export_n_is_not_a_nameref() -> None:
    s = ToolSpec("ex", "ex", "export -n HOME; echo {x}", args=(ToolArg("x"),))
    assert lint_tool(s) == []


#: A value that reaches a builtin's variable-name operand through a variable or a positional
#: parameter: bash evaluates the name's subscript there (`printf -v 'a[$(cmd)]'` runs cmd).
NAMES_THROUGH_VARIABLES = [
    "v={x}; [[ -v $v ]]",
    'v={x}; test -v "$v"',
    'v={x}; [ -v "$v" ]',
    'v={x}; printf -v "$v" %s 1',
    'v={x}; read "$v" < /dev/null',
    'v={x}; declare "$v"=1',
    "f() { [[ -v $1 ]]; }; f {x}",
    'f() { printf -v "$1" %s 1; }; f {x}',
    'f() { read "$1" < /dev/null; }; f {x}',
    'f() { declare -g "$1"=1; }; f {x}',
    'f() { echo "${!1}"; }; f {x}',
    'f() { : "${1@P}"; }; f {x}',
    "bash -c 'printf -v \"$1\" x' _ {x}",
]


@pytest.mark.parametrize("command", NAMES_THROUGH_VARIABLES)
def test_a_value_cannot_reach_a_variable_name_through_a_variable(skill_dir: Path, command: str) -> None:
    s = ToolSpec("names", "names", command, args=(ToolArg("x"),))
    assert [d.code for d in lint_tool(s, "SKILL.toml")] == ["tool-template"]
    canary = skill_dir / "CANARY"
    for value in _hostile(canary):
        text, err = run_tool(_skill(skill_dir), s, {"x": value}, executor="local")
        assert err and "unusable command template" in text
    assert not canary.exists()


@pytest.mark.parametrize(
    "command",
    [
        'while IFS= read -r line; do echo "$line"; done < {file}',
        "mapfile -t lines < {file}; echo ${#lines[@]}",
        'read -r -p "$PS" v < {file}; echo "$v"',
        'sleep 0 & pid=$!; wait "$pid"; cat {file}',
        'f() { local d="$1"; cat "$d"; }; f {file}',
        'printf -v out %s {file}; cat "$out"',
        'export NAME={file}; cat "$NAME"',
    ],
)
def test_ordinary_reads_and_functions_keep_string_values(skill_dir: Path, command: str) -> None:
    """Redirection targets are files, not variable names; `local d="$1"` names `d`, whatever `$1` is."""
    (skill_dir / "skill" / "data.txt").write_text("one\ntwo\n")
    s = ToolSpec("plain", "plain", command, args=(ToolArg("file"),))
    assert lint_tool(s) == []
    text, err = run_tool(_skill(skill_dir), s, {"file": "data.txt"}, executor="local")
    assert not err and text in ("one\ntwo", "one", "2", ""), text


#: Text the shell expands into a script it then parses: the value becomes code, whatever its quoting.
EXPANDED_INTO_CODE = [
    "eval echo {x}",
    'v={x}; eval "echo $v"',
    'f() { eval "echo $1"; }; f {x}',
    'v={x}; bash -c "echo $v"',
    'v={x}; trap "echo $v" EXIT',
]


@pytest.mark.parametrize("command", EXPANDED_INTO_CODE)
def test_a_value_expanded_into_a_script_is_refused(skill_dir: Path, command: str) -> None:
    s = ToolSpec("code", "code", command, args=(ToolArg("x"),))
    assert [d.code for d in lint_tool(s, "SKILL.toml")] == ["tool-template"]
    canary = skill_dir / "CANARY"
    text, err = run_tool(_skill(skill_dir), s, {"x": f"x; touch {canary}"}, executor="local")
    assert err and "unusable command template" in text
    assert not canary.exists()


@pytest.mark.parametrize(
    "command", ["bash -c 'echo \"$1\"' _ {x}", "trap 'echo \"$v\"' EXIT; v={x}", "eval 'echo \"$v\"'; v={x}"]
)
def test_a_single_quoted_script_keeps_string_values(skill_dir: Path, command: str) -> None:
    s = ToolSpec("code", "code", command, args=(ToolArg("x"),))
    assert lint_tool(s) == []
    canary = skill_dir / "CANARY"
    text, err = run_tool(_skill(skill_dir), s, {"x": f"x; touch {canary}"}, executor="local")
    assert not err, text
    assert not canary.exists()
