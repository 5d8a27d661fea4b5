"""skillyard over MCP: the agent tools plus the MCP Skills extension (SEP-2640)."""

from skillyard.mcp.catalog import SkillCatalog
from skillyard.mcp.server import SkillyardServer, build_server
from skillyard.mcp.skills_extension import IDENTIFIER, SkillsExtension

__all__ = ["IDENTIFIER", "SkillCatalog", "SkillsExtension", "SkillyardServer", "build_server"]
