"""A hostile MCP client or skill author against `skillyard serve`, through the official `mcp` client
(in memory). Each test failed before the fix it comes with."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, MCPError

from skillyard.mcp import build_server
from skillyard.registry import Registry
from test_mcp_support import write_skill

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
