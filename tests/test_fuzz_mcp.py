"""Hostile tool arguments over the official `mcp` SDK client: each gets the tool's own clear error."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from skillyard.mcp import build_server
from skillyard.registry import Registry
from test_mcp_support import make_tree

#: every JSON value shape, hostile strings among the leaves
LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(["install", "enable", "reload", "../..", "a\x00b", "/etc/passwd"]),
)
JSON = st.recursive(
    LEAF,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=6,
)
#: the tools that read and answer (skill_run starts a process; its arguments are covered by its own tests)
TOOLS = ["skills", "skill_load", "skill_select_docs", "skill_list_docs", "read_skill", "skill"]
FIELDS = [
    "action",
    "skill",
    "skill_name",
    "docs",
    "include_all_docs",
    "mode",
    "filter",
    "limit",
    "query",
    "verbose",
]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    return Registry.from_roots([make_tree(tmp_path_factory.mktemp("mcp-fuzz"))])


async def _call(registry: Registry, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    async with Client(build_server(registry)) as c:
        res = await c.call_tool(name, arguments)
        assert res.content and res.content[0].type == "text"
        return str(res.content[0].text), bool(res.is_error)


@pytest.mark.parametrize("action", [["install"], {"a": 1}, [], 7, None])
def test_skills_action_of_any_json_type_is_the_tools_argument_error(
    registry: Registry, action: object
) -> None:
    """A non-string action used to reach a set lookup in the server and fail as 'unhashable type'."""
    text, is_error = anyio.run(_call, registry, "skills", {"action": action})
    assert is_error
    assert json.loads(text) == {
        "error": f"invalid arguments: field 'action' must be a string, got {_kind(action)}"
    }


def _kind(value: object) -> str:
    return {list: "array", dict: "object", int: "integer", type(None): "null"}[type(value)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(TOOLS), arguments=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4))
def test_any_arguments_get_an_answer_from_the_tool_itself(
    registry: Registry, name: str, arguments: dict[str, Any]
) -> None:
    text, _ = anyio.run(_call, registry, name, arguments)
    assert text.strip()
    assert "Traceback" not in text and "unhashable" not in text and "Error executing tool" not in text, text
