"""A hostile client of `skillyard serve` over streamable HTTP on 127.0.0.1: the real server under uvicorn,
raw sockets and httpx for the attacker, the official `mcp` client for everyone else. Each test failed
before the fix it comes with."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client

from skillyard.config import Config, ExecutionSettings
from skillyard.mcp import build_server
from skillyard.registry import Registry
from test_mcp_support import make_tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _rpc(id_: int | None, method: str, params: dict | None = None) -> dict:
    msg: dict = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        msg["id"] = id_
    if params is not None:
        msg["params"] = params
    return msg


async def test_a_client_that_stops_reading_holds_nobody_else(tmp_path: Path) -> None:
    """Notifications to handshake-era clients went out one after another, each awaited, under the lock
    every reload takes: a client that asked for log messages, opened its GET stream and stopped reading
    it filled the stream with a few hundred `skills reload` calls, and from then on every other client's
    reload, enable, disable and install (and the --watch reloads) waited for ever. Each connection now
    gets its notification concurrently, within NOTIFY_TIMEOUT_S."""
    import uvicorn

    from skillyard.mcp._http_guard import uvicorn_config

    server = build_server(
        Registry.from_roots(
            [make_tree(tmp_path / "skills")], Config(execution=ExecutionSettings(executor="local"))
        )
    )
    # small socket buffers (accepted sockets inherit the listener's) so a few hundred messages fill them
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    srv = uvicorn.Server(uvicorn_config(server.http_app(), "127.0.0.1", port, "warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
    }
    stream = socket.socket()
    try:
        with httpx.Client(timeout=10) as http:
            init = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "h", "version": "1"},
            }
            answer = http.post(url, headers=headers, json=_rpc(1, "initialize", init))
            headers["Mcp-Session-Id"] = answer.headers["mcp-session-id"]
            assert (
                http.post(url, headers=headers, json=_rpc(None, "notifications/initialized")).status_code
                == 202
            )
            assert http.post(
                url, headers=headers, json=_rpc(2, "logging/setLevel", {"level": "debug"})
            ).is_success
            stream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stream.connect(("127.0.0.1", port))
            stream.sendall(
                f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
                f"Mcp-Session-Id: {headers['Mcp-Session-Id']}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n".encode()
            )
            assert stream.recv(64).startswith(b"HTTP/1.1 200")  # and never read again
            reload = {"name": "skills", "arguments": {"action": "reload"}}
            for i in range(5000):
                try:
                    http.post(url, headers=headers, json=_rpc(10 + i, "tools/call", reload), timeout=3)
                except httpx.TimeoutException:
                    break  # its stream is full: its own calls now wait
            else:
                pytest.fail("the stream never filled; the test proves nothing")
        with anyio.fail_after(60):  # a hang, not a speed: before the fix this never returned
            async with Client(url) as other:
                assert not (await other.call_tool("skills", {"action": "reload"})).is_error
                assert not (await other.call_tool("skills", {"action": "disable", "skill": "alpha"})).is_error
                assert not (await other.call_tool("skills", {"action": "enable", "skill": "alpha"})).is_error
    finally:
        stream.close()
        srv.should_exit = True
        thread.join(30)
        server.close()
