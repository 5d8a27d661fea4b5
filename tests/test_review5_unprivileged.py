"""scripts/test_unprivileged.py gives `o+x` to the interpreter's ancestors (/root, say) for its run:
it must put their modes back however the run ends, a CI job's SIGTERM or a closed terminal included."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "test_unprivileged.py"


def _closed() -> dict[Path, int]:
    """The interpreter's ancestors others cannot traverse, with their modes: what the script opens."""
    exe = Path(os.path.realpath(sys.executable))
    return {d: stat.S_IMODE(d.stat().st_mode) for d in exe.parents if not d.stat().st_mode & stat.S_IXOTH}


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="the pass runs only as root")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_run_puts_every_mode_back(sig: signal.Signals) -> None:
    closed = _closed()
    if not closed:
        pytest.skip("the interpreter's ancestors are all traversable already: nothing is opened")
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while all(not d.stat().st_mode & stat.S_IXOTH for d in closed):
            assert proc.poll() is None and time.monotonic() < deadline, "the pass never opened them"
            time.sleep(0.01)
        time.sleep(0.5)  # the unprivileged pytest is under way
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        left = {d: stat.S_IMODE(d.stat().st_mode) for d in closed}
        for d, mode in closed.items():
            os.chmod(d, mode)  # the machine's modes back whatever the outcome
    assert left == closed
