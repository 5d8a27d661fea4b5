"""Placeholders in bash arithmetic: integer-typed or refused at load, and no value ever runs as code.

Quoting does not protect a value that bash evaluates as arithmetic (`x[$(cmd)]` runs `cmd` while the
subscript is evaluated), so these tests run real bash through the real runner and look for a canary
file that a hostile value would create.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skillyard.config import Config, ExecutionSettings
from skillyard.model import Skill, ToolArg, ToolSpec
from skillyard.registry import Registry
from skillyard.toml_tools import ToolArgError, build_invocation, compile_template, lint_tool, tool_plan
from toml_run_support import run_tool

#: (template, context named in the refusal, output for 42, output for -3)
FORMS = [
    ("(( {lines} > 10 )) && echo big || echo small", "(( ))", "big", "small"),
    ("(( 100 < {lines} )) && echo big || echo small", "(( ))", "small", "small"),
    ("echo $(( {lines} + 1 ))", "$(( ))", "43", "-2"),
    ('echo "$(( {lines} * 2 ))"', "$(( ))", "84", "-6"),
    ("echo $[ {lines} * 2 ]", "$[ ]", "84", "-6"),
    ("let n={lines}; echo $n", "let", "42", "-3"),
    ("let 'n={lines}*2'; echo $n", "let", "84", "-6"),
    ("declare -i n; n={lines}; echo $(( n * 2 ))", "declare -i", "84", "-6"),
    ("declare -i n={lines}; echo $n", "declare -i", "42", "-3"),
    ("local_n={lines}; echo $(( local_n + 1 ))", "assignment to 'local_n'", "43", "-2"),
    ("[[ 1 -lt {lines} ]] && echo big || echo small", "[[ -lt ]]", "big", "small"),
    ("[[ {lines} -eq 42 ]] && echo yes || echo no", "[[ -eq ]]", "yes", "no"),
    ("for (( i=0; i<{lines}; i++ )); do :; done; echo $i", "(( ))", "42", "0"),
    ("if [[ 1 -lt {lines} ]]; then echo big; else echo small; fi", "[[ -lt ]]", "big", "small"),
    ("! [[ {lines} -ge 0 ]] && echo neg || echo pos", "[[ -ge ]]", "pos", "neg"),
    ("[[ 1 -eq 1 && 2 -lt {lines} ]] && echo big || echo small", "[[ -lt ]]", "big", "small"),
    ("[[ ( 1 -lt {lines} ) || {lines} -lt -5 ]] && echo big || echo small", "[[ -lt ]]", "big", "small"),
    ("if command let n={lines}; then echo $n; fi", "let", "42", "-3"),
    ("f() { local -i n; n={lines}; echo $n; }; f", "declare -i", "42", "-3"),
    ('s=abcdefghij; echo "${s:0:{lines}}"', "substring", "abcdefghij", "abcdefg"),
    ('a=({0..49}); echo "${a[{lines}]}"', "array subscript", "42", "47"),
    ('a[{lines}+5]=v; echo "${!a[@]}"', "array subscript", "47", "2"),
]


@pytest.fixture
def skill_dir() -> Iterator[Path]:
    """A skill directory, and beside it the place hostile values try to create files in."""
    d = Path(tempfile.mkdtemp(prefix="skillyard-arith-"))
    (d / "skill").mkdir()
    (d / "skill" / "SKILL.md").write_text("---\nname: arith\ndescription: arithmetic tools\n---\n")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def skill_at(d: Path) -> Skill:
    return Skill(name="arith", description="arithmetic tools", path=d / "skill" / "SKILL.md")


def spec(command: str, type_: str | None = "integer") -> ToolSpec:
    args = () if type_ is None else (ToolArg("lines", type=type_),)
    return ToolSpec("count", "count", command, args=args)


def hostile(canary: Path) -> list[str]:
    """Values that run `touch canary` wherever bash evaluates them as arithmetic."""
    return [
        f"x[$(touch {canary})]",
        f"a[`touch {canary}`]",
        f"0 + x[$(touch {canary})]",
        f"1\nx[$(touch {canary})]",
        f"'x[$(touch {canary})]'",
        f'"x[$(touch {canary})]"',
    ]


@pytest.mark.parametrize(("command", "context", "out42", "out_neg"), FORMS)
@pytest.mark.parametrize("type_", ["string", None, "boolean", "array"])
def test_arithmetic_placeholder_of_another_type_is_refused_at_load(
    command: str, context: str, out42: str, out_neg: str, type_: str | None
) -> None:
    s = spec(command, type_)
    diags = lint_tool(s, "SKILL.toml")
    assert [d.code for d in diags] == ["tool-template"]
    assert diags[0].level == "error"
    message = diags[0].message
    assert message.startswith("tool 'count': placeholder {lines} is inside a bash arithmetic context (")
    assert context in message and "declare the argument as type integer" in message
    with pytest.raises(ToolArgError, match="unusable command template"):
        build_invocation(s, {"lines": "42"})


@pytest.mark.parametrize(("command", "context", "out42", "out_neg"), FORMS)
def test_integer_arithmetic_placeholder_runs_numbers_and_refuses_code(
    skill_dir: Path, command: str, context: str, out42: str, out_neg: str
) -> None:
    s = spec(command)
    assert lint_tool(s) == []
    skill = skill_at(skill_dir)
    assert run_tool(skill, s, {"lines": 42}, executor="local") == (out42, False)
    assert run_tool(skill, s, {"lines": "-3"}, executor="local") == (out_neg, False)
    canary = skill_dir / "CANARY"
    for value in hostile(canary):
        text, err = run_tool(skill, s, {"lines": value}, executor="local")
        assert err and text.startswith("Parameter 'lines' declared as integer"), text
    assert not canary.exists()


@pytest.mark.parametrize(("command", "context", "out42", "out_neg"), FORMS[:4])
def test_number_in_arithmetic_must_be_a_whole_number(
    skill_dir: Path, command: str, context: str, out42: str, out_neg: str
) -> None:
    s = spec(command, "number")
    assert lint_tool(s) == []
    skill = skill_at(skill_dir)
    assert run_tool(skill, s, {"lines": 42.0}, executor="local") == (out42, False)
    text, err = run_tool(skill, s, {"lines": 2.5}, executor="local")
    assert err and text == "Parameter 'lines' must be a whole number here (bash arithmetic), got '2.5'"
    text, err = run_tool(skill, s, {"lines": "1e300"}, executor="local")
    assert err and "must be a whole number here" in text


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo {lines} | { read n; echo $(( n + 1 )); }", "variable 'n'"),
        ("echo {lines} > f; read -r n < f; echo $(( n ))", "variable 'n'"),
        ("printf -v n %s {lines}; echo $(( n ))", "variable 'n'"),
        ("for n in {lines}; do echo $(( n )); done", "variable 'n'"),
        ("echo {lines}; echo $(( _ ))", "variable '_'"),
        ("f() { echo $(( $1 + 1 )); }; f {lines}", "$1 inside $(( ))"),
        ('set -- {lines}; echo "$(( $1 ))"', "$1 inside $(( ))"),
        ("echo {lines} | { read -r; echo $(( REPLY )); }", "variable 'REPLY'"),
        ("v={lines}; [[ $v =~ (.*) ]]; echo $(( BASH_REMATCH[1] ))", "variable 'BASH_REMATCH'"),
        ("eval n={lines}; echo $(( n ))", "'eval'"),
        ("n={lines}; eval 'echo $(( n ))'", "an assignment to 'n'"),
        ("trap 'echo $(( n ))' EXIT; n={lines}", "an assignment to 'n'"),
        ("c=let; $c n={lines}", "an argument of the computed command $c"),
        ("\"$SHELL\" -c 'echo $(( $1 ))' _ {lines}", "computed command"),
        ("shopt -s expand_aliases; alias l=let; l n={lines}", "an alias"),
        ('declare -i "n={lines}"', "integer variable"),
        (
            "declare -i n; printf -v n %s {lines}",
            "variable 'n' is evaluated in every assignment to it (declare -i)",
        ),
        ("declare -i n; for n in {lines}; do :; done", "variable 'n'"),
        ('f() { let "$@"; }; f n={lines}', "$@ inside let"),
        ('declare -A m; echo "${m[key]}" {lines}', "variable 'key'"),
        ("declare -n r=n; r={lines}; echo $(( n ))", "declare -n"),
        ("n=$(cat {lines}); echo $(( n ))", "not supported"),
        ("n=${x:={lines}}; echo $(( n ))", "not supported"),
        ("m={lines}; n=$m; echo $(( n ))", "variable 'n'"),
        ("echo $(( $(cat f) )) {lines}", "command substitution inside $(( ))"),
    ],
)
def test_string_that_may_reach_arithmetic_through_a_variable_is_refused(command: str, reason: str) -> None:
    """Where bash may store the value and read it in arithmetic later, the template is refused."""
    diags = lint_tool(spec(command, "string"))
    assert [d.level for d in diags] == ["error"], diags
    assert reason in diags[0].message


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("bash -c 'echo $(( $1 ))' _ {lines}", "$1 inside $(( )) of a nested shell"),
        ('timeout 5 bash -ec "echo \\$(( \\$1 ))" _ {lines}', "$1 inside $(( )) of a nested shell"),
        ("env n={lines} bash -c 'echo $((n))'", "variable 'n'"),
        ("export n={lines}; sh -c 'echo $((n))'", "an assignment to 'n'"),
    ],
)
def test_nested_shell_scripts_are_scanned_even_in_argv_mode(
    skill_dir: Path, command: str, reason: str
) -> None:
    """`bash -c '...'` evaluates arithmetic in a shell of its own; the values reach it as $1 or the environment."""
    diags = lint_tool(spec(command, "string"))
    assert [d.level for d in diags] == ["error"] and reason in diags[0].message, diags
    s = spec(command)
    assert lint_tool(s) == []
    skill = skill_at(skill_dir)
    for value in hostile(skill_dir / "CANARY"):
        text, err = run_tool(skill, s, {"lines": value}, executor="local")
        assert err and text.startswith("Parameter 'lines' declared as integer"), text
    assert run_tool(skill, s, {"lines": -3}, executor="local") == ("-3", False)
    assert not (skill_dir / "CANARY").exists()


def test_closed_arithmetic_leaves_other_string_placeholders_alone(skill_dir: Path) -> None:
    s = ToolSpec(
        "repeat",
        "repeat",
        'n=0; for (( i=0; i<{times}; i++ )); do (( n += 2 )); echo "$i" {msg}; done; echo "$n"',
        args=(ToolArg("times", type="integer"), ToolArg("msg", type="string", allow_dash=True)),
    )
    assert lint_tool(s) == []
    canary = skill_dir / "CANARY"
    skill = skill_at(skill_dir)
    for value in hostile(canary):
        text, err = run_tool(skill, s, {"times": 2, "msg": value}, executor="local")
        assert (text, err) == (f"0 {value}\n1 {value}\n4", False)
    assert not canary.exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo {msg}",
        "printf '%s\\n' {msg} | wc -c",
        "[ 1 -lt {msg} ] && echo y",  # `[` is the test builtin: strict integers, no arithmetic
        'echo "a[{msg}]"',  # a mid-word placeholder stays unsupported without arithmetic around it
        "grep -c -- {msg} data.txt",
    ],
)
def test_templates_without_arithmetic_are_unaffected(command: str) -> None:
    s = ToolSpec("t", "t", command, args=(ToolArg("msg"),))
    codes = [d.code for d in lint_tool(s)]
    assert "arithmetic" not in " ".join(d.message for d in lint_tool(s)), codes


def test_argv_mode_runs_no_shell_so_nothing_is_arithmetic(skill_dir: Path) -> None:
    value = f"x[$(touch {skill_dir / 'CANARY'})]"
    s = ToolSpec("e", "e", "echo {msg}", args=(ToolArg("msg"),))
    assert not compile_template(s.command).shell
    assert build_invocation(s, {"msg": value}).argv == ["echo", value]
    assert run_tool(skill_at(skill_dir), s, {"msg": value}, executor="local") == (value, False)
    assert not (skill_dir / "CANARY").exists()


def test_inner_arithmetic_placeholder_cannot_be_left_out() -> None:
    s = ToolSpec("t", "t", "echo $(( {n} + 1 ))", args=(ToolArg("n", type="integer", required=False),))
    with pytest.raises(ToolArgError, match="Missing parameter 'n'"):
        build_invocation(s, {})
    inv = build_invocation(s, {"n": 7})
    assert inv.script == "echo $(( ${SKILLYARD_ARG_n} + 1 ))" and inv.env == {"SKILLYARD_ARG_n": "7"}


def test_registry_does_not_offer_a_refused_tool(tmp_path: Path) -> None:
    d = tmp_path / "skills" / "counter"
    d.mkdir(parents=True)
    (d / "SKILL.toml").write_text(
        '[skill]\nname = "counter"\ndescription = "counting"\n\n'
        '[[tools]]\nname = "count"\ndescription = "c"\ncommand = "echo $(( {lines} + 1 ))"\n'
        '[tools.args]\nlines = { description = "how many", type = "string" }\n\n'
        '[[tools]]\nname = "count_ok"\ndescription = "c"\ncommand = "echo $(( {lines} + 1 ))"\n'
        '[tools.args]\nlines = { description = "how many", type = "integer" }\n',
        encoding="utf-8",
    )
    reg = Registry.from_roots([tmp_path / "skills"], Config(execution=ExecutionSettings(executor="local")))
    plan, notes = tool_plan(reg)
    assert [spec.name for _, spec in plan.values()] == ["count_ok"]
    assert any(
        d.code == "tool-template" and "tool 'count': placeholder {lines} is inside" in d.message
        for d in notes
    )


# --- property: whatever the template and the value, no hostile value runs ------------------------------------

ARITH_FORMS = [
    "(( {x} ))",
    "(( 1 < {x} ))",
    "echo $(( {x} + 1 ))",
    'echo "$(( 2 * {x} ))"',
    "echo $[ {x} ]",
    "let v={x}",
    "let 'v={x}+1'",
    "declare -i v; v={x}",
    "typeset -i v={x}",
    "v={x}; echo $(( v ))",
    "v={x}; (( v > 0 ))",
    "[[ 1 -lt {x} ]]",
    "[[ {x} -ge 0 ]]",
    "for (( k=0; k<{x}; k++ )); do :; done",
    's=abc; echo "${s:{x}}"',
    "s=abc; echo ${s:0:{x}}",
    "a=(1 2); echo ${a[{x}]}",
    "a[{x}]=1",
    "read v <<< {x}; echo $(( v ))",  # refused: placeholders after << are unsupported anyway
    "echo {x} | { read -r v; (( v )); }",
    "echo $(( $(echo {x}) ))",
    "f() { (( $1 )); }; f {x}",
]
SAFE_FORMS = [
    "echo {y}",
    "echo '{y}'",
    'echo "{y}"',
    "printf '%s\\n' {y}",
    "echo --v={y}",
    "[ -n {y} ]",
    "w={y}",
]
#: Shell text around the two forms: variables, arithmetic of their own, reads, arrays.
FILLER = [
    "",
    "true; ",
    "echo a | cat; ",
    "n=1; ",
    "(( n++ )); ",
    "echo $(( n + 1 )); ",
    "a=(1 2 3); ",
    'echo "${a[1]}"; ',
    "read -r n < /dev/null; ",
    "declare -i m; ",
    "m=$(( 4 )); ",
    "w=$n; ",
    "echo $(( w )); ",
    "if [[ 2 -gt 1 ]]; then :; fi; ",
]
PAYLOADS = [
    "x[$(touch {c})]",
    "a[`touch {c}`]",
    "$(touch {c})",
    "`touch {c}`",
    "1 + x[$(touch {c})]",
    "x[$(touch {c})]\n",
    "\nx[$(touch {c})]",
    "'x[$(touch {c})]'",
    '"$(touch {c})"',
    "y[0$(touch {c})]",
    "x[${x:=$(touch {c})}]",
    "7",
    "-3",
]
payloads = st.tuples(st.sampled_from(PAYLOADS), st.text(alphabet="ab \"'$[]{}()", max_size=4)).map(
    lambda p: p[0] if p[0] in ("7", "-3") else p[0] + p[1]
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fill=st.lists(st.sampled_from(FILLER), max_size=3),
    form=st.one_of(
        st.sampled_from(ARITH_FORMS), st.sampled_from([f.replace("{y}", "{x}") for f in SAFE_FORMS])
    ),
    safe=st.sampled_from(["", *SAFE_FORMS]),
    after=st.sampled_from(["", "; echo done", " && echo ok", " || true", "\necho end"]),
    type_=st.sampled_from(["string", "string", "integer", "number"]),
    x=payloads,
    y=payloads,
)
def test_hostile_values_never_run_in_arithmetic(
    fill: list[str], form: str, safe: str, after: str, type_: str, x: str, y: str
) -> None:
    """Refused at load, or a value refused, or it runs and no payload's canary exists."""
    d = Path(tempfile.mkdtemp(prefix="skillyard-arith-prop-"))
    try:
        (d / "skill").mkdir()
        canary = d / "CANARY"
        command = "".join(fill[:1]) + form + "; " + "".join(fill[1:]) + (safe or "true") + after
        args = (ToolArg("x", type=type_, allow_dash=True), ToolArg("y", allow_dash=True))
        s = ToolSpec("t", "t", command, args=args if safe else args[:1])
        values = {"x": x.replace("{c}", str(canary))} | ({"y": y.replace("{c}", str(canary))} if safe else {})
        if any(dg.level == "error" for dg in lint_tool(s)):
            event("refused at load")
            with pytest.raises(ToolArgError):
                build_invocation(s, values)
            return
        text, err = run_tool(skill_at(d), s, values, executor="local", timeout=20)
        event("a value refused" if text.startswith("Parameter '") else "ran")
        assert not canary.exists(), (command, values, text)
        if type_ != "string" and form in ARITH_FORMS and x not in ("7", "-3"):
            assert err, (command, values, text)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize(
    ("command", "context"),
    [
        ('v={lines}; echo "${!v}"', "indirect expansion"),
        ("v={lines}; echo ${!v}", "indirect expansion"),
        ('v={lines}; echo "${v@P}"', "prompt expansion"),
        ("unset {lines}", "variable name (unset)"),
        ("read {lines} < /dev/null", "variable name (read)"),
        ("printf -v {lines} %s 1; echo done", "variable name (printf)"),
        ("[[ -v {lines} ]] && echo set", "-v"),
        ("test -v {lines} && echo set", "-v"),
        ("[ -v {lines} ] && echo set", "-v"),
    ],
)
def test_values_used_as_names_or_prompts_are_refused(skill_dir: Path, command: str, context: str) -> None:
    """Bash evaluates a name's subscript (`a[$(cmd)]`) and a prompt's `$(cmd)`: quoting cannot help."""
    diags = lint_tool(spec(command, "string"))
    assert diags and diags[0].code == "tool-template", diags
    # Refused for what it is, or earlier for a stricter rule (a placeholder as a builtin's first word).
    assert context in diags[0].message or "cannot be a placeholder" in diags[0].message, diags
    s = spec(command, "integer")
    if lint_tool(s):
        return
    canary = skill_dir / "CANARY"
    for value in hostile(canary):
        text, err = run_tool(skill_at(skill_dir), s, {"lines": value}, executor="local")
        assert err and not canary.exists(), (value, text)


@pytest.mark.parametrize("opener", ["$(", "${x:-", "$((", "`echo "])
def test_deep_nesting_is_refused_not_a_crash(opener: str) -> None:
    closer = {"$(": ")", "${x:-": "}", "$((": "))", "`echo ": "`"}[opener]
    command = "echo " + opener * 5000 + "{lines}" + closer * 5000
    diags = lint_tool(spec(command, "integer"))
    assert diags and diags[0].code == "tool-template"
