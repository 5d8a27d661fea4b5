"""Property tests: whatever string the model sends, the program gets exactly that argv, or the call is refused.

Values mix hostile fragments (quotes, `$()`, backticks, `;`, newlines, globs, leading dashes, Unicode,
control characters) with arbitrary text. The argv-mode properties check the built argv directly (the OS
passes it through unchanged); the shell-mode properties really run bash and the argv-echo fixture.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.model import ToolArg, ToolSpec
from skillyard.toml_tools import ToolArgError, build_invocation

ECHO_DIR = Path(__file__).parent / "fixtures" / "toml_tools" / "argv-echo"

HOSTILE = [
    "'", '"', "\\", "$(id)", "${HOME}", "$HOME", "`id`", ";", "&&", "||", "|", "&", ">", "<", "\n", "\t",
    "*", "?", "[a-z]", "~", "#", "{x}", "{}", "%s", "-", "--", "--output=/etc/passwd", "-rf", " ", "  ",
    "é", "日本", "🎉", "\u202e", "\x00", "\x1b", "\r", "\x7f", "\ud800", "=", "!", "!!",
]  # fmt: skip

values = st.one_of(
    st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=4)), max_size=8).map("".join),
    st.text(max_size=30),
)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def refused_because(value: str, allow_dash: bool) -> bool:
    """Whether the runtime must refuse this string value (and only then)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return bool(_CONTROL.search(value)) or (value.startswith("-") and not allow_dash)


ARGS = (
    ToolArg("text", type="string"),
    ToolArg("mode", type="string", required=False),
    ToolArg("extra", type="string", required=False, allow_dash=True),
)
ARGV_SPEC = ToolSpec(
    "echo", "echo", "python3 echo_argv.py --text {text} --mode={mode} '{extra}' end", args=ARGS
)
SHELL_SPEC = ToolSpec(
    "echo", "echo", "python3 echo_argv.py --text {text} --mode=\"{mode}\" '{extra}' end | cat", args=ARGS
)


def expected_argv(text: str, mode: str, extra: str) -> list[str]:
    out = ["--text", text]
    if mode:
        out.append(f"--mode={mode}")
    if extra:
        out.append(extra)
    return [*out, "end"]


def check(spec: ToolSpec, text: str, mode: str, extra: str) -> tuple[object, list[str]] | None:
    """Build the call; assert refusals happen exactly when a value is unsafe. None when refused."""
    must_refuse = refused_because(text, False) or text == ""
    must_refuse |= refused_because(mode, True) or refused_because(extra, True)
    try:
        inv = build_invocation(spec, {"text": text, "mode": mode, "extra": extra})
    except ToolArgError as e:
        assert must_refuse, (text, mode, extra, str(e))
        assert str(e)  # a clear message, not an empty one
        return None
    assert not must_refuse, (text, mode, extra)
    return inv, expected_argv(text, mode, extra)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=values, mode=values, extra=values)
def test_argv_mode_every_value_is_exactly_one_element(text: str, mode: str, extra: str) -> None:
    got = check(ARGV_SPEC, text, mode, extra)
    if got is None:
        return
    inv, expected = got
    assert not inv.shell and inv.env == {}
    assert inv.argv == ["python3", "echo_argv.py", *expected]


def _run(argv: list[str], env: dict[str, str]) -> list[str]:
    full_env = {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", **env}
    out = subprocess.run(argv, cwd=ECHO_DIR, env=full_env, capture_output=True, timeout=30, check=True)
    return json.loads(out.stdout)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=values, mode=values, extra=values)
def test_argv_mode_program_really_receives_it(text: str, mode: str, extra: str) -> None:
    got = check(ARGV_SPEC, text, mode, extra)
    if got is None:
        return
    inv, expected = got
    assert _run(inv.argv, inv.env) == expected


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=values, mode=values, extra=values)
def test_shell_mode_bash_passes_values_untouched(text: str, mode: str, extra: str) -> None:
    got = check(SHELL_SPEC, text, mode, extra)
    if got is None:
        return
    inv, expected = got
    assert inv.shell
    assert _run(inv.argv, inv.env) == expected


@settings(max_examples=1000, deadline=None)
@given(text=values, mode=values, extra=values)
def test_values_never_change_the_command(text: str, mode: str, extra: str) -> None:
    """The bash script depends only on which parameters are present, never on what they hold."""
    try:
        inv = build_invocation(SHELL_SPEC, {"text": text, "mode": mode, "extra": extra})
    except ToolArgError:
        return
    benign = build_invocation(
        SHELL_SPEC, {"text": "x", "mode": "x" if mode else "", "extra": "x" if extra else ""}
    )
    assert inv.script == benign.script
    assert inv.argv == benign.argv
    assert set(inv.env) == set(benign.env)


@settings(max_examples=300, deadline=None)
@given(items=st.lists(values, max_size=5))
def test_array_items_are_elements_in_both_modes(items: list[str]) -> None:
    arg = ToolArg("xs", type="array", allow_dash=True, required=False)
    argv_spec = ToolSpec("a", "a", "python3 echo_argv.py {xs} end", args=(arg,))
    shell_spec = ToolSpec("a", "a", "python3 echo_argv.py {xs} end | cat", args=(arg,))
    try:
        inv = build_invocation(argv_spec, {"xs": items})
    except ToolArgError:
        assert any(refused_because(i, True) for i in items)
        return
    assert not any(refused_because(i, True) for i in items)
    assert inv.argv == ["python3", "echo_argv.py", *items, "end"]
    sh = build_invocation(shell_spec, {"xs": items})
    assert [sh.env[f"SKILLYARD_ARR_{i}_xs"] for i in range(len(items))] == items
    assert sh.script == build_invocation(shell_spec, {"xs": ["x"] * len(items)}).script


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(st.text(max_size=40), st.integers(), st.floats(), st.booleans(), st.none()))
def test_integer_parameter_renders_digits_or_refuses(raw: object) -> None:
    spec = ToolSpec("n", "n", "t {n}", args=(ToolArg("n", type="integer"),))
    try:
        inv = build_invocation(spec, {"n": raw})
    except ToolArgError as e:
        assert str(e).startswith(("Parameter 'n' declared as integer", "Required parameter 'n'"))
        return
    assert re.fullmatch(r"-?[0-9]+", inv.argv[1])


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(st.text(max_size=200), st.binary(max_size=50).map(lambda b: b.decode("latin-1"))))
def test_arbitrary_argument_text_never_crashes(raw: str) -> None:
    spec = ToolSpec("n", "n", "t {a}", args=(ToolArg("a", required=False),))
    try:
        inv = build_invocation(spec, raw)
    except ToolArgError as e:
        assert str(e)
        return
    assert inv.argv[0] == "t"


TEMPLATE_PIECES = [
    "a", "b", "-f", "--k=", " ", "  ", "\t", "'", '"', "\\", "{x}", "'{x}'", '"{x}"', "--o={x}", "=", "$", "*",
    "#", "~", "{", "}", ",", "{a,b}", "|", ";", "&", ">", "(", ")", "`", "$(", "\n", "é", "{x",
]  # fmt: skip
templates = st.lists(st.sampled_from(TEMPLATE_PIECES), max_size=12).map("".join)


@settings(max_examples=1000, deadline=None)
@given(rest=templates, value=values)
def test_any_template_compiles_or_is_refused_clearly(rest: str, value: str) -> None:
    spec = ToolSpec("t", "t", "printf " + rest, args=(ToolArg("x", allow_dash=True),))
    try:
        build_invocation(spec, {"x": value} if "{x}" in rest else {})
    except ToolArgError as e:
        assert str(e)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rest=templates, value=values)
def test_tokenizer_agrees_with_bash(rest: str, value: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Where a template runs without a shell, bash would have split it (and placed the value) identically."""
    argv_spec = ToolSpec("t", "t", "printf '%s\\0' START " + rest, args=(ToolArg("x", allow_dash=True),))
    args = {"x": value} if "{x}" in rest else {}
    try:
        inv = build_invocation(argv_spec, args)
    except ToolArgError:
        return
    if inv.shell:
        return
    # the same template run as a bash script: its output is bash's own word splitting
    shell_inv = build_invocation(argv_spec, args, force_shell=True)
    assert shell_inv.shell
    cwd = tmp_path_factory.mktemp("empty")
    out = subprocess.run(
        shell_inv.argv,
        cwd=cwd,
        env={"PATH": os.environ["PATH"], **shell_inv.env},
        capture_output=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    words = out.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
    assert inv.argv[:3] == ["printf", "%s\\0", "START"]
    assert words == inv.argv[2:]
