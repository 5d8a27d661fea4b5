"""Whole `skillyard` processes, as agents and scripts start them, against floors measured in the same run.

    .venv/bin/python benchmarks/bench_cli.py [--skills 10000] [--runs 11] [--keep DIR] [--old SRC]

Every figure is the median wall time of a fresh process; runs of the compared
commands are interleaved, so a busy machine slows both sides of a ratio alike.
The 10,000-skill lines also print the ratio of CPU time (user + system of the
process), which waiting for a busy machine's cores does not inflate.

* start-up: `skillyard --help` and `skillyard list --json` over the bundled
  skills, against skills-ref's `agentskills --help` (installed with pip into a
  throwaway venv; when that fails, against `python -c "import click"`).
  Targets: <= 0.7x and <= 1.0x.
* 10,000 skills (the corpus of bench_discovery.py): `skillyard --root DIR list
  --json` with no start-up cache (cold) and with one (warm), against a process
  that only opens and reads every SKILL.md. Targets: <= 3.0x and <= 1.2x. A third
  process shows what pure Python pays before building anything: the CLI's imports and every
  frontmatter parsed by the fast parser (no names, requirements, rows, cache or output). With
  `--old DIR` (the src/ of other code, e.g. `git archive <commit> src`), the same
  listings importing that code take turns with them.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bench_discovery import make_corpus  # noqa: E402

BARE_READ = (
    "import os, sys\n"
    "top = sys.argv[1]\n"
    "for e in sorted(os.scandir(top), key=lambda e: e.name):\n"
    "    with open(os.path.join(e.path, 'SKILL.md'), 'rb') as f:\n"
    "        f.read()\n"
)
#: what any pure-Python listing pays before it builds anything: the CLI's imports, every SKILL.md
#: read and decoded, and its frontmatter parsed into a dict by the fast parser (nested maps included)
READ_AND_SPLIT = (
    "import os, sys\n"
    "import skillyard.cli\n"
    "from skillyard.parsing.frontmatter import fast_parse\n"
    "top = sys.argv[1]\n"
    "for e in sorted(os.scandir(top), key=lambda e: e.name):\n"
    "    with open(os.path.join(e.path, 'SKILL.md'), 'rb') as f:\n"
    "        text = f.read().decode()\n"
    "    fast_parse(text[4 : text.find('\\n---', 4)])\n"
)


def wall(argv: list[str], env: dict[str, str], before: list[str] | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of `argv`."""
    if before:
        shutil.rmtree(before[0], ignore_errors=True)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    elapsed = time.perf_counter() - t
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime


def interleaved(
    cases: dict[str, tuple[list[str], dict[str, str], list[str] | None]], runs: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU seconds per case, the cases taking turns run after run."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    for argv, env, before in cases.values():  # one untimed run each: imports compiled, files cached
        wall(argv, env, before)
    for _ in range(runs):
        for k, (argv, env, before) in cases.items():
            elapsed, used = wall(argv, env, before)
            times[k].append(elapsed)
            cpu[k].append(used)
    return (
        {k: statistics.median(v) for k, v in times.items()},
        {k: statistics.median(v) for k, v in cpu.items()},
    )


def reference(tmp: Path) -> tuple[str, list[str]]:
    """skills-ref's `agentskills --help` when pip can install it, else `python -c "import click"`."""
    venv = tmp / "skills-ref-venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "skills-ref"]
        subprocess.run(pip, check=True, capture_output=True, timeout=300)
        exe = venv / "bin" / "agentskills"
        if exe.exists():
            return "agentskills --help (skills-ref)", [str(exe), "--help"]
    except (subprocess.SubprocessError, OSError):
        pass
    return 'python -c "import click" (skills-ref not installable)', [sys.executable, "-c", "import click"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--keep", type=Path, help="reuse/keep the corpus in this directory")
    ap.add_argument(
        "--old",
        type=Path,
        help="the src/ directory of other code: its 10,000-skill listings take turns with these",
    )
    args = ap.parse_args()

    exe = str(Path(sys.executable).parent / "skillyard")
    tmp = Path(tempfile.mkdtemp(prefix="skillyard-bench-cli-"))
    try:
        home = tmp / "home"
        home.mkdir()
        cache = tmp / "cache"
        env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(cache), "XDG_CONFIG_HOME": str(home)}
        env.pop("SKILLYARD_PATH", None)
        # the untimed first run of each command compiles skillyard's modules, as a user's first
        # start does; with PYTHONDONTWRITEBYTECODE every timed run would compile them again
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        ref_label, ref = reference(tmp)

        start, _ = interleaved(
            {
                "ref": (ref, env, None),
                "help": ([exe, "--help"], env, None),
                "list": ([exe, "list", "--json"], env, None),
                "python": ([sys.executable, "-c", "pass"], env, None),
            },
            args.runs,
        )
        print(f"{'start-up':44} {'time':>9} {'x ref':>7}  target")
        print(f"{ref_label:44} {start['ref'] * 1000:7.1f}ms {1.0:7.2f}")
        print(f"{'python -c pass':44} {start['python'] * 1000:7.1f}ms {start['python'] / start['ref']:7.2f}")
        print(
            f"{'skillyard --help':44} {start['help'] * 1000:7.1f}ms {start['help'] / start['ref']:7.2f}  <= 0.7x"
        )
        print(
            f"{'skillyard list --json (bundled skills)':44} {start['list'] * 1000:7.1f}ms "
            f"{start['list'] / start['ref']:7.2f}  <= 1.0x"
        )

        root = args.keep or tmp / "skills"
        if not (root.is_dir() and any(root.iterdir())):
            root.mkdir(parents=True, exist_ok=True)
            t = time.perf_counter()
            make_corpus(root, args.skills)
            print(f"\ncorpus: {args.skills} skills in {time.perf_counter() - t:.1f}s at {root}")
        listing = [exe, "--root", str(root), "list", "--json"]
        cases = {
            "bare": ([sys.executable, "-c", BARE_READ, str(root)], env, None),
            "split": ([sys.executable, "-c", READ_AND_SPLIT, str(root)], env, None),
            "cold": (listing, env, [str(cache)]),
            "warm": (listing, env, None),
        }
        if args.old:  # the same command importing the other code, with a cache of its own
            old_cache = tmp / "old-cache"
            old_env = {**env, "PYTHONPATH": str(args.old.resolve()), "XDG_CACHE_HOME": str(old_cache)}
            cases["old cold"] = (listing, old_env, [str(old_cache)])
            cases["old warm"] = (listing, old_env, None)
        big, big_cpu = interleaved(cases, args.runs)
        floor, cpu_floor = big["bare"], big_cpu["bare"]
        print(
            f"\n{'10,000 skills, whole processes':44} {'time':>9} {'x floor':>7} {'cpu':>9} {'x floor':>7}  target"
        )
        rows = (
            ("floor: a process that reads every SKILL.md", "bare", ""),
            ("imports, read, frontmatter parsed, no more", "split", ""),
            ("list --json, no start-up cache (cold)", "cold", "<= 3.0x"),
            ("list --json, with the start-up cache (warm)", "warm", "<= 1.2x"),
            *(
                (("the --old code, cold", "old cold", ""), ("the --old code, warm", "old warm", ""))
                if args.old
                else ()
            ),
        )
        for label, k, target in rows:
            print(
                f"{label:44} {big[k] * 1000:7.1f}ms {big[k] / floor:7.2f} "
                f"{big_cpu[k] * 1000:7.1f}ms {big_cpu[k] / cpu_floor:7.2f}  {target}".rstrip()
            )
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
