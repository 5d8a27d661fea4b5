"""Tool definitions in each provider's own format.

The internal schema is plain JSON Schema (draft 2020-12 subset). OpenAI,
Anthropic and MCP take it as is; Gemini takes an OpenAPI 3.0 subset, so its
export uppercases types and drops what Gemini rejects (`additionalProperties`,
`$schema`, `default`, non-string enums, free-form objects without properties).
With `strict=True`, the two OpenAI exports carry the strict-mode rewrite of each
schema (`skillyard.tools.strict`) and `strict: true`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from skillyard.tools.base import ToolDef
from skillyard.tools.strict import strict_schema

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")
#: Providers with a strict mode that `strict=True` exports for.
STRICT_PROVIDERS = ("openai", "openai-responses")

_GEMINI_KEEP = frozenset(
    """
    type format description nullable enum properties required minProperties maxProperties items
    maxItems minItems minLength maxLength pattern minimum maximum anyOf
    """.split()
)


def export_tools(defs: Sequence[ToolDef], provider: str, *, strict: bool = False) -> list[dict[str, Any]]:
    """`defs` in `provider`'s request format; raises ValueError naming the choices for an unknown provider."""
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider: {provider!r} (expected one of: {', '.join(PROVIDERS)})")
    if strict and provider not in STRICT_PROVIDERS:
        raise ValueError(
            f"strict mode is only for the {' and '.join(STRICT_PROVIDERS)} exports (got {provider!r})"
        )
    if provider == "gemini":
        return [
            {
                "functionDeclarations": [
                    {"name": d.name, "description": d.description, "parameters": gemini_schema(d.parameters)}
                    for d in defs
                ]
            }
        ]
    out: list[dict[str, Any]] = []
    for d in defs:
        schema = strict_schema(d.parameters) if strict else copy.deepcopy(d.parameters)
        if provider == "openai":
            fn = {"name": d.name, "description": d.description, "parameters": schema}
            out.append({"type": "function", "function": {**fn, "strict": True} if strict else fn})
        elif provider == "openai-responses":
            # without strict mode every property need not be required; the schemas have optional fields.
            fields = {"name": d.name, "description": d.description, "parameters": schema, "strict": strict}
            out.append({"type": "function", **fields})
        else:
            key = "input_schema" if provider == "anthropic" else "inputSchema"
            out.append({"name": d.name, "description": d.description, key: schema})
    return out


def gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Convert a JSON schema to the Gemini `Schema` subset (types upper-case, unsupported keys removed)."""
    out: dict[str, Any] = {}
    t = schema.get("type")
    if isinstance(t, list):
        non_null = [x for x in t if x != "null"]
        if len(non_null) < len(t):
            out["nullable"] = True
        t = non_null[0] if non_null else "string"
    if isinstance(t, str):
        out["type"] = t.upper()
    for key, value in schema.items():
        if key not in _GEMINI_KEEP or key == "type":
            continue
        if key == "properties" and isinstance(value, dict):
            props = {}
            for name, sub in value.items():
                if not isinstance(sub, dict):
                    continue
                if sub.get("type") == "object" and not sub.get("properties"):
                    continue  # Gemini rejects an OBJECT without properties; such fields are optional maps
                props[name] = gemini_schema(sub)
            out["properties"] = props
        elif key == "items" and isinstance(value, dict):
            out["items"] = gemini_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            out["anyOf"] = [gemini_schema(v) for v in value if isinstance(v, dict)]
        elif key == "enum":
            if out.get("type") == "STRING" and isinstance(value, list) and value:
                out["enum"] = [str(v) for v in value]
        else:
            out[key] = copy.deepcopy(value)
    if "required" in out and "properties" in out:
        out["required"] = [r for r in out["required"] if r in out["properties"]]
        if not out["required"]:
            del out["required"]
    return out
