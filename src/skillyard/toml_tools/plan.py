"""The SKILL.toml tools a registry offers the model, under the names every surface uses.

`tool_plan(registry)` names every tool of the eligible skills (`plan_tool_names`),
leaves out templates that can never run (`lint_tool`), and is computed once per
`registry.version`, so the toolkit, the MCP server and the diagnostics agree.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from skillyard.model import BUILTIN_TOOL_NAMES, Diagnostic, Skill, ToolSpec
from skillyard.toml_tools.lint import lint_tool
from skillyard.toml_tools.naming import plan_tool_names

if TYPE_CHECKING:
    from skillyard.registry import Registry

Plan = tuple[dict[str, tuple[Skill, ToolSpec]], list[Diagnostic]]

_PLANS: WeakKeyDictionary[Registry, tuple[int, Plan]] = WeakKeyDictionary()
_LOCK = threading.Lock()


def tool_plan(registry: Registry) -> Plan:
    """Tool name → (skill, spec) for every SKILL.toml tool offered to the model, and the notes on
    tools renamed or left out. The same objects until `registry.version` moves."""
    version = registry.version
    with _LOCK:
        kept = _PLANS.get(registry)
    if kept is not None and kept[0] == version:
        return kept[1]
    plan, notes = plan_tool_names(registry.tool_skills(), BUILTIN_TOOL_NAMES)
    for name, (skill, spec) in list(plan.items()):
        found = lint_tool(spec, str(skill.root / "SKILL.toml"))
        notes.extend(found)
        if any(d.level == "error" for d in found):
            del plan[name]  # a template that can never run is not offered to the model
    with _LOCK:
        _PLANS[registry] = (version, (plan, notes))
    return plan, notes
