"""OpenAI strict mode: the tool schemas in its subset, and calls in its shape read back.

Strict mode constrains the model's output to the schema, but only accepts a
subset of JSON Schema: every property is listed in `required` (an optional one
is made nullable instead), every object has `additionalProperties: false`, and
only some keywords are allowed. `strict_schema()` rewrites a tool's own schema
into that subset:

- an optional property becomes `"type": [T, "null"]`, or `anyOf: [<schema>, {"type": "null"}]`
  when it carries an enum or is an object or array (an enum must not exclude the null it allows);
- an open map (`env`: an object of arbitrary names) becomes a list of `{name, value}` objects,
  since strict mode has no way to say "any key";
- keywords outside the subset are dropped (`maxLength`, `minLength`, `const`, unknown
  `format`s), `oneOf` becomes `anyOf`, an object with only `patternProperties` is an open map;
  a `default` moves into the description, where the model still reads it;
- an enum too large for strict mode's limits is dropped (the handler still checks the name).

`normalizer()` is the other half: compiled once per tool from its own schema, it
turns arguments in the strict shape back into the tool's shape before they are
validated, so `null` for an optional field means "not given" and a `{name,
value}` list is the map it stands for. Arguments in the tool's own shape pass
through unchanged, so both shapes dispatch alike.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

#: Keywords strict mode accepts (beyond those that shape objects and arrays).
ALLOWED_KEYWORDS = frozenset(
    """
    type description enum anyOf properties required additionalProperties items
    pattern format multipleOf maximum exclusiveMaximum minimum exclusiveMinimum minItems maxItems
    $defs $ref
    """.split()
)
#: String formats strict mode accepts.
ALLOWED_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
#: A string enum with more values than this must stay within ENUM_CHARS_LIMIT characters in total.
LARGE_ENUM_VALUES = 250
ENUM_CHARS_LIMIT = 15_000
#: Enum values allowed across one schema.
TOTAL_ENUM_VALUES = 1000

#: Argument shape in which a strict call sends an open map: a list of these.
PAIR_KEYS = ("name", "value")


def is_open_map(schema: Any) -> bool:
    """An object whose keys are not fixed: no `properties`, and `additionalProperties` not false."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and not schema.get("properties")
        and schema.get("additionalProperties", True) is not False
    )


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (an object schema) rewritten into strict mode's subset; the input is not changed."""
    out = _convert(schema)
    _limit_enums(out)
    return out


def _describe_default(description: Any, default: Any) -> str | None:
    try:
        shown = json.dumps(default, ensure_ascii=False)
    except (TypeError, ValueError):
        return description if isinstance(description, str) else None
    text = description if isinstance(description, str) else ""
    if shown in ("null", "[]", "{}"):
        return text or None
    return f"{text} (default: {shown})" if text else f"Default: {shown}"


def _convert(schema: dict[str, Any]) -> dict[str, Any]:
    if is_open_map(schema):
        return _pairs(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "oneOf" and isinstance(value, list) and "anyOf" not in schema:
            key = "anyOf"  # for arguments, "any of these" is what "exactly one of these" asks in practice
        if key not in ALLOWED_KEYWORDS:
            continue
        if key == "format" and value not in ALLOWED_FORMATS:
            continue
        if key in ("properties", "required", "$defs"):
            continue  # rebuilt below
        if key == "items" and isinstance(value, dict):
            out["items"] = _convert(value)
        elif key == "anyOf" and isinstance(value, list):
            out["anyOf"] = [_convert(v) for v in value if isinstance(v, dict)]
        elif key == "additionalProperties":
            continue  # always false below, for objects
        else:
            out[key] = copy.deepcopy(value)
    if "required" in schema and not (schema.get("type") == "object" or "properties" in schema):
        out["required"] = copy.deepcopy(schema["required"])
    if "default" in schema:
        described = _describe_default(schema.get("description"), schema["default"])
        if described:
            out["description"] = described
    if isinstance(schema.get("$defs"), dict):
        out["$defs"] = {k: _convert(v) for k, v in schema["$defs"].items() if isinstance(v, dict)}
    if schema.get("type") == "object" or isinstance(schema.get("properties"), dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = {r for r in schema.get("required", ()) if isinstance(r, str)}
        out["type"] = "object"
        out["properties"] = {
            name: _convert(sub) if name in required else _nullable(_convert(sub))
            for name, sub in props.items()
            if isinstance(sub, dict)
        }
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def _pairs(schema: dict[str, Any]) -> dict[str, Any]:
    """An open map as a list of `{name, value}` objects."""
    extra = schema.get("additionalProperties", True)
    value = _convert(extra) if isinstance(extra, dict) and extra else {"type": "string"}
    out: dict[str, Any] = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "value": value},
            "required": list(PAIR_KEYS),
            "additionalProperties": False,
        },
    }
    text = schema.get("description")
    note = "as a list of {name, value} pairs"
    out["description"] = f"{text} ({note})" if isinstance(text, str) and text else note.capitalize()
    return out


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` that also accepts null (what strict mode uses for "optional")."""
    t = schema.get("type")
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if not any(b.get("type") == "null" for b in branches):
            schema = {**schema, "anyOf": [*branches, {"type": "null"}]}
        return schema
    if isinstance(t, str) and t not in ("object", "array") and "enum" not in schema:
        return {**schema, "type": [t, "null"]} if t != "null" else schema
    if isinstance(t, list) and "enum" not in schema and "object" not in t and "array" not in t:
        return schema if "null" in t else {**schema, "type": [*t, "null"]}
    inner = {k: v for k, v in schema.items() if k != "description"}
    wrapped: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if "description" in schema:
        wrapped["description"] = schema["description"]
    return wrapped


def _enums(schema: Any, found: list[dict[str, Any]]) -> None:
    if isinstance(schema, dict):
        if isinstance(schema.get("enum"), list):
            found.append(schema)
        for value in schema.values():
            _enums(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _enums(value, found)


def _enum_chars(values: list[Any]) -> int:
    return sum(len(v) for v in values if isinstance(v, str))


def _limit_enums(schema: dict[str, Any]) -> None:
    """Drop enums strict mode would refuse; the largest go first when the total is over."""
    found: list[dict[str, Any]] = []
    _enums(schema, found)
    for node in found:
        values = node["enum"]
        if len(values) > LARGE_ENUM_VALUES and _enum_chars(values) > ENUM_CHARS_LIMIT:
            del node["enum"]
    remaining = sorted((n for n in found if "enum" in n), key=lambda n: len(n["enum"]), reverse=True)
    total = sum(len(n["enum"]) for n in remaining)
    for node in remaining:
        if total <= TOTAL_ENUM_VALUES:
            break
        total -= len(node["enum"])
        del node["enum"]


# ---------------------------------------------------------------- reading calls back

#: normalize(arguments) -> the arguments in the tool's own shape, or a sentence saying why not.
Normalizer = Callable[[dict[str, Any]], "dict[str, Any] | str"]


def normalizer(schema: dict[str, Any]) -> Normalizer:
    """Compile `schema` (the tool's own) into a function that reads strict-shape arguments back."""
    fix = _compile(schema, "")

    def run(arguments: dict[str, Any]) -> dict[str, Any] | str:
        try:
            return arguments if fix is None else fix(arguments)
        except _Problem as e:
            return str(e)

    return run


class _Problem(ValueError):
    """A strict-shape value that cannot be read back (a malformed pair list)."""


_Fix = Callable[[Any], Any]


def _compile(schema: Any, path: str) -> _Fix | None:
    """A function fixing a value of `schema`, or None when no value of it ever needs fixing."""
    if not isinstance(schema, dict):
        return None
    if is_open_map(schema):
        return _map_fix(path)
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict):
        item_fix = _compile(items, f"{path}[]")
        if item_fix is None:
            return None

        def fix_items(value: Any) -> Any:
            return [item_fix(v) for v in value] if isinstance(value, list) else value

        return fix_items
    props = schema.get("properties")
    if not isinstance(props, dict):
        return None
    required = frozenset(r for r in schema.get("required", ()) if isinstance(r, str))
    optional = frozenset(p for p in props if p not in required)
    subs = {
        name: f
        for name, sub in props.items()
        if (f := _compile(sub, f"{path}.{name}" if path else name)) is not None
    }

    def fix_object(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        changed: dict[str, Any] | None = None
        for key, v in value.items():
            if v is None and key in optional:
                if changed is None:
                    changed = dict(value)
                del changed[key]
                continue
            f = subs.get(key)
            if f is not None:
                new = f(v)
                if new is not v:
                    if changed is None:
                        changed = dict(value)
                    changed[key] = new
        return value if changed is None else changed

    return fix_object


def _map_fix(path: str) -> _Fix:
    where = f"field '{path}'" if path else "the arguments"

    def fix_map(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        out: dict[str, Any] = {}
        for i, item in enumerate(value):
            if not isinstance(item, dict) or set(item) != set(PAIR_KEYS) or not isinstance(item["name"], str):
                raise _Problem(
                    f"{where} must be an object or a list of {{name, value}} objects (item {i} is not)"
                )
            if item["name"] in out:
                raise _Problem(f"{where} names {item['name'][:100]!r} twice")
            out[item["name"]] = item["value"]
        return out

    return fix_map
