"""Discovery + parse of a 10,000-skill corpus against the floor of reading every SKILL.md.

    .venv/bin/python benchmarks/bench_discovery.py [--skills 10000] [--keep DIR]

Prints ratios against the bare read measured in the same run (timings are
noisy on shared machines; ratios are not). Targets (issue: foundation):
cold <= 2.0x floor, second start with the cache <= 0.5x, reload after touching
one skill <= 20 ms, peak memory of a 10,000-skill registry <= 80 MiB.

Everything runs in this one process. The bill for building every Skill
object from the packed rows the start-up cache handed over is printed too.
benchmarks/bench_cli.py measures the same corpus through whole `skillyard`
processes.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

WORDS = (
    "extract convert summarise render deploy query schedule analyse translate format validate upload "
    "invoice report image video audio pdf spreadsheet email calendar database cluster metrics logs "
    "repository release changelog weather travel budget recipe contract ticket"
).split()


def make_corpus(root: Path, n: int, seed: int = 7) -> None:
    """n skills of about 5 KB each, frontmatter like real ClawHub/Claude Code skills."""
    rnd = random.Random(seed)
    for i in range(n):
        name = f"skill-{i:05d}-{rnd.choice(WORDS)}"
        d = root / name
        (d / "scripts").mkdir(parents=True)
        desc = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(12, 30)))
        bins = rnd.sample(["gh", "jq", "curl", "ffmpeg", "python3", "git"], rnd.randint(0, 2))
        meta = {
            "openclaw": {
                "emoji": "🔧",
                "requires": {"bins": bins, "env": ["API_TOKEN"] if i % 7 == 0 else []},
            }
        }
        if bins:
            meta["openclaw"]["install"] = [
                {"id": "brew", "kind": "brew", "formula": bins[0], "bins": bins[:1]}
            ]
        lines = [
            "---",
            f"name: {name}",
            f"description: {desc.capitalize()}. Use when the user asks to {rnd.choice(WORDS)} things.",
            "license: MIT",
            f"metadata: {json.dumps(meta, ensure_ascii=False)}",
            "allowed-tools: Bash(git:*) Read",
            "---",
            "",
            f"# {name}",
            "",
        ]
        text = "\n".join(lines)
        while len(text) < 5000:
            text += (
                f"\n## Step {rnd.randint(1, 9)}\n\n" + " ".join(rnd.choice(WORDS) for _ in range(60)) + "\n"
            )
        (d / "SKILL.md").write_text(text, encoding="utf-8")
        (d / "scripts" / "run.sh").write_text("#!/bin/sh\necho ok\n")


def bare_read(paths: list[str]) -> float:
    t = time.perf_counter()
    for p in paths:
        with open(p, "rb") as f:
            f.read()
    return time.perf_counter() - t


def median_of(fn, runs: int) -> float:
    return statistics.median(fn() for _ in range(runs))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="reuse/keep the corpus in this directory")
    args = ap.parse_args()

    sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
    from skillyard.config import Config
    from skillyard.discovery import Root
    from skillyard.registry import Registry

    tmp = Path(tempfile.mkdtemp(prefix="skillyard-bench-"))
    root = args.keep or tmp / "skills"
    try:
        if not (root.is_dir() and any(root.iterdir())):
            root.mkdir(parents=True, exist_ok=True)
            t = time.perf_counter()
            make_corpus(root, args.skills)
            print(f"corpus: {args.skills} skills in {time.perf_counter() - t:.1f}s at {root}")
        paths = sorted(str(p) for p in root.glob("*/SKILL.md"))
        n = len(paths)
        size = sum(os.path.getsize(p) for p in paths)
        print(f"{n} skills, {size / n / 1024:.1f} KiB per SKILL.md")

        bare_read(paths)  # warm the page cache: every figure below is a warm-cache figure
        floor = median_of(lambda: bare_read(paths), args.runs)

        gc_spent: list[float] = []
        gc_started: list[float] = []

        def on_gc(phase: str, _info: dict) -> None:
            if phase == "start":
                gc_started.append(time.perf_counter())
            elif gc_started:
                gc_spent.append(time.perf_counter() - gc_started.pop())

        cold_gc: list[float] = []

        def cold() -> float:
            gc.collect()
            gc_spent.clear()
            gc.callbacks.append(on_gc)
            t = time.perf_counter()
            reg = Registry([Root(root, "custom")], Config())
            dt = time.perf_counter() - t
            gc.callbacks.remove(on_gc)
            cold_gc.append(sum(gc_spent))  # the host's collector, running while the registry is built
            assert len(reg) == n, (len(reg), reg.diagnostics[:3])
            return dt

        cold_t = median_of(cold, args.runs)
        cold_gc_t = statistics.median(cold_gc)

        def cold_all() -> float:
            gc.collect()
            t = time.perf_counter()
            reg = Registry([Root(root, "custom")], Config())
            assert len(reg.skills) == n
            return time.perf_counter() - t

        cold_all_t = median_of(cold_all, args.runs)

        held = Registry([Root(root, "custom")], Config())

        def full_gc() -> float:
            t = time.perf_counter()
            gc.collect()
            return time.perf_counter() - t

        full_gc_t = median_of(full_gc, args.runs)  # what every later full collection pays for `held`
        del held

        reg = Registry([Root(root, "custom")], Config())
        target = Path(paths[n // 2])

        def reload_one() -> float:
            target.write_text(target.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            t = time.perf_counter()
            diff = reg.reload()
            dt = time.perf_counter() - t
            assert diff.updated == [target.parent.name], diff.updated
            return dt

        reload_t = median_of(reload_one, max(3, args.runs))

        def reload_watched() -> float:
            target.write_text(target.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            t = time.perf_counter()
            diff = reg.reload(changed=[target])
            dt = time.perf_counter() - t
            assert diff.updated == [target.parent.name], diff.updated
            return dt

        watched_t = median_of(reload_watched, max(3, args.runs))

        cache_file = tmp / "registry-cache.marshal"
        Registry([Root(root, "custom")], Config(), cache=cache_file)  # writes the cache

        def second_start() -> float:
            gc.collect()
            t = time.perf_counter()
            reg3 = Registry([Root(root, "custom")], Config(), cache=cache_file)
            dt = time.perf_counter() - t
            assert len(reg3) == n
            return dt

        cached_t = median_of(second_start, args.runs)

        def second_start_all() -> float:
            """The lazy part's bill: a second start, then every skill object built."""
            gc.collect()
            t = time.perf_counter()
            reg3 = Registry([Root(root, "custom")], Config(), cache=cache_file)
            assert len(reg3.skills) == n
            return time.perf_counter() - t

        cached_all_t = median_of(second_start_all, args.runs)

        def second_start_all_paused() -> float:
            """The same with the collector paused by the caller (skillyard never pauses it itself):
            the difference is what the host's cyclic GC spends on the objects being built."""
            gc.collect()
            gc.disable()
            try:
                return second_start_all()
            finally:
                gc.enable()

        paused_t = median_of(second_start_all_paused, args.runs)

        def noop_reload() -> float:
            t = time.perf_counter()
            reg.reload()
            return time.perf_counter() - t

        noop_t = median_of(noop_reload, args.runs)

        gc.collect()
        tracemalloc.start()
        reg2 = Registry([Root(root, "custom")], Config())
        assert len(reg2.skills) == n
        _cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del reg2

        print()
        print(f"{'measure':44} {'time':>10} {'x floor':>8}  target")
        print(f"{'floor: open+read every SKILL.md':44} {floor * 1000:8.1f}ms {1.0:8.2f}")
        print(
            f"{'cold discovery + parse (frontmatter only)':44} {cold_t * 1000:8.1f}ms {cold_t / floor:8.2f}  <= 2.0x"
        )
        print(
            f"{'  of which GC passes inside the constructor':44} {cold_gc_t * 1000:8.1f}ms {cold_gc_t / floor:8.2f}"
        )
        print(f"{'cold, then every Skill built':44} {cold_all_t * 1000:8.1f}ms {cold_all_t / floor:8.2f}")
        print(
            f"{'a full GC pass with the registry alive':44} {full_gc_t * 1000:8.1f}ms {full_gc_t / floor:8.2f}"
        )
        print(
            f"{'second start, with the start-up cache':44} {cached_t * 1000:8.1f}ms {cached_t / floor:8.2f}  <= 0.5x"
        )
        print(
            f"{'second start, then every Skill built':44} {cached_all_t * 1000:8.1f}ms {cached_all_t / floor:8.2f}"
        )
        print(
            f"{'  the same, collector paused by the caller':44} {paused_t * 1000:8.1f}ms {paused_t / floor:8.2f}"
        )
        print(
            f"{'reload, one skill touched (full re-walk)':44} {reload_t * 1000:8.1f}ms {reload_t / floor:8.2f}  <= 20 ms"
        )
        print(
            f"{'reload, one skill touched (watcher paths)':44} {watched_t * 1000:8.1f}ms {watched_t / floor:8.2f}  <= 20 ms"
        )
        print(f"{'reload, nothing changed':44} {noop_t * 1000:8.1f}ms {noop_t / floor:8.2f}")
        print(f"{'peak traced memory, registry + every Skill':44} {peak / 2**20:8.1f}MiB {'':8}  <= 80 MiB")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
