"""langchain-mcp-adapters against `skillyard serve`, run by a separate interpreter.

langchain-mcp-adapters 0.3.x needs the 1.x `mcp` SDK while skillyard needs 2.x, so
tests/test_compat.py runs this file in a venv of its own and checks what it prints:
one JSON object of observations per surface (or the error that surface raised).
It imports nothing from skillyard or the tests.

Usage: python compat_langchain_driver.py SERVER_PYTHON TREE CWD ENV_JSON
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.prompts import load_mcp_prompt
from langchain_mcp_adapters.resources import load_mcp_resources
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import types
from pydantic import BaseModel, ConfigDict


class _Params(BaseModel):
    model_config = ConfigDict(extra="allow")


class _SkillsRequest(BaseModel):
    """A request the 1.x SDK has no type for; `send_request` only needs `method` and `params`."""

    method: str
    params: _Params


class _AnyResult(types.Result):
    model_config = ConfigDict(extra="allow")


async def observe(server_python: str, tree: str, cwd: str, env: dict[str, str]) -> dict[str, Any]:
    client = MultiServerMCPClient(
        {
            "skillyard": {
                "transport": "stdio",
                "command": server_python,
                "args": ["-m", "skillyard", "--root", tree, "serve"],
                "env": env,
                "cwd": cwd,
            }
        }
    )
    out: dict[str, Any] = {}

    async def surface(name: str, fn: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        try:
            out[name] = await fn()
        except Exception:
            out[name] = {"error": traceback.format_exc()[-1500:]}

    async with client.session("skillyard") as session:

        async def tools() -> dict[str, Any]:
            by_name = {t.name: t for t in await load_mcp_tools(session)}
            listed = await by_name["skills"].ainvoke({"action": "list"})
            loaded = await by_name["skill_load"].ainvoke({"skill": "alpha"})
            return {"names": sorted(by_name), "skills": _text(listed), "load": _text(loaded)}

        async def resources() -> dict[str, Any]:
            listed = await session.list_resources()
            blobs = await load_mcp_resources(session, uris=["skill://alpha/SKILL.md"])
            return {"uris": [str(r.uri) for r in listed.resources], "text": blobs[0].as_string()}

        async def prompts() -> dict[str, Any]:
            listed = await session.list_prompts()
            messages = await load_mcp_prompt(session, "alpha", arguments={"arguments": "go"})
            return {"names": [p.name for p in listed.prompts], "text": str(messages[0].content)}

        async def skills() -> dict[str, Any]:
            listed = await session.send_request(
                _SkillsRequest(method="skills/list", params=_Params()),  # type: ignore[arg-type]
                _AnyResult,
            )
            got = await session.send_request(
                _SkillsRequest(method="skills/get", params=_Params(uri="skill://alpha/SKILL.md")),  # type: ignore[arg-type]
                _AnyResult,
            )
            dumped_list = listed.model_dump()
            dumped_get = got.model_dump()
            return {
                "names": [s["frontmatter"]["name"] for s in dumped_list["skills"]],
                "got": dumped_get["skill"]["frontmatter"]["name"],
            }

        await surface("tools", tools)
        await surface("resources", resources)
        await surface("prompts", prompts)
        await surface("skills", skills)
    return out


def _text(value: Any) -> str:
    """A LangChain tool returns text, or content blocks; either way the text is what matters."""
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        value = value[0]
    if isinstance(value, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in value)
    return str(value)


if __name__ == "__main__":
    server_python, tree, cwd, env_json = sys.argv[1:5]
    print(json.dumps(asyncio.run(observe(server_python, tree, cwd, json.loads(env_json)))))
