"""A cold scan shared with a forked process gives exactly what one process gives."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

import skillyard.registry as registry_module
from skillyard import cache as cache_mod
from skillyard import discovery, parallel
from skillyard.discovery import Root, Walker
from skillyard.eligibility import Host
from skillyard.registry import Registry

FIXTURES = Path(__file__).parent / "fixtures" / "parsing"

pytestmark = pytest.mark.skipif(
    not (hasattr(os, "fork") and parallel.workers() >= 2 and os.uname().sysname == "Linux"),
    reason="the split scan needs Linux, fork and two usable CPUs",
)


def _host() -> Host:
    return Host(env={"PATH": ""}, os_name="linux", path="")


def _alone() -> None:
    """A fork needs this to be the process's only thread; threads an earlier test left behind
    (a server's worker pool winding down) get a few seconds to finish."""
    deadline = time.monotonic() + 10
    while not parallel._one_os_thread() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not parallel._one_os_thread():
        pytest.skip(f"other threads are still running in this test process: {threading.enumerate()}")


@pytest.fixture
def small_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split even small trees, so the tests stay fast."""
    _alone()
    monkeypatch.setattr(parallel, "MIN_ITEMS", 4)
    monkeypatch.delenv(parallel.ENV, raising=False)


def _corpus(root: Path, make_skill) -> None:
    """Every kind of entry a walk meets, spread over both halves of the top listing."""
    for i in range(40):
        make_skill(
            root,
            f"s{i:02d}",
            extra='metadata: {"openclaw": {"requires": {"bins": ["gh"], "env": ["TOKEN"]}, '
            '"install": [{"kind": "brew", "formula": "gh", "bins": ["gh"]}]}}'
            if i % 3 == 0
            else "license: MIT",
        )
    make_skill(root / "nested" / "deeper", "n1")
    make_skill(root, "dup", dirname="zz-dup")  # same name twice: the second is shadowed
    make_skill(root, "dup", dirname="aa-dup", description="The first dup.")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_bytes(b"---\nname: broken\n\x00\x01binary\n---\n")
    (root / "nodesc").mkdir()
    (root / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\nbody\n")
    (root / "warned").mkdir()
    (root / "warned" / "SKILL.md").write_text("---\nname: other-name\ndescription: d\n---\n")
    for fixture in FIXTURES.iterdir():
        shutil.copytree(fixture, root / f"zz-{fixture.name}")
    (root / ".hidden").mkdir()
    make_skill(root / ".hidden", "hidden")


def _corpus_and_single_scan(root: Path, make_skill, monkeypatch: pytest.MonkeyPatch) -> Registry:
    """The corpus, and what one process makes of it (the reference every split is held to)."""
    _corpus(root, make_skill)
    monkeypatch.setenv(parallel.ENV, "1")
    single = Registry([Root(root, "custom")], host=_host())
    monkeypatch.delenv(parallel.ENV)
    return single


def _same(a: Registry, b: Registry) -> None:
    assert a.names() == b.names()
    assert a.diagnostics == b.diagnostics
    for x, y in zip(a.skills, b.skills, strict=True):
        assert cache_mod.skill_to_row(x) == cache_mod.skill_to_row(y), x.name
        assert x.body() == y.body()
    assert a._counts() == b._counts()


def test_split_scan_equals_a_single_process_scan(
    tmp_path: Path, make_skill, small_split, monkeypatch
) -> None:
    root = tmp_path / "r"
    _corpus(root, make_skill)
    split = Registry([Root(root, "custom")], host=_host())
    assert split.split_scans == 1
    monkeypatch.setenv(parallel.ENV, "1")
    single = Registry([Root(root, "custom")], host=_host())
    assert single.split_scans == 0
    _same(split, single)
    # the other process's skills are built from their packed rows on first use
    assert any(e._rows is not None for e in split._files.values()) or not split._files


def test_split_scan_then_cache_then_second_start(tmp_path: Path, make_skill, small_split) -> None:
    root = tmp_path / "r"
    _corpus(root, make_skill)
    cache_file = tmp_path / "cache"
    first = Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert first.split_scans == 1 and cache_file.is_file()
    second = Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert second.split_scans == 0  # a cache is there: validated, not parsed
    _same(first, second)


@pytest.mark.parametrize("failure", ["raises", "exits", "too-big"])
def test_a_failed_part_is_done_in_process(
    tmp_path: Path, make_skill, small_split, monkeypatch, failure: str
) -> None:
    root = tmp_path / "r"
    single = _corpus_and_single_scan(root, make_skill, monkeypatch)

    def broken(*args):
        if failure == "raises":
            raise RuntimeError("worker failed")
        os._exit(9)

    if failure == "too-big":
        monkeypatch.setattr(parallel, "CAPACITY", 4096)
    else:
        monkeypatch.setattr(registry_module, "_scan_part", broken)
    reg = Registry([Root(root, "custom")], host=_host())
    assert reg.split_scans == 1
    _same(reg, single)
    assert all(e._rows is None for e in reg._files.values())  # everything parsed here


def test_malformed_part_data_is_not_trusted(tmp_path: Path, make_skill, small_split, monkeypatch) -> None:
    root = tmp_path / "r"
    single = _corpus_and_single_scan(root, make_skill, monkeypatch)
    real = registry_module._scan_part
    for mangle in (
        lambda d: d[:-1],
        lambda d: (d[0][:-1], *d[1:]),
        lambda d: (*d[:9], d[9][:-1], d[10]),
        lambda d: "not a tuple",
    ):
        monkeypatch.setattr(registry_module, "_scan_part", lambda *a, m=mangle: m(real(*a)))
        _same(Registry([Root(root, "custom")], host=_host()), single)


def test_symlinks_into_one_directory_from_both_halves(
    tmp_path: Path, make_skill, small_split, monkeypatch
) -> None:
    """A directory entered through links from both parts is entered once, as in one walk."""
    root = tmp_path / "r"
    make_skill(root / "shared-target", "inner")
    for i in range(10):
        make_skill(root, f"s{i}")
    os.symlink(root / "shared-target", root / "a-link")
    os.symlink(root / "shared-target", root / "z-link")
    split = Registry([Root(root, "custom")], host=_host())
    monkeypatch.setenv(parallel.ENV, "1")
    single = Registry([Root(root, "custom")], host=_host())
    _same(split, single)


def test_no_fork_when_disabled_small_or_threaded(tmp_path: Path, make_skill, monkeypatch) -> None:
    _alone()
    root = tmp_path / "r"
    for i in range(6):
        make_skill(root, f"s{i}")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 4)
    monkeypatch.setenv(parallel.ENV, "1")
    assert Registry([Root(root, "custom")]).split_scans == 0
    monkeypatch.setenv(parallel.ENV, "not-a-number")
    assert Registry([Root(root, "custom")]).split_scans == 0
    monkeypatch.delenv(parallel.ENV)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 100)
    assert Registry([Root(root, "custom")]).split_scans == 0
    monkeypatch.setattr(parallel, "MIN_ITEMS", 4)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert Registry([Root(root, "custom")]).split_scans == 0  # never fork with another thread alive
    finally:
        stop.set()
        other.join()
    assert Registry([Root(root, "custom")]).split_scans == 1


def test_split_runs_child_and_parent_parts() -> None:
    _alone()
    items = list(range(3000))
    mine, theirs, tail = parallel.split(items, lambda t: [x * 2 for x in t], lambda h: [x * 2 for x in h])
    assert theirs is not None and mine + theirs == [x * 2 for x in items]
    assert list(tail) == items[len(mine) :]


def _age(root: Path) -> None:
    past = time.time_ns() - 60_000_000_000
    for dirpath, dirnames, filenames in os.walk(root):
        for n in [*dirnames, *filenames]:
            os.utime(os.path.join(dirpath, n), ns=(past, past), follow_symlinks=False)
    os.utime(root, ns=(past, past))


def test_second_start_checks_half_the_files_in_a_fork(
    tmp_path: Path, make_skill, small_split, monkeypatch
) -> None:
    monkeypatch.setattr(discovery, "RACY_NS", 0)  # the tree was just made (see test_discovery_replay)
    root = tmp_path / "r"
    _corpus(root, make_skill)
    _age(root)
    cache_file = tmp_path / "cache"
    Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    walked: list[str] = []
    real = Walker.top_entries
    monkeypatch.setattr(Walker, "top_entries", lambda self: (walked.append(self.top), real(self))[1])
    last = sorted(root.glob("s*/SKILL.md"))[-1]  # in the half the other process checks
    with open(last, "a") as f:  # an edit in place changes no directory
        f.write("\nAn appended line.\n")
    splits: list[int] = []
    real_split = parallel.split
    monkeypatch.setattr(
        parallel, "split", lambda items, *a, **k: (splits.append(len(items)), real_split(items, *a, **k))[1]
    )
    second = Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert walked == [] and splits == [len(second._files)]  # replayed (not listed), in two processes
    monkeypatch.setenv(parallel.ENV, "1")
    single = Registry([Root(root, "custom")], host=_host())
    _same(second, single)
    assert "An appended line." in second.get(last.parent.name).body()


def test_directory_budget_running_out_in_the_first_part(
    tmp_path: Path, make_skill, small_split, monkeypatch
) -> None:
    """One walk stops at the first directory it cannot descend into; the split one too."""
    root = tmp_path / "r"
    for i in range(10):
        (root / f"a{i}" / "empty").mkdir(parents=True)  # plain directories, each costs budget
        make_skill(root, f"z{i}")
    monkeypatch.setattr(discovery, "MAX_DIRS_PER_ROOT", 5)
    split = Registry([Root(root, "custom")], host=_host())
    assert split.split_scans == 1
    monkeypatch.setenv(parallel.ENV, "1")
    single = Registry([Root(root, "custom")], host=_host())
    _same(split, single)
    assert any(d.code == "walk-limit" for d in split.diagnostics)


def test_descriptors_above_1023_do_not_break_the_wait(tmp_path: Path, make_skill, small_split) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the open-file limit ({hard}) is too low to reach descriptor 1024")
    root = tmp_path / "r"
    for i in range(20):
        make_skill(root, f"s{i}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = []
    try:
        while len(held) < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        reg = Registry([Root(root, "custom")], host=_host())
        assert reg.split_scans == 1 and len(reg) == 20
        assert any(e._rows is not None for e in reg._files.values())  # the other part arrived
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_interrupts_at_any_moment_leave_nothing_behind() -> None:
    """A signal handler that raises (Ctrl-C, a timeout) at a random point of a split: no
    descriptor, child or blocked signal is left over, and the caller sees the exception."""
    import random
    import signal

    _alone()

    class Interrupted(Exception):
        pass

    def fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    def raise_interrupted(signum, frame):
        raise Interrupted

    def drain() -> None:  # children of earlier splits hold a pidfd until they are reaped
        deadline = time.monotonic() + 5
        while parallel._UNREAPED and time.monotonic() < deadline:
            time.sleep(0.01)
            parallel._reap_finished()

    drain()
    previous = signal.signal(signal.SIGALRM, raise_interrupted)
    before = fds()
    rnd = random.Random(7)
    interrupted = 0
    try:
        for _ in range(300):
            try:
                signal.setitimer(signal.ITIMER_REAL, rnd.uniform(0.00005, 0.0015))
                parallel.split(list(range(10)), sum, sum)
                time.sleep(0.002)
            except Interrupted:
                interrupted += 1
            while True:  # the timer may fire while it is being switched off
                try:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    break
                except Interrupted:
                    interrupted += 1
            assert not signal.pthread_sigmask(signal.SIG_BLOCK, ())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    drain()
    assert interrupted > 100  # most iterations were interrupted, at every stage of a split
    assert fds() == before and not parallel._UNREAPED
