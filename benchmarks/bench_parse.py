"""Parse benchmark: `parse_skill` over a corpus vs a bare open+read of the same files.

Generates N skills of ~5 KB (name, description, single-line JSON OpenClaw metadata,
allowed-tools) in a temp dir and prints the ratio; the target is <= 2.0x.

    .venv/bin/python benchmarks/bench_parse.py [--count 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from skillyard.parsing import parse_skill

#: Install targets drawn from a pool, as in real collections where many skills need the same tools.
TOOLS = [f"tool{n}" for n in range(40)] + ["gh", "jq", "ffmpeg", "rg", "uv", "node", "git", "curl"]
BODY_LINE = "Run the helper script with the input file and check the output carefully before continuing.\n"


def make_corpus(root: Path, count: int) -> list[str]:
    paths: list[str] = []
    for i in range(count):
        d = root / f"skill-{i:05d}"
        d.mkdir()
        tool = TOOLS[i % len(TOOLS)]
        meta = {
            "openclaw": {
                "emoji": "🛠️",
                "requires": {"bins": [tool, f"helper{i % 97}"], "env": [f"TOKEN_{i % 13}"]},
                "install": [
                    {
                        "id": "brew",
                        "kind": "brew",
                        "formula": tool,
                        "bins": [tool],
                        "label": f"Install {tool}",
                    }
                ],
            }
        }
        fm = (
            f"name: skill-{i:05d}\n"
            f'description: "Work with repository {i}, issues and pull requests. Use when the user asks about PRs."\n'
            f"metadata: {json.dumps(meta, ensure_ascii=False)}\n"
            "allowed-tools: Bash(gh:*) Read Write\n"
            "license: Apache-2.0\n"
        )
        body = f"# Skill {i}\n\n" + BODY_LINE * 52
        p = d / "SKILL.md"
        p.write_text(f"---\n{fm}---\n\n{body}", encoding="utf-8")
        paths.append(str(p))
    return paths


def bare_read(paths: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds for a bare open+read of every file."""
    t, c = time.perf_counter(), time.process_time()
    for p in paths:
        with open(p, "rb") as f:
            f.read()
    return time.perf_counter() - t, time.process_time() - c


def parse_all(paths: list[str], toml_sibling: bool | None = None) -> tuple[float, float]:
    """(wall, cpu) seconds for parse_skill over every file, as discovery calls it (a Path per file)."""
    t, c = time.perf_counter(), time.process_time()
    for p in paths:
        skill, _ = parse_skill(Path(p), source="bench", toml_sibling=toml_sibling)
        if skill is None:
            raise SystemExit(f"failed to parse {p}")
    return time.perf_counter() - t, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_corpus(Path(tmp), args.count)
        size = sum(os.path.getsize(p) for p in paths) / len(paths)
        bare_read(paths)  # warm the page cache
        parse_all(paths[:100])  # warm imports
        runs: dict[str, list[tuple[float, float]]] = {"bare": [], "parse": [], "parse-no-toml-check": []}
        for _ in range(args.repeat):  # interleaved, so a noisy neighbour hits every side alike
            runs["bare"].append(bare_read(paths))
            runs["parse"].append(parse_all(paths))
            runs["parse-no-toml-check"].append(parse_all(paths, toml_sibling=False))
    best = {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in runs.items()}
    n = args.count
    bare_w, bare_c = best["bare"]
    print(f"files: {n} (avg {size:.0f} bytes), best of {args.repeat}")
    for key, (w, c) in best.items():
        print(f"{key:>20}: wall {w * 1e3:7.1f} ms ({w / n * 1e6:5.1f} us/file)  cpu {c * 1e3:7.1f} ms")
    print(
        f"ratio parse/bare: wall {best['parse'][0] / bare_w:.2f}x, cpu {best['parse'][1] / bare_c:.2f}x (target <= 2.0x)"
    )
    print(
        f"ratio without the SKILL.toml sibling stat: wall {best['parse-no-toml-check'][0] / bare_w:.2f}x, "
        f"cpu {best['parse-no-toml-check'][1] / bare_c:.2f}x"
    )


if __name__ == "__main__":
    main()
