"""MCP server timings, each printed with a ratio against a baseline measured in the same process.

    .venv/bin/python benchmarks/bench_mcp.py [--skills 10000] [--calls 300]

1. in-process `tools/call` of `skills list` over 100 skills (target p50 <= 2 ms);
   baseline: an in-process `tools/list` round trip (the SDK's floor); the
   Toolkit call alone is printed too;
2. stdio round trip to a `skillyard serve` subprocess (target p50 <= 5 ms);
   baseline: the same request in-process;
3. `skills/list` over N skills, paginated: the first page on a fresh server
   (target <= 50 ms); baseline: an in-process `tools/list` round trip;
4. checking one stdio line before the SDK sees it (skillyard.mcp._framing), a
   typical `tools/call` and a 1 MB one (target: no slower than the baseline);
   baseline: the SDK's own validation of the same line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types
from mcp import Client, StdioServerParameters
from mcp_types import PaginatedRequestParams

from skillyard.mcp import build_server
from skillyard.registry import Registry
from skillyard.session import Session

SRC = Path(__file__).resolve().parents[1] / "src"


class ListParams(PaginatedRequestParams):
    pass


class ListReq(mcp_types.Request[ListParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class ListRes(mcp_types.PaginatedResult, mcp_types.CacheableResult):
    skills: list[dict[str, Any]]


def make_skills(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"skill-{i:05d}"
        (d / "references").mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:05d}\ndescription: Benchmark skill number {i} that does a small task.\n---\n\n"
            "Follow these steps.\n",
            encoding="utf-8",
        )
        (d / "references" / "notes.md").write_text(f"notes {i}\n", encoding="utf-8")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def timed(fn: Callable[[], Awaitable[Any]], n: int, warmup: int = 20) -> list[float]:
    for _ in range(warmup):
        await fn()
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def report(label: str, xs: list[float], base: list[float], target: float | None = None) -> None:
    p50, p95, b50 = statistics.median(xs), pct(xs, 95), statistics.median(base)
    tgt = f"  target p50 <= {target:g} ms: {'ok' if p50 <= target else 'MISSED'}" if target else ""
    print(
        f"{label:<48} p50 {p50:7.3f} ms  p95 {p95:7.3f} ms  baseline p50 {b50:7.3f} ms  ratio {p50 / b50:6.2f}x{tgt}"
    )


async def bench_inprocess(root: Path, calls: int) -> None:
    registry = Registry.from_roots([root])
    server = build_server(registry)
    kit = server.toolkit
    session = Session()

    async def direct() -> None:
        kit.call("skills", {"action": "list"}, session=session)

    async with Client(server) as c:

        async def over_mcp() -> None:
            await c.call_tool("skills", {"action": "list"})

        floor = await timed(lambda: c.list_tools(cache_mode="bypass"), calls)
        raw = await timed(direct, calls)
        xs = await timed(over_mcp, calls)
    report("in-process tools/call skills list (100 skills)", xs, floor, 2.0)
    print(
        f"{'  (baseline: in-process tools/list; Toolkit.call alone':<48} p50 {statistics.median(raw):7.3f} ms)"
    )


async def bench_stdio(root: Path, calls: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillyard", "--root", str(root), "serve"], env=env
    )
    registry = Registry.from_roots([root])
    async with Client(build_server(registry)) as local:
        base_read = await timed(lambda: local.call_tool("read_skill", {"skill_name": "skill-00001"}), calls)
        base_list = await timed(lambda: local.call_tool("skills", {"action": "list"}), calls)
    async with Client(params) as c:
        xs_read = await timed(lambda: c.call_tool("read_skill", {"skill_name": "skill-00001"}), calls)
        xs_list = await timed(lambda: c.call_tool("skills", {"action": "list"}), calls)
    report("stdio round trip tools/call read_skill", xs_read, base_read, 5.0)
    report("stdio round trip tools/call skills list (100)", xs_list, base_list)


async def bench_catalog(root: Path, n: int) -> None:
    t0 = time.perf_counter()
    registry = Registry.from_roots([root])
    load_ms = (time.perf_counter() - t0) * 1000
    print(
        f"(registry load of {len(registry.skills)} skills: {load_ms:.0f} ms, not part of the figures below)"
    )
    server = build_server(registry)
    async with Client(server) as c:
        base = await timed(lambda: c.list_tools(cache_mode="bypass"), 50)
        t0 = time.perf_counter()
        first = await c.session.send_request(ListReq(params=ListParams()), ListRes)
        cold = (time.perf_counter() - t0) * 1000
        warm = await timed(
            lambda: c.session.send_request(ListReq(params=ListParams()), ListRes), 30, warmup=0
        )
        cursor = first.next_cursor
        t0 = time.perf_counter()
        pages, total = 1, len(first.skills)
        while cursor:
            page = await c.session.send_request(ListReq(params=ListParams(cursor=cursor)), ListRes)
            pages += 1
            total += len(page.skills)
            cursor = page.next_cursor
        all_ms = (time.perf_counter() - t0) * 1000
    report(f"skills/list first page, cold ({n} skills)", [cold], base, 50.0)
    report(f"skills/list first page, warm ({n} skills)", warm, base)
    print(
        f"{'skills/list remaining pages (cold)':<48} {pages - 1} pages, {total} entries, {all_ms:.0f} ms total"
    )


def bench_framing() -> None:
    from mcp_types import jsonrpc_message_adapter

    from skillyard.mcp._framing import classify

    call = {"jsonrpc": "2.0", "id": 12, "method": "tools/call"}
    lines = {
        "typical": {**call, "params": {"name": "skills", "arguments": {"action": "search", "query": "pdf"}}},
        "1 MB": {**call, "params": {"name": "skills", "arguments": {"q": ["x" * 100] * 10_000}}},
    }
    for label, message in lines.items():
        line = json.dumps(message).encode()
        n = 20_000 if len(line) < 10_000 else 30
        sdk = _per_call_ms(lambda line=line: jsonrpc_message_adapter.validate_json(line, by_name=False), n)
        ours = _per_call_ms(lambda line=line: classify(line), n)
        report(f"framing one stdio line, {label}", [ours], [sdk], sdk)


def _per_call_ms(fn: Callable[[], Any], n: int) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) * 1000 / n)
    return best


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ.update(
            HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache")
        )
        os.environ.update(XDG_DATA_HOME=str(home / ".local/share"))
        small = Path(tmp) / "small"
        make_skills(small, 100)
        await bench_inprocess(small, args.calls)
        await bench_stdio(small, args.calls)
        big = Path(tmp) / "big"
        make_skills(big, args.skills)
        await bench_catalog(big, args.skills)
    bench_framing()


if __name__ == "__main__":
    anyio.run(main)
