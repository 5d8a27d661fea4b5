"""`serve --watch` while the skill folder itself is removed, recreated or swapped.

A checkout, `rm -rf skills && cp -r ...` or a deploy that re-points a link replaces the root folder.
The watcher stayed on the folder it started on, now gone, so the server never saw a change again:
new skills were never served, edited ones stayed stale, until a restart. It now notices that a root
is no longer the folder it was, reloads in full and watches the folder that is there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client

from skillyard.mcp import build_server
from skillyard.registry import Registry
from test_mcp_support import Seen, write_skill

pytestmark = pytest.mark.anyio

LIST_CHANGED = "notifications/resources/list_changed"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _served(c: Client, name: str) -> None:
    """Until the `skills` tool lists `name` (a bound on the wait, not a timing assertion)."""
    with anyio.fail_after(30):
        while name not in str((await c.call_tool("skills", {"action": "list"})).content[0].text):
            await anyio.sleep(0.1)


async def test_a_removed_and_recreated_root_is_watched_again(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    server = build_server(Registry.from_roots([root]), watch=True)
    seen = Seen()
    async with Client(server, mode="legacy", message_handler=seen) as c:
        await anyio.sleep(0.5)  # the watcher starts with the connection
        shutil.rmtree(root)
        await seen.wait_for(LIST_CHANGED)
        write_skill(root, "beta")  # the folder is back, with a skill in it
        await _served(c, "beta")
        before = seen.count(LIST_CHANGED)
        write_skill(root, "gamma")  # and changes in it are seen again
        await _served(c, "gamma")
        await seen.wait_for(LIST_CHANGED, before)


async def test_a_root_link_pointed_elsewhere_is_followed(tmp_path: Path) -> None:
    first, second, root = tmp_path / "release-1", tmp_path / "release-2", tmp_path / "skills"
    write_skill(first, "alpha")
    write_skill(second, "beta")
    os.symlink(first, root)
    server = build_server(Registry.from_roots([root]), watch=True)
    async with Client(server, mode="legacy") as c:
        await anyio.sleep(0.5)
        swap = tmp_path / "skills.new"
        os.symlink(second, swap)
        os.replace(swap, root)  # what `ln -sfn` and deploy tools do
        await _served(c, "beta")
        write_skill(second, "gamma")
        await _served(c, "gamma")
