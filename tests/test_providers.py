"""Provider exports: every schema is valid JSON Schema 2020-12, and the SDK param types accept the exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import TypeAdapter

from skillyard.registry import Registry
from skillyard.tools import PROVIDERS, Toolkit
from skillyard.tools.providers import gemini_schema

TOML = """
[skill]
name = "ops"
description = "Ops helpers"

[[tools]]
name = "disk_usage"
description = "Show disk usage of {path}"
kind = "shell"
command = "du -sh {path}"
"""


@pytest.fixture
def kit(tmp_path: Path, make_skill: Any) -> Toolkit:
    r = tmp_path / "skills"
    make_skill(r, "alpha", "Alpha")
    make_skill(r, "beta", "Beta")
    (r / "ops").mkdir()
    (r / "ops" / "SKILL.toml").write_text(TOML, encoding="utf-8")
    return Toolkit(Registry.from_roots([r]))


def _schemas(kit: Toolkit) -> list[dict[str, Any]]:
    return [d.parameters for d in kit.definitions()]


def test_every_schema_is_valid_2020_12(kit: Toolkit) -> None:
    validator = jsonschema.Draft202012Validator
    assert len(_schemas(kit)) >= 7
    for schema in _schemas(kit):
        validator.check_schema(schema)
        assert schema["type"] == "object"


def test_shapes(kit: Toolkit) -> None:
    names = kit.names()
    assert names[-1] == "disk_usage"  # SKILL.toml tools follow the built-ins
    oa = kit.export("openai")
    assert [t["function"]["name"] for t in oa] == names
    assert all(
        t["type"] == "function" and set(t["function"]) == {"name", "description", "parameters"} for t in oa
    )
    resp = kit.export("openai-responses")
    assert all(set(t) == {"type", "name", "description", "parameters", "strict"} for t in resp)
    an = kit.export("anthropic")
    assert all(set(t) == {"name", "description", "input_schema"} for t in an)
    mcp = kit.export("mcp")
    assert all(set(t) == {"name", "description", "inputSchema"} for t in mcp)
    gem = kit.export("gemini")
    assert len(gem) == 1 and [f["name"] for f in gem[0]["functionDeclarations"]] == names
    for provider in PROVIDERS:
        json.dumps(kit.export(provider))  # JSON-serialisable
    with pytest.raises(ValueError, match="unknown provider"):
        kit.export("cohere")


def test_exports_are_copies(kit: Toolkit) -> None:
    kit.export("anthropic")[0]["input_schema"]["properties"].clear()
    assert kit.definitions()[0].parameters["properties"]


def test_openai_sdk_types_accept_exports(kit: Toolkit) -> None:
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.responses import FunctionToolParam

    chat = TypeAdapter(ChatCompletionToolParam)
    for tool in kit.export("openai"):
        chat.validate_python(tool)
    resp = TypeAdapter(FunctionToolParam)
    for tool in kit.export("openai-responses"):
        resp.validate_python(tool)


def test_anthropic_sdk_type_accepts_exports(kit: Toolkit) -> None:
    from anthropic.types import ToolParam

    adapter = TypeAdapter(ToolParam)
    for tool in kit.export("anthropic"):
        adapter.validate_python(tool)


def test_mcp_sdk_type_accepts_exports(kit: Toolkit) -> None:
    from mcp.types import Tool

    for tool in kit.export("mcp"):
        Tool.model_validate(tool)


_GEMINI_ALLOWED = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "minimum",
    "maximum",
    "anyOf",
}


def _walk_gemini(schema: dict[str, Any]) -> None:
    assert set(schema) <= _GEMINI_ALLOWED, set(schema) - _GEMINI_ALLOWED
    assert schema.get("type") in {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}
    if schema["type"] == "OBJECT":
        assert schema.get("properties"), "Gemini rejects OBJECT without properties"
        assert set(schema.get("required", [])) <= set(schema["properties"])
    if "enum" in schema:
        assert schema["type"] == "STRING" and all(isinstance(v, str) for v in schema["enum"])
    for sub in schema.get("properties", {}).values():
        _walk_gemini(sub)
    if "items" in schema:
        _walk_gemini(schema["items"])


def test_gemini_subset(kit: Toolkit) -> None:
    for decl in kit.export("gemini")[0]["functionDeclarations"]:
        assert set(decl) == {"name", "description", "parameters"}
        _walk_gemini(decl["parameters"])


def test_gemini_conversion_rules() -> None:
    out = gemini_schema(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "default": "x"},
                "n": {"type": "integer", "enum": [1, 2]},
                "free": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["a", "free"],
            "additionalProperties": False,
        }
    )
    assert out == {
        "type": "OBJECT",
        "properties": {"a": {"type": "STRING", "nullable": True}, "n": {"type": "INTEGER"}},
        "required": ["a"],
    }
