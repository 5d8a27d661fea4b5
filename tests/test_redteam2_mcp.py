"""A hostile client of `skillyard serve` over HTTP: real servers on 127.0.0.1, the official `mcp` client
or raw sockets and httpx. Each test failed before the fix it comes with."""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from skillyard.config import Config, ExecutionSettings
from skillyard.mcp import build_server
from skillyard.registry import Registry
from test_mcp_support import free_port, make_tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def in_process(server: Any, **http: Any) -> Iterator[str]:
    """`server.http_app()` under uvicorn in a thread, as `skillyard serve` runs it; yields the /mcp URL."""
    import uvicorn

    from skillyard.mcp._http_guard import uvicorn_config

    port = free_port()
    config = uvicorn_config(server.http_app(**http), "127.0.0.1", port, "warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        srv.should_exit = True
        thread.join(30)
        server.close()


def _server(tmp_path: Path) -> Any:
    tree = make_tree(tmp_path / "skills")
    config = Config(execution=ExecutionSettings(executor="local"))
    return build_server(Registry.from_roots([tree], config))


async def test_sessions_pushed_out_release_their_workspaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2026-era client that never echoes its session id gets a new session per call; each kept a
    skill_run workspace until the server stopped, so a flood of calls filled the disk."""
    import skillyard.mcp.server as server_module

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(server_module, "MAX_ECHO_SESSIONS", 3)
    server = _server(tmp_path)
    with in_process(server) as url:
        async with Client(url) as c:
            assert c.protocol_version == "2026-07-28"
            sids = set()
            for _ in range(12):
                res = await c.call_tool("skill_run", {"skill": "alpha", "command": "echo hi > out/x.txt"})
                assert not res.is_error, res.content
                sids.add((res.meta or {})["io.skillyard/session"])
            assert len(sids) == 12
            roots = list(tmp_path.glob("skillyard-workspaces-*"))
            assert len(roots) == 1
            kept = [p for p in roots[0].iterdir() if p.name.startswith("ws_")]
            assert len(kept) <= 4, f"{len(kept)} workspaces kept for 12 calls with room for 3 sessions"


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closed `sock` within `seconds` (reading what it sent meanwhile)."""
    sock.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if sock.recv(65536) == b"":
                return True
    except TimeoutError:
        return False
    except OSError:
        return True
    return False


async def test_a_request_head_that_never_ends_is_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Slowloris: uvicorn waited forever for the rest of a request head, so a few bytes per connection
    held connections (and file descriptors) without any token. A connection with no request in flight
    for a whole HEAD_TIMEOUT_S is now closed; a client that keeps working is never cut."""
    import skillyard.mcp._http_guard as guard

    monkeypatch.setattr(guard, "HEAD_TIMEOUT_S", 1.0)
    server = _server(tmp_path)
    with in_process(server) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
        for i, s in enumerate(slow):
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" if i % 2 else b"POS")
        async with Client(url) as c:  # a real client calling across several deadlines keeps working
            for _ in range(4):
                assert not (await c.call_tool("skills", {"action": "list"})).is_error
                await anyio.sleep(0.7)
        assert all(_closed_within(s, 5.0) for s in slow)
        for s in slow:
            s.close()


async def test_a_body_that_never_arrives_gets_408(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A POST whose body trickles in (or stops) is answered 408 once BODY_TIMEOUT_S has passed."""
    import skillyard.mcp._http_guard as guard

    monkeypatch.setattr(guard, "BODY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(guard, "HEAD_TIMEOUT_S", 60.0)
    server = _server(tmp_path)
    with in_process(server) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
                + b"Content-Type: application/json\r\n"
                b"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"
            )
            s.settimeout(10)
            assert s.recv(100).startswith(b"HTTP/1.1 408")


async def test_an_echoed_session_id_belongs_to_its_token(tmp_path: Path) -> None:
    """The 2026-era session id a client echoes in `_meta` is bound to the token that opened it, as the
    handshake-era Mcp-Session-Id is: another token presenting it gets a session of its own."""
    import json

    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from skillyard.mcp.auth import parse_tokens

    alice, bob = "alice-token-0123456789abcdef", "bob-token-0123456789abcdef0"
    server = _server(tmp_path)
    verifier = parse_tokens([f"{alice} skills:read skills:run", f"{bob} skills:read skills:run"])

    def client(url: str, token: str) -> Client:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        return Client(streamable_http_client(url, http_client=http))

    async def select(c: Client, doc: str, sid: str | None = None) -> tuple[list[str], str]:
        meta = {"io.skillyard/session": sid} if sid else None
        args = {"skill": "pdf-tools", "docs": [doc], "mode": "add"}
        res = await c.call_tool("skill_select_docs", args, meta=meta)  # type: ignore[arg-type]
        assert not res.is_error, res.content
        return sorted(json.loads(res.content[0].text)["selected_docs"]), (res.meta or {})[
            "io.skillyard/session"
        ]

    with in_process(server, verifier=verifier) as url:
        async with client(url, alice) as a, client(url, bob) as b:
            _, sid = await select(a, "crlf.txt")
            assert await select(a, "references/api.md", sid) == (["crlf.txt", "references/api.md"], sid)
            docs, other = await select(b, "references/deep/more.md", sid)
            assert docs == ["references/deep/more.md"] and other != sid, "bob took over alice's session"
            assert (await select(a, "references/deep/more.md", sid))[0] == [
                "crlf.txt",
                "references/api.md",
                "references/deep/more.md",
            ]


async def test_a_file_name_that_is_not_utf8_breaks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file name that is not UTF-8 cannot be written as JSON text: one in a skill made resources/list
    fail for every skill (500), and one a command created made skill_run's whole result unsendable.
    Such names are left out of listings and results (a warning says so for outputs)."""
    import json
    import os

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    server = _server(tmp_path)
    alpha = tmp_path / "skills" / "alpha"
    with open(os.fsencode(alpha) + b"/\xffbad.txt", "w") as fh:
        fh.write("x")
    os.mkdir(os.fsencode(alpha) + b"/\xfedir")
    with in_process(server) as url:
        async with Client(url) as c:
            listed = await c.list_resources()
            assert any(str(r.uri) == "skill://alpha/notes.txt" for r in listed.resources)
            res = await c.call_tool("skills", {"action": "info", "skill": "alpha"})
            assert not res.is_error, res.content
            res = await c.call_tool(
                "skill_run",
                {
                    "skill": "alpha",
                    "command": r"printf x > out/$'\xff'.txt; echo done",
                    "output_files": ["out/*"],
                },
            )
            data = json.loads(res.content[0].text)
            assert data["stdout"] == "done\n" and data["output_files"] == []
            assert any("the name is not UTF-8" in w for w in data["warnings"]), data["warnings"]


async def test_long_runs_never_hold_the_threads_reads_need(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls ran on one shared pool of 40 worker threads: 40 clients each running `sleep` stalled every
    other call, reads included, until they ended. Commands now run on threads of their own."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    server = _server(tmp_path)
    marker = tmp_path / "release"
    finished: list[int] = []
    wait = f"while [ ! -e {marker} ]; do sleep 0.1; done"

    with in_process(server) as url:

        async def run(i: int) -> None:
            async with Client(url) as c:
                res = await c.call_tool("skill_run", {"skill": "alpha", "command": wait, "timeout": 120})
                assert not res.is_error, res.content
                finished.append(i)

        with anyio.fail_after(120):
            async with anyio.create_task_group() as tg:
                for i in range(42):
                    tg.start_soon(run, i)
                await anyio.sleep(3)  # let them all start
                async with Client(url) as c:
                    assert not (await c.call_tool("skills", {"action": "list"})).is_error
                    assert (await c.list_resources()).resources
                assert finished == [], "the read waited for the runs"
                marker.touch()
            assert len(finished) == 42


async def test_ended_connections_release_their_workspaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2025-11-25 session is its connection: once the client ends it, its skill_run workspace goes
    (with the next call), instead of staying until thousands of newer sessions push it out."""
    import gc

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    server = _server(tmp_path)

    def workspaces() -> list[Path]:
        return [
            p
            for r in tmp_path.glob("skillyard-workspaces-*")
            for p in r.iterdir()
            if p.name.startswith("ws_")
        ]

    with in_process(server) as url:
        for _ in range(3):
            async with Client(url, mode="legacy") as c:
                assert c.protocol_version == "2025-11-25"
                res = await c.call_tool("skill_run", {"skill": "alpha", "command": "echo hi > out/x.txt"})
                assert not res.is_error, res.content
        async with Client(url, mode="legacy") as c:
            for _ in range(50):  # the SDK lets a closed session go shortly after it ends
                gc.collect()  # the SDK leaves a closed connection in a cycle: the collector frees it
                res = await c.call_tool("skill_run", {"skill": "alpha", "command": "true"})
                assert not res.is_error, res.content
                if len(workspaces()) <= 1:
                    break
                await anyio.sleep(0.1)
            assert len(workspaces()) == 1, f"{len(workspaces())} workspaces for 1 open session"
