"""`skill_run` through the real runner and executors (local; sandbox where bubblewrap works)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skillyard.config import Config, ExecutionSettings, SkillOverride
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit


def _kit(tmp_path: Path, make_skill: Any, executor: str = "local", **cfg: Any) -> Toolkit:
    r = tmp_path / "skills"
    make_skill(r, "echoer", "Echoes things", files={"scripts/hello.sh": "echo hello from script\n"})
    make_skill(
        r, "blocked", "Needs env", extra='metadata: {"openclaw": {"requires": {"env": ["SKILLYARD_NOPE"]}}}'
    )
    config = Config(execution=ExecutionSettings(executor=executor, timeout=30), **cfg)
    return Toolkit(Registry.from_roots([r], config), tools=["skill_run"])


def run(kit: Toolkit, session: Session | None = None, **args: Any) -> tuple[dict[str, Any], bool]:
    res = kit.call("skill_run", args, session=session)
    return json.loads(res.content), res.is_error


def test_run_and_collect_outputs(tmp_path: Path, make_skill: Any) -> None:
    with _kit(tmp_path, make_skill) as kit:
        data, err = run(
            kit,
            skill="echoer",
            command='bash scripts/hello.sh; echo "$SKILL_NAME" > out/name.txt; echo oops >&2',
            output_files=["out/*.txt"],
        )
        assert not err
        assert data["exit_code"] == 0 and data["timed_out"] is False
        assert data["stdout"] == "hello from script\n" and "oops" in data["stderr"]
        assert isinstance(data["duration_ms"], int)
        files = {f["name"]: f for f in data["output_files"]}
        assert files["out/name.txt"]["content"] == "echoer\n"
        assert files["out/name.txt"]["mime_type"].startswith("text/")


def test_an_output_pattern_that_matches_nothing_is_named(tmp_path: Path, make_skill: Any) -> None:
    """A typo in a glob, or a step that wrote elsewhere: the model learns why no file came back."""
    with _kit(tmp_path, make_skill) as kit:
        data, err = run(
            kit, skill="echoer", command="echo hi > out/a.txt", output_files=["out/*.txt", "out/*.csv"]
        )
        assert not err and [f["name"] for f in data["output_files"]] == ["out/a.txt"]
        assert "output pattern matched no file: 'out/*.csv'" in data["warnings"]
        assert not any("'out/*.txt'" in w for w in data["warnings"])


def test_failing_command_is_a_result_not_an_error(tmp_path: Path, make_skill: Any) -> None:
    with _kit(tmp_path, make_skill) as kit:
        data, err = run(kit, skill="echoer", command="exit 3")
        assert not err and data["exit_code"] == 3


def test_workspace_is_per_session(tmp_path: Path, make_skill: Any) -> None:
    with _kit(tmp_path, make_skill) as kit:
        a, b = Session(), Session()
        run(kit, a, skill="echoer", command="echo kept > work/state.txt")
        data, _ = run(kit, a, skill="echoer", command="cat work/state.txt")
        assert data["stdout"] == "kept\n"
        data, _ = run(kit, b, skill="echoer", command="cat work/state.txt 2>/dev/null || echo none")
        assert data["stdout"] == "none\n"


def test_config_env_override(tmp_path: Path, make_skill: Any) -> None:
    cfg = {"skills": {"echoer": SkillOverride(env={"API_BASE": "https://api.example"})}}
    with _kit(tmp_path, make_skill, **cfg) as kit:
        data, err = run(kit, skill="echoer", command='echo "$API_BASE"')
        assert not err and data["stdout"] == "https://api.example\n"


def test_run_errors(tmp_path: Path, make_skill: Any) -> None:
    with _kit(tmp_path, make_skill) as kit:
        data, err = run(kit, skill="blocked", command="true")
        assert err and "Missing environment variable: SKILLYARD_NOPE" in data["error"]
        data, err = run(kit, skill="nope", command="true")
        assert err and data["error"].startswith("unknown skill: nope")
        data, err = run(kit, skill="echoer")
        assert err and "missing required field 'command'" in data["error"]
        data, err = run(kit, skill="echoer", command="true", timeout=0)
        assert err and "field 'timeout' must be > 0" in data["error"]
        data, err = run(kit, skill="echoer", command="true", inputs=[{"from": "host:///etc/passwd"}])
        assert err and data["error"]  # host:// outside the allowed roots is refused by the runner
        data, err = run(kit, skill="echoer", command="true", shell=True)
        assert err and "unexpected field 'shell'" in data["error"]


def test_schema_comes_from_the_runner(tmp_path: Path, make_skill: Any) -> None:
    from skillyard.execution import RUN_ARGUMENTS_SCHEMA

    with _kit(tmp_path, make_skill) as kit:
        schema = kit.definitions()[0].parameters
        assert set(schema["properties"]) == set(RUN_ARGUMENTS_SCHEMA["properties"])
        assert {"inputs", "outputs"} <= set(schema["properties"])
        assert schema["properties"]["skill"]["enum"] == ["echoer"]


def test_sandbox_when_available(tmp_path: Path, make_skill: Any) -> None:
    from skillyard.execution import ExecutorUnavailable, get_executor

    try:
        get_executor("sandbox")
    except ExecutorUnavailable as e:
        pytest.skip(f"sandbox unavailable here: {e}")
    with _kit(tmp_path, make_skill, executor="sandbox") as kit:
        data, err = run(
            kit, skill="echoer", command="bash scripts/hello.sh; touch SKILL.md 2>/dev/null || echo ro"
        )
        assert not err, data
        assert data["stdout"] == "hello from script\nro\n"


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.text(max_size=8),
    st.lists(st.one_of(st.text(max_size=4), st.integers()), max_size=3),
    st.dictionaries(
        st.sampled_from(["A", "1BAD", "from", "mode", "max_files", "x"]), st.text(max_size=4), max_size=2
    ),
)


@pytest.fixture(scope="module")
def shared_kit(tmp_path_factory: pytest.TempPathFactory) -> Any:
    skill = tmp_path_factory.mktemp("one-check") / "skills" / "echoer"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: echoer\ndescription: Echoes things\n---\nEcho.\n")
    root = skill.parent
    with Toolkit(Registry.from_roots([root], Config()), tools=["skill_run"]) as kit:
        yield kit


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(
        st.sampled_from(["command", "cwd", "env", "inputs", "outputs", "timeout", "output_files", "zz"]),
        _VALUES,
        max_size=4,
    )
)
def test_one_check_one_wording(shared_kit: Toolkit, extra: dict[str, Any]) -> None:
    """skill_run arguments are checked once, against RUN_ARGUMENTS_SCHEMA: the tool refuses exactly what
    `RunRequest.from_arguments` refuses, in the same words (the tool drops nulls first, as for every tool)."""
    from skillyard.execution import RunRequest

    args = {"skill": "echoer", **{k: v for k, v in extra.items() if v is not None}}
    assume(not isinstance(args.get("env"), list))  # the tool also takes strict mode's [{name, value}] for env
    try:
        RunRequest.from_arguments(args)
    except ValueError as e:
        data, err = run(shared_kit, **args)
        assert err and data["error"] == f"invalid arguments: {e}"
    # a valid request would run a command: the runs above cover that path
