"""Provider-neutral tool pieces: a definition (name, description, schema, handler) and a result."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from skillyard._shown import shown_json
from skillyard.schema_check import Check, compile_schema
from skillyard.tools.strict import Normalizer, normalizer

if TYPE_CHECKING:
    from skillyard.session import Session


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What the model gets back (`content`), whether it is an error, and a short line for humans."""

    content: str
    is_error: bool = False
    display: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: handler(arguments, session) -> ToolResult; arguments are already validated against the schema.
Handler = Callable[[dict[str, Any], "Session"], ToolResult]


def _default_error(tool: str, message: str) -> str:
    return f"Error: invalid arguments for tool '{tool}': {message}"


@dataclass(slots=True, eq=False)
class ToolDef:
    """One model-facing tool. `parameters` is a JSON schema (draft 2020-12 subset) for an object."""

    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    #: top-level fields whose `enum` is advertised but checked by the handler (it has the better message)
    soft_enums: tuple[str, ...] = ()
    #: how a validation problem is worded for this tool's callers
    format_error: Callable[[str, str], str] = _default_error
    #: hand the arguments over undecoded and unvalidated (SKILL.toml tools check them in the words docs/toml-tools.md lists)
    raw_arguments: bool = False
    _check: Check | None = field(default=None, repr=False)
    _normalize: Normalizer | None = field(default=None, repr=False)

    def validate(self, arguments: Any) -> str | None:
        """The first problem with `arguments`, or None when they match the schema."""
        if self._check is None:
            self._check = compile_schema(self.parameters, soft_enums=self.soft_enums)
        return self._check(arguments, "")

    def normalize(self, arguments: dict[str, Any]) -> dict[str, Any] | str:
        """`arguments` in this tool's own shape: strict-mode calls send `null` for "not given" and
        open maps as `{name, value}` lists. A sentence instead when a pair list is malformed."""
        if self._normalize is None:
            self._normalize = normalizer(self.parameters)
        return self._normalize(arguments)

    def error(self, message: str) -> ToolResult:
        return ToolResult(self.format_error(self.name, message), True, f"{self.name}: {message}")


def object_schema(required: str, **properties: Any) -> dict[str, Any]:
    """A tool's argument schema: these fields and no others, `required` among them."""
    return {"type": "object", "properties": properties, "required": [required], "additionalProperties": False}


def json_text(data: Any) -> str:
    """Compact, stable JSON for tool results: non-ASCII kept readable, hidden characters escaped."""
    return shown_json(json.dumps(data, ensure_ascii=False))


def text_error(tool: str, message: str) -> str:
    """Error wording for tools whose results are text (`skill_load`, `skill_list_docs`, `skill`)."""
    return f"Error: invalid arguments for {tool}: {message}"


def json_error(tool: str, message: str) -> str:
    """Error wording for tools whose results are JSON objects (`skills`, `skill_select_docs`)."""
    return json_text({"error": f"invalid arguments: {message}"})
