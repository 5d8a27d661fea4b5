"""SKILL.toml tool calls → argv: schema, types, optional removal, errors, shell mode, hostile values."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from skillyard.model import ToolArg, ToolSpec
from skillyard.toml_tools import (
    TemplateError,
    ToolArgError,
    build_invocation,
    compile_template,
    parse_arguments,
    tool_schema,
)

ECHO_DIR = Path(__file__).parent / "fixtures" / "toml_tools" / "argv-echo"


def spec(command: str, *args: ToolArg, kind: str = "shell") -> ToolSpec:
    return ToolSpec(name="t", description="test tool", command=command, kind=kind, args=tuple(args))


def argv_of(command: str, values: Any, *args: ToolArg) -> list[str]:
    inv = build_invocation(spec(command, *args), values)
    assert not inv.shell, inv
    return inv.argv


def error_of(command: str, values: Any, *args: ToolArg, kind: str = "shell") -> str:
    with pytest.raises(ToolArgError) as e:
        build_invocation(spec(command, *args, kind=kind), values)
    return str(e.value)


def run_echo(command: str, values: Any, *args: ToolArg) -> list[str]:
    """Build the invocation and really run it in the argv-echo fixture; return the argv it saw."""
    inv = build_invocation(spec(command, *args), values)
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", **inv.env}
    out = subprocess.run(
        inv.argv, cwd=ECHO_DIR, env=env, capture_output=True, text=True, timeout=30, check=True
    )
    return json.loads(out.stdout)


# --- schema ---------------------------------------------------------------------------------------


def test_schema_shape_types_enum_default_required() -> None:
    s = spec(
        "tool --limit {limit} --name {name} --ratio {ratio} {verbose} {tags} {mode}",
        ToolArg("limit", "Maximum rows", type="integer", required=False, default=10),
        ToolArg("name", "Who", type="string"),
        ToolArg("ratio", "Share", type="number", required=False),
        ToolArg("verbose", "Enable chatter", type="boolean", required=False),
        ToolArg("tags", "Tags", type="array", required=False),
        ToolArg("mode", "How", enum=("fast", "slow")),
    )
    schema = tool_schema(s)
    assert schema == {
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "description": "Maximum rows", "default": 10},
            "name": {"type": "string", "description": "Who"},
            "ratio": {"type": "number", "description": "Share"},
            "verbose": {"type": "boolean", "description": "Enable chatter"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags"},
            "mode": {"type": "string", "description": "How", "enum": ["fast", "slow"]},
        },
        "required": ["name", "mode"],
        "additionalProperties": False,
    }
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate({"name": "x", "mode": "fast", "limit": 3}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "x", "mode": "fast", "bogus": 1}, schema)


def test_schema_undeclared_placeholder_is_required_string_and_unused_declaration_is_dropped() -> None:
    schema = tool_schema(spec("cmd {a}", ToolArg("unused", "never in the template")))
    assert schema["properties"] == {"a": {"type": "string", "description": "Parameter: a"}}
    assert schema["required"] == ["a"]


def test_schema_repeated_placeholder_is_one_parameter() -> None:
    schema = tool_schema(spec("cmd {a} --again {a}"))
    assert list(schema["properties"]) == ["a"]


# --- argv mode --------------------------------------------------------------------------------------


def test_values_become_single_argv_elements() -> None:
    assert argv_of(
        "python3 s.py --limit {limit} --name {name}",
        {"limit": 50, "name": "a b; rm -rf / $(id) `id` | cat > x"},
        ToolArg("limit", type="integer"),
    ) == ["python3", "s.py", "--limit", "50", "--name", "a b; rm -rf / $(id) `id` | cat > x"]


def test_args_as_json_string_and_empty_forms() -> None:
    assert argv_of("echo {a}", '{"a": "x"}') == ["echo", "x"]
    assert argv_of("echo hi", "") == ["echo", "hi"]
    assert argv_of("echo hi", None) == ["echo", "hi"]
    assert argv_of("echo hi", b"{}") == ["echo", "hi"]


@pytest.mark.parametrize(
    "bad", ["[1]", "1", '"x"', "nope", "{", '{"a": NaN}', "[" * 100_000, 5, ["a"], b"\xff"]
)
def test_arguments_must_be_a_json_object(bad: Any) -> None:
    assert error_of("echo {a}", bad) == "Tool arguments must be a JSON object"
    with pytest.raises(ToolArgError):
        parse_arguments(bad)


def test_template_quoted_placeholders_stay_one_element() -> None:
    hostile = "a b'; echo PWNED; '\" $(id)"
    assert argv_of("echo '{x}' \"{y}\"", {"x": hostile, "y": hostile}) == ["echo", hostile, hostile]


def test_flag_value_form() -> None:
    assert argv_of("tool --mode={m} -o={o}", {"m": "x y", "o": "-still-a-value"}) == [
        "tool",
        "--mode=x y",
        "-o=-still-a-value",
    ]
    assert argv_of('tool --mode="{m}"', {"m": "a;b"}) == ["tool", "--mode=a;b"]


def test_template_whitespace_and_escapes_preserved() -> None:
    assert argv_of("printf '%s  |  %s\\n' {a} \\{not\\}", {"a": "v"}) == [
        "printf",
        "%s  |  %s\\n",
        "v",
        "{not}",
    ]


def test_find_exec_braces_are_not_placeholders() -> None:
    assert argv_of("find . -name {pat} -exec echo {} +", {"pat": "*.py"}) == [
        "find",
        ".",
        "-name",
        "*.py",
        "-exec",
        "echo",
        "{}",
        "+",
    ]


def test_array_items_are_separate_elements() -> None:
    assert argv_of(
        "ls -- {files}", {"files": ["a b", "-c", 3]}, ToolArg("files", type="array", allow_dash=True)
    ) == [
        "ls",
        "--",
        "a b",
        "-c",
        "3",
    ]


# --- types ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (5, "5"),
        ("42", "42"),
        (" 7 ", "7"),
        (3.0, "3"),
        ("-3", "-3"),
        ("+8", "8"),
        (2**63 - 1, str(2**63 - 1)),
    ],
)
def test_integer_rendering(value: Any, rendered: str) -> None:
    assert argv_of("t {n}", {"n": value}, ToolArg("n", type="integer")) == ["t", rendered]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "Parameter 'limit' declared as integer but got non-numeric value"),
        ("", "Required parameter 'limit' must not be empty"),
        (True, "Parameter 'limit' declared as integer but got non-numeric value"),
        ([1], "Parameter 'limit' declared as integer but got non-numeric value"),
        ({"a": 1}, "Parameter 'limit' declared as integer but got non-numeric value"),
        ("1; id", "Parameter 'limit' declared as integer but got non-numeric value"),
        ("0x10", "Parameter 'limit' declared as integer but got non-numeric value"),
        (2.5, "Parameter 'limit' declared as integer but got non-integer value 2.5"),
        ("1e3", "Parameter 'limit' declared as integer but got non-integer value 1e3"),
        (2**63, "Parameter 'limit' declared as integer but got out-of-range value"),
        ("9" * 30, "Parameter 'limit' declared as integer but got out-of-range value"),
        (None, "Required parameter 'limit' must not be null"),
    ],
)
def test_integer_errors(value: Any, message: str) -> None:
    assert error_of("t {limit}", {"limit": value}, ToolArg("limit", type="integer")) == message


def test_integer_from_json_text_is_exact() -> None:
    assert argv_of("t {n}", '{"n": 12345678901234567}', ToolArg("n", type="integer")) == [
        "t",
        "12345678901234567",
    ]
    assert error_of("t {n}", '{"n": 1e400}', ToolArg("n", type="integer")) == (
        "Parameter 'n' declared as integer but got non-numeric value"
    )


@pytest.mark.parametrize(
    ("value", "rendered"),
    [(0.1, "0.1"), (2, "2"), ("2.50", "2.5"), (1e20, "1e+20"), (-1.5, "-1.5"), ("7", "7")],
)
def test_number_rendering(value: Any, rendered: str) -> None:
    assert argv_of("t {x}", {"x": value}, ToolArg("x", type="number")) == ["t", rendered]


@pytest.mark.parametrize("value", ["nan", "inf", "1.2.3", "", "1_000", True])
def test_number_errors(value: Any) -> None:
    msg = error_of("t {x}", {"x": value}, ToolArg("x", type="number", required=True))
    assert msg.startswith("Parameter 'x' declared as number but got") or "must not be empty" in msg


@pytest.mark.parametrize(
    ("value", "rendered"), [(True, "true"), (False, "false"), ("true", "true"), ("false", "false")]
)
def test_boolean_rendering(value: Any, rendered: str) -> None:
    assert argv_of("t --flag={b}", {"b": value}, ToolArg("b", type="boolean")) == ["t", f"--flag={rendered}"]


@pytest.mark.parametrize(
    ("value", "shown"), [("y", "y"), ("True", "True"), (1, "1"), ("yes", "yes"), ([True], "[true]")]
)
def test_boolean_errors(value: Any, shown: str) -> None:
    assert error_of("t {x}", {"x": value}, ToolArg("x", type="boolean")) == (
        f"Parameter 'x' declared as boolean but got '{shown}'"
    )


def test_string_accepts_scalars_canonically_and_refuses_containers() -> None:
    assert argv_of("t {s} {u} {v}", {"s": 5, "u": 1.5, "v": True}) == ["t", "5", "1.5", "true"]
    assert error_of("t {s}", {"s": ["a"]}) == "Parameter 's' declared as string but got array"
    assert error_of("t {s}", {"s": {"a": 1}}) == "Parameter 's' declared as string but got object"


def test_enum() -> None:
    mode = ToolArg("mode", enum=("fast", "slow"))
    assert argv_of("t {mode}", {"mode": "slow"}, mode) == ["t", "slow"]
    assert (
        error_of("t {mode}", {"mode": "medium"}, mode)
        == "Parameter 'mode' must be one of: fast, slow (got 'medium')"
    )
    level = ToolArg("level", type="integer", enum=(1, 2, 3))
    assert argv_of("t {level}", {"level": "2"}, level) == ["t", "2"]
    assert "must be one of: 1, 2, 3" in error_of("t {level}", {"level": 4}, level)
    tags = ToolArg("tags", type="array", enum=("a", "b"))
    assert argv_of("t {tags}", {"tags": ["b", "a"]}, tags) == ["t", "b", "a"]
    assert "items must be one of: a, b" in error_of("t {tags}", {"tags": ["c"]}, tags)


# --- refusals ---------------------------------------------------------------------------------------


def test_unknown_arguments_listed_sorted() -> None:
    assert error_of("t {a}", {"a": "x", "zz": 1, "b": 2}) == "unknown argument(s): b, zz"


def test_unknown_argument_names_are_shown_safely() -> None:
    msg = error_of("t {a}", {"a": "x", "evil\x1b[2J\nname" + "x" * 500: 1})
    assert msg.startswith("unknown argument(s): ")
    assert "\x1b" not in msg and "\n" not in msg and len(msg) < 120


def test_missing_required_and_all_errors_reported() -> None:
    msg = error_of("t {a} {b}", {"b": "-x", "c": 1})
    assert msg == (
        "unknown argument(s): c; Missing required parameter 'a'; "
        "Parameter 'b' must not start with '-' (it would be read as an option)"
    )


def test_leading_dash_refused_unless_allowed() -> None:
    assert error_of("git log {rev}", {"rev": "--output=/etc/passwd"}) == (
        "Parameter 'rev' must not start with '-' (it would be read as an option)"
    )
    assert argv_of("grep -e {p} f", {"p": "-v"}, ToolArg("p", allow_dash=True)) == ["grep", "-e", "-v", "f"]
    assert "must not start with '-'" in error_of("t {xs}", {"xs": ["ok", "-x"]}, ToolArg("xs", type="array"))
    # negative numbers are numbers, not options
    assert argv_of("t {n}", {"n": -3}, ToolArg("n", type="integer")) == ["t", "-3"]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("a\x00b", "must not contain NUL bytes"),
        ("a\x1b[31mred", "must not contain control characters"),
        ("a\rb", "must not contain control characters"),
        ("a\x7fb", "must not contain control characters"),
        ("a\x85b", "must not contain control characters"),
        ("\ud800", "must be valid Unicode text"),
        ("x" * 100_001, "is too long"),
    ],
)
def test_unsafe_text_refused(value: str, fragment: str) -> None:
    assert fragment in error_of("t {a}", {"a": value})


def test_tab_newline_and_unicode_pass_through() -> None:
    v = "line1\n\tline2 — ünïcödé 🎉"
    assert argv_of("t {a}", {"a": v}) == ["t", v]


def test_total_size_limit() -> None:
    args = [ToolArg(f"a{i}") for i in range(12)]
    command = "t " + " ".join(f"{{a{i}}}" for i in range(12))
    assert "Tool arguments are too large" in error_of(
        command, {f"a{i}": "x" * 99_000 for i in range(12)}, *args
    )


def test_unsupported_kind() -> None:
    assert error_of("t", {}, kind="http") == "Unsupported tool kind 'http': only shell tools are supported"


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("echo x{y}", "must be a whole word or the value of --flag={y}"),
        ("curl https://api/{id}/items", "must be a whole word"),
        ("echo '{a} and {b}'", "only one placeholder"),
        ("{prog} --help", "the program (first word of a command) cannot be a placeholder"),
        ("a | {prog} y", "the program (first word of a command) cannot be a placeholder"),
        ("a; {prog}", "the program (first word of a command) cannot be a placeholder"),
        ("FOO=1 {prog}", "the program (first word of a command) cannot be a placeholder"),
        ("if {prog}; then a; fi", "the program (first word of a command) cannot be a placeholder"),
        ("echo $(cat {f})", "inside $(...)"),
        ("echo `cat {f}`", "inside $(...)"),
        ("echo 'unterminated {a}", "unterminated single quote"),
        ('echo "unterminated {a}', "unterminated double quote"),
        ("cat <<EOF\n{a}\nEOF", "here-document"),
        ("", "the command is empty"),
        ("   ", "the command is empty"),
        ("echo a\rb", "carriage return"),
    ],
)
def test_unusable_templates(command: str, fragment: str) -> None:
    with pytest.raises(TemplateError) as e:
        build_invocation(spec(command), {})
    assert fragment in str(e.value)
    assert str(e.value).startswith("Tool 't' has an unusable command template: ")


def test_array_in_flag_value_form_is_a_template_error() -> None:
    with pytest.raises(TemplateError, match="must be a whole word"):
        build_invocation(spec("t --x={xs}", ToolArg("xs", type="array")), {"xs": ["a"]})


def test_str_format_attribute_syntax_is_not_a_placeholder() -> None:
    # `{a.__class__}` is what str.format would evaluate; here it is literal text
    assert argv_of("echo {a.__class__} {a}", {"a": "v"}) == ["echo", "{a.__class__}", "v"]


# --- optional parameters ------------------------------------------------------------------------------

OPT = ToolArg("optional", required=False)
REQ = ToolArg("required")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python3 s.py --required {required} --optional {optional}", ["python3", "s.py", "--required", "v"]),
        ("s --required={required} --optional={optional}", ["s", "--required=v"]),
        ("s {required} -o {optional} --keep", ["s", "v", "--keep"]),
        ("s {required} {optional} --keep", ["s", "v", "--keep"]),
        ("s {required} --other {optional}", ["s", "v", "--other"]),  # an unrelated flag is never guessed away
        ("s --optional-x {required} {optional}", ["s", "--optional-x", "v"]),
        ("s 'keep  these   spaces' {required} --optional {optional}", ["s", "keep  these   spaces", "v"]),
    ],
)
def test_optional_removal(command: str, expected: list[str]) -> None:
    assert argv_of(command, {"required": "v"}, REQ, OPT) == expected


def test_optional_dashed_flag_name_and_short_flag_only_when_adjacent() -> None:
    o = ToolArg("max_count", required=False)
    assert argv_of("s --max-count {max_count} -v", {}, o) == ["s", "-v"]
    assert argv_of("s --max_count {max_count} -v", {}, o) == ["s", "-v"]
    assert argv_of("s -n {max_count}", {}, o) == ["s"]
    assert argv_of("s -n x {max_count}", {}, o) == ["s", "-n", "x"]


def test_program_is_never_removed() -> None:
    assert argv_of("-x {o}", {}, ToolArg("o", required=False)) == ["-x"]


def test_optional_null_and_empty_mean_omitted_and_default_fills_in() -> None:
    assert argv_of("s --o {o}", {"o": None}, ToolArg("o", required=False)) == ["s"]
    assert argv_of("s --o {o}", {"o": ""}, ToolArg("o", required=False)) == ["s"]
    assert argv_of("s --o {o}", {}, ToolArg("o", type="integer", required=False, default=10)) == [
        "s",
        "--o",
        "10",
    ]
    assert argv_of("s {xs}", {"xs": []}, ToolArg("xs", type="array", required=False)) == ["s"]


def test_compiled_template_is_cached_and_reports_mode() -> None:
    assert compile_template("a {b}") is compile_template("a {b}")
    assert not compile_template("a {b}").shell
    assert compile_template("a {b} | c").shell


# --- shell mode --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "a {x} | b",
        "a {x} && b",
        "a {x}; b",
        "a {x} > out",
        "a $HOME {x}",
        "a *.txt {x}",
        "FOO=1 a {x}",
        "cd sub && a {x}",
        "a {x} # note",
        "a {x}\nb",
        "echo {a,b} {x}",
        "a ~/x {x}",
    ],
)
def test_shell_syntax_selects_bash(command: str) -> None:
    inv = build_invocation(spec(command), {"x": "v"})
    assert inv.shell and inv.argv[:4] == ["bash", "--noprofile", "--norc", "-c"]
    assert inv.env == {"SKILLYARD_ARG_x": "v"}
    assert '"${SKILLYARD_ARG_x}"' in inv.script


def test_shell_values_only_in_env_never_in_script() -> None:
    hostile = "'; touch /tmp/pwned; echo '\"$(id)\"`id`"
    inv = build_invocation(
        spec("python3 echo_argv.py {a} '{b}' \"{c}\" --d={d} | cat"), dict.fromkeys("abcd", hostile)
    )
    assert hostile not in inv.script
    assert inv.script == (
        'python3 echo_argv.py "${SKILLYARD_ARG_a}" "${SKILLYARD_ARG_b}" "${SKILLYARD_ARG_c}" '
        '--d="${SKILLYARD_ARG_d}" | cat'
    )


def test_shell_mode_real_bash_receives_exact_values() -> None:
    hostile = "a b'; echo PWNED; '\" $(id) `id` ${HOME} \\ * ? [x] ~ & | > < \n ünï"
    got = run_echo(
        "python3 echo_argv.py {a} '{b}' \"{c}\" --d={d} --e='{e}' --f=\"{f}\" {arr} | cat",
        {**dict.fromkeys("abcdef", hostile), "arr": [hostile, "x"]},
        ToolArg("arr", type="array"),
    )
    assert got == [
        hostile,
        hostile,
        hostile,
        f"--d={hostile}",
        f"--e={hostile}",
        f"--f={hostile}",
        hostile,
        "x",
    ]


def test_shell_mode_optional_removal_keeps_quoted_text() -> None:
    o = ToolArg("o", required=False)
    inv = build_invocation(spec("printf '%s|  |%s\\n' {r} --o {o} | cat", ToolArg("r"), o), {"r": "v"})
    assert inv.script == "printf '%s|  |%s\\n' \"${SKILLYARD_ARG_r}\"   | cat"
    assert run_echo("python3 echo_argv.py 'a   b' --o {o} -n {o} | cat", {}, o) == ["a   b"]


def test_shell_mode_redirect_target_is_a_quoted_value(tmp_path: Path) -> None:
    inv = build_invocation(spec("cat < {f} | tr a-z A-Z"), {"f": "in file; echo PWNED"})
    (tmp_path / "in file; echo PWNED").write_text("hello\n")
    out = subprocess.run(
        inv.argv, cwd=tmp_path, env={"PATH": os.environ["PATH"], **inv.env}, capture_output=True, text=True
    )
    assert out.stdout == "HELLO\n" and "PWNED" not in out.stdout


@pytest.mark.parametrize(
    "command", ["cat > {x}", "a 2>&1 {x}", "cmd &> {x}", "FOO={x} cmd", "(a {x})", "a && b {x}"]
)
def test_placeholders_after_redirections_and_assignments_are_values(command: str) -> None:
    inv = build_invocation(spec(command), {"x": "v"})
    assert inv.shell and inv.env == {"SKILLYARD_ARG_x": "v"}


def test_array_in_shell_mode_uses_separate_variables() -> None:
    inv = build_invocation(spec("ls {xs} | cat", ToolArg("xs", type="array")), {"xs": ["a", "b"]})
    assert inv.env == {"SKILLYARD_ARR_0_xs": "a", "SKILLYARD_ARR_1_xs": "b"}
    assert inv.script == 'ls "${SKILLYARD_ARR_0_xs}" "${SKILLYARD_ARR_1_xs}" | cat'


def test_display_is_copy_pasteable() -> None:
    inv = build_invocation(spec("echo {a}"), {"a": "x y"})
    assert inv.display() == "echo 'x y'"
    inv = build_invocation(spec("echo {a} | cat"), {"a": "x y"})
    assert inv.display().startswith("SKILLYARD_ARG_a='x y' bash")


# --- authoring checks ---------------------------------------------------------------------------------


def test_lint_reports_what_authors_should_fix() -> None:
    from skillyard.toml_tools import lint_tool

    s = spec(
        "grep --max-count {limit} --pattern {p} f",
        ToolArg("limit", type="integer", required=False, enum=("x",)),
        ToolArg("p", allow_dash=True),
        ToolArg("unused"),
    )
    codes = {d.code: d.message for d in lint_tool(s, "S.toml")}
    assert set(codes) == {"tool-unused-arg", "tool-bad-value", "tool-orphan-flag", "tool-dash-value"}
    assert "write --max-count={limit}" in codes["tool-orphan-flag"]
    assert "write --pattern={p}" in codes["tool-dash-value"]
    assert [d.code for d in lint_tool(spec("echo x{y}"))] == ["tool-template"]
    assert [d.level for d in lint_tool(spec("x", kind="http"))] == ["error"]
    clean = spec("t --limit {limit} --q={q}", ToolArg("limit", type="integer", required=False), ToolArg("q"))
    assert lint_tool(clean) == []


def test_lint_passes_the_fixture_skills() -> None:
    from skillyard.parsing import parse_skill
    from skillyard.toml_tools import lint_tool

    for name in ("argv-echo", "text-tools"):
        skill, _ = parse_skill(str(ECHO_DIR.parent / name / "SKILL.toml"))
        assert skill is not None
        assert [d for t in skill.tools for d in lint_tool(t)] == []
