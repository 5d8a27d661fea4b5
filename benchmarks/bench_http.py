"""A bounded load test of `skillyard serve --transport http` with bearer tokens, on 127.0.0.1 only.

    .venv/bin/python benchmarks/bench_http.py [--clients 20] [--seconds 15] [--skills 100] [--rate 5] [--stateless]
    .venv/bin/python benchmarks/bench_http.py --compare-sse [--seconds 10]

A real server subprocess with `--auth-token-file`; N concurrent official
clients over streamable HTTP, each with its own connection and the bearer
header, calling in a loop: tools/list (client cache bypassed), the `skills`
tool's list, `skill_load` and `read_skill`; none of them runs anything.
Run once per protocol era (2026-07-28, then 2025-11-25 with `initialize`),
`--seconds` each; the whole run stays under 60 s.

Each client sends `--rate` calls per second (default 5, so 100 calls/s from
20 clients); `--rate 0` sends the next call as soon as the last one returns
(a closed loop: then latency is mostly queueing, throughput is the figure).

Prints per call: count, p50, p99, max; errors (target 0); p99 target <= 100 ms;
the server's CPU time per call; the server's RSS after a warm-up and after
the load (target growth <= 20%). Both the server and the clients run on this
machine and share its cores, so the latencies include the load generator's
own CPU use.

`--compare-sse` measures what answering 2025-era calls with one JSON body
(skillyard's default) gains over the SDK's SSE stream per call: two servers
built the same way except for `http_app(handshake_json=...)`, loaded in
alternating rounds by the same 2025-era clients, so machine load hits both
alike; prints each one's p50/p99/CPU per call and the ratios.
"""

from __future__ import annotations

import argparse
import gc
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

SRC = Path(__file__).resolve().parents[1] / "src"
CALLS = ("tools/list", "skills list", "skill_load", "read_skill")
HARD_LIMIT_S = 60.0


def make_skills(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"skill-{i:04d}"
        (d / "references").mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Benchmark skill number {i} that does a useful thing.\n---\n\n"
            + "Follow these steps carefully.\n" * 20,
            encoding="utf-8",
        )
        (d / "references" / "notes.md").write_text("# notes\n" * 10, encoding="utf-8")


def bearer_check_us(tokens: int, n: int = 5000) -> float:
    """In-process cost of one static-token check (header parse + digest compare against every token)."""
    from skillyard.mcp.auth import _bearer_token, parse_tokens

    values = [secrets.token_urlsafe(32) for _ in range(tokens)]
    verifier = parse_tokens(values)
    header = [f"Bearer {values[-1]}".encode()]
    t0 = time.perf_counter()
    for _ in range(n):
        token = _bearer_token(header)
        assert token is not None and verifier.lookup(token) is not None
    return (time.perf_counter() - t0) / n * 1e6


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def one_client(
    url: str,
    token: str,
    mode: str,
    until: float,
    skills: int,
    lat: dict[str, list[float]],
    errors: list[str],
    rate: float = 0.0,
) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as c:  # type: ignore[arg-type]
        i = 0
        next_at = time.monotonic() + (secrets.randbelow(1000) / 1000 / rate if rate > 0 else 0)
        while time.monotonic() < until:
            name = f"skill-{secrets.randbelow(skills):04d}"
            for call in CALLS:
                if rate > 0:  # open loop: start on schedule, whatever the last call took
                    await anyio.sleep(max(0.0, next_at - time.monotonic()))
                    next_at += 1.0 / rate
                t0 = time.perf_counter()
                try:
                    if call == "tools/list":
                        res: Any = await c.list_tools(cache_mode="bypass")
                        ok = bool(res.tools)
                    elif call == "skills list":
                        res = await c.call_tool("skills", {"action": "list"})
                        ok = not res.is_error
                    elif call == "skill_load":
                        res = await c.call_tool("skill_load", {"skill": name})
                        ok = not res.is_error
                    else:
                        res = await c.call_tool("read_skill", {"skill_name": name})
                        ok = not res.is_error
                except Exception as e:  # counted, not raised: the run reports every failure
                    errors.append(f"{call}: {type(e).__name__}: {e}"[:200])
                    continue
                lat[call].append((time.perf_counter() - t0) * 1000)
                if not ok:
                    errors.append(f"{call}: error result")
            i += 1


#: a server built like `skillyard serve --auth-token-file`, with the 2025-era answer form chosen by argv[4]
LAUNCHER = """
import sys
import uvicorn
from skillyard.mcp import build_server
from skillyard.mcp.auth import load_token_file
from skillyard.registry import Registry
root, port, tokens, form = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
server = build_server(Registry.from_roots([root]))
app = server.http_app(verifier=load_token_file(tokens), handshake_json=form == "json")
uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()
"""


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_era(
    url: str,
    token: str,
    mode: str,
    clients: int,
    seconds: float,
    skills: int,
    rate: float = 0.0,
    pid: int = 0,
) -> dict[str, Any]:
    lat: dict[str, list[float]] = {c: [] for c in CALLS}
    errors: list[str] = []
    until = time.monotonic() + seconds
    cpu0 = cpu_s(pid) if pid else 0.0
    own0 = time.process_time()
    async with anyio.create_task_group() as tg:
        for _ in range(clients):
            tg.start_soon(one_client, url, token, mode, until, skills, lat, errors, rate)
    return {
        "lat": lat,
        "errors": errors,
        "cpu": (cpu_s(pid) - cpu0) if pid else 0.0,
        "client_cpu": time.process_time() - own0,
    }


def report(era: str, out: dict[str, Any], seconds: float) -> float:
    lat, errors = out["lat"], out["errors"]
    total = sum(len(v) for v in lat.values())
    print(
        f"\n{era}: {total} calls in {seconds:.0f} s ({total / seconds:.0f}/s), errors: {len(errors)} (target 0)"
    )
    if out.get("cpu") and total:
        print(
            f"  server CPU {out['cpu']:.1f} s, {out['cpu'] / total * 1000:.2f} ms per call; "
            f"the clients' own CPU {out['client_cpu']:.1f} s"
        )
    worst = 0.0
    for call in CALLS:
        v = lat[call]
        p99 = pct(v, 0.99)
        worst = max(worst, p99)
        print(
            f"  {call:12s} n={len(v):6d}  p50={statistics.median(v) if v else float('nan'):7.1f} ms"
            f"  p99={p99:7.1f} ms  max={max(v) if v else float('nan'):7.1f} ms"
        )
    for e in errors[:5]:
        print("  error:", e)
    print(f"  worst p99 {worst:.1f} ms (target <= 100 ms): {'ok' if worst <= 100 else 'MISSED'}")
    return worst


def wait_for_port(proc: subprocess.Popen[bytes], port: int) -> bool:
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.1)


async def compare_sse(
    args: argparse.Namespace, root: Path, token: str, tokens: Path, env: dict[str, str]
) -> int:
    """2025-era load on a JSON-answering and an SSE-answering server, in alternating rounds."""
    rounds = 4
    per_round = max(2.0, min(args.seconds, (HARD_LIMIT_S - 15) / 2) / rounds)
    procs: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    try:
        for form in ("json", "sse"):
            port = free_port()
            cmd = [sys.executable, "-c", LAUNCHER, str(root), str(port), str(tokens), form]
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs[form] = (proc, f"http://127.0.0.1:{port}/mcp")
            if not wait_for_port(proc, port):
                print(f"the {form} server did not start", file=sys.stderr)
                return 1
        for _proc, url in procs.values():
            await run_era(url, token, "legacy", 2, 1.0, args.skills)
        merged: dict[str, dict[str, Any]] = {
            f: {"lat": {c: [] for c in CALLS}, "errors": [], "cpu": 0.0} for f in procs
        }
        for i in range(rounds):
            for form in ("json", "sse") if i % 2 == 0 else ("sse", "json"):
                proc, url = procs[form]
                out = await run_era(
                    url, token, "legacy", args.clients, per_round, args.skills, args.rate, proc.pid
                )
                for call in CALLS:
                    merged[form]["lat"][call] += out["lat"][call]
                merged[form]["errors"] += out["errors"]
                merged[form]["cpu"] += out["cpu"]
        print(
            f"2025-11-25 clients: {args.clients}, {args.rate:g} calls/s each, {rounds} alternating rounds of "
            f"{per_round:.1f} s per server"
        )
        summary: dict[str, tuple[float, float, float]] = {}
        for form in ("json", "sse"):
            m = merged[form]
            every = [v for call in CALLS for v in m["lat"][call]]
            cpu_ms = m["cpu"] / len(every) * 1000 if every else float("nan")
            summary[form] = (pct(every, 0.5), pct(every, 0.99), cpu_ms)
            print(
                f"  {form:4s} answers: n={len(every):5d} errors={len(m['errors'])}  p50={summary[form][0]:6.1f} ms"
                f"  p99={summary[form][1]:6.1f} ms  server CPU {cpu_ms:.2f} ms per call"
            )
        j, e = summary["json"], summary["sse"]
        print(
            f"  json/sse: p50 {j[0] / e[0]:.2f}x, p99 {j[1] / e[1]:.2f}x, server CPU per call {j[2] / e[2]:.2f}x"
        )
        return 0 if not merged["json"]["errors"] and not merged["sse"]["errors"] else 1
    finally:
        for proc, _url in procs.values():
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=15.0, help="per protocol era")
    ap.add_argument("--skills", type=int, default=100)
    ap.add_argument("--rate", type=float, default=5.0, help="calls per second per client; 0: closed loop")
    ap.add_argument("--stateless", action="store_true")
    ap.add_argument("--compare-sse", action="store_true", help="2025-era JSON answers against SSE answers")
    args = ap.parse_args()
    seconds = min(args.seconds, (HARD_LIMIT_S - 15) / 2)
    started = time.monotonic()
    print(
        f"bearer check in-process: {bearer_check_us(10):.1f} us with 10 tokens, "
        f"{bearer_check_us(1000, 500):.0f} us with 1,000"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        make_skills(root, args.skills)
        token = secrets.token_urlsafe(32)
        tokens = Path(tmp) / "tokens"
        tokens.write_text(f"{token} skills:read\n", encoding="utf-8")
        tokens.chmod(0o600)
        port = free_port()
        env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env["HOME"] = tmp
        env["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        if args.compare_sse:
            return await compare_sse(args, root, token, tokens, env)
        cmd = [sys.executable, "-m", "skillyard", "--root", str(root), "serve", "--transport", "http"]
        cmd += ["--port", str(port), "--auth-token-file", str(tokens)]
        if args.stateless:
            cmd.append("--stateless")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if not wait_for_port(proc, port):
                print("server did not start", file=sys.stderr)
                return 1
            url = f"http://127.0.0.1:{port}/mcp"
            # warm-up: every call once per era, so caches and imports are counted in "before"
            for mode in ("auto", "legacy"):
                await run_era(url, token, mode, 2, 1.0, args.skills)
            before = rss_kib(proc.pid)
            # The clients stand in for agents on other machines: their own full
            # collections (70+ ms here, walking the SDK's imports) would be
            # counted as server latency, so freeze what the warm-up built.
            gc.collect()
            gc.freeze()
            print(
                f"server: {args.skills} skills, --auth-token-file{' --stateless' if args.stateless else ''}; "
                f"{args.clients} clients, {seconds:.0f} s per era, "
                + (f"{args.rate:g} calls/s each" if args.rate > 0 else "closed loop")
            )
            print(f"server RSS after warm-up: {before / 1024:.1f} MiB")
            worst = 0.0
            errors = 0
            for era, mode in (("2026-07-28 (no handshake)", "auto"), ("2025-11-25 (initialize)", "legacy")):
                out = await run_era(url, token, mode, args.clients, seconds, args.skills, args.rate, proc.pid)
                worst = max(worst, report(era, out, seconds))
                errors += len(out["errors"])
            after = rss_kib(proc.pid)
            growth = (after - before) / before * 100 if before else float("nan")
            print(
                f"\nserver RSS after the load: {after / 1024:.1f} MiB, growth {growth:+.1f}% (target <= 20%): "
                f"{'ok' if growth <= 20 else 'MISSED'}"
            )
            print(f"total wall time {time.monotonic() - started:.0f} s")
            return 0 if errors == 0 else 1
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    sys.exit(anyio.run(main))
