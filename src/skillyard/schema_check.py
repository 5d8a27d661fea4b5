"""A small, fast checker for the JSON-schema subset skillyard advertises.

Every tool call goes through it (the dispatcher) and so does every
`RunRequest.from_arguments` (the runner's one check of skill_run arguments),
so it is compiled once per schema into closures and answers the first
problem as a sentence the model can act on ("missing required field
'skill'"). It never raises on any input value. `jsonschema` stays the
referee in the tests; this is the hot path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any

__all__ = ["Check", "compile_schema", "json_type"]

#: Check one value at a JSON pointer-ish location; returns an error sentence or None.
Check = Callable[[Any, str], "str | None"]

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def json_pattern(pattern: str) -> re.Pattern[str]:
    """A JSON Schema `pattern` with that standard's `$`: the end of the string. Python's `$` also
    matches before a final newline, so `^[A-Z_]+$` would accept the name "ODD\\n"."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "$":
            c = r"\Z"
        out.append(c)
        i += 1
    return re.compile("".join(out))


#: (Python types, JSON name) in the order they are tried: bool is an int, so it comes first.
_JSON_NAMES = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list | tuple, "array"),
    (dict, "object"),
)


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for error messages."""
    return next((name for kinds, name in _JSON_NAMES if isinstance(value, kinds)), type(value).__name__)


def _is_type(value: Any, t: str) -> bool:
    if t == "string":
        return isinstance(value, str)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if t == "number":
        return isinstance(value, int | float) and not isinstance(value, bool) and value == value
    if t == "array":
        return isinstance(value, list)
    if t == "object":
        return isinstance(value, dict)
    if t == "null":
        return value is None
    return False


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where(path: str) -> str:
    return f"field '{path}'" if path else "the arguments"


def compile_schema(schema: dict[str, Any], *, soft_enums: Collection[str] = ()) -> Check:
    """Compile `schema`; `soft_enums` names top-level fields whose enum is advisory (the handler answers)."""
    return _compile(schema, frozenset(soft_enums), top=True)


def _compile(schema: dict[str, Any], soft: frozenset[str], *, top: bool = False) -> Check:
    checks: list[Check] = []
    types = schema.get("type")
    if isinstance(types, str):
        types = [types]
    if types:
        tlist = list(types)
        wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in tlist)

        def check_type(v: Any, p: str) -> str | None:
            if any(_is_type(v, t) for t in tlist):
                return None
            return f"{_where(p)} must be {wanted}, got {json_type(v)}"

        checks.append(check_type)

    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        allowed = list(enum)
        shown = ", ".join(str(a) for a in allowed[:20]) + (", …" if len(allowed) > 20 else "")
        strings = frozenset(a for a in allowed if isinstance(a, str))
        others = [a for a in allowed if not isinstance(a, str)]

        def check_enum(v: Any, p: str) -> str | None:
            if isinstance(v, str):
                if v in strings:
                    return None
            elif any(v == a and isinstance(v, bool) == isinstance(a, bool) for a in others):
                return None
            return f"{_where(p)} must be one of: {shown} (got {_short(v)})"

        checks.append(check_enum)

    if "minimum" in schema or "maximum" in schema or "exclusiveMinimum" in schema:
        lo, hi = schema.get("minimum"), schema.get("maximum")
        xlo = schema.get("exclusiveMinimum")

        def check_range(v: Any, p: str) -> str | None:
            if isinstance(v, bool) or not isinstance(v, int | float):
                return None
            if xlo is not None and v <= xlo:
                return f"{_where(p)} must be > {xlo} (got {_short(v)})"
            if lo is not None and v < lo:
                return f"{_where(p)} must be >= {lo} (got {_short(v)})"
            if hi is not None and v > hi:
                return f"{_where(p)} must be <= {hi} (got {_short(v)})"
            return None

        checks.append(check_range)

    if "maxLength" in schema or "minLength" in schema:
        min_len, max_len = schema.get("minLength", 0), schema.get("maxLength")

        def check_len(v: Any, p: str) -> str | None:
            if not isinstance(v, str):
                return None
            if len(v) < min_len:
                return f"{_where(p)} must not be empty" if min_len == 1 else f"{_where(p)} is too short"
            if max_len is not None and len(v) > max_len:
                return f"{_where(p)} is too long ({len(v)} characters, at most {max_len})"
            return None

        checks.append(check_len)

    if isinstance(schema.get("pattern"), str):
        pattern = json_pattern(schema["pattern"])
        hint = f" ({schema['description']})" if isinstance(schema.get("description"), str) else ""

        def check_pattern(v: Any, p: str) -> str | None:
            if not isinstance(v, str) or pattern.search(v):
                return None
            return f"{_where(p)} does not match {schema['pattern']!r}{hint} (got {_short(v)})"

        checks.append(check_pattern)

    items = schema.get("items")
    if isinstance(items, dict) or "maxItems" in schema:
        item_check = _compile(items, soft) if isinstance(items, dict) else None
        max_items = schema.get("maxItems")

        def check_items(v: Any, p: str) -> str | None:
            if not isinstance(v, list):
                return None
            if max_items is not None and len(v) > max_items:
                return f"{_where(p)} has too many items ({len(v)}, at most {max_items})"
            if item_check is not None:
                for i, item in enumerate(v):
                    err = item_check(item, f"{p}[{i}]")
                    if err:
                        return err
            return None

        checks.append(check_items)

    names = schema.get("propertyNames")
    if "maxProperties" in schema or isinstance(names, dict):
        max_props = schema.get("maxProperties")
        name_check = _compile(names, soft) if isinstance(names, dict) else None
        rule = (
            f"names must match {names['pattern']!r}"
            if isinstance(names, dict) and "pattern" in names
            else "not allowed"
        )

        def check_keys(v: Any, p: str) -> str | None:
            if not isinstance(v, dict):
                return None
            if max_props is not None and len(v) > max_props:
                return f"{_where(p)} has too many entries ({len(v)}, at most {max_props})"
            for key in v if name_check is not None else ():
                if name_check(key, ""):
                    return f"{_where(p)} has an invalid name {_short(key)} ({rule})"
            return None

        checks.append(check_keys)

    props = schema.get("properties")
    if isinstance(props, dict) or "required" in schema or "additionalProperties" in schema:
        prop_checks = {
            name: _compile(_no_enum(sub) if top and name in soft else sub, soft)
            for name, sub in (props or {}).items()
            if isinstance(sub, dict)
        }
        required = [r for r in schema.get("required", ()) if isinstance(r, str)]
        extra = schema.get("additionalProperties", True)
        extra_check = _compile(extra, soft) if isinstance(extra, dict) else None
        known = ", ".join(prop_checks) or "none"

        def check_object(v: Any, p: str) -> str | None:
            if not isinstance(v, dict):
                return None
            for r in required:
                if r not in v:
                    return f"missing required field '{_join(p, r)}'"
            for key, value in v.items():
                sub = prop_checks.get(key)
                if sub is not None:
                    err = sub(value, _join(p, key))
                elif extra is False:
                    return f"unexpected field '{_join(p, str(key))}' (allowed: {known})"
                elif extra_check is not None:
                    err = extra_check(value, _join(p, str(key)))
                else:
                    err = None
                if err:
                    return err
            return None

        checks.append(check_object)

    def run(v: Any, p: str) -> str | None:
        for c in checks:
            err = c(v, p)
            if err:
                return err
        return None

    return run


def _join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def _no_enum(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "enum"}
