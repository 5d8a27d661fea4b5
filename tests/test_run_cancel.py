"""A `skill_run` the caller gives up on stops: its process tree is killed at once, not at its timeout.

Hosts cancel tool calls (Esc in an IDE's agent, a turn abandoned): MCP clients send
`notifications/cancelled`, async agent frameworks cancel the task. The run went on until its own
timeout (a minute by default, up to ten when asked), so the script kept working on the user's files
after they had stopped it, and the next call in the same session waited for it.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from skillyard.config import Config, ExecutionSettings
from skillyard.execution.base import Limits, run_cancellable, supervise
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit
from test_mcp_support import INIT, make_tree, subprocess_env


def _running(marker: str) -> list[int]:
    """Host pids of processes whose command line holds `marker` (sandboxed ones too: /proc shows them)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and b"sleep" in cmdline:
            out.append(int(pid))
    return out


def _gone(marker: str, within: float = 20.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not _running(marker):
            return True
        time.sleep(0.1)
    return False


def test_supervise_kills_the_tree_once_the_event_is_set() -> None:
    event = threading.Event()
    marker = "301.25"
    timer = threading.Timer(0.5, event.set)
    timer.start()
    try:
        # a child that closes its output and keeps running waits in the second phase of the loop
        argv = ["sh", "-c", f"sleep {marker} & sleep {marker}; exec >&- 2>&-; sleep {marker}"]
        res = run_cancellable(
            event, supervise, argv, cwd=None, env={"PATH": os.environ["PATH"]}, timeout=600, limits=Limits()
        )
    finally:
        timer.cancel()
    assert res.exit_code == -1 and not res.timed_out
    assert any("cancelled" in w for w in res.warnings), res.warnings
    assert _gone(marker)


def test_supervise_without_an_event_set_runs_to_the_end() -> None:
    res = run_cancellable(
        threading.Event(),
        supervise,
        ["sh", "-c", "echo done"],
        cwd=None,
        env={"PATH": os.environ["PATH"]},
        timeout=60,
        limits=Limits(),
    )
    assert res.exit_code == 0 and res.stdout == b"done\n" and res.warnings == []


def _reply(proc: subprocess.Popen[bytes], want: int, within: float) -> dict[str, object] | None:
    """The response to request `want`, or None when none came within `within` seconds."""
    assert proc.stdout is not None
    end = time.monotonic() + within
    buf = b""
    fd = proc.stdout.fileno()
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if msg.get("id") == want:
                return msg
    return None


def test_a_cancelled_mcp_call_stops_its_run_and_frees_the_session(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "skills")
    marker = "302.75"
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillyard", "--root", str(root), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(tmp_path / "home"),
        cwd=tmp_path,
    )
    assert proc.stdin is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def call(i: int, command: str) -> None:
        run = {"skill": "pdf-tools", "command": command, "timeout": 600}
        send(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "skill_run", "arguments": run},
            }
        )

    try:
        send(INIT)
        assert _reply(proc, 1, 30) is not None
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call(2, f"sleep {marker}")
        end = time.monotonic() + 30
        while not _running(marker):
            assert time.monotonic() < end and proc.poll() is None
            time.sleep(0.05)
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        assert _gone(marker), "the cancelled run is still running"
        call(3, "echo next")  # the same session: it no longer waits for the cancelled run
        reply = _reply(proc, 3, 60)
        assert reply is not None, "the next call in the session got no answer"
        assert "next" in json.dumps(reply["result"])
    finally:
        proc.kill()
        proc.wait()


def test_a_cancelled_task_stops_its_run_and_the_session_goes_on(tmp_path: Path, make_skill: Any) -> None:
    """`Toolkit.acall` is what the agent adapters and the MCP server await."""
    make_skill(tmp_path / "skills", "sleeper", "Sleeps", body="Sleep.\n")
    marker = "303.5"
    with Toolkit(Registry.from_roots([tmp_path / "skills"], Config())) as kit:
        session = Session()
        run = {"skill": "sleeper", "command": f"sleep {marker}", "timeout": 600}

        async def scenario() -> str:
            with anyio.move_on_after(60) as give_up:
                async with anyio.create_task_group() as tasks:
                    scope = anyio.CancelScope()

                    async def first() -> None:
                        with scope:
                            await kit.acall("skill_run", run, session)
                            raise AssertionError("the first call was not cancelled")  # pragma: no cover

                    tasks.start_soon(first)
                    while not _running(marker):
                        await anyio.sleep(0.05)
                    scope.cancel()
            assert not give_up.cancelled_caught
            assert not _running(marker), "the run outlived its cancelled call"
            second = await kit.acall("skill_run", {"skill": "sleeper", "command": "echo again"}, session)
            return second.content

        assert "again" in anyio.run(scenario)


@pytest.mark.parametrize("stateless", [False, True])
def test_the_official_client_giving_up_over_http_stops_the_run(
    tmp_path: Path, monkeypatch: Any, stateless: bool
) -> None:
    """Over HTTP the SDK's client cancels by closing the request's POST (the 2026-07-28 wire, where a
    client that does not echo its session id gets a session per call): the run stops; with
    `--stateless` its workspace goes with the call, as a finished call's does."""
    from mcp import Client

    from test_mcp_support import serving

    root = make_tree(tmp_path / "skills")
    marker = "304.75"

    async def scenario(url: str) -> str:
        async with Client(url) as client:
            with anyio.move_on_after(60):
                async with anyio.create_task_group() as tasks:
                    scope = anyio.CancelScope()

                    async def call() -> None:
                        with scope:
                            run = {"skill": "pdf-tools", "command": f"sleep {marker}", "timeout": 600}
                            await client.call_tool("skill_run", run)

                    tasks.start_soon(call)
                    while not _running(marker):
                        await anyio.sleep(0.05)
                    scope.cancel()
            for _ in range(200):  # the client's loop must run: it closes the POST after the cancel
                if not _running(marker):
                    break
                await anyio.sleep(0.1)
            assert not _running(marker), "the run outlived the call its client gave up"
            reply = await client.call_tool("skill_run", {"skill": "pdf-tools", "command": "echo after"})
            return json.dumps(reply.model_dump(mode="json"))

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the server's; its workspaces are counted there
    flags = ["--stateless"] if stateless else []
    with serving(root, tmp_path, "--transport", "http", *flags) as url:
        assert "after" in anyio.run(scenario, url)
        workspaces = temp / f"skillyard-workspaces-{os.getuid()}"
        kept = [p.name for p in workspaces.iterdir() if p.name.startswith("ws_")]
        assert len(kept) == (0 if stateless else 2), kept  # without --stateless: one per session


def test_a_call_cancelled_while_it_waits_for_a_run_slot_runs_nothing(tmp_path: Path, make_skill: Any) -> None:
    make_skill(tmp_path / "skills", "toucher", "Touches", body="Touch.\n")
    mark = tmp_path / "ran"
    local = Config(execution=ExecutionSettings(executor="local"))  # a run that may write where we look
    with Toolkit(Registry.from_roots([tmp_path / "skills"], local)) as kit:

        async def scenario() -> None:
            slots = anyio.CapacityLimiter(1)
            async with anyio.create_task_group() as tasks:
                released: list[bool] = []

                async def busy() -> None:  # every run slot taken for a second
                    async with slots:
                        await anyio.sleep(1)
                    released.append(True)

                tasks.start_soon(busy)
                await anyio.sleep(0.1)
                with anyio.move_on_after(0.5) as waited:
                    await kit.acall(
                        "skill_run",
                        {"skill": "toucher", "command": f"touch {mark}"},
                        Session(),
                        limiter=slots,
                    )
                assert waited.cancelled_caught
                assert not released, "the cancelled call waited for a run slot before giving up"
            await anyio.sleep(0.5)  # the slot is free: a call that still went on would run now

        anyio.run(scenario)
    assert not mark.exists()
