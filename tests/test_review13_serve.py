"""`skillyard serve` (stdio) stopped with SIGTERM: a second SIGTERM that arrives while the first one
removes the workspaces must stop the process, not hang it on a lock the interrupted clean-up holds."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, threading
    from skillyard._cli_serve import _stop_on_signals

    class Server:
        # a clean-up that takes a lock of its own (as the workspace manager does) and is
        # interrupted, while holding it, by the host's second SIGTERM
        lock = threading.Lock()

        def close(self):
            with self.lock:
                signal.raise_signal(signal.SIGTERM)
                sys.stdout.write("closed\\n")
                sys.stdout.flush()

    _stop_on_signals(Server())
    signal.raise_signal(signal.SIGTERM)
    sys.stdout.write("survived\\n")
    """
)


def test_a_second_sigterm_during_the_clean_up_stops_the_server(tmp_path: Path) -> None:
    script = tmp_path / "stop.py"
    script.write_text(SCRIPT)
    src = str(Path(__file__).resolve().parents[1] / "src")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env={"PYTHONPATH": src})
    try:
        out, _ = proc.communicate(timeout=60)  # a hang guard, not a measurement
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the server hung on its second SIGTERM") from None
    assert proc.returncode == -signal.SIGTERM
    assert b"survived" not in out


def test_a_flood_of_fresh_sessions_does_not_push_out_another_clients() -> None:
    """Sessions whose id has not come back yet are capped per client: one client's flood of calls
    that never echo their id evicts its own, not the session another client is about to come back to
    (and the workspace its first run left)."""
    from skillyard.mcp.server import MAX_UNECHOED_SESSIONS, _SessionStore

    store = _SessionStore()
    alice = store._new("alice", unechoed=True)[0]
    flood = [store._new("mallory", unechoed=True)[0] for _ in range(MAX_UNECHOED_SESSIONS + 50)]
    assert ("alice", alice) in store._by_id
    gone = {s.session_id for s, _lock in store.take_evicted()}
    assert gone == set(flood[:50])  # the flooder's own oldest
    assert alice not in gone


def test_a_root_re_pointed_at_the_file_system_root_is_not_watched(tmp_path: Path) -> None:
    """--watch follows a root replaced while serving; a root swapped for a link to `/` must not have the
    watcher put on every file of the machine (it counts as no folder, like a root that went away)."""
    from skillyard.mcp.server import _identity

    root = tmp_path / "skills"
    root.mkdir()
    assert _identity(str(root)) is not None
    root.rmdir()
    root.symlink_to("/")
    assert _identity(str(root)) is None
    assert _identity("/") is None
