"""Errors raised while turning a SKILL.toml tool call into a command."""

from __future__ import annotations


class ToolArgError(ValueError):
    """A tool call the runtime refuses; the message is meant for the model.

    `errors` keeps every individual problem so callers can show them one by one;
    `str(err)` joins them.
    """

    def __init__(self, message: str | list[str]) -> None:
        self.errors: list[str] = [message] if isinstance(message, str) else list(message)
        super().__init__("; ".join(self.errors))


class TemplateError(ToolArgError):
    """The skill's own command template cannot be run safely (an authoring error)."""
