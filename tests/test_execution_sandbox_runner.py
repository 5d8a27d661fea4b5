"""The full SkillRunner path through bubblewrap: staging, inputs, outputs, artifacts, ownership, auto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import FilesystemArtifactStore, RunError, RunRequest, SandboxExecutor, SkillRunner
from skillyard.model import Skill

_REASON = SandboxExecutor().probe()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"sandbox unavailable: {_REASON}")


@pytest.fixture
def ws_root(reachable_tmp: Path) -> Path:
    return reachable_tmp


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    d = tmp_path / "skills" / "sbx"
    (d / "scripts").mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: sbx\ndescription: sandbox runner tests\n---\nbody\n")
    (d / "scripts" / "fib.py").write_text(
        "import sys\na, b = 0, 1\nout = []\nfor _ in range(int(sys.argv[1])):\n    out.append(a)\n    a, b = b, a + b\n"
        "open('out/fib.txt', 'w').write(' '.join(map(str, out)) + '\\n')\nprint('ok')\n"
    )
    return Skill(name="sbx", description="sandbox runner tests", path=d / "SKILL.md")


@pytest.fixture
def runner(ws_root: Path, tmp_path: Path) -> Iterator[SkillRunner]:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "numbers.csv").write_text("1,2,3\n")
    r = SkillRunner(
        executor="sandbox",
        workspace_root=ws_root / "ws",
        artifact_store=FilesystemArtifactStore(tmp_path / "artifacts"),
        host_roots=(shared,),
        timeout=30,
    )
    yield r
    r.close()


def go(runner: SkillRunner, skill: Skill, **args: Any) -> dict[str, Any]:
    return runner.run(
        skill, RunRequest.from_arguments({"skill": skill.name, **args}), session_id="sb"
    ).to_dict()


def test_python_script_outputs_and_artifacts(runner: SkillRunner, skill: Skill) -> None:
    res = go(
        runner,
        skill,
        command="python3 scripts/fib.py 10",
        output_files=["out/fib.txt"],
        save_as_artifacts=True,
        artifact_prefix="fib/",
    )
    assert res["exit_code"] == 0 and res["stdout"] == "ok\n", res
    assert res["executor"] == "sandbox" and res["warnings"] == []
    assert res["output_files"][0]["content"] == "0 1 1 2 3 5 8 13 21 34\n"
    assert res["artifact_files"][0]["name"] == "fib/out/fib.txt"
    # the saved artifact feeds the next run
    res = go(
        runner,
        skill,
        command="cat work/inputs/fib.txt; id -u",
        inputs=[{"from": "artifact://fib/out/fib.txt"}],
    )
    assert res["stdout"] == "0 1 1 2 3 5 8 13 21 34\n65534\n"


def test_host_inputs_copied_even_in_link_mode(runner: SkillRunner, skill: Skill, tmp_path: Path) -> None:
    res = go(
        runner,
        skill,
        command="cat inputs/numbers.csv; test -L inputs/numbers.csv && echo LINK",
        inputs=[{"from": f"host://{tmp_path}/shared/numbers.csv", "mode": "link"}],
    )
    assert res["stdout"] == "1,2,3\n"
    assert any("link mode is not possible" in w for w in res["warnings"])


def test_workspace_state_persists_within_session(runner: SkillRunner, skill: Skill) -> None:
    go(runner, skill, command="echo kept > $WORK_DIR/state.txt")
    assert go(runner, skill, command="cat work/state.txt")["stdout"] == "kept\n"
    ws = runner.workspaces.get("sb").root
    meta = json.loads((ws / "metadata.json").read_text())
    assert meta["skills"]["sbx"]["rel_path"] == "skills/sbx"
    assert runner.close_session("sb") and not ws.exists()


def test_cwd_escape_refused_before_running(runner: SkillRunner, skill: Skill) -> None:
    with pytest.raises(RunError, match="escapes"):
        go(runner, skill, command="true", cwd="/etc")
    assert go(runner, skill, command="pwd", cwd="$OUTPUT_DIR")["stdout"] == "/workspace/out\n"


def test_auto_uses_the_sandbox_here(ws_root: Path, skill: Skill) -> None:
    r = SkillRunner(executor="auto", workspace_root=ws_root / "auto")
    try:
        res = r.run(
            skill, RunRequest.from_arguments({"skill": "sbx", "command": "echo $WORKSPACE_DIR"})
        ).to_dict()
    finally:
        r.close()
    assert res["executor"] == "sandbox" and res["stdout"] == "/workspace\n"
