"""A run whose call was cancelled while it was being set up (a big skill's copy, a Ray upload)
never starts its program: real processes, counted, never timed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from skillyard.execution.base import CANCELLED, ExecSpec, Limits, run_cancellable, supervise
from skillyard.execution.local import LocalExecutor


def test_a_run_started_after_the_cancel_never_spawns(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    ran = 0
    for _ in range(20):
        stop = threading.Event()
        stop.set()
        res = run_cancellable(
            stop,
            supervise,
            ["/bin/touch", str(marker)],
            cwd=str(tmp_path),
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            timeout=30,
            limits=Limits(),
        )
        assert CANCELLED in res.warnings and res.exit_code != 0
        ran += marker.exists()
        marker.unlink(missing_ok=True)
    assert ran == 0


def test_the_local_executor_starts_nothing_once_cancelled(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    stop = threading.Event()
    stop.set()
    spec = ExecSpec(argv=["/bin/sh", "-c", f"echo x > {marker}"], cwd=str(tmp_path), env={}, timeout=30)
    res = run_cancellable(stop, LocalExecutor().run, spec)
    assert CANCELLED in res.warnings
    assert not marker.exists()


def test_a_run_not_cancelled_still_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    res = run_cancellable(
        threading.Event(),
        supervise,
        ["/bin/touch", str(marker)],
        cwd=str(tmp_path),
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        timeout=30,
        limits=Limits(),
    )
    assert res.exit_code == 0 and marker.exists()
