"""Executors at the ExecSpec level (argv, not a shell string), the container command line as data, artifacts."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.execution import (
    ArtifactError,
    Bind,
    ContainerExecutor,
    ExecSpec,
    ExecutorUnavailable,
    FilesystemArtifactStore,
    Limits,
    LocalExecutor,
    SandboxExecutor,
    get_executor,
    parse_artifact_ref,
)
from skillyard.execution.collect import detect_mime, normalise_pattern

_SANDBOX_REASON = SandboxExecutor().probe()


def test_get_executor_names() -> None:
    assert isinstance(get_executor("local"), LocalExecutor)
    assert isinstance(get_executor("sandbox"), SandboxExecutor)
    assert isinstance(get_executor("container"), ContainerExecutor)
    assert isinstance(get_executor(), SandboxExecutor)
    assert isinstance(get_executor("auto"), SandboxExecutor)  # the retired name never falls back
    for bad in ("", "docker", "LOCAL", None, 3):
        with pytest.raises(ValueError, match="unknown executor"):
            get_executor(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"argv": []}, "argv"),
        ({"argv": "echo hi"}, "argv"),
        ({"argv": ["a\0b"]}, "NUL"),
        ({"argv": ["true"], "cwd": ""}, "cwd"),
        ({"argv": ["true"], "env": {"A-B": "x"}}, "invalid environment variable name"),
        ({"argv": ["true"], "env": {"A": 1}}, "must be a string"),
        ({"argv": ["true"], "timeout": 0}, "timeout"),
        ({"argv": ["true"], "timeout": float("nan")}, "timeout"),
    ],
)
def test_spec_validation(kwargs: dict[str, object], message: str) -> None:
    spec = ExecSpec(**{"cwd": "/", **kwargs})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        LocalExecutor().run(spec)


def test_limits_and_bind_validation() -> None:
    with pytest.raises(ValueError, match="max_processes"):
        Limits(max_processes=0)
    with pytest.raises(ValueError, match="stdout_bytes"):
        Limits(stdout_bytes=-1)
    with pytest.raises(ValueError, match="bind target"):
        Bind(Path("/tmp"), "relative")
    with pytest.raises(ValueError, match="bind target"):
        Bind(Path("/tmp"), "/a/../b")


def test_local_argv_is_not_a_shell(tmp_path: Path) -> None:
    ex = LocalExecutor()
    res = ex.run(
        ExecSpec(
            argv=["printf", "%s|", "a b", "$(id)", ";rm -rf /"],
            cwd=str(tmp_path),
            env={"PATH": "/usr/bin:/bin"},
        )
    )
    assert res.stdout == b"a b|$(id)|;rm -rf /|" and res.exit_code == 0
    res = ex.run(
        ExecSpec(argv=["cat"], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"}, stdin=b"from stdin")
    )
    assert res.stdout == b"from stdin"
    res = ex.run(
        ExecSpec(argv=["bash", "-c", "kill -9 $$"], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"})
    )
    assert res.exit_code == 137 and not res.timed_out
    res = ex.run(ExecSpec(argv=["no-such-binary-xyz"], cwd=str(tmp_path), env={"PATH": "/usr/bin"}))
    assert res.exit_code == 127 and b"no-such-binary-xyz" in res.stderr
    with pytest.raises(ValueError, match="cwd does not exist"):
        ex.run(ExecSpec(argv=["true"], cwd=str(tmp_path / "missing")))


def test_local_env_is_exactly_the_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOULD_NOT_LEAK", "1")
    res = LocalExecutor().run(ExecSpec(argv=["/usr/bin/env"], cwd=str(tmp_path), env={"ONLY": "this"}))
    assert res.stdout == b"ONLY=this\n"


def test_capture_caps_both_streams(tmp_path: Path) -> None:
    spec = ExecSpec(
        argv=["bash", "-c", "head -c 100000 /dev/zero; head -c 50000 /dev/zero >&2"],
        cwd=str(tmp_path),
        env={"PATH": "/usr/bin:/bin"},
        limits=Limits(stdout_bytes=1000, stderr_bytes=0),
    )
    res = LocalExecutor().run(spec)
    assert len(res.stdout) == 1000 and res.stdout_truncated
    assert res.stderr == b"" and res.stderr_truncated


def test_concurrent_runs_do_not_interfere(tmp_path: Path) -> None:
    ex = LocalExecutor()
    results: dict[int, bytes] = {}

    def one(i: int) -> None:
        results[i] = ex.run(
            ExecSpec(
                argv=["bash", "-c", f"sleep 0.2; echo {i}"], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"}
            )
        ).stdout

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: f"{i}\n".encode() for i in range(6)}


@pytest.mark.skipif(_SANDBOX_REASON is not None, reason=f"sandbox unavailable: {_SANDBOX_REASON}")
def test_sandbox_argv_and_binds(tmp_path: Path) -> None:
    ro = Path(os.environ.get("TMPDIR", "/tmp")) / f"skillyard-exec-test-{os.getpid()}"
    ro.mkdir(mode=0o755, exist_ok=True)
    os.chmod(ro, 0o755)
    (ro / "f.txt").write_text("visible\n")
    os.chmod(ro / "f.txt", 0o644)
    try:
        ex = SandboxExecutor()
        spec = ExecSpec(
            argv=[
                "bash",
                "-c",
                'cat /data/f.txt; touch /data/x 2>&1 | grep -o "Read-only file system"; echo "$1"',
                "sh",
                "a'b\"c",
            ],
            cwd="/data",
            env={"PATH": "/usr/bin:/bin", "SECRET_VALUE": "in-env-only"},
            binds=[Bind(ro, "/data", writable=False)],
        )
        res = ex.run(spec)
        assert res.stdout == b"visible\nRead-only file system\na'b\"c\n", res
        args = ex.build_args(spec, [99], [], 98)
        assert "--unshare-net" in args and "--cap-drop" in args and "--clearenv" in args
        assert args[args.index("--ro-bind-fd") + 1 : args.index("--ro-bind-fd") + 3] == ["99", "/data"]
        net = ex.build_args(ExecSpec(argv=["true"], cwd="/", network=True), [], [], 98)
        assert "--unshare-net" not in net
        assert ("/etc/resolv.conf" in net) == os.path.exists("/etc/resolv.conf")
    finally:
        shutil.rmtree(ro, ignore_errors=True)


def test_sandbox_unavailable_is_clear() -> None:
    ex = SandboxExecutor(bwrap=None)
    ex.bwrap = None
    assert ex.probe().startswith("bubblewrap (bwrap) is not installed; fix: install bubblewrap")
    with pytest.raises(ExecutorUnavailable, match="sandbox unavailable") as info:
        ex.run(ExecSpec(argv=["true"], cwd="/"))
    assert "\n" not in str(info.value) and 'executor = "local"' in str(info.value)


def test_local_says_so_on_every_result(tmp_path: Path) -> None:
    res = LocalExecutor().run(ExecSpec(argv=["true"], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"}))
    assert res.exit_code == 0
    assert any("no isolation" in w for w in res.warnings)


def test_container_command_line_as_data(tmp_path: Path) -> None:
    ex = ContainerExecutor(runtime="docker", image="python:3.12-slim", user="65534:65534")
    spec = ExecSpec(
        argv=["bash", "-c", "echo hi"],
        cwd="/workspace/skills/demo",
        env={"PATH": "/usr/bin:/bin", "API_TOKEN": "secret-value-xyz"},
        binds=[Bind(tmp_path, "/workspace", True), Bind(tmp_path / "skills", "/workspace/skills", False)],
        limits=Limits(max_processes=64, max_memory_bytes=512 * 1024 * 1024),
    )
    argv = ex.build_argv(spec, "skillyard-test", 7)
    joined = " ".join(argv)
    for flag in (
        "--network none",
        "--read-only",
        "--cap-drop ALL",
        "--security-opt no-new-privileges",
        "--pids-limit 64",
        f"--memory {512 * 1024 * 1024}",
        "--user 65534:65534",
        "--rm",
    ):
        assert flag in joined, flag
    assert f"type=bind,source={tmp_path},target=/workspace" in joined
    assert f"type=bind,source={tmp_path / 'skills'},target=/workspace/skills,readonly" in joined
    assert argv[argv.index("--workdir") + 1] == "/workspace/skills/demo"
    assert "secret-value-xyz" not in joined and "--env-file /dev/fd/7" in joined
    assert argv[-5:] == ["--entrypoint", "bash", "python:3.12-slim", "-c", "echo hi"]
    assert "--network bridge" in " ".join(ex.build_argv(ExecSpec(argv=["true"], cwd="/", network=True), "n"))
    with pytest.raises(ValueError, match="','"):
        ex.build_argv(ExecSpec(argv=["true"], cwd="/", binds=[Bind(Path("/a,b"), "/x")]), "n")


def test_container_without_daemon_is_a_clear_error() -> None:
    ex = ContainerExecutor()
    reason = ex.probe()
    if reason is None:
        pytest.skip("a container daemon is reachable here; the unavailable path cannot be exercised")
    with pytest.raises(ExecutorUnavailable, match="container executor unavailable"):
        ex.run(ExecSpec(argv=["true"], cwd="/"))


def test_container_run_when_daemon_reachable(tmp_path: Path) -> None:
    ex = ContainerExecutor()
    reason = ex.probe()
    if reason is not None:
        pytest.skip(f"no container daemon reachable: {reason}")
    res = ex.run(
        ExecSpec(
            argv=["sh", "-c", "id -u; cat /proc/self/status | grep NoNewPrivs"],
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
        )
    )
    assert res.stdout.split(b"\n")[0] == b"65534"


# -- artifacts ------------------------------------------------------------------------------------------------


def test_artifact_store_versions(tmp_path: Path) -> None:
    store = FilesystemArtifactStore(tmp_path / "a")
    assert store.versions("x") == [] and store.names() == []
    assert store.save("reports/x.txt", b"one").version == 1
    info = store.save("reports/x.txt", b"two", mime_type="text/plain")
    assert info.version == 2 and info.ref() == "artifact://reports/x.txt@2"
    assert store.load("reports/x.txt")[0] == b"two"
    data, meta = store.load("reports/x.txt", 1)
    assert data == b"one" and meta.version == 1
    assert store.names() == ["reports/x.txt"] and store.versions("reports/x.txt") == [1, 2]
    with pytest.raises(ArtifactError, match="version not found"):
        store.load("reports/x.txt", 9)
    with pytest.raises(ArtifactError, match="not found"):
        store.load("nope")
    small = FilesystemArtifactStore(tmp_path / "b", max_bytes=4)
    with pytest.raises(ArtifactError, match="too large"):
        small.save("big", b"12345")


def test_artifact_default_root_is_user_data_dir() -> None:
    store = FilesystemArtifactStore()
    assert str(store.root).startswith(os.environ["XDG_DATA_HOME"]) and store.root.name == "artifacts"


def test_artifact_concurrent_saves_get_distinct_versions(tmp_path: Path) -> None:
    store = FilesystemArtifactStore(tmp_path / "c")
    threads = [threading.Thread(target=store.save, args=("n", bytes([i]))) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.versions("n") == list(range(1, 9))
    assert sorted(store.load("n", v)[0] for v in range(1, 9)) == [bytes([i]) for i in range(8)]


def test_artifact_refs() -> None:
    assert parse_artifact_ref("a@b.txt") == ("a@b.txt", None)
    assert parse_artifact_ref("a@b.txt@3") == ("a@b.txt", 3)
    assert parse_artifact_ref("dir/x") == ("dir/x", None)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_artifact_names_are_safe_or_rejected(name: str) -> None:
    try:
        n, _ = parse_artifact_ref(name)
    except ArtifactError:
        return
    assert ".." not in n.split("/") and not n.startswith("/") and "\0" not in n


# -- collection helpers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("out/*.txt", "out/*.txt"),
        ("./out/**", "out/**"),
        ("$OUTPUT_DIR/**", "out/**"),
        ("${WORK_DIR}/a/*.csv", "work/a/*.csv"),
        ("$RUN_DIR/log.txt", "runs/run_1/log.txt"),
        ("$WORKSPACE_DIR/out/x", "out/x"),
        ("/workspace/out/x", "out/x"),
        ("inputs/a.txt", "work/inputs/a.txt"),
        ("../../etc/passwd", None),
        ("/etc/passwd", None),
        ("$HOME/.ssh/id_rsa", None),
        ("out/../../x", None),
        ("", None),
    ],
)
def test_normalise_pattern(pattern: str, expected: str | None) -> None:
    assert normalise_pattern(pattern, "runs/run_1", "skills/demo") == expected


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60))
def test_normalised_patterns_never_escape(pattern: str) -> None:
    norm = normalise_pattern(pattern, "runs/run_1", "skills/demo")
    if norm is not None:
        assert not norm.startswith("/") and ".." not in norm.split("/")


def test_detect_mime() -> None:
    assert detect_mime(b'{"a": [1, 2]}', "x.dat") == ("application/json", True)
    assert detect_mime(b"a,b\n1,2\n", "t.csv") == ("text/csv", True)
    assert detect_mime(b"plain words", "noext") == ("text/plain", True)
    assert detect_mime(b"\x00\x01\x02binary", "x.txt") == ("application/octet-stream", False)
    assert detect_mime(b"%PDF-1.7\n...", "x.txt")[0] == "application/pdf"
    assert detect_mime(b"\xff\xfe\xfa", "x.txt") == ("application/octet-stream", False)
    assert detect_mime("é".encode()[:1], "cut.txt", complete=False) == ("text/plain", True)


@pytest.mark.skipif(_SANDBOX_REASON is not None, reason=f"sandbox unavailable: {_SANDBOX_REASON}")
def test_sandbox_on_an_older_bwrap_without_fd_binds(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from skillyard.execution import sandbox as sandbox_mod

    ex = SandboxExecutor()
    old = frozenset(
        f for f in ex.features if f not in ("--bind-fd", "--ro-bind-fd", "--size", "--disable-userns")
    )
    monkeypatch.setitem(sandbox_mod._features_cache, str(ex.bwrap), old)
    d = Path(tempfile.mkdtemp(prefix="skillyard-oldbwrap-"))
    try:
        os.chmod(d, 0o755)
        spec = ExecSpec(
            argv=["bash", "-c", "echo hi > /w/f; cat /w/f"], cwd="/w", env={"PATH": "/usr/bin:/bin"}
        )
        spec.binds = [Bind(d, "/w", writable=True)]
        if ex.host_uid() is not None:
            os.chown(d, ex.host_uid(), ex.host_uid())  # what the runner does for its workspaces
        args = ex.build_args(spec, [], [], 99)
        assert "--bind-fd" not in args and "--size" not in args and "--disable-userns" not in args
        assert args[args.index("--bind") + 1 : args.index("--bind") + 3] == [str(d), "/w"]
        res = ex.run(spec)
        assert res.stdout == b"hi\n", res
    finally:
        shutil.rmtree(d, ignore_errors=True)
