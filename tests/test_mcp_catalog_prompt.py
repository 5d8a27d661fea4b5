"""The `skills_catalog` prompt under its budget: which skills keep their descriptions depends on the client.

The tools' system message starts its window of described skills at an offset drawn from the session;
the MCP prompt always started at 0, so with more skills than its 8,000 characters hold, the same skills
(the first in order, which a skill author picks with a folder name) kept their descriptions for every
prompt-only host and the rest were names only for all of them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp import Client

from skillyard.mcp import build_server
from skillyard.mcp.server import SESSION_META_KEY
from skillyard.registry import Registry

pytestmark = pytest.mark.anyio
EVAL = Path(__file__).resolve().parent.parent / "benchmarks" / "search_eval"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    root = tmp_path_factory.mktemp("prompt") / "skills"
    shutil.copytree(EVAL / "skills", root)
    pitch = "Helpful assistant for files, images, documents, data, code and more. " * 14
    for i in range(40):
        d = root / f"aa-helper-{i:02d}"
        d.mkdir()
        (d / "SKILL.md").write_text(
            f"---\nname: aa-helper-{i:02d}\ndescription: {json.dumps(pitch)}\n---\nbody\n", encoding="utf-8"
        )
    return Registry.from_roots([root])


def _described(registry: Registry, text: str) -> set[str]:
    return {s.name for s in registry.eligible_skills() if f"- {s.name}: " in text}


async def _catalog(client: Client, meta: dict[str, str] | None = None) -> str:
    got = await client.get_prompt("skills_catalog", meta=meta)
    return got.messages[0].content.text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_each_client_sees_its_own_window_and_keeps_it(crowded: Registry, mode: str) -> None:
    server = build_server(crowded)
    every, union = len(crowded.eligible_skills()), set()
    windows = []
    for _ in range(8):
        async with Client(server, mode=mode) as c:
            text = await _catalog(c)
            assert len(text) <= 8000 and all(f"- {s.name}" in text for s in crowded.eligible_skills())
            if mode == "legacy":  # one connection is one client: its window does not move under it
                assert await _catalog(c) == text
            windows.append(_described(crowded, text))
            union |= windows[-1]
    assert all(0 < len(w) < every for w in windows)  # the budget holds only some descriptions
    # every skill is described for some client (before: the same 15 were names only for all of them)
    assert len(union) == every, (len(union), [len(w) for w in windows])


async def test_a_session_echoed_by_the_client_keeps_its_window(crowded: Registry) -> None:
    server = build_server(crowded)
    async with Client(server) as c:
        first = await _catalog(c, {SESSION_META_KEY: "a" * 32})
        assert await _catalog(c, {SESSION_META_KEY: "a" * 32}) == first
        others = {
            frozenset(_described(crowded, await _catalog(c, {SESSION_META_KEY: f"{i:032x}"})))
            for i in range(6)
        }
    assert len(others | {frozenset(_described(crowded, first))}) > 1
