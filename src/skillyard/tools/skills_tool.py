"""The `skills` tool (docs/tools.md): the registry, queried by the model in one call.

Every JSON shape comes from `skillyard.reports`, the same builders the CLI
uses, so `skillyard info x --json` and `skills(action="info", skill="x")`
never drift apart. Errors are `{"error": ...}` objects.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard import reports
from skillyard.tools.base import ToolDef, ToolResult, json_error, json_text
from skillyard.tools.common import MAX_NAME_CHARS

if TYPE_CHECKING:
    from skillyard.registry import Registry
    from skillyard.session import Session
    from skillyard.tools.install_gate import ApproveInstall

ACTIONS = ("list", "info", "check", "search", "install", "reload", "enable", "disable", "audit")
#: actions that need the `skill` field
NEEDS_SKILL = frozenset({"info", "check", "install", "enable", "disable", "audit"})
MAX_SEARCH_LIMIT = 100

DESCRIPTION = (
    "Query the skills registry. List available skills, check eligibility, get details and install hints; "
    "search skills by keyword; reload after installing binaries; enable or disable a skill; install a skill "
    "from a trusted source; audit a skill for dangerous patterns."
)
#: the `install` action stays in the enum either way; its description says whether this host allows it
INSTALL_OFF = (
    " The install action is disabled here: a person enables installs by the model with "
    "`[trust] model_installs = true` in their config file, or installs skills with `skillyard install`."
)
INSTALL_ON = (
    " install only takes sources the user listed, never replaces or shadows an existing skill"
    " and may need the user's approval."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS), "description": "Action to perform"},
        "skill": {
            "type": "string",
            "maxLength": MAX_NAME_CHARS,
            "description": "Skill name (required for info, check, install, enable, disable and audit)",
        },
        "filter": {
            "type": "string",
            "enum": list(reports.FILTERS),
            "default": "all",
            "description": "Filter for the 'list' action",
        },
        "verbose": {
            "type": "boolean",
            "default": False,
            "description": "Include full details in list output",
        },
        "query": {"type": "string", "maxLength": 1000, "description": "Search words for the 'search' action"},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_SEARCH_LIMIT,
            "default": 5,
            "description": "Maximum number of search results",
        },
        "from": {
            "type": "string",
            "maxLength": 4096,
            "description": "Install source: a hub name, a repository URL, or local:/path (default: the hub); "
            "only sources the user allows for installs by the model",
        },
        "force": {
            "type": "boolean",
            "default": False,
            "description": "Not honoured: installs by the model never replace an existing skill "
            "(a person does that with `skillyard install --force`)",
        },
        "persist": {
            "type": "boolean",
            "default": False,
            "description": "For enable/disable: also write the change to the config file",
        },
    },
    "required": ["action"],
    "additionalProperties": False,
}


def _result(data: dict[str, Any], display: str) -> ToolResult:
    return ToolResult(json_text(data), "error" in data and data.get("installed") is not True, display)


class SkillsTool:
    """Handlers for each action, bound to one registry."""

    def __init__(
        self,
        registry: Registry,
        *,
        approve_install: ApproveInstall | None = None,
        writable_roots: Callable[[], list[tuple[str, Path]]] | None = None,
    ) -> None:
        self.registry = registry
        #: the host's yes/no for each install the model asks for (None: no extra step)
        self.approve_install = approve_install
        #: where the model can write files (workspaces, artifacts): never an install source
        self.writable_roots = writable_roots
        #: serialised `list` answers for the current registry version (the model asks the same question often)
        self._lists: dict[tuple[str, bool], ToolResult] = {}
        self._lists_version = -1

    def definition(self) -> ToolDef:
        on = bool(getattr(self.registry.config, "model_installs", False))
        description = DESCRIPTION + (INSTALL_ON if on else INSTALL_OFF)
        return ToolDef(
            "skills", description, SCHEMA, self.handle, soft_enums=("action",), format_error=json_error
        )

    def handle(self, args: dict[str, Any], session: Session) -> ToolResult:
        action = args["action"]
        if action not in ACTIONS:
            return _result({"error": f"unknown action: {action}"}, f"skills: unknown action {action!r}")
        skill = args.get("skill")
        if action in NEEDS_SKILL and not (isinstance(skill, str) and skill.strip()):
            return _result(
                {"error": f"skill name required for '{action}' action"}, f"skills {action}: no skill"
            )
        reg = self.registry
        if action == "list":
            return self._list(args.get("filter", "all"), bool(args.get("verbose", False)))
        if action in ("info", "check"):
            report = reports.info_report if action == "info" else reports.check_report
            return _result(report(reg, skill), f"skills {action} {skill}")
        if action == "search":
            query = args.get("query")
            if not isinstance(query, str) or not query.strip():
                return _result({"error": "query required for 'search' action"}, "skills search: no query")
            data = reports.search_report(reg, query, int(args.get("limit", 5)))
            return _result(data, f"{data['count']} matches for {query!r}")
        if action == "reload":
            data = reg.reload().to_dict()
            return _result(data, f"reloaded: {data['current'].get('total', 0)} skills")
        if action in ("enable", "disable"):
            return self._toggle(skill, action == "enable", bool(args.get("persist", False)))
        if action == "install":
            return self._install(skill, args.get("from"))
        return self._audit(skill)

    def _list(self, filter: str, verbose: bool) -> ToolResult:
        reg = self.registry
        if self._lists_version != reg.version:
            self._lists = {}
            self._lists_version = reg.version
        key = (filter, verbose)
        cached = self._lists.get(key)
        if cached is None:
            data = reports.list_report(reg, filter, verbose)
            cached = self._lists[key] = _result(data, f"{data['count']} skills")
        return cached

    # ------------------------------------------------------------ actions with side effects

    def _toggle(self, name: str, enabled: bool, persist: bool) -> ToolResult:
        reg = self.registry
        if reg.get(name) is None:
            return _result(reports.not_found(name, reg), f"skills: {name} not found")
        try:
            elig = reg.set_enabled(name, enabled, persist=persist)
        except Exception as e:  # a config file that cannot be written is an answer, not a crash
            return _result(
                {"error": f"could not update config: {e}", "name": name}, f"skills: {name} not changed"
            )
        data = {
            "name": name,
            "enabled": enabled,
            "persisted": persist,
            "eligible": elig.eligible,
            "reasons": list(elig.reasons),
        }
        return _result(data, f"{'enabled' if enabled else 'disabled'} {name}")

    def _install(self, name: str, source: Any) -> ToolResult:
        """Through `install_gate` (the model's rules), never straight to the installer; `force` is
        not honoured: installs by the model never replace a skill."""
        from skillyard.tools import install_gate

        reg = self.registry
        try:
            protected = self.writable_roots() if self.writable_roots is not None else []
        except Exception as e:  # not knowing where the model writes means not installing
            reason = f"cannot tell where the model can write: {type(e).__name__}: {e}"
            outcome: dict[str, Any] = {"installed": False, "error": "install failed", "reason": reason}
        else:
            # a `from` that is not a string is the hub, as no `from` is (model_install reads it so)
            outcome = install_gate.model_install(
                reg, name, source, approve=self.approve_install, protected=protected
            )
        if "error" in outcome or not outcome.get("installed"):
            outcome.setdefault("installed", False)
            outcome.setdefault("error", "install failed")
            return ToolResult(json_text(outcome), True, f"install {name}: {outcome['error']}")
        installed = str(outcome.get("name") or name)
        reg.reload()
        skill = reg.get(installed)
        path = outcome.get("path") or ""
        data: dict[str, Any] = {
            "installed": True,
            "name": installed,
            "path": str(skill.path if skill is not None else path),
            **reports.eligibility_fields(reg, skill),
        }
        for key, value in outcome.items():
            data.setdefault(key, value)
        if skill is None:
            data.setdefault("warnings", []).append(
                "installed outside the current search path: it is not loaded until the install root is a root"
            )
        elif skill.source != "install" and path and not str(skill.path).startswith(str(path)):
            data.setdefault("warnings", []).append(f"a skill named '{installed}' in a higher root shadows it")
        return ToolResult(json_text(data), False, f"installed {installed}")

    def _audit(self, name: str) -> ToolResult:
        """The scanner's report (`skillyard audit --format json` shape); a scan that fails is an
        `{"error": ...}` answer (an install refusal keeps its own shape)."""
        from skillyard.install import InstallError, scan_path

        reg = self.registry
        skill = reg.get(name)
        if skill is None:
            return _result(reports.not_found(name, reg), f"skills: {name} not found")
        try:
            data = scan_path(skill.root, name=skill.name).to_dict()
        except InstallError as e:
            data = e.to_dict()
        except Exception as e:
            data = {"error": str(e) or type(e).__name__, "name": skill.name}
        return ToolResult(json_text(data), "error" in data, f"audit {name}: {data.get('max_severity', '?')}")
