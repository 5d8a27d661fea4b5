"""A server that runs for weeks, called by clients that never echo the session id.

On the 2026-07-28 wire without a back channel (streamable HTTP, the SDK's in-process client) each
request that does not send back `_meta["io.skillyard/session"]` starts a fresh session, and the
server kept every one of them, up to 4,096, with the `skill_run` workspace each made: a full copy of
the skill in the temporary directory per call, for clients (the SDK's own among them) that never come
back to it. Sessions whose id has not come back are now at most 256 of them; a session whose id did
come back once is kept as before, however many fresh ones follow.
"""

from __future__ import annotations

import gc
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from skillyard.mcp import build_server
from skillyard.mcp import server as server_module
from skillyard.mcp.server import SESSION_META_KEY
from skillyard.registry import Registry
from skillyard.session import Session
from test_mcp_support import make_tree, serving, write_skill

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    root = make_tree(tmp_path / "skills")
    write_skill(root, "many-docs", files={f"docs/d{i}.md": f"doc {i}\n" for i in range(3)})
    return Registry.from_roots([root])


def _sessions() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Session))


def _text(res: Any) -> str:
    return str(res.content[0].text)


async def test_unechoed_sessions_are_bounded_and_an_echoed_one_survives(registry: Registry) -> None:
    server = build_server(registry)
    base = _sessions()
    async with Client(server) as c:
        res = await c.call_tool("skill_select_docs", {"skill": "many-docs", "docs": ["docs/d1.md"]})
        assert not res.is_error, _text(res)
        sid = res.meta[SESSION_META_KEY]
        res = await c.call_tool("skill_list_docs", {"skill": "many-docs"}, meta={SESSION_META_KEY: sid})
        assert res.meta[SESSION_META_KEY] == sid  # its id came back once
        for _ in range(400):  # a client that never echoes
            await c.call_tool("skills", {"action": "list"})
        assert _sessions() - base <= 256 + 2  # the echoed one, and the one a call may still hold
        res = await c.call_tool(
            "skill_select_docs",
            {"skill": "many-docs", "docs": [], "mode": "add"},
            meta={SESSION_META_KEY: sid},
        )
        assert res.meta[SESSION_META_KEY] == sid
        assert json.loads(_text(res))["selected_docs"] == ["docs/d1.md"]


async def test_runs_of_unechoed_sessions_keep_few_workspaces(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(server_module, "MAX_UNECHOED_SESSIONS", 3, raising=False)
    ws_root = tmp_path / f"skillyard-workspaces-{os.getuid()}"
    server = build_server(registry)
    try:
        async with Client(server) as c:
            for _ in range(8):
                res = await c.call_tool("skill_run", {"skill": "pdf-tools", "command": "true"})
                assert not res.is_error, _text(res)
                assert len([p for p in ws_root.iterdir() if p.name.startswith("ws_")]) <= 3
    finally:
        server.close()


async def test_closed_http_connections_release_their_workspaces(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2025-era clients over streamable HTTP that run a command and close: nothing of theirs stays.

    The release waited for the garbage collector to reach each closed connection, which in a
    serving process could be never: every client's workspace stayed in the temporary directory."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    ws_root = temp / f"skillyard-workspaces-{os.getuid()}"
    with serving(tmp_path / "skills", tmp_path) as url:
        for _ in range(6):
            async with Client(url, mode="legacy") as c:
                res = await c.call_tool("skill_run", {"skill": "pdf-tools", "command": "true"})
                assert not res.is_error, _text(res)
            # this client's call released the workspaces of those that closed before it
            assert len([p for p in ws_root.iterdir() if p.name.startswith("ws_")]) == 1
        async with Client(url, mode="legacy") as c:
            await c.call_tool("skills", {"action": "list"})  # the call that releases what has closed
            assert [p for p in ws_root.iterdir() if p.name.startswith("ws_")] == []
