"""`skillyard serve` as a real subprocess: stdio (modern and legacy clients) and streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters

from test_mcp_support import (
    INIT,
    POST_HEADERS,
    PYTHON,
    get_skill,
    list_all_skills,
    make_tree,
    read_bytes,
    read_dir,
    serving,
    sha,
    subprocess_env,
    write_skill,
)

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "skills")


def stdio_params(tree: Path, home: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=PYTHON,
        args=["-m", "skillyard", "--root", str(tree), "serve", *extra],
        env=subprocess_env(home),
        cwd=str(tree.parent),
    )


async def exercise(c: Client, tree: Path) -> None:
    """The same checks over any transport: tools, skills, digests, directories, errors."""
    tools = {t.name for t in (await c.list_tools()).tools}
    assert {
        "skills",
        "skill_load",
        "read_skill",
        "skill",
        "skill_list_docs",
        "skill_select_docs",
        "skill_run",
    } <= tools
    res = await c.call_tool("skills", {"action": "list"})
    assert not res.is_error
    assert "pdf-tools" in {s["name"] for s in json.loads(res.content[0].text)["skills"]}
    res = await c.call_tool("read_skill", {"skill_name": "alpha"})
    assert res.content[0].text == "Do the thing."
    res = await c.call_tool("skills", {"action": "bogus"})
    assert res.is_error
    entries, _ = await list_all_skills(c)
    assert [e["frontmatter"]["name"] for e in entries] == ["alpha", "no-prompt", "pdf-tools"]
    for e in entries:
        for r in e["resources"]:
            data = await read_bytes(c, r["uri"])
            assert sha(data) == r["digest"] and len(data) == r["size"], r["uri"]
    got = await get_skill(c, "skill://pdf-tools/SKILL.md")
    assert got.skill["frontmatter"]["name"] == "pdf-tools"
    with pytest.raises(MCPError) as err:
        await get_skill(c, "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md")
    assert err.value.error.code == -32602
    listing = await read_dir(c, "skill://pdf-tools/references")
    assert {r["uri"]: r["mimeType"] for r in listing.resources} == {
        "skill://pdf-tools/references/api.md": "text/markdown",
        "skill://pdf-tools/references/deep": "inode/directory",
    }
    with pytest.raises(MCPError) as err:
        await read_dir(c, "skill://pdf-tools/SKILL.md")
    assert err.value.error.code == -32602
    with pytest.raises(MCPError) as err:
        await c.read_resource("skill://alpha/leak.txt")
    assert err.value.error.code == -32602
    prompt = await c.get_prompt("alpha", {"arguments": "go"})
    assert prompt.messages[0].content.text.endswith("ARGUMENTS: go")


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_subprocess(tree: Path, tmp_path: Path, mode: str) -> None:
    with anyio.fail_after(120):
        async with Client(stdio_params(tree, tmp_path / "home"), mode=mode) as c:
            if mode == "auto":
                assert c.protocol_version == "2026-07-28"
                assert c.server_capabilities.extensions == {
                    "io.modelcontextprotocol/skills": {"directoryRead": True}
                }
            await exercise(c, tree)


async def test_stdio_watch_notifies(tree: Path, tmp_path: Path) -> None:
    seen: list[str] = []

    async def handler(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str):
            seen.append(method)

    with anyio.fail_after(120):
        async with Client(
            stdio_params(tree, tmp_path / "home", "--watch", "--log-level", "DEBUG"),
            mode="legacy",
            message_handler=handler,
        ) as c:
            assert c.server_capabilities.tools is not None and c.server_capabilities.tools.list_changed
            await c.list_tools()
            await anyio.sleep(0.5)
            write_skill(tree, "arrived-later")
            with anyio.fail_after(30):
                while "notifications/tools/list_changed" not in seen:
                    await anyio.sleep(0.05)
            assert "notifications/resources/list_changed" in seen
            got = await get_skill(c, "skill://arrived-later/SKILL.md")
            assert got.skill["frontmatter"]["name"] == "arrived-later"


@pytest.fixture
def http_server(tree: Path, tmp_path: Path) -> Iterator[str]:
    with serving(tree, tmp_path) as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
async def test_http_server(http_server: str, tree: Path, mode: str) -> None:
    with anyio.fail_after(120):
        async with Client(http_server, mode=mode) as c:
            if mode == "auto":
                assert c.server_capabilities.extensions == {
                    "io.modelcontextprotocol/skills": {"directoryRead": True}
                }
            await exercise(c, tree)


async def test_http_sessions_are_separate(http_server: str) -> None:
    """Two legacy HTTP sessions (Mcp-Session-Id) each keep their own loaded state."""

    async def select(c: Client, doc: str) -> list[str]:
        res = await c.call_tool("skill_select_docs", {"skill": "pdf-tools", "docs": [doc], "mode": "add"})
        assert not res.is_error, res.content
        return list(json.loads(res.content[0].text)["selected_docs"])

    with anyio.fail_after(60):
        async with Client(http_server, mode="legacy") as a, Client(http_server, mode="legacy") as b:
            assert await select(a, "crlf.txt") == ["crlf.txt"]
            assert await select(b, "references/api.md") == ["references/api.md"]
            assert sorted(await select(a, "references/deep/more.md")) == [
                "crlf.txt",
                "references/deep/more.md",
            ]


def test_serve_refuses_non_loopback(tree: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "skillyard", "--root", str(tree), "serve", "--transport", "http", "--host", "0.0.0.0"],
        env=subprocess_env(tmp_path / "home"),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert b"loopback" in proc.stderr
    assert proc.stdout == b""


def test_serve_refuses_unknown_tool(tree: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "skillyard", "--root", str(tree), "serve", "--tool", "rm_rf"],
        env=subprocess_env(tmp_path / "home"),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert b"unknown tool: rm_rf" in proc.stderr
    assert proc.stdout == b""


async def test_stdio_tool_subset(tree: Path, tmp_path: Path) -> None:
    with anyio.fail_after(60):
        async with Client(stdio_params(tree, tmp_path / "home", "--tool", "skills", "--tool", "toml")) as c:
            assert sorted(t.name for t in (await c.list_tools()).tools) == ["say_hi", "skills"]


async def test_stdio_modern_keeps_one_session_per_pipe(tree: Path, tmp_path: Path) -> None:
    """2026-07-28 over stdio has no handshake, but one pipe is one client: state carries across calls."""

    async def select(c: Client, doc: str) -> tuple[list[str], str]:
        res = await c.call_tool("skill_select_docs", {"skill": "pdf-tools", "docs": [doc], "mode": "add"})
        assert not res.is_error, res.content
        assert res.meta is not None
        return list(json.loads(res.content[0].text)["selected_docs"]), res.meta["io.skillyard/session"]

    with anyio.fail_after(60):
        async with (
            Client(stdio_params(tree, tmp_path / "home")) as a,
            Client(stdio_params(tree, tmp_path / "h2")) as b,
        ):
            assert a.protocol_version == "2026-07-28"
            first, sid = await select(a, "crlf.txt")
            second, sid2 = await select(a, "references/api.md")
            assert sid == sid2 and sorted(second) == ["crlf.txt", "references/api.md"]
            other, sid3 = await select(b, "references/deep/more.md")
            assert other == ["references/deep/more.md"] and sid3 != sid


async def test_http_answer_forms(http_server: str) -> None:
    """2025-era calls get one JSON body (no SSE stream per call); the session id still comes with it."""
    import httpx

    async with httpx.AsyncClient(timeout=30) as http:
        r = await http.post(http_server, json=INIT, headers=POST_HEADERS)
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["result"]["protocolVersion"] == "2025-11-25"
        sid = r.headers["mcp-session-id"]
        headers = {**POST_HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        r = await http.post(
            http_server, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        assert r.status_code == 202
        r = await http.post(
            http_server, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
        )
        assert r.headers["content-type"].startswith("application/json")
        assert any(t["name"] == "skills" for t in r.json()["result"]["tools"])


@pytest.mark.parametrize("mode", MODES)
async def test_http_log_messages_reach_both_eras(http_server: str, mode: str) -> None:
    """Per-request log messages (2026-07-28, on the call's own stream) and connection log messages
    (2025-11-25, on the GET stream) both arrive over HTTP."""
    got: list[Any] = []

    async def on_log(params: Any) -> None:
        got.append(params)

    kwargs: dict[str, Any] = {"log_level": "info"} if mode == "auto" else {}
    with anyio.fail_after(60):
        async with Client(http_server, mode=mode, logging_callback=on_log, **kwargs) as c:
            if mode == "legacy":
                import warnings

                from mcp.shared.exceptions import MCPDeprecationWarning

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await c.set_logging_level("info")
            res = await c.call_tool("skill_run", {"skill": "no-such-skill", "command": "true"})
            assert res.is_error
            while not got:
                await anyio.sleep(0.02)
    assert got[0].logger == "skillyard"
    assert got[0].data == {"event": "run", "tool": "skill_run", "ok": False, "skill": "no-such-skill"}
