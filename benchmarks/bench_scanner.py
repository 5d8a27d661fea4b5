"""Scanner benchmark: detection and false positives on labelled corpora, real collections, timings.

Run:  .venv/bin/python benchmarks/bench_scanner.py [--repeat N] [--real DIR] [--list]

- fixtures: tests/fixtures/scanner/{malicious,benign} (one skill per directory).
- corpus: benchmarks/scanner_corpus/<half>/cases.yaml, malicious/benign pairs (`--half NAME`,
  repeatable; default: every half in the folder). tune, tune2 and heldout2 (since its measurement
  on 2026-11-26) are tuning data; a held-out half is measured, never used to change rules. A case
  is "detected" / a "false positive" when the default policy blocks it (a finding at severity high
  or above that is not suppressed).
- --real DIR: every directory under DIR holding a SKILL.md is scanned as a skill (public
  collections checked out by the user; nothing is downloaded here). Prints the share flagged
  high or above and, with --list, why, per skill.
- timings: median per skill in process; one `skillyard audit` process for one skill, alternated
  with a bare interpreter start and with a process that reads the skill's files, so the figure
  compares across machines (`--process-only` for just these; `--audit DIR` adds a skill).

Throughput is also reported as a ratio against reading, decoding and splitting the same files.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import yaml

from skillyard.install import load_rules, scan_path, scan_text

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "scanner"
CORPUS = Path(__file__).resolve().parent / "scanner_corpus"


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def _encrypted(data: bytes) -> bytes:
    """Mark every member of a stored zip as encrypted (flag bit 0), as a password-protected zip is."""
    out = bytearray(data)
    i = 0
    while (i := out.find(b"PK\x03\x04", i)) != -1:
        out[i + 6] |= 1
        i += 4
    i = 0
    while (i := out.find(b"PK\x01\x02", i)) != -1:
        out[i + 8] |= 1
        i += 4
    return bytes(out)


def _content(spec: Any) -> bytes:
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if "zip" in spec:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for name, text in spec["zip"].items():
                z.writestr(name, text)
        return _encrypted(buf.getvalue()) if spec.get("encrypted") else buf.getvalue()
    if "tar" in spec:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as t:
            for name, text in spec["tar"].items():
                raw = text.encode()
                info = tarfile.TarInfo(name)
                info.size = len(raw)
                t.addfile(info, io.BytesIO(raw))
        return buf.getvalue()
    if "7z" in spec:
        import py7zr

        buf = io.BytesIO()
        pw = spec.get("password")
        with py7zr.SevenZipFile(
            buf, "w", password=pw, header_encryption=bool(pw and spec.get("hide_names"))
        ) as z:
            for name, text in spec["7z"].items():
                z.writestr(text, name)
        return buf.getvalue()
    if "base64" in spec:
        return base64.b64decode(spec["base64"])
    raise ValueError(f"unknown file spec {spec!r}")


def materialise(half: str, into: Path) -> list[tuple[str, str, Path]]:
    """Write one corpus half as skill directories; returns (name, label, path)."""
    doc = yaml.safe_load((CORPUS / half / "cases.yaml").read_text("utf-8"))
    out = []
    for case in doc["cases"]:
        d = into / half / case["name"]
        d.mkdir(parents=True)
        files = dict(case["files"])
        files.setdefault(
            "SKILL.md", f"---\nname: {case['name']}\ndescription: Corpus case.\n---\nUse the scripts.\n"
        )
        for rel, spec in files.items():
            p = d / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(_content(spec))
        out.append((case["name"], case["label"], d))
    return out


def rates(cases: list[tuple[str, str, Path]], rules: Any) -> dict[str, Any]:
    mal = [c for c in cases if c[1] == "malicious"]
    ben = [c for c in cases if c[1] == "benign"]
    missed = [n for n, _, p in mal if not scan_path(p, rules=rules).blocked]
    fps = [n for n, _, p in ben if scan_path(p, rules=rules).blocked]
    return {
        "malicious": len(mal),
        "benign": len(ben),
        "detection": 1 - len(missed) / max(1, len(mal)),
        "fp": len(fps) / max(1, len(ben)),
        "missed": missed,
        "false_positives": fps,
    }


def report_half(title: str, r: dict[str, Any]) -> None:
    print(
        f"{title}: detection {r['malicious'] - len(r['missed'])}/{r['malicious']} = {r['detection']:.1%}, "
        f"false positives {len(r['false_positives'])}/{r['benign']} = {r['fp']:.1%}"
    )
    if r["missed"]:
        print(f"  missed: {', '.join(r['missed'])}")
    if r["false_positives"]:
        print(f"  blocked benign: {', '.join(r['false_positives'])}")


def real_collections(root: Path, rules: Any, show: bool) -> list[float]:
    skills = sorted({p.parent for p in root.rglob("SKILL.md") if ".git" not in p.parts})
    times = []
    flagged = []
    for s in skills:
        t = time.perf_counter()
        rep = scan_path(s, rules=rules)
        times.append(time.perf_counter() - t)
        high = [f for f in rep.findings if f.severity in ("high", "critical")]
        if high:
            flagged.append((s, high))
    n = max(1, len(skills))
    print(
        f"real collections: {len(skills)} skills, {len(flagged)} flagged high or above = {len(flagged) / n:.1%}"
    )
    by_rule: dict[str, int] = {}
    for _, fs in flagged:
        for rid in {f.rule_id for f in fs}:
            by_rule[rid] = by_rule.get(rid, 0) + 1
    print(
        "  skills per rule: " + ", ".join(f"{k} {v}" for k, v in sorted(by_rule.items(), key=lambda x: -x[1]))
    )
    if show:
        for s, fs in flagged:
            print(f"  {s.relative_to(root)}")
            for f in fs[:4]:
                print(f"    {f.rule_id} {f.severity} {f.file}:{f.line} {f.title[:100]} | {f.snippet[:90]}")
    return times


_BARE_READ = (
    "import os, sys\n"
    "for d, _, fs in os.walk(sys.argv[1]):\n"
    "    for f in fs:\n"
    "        open(os.path.join(d, f), 'rb').read()\n"
)
_PHASES = (
    "import sys, time\n"
    "t0 = time.perf_counter()\n"
    "import skillyard.cli, skillyard._cli_install\n"
    "from skillyard.install.scanner import load_rules, scan_path\n"
    "t1 = time.perf_counter()\n"
    "rules = load_rules()\n"
    "t2 = time.perf_counter()\n"
    "scan_path(sys.argv[1], rules=rules)\n"
    "t3 = time.perf_counter()\n"
    "print((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000)\n"
)


def process_time(skill: Path, repeat: int) -> dict[str, float]:
    """Medians of whole processes, alternated so machine noise hits all alike: `skillyard audit
    SKILL`, a bare interpreter start, and a process that walks and reads the skill's files (the
    floor any reader of a skill pays); plus where the audit's time goes, from inside a process."""
    exe = Path(sys.executable).with_name("skillyard")
    cmd = (
        [str(exe), "audit", str(skill)] if exe.exists() else [sys.executable, "-m", "skillyard.cli", "audit"]
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # a user's second start
    runs = {
        "audit": cmd,
        "bare": [sys.executable, "-c", "pass"],
        "read": [sys.executable, "-c", _BARE_READ, str(skill)],
    }
    for argv in runs.values():
        subprocess.run(argv, capture_output=True, check=False, env=env)
    times: dict[str, list[float]] = {k: [] for k in runs}
    phases: list[list[float]] = []
    for _ in range(repeat):
        for name, argv in runs.items():
            t = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=False, env=env)
            times[name].append(time.perf_counter() - t)
        out = subprocess.run(
            [sys.executable, "-c", _PHASES, str(skill)], capture_output=True, text=True, check=False, env=env
        )
        if out.returncode == 0:
            phases.append([float(x) for x in out.stdout.split()])
    got = {k: statistics.median(v) * 1000 for k, v in times.items()}
    for i, name in enumerate(("imports", "rules", "scan")):
        got[name] = statistics.median(p[i] for p in phases) if phases else float("nan")
    return got


def report_process(skill: Path, repeat: int) -> None:
    t = process_time(skill, repeat)
    print(
        f"one skill as a `skillyard audit` process ({skill.name}): {t['audit']:.0f} ms median of {repeat} "
        f"(target <= 300 ms); bare interpreter {t['bare']:.0f} ms; reading the skill's files in a "
        f"process {t['read']:.0f} ms; audit / read = {t['audit'] / t['read']:.1f}x"
    )
    print(
        f"  inside the audit process: imports {t['imports']:.0f} ms, rules {t['rules']:.0f} ms, "
        f"scan {t['scan']:.0f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--real", type=Path, help="directory of public skill collections to measure")
    ap.add_argument("--list", action="store_true", help="with --real: list each flagged skill and why")
    ap.add_argument(
        "--audit",
        type=Path,
        action="append",
        default=[],
        help="also time a whole audit process on this skill",
    )
    ap.add_argument("--process-only", action="store_true", help="only the whole-process timings")
    ap.add_argument(
        "--half", action="append", default=[], help="corpus half to measure (default: every half present)"
    )
    args = ap.parse_args()
    if args.process_only:
        with tempfile.TemporaryDirectory(prefix="skillyard-corpus-") as tmp:
            cases = materialise("tune", Path(tmp))
            report_process(next(p for n, _, p in cases if n == "cred-aws-concat"), args.repeat)
        for extra in args.audit:
            report_process(extra, args.repeat)
        return
    rules = load_rules()
    print(f"rules: {len(rules)}")

    mal = sorted(p for p in (FIXTURES / "malicious").iterdir() if p.is_dir())
    ben = sorted(p for p in (FIXTURES / "benign").iterdir() if p.is_dir())
    report_half(
        "fixtures",
        rates([(p.name, "malicious", p) for p in mal] + [(p.name, "benign", p) for p in ben], rules),
    )

    with tempfile.TemporaryDirectory(prefix="skillyard-corpus-") as tmp:
        corpus_dirs = []
        halves = args.half or sorted(p.parent.name for p in CORPUS.glob("*/cases.yaml"))
        for half in halves:
            cases = materialise(half, Path(tmp))
            report_half(f"corpus {half} ({len(cases)} cases)", rates(cases, rules))
            corpus_dirs += [p for _, _, p in cases]
        one = Path(tmp) / "tune" / "cred-aws-concat"
        if not one.exists():
            materialise("tune", Path(tmp))
        per_skill = []
        for d in corpus_dirs:
            t = time.perf_counter()
            scan_path(d, rules=rules)
            per_skill.append(time.perf_counter() - t)
        print(f"corpus: median {statistics.median(per_skill) * 1000:.1f} ms per skill in process")
        report_process(one, args.repeat)
        for extra in args.audit:
            report_process(extra, args.repeat)

    if args.real:
        times = real_collections(args.real, rules, args.list)
        if times:
            print(
                f"  median {statistics.median(times) * 1000:.1f} ms per skill in process, "
                f"p95 {sorted(times)[int(len(times) * 0.95)] * 1000:.1f} ms"
            )

    dirs = mal + ben
    total_bytes = sum(f.stat().st_size for d in dirs for f in _files(d))
    base = min(_baseline(dirs) for _ in range(args.repeat))
    scans = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        for d in dirs:
            scan_path(d, rules=rules)
        scans.append(time.perf_counter() - t)
    best = min(scans)
    print(f"fixtures: {len(dirs)} skills, {total_bytes / 1024:.1f} KiB")
    print(f"scan throughput: {total_bytes / best / 1024 / 1024:.2f} MiB/s, {len(dirs) / best:.0f} skills/s")
    print(f"scan time / read-decode-split baseline: {best / base:.1f}x")

    big = "\n".join(
        f"Line {i}: run `python3 scripts/tool.py --input data/{i}.csv` and check output."
        for i in range(50_000)
    )
    t = time.perf_counter()
    scan_text(big, "SKILL.md", rules=rules)
    big_t = time.perf_counter() - t
    t = time.perf_counter()
    big.encode().decode().splitlines()
    big_base = time.perf_counter() - t
    print(
        f"large file ({len(big) / 1024 / 1024:.1f} MiB): {len(big) / big_t / 1024 / 1024:.2f} MiB/s, "
        f"{big_t / max(big_base, 1e-9):.0f}x baseline"
    )


def _baseline(dirs: list[Path]) -> float:
    """Time to read, decode and split every file: the floor any scanner pays."""
    t = time.perf_counter()
    n = 0
    for d in dirs:
        for f in _files(d):
            n += len(f.read_bytes().decode("utf-8", "replace").splitlines())
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
