"""SKILL.toml `[[tools]]` of eligible skills as toolkit tools (docs/toml-tools.md).

Names come from `plan_tool_names` (never a built-in's), schemas from
`tool_schema`, and calls go to `run_tool`, which checks the arguments itself
and answers in the words docs/toml-tools.md lists; the dispatcher hands it the raw arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.tools.base import ToolDef, ToolResult

if TYPE_CHECKING:
    from skillyard.model import Skill, ToolSpec
    from skillyard.registry import Registry
    from skillyard.session import Session


def toml_definitions(registry: Registry) -> list[ToolDef]:
    """One ToolDef per shell tool of the eligible, model-invocable skills, in priority order; the names
    are `tool_plan`'s (one plan per registry version, never a built-in's name), so every surface agrees."""
    from skillyard.toml_tools.naming import tool_definition
    from skillyard.toml_tools.plan import tool_plan

    plan, _notes = tool_plan(registry)
    defs = {name: tool_definition(name, skill, spec) for name, (skill, spec) in plan.items()}
    return [
        ToolDef(name, d["description"], d["parameters"], _handler(registry, *plan[name]), raw_arguments=True)
        for name, d in defs.items()
    ]


def _handler(registry: Registry, skill: Skill, spec: ToolSpec) -> Any:
    def handle(arguments: Any, session: Session) -> ToolResult:
        from skillyard.toml_tools import run_tool

        if not registry.is_eligible(skill.name):
            return ToolResult(
                f"Error: skill '{skill.name}' is no longer available", True, f"{spec.name}: unavailable"
            )
        from skillyard.execution import configured_executor

        # run_tool lets a tool's own timeout win over the configured one
        execution = registry.config.execution
        text, is_error = run_tool(
            skill, spec, arguments, executor=configured_executor(execution), timeout=execution.timeout
        )
        return ToolResult(text, bool(is_error), f"{skill.name}/{spec.name}" + (" failed" if is_error else ""))

    return handle
