"""Runs skillyard through a real local Ray cluster and prints what happened, as JSON.

Started by tests/test_ray_executor.py inside a network namespace that has only
loopback (Ray binds every interface and dials the machine's own address), with
Ray's token authentication. Starts a head node, runs the scenarios through
`SkillRunner` and `run_tool` exactly as a host would, stops the cluster.

Usage: python ray_driver.py WORK_DIR
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from skillyard.config import RaySettings
from skillyard.execution import (
    ExecutorUnavailable,
    FilesystemArtifactStore,
    RunError,
    RunRequest,
    SkillRunner,
)
from skillyard.execution.base import run_cancellable
from skillyard.execution.ray_executor import RayExecutor
from skillyard.model import Requirements, Skill, ToolSpec
from skillyard.toml_tools import run_tool

RAY = str(Path(sys.executable).with_name("ray"))


def start_cluster(tmp: Path) -> str:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    log = subprocess.run(
        [
            RAY,
            "start",
            "--head",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            "0",
            "--num-cpus",
            "2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            "--temp-dir",
            str(tmp / "ray"),
            "--resources",
            json.dumps({"skillyard-bin:bash": 1000}),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    m = re.search(r"--address='([^']+)'", log.stdout + log.stderr)
    if log.returncode != 0 or not m:
        raise SystemExit(f"ray start failed: {log.stdout[-2000:]} {log.stderr[-2000:]}")
    return m.group(1)


def skill_at(root: Path, name: str, bins: tuple[str, ...] = ()) -> Skill:
    d = root / name
    (d / "scripts").mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: ray tests\n---\nbody\n")
    (d / "scripts" / "hello.py").write_text("import sys; print('hello from', sys.argv[1])\n")
    return Skill(name=name, description="ray tests", path=d / "SKILL.md", requires=Requirements(bins=bins))


def run(runner: SkillRunner, skill: Skill, session: str = "s", **args: Any) -> dict[str, Any]:
    req = RunRequest.from_arguments({"skill": skill.name, **args})
    return runner.run(
        skill, req, session_id=session, extra_env={"SERVICE_TOKEN": "tok-" + "9" * 24}
    ).to_dict()


def kill_worker_soon(marker: str, done: threading.Event) -> None:
    """SIGKILL the Ray worker process that runs the task whose command carries `marker`."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not done.is_set():
        for e in os.scandir("/proc"):
            if not e.name.isdigit():
                continue
            try:
                cmd = Path(f"/proc/{e.name}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmd:
                # Walk up to the Ray worker (a `ray::` process) and kill it.
                pid = int(e.name)
                while pid > 1:
                    try:
                        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                        stat = Path(f"/proc/{pid}/stat").read_text()
                    except OSError:
                        break
                    if cmd.startswith(b"ray::"):
                        os.kill(pid, signal.SIGKILL)
                        return
                    pid = int(stat.rsplit(")", 1)[1].split()[1])
        time.sleep(0.05)


def main() -> None:
    work = Path(sys.argv[1])
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(24)
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    report: dict[str, Any] = {}
    address = start_cluster(work)
    try:
        skills = work / "skills"
        hello = skill_at(skills, "hello")
        store = FilesystemArtifactStore(work / "artifacts")
        ray_ex = RayExecutor(RaySettings(address=address, connect_timeout=10))
        runner = SkillRunner(
            executor=ray_ex, workspace_root=work / "ws-ray", artifact_store=store, timeout=60
        )
        local = SkillRunner(
            executor="sandbox", workspace_root=work / "ws-local", artifact_store=store, timeout=60
        )
        cmd = (
            "python3 scripts/hello.py ray > out/result.txt; cat out/result.txt; echo err >&2; "
            "echo $SERVICE_TOKEN; id -u; echo kept > $WORK_DIR/state.txt; exit 3"
        )
        outputs = {"outputs": {"globs": ["out/*.txt"], "inline": True, "save": True, "name_template": "r/"}}
        report["ray"] = run(runner, hello, command=cmd, **outputs)
        report["local"] = run(local, hello, command=cmd, **outputs)
        report["state"] = run(runner, hello, command="cat $WORK_DIR/state.txt")
        report["big_stdout"] = run(runner, hello, command="head -c 1000000 /dev/zero | tr '\\0' a")
        t = time.monotonic()
        # Other processes on this machine (other test runs) may sleep 30 too: this run's sleep is unique.
        nap = f"30.{secrets.randbelow(10**6):06d}"
        late = f"late-{secrets.token_hex(6)}"
        report["timeout"] = run(runner, hello, command=f"sleep {nap}; echo {late}", timeout=2)
        report["timeout_seconds"] = time.monotonic() - t
        time.sleep(1)
        report["sleep_left"] = (
            subprocess.run(["pgrep", "-f", f"sleep {nap}"], capture_output=True).returncode == 0
        )
        # A caller that gives up (run_cancellable's event set) ends the task and its sandbox.
        nap = f"31.{secrets.randbelow(10**6):06d}"
        stop = threading.Event()
        threading.Timer(3, stop.set).start()
        report["cancelled"] = run_cancellable(stop, run, runner, hello, command=f"sleep {nap}", timeout=50)
        time.sleep(1)
        report["cancelled_sleep_left"] = (
            subprocess.run(["pgrep", "-f", f"sleep {nap}"], capture_output=True).returncode == 0
        )
        # Eligibility where the run happens.
        needy = skill_at(skills, "needy", bins=("skillyard-no-such-binary",))
        report["missing_on_node"] = run(runner, needy, command="echo should-not-run")
        sched = SkillRunner(
            executor=RayExecutor(RaySettings(address=address, bin_resources=True)),
            workspace_root=work / "ws-sched",
        )
        try:
            run(sched, needy, command="echo should-not-run")
            report["missing_scheduled"] = "ran"
        except RunError as e:
            report["missing_scheduled"] = str(e)
        report["bash_scheduled"] = run(sched, skill_at(skills, "bashy", bins=("bash",)), command="echo ok")
        sched.close()
        # A SKILL.toml tool through the same executor.
        spec = ToolSpec(name="hi", description="hi", command="python3 scripts/hello.py toml", kind="shell")
        report["toml"] = list(run_tool(hello, spec, {}, executor=ray_ex, timeout=60))
        # A worker dying mid-run: a clear error, nothing saved.
        before = sorted(store.names())
        marker = "skillyard-ray-kill-marker"
        done = threading.Event()
        killer = threading.Thread(target=kill_worker_soon, args=(marker, done), daemon=True)
        killer.start()
        try:
            run(
                runner,
                hello,
                session="k",
                command=f"sleep 20; echo {marker} > out/x.txt",
                outputs={"globs": ["out/*"], "save": True, "name_template": "killed/"},
            )
            report["worker_death"] = "no error"
        except RunError as e:
            report["worker_death"] = str(e)
        done.set()
        report["artifacts_after_death"] = sorted(store.names()) == before
        # the sandbox dies with the worker (--die-with-parent): gone well before its `sleep 20` ends,
        # however loaded the machine (a fixed short wait raced the teardown under load)
        deadline = time.monotonic() + 10
        while True:
            left = subprocess.run(["pgrep", "-f", f"sleep 20; echo {marker}"], capture_output=True)
            if left.returncode != 0 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        report["tree_left_after_death"] = left.returncode == 0
        runner.close()
        local.close()
        # An unreachable cluster: a bounded, clear error naming the address.
        t = time.monotonic()
        try:
            RayExecutor(RaySettings(address="127.0.0.1:9", connect_timeout=3))._connect()
            report["unreachable"] = "connected?"
        except ExecutorUnavailable as e:
            report["unreachable"] = str(e)
        report["unreachable_seconds"] = time.monotonic() - t
    except BaseException:
        traceback.print_exc()  # before `ray stop`, which can leave this process unable to exit cleanly
        sys.stderr.flush()
        raise
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, timeout=120)
    print("SKILLYARD-REPORT " + json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
