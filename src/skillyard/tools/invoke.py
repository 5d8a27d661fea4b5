"""Whole-skill loaders: `read_skill` and `skill` (docs/tools.md).

Both look a skill up by registry name only and return its body with the
frontmatter stripped; neither ever builds a path from the model's input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.tools.arguments import substitute_arguments
from skillyard.tools.base import ToolDef, ToolResult, json_text, object_schema, text_error
from skillyard.tools.common import MAX_NAME_CHARS, Unavailable, model_names, name_property, usable_skill

if TYPE_CHECKING:
    from skillyard.registry import Registry
    from skillyard.session import Session

READ_DESCRIPTION = (
    "Load the full workflow instructions for a skill. Call this when the user asks for a task that matches "
    "a skill in the catalog, then follow the instructions. Returns the skill's SKILL.md content."
)
SKILL_DESCRIPTION = (
    "Execute a skill within the conversation: returns the skill's instructions and its base directory. "
    "Pass args to fill the skill's $ARGUMENTS placeholders."
)
MAX_ARGS_CHARS = 64 * 1024


def _read_error(tool: str, message: str) -> str:
    return f"Error: Invalid parameters for tool '{tool}': {message}"


def _hints(registry: Registry, name: str) -> str:
    """` (did you mean: a, b?)` among the names the model may use, or nothing."""
    if not 0 < len(name) <= MAX_NAME_CHARS:
        return ""
    usable = set(model_names(registry))
    close = [n for n in registry.suggest(name, 5) if n in usable][:3]
    return f" (did you mean: {', '.join(close)}?)" if close else ""


class InvokeTools:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def definitions(self) -> list[ToolDef]:
        name_prop = name_property(self.registry, "Skill name, as listed in the catalog")
        read_schema = object_schema("skill_name", skill_name=name_prop)
        # the same enum rule as read_skill; a leading "/" (how users type a skill) is still accepted
        skill_prop = name_property(self.registry, "The skill name to execute")
        skill_prop["maxLength"] = MAX_NAME_CHARS + 1
        args_prop = {
            "type": "string",
            "maxLength": MAX_ARGS_CHARS,
            "description": "Optional arguments for the skill, as a user would type them",
        }
        skill_schema = object_schema("skill", skill=skill_prop, args=args_prop)
        return [
            ToolDef(
                "read_skill", READ_DESCRIPTION, read_schema, self.read_skill, ("skill_name",), _read_error
            ),
            ToolDef("skill", SKILL_DESCRIPTION, skill_schema, self.skill, ("skill",), text_error),
        ]

    def read_skill(self, args: dict[str, Any], session: Session) -> ToolResult:
        name = args["skill_name"]
        try:
            skill = usable_skill(self.registry, name)
        except Unavailable as e:
            if e.kind == "missing":
                return ToolResult(f"Error: Skill '{name}' not found.", True, f"read_skill: {name} not found")
            return ToolResult(f"Error: {e.message}", True, f"read_skill: {name} unavailable")
        try:
            body = session.body(skill)
        except OSError as e:
            return ToolResult(
                f"Error: could not read skill '{name}': {e.strerror or e}", True, "read_skill failed"
            )
        return ToolResult(body.strip(), False, f"Loaded skill: {skill.name}")

    def skill(self, args: dict[str, Any], session: Session) -> ToolResult:
        name = args["skill"].strip()
        if name.startswith("/"):
            name = name[1:]
        try:
            skill = usable_skill(self.registry, name)
        except Unavailable as e:
            if e.kind == "missing":
                hints = _hints(self.registry, name)
                return ToolResult(f'Skill "{name}" not found{hints}', True, f'Skill "{name}" not found')
            return ToolResult(e.message, True, f"skill: {name} unavailable")
        try:
            body = session.body(skill)
        except OSError as e:
            return ToolResult(f'Skill "{name}" could not be read: {e.strerror or e}', True, "skill failed")
        base_dir = str(skill.root)
        raw = args.get("args")
        if raw is not None:
            env = {"CLAUDE_SKILL_DIR": base_dir, "CLAUDE_SESSION_ID": session.session_id}
            try:
                body = substitute_arguments(body, raw, names=skill.arguments, env=env)
            except ValueError as e:
                return ToolResult(f'Skill "{name}": {e}', True, f"skill: {name} arguments too long")
        messages = [
            {
                "type": "text",
                "text": f"<command-message>{skill.name} is running…</command-message>\n"
                f"<command-name>{skill.name}</command-name>",
            },
            {"type": "text", "text": f"Base directory for this skill: {base_dir}\n\n{body}", "isMeta": True},
        ]
        return ToolResult(json_text(messages), False, f"Loaded skill: {skill.name}")
