"""Agent tools, per-session state, prompts and change notifications over the official SDK client (in-process)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, MCPError

from skillyard.mcp import build_server
from skillyard.mcp.prompts import MAX_ARGUMENTS_CHARS
from skillyard.mcp.server import SESSION_META_KEY
from skillyard.registry import Registry
from skillyard.tools.arguments import substitute_arguments
from test_mcp_support import make_tree, write_skill

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]
DOCS = [f"docs/d{i}.md" for i in range(10)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = make_tree(tmp_path / "skills")
    write_skill(root, "many-docs", files={d: f"doc {d}\n" for d in DOCS})
    return root


@pytest.fixture
def registry(tree: Path) -> Registry:
    return Registry.from_roots([tree])


def execution_available() -> bool:
    try:
        from skillyard.execution import RunRequest  # noqa: F401
    except ImportError:
        return False
    return True


def text(res: Any) -> str:
    assert res.content and res.content[0].type == "text"
    return str(res.content[0].text)


@pytest.mark.parametrize("mode", MODES)
async def test_tools_listed_with_schemas(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        for name in (
            "skills",
            "skill_load",
            "skill_select_docs",
            "skill_list_docs",
            "skill_run",
            "read_skill",
            "skill",
        ):
            assert name in tools, name
            assert tools[name].input_schema["type"] == "object"
            assert tools[name].description
        assert "say_hi" in tools  # the SKILL.toml tool
        assert "action" in tools["skills"].input_schema["properties"]


async def test_tool_subset(registry: Registry) -> None:
    async with Client(build_server(registry, tools=["skills", "read_skill"])) as c:
        assert sorted(t.name for t in (await c.list_tools()).tools) == ["read_skill", "skills"]


@pytest.mark.parametrize("mode", MODES)
async def test_call_each_tool(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        res = await c.call_tool("skills", {"action": "list"})
        assert not res.is_error
        listed = json.loads(text(res))
        assert res.structured_content == listed
        assert {s["name"] for s in listed["skills"]} >= {"alpha", "pdf-tools", "toml-only"}
        assert res.meta and res.meta[SESSION_META_KEY]

        res = await c.call_tool("skills", {"action": "info", "skill": "alpha"})
        assert not res.is_error and json.loads(text(res))["name"] == "alpha"

        res = await c.call_tool("skill_load", {"skill": "pdf-tools"})
        assert not res.is_error
        assert "Use $ARGUMENTS on the PDF" in text(res)  # load mode "result": the body comes back

        res = await c.call_tool("skill_list_docs", {"skill": "pdf-tools"})
        assert json.loads(text(res)) == ["crlf.txt", "references/api.md", "references/deep/more.md"]

        res = await c.call_tool("skill_select_docs", {"skill": "pdf-tools", "docs": ["references/api.md"]})
        assert not res.is_error
        assert json.loads(text(res))["selected_docs"] == ["references/api.md"]

        res = await c.call_tool("read_skill", {"skill_name": "alpha"})
        assert text(res) == "Do the thing."

        res = await c.call_tool("skill", {"skill": "alpha"})
        msgs = json.loads(text(res))
        assert len(msgs) == 2 and "Do the thing." in msgs[1]["text"]


@pytest.mark.parametrize("mode", MODES)
async def test_errors_are_error_results(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        res = await c.call_tool("skills", {"action": "nope"})
        assert res.is_error and json.loads(text(res)) == {"error": "unknown action: nope"}
        res = await c.call_tool("skills", {"action": "info"})
        assert res.is_error and json.loads(text(res)) == {"error": "skill name required for 'info' action"}
        res = await c.call_tool("skills", {"action": "info", "skill": "foo"})
        assert res.is_error and json.loads(text(res)) == {"error": "skill not found: foo"}
        res = await c.call_tool("read_skill", {"skill_name": "zzz"})
        assert res.is_error and "not found" in text(res)
        res = await c.call_tool("skill_load", {"skill": 12})
        assert res.is_error
        res = await c.call_tool("no_such_tool", {})
        assert res.is_error


@pytest.mark.skipif(
    not execution_available(), reason="the execution layer (skillyard.execution) is not installed yet"
)
async def test_run_tools_execute(registry: Registry, request: pytest.FixtureRequest) -> None:
    server = build_server(registry)
    request.addfinalizer(server.close)  # releases the skill_run workspaces
    async with Client(server) as c:
        res = await c.call_tool("skill_run", {"skill": "pdf-tools", "command": "python3 scripts/extract.py"})
        assert not res.is_error, text(res)
        assert json.loads(text(res))["stdout"].strip() == "hi"
        res = await c.call_tool("say_hi", {})
        assert not res.is_error
        assert text(res).splitlines()[0] == "hi"  # executor warnings, if any, follow the output


async def test_run_tools_answer_with_results(registry: Registry, request: pytest.FixtureRequest) -> None:
    """Whatever the execution layer's state, the run tools answer with a tool result, never a protocol error."""
    server = build_server(registry)
    request.addfinalizer(server.close)
    async with Client(server) as c:
        res = await c.call_tool("skill_run", {"skill": "pdf-tools", "command": "python3 scripts/extract.py"})
        assert res.content and isinstance(res.is_error, bool)
        res = await c.call_tool("skill_run", {"skill": "no-such-skill", "command": "true"})
        assert res.is_error


async def _select(c: Client, doc: str, meta: dict[str, Any] | None = None) -> tuple[list[str], str]:
    res = await c.call_tool(
        "skill_select_docs", {"skill": "many-docs", "docs": [doc], "mode": "add"}, meta=meta
    )
    assert not res.is_error, text(res)
    assert res.meta is not None
    return json.loads(text(res))["selected_docs"], res.meta[SESSION_META_KEY]


async def test_sessions_do_not_leak_between_clients(registry: Registry) -> None:
    """20 handshake-era clients x 10 concurrent calls = 200 concurrent tool calls; each sees only its own state."""
    server = build_server(registry)
    results: dict[int, list[list[str]]] = {}
    sids: dict[int, set[str]] = {}

    async def client(i: int) -> None:
        mine = [DOCS[(i + k) % len(DOCS)] for k in range(3)]
        async with Client(server, mode="legacy") as c:
            await c.call_tool("skill_load", {"skill": "many-docs"})
            out: list[list[str]] = []
            ids: set[str] = set()

            async def one(k: int) -> None:
                selected, sid = await _select(c, mine[k % 3])
                out.append(selected)
                ids.add(sid)

            async with anyio.create_task_group() as tg:
                for k in range(10):
                    tg.start_soon(one, k)
            final, sid = await _select(c, mine[0])
            ids.add(sid)
            results[i] = [*out, final]
            sids[i] = ids
            assert sorted(final) == sorted(mine), (i, final)

    async with anyio.create_task_group() as tg:
        for i in range(20):
            tg.start_soon(client, i)
    assert len(results) == 20
    for i, ids in sids.items():
        assert len(ids) == 1, ids  # one session per connection
        mine = {DOCS[(i + k) % len(DOCS)] for k in range(3)}
        for selected in results[i]:
            assert set(selected) <= mine
    assert len({next(iter(ids)) for ids in sids.values()}) == 20


async def test_200_concurrent_calls_on_the_stateless_path(registry: Registry) -> None:
    """Modern-era requests each get a fresh session unless they echo their id; nothing crosses over."""
    async with Client(build_server(registry)) as c:
        errors: list[str] = []
        sids: list[str] = []

        async def one(i: int) -> None:
            doc = DOCS[i % len(DOCS)]
            selected, sid = await _select(c, doc)
            if selected != [doc]:
                errors.append(f"{i}: {selected}")
            sids.append(sid)
            res = await c.call_tool("skills", {"action": "list"})
            if res.is_error:
                errors.append(text(res))

        async with anyio.create_task_group() as tg:
            for i in range(200):
                tg.start_soon(one, i)
        assert errors == []
        assert len(set(sids)) == 200


async def test_echoed_session_keeps_state(registry: Registry) -> None:
    async with Client(build_server(registry)) as c:
        first, sid = await _select(c, DOCS[0])
        assert first == [DOCS[0]]
        second, sid2 = await _select(c, DOCS[1], meta={SESSION_META_KEY: sid})
        assert sid2 == sid and sorted(second) == sorted(DOCS[:2])
        other, sid3 = await _select(c, DOCS[2])  # no echo: a fresh session
        assert other == [DOCS[2]] and sid3 != sid
        guessed, sid4 = await _select(
            c, DOCS[3], meta={SESSION_META_KEY: "0" * 32}
        )  # unknown ids are not adopted
        assert guessed == [DOCS[3]] and sid4 != "0" * 32


@pytest.mark.parametrize("mode", MODES)
async def test_prompts(registry: Registry, tree: Path, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        names = [p.name for p in (await c.list_prompts()).prompts]
        assert "pdf-tools" in names and "alpha" in names
        assert "no-prompt" not in names  # user-invocable: false
        assert "needs-bin" not in names and "toml-only" not in names
        prompt = next(p for p in (await c.list_prompts()).prompts if p.name == "pdf-tools")
        assert (
            prompt.arguments and prompt.arguments[0].name == "arguments" and not prompt.arguments[0].required
        )
        got = await c.get_prompt("pdf-tools", {"arguments": 'report.pdf "second arg"'})
        body = got.messages[0].content.text
        assert body.startswith('Use report.pdf "second arg" on the PDF. First: report.pdf.')
        assert f"Dir: {tree / 'pdf-tools'}." in body
        assert "Literal $1." in body
        plain = await c.get_prompt("alpha", {"arguments": "x y"})
        assert plain.messages[0].content.text.endswith("ARGUMENTS: x y")
        assert names[0] == "skills_catalog"
        catalog = await c.get_prompt("skills_catalog", {"query": "extract text from a pdf"})
        text = catalog.messages[0].content.text
        assert text.startswith("- pdf-tools:")  # the relevant skill leads the catalog
        bare = await c.get_prompt("alpha")
        assert bare.messages[0].content.text.strip() == "Do the thing."
        for bad in ("nope", "no-prompt", "needs-bin"):
            with pytest.raises(MCPError):
                await c.get_prompt(bad)


def substitute(body: str, arguments: str, *, names: Sequence[str] = (), skill_dir: str = "") -> str:
    """What a skill prompt's text becomes: the `skill` tool's substitution, `${CLAUDE_SKILL_DIR}` included."""
    return substitute_arguments(body, arguments, names=names, env={"CLAUDE_SKILL_DIR": skill_dir})


def test_substitution_rules() -> None:
    assert substitute("a $ARGUMENTS b", "x y") == "a x y b"
    assert substitute("$ARGUMENTS[1] $ARGUMENTS.0 $1 $0", "one 'two three'") == "two three one two three one"
    assert substitute("$5 stays", "a") == "$5 stays\n\nARGUMENTS: a"  # no $ARGUMENTS in the body: appended
    assert substitute("hi $who and $what", "bob", names=["who", "what"]) == "hi bob and \n\nARGUMENTS: bob"
    assert substitute("cost \\$1.00 $ARGUMENTS", "x") == "cost $1.00 x"
    assert substitute("no args here", "") == "no args here"
    # a substituted value is never expanded again, and nothing runs
    assert substitute("$ARGUMENTS", "$ARGUMENTS $0 ${CLAUDE_SKILL_DIR}", skill_dir="/s") == (
        "$ARGUMENTS $0 ${CLAUDE_SKILL_DIR}"
    )
    assert substitute("!`rm -rf /` $ARGUMENTS", "x") == "!`rm -rf /` x"
    assert substitute("$ARGUMENTS", "unbalanced 'quote") == "unbalanced 'quote"


async def test_a_prompt_refuses_arguments_past_the_cap(registry: Registry) -> None:
    async with Client(build_server(registry)) as c:
        with pytest.raises(MCPError) as err:
            await c.get_prompt("alpha", {"arguments": "x" * (MAX_ARGUMENTS_CHARS + 1)})
        assert err.value.error.code == -32602
        assert (
            err.value.error.message == f"Prompt argument 'arguments' exceeds {MAX_ARGUMENTS_CHARS} characters"
        )
        text = (
            (await c.get_prompt("alpha", {"arguments": "x" * MAX_ARGUMENTS_CHARS})).messages[0].content.text
        )
        assert text.endswith("ARGUMENTS: " + "x" * MAX_ARGUMENTS_CHARS)


@settings(max_examples=150, deadline=None)
@given(body=st.text(max_size=200), args=st.text(max_size=100))
def test_substitution_never_crashes(body: str, args: str) -> None:
    out = substitute(body, args, names=["a", "b"], skill_dir="/d")
    assert isinstance(out, str)
    if args and "$ARGUMENTS" not in body and not re.search(r"\$\d", body):
        assert out.endswith(f"ARGUMENTS: {args}")


async def test_reload_without_watch_sends_no_list_changed(registry: Registry, tree: Path) -> None:
    """Without --watch the capabilities say listChanged: false, so a reload through the tool sends nothing."""
    seen: list[str] = []

    async def handler(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str):
            seen.append(method)

    server = build_server(registry, watch=False)
    async with Client(server, mode="legacy", message_handler=handler) as c:
        caps = c.server_capabilities
        assert caps.tools is not None and not caps.tools.list_changed
        assert caps.resources is not None and not caps.resources.list_changed and not caps.resources.subscribe
        write_skill(tree, "fresh-skill")
        res = await c.call_tool("skills", {"action": "reload"})
        assert not res.is_error
        assert "fresh-skill" in [p.name for p in (await c.list_prompts()).prompts]
        await anyio.sleep(0.3)
        assert not [m for m in seen if m.endswith("list_changed")]


async def test_reload_through_the_tool_notifies_only_what_changed(registry: Registry, tree: Path) -> None:
    seen: list[str] = []

    async def handler(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str):
            seen.append(method)

    server = build_server(registry, watch=True)
    async with Client(server, mode="legacy", message_handler=handler) as c:
        assert c.server_capabilities.prompts is not None and c.server_capabilities.prompts.list_changed
        res = await c.call_tool("skills", {"action": "reload"})  # nothing changed on disk
        assert not res.is_error
        await anyio.sleep(0.3)
        assert not [m for m in seen if m.endswith("list_changed")]
        # a new file in an existing skill: the resource list changed, the prompts and tools did not
        (tree / "alpha" / "extra.txt").write_text("more\n", encoding="utf-8")
        res = await c.call_tool("skills", {"action": "reload"})
        with anyio.fail_after(10):
            while "notifications/resources/list_changed" not in seen:
                await anyio.sleep(0.01)
        await anyio.sleep(0.3)
        assert "notifications/prompts/list_changed" not in seen
        assert "notifications/tools/list_changed" not in seen
        seen.clear()
        write_skill(tree, "fresh-skill")
        res = await c.call_tool("skills", {"action": "reload"})
        with anyio.fail_after(10):
            while "notifications/prompts/list_changed" not in seen:
                await anyio.sleep(0.01)
        assert "notifications/resources/list_changed" in seen
        assert seen.count("notifications/prompts/list_changed") == 1


@pytest.mark.parametrize("mode", MODES)
async def test_watch_sends_list_changed(registry: Registry, tree: Path, mode: str) -> None:
    seen: list[str] = []

    async def handler(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str):
            seen.append(method)

    server = build_server(registry, watch=True)
    async with Client(server, mode=mode, message_handler=handler) as c:
        if mode == "legacy":
            assert c.server_capabilities.tools is not None and c.server_capabilities.tools.list_changed
            await anyio.sleep(0.3)  # let the watcher start
            write_skill(tree, "watched-skill")
            with anyio.fail_after(20):
                while "notifications/tools/list_changed" not in seen:
                    await anyio.sleep(0.05)
            assert "notifications/prompts/list_changed" in seen
        else:
            async with c.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as sub:
                await anyio.sleep(0.3)
                write_skill(tree, "watched-skill")
                kinds: set[str] = set()
                with anyio.fail_after(20):
                    async for event in sub:
                        kinds.add(type(event).__name__)
                        if kinds >= {"ToolsListChanged", "PromptsListChanged", "ResourcesListChanged"}:
                            break
        names = [p.name for p in (await c.list_prompts()).prompts]
        assert "watched-skill" in names


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(
        ["skills", "skill_load", "skill_select_docs", "skill_list_docs", "read_skill", "skill", "nope"]
    ),
    args=st.dictionaries(
        st.sampled_from(["action", "skill", "skill_name", "docs", "mode", "query", "limit", "args", "x"]),
        _json,
    ),
)
def test_hostile_tool_arguments_give_results(registry: Registry, name: str, args: dict[str, Any]) -> None:
    """Whatever the arguments, a tool call answers with a result (maybe is_error), never a protocol error."""

    async def run() -> None:
        async with Client(build_server(registry)) as c:
            res = await c.call_tool(name, args)
            assert res.content and isinstance(res.is_error, bool)

    anyio.run(run)


@pytest.mark.skipif(
    not execution_available(), reason="the execution layer (skillyard.execution) is not installed yet"
)
async def test_close_releases_the_run_workspaces(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that stops serving removes its clients' skill_run workspaces at once, not at GC."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ws_root = tmp_path / f"skillyard-workspaces-{os.getuid()}"
    server = build_server(registry)
    try:
        async with Client(server) as c:
            res = await c.call_tool("skill_run", {"skill": "pdf-tools", "command": "true"})
            assert res.content
        assert [p for p in ws_root.iterdir() if p.name.startswith("ws_")]
    finally:
        server.close()
    assert not [p for p in ws_root.iterdir() if p.name.startswith("ws_")]
