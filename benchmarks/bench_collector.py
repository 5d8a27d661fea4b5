"""What the host's cyclic garbage collector costs a registry of 10,000 skills, against older code.

    git archive <commit> src | tar -x -C /tmp/skillyard-old
    .venv/bin/python benchmarks/bench_collector.py --keep /tmp/corpus10k --old /tmp/skillyard-old/src

skillyard never pauses or tunes the collector, so the objects it keeps are what a
host pays for: every container the collector tracks is walked again by each full
collection. This loads this tree's `skillyard` and, with `--old`, another copy of
the package in the same process (each one's modules swapped into `sys.modules`
while it runs), and alternates the two, round after round, with the collector
running. Figures are CPU time (`time.process_time`) against the floor measured in
the same round (open + read of every SKILL.md), so the load of a shared machine
hits both sides alike. A cold registry of the same corpus stays alive throughout,
as it would in a host that holds one, so a full collection has a heap to walk
(`--bare` leaves it out).

Per round and code, it prints: a second start from the start-up cache then every
`Skill` built; the same with the collector paused by the caller; the first verbose
`skills list` of a fresh toolkit on that registry; the containers the build left
tracked; and the collections it triggered (young, middle, full).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_discovery import bare_read, make_corpus  # noqa: E402

HERE = Path(__file__).parents[1] / "src"
#: every module a measured call may import lazily (a swap only covers what is loaded)
MODULES = (
    "skillyard.registry",
    "skillyard.discovery",
    "skillyard.parsing",
    "skillyard.tools",
    "skillyard.reports",
)


def _ours() -> list[str]:
    return [n for n in sys.modules if n == "skillyard" or n.startswith("skillyard.")]


class Code:
    """One copy of the package: its src directory and the modules imported from it so far."""

    def __init__(self, src: Path) -> None:
        self.src = str(src)
        self.modules: dict[str, ModuleType] = {}
        with self:
            for name in MODULES:
                importlib.import_module(name)

    def __enter__(self) -> Code:
        for name in _ours():
            del sys.modules[name]
        sys.path.insert(0, self.src)  # a module first imported while measuring comes from here too
        sys.modules.update(self.modules)
        return self

    def __exit__(self, *_exc: object) -> None:
        sys.path.remove(self.src)
        self.modules.update({n: sys.modules.pop(n) for n in _ours()})


def cpu(fn: Any) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="reuse/keep the corpus in this directory")
    ap.add_argument("--old", type=Path, help="the src/ directory of the code to compare with")
    ap.add_argument("--bare", action="store_true", help="hold no other registry (a small heap)")
    ap.add_argument(
        "--search",
        action="store_true",
        help="also time the first search after the cold scan (the index it leaves alive shifts "
        "the next round's container counts)",
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="skillyard-bench-gc-"))
    try:
        return run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, tmp: Path) -> int:
    root = args.keep or tmp / "skills"
    if not (root.is_dir() and any(root.iterdir())):
        root.mkdir(parents=True, exist_ok=True)
        make_corpus(root, args.skills)
    paths = sorted(str(p) for p in root.glob("*/SKILL.md"))
    n = len(paths)
    bare_read(paths)  # warm the page cache

    codes = {"new": Code(HERE)}
    if args.old:
        codes["old"] = Code(args.old)

    with codes["old" if args.old else "new"]:  # the same heap for both sides: built by the baseline
        registry_mod = sys.modules["skillyard.registry"]
        held = None if args.bare else registry_mod.Registry.from_roots([root])  # what the host holds
    assert held is None or len(held.skills) == n

    def setup(label: str) -> dict[str, Any]:
        from skillyard.discovery import Root
        from skillyard.registry import Registry
        from skillyard.tools import Toolkit

        cache_file = tmp / f"cache-{label}.marshal"
        Registry([Root(root, "custom")], cache=cache_file)  # writes the cache
        model = sys.modules["skillyard.model"].__file__
        return {"Registry": Registry, "Root": Root, "Toolkit": Toolkit, "cache": cache_file, "model": model}

    env = {}
    for label, code in codes.items():
        with code:
            env[label] = setup(label)

    gens: list[int] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gens.append(info["generation"])

    rows: dict[str, dict[str, list[float]]] = {label: {} for label in codes}

    def add(label: str, key: str, value: float) -> None:
        rows[label].setdefault(key, []).append(value)

    def measure(label: str, e: dict[str, Any]) -> None:
        assert sys.modules["skillyard.model"].__file__ == e["model"], "the other code is loaded"
        floor = cpu(lambda: bare_read(paths))

        def second_start_all(e: dict[str, Any] = e) -> Any:
            reg = e["Registry"]([e["Root"](root, "custom")], cache=e["cache"])
            assert len(reg.skills) == n
            return reg

        gc.collect()
        before = len(gc.get_objects())
        gens.clear()
        gc.callbacks.append(on_gc)
        t = time.process_time()
        reg = second_start_all()
        built = time.process_time() - t
        gc.callbacks.remove(on_gc)
        gc.collect()
        add(label, "tracked", len(gc.get_objects()) - before)
        add(label, "young", gens.count(0))
        add(label, "middle", gens.count(1))
        add(label, "full", gens.count(2))
        add(label, "built", built / floor)

        kit = e["Toolkit"](reg, tools=["skills"])
        gens.clear()
        gc.callbacks.append(on_gc)
        add(label, "list", cpu(lambda kit=kit: kit.call("skills", {"action": "list"})) / floor)
        gc.callbacks.remove(on_gc)
        add(label, "list_full", gens.count(2))
        kit = e["Toolkit"](reg, tools=["skills"])
        add(
            label,
            "verbose",
            cpu(lambda kit=kit: kit.call("skills", {"action": "list", "verbose": True})) / floor,
        )
        del reg, kit

        def cold_all(e: dict[str, Any] = e) -> Any:
            reg = e["Registry"]([e["Root"](root, "custom")])
            assert len(reg.skills) == n
            return reg

        gc.collect()
        before = len(gc.get_objects())
        t = time.process_time()
        reg = cold_all()
        add(label, "cold", (time.process_time() - t) / floor)
        gc.collect()
        add(label, "cold_tracked", len(gc.get_objects()) - before)
        kit = e["Toolkit"](reg, tools=["skills"])
        add(label, "cold_list", cpu(lambda kit=kit: kit.call("skills", {"action": "list"})) / floor)
        kit = e["Toolkit"](reg, tools=["skills"])
        add(
            label,
            "cold_verbose",
            cpu(lambda kit=kit: kit.call("skills", {"action": "list", "verbose": True})) / floor,
        )
        if args.search:  # reads every skill's metadata (its tags): decodes a packed frontmatter
            add(label, "cold_search", cpu(lambda reg=reg: reg.search("warm up", limit=5)) / floor)
        del reg, kit

        gc.collect()
        gc.disable()
        try:
            add(label, "paused", cpu(second_start_all) / floor)
        finally:
            gc.enable()
        add(label, "floor_ms", floor * 1000)

    for r in range(args.rounds):
        order = list(codes) if r % 2 == 0 else list(reversed(codes))
        for label in order:
            with codes[label]:
                measure(label, env[label])

    def fmt(values: list[float], unit: str = "x") -> str:
        if unit == "n":
            return f"{statistics.median(values):8.0f} ({min(values):.0f}-{max(values):.0f})"
        return f"{statistics.median(values):6.2f}{unit} ({min(values):.2f}-{max(values):.2f}{unit})"

    print(f"{n} skills, {args.rounds} rounds, python {sys.version.split()[0]}, CPU time, median (range)")
    for label in codes:
        print(f"{label}: {env[label]['model']}")
    labels = {
        "floor_ms": ("floor: open+read every SKILL.md, ms", "ms"),
        "built": ("second start, then every Skill built", "x"),
        "paused": ("  the same, collector paused by the caller", "x"),
        "list": ("skills list, first call of a fresh toolkit", "x"),
        "list_full": ("  full collections during that list", "n"),
        "verbose": ("skills list verbose, fresh toolkit", "x"),
        "cold": ("cold scan (no cache), every Skill built", "x"),
        "cold_list": ("  then skills list, fresh toolkit", "x"),
        "cold_verbose": ("  then skills list verbose, fresh toolkit", "x"),
        "cold_search": ("  then the search index (every metadata read)", "x"),
        "cold_tracked": ("  containers left tracked by the cold scan", "n"),
        "tracked": ("containers left tracked by the build", "n"),
        "young": ("  young collections during the build", "n"),
        "middle": ("  middle collections", "n"),
        "full": ("  full collections", "n"),
    }
    print(f"{'measure (x floor)':44} " + "  ".join(f"{label:>22}" for label in codes))
    for key, (title, unit) in labels.items():
        if key not in rows[next(iter(codes))]:
            continue
        print(f"{title:44} " + "  ".join(f"{fmt(rows[label][key], unit):>22}" for label in codes))
    del held
    return 0


if __name__ == "__main__":
    sys.exit(main())
