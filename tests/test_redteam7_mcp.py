"""A hostile MCP client or skill author against `skillyard serve`, through the official `mcp` client
(in memory). Each test failed before the fix it comes with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client, MCPError

from skillyard.mcp import build_server
from skillyard.registry import Registry
from skillyard.tools import Toolkit
from test_mcp_support import read_dir, write_skill

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_prompt_cannot_multiply_a_long_argument(tmp_path: Path) -> None:
    """prompts/get substitutes the client's `arguments` (up to 64 KiB) into every `$0` of the body: a
    body of `$0`s made the server build a result thousands of times the size of both. Past
    MAX_GROWTH_CHARS of growth it is now -32602, and ordinary arguments still work."""
    from skillyard.tools.arguments import MAX_GROWTH_CHARS

    root = tmp_path / "skills"
    write_skill(root, "many", body="$0 " * 2000 + "\n")
    async with Client(build_server(Registry.from_roots([root]))) as c:
        with pytest.raises(MCPError) as err:
            await c.get_prompt("many", {"arguments": "x" * 1000})
        assert err.value.error.code == -32602
        assert f"over {MAX_GROWTH_CHARS} characters longer" in err.value.error.message
        text = (await c.get_prompt("many", {"arguments": "ok"})).messages[0].content.text
        assert text.count("ok ") == 2000  # and "ARGUMENTS: ok" after them


#: Unicode tag characters (text a model reads and a person never sees) and a bidi override
HIDDEN = "\U000e0049\U000e0047\U000e004e\U000e004f\U000e0052\U000e0045 \u202eevil"


def _hidden(text: str) -> bool:
    return any(0xE0000 <= ord(c) <= 0xE007F or c == "\u202e" for c in text)


async def test_an_authors_hidden_characters_are_spelled_out_in_every_list(tmp_path: Path) -> None:
    """Bodies, docs and the catalog spell out characters that hide or move text, yet a skill's
    description reached hosts as written in prompts/list, prompts/get, resources/list and
    resources/directory/read, its argument hint in prompts/list, and a SKILL.toml tool's description
    and argument descriptions in tools/list and every provider export."""
    root = tmp_path / "skills"
    esc = HIDDEN.encode("unicode_escape").decode()  # YAML and TOML "\U000e0049" escapes
    write_skill(root, "sly", extra=f'argument-hint: "[file] {esc}"\n', body="Body.\n")
    text = (root / "sly" / "SKILL.md").read_text(encoding="utf-8")
    (root / "sly" / "SKILL.md").write_text(
        text.replace("description: Skill sly does a useful thing for tests.", f'description: "Tidy {esc}"'),
        encoding="utf-8",
    )
    tools = root / "shell"
    tools.mkdir()
    (tools / "SKILL.toml").write_text(
        f'[skill]\nname = "shell"\ndescription = "Shell tools"\n\n[[tools]]\nname = "say"\n'
        f'description = "Say {esc}"\nkind = "shell"\ncommand = "echo {{msg}} {{tone}}"\n'
        f'[tools.args]\nmsg = "What to say {esc}"\n'
        f'tone = {{ type = "string", enum = ["calm", "calm{esc}"], default = "calm{esc}" }}\n',
        encoding="utf-8",
    )
    registry = Registry.from_roots([root])
    assert HIDDEN in registry.get("sly").description  # the author's text, as parsed
    async with Client(build_server(registry)) as c:
        prompt = next(p for p in (await c.list_prompts()).prompts if p.name == "sly")
        resource = next(
            r for r in (await c.list_resources()).resources if str(r.uri) == "skill://sly/SKILL.md"
        )
        got = await c.get_prompt("sly", {"arguments": ""})
        listing = await read_dir(c, "skill://sly")
        say = next(t for t in (await c.list_tools()).tools if t.name.startswith("say"))
        seen = [
            prompt.description,
            prompt.arguments[0].description,
            resource.description,
            got.description,
            next(i["description"] for i in listing.resources if i["uri"] == "skill://sly/SKILL.md"),
            say.description,
            say.input_schema["properties"]["msg"]["description"],
            *say.input_schema["properties"]["tone"]["enum"][1:],
            say.input_schema["properties"]["tone"]["default"],
        ]
    for text in seen:
        assert not _hidden(text) and "\\u202e" in text, text
    exported = json.dumps(Toolkit(registry).export("openai"), ensure_ascii=False)
    assert "Say " in exported and not _hidden(exported)


async def test_the_catalog_prompt_can_be_completed(tmp_path: Path) -> None:
    """prompts/list offers `skills_catalog`, yet completion/complete on it answered -32602 "Unknown
    prompt": a host completing every listed prompt's arguments got an error for this one."""
    from mcp_types import PromptReference

    root = tmp_path / "skills"
    write_skill(root, "alpha", extra='argument-hint: "[file]"\n')
    async with Client(build_server(Registry.from_roots([root]))) as c:
        assert "skills_catalog" in [p.name for p in (await c.list_prompts()).prompts]
        got = await c.complete(
            PromptReference(type="ref/prompt", name="skills_catalog"), {"name": "query", "value": "pd"}
        )
        assert got.completion.values == [] and got.completion.total == 0
        got = await c.complete(
            PromptReference(type="ref/prompt", name="alpha"), {"name": "arguments", "value": ""}
        )
        assert got.completion.values == ["[file]"]
        with pytest.raises(MCPError):
            await c.complete(
                PromptReference(type="ref/prompt", name="nope"), {"name": "arguments", "value": ""}
            )


async def test_a_tool_output_nested_too_deeply_is_still_its_result(tmp_path: Path) -> None:
    """A result whose text starts with `{` is parsed for `structuredContent`; a SKILL.toml tool
    printing `{"a": [[[...` 20,000 deep made that parse raise RecursionError out of the call, and the
    client got "maximum recursion depth exceeded" instead of the command's output."""
    from skillyard.config import Config, ExecutionSettings

    deep = '{"a": ' + "[" * 20_000 + "]" * 20_000 + "}"
    d = tmp_path / "skills" / "deep"
    d.mkdir(parents=True)
    (d / "out.json").write_text(deep + "\n", encoding="utf-8")
    (d / "SKILL.toml").write_text(
        '[skill]\nname = "deep"\ndescription = "Prints a JSON file"\n\n'
        '[[tools]]\nname = "emit"\ndescription = "Print it"\nkind = "shell"\ncommand = "cat out.json"\n',
        encoding="utf-8",
    )
    registry = Registry.from_roots(
        [tmp_path / "skills"], Config(execution=ExecutionSettings(executor="local"))
    )
    async with Client(build_server(registry)) as c:
        (name,) = [t.name for t in (await c.list_tools()).tools if t.name.startswith("emit")]
        res = await c.call_tool(name, {})
    assert not res.is_error, res.content[0].text[:300]
    assert res.content[0].text.startswith(deep) and res.structured_content is None


async def test_reloads_that_change_nothing_reach_no_other_client(tmp_path: Path) -> None:
    """Every `skills reload` sent `{"event": "reload", "changed": []}` to every 2025-era client that
    set a log level, though the docs promise it only for a reload that changed something: any client
    could push as many messages to all the others as it made calls."""
    import anyio

    root = tmp_path / "skills"
    write_skill(root, "alpha")
    server = build_server(Registry.from_roots([root]))
    heard: list[dict] = []

    async def on_log(params: object) -> None:
        data = getattr(params, "data", None)
        if isinstance(data, dict) and data.get("event") == "reload" and "changed" in data:
            heard.append(data)

    async with (
        Client(server, mode="legacy", logging_callback=on_log) as listener,
        Client(server, mode="legacy") as caller,
    ):
        await listener.set_logging_level("info")
        for _ in range(20):
            assert not (await caller.call_tool("skills", {"action": "reload"})).is_error
        write_skill(root, "newcomer")
        assert not (await caller.call_tool("skills", {"action": "reload"})).is_error
        with anyio.fail_after(10):
            while not heard:
                await anyio.sleep(0.02)
        await listener.list_tools()  # its answer comes after anything already on its way
    assert len(heard) == 1 and set(heard[0]["changed"]) >= {"resources", "prompts"}, heard
