"""Scanner benchmark: detection and false-positive rates on the fixture corpus, plus throughput.

Run:  .venv/bin/python benchmarks/bench_scanner.py [--repeat N]

Throughput is reported as a ratio against a baseline measured in the same process (a plain
read + UTF-8 decode + line split of the same files), so figures compare across machines.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from skillyard.install import load_rules, scan_path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "scanner"


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def baseline(dirs: list[Path]) -> float:
    """Time to read, decode and split every file: the floor any scanner pays."""
    t = time.perf_counter()
    n = 0
    for d in dirs:
        for f in _files(d):
            n += len(f.read_bytes().decode("utf-8", "replace").splitlines())
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rules = load_rules()
    mal = sorted(p for p in (CORPUS / "malicious").iterdir() if p.is_dir())
    ben = sorted(p for p in (CORPUS / "benign").iterdir() if p.is_dir())

    detected = [d.name for d in mal if scan_path(d, rules=rules).blocked]
    false_pos = [d.name for d in ben if scan_path(d, rules=rules).blocked]
    flagged_benign = [
        d.name for d in ben if scan_path(d, rules=rules).max_severity in ("medium", "high", "critical")
    ]
    print(f"rules: {len(rules)}")
    print(f"detection rate (blocked malicious): {len(detected)}/{len(mal)} = {len(detected) / len(mal):.1%}")
    missed = sorted(set(d.name for d in mal) - set(detected))
    if missed:
        print(f"  missed: {', '.join(missed)}")
    print(
        f"false-positive rate (blocked benign): {len(false_pos)}/{len(ben)} = {len(false_pos) / len(ben):.1%}"
    )
    if false_pos:
        print(f"  blocked benign: {', '.join(false_pos)}")
    print(f"benign with medium+ findings (reported, not blocking): {len(flagged_benign)}/{len(ben)}")

    dirs = mal + ben
    total_bytes = sum(f.stat().st_size for d in dirs for f in _files(d))
    base = min(baseline(dirs) for _ in range(args.repeat))
    scans = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        for d in dirs:
            scan_path(d, rules=rules)
        scans.append(time.perf_counter() - t)
    best = min(scans)
    print(f"corpus: {len(dirs)} skills, {total_bytes / 1024:.1f} KiB")
    print(f"scan throughput: {total_bytes / best / 1024 / 1024:.2f} MiB/s, {len(dirs) / best:.0f} skills/s")
    print(f"scan time / read-decode-split baseline: {best / base:.1f}x")

    # a large benign file: linear behaviour on size (no truncation)
    big = "\n".join(
        f"Line {i}: run `python3 scripts/tool.py --input data/{i}.csv` and check output."
        for i in range(50_000)
    )
    from skillyard.install import scan_text

    t = time.perf_counter()
    scan_text(big, "SKILL.md", rules=rules)
    big_t = time.perf_counter() - t
    t = time.perf_counter()
    big.encode().decode().splitlines()
    big_base = time.perf_counter() - t
    print(
        f"large file ({len(big) / 1024 / 1024:.1f} MiB): {len(big) / big_t / 1024 / 1024:.2f} MiB/s, {big_t / max(big_base, 1e-9):.0f}x baseline"
    )


if __name__ == "__main__":
    main()
