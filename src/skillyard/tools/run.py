"""`skill_run` (docs/tools.md, docs/execution.md): run a command of an eligible skill in the session's workspace.

The advertised schema is the runner's own (`RUN_ARGUMENTS_SCHEMA`, with
`inputs` and `outputs`) plus an enum of skill names: one source of truth. Executor, timeout, network and host roots come from
`[execution]` in the config, per-skill `env`/`network` from `[skill.<name>]`.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard.tools.base import ToolDef, ToolResult, json_error, json_text
from skillyard.tools.common import Unavailable, name_property, usable_skill

if TYPE_CHECKING:
    from skillyard.registry import Registry
    from skillyard.session import Session

DESCRIPTION = (
    "Run a shell command of a loaded skill inside an isolated workspace (cwd: the skill root, where out/, "
    "work/ and inputs/ lead to the workspace). Returns stdout, stderr, exit_code, timed_out, duration_ms and "
    "collected output files. Load the skill with skill_load first."
)


def run_schema(registry: Registry) -> dict[str, Any]:
    """The runner's own argument schema (one source of truth) with an enum of runnable skills."""
    from skillyard.execution import RUN_ARGUMENTS_SCHEMA

    schema = copy.deepcopy(RUN_ARGUMENTS_SCHEMA)
    props = schema["properties"]
    props["skill"] = name_property(registry, "Skill name (load it with skill_load first)")
    for key, text in _DESCRIPTIONS.items():
        if key in props:
            props[key].setdefault("description", text)
    return schema


_DESCRIPTIONS = {
    "env": "Extra environment variables for the command",
    "inputs": "Files to stage into the workspace before running",
    "outputs": "Declarative output collection: globs, inline, save, name_template and limits",
    "timeout": "Timeout in seconds",
    "save_as_artifacts": "Save files matched by output_files as artifacts",
    "omit_inline_content": "With save_as_artifacts: return file metadata only",
    "artifact_prefix": "Prefix for artifact names (save_as_artifacts)",
}


class RunTool:
    """Binds the runner (built from the config on first use unless given) to the registry."""

    def __init__(self, registry: Registry, runner: Any = None) -> None:
        self.registry = registry
        self._runner = runner

    def definition(self) -> ToolDef:
        ex = self.registry.config.execution
        roots = ex.host_roots if self._runner is None else getattr(self._runner, "host_roots", ())
        text = (
            DESCRIPTION  # the user's files the model may read: without the folders it could only guess paths
        )
        if roots:
            where = ", ".join(str(r) for r in roots)
            text += f' Files under {where} can be staged as inputs: {{"from": "host:///abs/path/file"}}.'
        return ToolDef("skill_run", text, run_schema(self.registry), self.run, ("skill",), json_error)

    def runner(self) -> Any:
        """The configured runner: `[execution]` executor, timeout, network and host roots."""
        if self._runner is None:
            from skillyard.execution import SkillRunner, configured_executor

            ex = self.registry.config.execution
            self._runner = SkillRunner(
                configured_executor(ex),
                ex.timeout,
                ex.network,
                host_roots=tuple(ex.host_roots),
                skill_lookup=self._lookup,
            )
        return self._runner

    def _lookup(self, name: str) -> Any:
        """skill:// inputs may only read skills the model may load (eligible, not user-only) whose
        scripts may run (not a remote's)."""
        try:
            skill = usable_skill(self.registry, name)
        except Unavailable:
            return None
        return skill if skill.runnable else None  # a remote's files stay out too

    def writable_roots(self) -> list[tuple[str, Path]]:
        """Where the model can put files through skill_run: never an install source for it.

        The default workspace root lies in the temporary directory, which is refused anyway;
        a configured one is only known once the runner exists (or was handed in).
        """
        from skillyard.execution.artifacts import default_artifact_root

        out: list[tuple[str, Path]] = [("artifact store", default_artifact_root())]
        for label, part in (("workspace", "workspaces"), ("artifact store", "artifact_store")):
            root = getattr(getattr(self._runner, part, None), "root", None)  # a runner handed in may lack it
            if root is not None:
                out.append((label, Path(root)))
        return out

    def close_session(self, session_id: str) -> None:
        if self._runner is not None:
            self._runner.close_session(session_id)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()

    def run(self, args: dict[str, Any], session: Session) -> ToolResult:
        name = args["skill"]
        try:
            skill = usable_skill(self.registry, name)
        except Unavailable as e:
            return ToolResult(json_text({"error": e.message}), True, f"skill_run: {e.message}")
        from skillyard.execution import RunError, RunRequest

        try:
            request = RunRequest.from_checked(args)  # the dispatcher checked them against run_schema
        except ValueError as e:
            return ToolResult(json_error("skill_run", str(e)), True, f"skill_run: {e}")
        try:
            config = self.registry.config
            override = config.override(skill.name)
            network = override.network if override.network is not None else config.execution.network
            result = self.runner().run(
                skill, request, session_id=session.session_id, extra_env=dict(override.env), network=network
            )
        except (RunError, ValueError, TypeError) as e:
            return ToolResult(json_text({"error": str(e)}), True, f"skill_run: {e}")
        data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
        # A failing command is a result the model reads (exit_code); only a run that could not happen is an error.
        failed = bool(data.get("error"))
        display = f"{skill.name}: exit {data.get('exit_code')}" + (
            " (timed out)" if data.get("timed_out") else ""
        )
        return ToolResult(json_text(data), failed, display)
