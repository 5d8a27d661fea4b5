"""SkillRunner with the local executor: request validation, layout, env, cwd, inputs, outputs, artifacts."""

from __future__ import annotations

import base64
import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.execution import (
    FilesystemArtifactStore,
    RunError,
    RunRequest,
    SkillRunner,
)
from skillyard.execution.tracing import span
from skillyard.model import Skill


def make_skill(root: Path, name: str = "demo", files: dict[str, str] | None = None) -> Skill:
    d = root / name
    (d / "scripts").mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: test skill\n---\nRun it.\n", encoding="utf-8"
    )
    (d / "scripts" / "hello.sh").write_text("echo hello from $SKILL_NAME\n", encoding="utf-8")
    (d / "data.txt").write_text("skill data\n", encoding="utf-8")
    for rel, text in (files or {}).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return Skill(name=name, description="test skill", path=d / "SKILL.md")


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    return make_skill(tmp_path / "skills")


@pytest.fixture
def runner(tmp_path: Path) -> Any:
    r = SkillRunner(
        executor="local",
        workspace_root=tmp_path / "ws",
        artifact_store=FilesystemArtifactStore(tmp_path / "artifacts"),
        host_roots=(tmp_path / "shared",),
        timeout=30,
    )
    yield r
    r.close()


def run(runner: SkillRunner, skill: Skill, **args: Any) -> dict[str, Any]:
    req = RunRequest.from_arguments({"skill": skill.name, **args})
    return runner.run(skill, req, session_id="sess").to_dict()


# -- request validation ---------------------------------------------------------------------------------------


def test_request_valid_and_json_text() -> None:
    req = RunRequest.from_arguments(
        json.dumps(
            {
                "skill": "demo",
                "command": "echo hi",
                "env": {"A": "1"},
                "inputs": [{"from": "workspace://work/x", "mode": "link"}],
                "outputs": {"globs": ["$OUTPUT_DIR/**"], "inline": True, "max_files": 3},
                "timeout": 5,
            }
        )
    )
    assert req.command == "echo hi" and req.env == {"A": "1"} and req.timeout == 5.0
    assert req.outputs is not None and req.outputs.max_files == 3 and req.outputs.inline
    assert req.inputs[0].mode == "link"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"command": "x"}, "missing required field 'skill'"),
        ({"skill": "demo"}, "missing required field 'command'"),
        ({"skill": "demo", "command": "   "}, "command is required"),
        ({"skill": "demo", "command": "x", "bogus": 1}, "unexpected field 'bogus'"),
        ({"skill": "demo", "command": "x", "timeout": -1}, r"field 'timeout' must be > 0"),
        ({"skill": "demo", "command": "x", "timeout": True}, "field 'timeout' must be a number, got boolean"),
        ({"skill": "demo", "command": "x", "env": {"1BAD": "v"}}, "field 'env' has an invalid name '1BAD'"),
        ({"skill": "demo", "command": "x", "env": ["A"]}, "field 'env' must be an object"),
        (
            {"skill": "demo", "command": "x", "inputs": [{"from": "ftp://x"}]},
            r"field 'inputs\[0\].from' does not match .*artifact://",
        ),
        (
            {"skill": "demo", "command": "x", "inputs": [{"from": "host:///a", "mode": "move"}]},
            r"field 'inputs\[0\].mode' must be one of: copy, link",
        ),
        (
            {"skill": "demo", "command": "x", "outputs": {"globs": ["a"], "max_files": 0}},
            "field 'outputs.max_files' must be >= 1",
        ),
        ({"skill": "demo", "command": "x", "outputs": {"what": 1}}, "unexpected field 'outputs.what'"),
        (
            {"skill": "demo", "command": "x", "output_files": [1]},
            r"field 'output_files\[0\]' must be a string",
        ),
        ({"skill": "demo", "command": "a\0b"}, "command must not contain NUL bytes"),
        ("not json", "not valid JSON"),
        ([1, 2], "JSON object"),
    ],
)
def test_request_errors_are_clear(args: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RunRequest.from_arguments(args)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["skill", "command", "cwd", "env", "inputs", "outputs", "timeout", "output_files", "zz"]
        ),
        st.one_of(
            st.none(), st.text(max_size=40), st.integers(), st.booleans(), st.lists(st.text(max_size=5))
        ),
        max_size=6,
    )
)
def test_request_hostile_input_only_value_errors(args: dict[str, Any]) -> None:
    try:
        RunRequest.from_arguments(args)
    except ValueError:
        pass


# -- layout, env, cwd ---------------------------------------------------------------------------------------


def test_layout_env_and_links(runner: SkillRunner, skill: Skill, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNRELATED_HOST_VAR", "should-not-pass")
    res = run(
        runner,
        skill,
        command="bash scripts/hello.sh; env | sort; pwd; ls; echo x > out/r.txt; echo y > work/w.txt",
        env={"GREETING": "hi"},
    )
    assert res["exit_code"] == 0, res
    out = res["stdout"]
    assert "hello from demo" in out
    ws = runner.workspaces.get("sess").root
    for var, val in {
        "WORKSPACE_DIR": str(ws),
        "SKILLS_DIR": f"{ws}/skills",
        "WORK_DIR": f"{ws}/work",
        "OUTPUT_DIR": f"{ws}/out",
        "SKILL_NAME": "demo",
        "SKILL_DIR": f"{ws}/skills/demo",
        "GREETING": "hi",
    }.items():
        assert f"{var}={val}\n" in out
    assert f"RUN_DIR={ws}/runs/run_" in out
    assert "UNRELATED_HOST_VAR" not in out
    assert f"\n{ws}/skills/demo\n" in out  # cwd = staged skill root
    for d in ("skills/demo", "work/inputs", "out", "runs"):
        assert (ws / d).is_dir()
    assert (ws / "out/r.txt").read_text() == "x\n" and (ws / "work/w.txt").read_text() == "y\n"
    assert os.readlink(ws / "skills/demo/out") == "../../out"
    assert os.readlink(ws / "skills/demo/inputs") == "../../work/inputs"
    assert res["duration_ms"] >= 0 and res["executor"] == "local"


def test_reserved_env_not_overridden(runner: SkillRunner, skill: Skill) -> None:
    res = run(runner, skill, command="echo $WORK_DIR", env={"WORK_DIR": "/etc"})
    assert "/etc" not in res["stdout"]
    assert any("WORK_DIR" in w for w in res["warnings"])


@pytest.mark.parametrize("cwd", ["../../..", "/etc", "$WORK_DIR/../../..", "$NOPE", "scripts/../../../../"])
def test_cwd_may_not_escape(runner: SkillRunner, skill: Skill, cwd: str) -> None:
    with pytest.raises(RunError, match="cwd"):
        run(runner, skill, command="pwd", cwd=cwd)


def test_cwd_variants(runner: SkillRunner, skill: Skill) -> None:
    ws = runner.workspaces.get("sess").root
    assert run(runner, skill, command="pwd", cwd="scripts")["stdout"].strip() == f"{ws}/skills/demo/scripts"
    assert run(runner, skill, command="pwd", cwd="$WORK_DIR")["stdout"].strip() == f"{ws}/work"
    assert run(runner, skill, command="pwd", cwd=f"{ws}/out")["stdout"].strip() == f"{ws}/out"
    with pytest.raises(RunError, match="does not exist"):
        run(runner, skill, command="pwd", cwd="nope")


def test_skill_mismatch_and_bad_names(runner: SkillRunner, skill: Skill, tmp_path: Path) -> None:
    with pytest.raises(RunError, match="request is for skill"):
        runner.run(skill, RunRequest.from_arguments({"skill": "other", "command": "true"}))
    bad = Skill(name="../evil", description="x", path=skill.path)
    with pytest.raises(RunError, match="directory name"):
        runner.run(bad, RunRequest.from_arguments({"skill": "../evil", "command": "true"}))
    with pytest.raises(RunError, match="session_id"):
        runner.run(skill, RunRequest.from_arguments({"skill": "demo", "command": "true"}), session_id="")


def test_restaging_after_edit(runner: SkillRunner, skill: Skill) -> None:
    assert "skill data" in run(runner, skill, command="cat data.txt")["stdout"]
    (skill.root / "data.txt").write_text("changed data, longer\n")
    assert "changed data" in run(runner, skill, command="cat data.txt")["stdout"]


def test_exit_code_and_timeout(runner: SkillRunner, skill: Skill) -> None:
    assert run(runner, skill, command="exit 3")["exit_code"] == 3
    res = run(runner, skill, command="sleep 30", timeout=0.5)
    assert res["timed_out"] is True and res["exit_code"] == -1
    assert 400 <= res["duration_ms"] < 10_000
    assert any("timed out" in w for w in res["warnings"])


def test_stdout_cap_is_utf8_safe(tmp_path: Path, skill: Skill) -> None:
    r = SkillRunner(executor="local", workspace_root=tmp_path / "w2", stdout_bytes=1001)
    try:
        res = r.run(
            skill,
            RunRequest.from_arguments(
                {"skill": "demo", "command": "for i in $(seq 1 2000); do printf 'é'; done"}
            ),
        )
        d = res.to_dict()
        assert d["stdout_truncated"] and len(d["stdout"].encode()) <= 1001
        assert set(d["stdout"]) == {"é"}
        assert "stdout truncated" in d["warnings"]
    finally:
        r.close()


def test_output_is_scrubbed(runner: SkillRunner, skill: Skill) -> None:
    token = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    res = runner.run(
        skill,
        RunRequest.from_arguments(
            {
                "skill": "demo",
                "command": f"echo {token}; echo $SERVICE_TOKEN >&2; echo $SERVICE_TOKEN > out/t.txt",
                "output_files": ["out/t.txt"],
            }
        ),
        extra_env={"SERVICE_TOKEN": "n0t-in-any-format-9Zq"},
    ).to_dict()
    assert token not in res["stdout"] and "[REDACTED:github-token]" in res["stdout"]
    assert "n0t-in-any-format-9Zq" not in res["stderr"]
    assert "n0t-in-any-format-9Zq" not in res["output_files"][0]["content"]


# -- outputs --------------------------------------------------------------------------------------------------


PNG = (
    b"\x89PNG\r\n\x1a\n"
    + struct.pack(">I", 13)
    + b"IHDR"
    + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    + struct.pack(">I", zlib.crc32(b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)))
)


def test_output_files_mime_and_inline(runner: SkillRunner, skill: Skill) -> None:
    ws = runner.workspaces.get("sess").root
    b64 = base64.b64encode(PNG).decode()
    res = run(
        runner,
        skill,
        command=(
            f"echo '{b64}' | base64 -d > out/img.bin; echo '{{\"a\": 1}}' > out/data.txt; "
            "echo '# T' > out/n.md; mkdir -p out/sub/deep; echo z > out/sub/deep/z.txt"
        ),
        output_files=["$OUTPUT_DIR/**", "out/*.bin"],
    )
    files = {f["name"]: f for f in res["output_files"]}
    assert set(files) == {"out/img.bin", "out/data.txt", "out/n.md", "out/sub/deep/z.txt"}
    assert files["out/img.bin"]["mime_type"] == "image/png" and files["out/img.bin"]["content"] == ""
    assert files["out/img.bin"]["size_bytes"] == len(PNG)
    assert files["out/data.txt"]["mime_type"] == "application/json"
    assert files["out/n.md"]["mime_type"] == "text/markdown" and files["out/n.md"]["content"] == "# T\n"
    assert files["out/sub/deep/z.txt"]["content"] == "z\n"
    assert all(f["truncated"] is False for f in files.values())
    assert (ws / "out/img.bin").read_bytes() == PNG


def test_manifest_limits_inline_and_save(runner: SkillRunner, skill: Skill, tmp_path: Path) -> None:
    res = run(
        runner,
        skill,
        command="for i in 1 2 3 4 5; do echo file$i > out/f$i.txt; done; head -c 5000 /dev/zero | tr '\\0' a > out/big.txt",
        outputs={
            "globs": ["out/f*.txt"],
            "max_files": 2,
            "inline": False,
            "save": True,
            "name_template": "pref/",
        },
    )
    assert len(res["output_files"]) == 2 and res["limits_hit"] is True
    assert all(f["content"] == "" for f in res["output_files"])
    assert [a["name"] for a in res["artifact_files"]] == ["pref/out/f1.txt", "pref/out/f2.txt"]
    assert all(a["version"] == 1 for a in res["artifact_files"])
    store = FilesystemArtifactStore(tmp_path / "artifacts")
    assert store.load("pref/out/f1.txt")[0] == b"file1\n"
    res = run(
        runner,
        skill,
        command="true",
        outputs={"globs": ["out/big.txt"], "max_file_bytes": 100, "inline": True, "save": True},
    )
    f = res["output_files"][0]
    assert f["truncated"] is True and f["size_bytes"] == 5000 and f["content"] == "a" * 100
    assert res["artifact_files"] == [] and any(
        "cannot save truncated output file" in w for w in res["warnings"]
    )
    res = run(
        runner, skill, command="true", outputs={"globs": ["out/*.txt"], "max_total_bytes": 20, "inline": True}
    )
    assert res["limits_hit"] is True


def test_legacy_save_as_artifacts(runner: SkillRunner, skill: Skill) -> None:
    res = run(
        runner,
        skill,
        command="echo r > out/report.txt",
        output_files=["out/report.txt"],
        save_as_artifacts=True,
        omit_inline_content=True,
        artifact_prefix="run1/",
    )
    assert res["output_files"][0]["content"] == ""
    assert res["artifact_files"][0]["name"] == "run1/out/report.txt"
    res2 = run(
        runner,
        skill,
        command="echo s > out/report.txt",
        output_files=["out/report.txt"],
        save_as_artifacts=True,
        artifact_prefix="run1/",
    )
    assert res2["artifact_files"][0]["version"] == 2 and res2["output_files"][0]["content"] == "s\n"


@pytest.mark.parametrize(
    "pattern", ["../../etc/passwd", "/etc/passwd", "out/../../../etc/*", "$HOME/.ssh/*", ""]
)
def test_hostile_output_patterns_collect_nothing(runner: SkillRunner, skill: Skill, pattern: str) -> None:
    res = run(runner, skill, command="echo x > out/ok.txt", output_files=[pattern])
    assert res["output_files"] == []
    assert any("ignored" in w for w in res["warnings"])


def test_symlink_and_hardlink_outputs_not_followed(runner: SkillRunner, skill: Skill, tmp_path: Path) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("HOST-ONLY-CONTENT\n")
    res = run(
        runner,
        skill,
        command=f"ln -s {secret} out/leak.txt; ln {secret} out/hard.txt; ln -s /etc out/etcdir; echo ok > out/fine.txt",
        output_files=["out/**", "out/etcdir/passwd"],
    )
    names = [f["name"] for f in res["output_files"]]
    assert names == ["out/fine.txt"], res
    assert "HOST-ONLY-CONTENT" not in json.dumps(res)
    assert any("outside the workspace" in w for w in res["warnings"])
    assert any("hard links" in w for w in res["warnings"])


# -- inputs ---------------------------------------------------------------------------------------------------


def test_inputs_all_schemes(runner: SkillRunner, skill: Skill, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "tree").mkdir(parents=True)
    (shared / "in.csv").write_text("a,b\n")
    (shared / "tree" / "t.txt").write_text("tree\n")
    info = runner.artifact_store.save("reports/r@2024.txt", b"artifact body\n")
    ws = runner.workspaces.get("sess").root
    (ws / "work" / "prev.txt").write_text("previous\n")
    res = run(
        runner,
        skill,
        command="cat work/inputs/in.csv inputs/t.txt work/inputs/tree/t.txt work/inputs/r@2024.txt work/linked.txt work/inputs/data.txt",
        inputs=[
            {"from": f"host://{shared}/in.csv"},
            {"from": f"host://{shared}/tree/t.txt", "to": "inputs/t.txt"},
            {"from": f"host://{shared}/tree"},
            {"from": f"artifact://reports/r@2024.txt@{info.version}"},
            {"from": "workspace://work/prev.txt", "to": "work/linked.txt", "mode": "link"},
            {"from": "skill://demo/data.txt"},
        ],
    )
    assert res["exit_code"] == 0, res
    assert res["stdout"] == "a,b\ntree\ntree\nartifact body\nprevious\nskill data\n"
    assert os.path.islink(ws / "work/linked.txt")
    meta = json.loads((ws / "metadata.json").read_text())
    assert len(meta["inputs"]) == 6 and "demo" in meta["skills"]


@pytest.mark.parametrize(
    ("source", "to", "message"),
    [
        ("host:///etc/passwd", None, "not under an allowed host root"),
        ("host://{shared}/../outside.txt", None, "not under an allowed host root"),
        ("workspace://../../etc/passwd", None, "escapes"),
        ("skill://demo/../../../etc/passwd", None, "escapes"),
        ("skill://nope/x", None, "not staged"),
        ("artifact://missing", None, "not found"),
        ("artifact://../x", None, "invalid artifact name"),
        ("host://{shared}/in.csv", "../../etc/x", "escapes"),
        ("host://{shared}/in.csv", "/etc/x", "workspace-relative"),
        ("host://{shared}/in.csv", "skills/demo/x", "must be under"),
        ("host://{shared}/missing.csv", None, "not found"),
    ],
)
def test_input_errors(
    runner: SkillRunner, skill: Skill, tmp_path: Path, source: str, to: str | None, message: str
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    (shared / "in.csv").write_text("x")
    (tmp_path / "outside.txt").write_text("no")
    item: dict[str, str] = {"from": source.format(shared=shared)}
    if to:
        item["to"] = to
    with pytest.raises(RunError, match=message):
        run(runner, skill, command="true", inputs=[item])


def test_host_inputs_disabled_without_roots(tmp_path: Path, skill: Skill) -> None:
    (tmp_path / "f.txt").write_text("x")
    r = SkillRunner(executor="local", workspace_root=tmp_path / "w3")
    try:
        with pytest.raises(RunError, match="no host roots"):
            r.run(
                skill,
                RunRequest.from_arguments(
                    {"skill": "demo", "command": "true", "inputs": [{"from": f"host://{tmp_path}/f.txt"}]}
                ),
            )
    finally:
        r.close()


# -- retention ------------------------------------------------------------------------------------------------


def test_retention(tmp_path: Path, skill: Skill) -> None:
    req = RunRequest.from_arguments({"skill": "demo", "command": "true"})
    r = SkillRunner(executor="local", workspace_root=tmp_path / "a")
    r.run(skill, req, session_id="s")
    root = r.workspaces.get("s").root
    assert root.is_dir()
    assert r.close_session("s") is True and not root.exists()
    assert r.close_session("s") is False
    keep = SkillRunner(executor="local", workspace_root=tmp_path / "b", retention="keep")
    keep.run(skill, req, session_id="s")
    assert keep.close_session("s") is False and keep.workspaces.get("s").root.is_dir()
    per_run = SkillRunner(executor="local", workspace_root=tmp_path / "c", retention="run")
    per_run.run(skill, req, session_id="s")
    assert list((tmp_path / "c").iterdir()) == []
    with pytest.raises(ValueError, match="retention"):
        SkillRunner(retention="forever")
    with pytest.raises(ValueError, match="unknown executor"):
        SkillRunner(executor="chroot")


def test_repair_after_layout_tampering(runner: SkillRunner, skill: Skill, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    run(
        runner,
        skill,
        command="rm -rf $WORKSPACE_DIR/runs $WORK_DIR/inputs && ln -s "
        + str(victim)
        + " $WORKSPACE_DIR/runs",
    )
    res = run(runner, skill, command="echo again", inputs=[{"from": "skill://demo/data.txt"}])
    assert res["stdout"] == "again\n"
    assert list(victim.iterdir()) == []


def test_span_is_usable() -> None:
    with span("workspace.test", skill="x", count=1, ignored=None):
        pass


def test_request_timeout_is_capped(tmp_path: Path, skill: Skill) -> None:
    r = SkillRunner(executor="local", workspace_root=tmp_path / "cap", timeout=1, max_timeout=2)
    try:
        res = r.run(
            skill, RunRequest.from_arguments({"skill": "demo", "command": "true", "timeout": 5000})
        ).to_dict()
    finally:
        r.close()
    assert res["exit_code"] == 0
    assert "timeout 5000 s lowered to the configured maximum of 2 s" in res["warnings"]


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="./$_{}abcOUTPUT_DIRWK~ \\-", max_size=30))
def test_random_cwd_is_contained_or_refused(cwd: str) -> None:
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="skillyard-cwd-"))
    try:
        sk = make_skill(base / "skills")
        r = SkillRunner(executor="local", workspace_root=base / "ws")
        try:
            res = r.run(sk, RunRequest.from_arguments({"skill": "demo", "command": "pwd -P", "cwd": cwd}))
        except RunError:
            return
        finally:
            r.close()
        ws = os.path.realpath(base / "ws")
        assert res.stdout.strip().startswith(ws), (cwd, res.stdout)
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def test_default_root_must_be_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from skillyard.execution import WorkspaceError, WorkspaceManager

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    hijack = tmp_path / f"skillyard-workspaces-{os.getuid()}"
    hijack.mkdir()
    os.chmod(hijack, 0o777)
    with pytest.raises(WorkspaceError, match="owned by this user"):
        WorkspaceManager().get("s")
    os.chmod(hijack, 0o711)
    assert WorkspaceManager().get("s").root.parent == hijack


def test_prune_removes_stale_workspaces(tmp_path: Path, skill: Skill) -> None:
    r = SkillRunner(executor="local", workspace_root=tmp_path / "p")
    req = RunRequest.from_arguments({"skill": "demo", "command": "true"})
    r.run(skill, req, session_id="live")
    stale = tmp_path / "p" / "ws_old_0123456789ab"
    (stale / "work").mkdir(parents=True)
    old = 1_000_000_000
    os.utime(stale, (old, old))
    assert r.workspaces.prune(older_than=3600) == [stale]
    assert not stale.exists() and r.workspaces.get("live").root.is_dir()
    r.close()


def test_stdin_larger_than_a_pipe_does_not_block(tmp_path: Path) -> None:
    from skillyard.execution import ExecSpec, LocalExecutor

    data = b"x" * (1024 * 1024)
    res = LocalExecutor().run(
        ExecSpec(
            argv=["bash", "-c", "head -c 200000 /dev/zero >&2; wc -c"],
            cwd=str(tmp_path),
            env={"PATH": "/usr/bin:/bin"},
            stdin=data,
            timeout=20,
        )
    )
    assert not res.timed_out and res.stdout.endswith(b"1048576\n")


def test_dropped_runner_cleans_its_sessions(tmp_path: Path, skill: Skill) -> None:
    import gc

    r = SkillRunner(executor="local", workspace_root=tmp_path / "gc")
    r.run(skill, RunRequest.from_arguments({"skill": "demo", "command": "true"}), session_id="s")
    root = r.workspaces.get("s").root
    assert root.is_dir()
    del r
    gc.collect()
    assert not root.exists()
