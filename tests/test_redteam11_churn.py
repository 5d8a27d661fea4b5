"""Skills removed while a server keeps serving them until its next reload.

A prompt of a skill whose folder went a moment ago answered -32603 (an internal error, which
hosts report as a server fault) where a resource of the same skill answers -32602. Both now say
the skill is gone, with the code of a request for something that is not there.
"""

from __future__ import annotations

import shutil
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


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_prompt_of_a_skill_removed_since_the_reload_is_an_invalid_request(
    tmp_path: Path, mode: str
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    write_skill(root, "beta")
    async with Client(build_server(Registry.from_roots([root])), mode=mode) as c:
        assert (await c.get_prompt("alpha")).messages
        shutil.rmtree(root / "alpha")
        codes = []
        for read in (lambda: c.get_prompt("alpha"), lambda: c.read_resource("skill://alpha/SKILL.md")):
            with pytest.raises(MCPError) as e:
                await read()
            codes.append(e.value.error.code)
        assert codes == [-32602, -32602]
        assert (await c.get_prompt("beta")).messages  # the others are served as before
