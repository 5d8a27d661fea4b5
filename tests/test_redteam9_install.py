"""Installs, updates and uninstalls interrupted by Ctrl-C or stopped by a full disk.

Whatever stops a commit, the skill on disk and its `skills.lock` entry agree afterwards (the old
version or the new one, complete), and the next command finds nothing to trip over. The full-disk
cases run in a child with its own mount namespace and a small tmpfs as the install root.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from namespaces import MOUNT_TMPFS, unshare_prefix
from skillyard.install import Installer, Lockfile, is_modified, tree_hash

SRC = Path(__file__).resolve().parents[1] / "src"
ENV = {**os.environ, "PYTHONPATH": str(SRC)}


def make_version(d: Path, tag: str, files: int = 6) -> Path:
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: demo\ndescription: Demo {tag}.\n---\nVersion {tag}.\n")
    for i in range(files):
        (d / f"f{i}.txt").write_text(f"{tag}\n" * 40)
    return d


def assert_consistent(root: Path, hashes: set[str]) -> str:
    """The installed tree is one whole version and the lockfile vouches for it, before and after repair."""
    target = root / "demo"
    digest = tree_hash(target).digest
    assert digest in hashes, "the installed tree is a mix of versions or incomplete"
    assert is_modified(root, "demo", target) is False, "the lockfile no longer vouches for the installed tree"
    Installer(root).recover()
    entry = Lockfile.load(root, apply_journals=False).get("demo")
    assert entry is not None and entry.tree_hash == digest
    assert list((root / ".staging").iterdir()) == []
    return digest


# Pauses right after the swap that puts the new tree in place, until the parent interrupts it.
SWAP_PAUSE = r"""
import sys
import skillyard.install.installer as ins
root, src = sys.argv[1:3]
real = ins.exchange
def paused(a, b):
    done = real(a, b)
    print("swapped", done, flush=True)
    sys.stdin.readline()
    return done
ins.exchange = paused
res = ins.Installer(root).install(src, force=True)
print("completed", res.installed, flush=True)
"""


def test_ctrl_c_right_after_the_swap_keeps_skill_and_lockfile_in_step(tmp_path: Path) -> None:
    root = tmp_path / "root"
    a = make_version(tmp_path / "a" / "demo", "A")
    b = make_version(tmp_path / "b" / "demo", "B", 9)
    assert Installer(root).install(str(a)).installed
    hashes = {tree_hash(a).digest, tree_hash(b).digest}
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAP_PAUSE, str(root), str(b)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "swapped True":
        proc.kill()
        proc.communicate()
        pytest.skip(f"no atomic exchange on this filesystem ({line!r})")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert "KeyboardInterrupt" in err
    assert_consistent(root, hashes)
    # and the next update goes through
    res = Installer(root).install(str(b), force=True)
    assert res.installed, res.to_dict()
    assert assert_consistent(root, hashes) == tree_hash(b).digest


PREFIX = unshare_prefix("m", MOUNT_TMPFS)
needs_tmpfs = pytest.mark.skipif(
    PREFIX is None,
    reason="needs a private mount namespace where a tmpfs may be mounted (root, or user namespaces)",
)

# Runs inside its own mount namespace with a small tmpfs at argv[1] holding the install root.
# Before the commit writes its first byte the disk is filled to `leave` free pages (or inodes),
# for leave = 0, 1, 2, ...: the commit's writes then fail at every point in turn.
FULL_DISK = r"""
import errno, json, os, shutil, sys
from pathlib import Path
import skillyard.install.installer as ins
import skillyard.install.fsutil as fsutil
import skillyard.install.lockfile as lockfile
from skillyard.install import Installer, Lockfile, is_modified, tree_hash

mnt, srcs, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
root = mnt / "root"
fill = mnt / "fill"
state = {"leave": None}

def fill_up(leave):
    fill.mkdir(exist_ok=True)
    if mode == "space":
        fd = os.open(fill / "blob", os.O_WRONLY | os.O_CREAT)
        size = 0
        try:
            while True:
                size += os.write(fd, b"x" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
        os.ftruncate(fd, max(0, (size // 4096 - leave) * 4096))
        os.close(fd)
    else:
        made = []
        try:
            while True:
                p = fill / f"i{len(made)}"
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT))
                made.append(p)
        except OSError as e:
            assert e.errno == errno.ENOSPC
        for p in made[:leave]:
            p.unlink()

def empty():
    shutil.rmtree(fill, ignore_errors=True)

def first_write(real):
    def wrapper(*args):
        if state["leave"] is not None:
            fill_up(state["leave"])
            state["leave"] = None
        return real(*args)
    return wrapper
for module in (fsutil, ins, lockfile):  # whichever write comes first in a commit
    for fn in ("write_temp", "atomic_write_json"):
        if hasattr(module, fn):
            setattr(module, fn, first_write(getattr(module, fn)))

inst = Installer(root)
for i in range(30):  # a lockfile several pages long
    assert inst.install(str(srcs / f"s{i:02d}")).installed
a, b = srcs / "a" / "demo", srcs / "b" / "demo"
seen = []
for op in ("update", "uninstall"):
    for leave in range(6):
        empty()
        if not (root / "demo").exists() or tree_hash(root / "demo") != tree_hash(a):
            assert inst.install(str(a), force=True).installed
        state["leave"] = leave
        if op == "update":
            res = inst.install(str(b), force=True).to_dict()
            ok = res["installed"]
        else:
            res = inst.uninstall("demo")
            ok = res["uninstalled"]
        state["leave"] = None
        target = root / "demo"
        entry = Lockfile.load(root).get("demo")
        seen.append({
            "op": op,
            "leave": leave,
            "ok": ok,
            "reason": res.get("reason", ""),
            "tree": tree_hash(target).digest if target.exists() else None,
            "lock": entry.tree_hash if entry else None,
            "modified": is_modified(root, "demo", target) if target.exists() else None,
        })
        empty()
        inst.recover()
        seen[-1]["staging"] = sorted(os.listdir(root / ".staging"))
        seen[-1]["strays"] = sorted(n for n in os.listdir(root) if n.endswith(".tmp"))
print(json.dumps(seen))
"""


@needs_tmpfs
@pytest.mark.parametrize(("mode", "options"), [("space", "size=4m"), ("inodes", "size=64m,nr_inodes=1000")])
def test_a_full_disk_during_update_or_uninstall_changes_nothing_or_completes(
    tmp_path: Path, mode: str, options: str
) -> None:
    srcs = tmp_path / "srcs"
    for i in range(30):
        d = srcs / f"s{i:02d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i:02d}\ndescription: Filler skill {i}.\n---\nBody.\n")
    a = make_version(srcs / "a" / "demo", "A")
    b = make_version(srcs / "b" / "demo", "B", 9)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    shell = 'mount -t tmpfs -o "$1" tmpfs "$2" && shift 2 && exec "$@"'
    assert PREFIX is not None
    cp = subprocess.run(
        [
            *PREFIX,
            "sh",
            "-c",
            shell,
            "sh",
            options,
            str(mnt),
            sys.executable,
            "-c",
            FULL_DISK,
            str(mnt),
            str(srcs),
            mode,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=ENV,
    )
    assert cp.returncode == 0, cp.stderr[-3000:]
    seen = json.loads(cp.stdout)
    ha, hb = tree_hash(a).digest, tree_hash(b).digest
    failures = 0
    for s in seen:
        where = f"{s['op']} with {s['leave']} {mode} left: {s}"
        if not s["ok"]:
            failures += 1
            assert "No space left" in s["reason"], where
            assert s["tree"] == ha and s["lock"] == ha and s["modified"] is False, where  # nothing changed
        elif s["op"] == "update":
            assert s["tree"] == hb and s["lock"] == hb and s["modified"] is False, where
        else:
            assert s["tree"] is None and s["lock"] is None, where
        assert s["staging"] == [] and s["strays"] == [], where
    assert failures, "the disk was never full enough to stop a commit"


def test_staging_folders_named_after_no_possible_process_neither_crash_nor_stay(tmp_path: Path) -> None:
    root = tmp_path / "root"
    a = make_version(tmp_path / "a" / "demo", "A")
    past_any_pid = root / ".staging" / f"op-{'9' * 30}-x"
    past_any_pid.mkdir(parents=True)
    (root / ".staging" / "op-\u00b2-x").mkdir()  # a digit to str.isdigit, not to int()
    res = Installer(root).install(str(a))
    assert res.installed, res.to_dict()
    assert not past_any_pid.exists()


# Dies right before the n-th filesystem step of an uninstall (temp files, journal, renames).
UNINSTALL_STEP = r"""
import os, signal, sys
import skillyard.install.installer as ins
root, target_step = sys.argv[1], int(sys.argv[2])
count = [0]
def step(fn):
    def wrapper(*a, **k):
        if count[0] == target_step:
            os.kill(os.getpid(), signal.SIGKILL)
        count[0] += 1
        return fn(*a, **k)
    return wrapper
for name in ("write_temp", "atomic_write_json"):
    if hasattr(ins, name):
        setattr(ins, name, step(getattr(ins, name)))
os.rename = step(os.rename)
os.replace = step(os.replace)
print(ins.Installer(root).uninstall("demo"))
"""


def test_an_uninstall_killed_at_any_step_never_leaves_an_entry_without_its_skill(tmp_path: Path) -> None:
    a = make_version(tmp_path / "a" / "demo", "A")
    outcomes = set()
    for step in range(6):
        root = tmp_path / f"root{step}"
        assert Installer(root).install(str(a)).installed
        cp = subprocess.run(
            [sys.executable, "-c", UNINSTALL_STEP, str(root), str(step)],
            env=ENV,
            capture_output=True,
            timeout=120,
        )
        outcomes.add(cp.returncode)
        for _ in range(2):  # as readers see it, then after the next operation's repair
            entry = Lockfile.load(root).get("demo")
            present = (root / "demo").exists()
            assert present == (entry is not None), f"step {step}: folder {present}, entry {entry}"
            if present:
                assert entry is not None and entry.tree_hash == tree_hash(root / "demo").digest
            Installer(root).recover()
        assert list((root / ".staging").iterdir()) == []
    assert -signal.SIGKILL in outcomes and 0 in outcomes, outcomes
