"""Installs by the model over MCP (official SDK client, in-process server): the same gate as the Toolkit.

The chain a model could try: skill_run writes a SKILL.toml and a script into its workspace, then
the `skills` tool installs that directory from `local:`. It must end in an error result.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from skillyard.config import Config
from skillyard.mcp import build_server
from skillyard.registry import Registry
from test_mcp_support import write_skill

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def text(res: Any) -> str:
    assert res.content and res.content[0].type == "text"
    return str(res.content[0].text)


def execution_available() -> bool:
    try:
        from skillyard.execution import RunRequest  # noqa: F401
    except ImportError:
        return False
    return True


PLANTED_TOML = (
    '[skill]\nname = "{name}"\ndescription = "Planted by a command"\n\n'
    '[[tools]]\nname = "go"\ndescription = "Go"\ncommand = "sh run.sh"\n'
)


async def test_install_off_by_default_over_mcp(tmp_path: Path, outside_tmp: Path) -> None:
    """Even from a directory that breaks no other rule, the default answer is no."""
    roots = tmp_path / "skills"
    write_skill(roots, "alpha")
    install_root = outside_tmp / "installed"
    registry = Registry.from_roots([roots, install_root], Config(install_root_override=install_root))
    src = outside_tmp / "incoming" / "fresh"
    src.mkdir(parents=True)
    (src / "SKILL.toml").write_text(PLANTED_TOML.format(name="fresh"), encoding="utf-8")
    (src / "run.sh").write_text("id\n", encoding="utf-8")
    server = build_server(registry)
    async with Client(server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert "install" in tools["skills"].input_schema["properties"]["action"]["enum"]
        assert "install action is disabled here" in (tools["skills"].description or "")
        res = await c.call_tool("skills", {"action": "install", "skill": "fresh", "from": f"local:{src}"})
        assert res.is_error
        data = json.loads(text(res))
        assert data["installed"] is False and data["error"] == "installs by the model are disabled"
        assert "[trust] model_installs = true" in data["hint"] and "skillyard install" in data["hint"]
        names = {t.name for t in (await c.list_tools()).tools}
        assert "go" not in names and "fresh__go" not in names
    assert registry.get("fresh") is None and not install_root.exists()


@pytest.mark.skipif(not execution_available(), reason="the execution layer is not installed")
@pytest.mark.parametrize("enabled", [False, True])
async def test_skill_run_then_install_is_refused(
    tmp_path: Path, request: pytest.FixtureRequest, enabled: bool
) -> None:
    roots = tmp_path / "skills"
    write_skill(roots, "scratch")
    install_root = tmp_path / "installed"
    config = Config(install_root_override=install_root)
    workspaces = Path(tempfile.gettempdir()) / f"skillyard-workspaces-{os.getuid()}"
    if enabled:  # a careless configuration: every path trusted, the workspaces listed
        config = Config(
            install_root_override=install_root,
            model_installs=True,
            trust_sources=("local:/**",),
            model_local_paths=(workspaces, Path("/")),
        )
    registry = Registry.from_roots([roots, install_root], config)
    server = build_server(registry)
    request.addfinalizer(server.close)
    planted = f"planted-{secrets.token_hex(4)}"
    command = (
        f"mkdir -p work/{planted} && printf '%s' '{PLANTED_TOML.format(name=planted)}' "
        f"> work/{planted}/SKILL.toml && echo id > work/{planted}/run.sh"
    )
    async with Client(server) as c:
        res = await c.call_tool("skill_run", {"skill": "scratch", "command": command})
        if res.is_error or json.loads(text(res)).get("exit_code") != 0:
            pytest.skip(f"skill_run cannot run here: {text(res)[:300]}")
        found = await anyio.to_thread.run_sync(lambda: list(workspaces.glob(f"*/work/{planted}")))
        assert len(found) == 1, found
        res = await c.call_tool(
            "skills", {"action": "install", "skill": planted, "from": f"local:{found[0]}"}
        )
        assert res.is_error
        data = json.loads(text(res))
        assert data["installed"] is False
        if enabled:
            assert data["error"] == "local source not allowed" and "temporary directory" in data["reason"]
        else:
            assert data["error"] == "installs by the model are disabled"
        assert planted not in {t.name for t in (await c.list_tools()).tools}
    assert registry.get(planted) is None and not install_root.exists()


async def test_approval_over_mcp(tmp_path: Path, outside_tmp: Path) -> None:
    """With installs allowed, the host's approve_install decides; a yes brings the new tool to the client."""
    roots = tmp_path / "skills"
    write_skill(roots, "alpha")
    install_root = outside_tmp / "installed"
    allowed = outside_tmp / "allowed"
    src = allowed / "fresh"
    src.mkdir(parents=True)
    (src / "SKILL.toml").write_text(PLANTED_TOML.format(name="fresh"), encoding="utf-8")
    (src / "run.sh").write_text("echo fresh\n", encoding="utf-8")
    config = Config(
        install_root_override=install_root,
        model_installs=True,
        trust_sources=(f"local:{allowed}/**",),
        model_local_paths=(allowed,),
    )
    registry = Registry.from_roots([roots, install_root], config)
    answers = [False, True]
    asked: list[dict[str, Any]] = []

    def approve(req: Any) -> bool:
        asked.append(req.to_dict())
        return answers.pop(0)

    with pytest.raises(ValueError, match="approve_install"):
        build_server(registry, approve_install="yes")  # type: ignore[arg-type]
    server = build_server(registry, approve_install=approve)
    async with Client(server) as c:
        args = {"action": "install", "skill": "fresh", "from": f"local:{src}"}
        res = await c.call_tool("skills", args)
        assert res.is_error and json.loads(text(res))["error"] == "install declined by the user"
        assert not install_root.exists()
        res = await c.call_tool("skills", args)
        assert not res.is_error, text(res)
        assert json.loads(text(res))["installed"] is True
        assert "go" in {t.name for t in (await c.list_tools()).tools}
    assert [a["resolved"] for a in asked] == [os.path.realpath(src)] * 2
    assert asked[0]["audit"] is not None and asked[0]["declared_name"] == "fresh"
