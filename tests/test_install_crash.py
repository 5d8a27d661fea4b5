"""Crash safety: SIGKILL a forced update at random points; the installed tree is always
complete (old or new, never a mix) and the lockfile agrees once skillyard opens the root again."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from skillyard.install import Installer, Lockfile, is_modified, tree_hash

WORKER = r"""
import sys
from skillyard.install import Installer
root, a, b = sys.argv[1:4]
inst = Installer(root)
print("ready", flush=True)
i = 0
while True:
    res = inst.install(a if i % 2 else b, force=True)
    assert res.installed, res.to_dict()
    i += 1
    print(i, flush=True)
"""


def make_version(d: Path, tag: str, files: int) -> Path:
    """A skill whose every file carries the version tag, so a mix of versions is detectable."""
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: demo\ndescription: Demo {tag}.\n---\nVersion {tag}.\n")
    for i in range(files):
        sub = d / f"part{i % 7}"
        sub.mkdir(exist_ok=True)
        (sub / f"f{i}.txt").write_text(f"{tag}\n" * 50)
    return d


def test_sigkill_during_forced_updates(tmp_path: Path) -> None:
    root = tmp_path / "root"
    a = make_version(tmp_path / "a" / "demo", "A", 60)
    b = make_version(tmp_path / "b" / "demo", "B", 45)
    inst = Installer(root)
    assert inst.install(str(a)).installed
    hashes = {tree_hash(a).digest: "A", tree_hash(b).digest: "B"}
    rng = random.Random(20260101)
    kills = 0
    for _ in range(16):
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), str(a), str(b)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        # let a random number of updates complete, then kill after a random delay: kills land
        # anywhere in the fetch/scan/commit cycle, before the first commit or in a later one
        for _ in range(rng.randint(0, 2)):
            assert proc.stdout.readline().strip()
        time.sleep(rng.uniform(0.0, 0.4))
        os.killpg(proc.pid, signal.SIGKILL)
        _out, _err = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL, _err
        kills += 1

        target = root / "demo"
        digest = tree_hash(target).digest
        assert digest in hashes, "installed tree is a mix of versions or incomplete"
        tags = {p.read_text().splitlines()[0] for p in target.rglob("f*.txt")}
        assert len(tags) == 1
        # readers see a consistent state even before any repair: pending journals are honoured in memory
        assert is_modified(root, "demo", target) is False
        # the next skillyard operation repairs the on-disk lockfile and clears staging
        Installer(root).recover()
        entry = Lockfile.load(root, apply_journals=False).get("demo")
        assert entry is not None and entry.tree_hash == digest
        assert list((root / ".staging").iterdir()) == []
        leftovers = [
            p.name
            for p in root.iterdir()
            if p.name not in ("demo", "skills.lock", ".staging", ".install.lock")
        ]
        assert all(n.startswith(".skills.lock.") for n in leftovers), leftovers
    assert kills == 16


STEP_WORKER = r"""
import os, signal, sys
import skillyard.install.installer as ins
import skillyard.install.lockfile as lf
root, src, target_step = sys.argv[1], sys.argv[2], int(sys.argv[3])
count = [0]

def step(fn):
    def wrapper(*a, **k):
        if count[0] == target_step:
            os.kill(os.getpid(), signal.SIGKILL)
        count[0] += 1
        out = fn(*a, **k)
        if count[0] == target_step and target_step % 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    return wrapper

# every filesystem step of the commit: journal write, swap (exchange or renames), lockfile write
ins.atomic_write_json = step(ins.atomic_write_json)
ins.exchange = step(ins.exchange)
lf.atomic_write_json = step(lf.atomic_write_json)
res = ins.Installer(root).install(src, force=True)
print("completed", res.installed)
"""


def test_sigkill_at_every_commit_step(tmp_path: Path) -> None:
    """Deterministic counterpart of the random test: die before and after each commit step."""
    root = tmp_path / "root"
    a = make_version(tmp_path / "a" / "demo", "A", 10)
    b = make_version(tmp_path / "b" / "demo", "B", 12)
    assert Installer(root).install(str(a)).installed
    hashes = {tree_hash(a).digest, tree_hash(b).digest}
    outcomes = set()
    for step in range(8):
        proc = subprocess.run(
            [sys.executable, "-c", STEP_WORKER, str(root), str(b if step % 2 == 0 else a), str(step)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        outcomes.add(proc.returncode)
        digest = tree_hash(root / "demo").digest
        assert digest in hashes
        assert is_modified(root, "demo", root / "demo") is False
        Installer(root).recover()
        entry = Lockfile.load(root, apply_journals=False).get("demo")
        assert entry is not None and entry.tree_hash == digest
    assert -signal.SIGKILL in outcomes and 0 in outcomes, (
        outcomes
    )  # interrupted steps, and runs past the last step
