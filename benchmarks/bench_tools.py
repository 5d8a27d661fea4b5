"""Agent tool layer at 10,000 skills, against the floor of reading every SKILL.md.

    .venv/bin/python benchmarks/bench_tools.py [--skills 10000] [--budget 8000]

Targets (issue: agent tools): catalog under a budget <= 50 ms; search p50 <= 5 ms;
`skills list` <= 30 ms; dispatcher overhead <= 0.2 ms per call over the handler.
Each figure is also printed as a ratio to the bare read measured in the same run
(absolute timings are noisy on shared machines; ratios much less so). No asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

WORDS = (
    "extract convert summarise render deploy query schedule analyse translate format validate upload invoice "
    "report image video audio pdf spreadsheet email calendar database cluster metrics logs repository release "
    "changelog weather travel budget recipe contract ticket"
).split()
QUERIES = [
    "pdf invoice",
    "weather",
    "deploy cluster",
    "convert video audio",
    "git changelog release",
    "zzz nothing",
]


def make_corpus(root: Path, n: int, seed: int = 11) -> None:
    rnd = random.Random(seed)
    for i in range(n):
        name = f"skill-{i:05d}-{rnd.choice(WORDS)}"
        d = root / name
        d.mkdir(parents=True)
        desc = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(12, 30)))
        bins = rnd.sample(["sh", "ls", "skillyard-missing-bin"], rnd.randint(0, 1))
        meta = {"openclaw": {"emoji": "🔧", "requires": {"bins": bins}}}
        body = "\n".join(" ".join(rnd.choice(WORDS) for _ in range(12)) for _ in range(40))
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {desc.capitalize()}.\nmetadata: {json.dumps(meta)}\n---\n\n{body}\n",
            encoding="utf-8",
        )
        if i % 10 == 0:
            (d / "USAGE.md").write_text("usage\n", encoding="utf-8")


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def bare_read(root: Path) -> None:
    for entry in os.scandir(root):
        for name in ("SKILL.md",):
            try:
                with open(os.path.join(entry.path, name), "rb") as f:
                    f.read()
            except OSError:
                pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--budget", type=int, default=8_000)
    ap.add_argument("--repeat", type=int, default=15)
    opts = ap.parse_args()

    from skillyard.prompt import render_catalog
    from skillyard.registry import Registry
    from skillyard.session import Session
    from skillyard.tools import Toolkit

    with tempfile.TemporaryDirectory(prefix="skillyard-bench-tools-") as tmp:
        root = Path(tmp) / "skills"
        root.mkdir()
        make_corpus(root, opts.skills)
        bare_read(root)  # warm the page cache for both sides
        floor = statistics.median(timed(lambda: bare_read(root), 5))

        t0 = time.perf_counter()
        reg = Registry.from_roots([root])
        eligible = reg.eligible_skills()
        build = time.perf_counter() - t0

        kit = Toolkit(reg)
        t0 = time.perf_counter()
        kit.definitions()
        defs_build = time.perf_counter() - t0

        catalog = timed(lambda: render_catalog(eligible, "xml", opts.budget), opts.repeat)
        cat = render_catalog(eligible, "xml", opts.budget)

        t0 = time.perf_counter()
        reg.search("warm up", limit=5)
        index_build = time.perf_counter() - t0
        searches: list[float] = []
        for _ in range(max(3, opts.repeat // 3)):
            for q in QUERIES:
                searches += timed(lambda q=q: reg.search(q, limit=5), 1)

        # cold: the first list after the registry changed (a fresh toolkit each time); warm: asked again
        listing_cold = timed(
            lambda: Toolkit(reg, tools=["skills"]).call("skills", {"action": "list"}), opts.repeat
        )
        listing = timed(lambda: kit.call("skills", {"action": "list"}), opts.repeat)
        # after a registry change: one skill toggled (version bump), and a full reload (every
        # eligibility answer recomputed); only the list call itself is timed
        toggled: list[float] = []
        reloaded: list[float] = []
        first_name = reg.skills[0].name
        for i in range(opts.repeat):
            reg.set_enabled(first_name, i % 2 == 1)
            toggled += timed(lambda: kit.call("skills", {"action": "list"}), 1)
        for _ in range(max(3, opts.repeat // 3)):
            reg.reload()
            reloaded += timed(lambda: kit.call("skills", {"action": "list"}), 1)

        # Dispatcher overhead: the same handler called through call() (JSON text, as providers send it) and directly.
        name = eligible[0].name
        tool = kit.get("read_skill")
        assert tool is not None
        session = Session()
        args_text = json.dumps({"skill_name": name})
        args = {"skill_name": name}
        n = 20_000
        tool.handler(args, session)  # warm the body cache
        t0 = time.perf_counter()
        for _ in range(n):
            tool.handler(args, session)
        direct = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        for _ in range(n):
            kit.call("read_skill", args_text, session=session)
        via_json = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        for _ in range(n):
            kit.call("read_skill", args, session=session)
        via_dict = (time.perf_counter() - t0) / n

    ms = 1000.0
    print(
        f"skills: {opts.skills} ({len(eligible)} eligible), budget {opts.budget} chars, python {sys.version.split()[0]}"
    )
    print(f"floor: bare read of every SKILL.md          {floor * ms:8.2f} ms")
    print(f"registry build (discover + parse)           {build * ms:8.2f} ms  ({build / floor:6.2f}x floor)")
    print(
        f"tool definitions build (enums etc.)         {defs_build * ms:8.2f} ms  ({defs_build / floor:6.2f}x floor)"
    )
    c = statistics.median(catalog)
    print(
        f"catalog xml under budget (median)           {c * ms:8.2f} ms  ({c / floor:6.2f}x floor)  target <= 50 ms"
        f"  [{cat.shown}/{cat.total} shown, {len(cat.text)} chars]"
    )
    print(
        f"search index build (first query)            {index_build * ms:8.2f} ms  ({index_build / floor:6.2f}x floor)"
    )
    p50 = statistics.median(searches)
    p95 = sorted(searches)[int(len(searches) * 0.95) - 1]
    print(
        f"search p50 / p95                            {p50 * ms:8.3f} / {p95 * ms:.3f} ms  ({p50 / floor:6.3f}x floor)  target p50 <= 5 ms"
    )
    cold = statistics.median(listing_cold)
    print(
        f"skills list, first call (median)            {cold * ms:8.2f} ms  ({cold / floor:6.2f}x floor)  target <= 30 ms"
    )
    tog = statistics.median(toggled)
    print(
        f"skills list after enable/disable (median)   {tog * ms:8.2f} ms  ({tog / floor:6.2f}x floor)  target <= 30 ms"
    )
    rel = statistics.median(reloaded)
    print(
        f"skills list after full reload (median)      {rel * ms:8.2f} ms  ({rel / floor:6.2f}x floor)  target <= 30 ms"
    )
    lst = statistics.median(listing)
    print(f"skills list, repeated (median)              {lst * ms:8.3f} ms  ({lst / floor:6.4f}x floor)")
    print(f"handler alone (read_skill)                  {direct * ms:8.4f} ms")
    print(
        f"dispatcher overhead, JSON text args         {(via_json - direct) * ms:8.4f} ms/call  "
        f"({(via_json - direct) / floor:.2e}x floor)  target <= 0.2 ms"
    )
    print(f"dispatcher overhead, dict args              {(via_dict - direct) * ms:8.4f} ms/call")


if __name__ == "__main__":
    main()
