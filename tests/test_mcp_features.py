"""MCP's optional features, in both protocol eras (2025-11-25 with `initialize`, 2026-07-28 without):
completion, truthful listChanged, resource change notifications, log messages. The official client
talks to the real server (in memory, and one stateless HTTP server as a subprocess)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError
from mcp_types import PromptReference, ResourceTemplateReference

from skillyard.mcp import build_server
from skillyard.mcp.server import SESSION_META_KEY, SKILL_TEMPLATE
from skillyard.registry import Registry
from test_mcp_support import PYTHON, Seen, free_port, make_tree, subprocess_env, write_skill

pytestmark = [
    pytest.mark.anyio,
    # the 2025-era client calls (subscribe, setLevel) are deprecated in the SDK; testing them is the point
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

MODES = ["auto", "legacy"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = make_tree(tmp_path / "skills")
    write_skill(root, "hinted", extra="argument-hint: '[file] [format]'\n")
    return root


@pytest.fixture
def registry(tree: Path) -> Registry:
    return Registry.from_roots([tree])


@pytest.mark.parametrize("mode", MODES)
async def test_completion(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        assert c.server_capabilities.completions is not None
        templates = (await c.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == [SKILL_TEMPLATE]
        ref = ResourceTemplateReference(uri=SKILL_TEMPLATE)
        got = (await c.complete(ref, {"name": "skill", "value": "p"})).completion
        assert got.values == ["pdf-tools"] and got.total == 1 and not got.has_more
        got = (await c.complete(ref, {"name": "skill", "value": ""})).completion
        assert got.values == ["alpha", "hinted", "no-prompt", "pdf-tools"]  # served skills only
        got = (
            await c.complete(
                ref, {"name": "path", "value": "references/"}, context_arguments={"skill": "pdf-tools"}
            )
        ).completion
        assert got.values == ["references/api.md", "references/deep/more.md"]
        got = (
            await c.complete(ref, {"name": "path", "value": ""}, context_arguments={"skill": "alpha"})
        ).completion
        assert got.values == ["SKILL.md", "notes.txt"]  # the symlink is not offered
        got = (await c.complete(ref, {"name": "path", "value": "x"})).completion  # no skill given yet
        assert got.values == []
        prompt = (
            await c.complete(PromptReference(name="hinted"), {"name": "arguments", "value": ""})
        ).completion
        assert prompt.values == ["[file] [format]"]
        with pytest.raises(MCPError) as err:
            await c.complete(PromptReference(name="needs-bin"), {"name": "arguments", "value": ""})
        assert err.value.error.code == -32602
        with pytest.raises(MCPError) as err:
            await c.complete(ResourceTemplateReference(uri="file:///{path}"), {"name": "path", "value": ""})
        assert err.value.error.code == -32602


async def test_completion_is_capped(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for i in range(130):
        write_skill(root, f"s{i:03d}")
    async with Client(build_server(Registry.from_roots([root])), mode="legacy") as c:
        got = (
            await c.complete(ResourceTemplateReference(uri=SKILL_TEMPLATE), {"name": "skill", "value": "s"})
        ).completion
        assert len(got.values) == 100 and got.total == 130 and got.has_more


async def test_capabilities_follow_watch(registry: Registry) -> None:
    async with Client(build_server(registry, watch=False), mode="legacy") as c:
        caps = c.server_capabilities
        assert not caps.tools.list_changed and not caps.prompts.list_changed  # type: ignore[union-attr]
        assert not caps.resources.list_changed and not caps.resources.subscribe  # type: ignore[union-attr]
        assert caps.logging is not None
    async with Client(build_server(registry, watch=True), mode="legacy") as c:
        caps = c.server_capabilities
        assert caps.tools.list_changed and caps.prompts.list_changed  # type: ignore[union-attr]
        assert caps.resources.list_changed and caps.resources.subscribe  # type: ignore[union-attr]


async def test_subscribe_legacy(registry: Registry, tree: Path) -> None:
    seen = Seen()
    async with Client(build_server(registry, watch=True), mode="legacy", message_handler=seen) as c:
        await c.subscribe_resource("skill://alpha/notes.txt")
        with pytest.raises(MCPError) as err:
            await c.subscribe_resource("skill://alpha/leak.txt")  # a symlink: not served, not subscribable
        assert err.value.error.code == -32602
        await anyio.sleep(0.5)  # the watcher is up
        (tree / "pdf-tools" / "references" / "api.md").write_text("# API v2\n", encoding="utf-8")
        (tree / "alpha" / "notes.txt").write_text("alpha notes, edited\n", encoding="utf-8")
        note = await seen.wait_for("notifications/resources/updated")
        assert note.params.uri == "skill://alpha/notes.txt"
        await anyio.sleep(0.5)
        updated = [m.params.uri for m in seen.messages if m.method == "notifications/resources/updated"]
        assert set(updated) == {"skill://alpha/notes.txt"}  # not the file nobody subscribed to
        # a content change is not a list change
        assert "notifications/resources/list_changed" not in seen.methods()
        await c.unsubscribe_resource("skill://alpha/notes.txt")
        seen.messages.clear()
        (tree / "alpha" / "notes.txt").write_text("edited again\n", encoding="utf-8")
        await anyio.sleep(1.0)
        assert "notifications/resources/updated" not in seen.methods()


async def test_subscriptions_listen_modern(registry: Registry, tree: Path) -> None:
    async with Client(build_server(registry, watch=True)) as c:
        assert c.protocol_version == "2026-07-28"
        async with c.listen(
            resource_subscriptions=["skill://alpha/SKILL.md"], prompts_list_changed=True
        ) as sub:
            await anyio.sleep(0.5)
            write_skill(tree, "alpha", body="Do the other thing.\n")
            kinds: list[str] = []
            with anyio.fail_after(20):
                async for event in sub:
                    kinds.append(type(event).__name__)
                    if "ResourceUpdated" in kinds:
                        assert event.uri == "skill://alpha/SKILL.md"
                        break
            # the body changed, not the prompt list (same name, same description)
            assert "PromptsListChanged" not in kinds


@pytest.mark.parametrize("mode", MODES)
async def test_log_messages_for_runs(registry: Registry, mode: str) -> None:
    got: list[Any] = []

    async def on_log(params: Any) -> None:
        got.append(params)

    server = build_server(registry)
    # without asking, nothing arrives in either era
    async with Client(server, mode=mode, logging_callback=on_log) as c:
        res = await c.call_tool("skill_run", {"skill": "no-such-skill", "command": "true"})
        assert res.is_error
        await anyio.sleep(0.2)
        assert got == []
    kwargs: dict[str, Any] = {"log_level": "info"} if mode == "auto" else {}
    async with Client(server, mode=mode, logging_callback=on_log, **kwargs) as c:
        if mode == "legacy":
            assert c.server_capabilities.logging is not None
            await c.set_logging_level("info")
        res = await c.call_tool("skill_run", {"skill": "no-such-skill", "command": "true"})
        assert res.is_error
        with anyio.fail_after(10):
            while not got:
                await anyio.sleep(0.02)
        entry = got[0]
        assert entry.level == "warning" and entry.logger == "skillyard"
        assert entry.data == {"event": "run", "tool": "skill_run", "ok": False, "skill": "no-such-skill"}
        got.clear()
        res = await c.call_tool("skills", {"action": "list"})  # reading logs nothing
        await anyio.sleep(0.2)
        assert got == []


async def test_reload_logged_to_legacy_clients_that_asked(registry: Registry, tree: Path) -> None:
    got: list[Any] = []

    async def on_log(params: Any) -> None:
        got.append(params)

    async with Client(build_server(registry), mode="legacy", logging_callback=on_log) as c:
        await c.set_logging_level("info")
        write_skill(tree, "newcomer")
        await c.call_tool("skills", {"action": "reload"})
        with anyio.fail_after(10):
            while not any(g.data.get("event") == "reload" for g in got):
                await anyio.sleep(0.02)
        reload = next(g for g in got if g.data.get("event") == "reload")
        assert set(reload.data["changed"]) >= {"resources", "prompts"}


# ------------------------------------------------------------------ stateless HTTP


@pytest.fixture
def stateless_url(tree: Path, tmp_path: Path) -> Iterator[str]:
    import socket

    port = free_port()
    proc = subprocess.Popen(
        [PYTHON, "-m", "skillyard", "--root", str(tree), "serve", "--transport", "http", "--stateless"]
        + ["--port", str(port)],
        env=subprocess_env(tmp_path / "home"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("mode", MODES)
async def test_stateless_http(stateless_url: str, mode: str) -> None:
    with anyio.fail_after(60):
        async with Client(stateless_url, mode=mode) as c:
            res = await c.call_tool("skills", {"action": "list"})
            assert not res.is_error
            assert "alpha" in {s["name"] for s in json.loads(res.content[0].text)["skills"]}
            assert not (res.meta or {}).get(SESSION_META_KEY)  # no server-side session to come back to
            res = await c.call_tool("skill_load", {"skill": "alpha"})
            assert "Do the thing." in res.content[0].text  # load mode "result": the body is in the result
            got = await c.complete(
                ResourceTemplateReference(uri=SKILL_TEMPLATE), {"name": "skill", "value": "a"}
            )
            assert got.completion.values == ["alpha"]
