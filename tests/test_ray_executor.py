"""The `ray` executor against a real local Ray cluster, in a network namespace with only loopback.

Ray binds every interface and dials the machine's own address, so the cluster,
the driver and the runs live in `unshare -n` with `lo` up, and with Ray's token
authentication. tests/ray_driver.py starts the head node, runs every scenario
and stops it; this file checks what it reports.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillyard.config import ConfigError, RaySettings, parse_config
from skillyard.execution import SandboxExecutor, get_executor
from skillyard.execution.ray_executor import RayExecutor, _check_reachable

HERE = Path(__file__).resolve().parent


def _why_not() -> str | None:
    try:
        import ray  # noqa: F401
    except ImportError:
        return "ray is not installed (pip install 'skillyard[ray]')"
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return "needs root, unshare and ip to give Ray a loopback-only network namespace"
    if SandboxExecutor().probe() is not None:
        return "the workers' sandbox is unavailable here"
    return None


@pytest.fixture(scope="module")
def report() -> Iterator[dict[str, Any]]:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    work = Path(tempfile.mkdtemp(prefix="skillyard-ray-"))
    os.chmod(work, 0o711)
    try:
        r = subprocess.run(
            ["unshare", "-n", "--", sys.executable, str(HERE / "ray_driver.py"), str(work)],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "PYTHONPATH": str(HERE.parent / "src")},
        )
        assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-5000:])
        line = next(ln for ln in r.stdout.splitlines() if ln.startswith("SKILLYARD-REPORT "))
        yield json.loads(line.removeprefix("SKILLYARD-REPORT "))
    finally:
        subprocess.run(
            ["unshare", "-n", "--", str(Path(sys.executable).with_name("ray")), "stop", "--force"],
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(work, ignore_errors=True)


def test_a_run_on_ray_matches_a_local_sandbox_run(report: dict[str, Any]) -> None:
    ray, local = report["ray"], report["local"]
    assert ray["executor"] == "ray"
    for key in ("stdout", "stderr", "exit_code", "timed_out"):
        assert ray[key] == local[key], key
    assert ray["exit_code"] == 3 and "hello from ray" in ray["stdout"]
    assert "tok-999" not in ray["stdout"] and "[REDACTED" in ray["stdout"]  # scrubbed like any run
    assert "65534" in ray["stdout"].splitlines()  # the worker's sandbox: unprivileged
    files = {f["name"]: f for f in ray["output_files"]}
    assert "hello from ray" in files["out/result.txt"]["content"]
    assert [a["name"] for a in ray["artifact_files"]] == ["r/out/result.txt"]


def test_workspace_state_comes_back_and_persists(report: dict[str, Any]) -> None:
    assert report["state"]["stdout"].strip() == "kept"


def test_output_caps_apply(report: dict[str, Any]) -> None:
    big = report["big_stdout"]
    assert big["stdout_truncated"] and len(big["stdout"]) < 200_000


def test_timeout_kills_the_remote_tree(report: dict[str, Any]) -> None:
    t = report["timeout"]
    assert t["timed_out"] and t["exit_code"] == -1 and "late" not in t["stdout"]
    assert report["timeout_seconds"] < 20
    assert not report["sleep_left"]


def test_a_cancelled_call_ends_the_remote_tree(report: dict[str, Any]) -> None:
    c = report["cancelled"]
    assert c["exit_code"] == -1 and not c["timed_out"], c
    assert any("cancelled" in w for w in c["warnings"]), c
    assert not report["cancelled_sleep_left"]


def test_missing_binary_is_reported_from_the_node(report: dict[str, Any]) -> None:
    m = report["missing_on_node"]
    assert m["exit_code"] == 127 and "should-not-run" not in m["stdout"]
    assert "Missing binary: skillyard-no-such-binary (on ray node" in m["stderr"]


def test_binary_resources_schedule_or_refuse(report: dict[str, Any]) -> None:
    assert "Missing binary: skillyard-no-such-binary" in report["missing_scheduled"]
    assert "skillyard-bin:skillyard-no-such-binary" in report["missing_scheduled"]
    assert report["bash_scheduled"]["stdout"].strip() == "ok"


def test_skill_toml_tools_run_through_ray(report: dict[str, Any]) -> None:
    text, is_error = report["toml"]
    assert not is_error and text.startswith("hello from toml")


def test_worker_death_fails_clearly_and_saves_nothing(report: dict[str, Any]) -> None:
    assert report["worker_death"].startswith("ray: the run failed on the cluster"), report["worker_death"]
    assert report["artifacts_after_death"]
    assert not report["tree_left_after_death"]


def test_unreachable_cluster_is_a_bounded_clear_error(report: dict[str, Any]) -> None:
    assert "127.0.0.1:9" in report["unreachable"] and "fix:" in report["unreachable"]
    assert report["unreachable_seconds"] < 10


# -- without a cluster ---------------------------------------------------------------------------------------


def test_ray_settings_from_config(tmp_path: Path) -> None:
    cfg = parse_config(
        {
            "execution": {
                "executor": "ray",
                "ray": {
                    "address": "127.0.0.1:6379",
                    "worker_executor": "sandbox",
                    "num_cpus": 2,
                    "resources": {"gpu-box": 1},
                    "runtime_env": {"env_vars": {"A": "1"}},
                    "bin_resources": True,
                },
            }
        }
    )
    ray = cfg.execution.ray
    assert cfg.execution.executor == "ray" and ray.address == "127.0.0.1:6379" and ray.num_cpus == 2.0
    assert ray.resources == {"gpu-box": 1.0} and ray.bin_resources
    assert isinstance(get_executor("ray", ray=ray), RayExecutor)


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"worker_executor": "local"}, "execution.ray.worker_executor"),
        ({"num_cpus": 0}, "execution.ray.num_cpus"),
        ({"resources": {"x": -1}}, "execution.ray.resources"),
        ({"address": ""}, "execution.ray.address"),
        ({"colour": 1}, "execution.ray.colour"),
    ],
)
def test_bad_ray_settings_name_the_key(table: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_config({"execution": {"ray": table}})


def test_local_is_never_a_worker_executor() -> None:
    with pytest.raises(ValueError, match="boundary"):
        RayExecutor(RaySettings(worker_executor="local"))


def test_address_checks_are_bounded() -> None:
    from skillyard.execution import ExecutorUnavailable

    with pytest.raises(ExecutorUnavailable, match="127.0.0.1:9"):
        _check_reachable("127.0.0.1:9", 2)
    _check_reachable("auto", 2)  # nothing to dial: Ray finds a local cluster itself


def test_the_tree_cache_is_entered_by_its_owner_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trees are world-readable for the sandboxed uid and their paths show in any run's
    /proc/PID/mountinfo: another local user must not reach them through the cache folder."""
    pytest.importorskip("ray")
    from skillyard.execution import ray_executor

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    tree = tmp_path / "skill"
    tree.mkdir()
    (tree / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nprivate\n")
    data = ray_executor._pack(tree)
    digest = hashlib.sha256(data).hexdigest()
    root = tmp_path / f"skillyard-ray-trees-{os.geteuid()}"
    root.mkdir(mode=0o711)  # as earlier versions made it
    root.chmod(0o711)
    got = ray_executor._cached_tree(digest, data)
    assert (got / "SKILL.md").read_text().endswith("private\n")
    assert root.stat().st_mode & 0o777 == 0o700
