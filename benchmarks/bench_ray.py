"""The ray executor against the local sandbox executor, in one process (prints figures, asserts nothing).

    .venv/bin/python benchmarks/bench_ray.py [--runs 20]

Needs root: it re-runs itself in a network namespace with only loopback
(`unshare -n`), because Ray binds every interface and dials the machine's own
address, and starts a local cluster with token authentication, once with 1 CPU
and once with 2.

Figures, per cluster size:
- one run at a time, warm: median SkillRunner time through ray and through the
  local sandbox, and the difference (the per-run overhead of going through Ray;
  target <= 50 ms);
- 8 and 32 runs at once (one session each): wall time and throughput for both.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
COMMAND = "python3 scripts/work.py > out/r.txt; cat out/r.txt"


def start(tmp: Path, cpus: int) -> str:
    r = subprocess.run(
        [
            RAY, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", "0", "--num-cpus", str(cpus),
            "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", str(tmp / f"ray{cpus}"),
        ],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    m = re.search(r"--address='([^']+)'", r.stdout + r.stderr)
    if r.returncode != 0 or not m:
        raise SystemExit(f"ray start failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return m.group(1)


def measure(cpus: int, runs: int, tmp: Path) -> dict[str, float]:
    from skillyard.config import RaySettings
    from skillyard.execution import RunRequest, SkillRunner
    from skillyard.execution.ray_executor import RayExecutor
    from skillyard.model import Skill

    d = tmp / "skills" / "bench"
    (d / "scripts").mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text("---\nname: bench\ndescription: bench\n---\nbody\n")
    (d / "scripts" / "work.py").write_text("print(sum(i * i for i in range(20000)))\n")
    skill = Skill(name="bench", description="bench", path=d / "SKILL.md")
    req = RunRequest.from_arguments({"skill": "bench", "command": COMMAND, "output_files": ["out/r.txt"]})
    address = start(tmp, cpus)
    out: dict[str, float] = {}
    try:
        import ray

        ray_runner = SkillRunner(
            executor=RayExecutor(RaySettings(address=address)), workspace_root=tmp / f"wr{cpus}"
        )
        local = SkillRunner(executor="sandbox", workspace_root=tmp / f"wl{cpus}")
        for r in (ray_runner, local):  # warm: workers started, skill tree cached on the node
            for _ in range(3):
                assert r.run(skill, req, session_id="warm").exit_code == 0
        a: list[float] = []
        b: list[float] = []
        for _ in range(runs):
            t = time.perf_counter()
            local.run(skill, req, session_id="seq")
            b.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            ray_runner.run(skill, req, session_id="seq")
            a.append((time.perf_counter() - t) * 1000)
        out["seq_ray_ms"], out["seq_local_ms"] = statistics.median(a), statistics.median(b)
        for n in (8, 32):
            for name, r in (("ray", ray_runner), ("local", local)):
                with ThreadPoolExecutor(max_workers=n) as pool:
                    t = time.perf_counter()
                    codes = list(
                        pool.map(lambda i, r=r: r.run(skill, req, session_id=f"c{i}").exit_code, range(n))
                    )
                    wall = time.perf_counter() - t
                assert codes == [0] * n, codes
                out[f"c{n}_{name}_s"] = wall
        ray_runner.close()
        local.close()
        ray.shutdown()
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, timeout=120)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    if os.environ.get("SKILLYARD_BENCH_NETNS") != "1":
        if os.geteuid() != 0 or not shutil.which("unshare"):
            print("bench_ray: skipped (needs root and unshare for a loopback-only network namespace)")
            return
        env = {**os.environ, "SKILLYARD_BENCH_NETNS": "1"}
        raise SystemExit(subprocess.call(["unshare", "-n", "--", sys.executable, *sys.argv], env=env))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    os.environ.update(
        RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(24), RAY_USAGE_STATS_ENABLED="0"
    )
    tmp = Path(tempfile.mkdtemp(prefix="skillyard-bench-ray-"))
    os.chmod(tmp, 0o711)
    results = {}
    try:
        for cpus in (1, 2):
            results[cpus] = measure(cpus, args.runs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"Ray executor vs the local sandbox executor (median of {args.runs} sequential runs; loopback cluster)"
    )
    for cpus, r in results.items():
        over = r["seq_ray_ms"] - r["seq_local_ms"]
        print(
            f"  {cpus} CPU  one at a time: ray {r['seq_ray_ms']:7.1f} ms  sandbox {r['seq_local_ms']:7.1f} ms"
            f"  overhead +{over:6.1f} ms  x{r['seq_ray_ms'] / r['seq_local_ms']:.2f}"
        )
        for n in (8, 32):
            ray_s, loc_s = r[f"c{n}_ray_s"], r[f"c{n}_local_s"]
            print(
                f"  {cpus} CPU  {n:2d} at once:    ray {ray_s:6.2f} s ({n / ray_s:5.1f} runs/s)"
                f"  sandbox {loc_s:6.2f} s ({n / loc_s:5.1f} runs/s)  x{ray_s / loc_s:.2f}"
            )
    print(json.dumps({str(k): v for k, v in results.items()}))


if __name__ == "__main__":
    main()
