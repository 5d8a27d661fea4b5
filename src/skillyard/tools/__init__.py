"""Model-facing skill tools: definitions, provider exports and the dispatcher."""

from skillyard.tools.base import ToolDef, ToolResult
from skillyard.tools.install_gate import InstallRequest
from skillyard.tools.providers import PROVIDERS
from skillyard.tools.toolkit import BUILTIN_TOOLS, LOAD_MODES, Toolkit

__all__ = ["BUILTIN_TOOLS", "LOAD_MODES", "PROVIDERS", "InstallRequest", "ToolDef", "ToolResult", "Toolkit"]
