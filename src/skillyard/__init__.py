"""skillyard: the runtime for Agent Skills."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Diagnostic",
    "Eligibility",
    "InstallOption",
    "Registry",
    "Requirements",
    "Session",
    "Skill",
    "ToolArg",
    "ToolSpec",
    "Toolkit",
    "__version__",
]

if TYPE_CHECKING:
    from skillyard.model import Diagnostic, Eligibility, InstallOption, Requirements, Skill, ToolArg, ToolSpec
    from skillyard.registry import Registry
    from skillyard.session import Session
    from skillyard.tools import Toolkit


_MODEL_NAMES = frozenset(
    {"Diagnostic", "Eligibility", "InstallOption", "Requirements", "Skill", "ToolArg", "ToolSpec"}
)


def __getattr__(name: str) -> Any:
    # Imported on first use: every `skillyard` command imports this package first, and `--help`
    # or `validate` need none of these.
    if name in _MODEL_NAMES:
        from skillyard import model

        return getattr(model, name)
    if name == "Registry":
        from skillyard.registry import Registry

        return Registry
    if name == "Toolkit":
        from skillyard.tools import Toolkit

        return Toolkit
    if name == "Session":
        from skillyard.session import Session

        return Session
    raise AttributeError(name)
