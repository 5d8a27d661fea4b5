"""`skillyard serve` (stdio) stopped the way MCP hosts stop it: SIGTERM.

An IDE restarts its MCP servers many times a day; each stop is a SIGTERM (after closing stdin, or
straight away). The server died of the signal without running its clean-up, so the `skill_run`
workspace of every client session stayed in the temporary directory, one more per restart. It now
removes them, then dies of the signal as before, with or without a run in flight.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_mcp_support import INIT, make_tree, subprocess_env


def _workspaces(tmp: Path) -> list[Path]:
    root = tmp / f"skillyard-workspaces-{os.getuid()}"
    return [p for p in root.iterdir() if p.name.startswith("ws_")] if root.exists() else []


@pytest.mark.parametrize("in_flight", [False, True])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_removes_the_session_workspaces(tmp_path: Path, in_flight: bool, signum: int) -> None:
    """SIGTERM is how hosts stop a stdio server, Ctrl-C how a person in a terminal does (it did nothing
    while stdin stayed open; a second one exited with a traceback): the workspaces go, then the process
    dies of the signal."""
    root = make_tree(tmp_path / "skills")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**subprocess_env(tmp_path / "home"), "TMPDIR": str(temp)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillyard", "--root", str(root), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's shell starts it
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    try:
        send(INIT)
        assert json.loads(proc.stdout.readline())["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # the first run finishes; with in_flight a second one is still running
        run = {"skill": "pdf-tools", "command": "true"}
        send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "skill_run", "arguments": run},
            }
        )
        reply = json.loads(proc.stdout.readline())
        assert reply["id"] == 2 and not reply["result"]["isError"], reply
        assert len(_workspaces(temp)) == 1
        if in_flight:
            held = {"skill": "pdf-tools", "command": "mkdir -p out && touch out/started && sleep 30"}
            send(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "skill_run", "arguments": held},
                }
            )
            ws = _workspaces(temp)[0]
            while not list(ws.rglob("started")):
                assert proc.poll() is None
                time.sleep(0.05)
        proc.send_signal(signum)  # stdin stays open
        assert proc.wait(timeout=30) == -signum
        assert b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _workspaces(temp) == []


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_serving_keeps_the_processes_collector_thresholds(tmp_path: Path, transport: str) -> None:
    """Every command sizes the young generation for the registry it builds once (200,000 objects);
    a server that then serves for weeks went on with it, so each closed connection's cycles piled up
    (RSS +21 MB over 500 connections, still growing) until one long collection walked them all.
    What the serving loop starts with is the process's own thresholds again."""
    root = make_tree(tmp_path / "skills")
    probe = (
        "import gc, sys\n"
        "import uvicorn\n"
        "from skillyard.mcp.server import SkillyardServer\n"
        "def serving(*args, **kwargs):\n"
        "    print('serving with', gc.get_threshold(), flush=True)\n"
        "SkillyardServer.run = serving\n"
        "uvicorn.Server.run = serving\n"
        "from skillyard.cli import main\n"
        "gc.set_threshold(900, 11, 12)\n"
        f"main(['--root', {str(root)!r}, 'serve', '--transport', {transport!r}, '--port', '0'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env=subprocess_env(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "serving with (900, 11, 12)" in out.stdout, out.stdout + out.stderr


def test_sigterm_to_an_http_server_removes_the_session_workspaces(tmp_path: Path) -> None:
    """uvicorn stops on SIGTERM by raising the signal again once the app has shut down, so the
    command's own clean-up never ran and every stop left the clients' workspaces behind."""
    import anyio
    from mcp import Client

    from test_mcp_support import free_port, serve_cmd

    root = make_tree(tmp_path / "skills")
    temp = tmp_path / "tmp"
    temp.mkdir()
    port = free_port()
    proc = subprocess.Popen(
        serve_cmd(root, "--port", str(port)),
        env={**subprocess_env(tmp_path / "home"), "TMPDIR": str(temp)},
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    async def run_once() -> None:
        with anyio.fail_after(60):
            while True:  # until it listens
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as c:
            res = await c.call_tool("skill_run", {"skill": "pdf-tools", "command": "true"})
            assert not res.is_error
            assert len(_workspaces(temp)) == 1
            proc.send_signal(signal.SIGTERM)  # while this client is still connected
            await anyio.to_thread.run_sync(proc.wait, 30)

    try:
        anyio.run(run_once)
        assert proc.returncode is not None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _workspaces(temp) == []
