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
    progressed = 0
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
        # a random delay once imports are done: kills land anywhere in the install/commit cycle
        time.sleep(rng.uniform(0.0, 0.6))
        os.killpg(proc.pid, signal.SIGKILL)
        out, _err = proc.communicate(timeout=30)
        progressed += bool(out.strip())
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
    assert progressed >= 8  # most workers were killed after completing updates, mid-stream
