"""`skill_run` (seed 001): run a command of an eligible skill in the session's workspace.

The schema advertises `inputs` and `outputs` (the original forgot them) and
uses the same JSON names the runner reads, so the advertised schema is the
single source of truth. Executor, timeout, network and host roots come from
`[execution]` in the config, per-skill `env`/`network` from `[skill.<name>]`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.tools.base import ToolDef, ToolResult, json_text
from skillyard.tools.common import Unavailable, name_property, usable_skill

if TYPE_CHECKING:
    from skillyard.registry import Registry
    from skillyard.session import Session

DESCRIPTION = (
    "Run a shell command of a loaded skill inside an isolated workspace (cwd: the skill root, where out/, "
    "work/ and inputs/ lead to the workspace). Returns stdout, stderr, exit_code, timed_out, duration_ms and "
    "collected output files. Load the skill with skill_load first."
)
MAX_COMMAND_CHARS = 64 * 1024


def run_schema(registry: Registry) -> dict[str, Any]:
    str_list = {"type": "array", "items": {"type": "string"}, "maxItems": 1000}
    return {
        "type": "object",
        "properties": {
            "skill": name_property(registry, "Skill name"),
            "command": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_COMMAND_CHARS,
                "description": "Shell command, run with bash at the skill root",
            },
            "cwd": {
                "type": "string",
                "description": "Working directory, relative to the skill root (stays inside)",
            },
            "env": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "Extra environment variables",
            },
            "output_files": {**str_list, "description": "Glob patterns of files to return, e.g. out/*.txt"},
            "inputs": {
                "type": "array",
                "maxItems": 1000,
                "description": "Files to stage into the workspace before running",
                "items": {
                    "type": "object",
                    "properties": {
                        "from": {
                            "type": "string",
                            "description": "artifact://name[@version], host://abs/path, workspace://rel or "
                            "skill://name/rel",
                        },
                        "to": {
                            "type": "string",
                            "description": "Workspace-relative destination (default work/inputs/)",
                        },
                        "mode": {
                            "type": "string",
                            "enum": ["copy", "link"],
                            "description": "copy (default) or link",
                        },
                    },
                    "required": ["from"],
                    "additionalProperties": False,
                },
            },
            "outputs": {
                "type": "object",
                "description": "Declarative output collection",
                "properties": {
                    "globs": {
                        **str_list,
                        "description": "Workspace-relative globs (** allowed, $OUTPUT_DIR/** ok)",
                    },
                    "inline": {"type": "boolean", "description": "Return file contents inline"},
                    "save": {"type": "boolean", "description": "Save the files as artifacts"},
                    "name_template": {"type": "string", "description": "Prefix for artifact names"},
                    "max_files": {"type": "integer", "minimum": 1, "description": "Default 100"},
                    "max_file_bytes": {"type": "integer", "minimum": 1, "description": "Default 4 MiB"},
                    "max_total_bytes": {"type": "integer", "minimum": 1, "description": "Default 64 MiB"},
                },
                "additionalProperties": False,
            },
            "timeout": {
                "type": "number",
                "minimum": 0,
                "maximum": 86400,
                "description": "Timeout in seconds",
            },
            "save_as_artifacts": {
                "type": "boolean",
                "description": "Save files matched by output_files as artifacts",
            },
            "omit_inline_content": {
                "type": "boolean",
                "description": "With save_as_artifacts: return file metadata only",
            },
            "artifact_prefix": {
                "type": "string",
                "description": "Prefix for artifact names (save_as_artifacts)",
            },
        },
        "required": ["skill", "command"],
        "additionalProperties": False,
    }


def _run_error(tool: str, message: str) -> str:
    return json_text({"error": f"invalid arguments: {message}"})


class RunTool:
    """Binds the runner (built from the config on first use unless given) to the registry."""

    def __init__(self, registry: Registry, runner: Any = None) -> None:
        self.registry = registry
        self._runner = runner

    def definition(self) -> ToolDef:
        return ToolDef("skill_run", DESCRIPTION, run_schema(self.registry), self.run, ("skill",), _run_error)

    def runner(self) -> Any:
        if self._runner is None:
            from skillyard.execution import SkillRunner

            self._runner = SkillRunner.from_config(self.registry.config)
        return self._runner

    def run(self, args: dict[str, Any], session: Session) -> ToolResult:
        name = args["skill"]
        try:
            skill = usable_skill(self.registry, name)
        except Unavailable as e:
            return ToolResult(json_text({"error": e.message}), True, f"skill_run: {e.message}")
        from skillyard.execution import RunRequest

        try:
            request = RunRequest.from_arguments(args)
        except (ValueError, TypeError) as e:
            return ToolResult(json_text({"error": str(e)}), True, f"skill_run: {e}")
        config = self.registry.config
        override = config.override(skill.name)
        network = override.network if override.network is not None else config.execution.network
        result = self.runner().run(
            skill, request, session_id=session.session_id, extra_env=dict(override.env), network=network
        )
        data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
        # A failing command is a result the model reads (exit_code); only a run that could not happen is an error.
        failed = bool(data.get("error"))
        display = f"{skill.name}: exit {data.get('exit_code')}" + (
            " (timed out)" if data.get("timed_out") else ""
        )
        return ToolResult(json_text(data), failed, display)
