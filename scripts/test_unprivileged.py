"""Run the isolation tests a second time as an unprivileged user, when the suite runs as root.

The sandbox takes a different path as root (it must switch to another uid itself) than as a
user (it already is one), and a skill once reached host root through the first path only. So
`make test` runs every isolation test both ways: as root through the main pytest run, and here
as uid 47211, a uid with no passwd entry, dropped with `setpriv` (no groups, no capabilities).

That uid must be able to reach the checkout and the interpreter: their ancestors that others
cannot traverse (a clone or a pyenv Python under /root, say) get `o+x` for the run (traverse only, not list) and their modes back
afterwards. Not root: nothing to do, the main run already was the unprivileged one.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

UID = 47211
REPO = Path(__file__).resolve().parent.parent
#: Every test that checks what a skill, a model or a client can reach on the host.
FILES = (
    "test_sandbox_*.py",
    "test_redteam*.py",
    "test_escape_chain.py",
    "test_discovery_swap.py",
    "test_execution_sandbox_runner.py",
    "test_execution_rlimits.py",
    "test_run_cancel.py",
    "test_review14_cancel.py",
    "test_adapters_cancel.py",
)


def _open_ancestors(*paths: Path) -> list[tuple[Path, int]]:
    """Give `o+x` to each ancestor of `paths` that lacks it; the old modes, to restore."""
    changed = []
    for d in sorted({d for p in paths for d in p.parents}, key=lambda d: len(d.parts)):
        mode = stat.S_IMODE(d.stat().st_mode)
        if not mode & stat.S_IXOTH:
            os.chmod(d, mode | stat.S_IXOTH)
            changed.append((d, mode))
    return changed


def _stop(signum: int, _frame: object) -> None:
    """SIGTERM (a CI job's timeout) or SIGHUP (a closed terminal) ends the pass like Ctrl-C does:
    through `main`'s `finally`, so /root is never left traversable, and `subprocess.run` kills pytest."""
    raise SystemExit(128 + signum)


def main() -> int:
    if os.geteuid() != 0:
        print("unprivileged pass: not root, the main run already was one")
        return 0
    setpriv = shutil.which("setpriv")
    if setpriv is None:  # fail closed: a skipped pass must not read as a passed one
        print("unprivileged pass: setpriv (util-linux) is needed as root", file=sys.stderr)
        return 1
    files = sorted({str(p.relative_to(REPO)) for pattern in FILES for p in (REPO / "tests").glob(pattern)})
    home = Path(tempfile.mkdtemp(prefix="skillyard-unprivileged-"))
    os.chown(home, UID, UID)
    # installs by the model refuse temp dirs, so some tests need a writable place outside them
    scratch = Path(tempfile.mkdtemp(prefix="skillyard-test-scratch-", dir="/var/lib"))
    os.chown(scratch, UID, UID)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop)
    opened = _open_ancestors(
        REPO / "tests", Path(os.path.realpath(sys.executable)), Path(sys.base_prefix) / "lib"
    )
    try:
        argv = [
            setpriv,
            f"--reuid={UID}",
            f"--regid={UID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
            "env",
            "-i",
            f"HOME={home}",
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "PYTHONDONTWRITEBYTECODE=1",
            f"SKILLYARD_TEST_SCRATCH={scratch}",
            f"HYPOTHESIS_STORAGE_DIRECTORY={home / '.hypothesis'}",  # the checkout is not writable
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--basetemp={home / 'pytest'}",
            *files,
        ]
        print(f"unprivileged pass: {len(files)} files as uid {UID}", flush=True)
        rc = subprocess.run(argv, cwd=REPO).returncode
    finally:
        for d, mode in reversed(opened):
            os.chmod(d, mode)
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    if rc == 5:
        print("unprivileged pass: pytest collected no tests: failing", file=sys.stderr)
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
