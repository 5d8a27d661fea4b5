"""Checking one model-supplied value against its declared type and rendering it canonically.

A value that reaches a command is always a string the runtime chose the form
of: integers as decimal digits, numbers in their shortest round-trip form,
booleans as `true`/`false`. Strings are refused when they hold bytes no argv
element or environment variable can carry (NUL, lone surrogates) or control
characters that only serve to hide text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from skillyard.model import ToolArg
from skillyard.schema_check import json_type

#: Largest single value, in UTF-8 bytes (Linux refuses argv elements over 128 KiB).
MAX_VALUE_BYTES = 100_000
#: Largest sum of all values of one call, in UTF-8 bytes.
MAX_TOTAL_BYTES = 1_000_000
#: Most items an array parameter may hold.
MAX_ARRAY_ITEMS = 1_000
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_INT_RE = re.compile(r"[+-]?[0-9]+")
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: Control characters refused in values: C0 except tab and newline, DEL, and the C1 block.
_CONTROL_RE = re.compile(r"[\x01-\x08\x0b-\x1f\x7f-\x9f]")


class ValueProblem(ValueError):
    """A value that does not fit its parameter; the message is the model-facing text."""


def brief(value: Any, limit: int = 40) -> str:
    """A short, printable rendering of a value for an error message."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            text = json_type(value)
    text = _CONTROL_RE.sub("?", text.replace("\x00", "?").replace("\n", "\\n").replace("\t", "\\t"))
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render_number(value: int | float) -> str:
    """Canonical text of a finite JSON number: integers in decimal, floats shortest round-trip."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def _problem(name: str, kind: str, got: str) -> ValueProblem:
    return ValueProblem(f"Parameter '{name}' declared as {kind} but got {got}")


def _numeric_text(name: str, kind: str, value: str) -> str:
    """A string that holds a JSON-style number (at most 40 characters), stripped."""
    text = value.strip()
    if len(text) > 40 or not _NUMBER_RE.fullmatch(text):
        raise _problem(name, kind, "non-numeric value")
    return text


def _finite(value: Any) -> bool:
    """A JSON number that is not a boolean and not inf or NaN."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or math.isfinite(value)


def _integer(name: str, value: Any) -> str:
    if isinstance(value, str):
        text = _numeric_text(name, "integer", value)
        if not _INT_RE.fullmatch(text):
            raise _problem(name, "integer", f"non-integer value {brief(text)}")
        value = int(text)
    if not _finite(value):
        raise _problem(name, "integer", "non-numeric value")
    if isinstance(value, float):
        if not value.is_integer():
            raise _problem(name, "integer", f"non-integer value {brief(value)}")
        if abs(value) > 2**63:
            raise _problem(name, "integer", "out-of-range value")
        value = int(value)
    if not INT64_MIN <= value <= INT64_MAX:
        raise _problem(name, "integer", "out-of-range value")
    return str(value)


def _number(name: str, value: Any) -> str:
    if isinstance(value, str):
        text = _numeric_text(name, "number", value)
        value = int(text) if _INT_RE.fullmatch(text) else float(text)
        if isinstance(value, float) and not math.isfinite(value):
            raise _problem(name, "number", "out-of-range value")
    if not _finite(value):
        raise _problem(name, "number", "non-numeric value")
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise _problem(name, "number", "out-of-range value")
    return render_number(value)


def _boolean(name: str, value: Any) -> str:
    if value is True or value == "true":
        return "true"
    if value is False or value == "false":
        return "false"
    raise ValueProblem(f"Parameter '{name}' declared as boolean but got '{brief(value)}'")


def _scalar_string(name: str, value: Any, what: str = "declared as string") -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueProblem(f"Parameter '{name}' {what} but got a non-finite number")
        return render_number(value)
    raise ValueProblem(f"Parameter '{name}' {what} but got {json_type(value)}")


def check_text(name: str, text: str) -> str:
    """Refuse text no argv element can carry faithfully; return it unchanged otherwise."""
    if "\x00" in text:
        raise ValueProblem(f"Parameter '{name}' must not contain NUL bytes")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueProblem(f"Parameter '{name}' must be valid Unicode text (lone surrogate)") from None
    if _CONTROL_RE.search(text):
        raise ValueProblem(
            f"Parameter '{name}' must not contain control characters (only tab and newline are allowed)"
        )
    if size > MAX_VALUE_BYTES:
        raise ValueProblem(f"Parameter '{name}' is too long ({size} bytes; at most {MAX_VALUE_BYTES})")
    return text


def _render_one(arg: ToolArg, value: Any) -> str:
    if arg.type == "integer":
        return _integer(arg.name, value)
    if arg.type == "number":
        return _number(arg.name, value)
    if arg.type == "boolean":
        return _boolean(arg.name, value)
    return check_text(arg.name, _scalar_string(arg.name, value))


def _enum_texts(arg: ToolArg) -> list[str]:
    out: list[str] = []
    for item in arg.enum or ():
        try:
            out.append(_render_one(arg, item) if arg.type != "array" else _scalar_string(arg.name, item))
        except ValueProblem:
            continue  # an enum entry that cannot match anything (authoring error, reported by the linter)
    return out


def render_value(arg: ToolArg, value: Any) -> str | list[str]:
    """Validate a non-null value for `arg`; return its canonical text (a list for arrays)."""
    if arg.type == "array":
        if not isinstance(value, list | tuple):
            raise ValueProblem(f"Parameter '{arg.name}' declared as array but got {json_type(value)}")
        if len(value) > MAX_ARRAY_ITEMS:
            raise ValueProblem(
                f"Parameter '{arg.name}' has too many items ({len(value)}; at most {MAX_ARRAY_ITEMS})"
            )
        items = [
            check_text(arg.name, _scalar_string(arg.name, v, "items must be strings, numbers or booleans"))
            for v in value
        ]
        if arg.enum is not None:
            allowed = _enum_texts(arg)
            for item in items:
                if item not in allowed:
                    raise ValueProblem(
                        f"Parameter '{arg.name}' items must be one of: {', '.join(allowed)} (got '{brief(item)}')"
                    )
        return items
    text = _render_one(arg, value)
    if arg.enum is not None:
        allowed = _enum_texts(arg)
        if text not in allowed:
            raise ValueProblem(
                f"Parameter '{arg.name}' must be one of: {', '.join(allowed)} (got '{brief(value)}')"
            )
    return text
