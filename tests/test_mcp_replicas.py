"""Two real `serve --transport http --watch` replicas over the same skill roots and config file.

A change made through one replica (an install, a persisted disable) or on disk reaches the
subscribers and list-changed listeners of the other: each replica watches the shared roots and the
config file. The official client talks to both, in both protocol eras.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from test_mcp_support import Seen, serving, write_skill

pytestmark = [
    pytest.mark.anyio,
    # the 2025-era subscribe call is deprecated in the SDK; testing it is the point
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def next_event(sub: Any, kind: str, uri: str | None = None) -> None:
    """Read a `subscriptions/listen` stream until an event of type `kind` (for `uri`) arrives."""
    with anyio.fail_after(30):
        async for event in sub:
            if type(event).__name__ == kind and (uri is None or getattr(event, "uri", None) == uri):
                return


async def resource_uris(c: Client) -> set[str]:
    return {str(r.uri) for r in (await c.list_resources()).resources}


def text(res: Any) -> str:
    return str(res.content[0].text)


async def test_changes_reach_every_replica(tmp_path: Path, outside_tmp: Path) -> None:
    skills = outside_tmp / "skills"
    installed = outside_tmp / "installed"
    allowed = outside_tmp / "allowed"
    write_skill(skills, "alpha")
    installed.mkdir()
    write_skill(allowed, "fresh")
    config = outside_tmp / "skillyard.toml"
    config.write_text(
        f'[install]\nroot = "{installed}"\n\n'
        f'[trust]\nmodel_installs = true\nsources = ["local:{allowed}/**"]\nmodel_local_paths = ["{allowed}"]\n',
        encoding="utf-8",
    )
    roots = [skills, installed]
    alpha = "skill://alpha/SKILL.md"
    with (
        serving(roots, tmp_path, "--watch", config=config) as url_a,
        serving(roots, tmp_path, "--watch", config=config) as url_b,
    ):
        seen_a, seen_b = Seen(), Seen()
        with anyio.fail_after(180):
            async with (
                Client(url_a, mode="legacy", message_handler=seen_a) as legacy_a,
                Client(url_b, mode="legacy", message_handler=seen_b) as legacy_b,
                Client(url_b) as modern_b,
            ):
                for c in (legacy_a, legacy_b):
                    caps = c.server_capabilities
                    assert caps.resources is not None and caps.resources.list_changed
                    assert caps.resources.subscribe
                    await c.subscribe_resource(alpha)
                async with modern_b.listen(
                    resources_list_changed=True, prompts_list_changed=True, resource_subscriptions=[alpha]
                ) as sub:
                    await anyio.sleep(1.0)  # both watchers are up

                    # 1. on disk: every replica's subscribers hear resources/updated
                    write_skill(skills, "alpha", body="Do the other thing.\n")
                    await seen_a.wait_for("notifications/resources/updated", uri=alpha)
                    await seen_b.wait_for("notifications/resources/updated", uri=alpha)
                    await next_event(sub, "ResourceUpdated", alpha)

                    # 2. an install through replica A reaches replica B's clients
                    listed = seen_b.count("notifications/resources/list_changed")
                    res = await legacy_a.call_tool(
                        "skills",
                        {"action": "install", "skill": "fresh", "from": f"local:{allowed / 'fresh'}"},
                    )
                    assert not res.is_error, text(res)
                    assert json.loads(text(res))["installed"] is True
                    await seen_b.wait_for("notifications/resources/list_changed", after=listed)
                    await next_event(sub, "ResourcesListChanged")
                    assert "skill://fresh/SKILL.md" in await resource_uris(legacy_b)
                    assert "skill://fresh/SKILL.md" in await resource_uris(modern_b)

                    # 3. a persisted disable through replica A reaches replica B's clients
                    listed = seen_b.count("notifications/resources/list_changed")
                    prompts = seen_b.count("notifications/prompts/list_changed")
                    res = await legacy_a.call_tool(
                        "skills", {"action": "disable", "skill": "alpha", "persist": True}
                    )
                    assert not res.is_error, text(res)
                    await seen_b.wait_for("notifications/resources/list_changed", after=listed)
                    await seen_b.wait_for("notifications/prompts/list_changed", after=prompts)
                    await next_event(sub, "ResourcesListChanged")
                    assert alpha not in await resource_uris(legacy_b)
                    assert alpha not in await resource_uris(modern_b)
                    assert alpha not in await resource_uris(legacy_a)

                    # ... and enabling it again, too
                    listed = seen_b.count("notifications/resources/list_changed")
                    res = await legacy_a.call_tool(
                        "skills", {"action": "enable", "skill": "alpha", "persist": True}
                    )
                    assert not res.is_error, text(res)
                    await seen_b.wait_for("notifications/resources/list_changed", after=listed)
                    assert alpha in await resource_uris(legacy_b)


async def test_unreadable_config_change_keeps_state(tmp_path: Path, outside_tmp: Path) -> None:
    """A config file left half-edited changes nothing and sends nothing; the server keeps serving."""
    skills = outside_tmp / "skills"
    write_skill(skills, "alpha")
    config = outside_tmp / "skillyard.toml"
    config.write_text("[skills]\ndisabled = []\n", encoding="utf-8")
    seen = Seen()
    with serving(skills, tmp_path, "--watch", config=config) as url:
        with anyio.fail_after(120):
            async with Client(url, mode="legacy", message_handler=seen) as c:
                await anyio.sleep(1.0)
                config.write_text("[skills\ndisabled = ['alpha'\n", encoding="utf-8")
                await anyio.sleep(1.5)
                assert seen.count("notifications/resources/list_changed") == 0
                assert "skill://alpha/SKILL.md" in await resource_uris(c)
                config.write_text("[skills]\ndisabled = ['alpha']\n", encoding="utf-8")
                await seen.wait_for("notifications/resources/list_changed")
                assert "skill://alpha/SKILL.md" not in await resource_uris(c)
