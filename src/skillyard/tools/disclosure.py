"""Progressive disclosure (docs/tools.md): `skill_load`, `skill_select_docs`, `skill_list_docs`.

In "system" load mode the tools only change the session and the host rebuilds
the system message from it (`loaded: <name>`); in "result" mode, for hosts that
cannot edit the system message (MCP clients), the body and docs come back in
the tool result. Doc names are validated against the skill's own list and
kept in the skill's doc order, whatever order they were asked in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard._shown import shown
from skillyard.session import ALL_DOCS, order_docs, read_docs
from skillyard.skill_files import list_docs
from skillyard.tools.base import ToolDef, ToolResult, json_error, json_text, object_schema, text_error
from skillyard.tools.common import Unavailable, name_property, usable_skill

if TYPE_CHECKING:
    from skillyard.model import Skill
    from skillyard.registry import Registry
    from skillyard.session import Session

MODES = ("add", "replace", "clear")
MAX_DOCS_ARG = 1000

LOAD_DESCRIPTION = (
    "Prefer progressive disclosure: load a skill's full instructions (SKILL.md body) only when the task needs "
    "that skill, optionally with some of its docs (docs) or all of them (include_all_docs). Safe to call again "
    "to change the docs. Do not call it just to list skills."
)
SELECT_DESCRIPTION = (
    "Change which docs of a skill are loaded: mode 'add' (default 'replace') adds the given docs, 'replace' "
    "sets exactly them, 'clear' removes all; include_all_docs selects every doc. Unknown doc names are errors."
)
LIST_DESCRIPTION = (
    "List the doc files (.md/.txt other than SKILL.md) a skill offers, as a JSON array of paths."
)

_DOCS_PROP = {
    "type": "array",
    "items": {"type": "string"},
    "maxItems": MAX_DOCS_ARG,
    "description": "Doc paths as listed by skill_list_docs (e.g. USAGE.md, references/api.md)",
}


class DisclosureTools:
    """The three layer-2/3 tools, bound to a registry and a load mode."""

    def __init__(self, registry: Registry, load_mode: str) -> None:
        self.registry = registry
        self.load_mode = load_mode

    def definitions(self) -> list[ToolDef]:
        skill_prop = name_property(self.registry, "Skill name, as listed in the catalog")

        def schema(**more: Any) -> dict[str, Any]:
            return object_schema("skill", skill=skill_prop, **more)

        def all_docs(verb: str) -> dict[str, str]:
            return {"type": "boolean", "description": f"{verb} every doc of the skill"}

        load_schema = schema(docs=_DOCS_PROP, include_all_docs=all_docs("Load"))
        mode = {
            "type": "string",
            "enum": list(MODES),
            "default": "replace",
            "description": "How to apply docs",
        }
        select_schema = schema(docs=_DOCS_PROP, include_all_docs=all_docs("Select"), mode=mode)
        soft = ("skill",)
        return [
            ToolDef("skill_load", LOAD_DESCRIPTION, load_schema, self.load, soft, text_error),
            ToolDef("skill_select_docs", SELECT_DESCRIPTION, select_schema, self.select, soft, json_error),
            ToolDef("skill_list_docs", LIST_DESCRIPTION, schema(), self.list_docs, soft, text_error),
        ]

    # ------------------------------------------------------------ helpers

    def _skill(self, name: str) -> Skill:
        if not name.strip():
            raise Unavailable("missing", "skill is required")
        return usable_skill(self.registry, name)

    @staticmethod
    def _check_docs(skill: Skill, docs: list[str]) -> list[str]:
        available = list_docs(skill)
        unknown = [d for d in docs if d not in available]
        if unknown:
            listing = ", ".join(available) if available else "none"
            raise Unavailable(  # file names are an author's words: one line, every character shown
                "doc",
                shown(
                    f"unknown doc for skill '{skill.name}': {unknown[0]} (available: {listing})",
                    one_line=True,
                ),
            )
        return order_docs(available, docs)

    # ------------------------------------------------------------ handlers

    def load(self, args: dict[str, Any], session: Session) -> ToolResult:
        try:
            skill = self._skill(args["skill"])
            docs = self._check_docs(skill, args["docs"]) if "docs" in args else None
        except Unavailable as e:
            return ToolResult(e.message, True, f"skill_load: {e.message}")
        all_docs = bool(args.get("include_all_docs", False))
        session.load_skill(skill.name, docs, all_docs=all_docs)
        if self.load_mode == "result":
            try:
                text = session.render_skill(skill)
            except OSError as e:
                return ToolResult(f"could not read skill '{skill.name}': {e}", True, "skill_load failed")
            return ToolResult(text, False, f"Loaded skill: {skill.name}")
        return ToolResult(f"loaded: {skill.name}", False, f"Loaded skill: {skill.name}")

    def select(self, args: dict[str, Any], session: Session) -> ToolResult:
        try:
            skill = self._skill(args["skill"])
            docs = self._check_docs(skill, args.get("docs", []))
        except Unavailable as e:
            return ToolResult(json_text({"error": e.message}), True, f"skill_select_docs: {e.message}")
        mode = args.get("mode", "replace")
        include_all = bool(args.get("include_all_docs", False))
        available = list_docs(skill)
        current = session.selection(skill.name) if session.is_loaded(skill.name) else []
        new: list[str] | str
        if mode == "clear":
            new = []
        elif include_all:
            new = ALL_DOCS
        elif mode == "add":
            new = ALL_DOCS if current == ALL_DOCS else order_docs(available, [*current, *docs])
        else:  # replace: narrowing from "all" works
            new = docs
        session.load_skill(skill.name, None if new == ALL_DOCS else list(new), all_docs=new == ALL_DOCS)
        selected = session.selected_docs(skill)
        data: dict[str, Any] = {
            "skill": skill.name,
            "selected_docs": selected,
            "include_all_docs": new == ALL_DOCS,
            "mode": mode,
        }
        if self.load_mode == "result":
            try:
                data["docs"] = [{"path": d, "content": text} for d, text in read_docs(skill, selected)]
            except (KeyError, OSError) as e:
                return ToolResult(
                    json_text({"error": f"could not read doc: {e}"}), True, "skill_select_docs failed"
                )
        return ToolResult(json_text(data), False, f"{skill.name}: {len(selected)} docs selected")

    def list_docs(self, args: dict[str, Any], session: Session) -> ToolResult:
        try:
            skill = self._skill(args["skill"])
        except Unavailable as e:
            return ToolResult(e.message, True, f"skill_list_docs: {e.message}")
        docs = list_docs(skill)
        return ToolResult(json_text(docs), False, f"{skill.name}: {len(docs)} docs")
