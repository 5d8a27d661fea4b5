"""skillyard: the runtime for Agent Skills."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.model import Diagnostic, Eligibility, InstallOption, Requirements, Skill, ToolArg, ToolSpec

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
    from skillyard.registry import Registry
    from skillyard.session import Session
    from skillyard.tools import Toolkit


def __getattr__(name: str) -> Any:
    # Lazy so `import skillyard` stays cheap for the CLI and the parser benchmarks.
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
