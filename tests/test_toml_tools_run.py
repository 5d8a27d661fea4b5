"""SKILL.toml tools end to end: the parser's type rules, real runs (local and bubblewrap), results."""

from __future__ import annotations

import json
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import LocalExecutor
from skillyard.model import Skill, ToolSpec
from skillyard.parsing import load_body, parse_skill
from skillyard.toml_tools import build_invocation, plan_tool_names, tool_schema
from skillyard.toml_tools import run_tool as _run_tool

#: What every `local` result ends with; the checks below are about the output before it.
LOCAL_NOTE = f"\n[{LocalExecutor.WARNING}]"


def run_tool(*args: Any, **kwargs: Any) -> tuple[str, bool]:
    text, err = _run_tool(*args, **kwargs)
    return text.removesuffix(LOCAL_NOTE), err


FIXTURES = Path(__file__).parent / "fixtures" / "toml_tools"


def load(path: Path) -> Skill:
    skill, diags = parse_skill(str(path))
    assert skill is not None, diags
    assert [d for d in diags if d.level == "error"] == []
    return skill


def tool(skill: Skill, name: str) -> ToolSpec:
    return next(t for t in skill.tools if t.name == name)


def write_toml(root: Path, name: str, body: str) -> Skill:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.toml").write_text(
        f'[skill]\nname = "{name}"\ndescription = "test skill {name}"\n\n' + textwrap.dedent(body),
        encoding="utf-8",
    )
    return load(d / "SKILL.toml")


def _sandbox_reason() -> str | None:
    try:
        from skillyard.execution.sandbox import SandboxExecutor
    except ImportError as e:  # pragma: no cover - only while the execution layer is missing
        return f"execution layer missing: {e}"
    return SandboxExecutor().probe()


@pytest.fixture(scope="module")
def sandbox_ok() -> None:
    reason = _sandbox_reason()
    if reason is not None:
        pytest.skip(f"bubblewrap cannot run here: {reason}")


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temp dir the sandbox's unprivileged uid can reach (pytest's tmp_path sits under a 0700 dir)."""
    d = Path(tempfile.mkdtemp(prefix="skillyard-toml-tools-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def copy_fixture(name: str, dest_root: Path) -> Skill:
    """A private, world-readable copy of a fixture skill."""
    dst = dest_root / name
    shutil.copytree(FIXTURES / name, dst)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return load(dst / "SKILL.toml")


@pytest.fixture
def echo_skill(open_tmp: Path) -> Skill:
    return copy_fixture("argv-echo", open_tmp)


# --- type inference (the parser's rules, seen through the schema) -------------------------------------------


@pytest.mark.parametrize(
    ("description", "type_", "required"),
    [
        ("Maximum number of dialogs", "integer", True),
        ("Number of results", "integer", True),
        ("Limit results", "integer", True),
        ("Minimum score", "integer", True),
        ("Item count", "integer", True),
        ("Phone number", "string", True),  # seed bug: any "number" became an integer
        ("Account name", "string", True),  # seed bug: "account" contains "count"
        ("Enable verbose output", "boolean", True),
        ("Feature flag", "boolean", True),
        ("Flagship product", "string", True),
        ("Search query", "string", True),
        ("Search query (optional)", "string", False),
        ("Retries (default: 3)", "string", False),
        ("Page size, default 10 (maximum 100)", "integer", False),
    ],
)
def test_type_inference_table(tmp_path: Path, description: str, type_: str, required: bool) -> None:
    skill = write_toml(
        tmp_path,
        "infer",
        f"""
        [[tools]]
        name = "t"
        description = "t"
        command = "echo {{value}}"
        [tools.args]
        value = {json.dumps(description)}
        """,
    )
    schema = tool_schema(skill.tools[0])
    assert schema["properties"]["value"]["type"] == type_
    assert ("value" in schema["required"]) is required


def test_table_args_declare_type_enum_default(tmp_path: Path) -> None:
    skill = write_toml(
        tmp_path,
        "tables",
        """
        [[tools]]
        name = "t"
        description = "t"
        command = "echo --n {n} --mode={mode} {pattern}"
        [tools.args]
        n = { description = "phone number, really a count", type = "string" }
        mode = { description = "Mode", enum = ["a", "b"], default = "a" }
        pattern = { description = "Pattern", allow_dash = true }
        """,
    )
    schema = tool_schema(skill.tools[0])
    assert schema["properties"]["n"]["type"] == "string"
    assert schema["properties"]["mode"] == {
        "type": "string",
        "description": "Mode",
        "enum": ["a", "b"],
        "default": "a",
    }
    assert schema["required"] == ["n", "pattern"]
    inv = build_invocation(skill.tools[0], {"n": "0123", "pattern": "-v"})
    assert inv.argv == ["echo", "--n", "0123", "--mode=a", "-v"]


def test_prompts_are_part_of_the_loaded_body() -> None:
    skill = load(FIXTURES / "text-tools" / "SKILL.toml")
    body = load_body(skill)
    assert "Use word_stats to get a feel for a file before quoting from it." in body
    assert "pass ignore_case only when" in body
    assert {t.name for t in skill.tools} == {"find_lines", "word_stats", "top_words"}


# --- real runs --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("executor", ["local", "sandbox"])
def test_argv_echo_receives_exact_values(
    echo_skill: Skill, executor: str, request: pytest.FixtureRequest
) -> None:
    if executor == "sandbox":
        request.getfixturevalue("sandbox_ok")
    hostile = 'a b\'; touch /tmp/PWNED; echo "$(id)" `id` | > * ~ \n ünï'
    text, err = run_tool(
        echo_skill,
        tool(echo_skill, "echo_args"),
        json.dumps({"text": hostile, "count": "3", "mode": "slow", "extra": "--not-an-option"}),
        executor=executor,
    )
    assert not err, text
    assert json.loads(text) == ["--text", hostile, "--count", "3", "--mode=slow", "--not-an-option"]
    text, err = run_tool(
        echo_skill, tool(echo_skill, "echo_piped"), {"text": hostile, "quoted": hostile}, executor=executor
    )
    assert not err, text
    assert json.loads(text) == [hostile, hostile]


def test_optional_omitted_in_a_real_run(echo_skill: Skill) -> None:
    text, err = run_tool(echo_skill, tool(echo_skill, "echo_args"), {"text": "x"}, executor="local")
    assert (json.loads(text), err) == (["--text", "x"], False)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("[1]", "Tool arguments must be a JSON object"),
        ({"text": "x", "count": "ten"}, "Parameter 'count' declared as integer but got non-numeric value"),
        ({"text": "x", "bogus": 1, "other": 2}, "unknown argument(s): bogus, other"),
        ({}, "Missing required parameter 'text'"),
        ({"text": "--help"}, "Parameter 'text' must not start with '-' (it would be read as an option)"),
        ({"text": "a\x00b"}, "Parameter 'text' must not contain NUL bytes"),
        ({"text": "x", "mode": "medium"}, "Parameter 'mode' must be one of: fast, slow (got 'medium')"),
    ],
)
def test_refusals_are_results_not_exceptions(echo_skill: Skill, args: object, message: str) -> None:
    assert run_tool(echo_skill, tool(echo_skill, "echo_args"), args, executor="local") == (message, True)


def test_unsupported_kind_and_bad_template_are_results(echo_skill: Skill) -> None:
    http = ToolSpec("f", "f", "https://x", kind="http")
    assert run_tool(echo_skill, http, {}) == (
        "Unsupported tool kind 'http': only shell tools are supported",
        True,
    )
    text, err = run_tool(echo_skill, ToolSpec("b", "b", "echo x{y}"), {"y": "1"})
    assert err and "unusable command template" in text


def test_unknown_executor_is_a_result(echo_skill: Skill) -> None:
    text, err = run_tool(echo_skill, ToolSpec("e", "e", "echo hi"), {}, executor="nope")
    assert err and text.startswith("Failed to execute command:") and "unknown executor" in text


def test_failure_reports_stderr_and_exit_code(tmp_path: Path) -> None:
    skill = write_toml(
        tmp_path,
        "fails",
        """
        [[tools]]
        name = "boom"
        description = "fails"
        command = "python3 -c 'import sys; print(\\"partial\\"); sys.exit(\\"bad input: \\" + sys.argv[1])' {what}"
        """,
    )
    text, err = run_tool(skill, skill.tools[0], {"what": "x"}, executor="local")
    assert err
    assert text == "Command failed:\nbad input: x\n[exit code 1]"


def test_timeout_kills_and_says_so(tmp_path: Path) -> None:
    skill = write_toml(
        tmp_path,
        "slow",
        """
        [[tools]]
        name = "nap"
        description = "sleeps"
        command = "python3 -c 'import time; print(\\"started\\", flush=True); time.sleep(30)'"
        timeout = 0.5
        """,
    )
    text, err = run_tool(skill, skill.tools[0], {}, executor="local", timeout=60)
    assert err
    assert text.startswith("Command timed out after 0.5s and was killed")
    assert "Partial output:\nstarted" in text


def test_output_is_scrubbed(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5" * 9 + "xyz" + "AA"
    skill = write_toml(
        tmp_path,
        "leaky",
        f"""
        [[tools]]
        name = "leak"
        description = "prints a secret"
        command = "python3 -c 'import sys; print(\\"key={key}\\"); print(\\"token: ghp_{"a" * 36}\\", file=sys.stderr); sys.exit(3)'"
        """,
    )
    text, err = run_tool(skill, skill.tools[0], {}, executor="local")
    assert err and key not in text and "ghp_" + "a" * 36 not in text
    assert text.startswith("Command failed:") and "[exit code 3]" in text


def test_environment_is_cleared_and_cwd_is_the_skill_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLYARD_TEST_SECRET", "do-not-leak-this-value")
    skill = write_toml(
        tmp_path,
        "envy",
        """
        [[tools]]
        name = "show"
        description = "env and cwd"
        command = "python3 -c 'import json, os; print(json.dumps({\\"env\\": dict(os.environ), \\"cwd\\": os.getcwd()}))'"
        """,
    )
    text, err = run_tool(skill, skill.tools[0], {}, executor="local")
    assert not err, text
    seen = json.loads(text)
    assert "SKILLYARD_TEST_SECRET" not in seen["env"]
    assert seen["cwd"] == str(skill.root)
    assert seen["env"]["SKILL_DIR"] == str(skill.root) and seen["env"]["SKILL_NAME"] == "envy"


def test_sandbox_skill_dir_is_read_only_and_network_off(echo_skill: Skill, sandbox_ok: None) -> None:
    spec = ToolSpec(
        "w",
        "w",
        "python3 -c 'import os, socket, sys\n"
        'try:\n open("new.txt", "w")\nexcept OSError as e: print("write:", e.errno)\n'
        'try:\n socket.create_connection(("1.1.1.1", 53), timeout=2)\nexcept OSError: print("net: off")\n'
        'print("cwd:", os.getcwd())\'',
    )
    text, err = run_tool(echo_skill, spec, {}, executor="sandbox")
    assert not err, text
    assert "write: 30" in text or "write: 13" in text  # EROFS or EACCES
    assert "net: off" in text and "cwd: /skill" in text
    assert not (echo_skill.root / "new.txt").exists()


@pytest.mark.parametrize("executor", ["local", "sandbox"])
def test_example_skill_runs(open_tmp: Path, executor: str, request: pytest.FixtureRequest) -> None:
    if executor == "sandbox":
        request.getfixturevalue("sandbox_ok")
    skill = copy_fixture("text-tools", open_tmp)
    plan, notes = plan_tool_names([skill])
    assert set(plan) == {"find_lines", "word_stats", "top_words"} and notes == []

    text, err = run_tool(
        skill,
        tool(skill, "find_lines"),
        {"pattern": "FOG", "ignore_case": True, "file": "data/notes.txt"},
        executor=executor,
    )
    assert (text, err) == (
        "1: Notes on the fog:\n2: Fog forms when air cools to its dew point.\n4: The harbor fog lifts by noon.",
        False,
    )
    text, err = run_tool(
        skill,
        tool(skill, "find_lines"),
        {"pattern": "--verbose", "file": "data/notes.txt", "max": 1},
        executor=executor,
    )
    assert (text, err) == ("3: --verbose lines that start with dashes are still just text.", False)
    text, err = run_tool(skill, tool(skill, "word_stats"), {"file": "data/poem.txt"}, executor=executor)
    assert json.loads(text) == {"file": "data/poem.txt", "lines": 6, "words": 21, "chars": 109}
    text, err = run_tool(
        skill, tool(skill, "top_words"), {"file": "data/poem.txt", "limit": 2}, executor=executor
    )
    assert not err and [line.split() for line in text.splitlines()] == [["3", "on"], ["2", "and"]]
    text, err = run_tool(skill, tool(skill, "top_words"), {"file": "/etc/passwd"}, executor=executor)
    assert err and text.startswith("Parameter 'file' must be one of: data/poem.txt, data/notes.txt")


def test_docs_example_matches_the_fixture_and_the_code() -> None:
    import re

    doc = (Path(__file__).parent.parent / "docs" / "toml-tools.md").read_text(encoding="utf-8")
    toml_block = re.search(r"```toml\n(.*?)```", doc, re.S)
    assert toml_block is not None
    assert toml_block.group(1) == (FIXTURES / "text-tools" / "SKILL.toml").read_text(encoding="utf-8")
    skill = load(FIXTURES / "text-tools" / "SKILL.toml")
    json_block = re.search(r"```json\n(.*?)```", doc, re.S)
    assert json_block is not None
    assert json.loads(json_block.group(1)) == tool_schema(tool(skill, "find_lines"))
    inv = build_invocation(
        tool(skill, "find_lines"), {"pattern": "--verbose", "file": "data/notes.txt", "max": 1}
    )
    assert json.dumps(inv.argv) in doc


def test_toolkit_exposes_and_calls_toml_tools(open_tmp: Path) -> None:
    from skillyard.registry import Registry
    from skillyard.tools.toolkit import Toolkit

    copy_fixture("argv-echo", open_tmp)
    copy_fixture("text-tools", open_tmp)
    clash = open_tmp / "clash"
    clash.mkdir()
    (clash / "SKILL.toml").write_text(
        '[skill]\nname = "clash"\ndescription = "tools whose names are taken"\n\n'
        '[[tools]]\nname = "skills"\ndescription = "shadow a built-in"\ncommand = "python3 -c \'print(1)\'"\n\n'
        '[[tools]]\nname = "word_stats"\ndescription = "same name as text-tools"\ncommand = "echo {file}"\n',
        encoding="utf-8",
    )
    clash.chmod(0o755)
    (clash / "SKILL.toml").chmod(0o644)
    kit = Toolkit(Registry.from_roots([open_tmp]))
    names = kit.names()
    for expected in (
        "echo_args",
        "echo_piped",
        "find_lines",
        "top_words",
        "clash__skills",
        "clash__word_stats",
    ):
        assert expected in names
    assert "text-tools__word_stats" in names and names.count("skills") == 1
    openai = {t["function"]["name"]: t for t in kit.export("openai") if t.get("type") == "function"}
    assert openai["echo_args"]["function"]["parameters"]["additionalProperties"] is False
    hostile = "$(touch /tmp/PWNED) `id` ; | & > 'q' \"dq\""
    res = kit.call("echo_args", json.dumps({"text": hostile, "count": 2}))
    assert not res.is_error, res.content
    assert json.loads(res.content.split("\n[")[0]) == ["--text", hostile, "--count", "2"]
    res = kit.call("echo_args", '{"text": "x", "count": "many"}')
    assert res.is_error and res.content == "Parameter 'count' declared as integer but got non-numeric value"
    res = kit.call("clash__word_stats", {"file": "a b"})
    assert (res.content.split("\n[")[0], res.is_error) == ("a b", False)


def test_local_results_say_there_is_no_isolation(echo_skill: Skill) -> None:
    text, err = _run_tool(echo_skill, tool(echo_skill, "echo_args"), {"text": "x"}, executor="local")
    assert not err and text.endswith(LOCAL_NOTE)
