"""Credential scrubbing throughput against literal-replace baselines in the same process (prints, asserts nothing).

    .venv/bin/python benchmarks/bench_scrub.py [--runs 15] [--mb 1] [--against OLD_SCRUB_PY]

Text: about 1 MB of typical command output (pip and compiler logs, paths, JSON,
hashes, wrapped base64, `key=value` lines), generated from a fixed seed, with
5 configured secrets, none of them printed. Figures:
- scrub with the 5 secrets, in MB/s;
- baselines over the same text: one `str.replace` of a literal, one `re.sub` of a literal;
- the ratio scrub / baseline (how many literal passes one scrub costs);
- the same text with each secret printed once in a different form (plain, upper-cased, split
  in groups of 4, base32, gzip+base64), the case where redactions happen.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import importlib.util
import json
import random
import re
import string

from skillyard.execution.scrub import scrub
from timing import paired_ms

SECRETS = (
    "Zq8vR2mK5wT9xLp3",
    "hunter2-but-longer-0042",
    "a8F3kL0qP2mZ7xW1e9Rt",
    "correct horse battery staple",
    "S3cr3t_DB_p4ss!",
)


def typical_output(size: int, seed: int = 7) -> str:
    """Deterministic text that looks like what skill commands print."""
    rnd = random.Random(seed)
    words = (
        "the of build install package module error warning info debug collected running test passed".split()
    )
    words += "failed compiling linking found version requirement satisfied download cache wheel".split()
    out: list[str] = []
    n = 0
    i = 0
    while n < size:
        kind = i % 9
        i += 1
        if kind == 0:
            line = f"Collecting {rnd.choice(words)}-{rnd.randint(0, 9)}.{rnd.randint(0, 30)} (from -r requirements.txt)"
        elif kind == 1:
            parts = "/".join(rnd.choice(words) for _ in range(rnd.randint(2, 6)))
            line = (
                f'  File "/usr/lib/python3.11/site-packages/{parts}.py", line {rnd.randint(1, 999)}, in run'
            )
        elif kind == 2:
            line = json.dumps(
                {"id": rnd.randint(0, 10**6), "name": rnd.choice(words), "ok": rnd.random() < 0.5}
            )
        elif kind == 3:
            line = f"sha256:{hashlib.sha256(str(i).encode()).hexdigest()}  dist/{rnd.choice(words)}.whl"
        elif kind == 4:
            blob = base64.b64encode(rnd.randbytes(rnd.randint(40, 120))).decode()
            line = "\n".join(blob[j : j + 76] for j in range(0, len(blob), 76))
        elif kind == 5:
            line = f"{rnd.choice(['DEBUG', 'INFO', 'WARN'])} config {rnd.choice(words)}={rnd.randint(0, 9999)} timeout=30"
        elif kind == 6:
            line = "gcc -O2 -Wall -c src/" + rnd.choice(words) + ".c -o build/" + rnd.choice(words) + ".o"
        elif kind == 7:
            line = " ".join(rnd.choice(words) for _ in range(rnd.randint(5, 14))) + "."
        else:
            line = "".join(
                rnd.choice(string.ascii_letters + string.digits) for _ in range(rnd.randint(8, 40))
            )
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)[:size]


def leaked_forms() -> str:
    """Each secret once, in a different form a model could otherwise read."""
    s = SECRETS
    grouped = " ".join(s[2][j : j + 4] for j in range(0, len(s[2]), 4))
    gz = base64.b64encode(gzip.compress(f"db={s[4]}\n".encode())).decode()
    return f"\n{s[0]}\n{s[1].upper()}\n{grouped}\n{base64.b32encode(s[3].encode()).decode()}\n{gz}\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--against", help="path of another scrub.py to time alternately with this one")
    args = ap.parse_args()
    size = int(args.mb * 1_000_000)
    text = typical_output(size)
    mb = len(text.encode()) / 1e6
    literal = re.compile(re.escape("needle-not-present-0042"))
    secrets = list(SECRETS)
    print(
        f"Scrub benchmark: {mb:.2f} MB of command output, {len(secrets)} configured secrets, median of {args.runs}"
    )

    def run_scrub() -> None:
        scrub(text, secrets)

    def run_replace() -> None:
        text.replace("needle-not-present-0042", "x")

    def run_resub() -> None:
        literal.sub("x", text)

    t_s, t_r = paired_ms(run_scrub, run_replace, args.runs, warmup=2)
    t_s2, t_re = paired_ms(run_scrub, run_resub, args.runs, warmup=2)
    t_s = min(t_s, t_s2)
    print(f"  {'scrub, no secret printed':<40} {t_s:8.2f} ms  {mb / t_s * 1000:7.1f} MB/s")
    print(f"  {'baseline str.replace of a literal':<40} {t_r:8.2f} ms  ratio {t_s / t_r:7.1f}x")
    print(f"  {'baseline re.sub of a literal':<40} {t_re:8.2f} ms  ratio {t_s / t_re:7.1f}x")
    leaky = text + leaked_forms()

    def run_leaky() -> None:
        scrub(leaky, secrets)

    t_l, t_r2 = paired_ms(run_leaky, run_replace, args.runs, warmup=2)
    out = scrub(leaky, secrets)
    marks = len(re.findall(r"\[REDACTED:[a-z0-9-]+\]", out)) - len(
        re.findall(r"\[REDACTED:[a-z0-9-]+\]", scrub(text, secrets))
    )
    print(
        f"  {'scrub, 5 secrets printed in 5 forms':<40} {t_l:8.2f} ms  {mb / t_l * 1000:7.1f} MB/s"
        f"  ratio {t_l / t_r2:7.1f}x  ({marks} extra redactions)"
    )
    if args.against:
        spec = importlib.util.spec_from_file_location("scrub_against", args.against)
        assert spec and spec.loader
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
        for label, body in (("no secret printed", text), ("5 secrets printed in 5 forms", leaky)):
            t_new, t_old = paired_ms(
                lambda b=body: scrub(b, secrets), lambda b=body: other.scrub(b, secrets), args.runs
            )
            print(
                f"  {label:<40} this {t_new:8.2f} ms, --against {t_old:8.2f} ms, this / against {t_new / t_old:5.2f}"
            )


if __name__ == "__main__":
    main()
