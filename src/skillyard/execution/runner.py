"""`SkillRunner`: what the `skill_run` tool and `skillyard run` call.

One run = get the session's workspace, stage the skill, stage inputs, build a
cleared environment, run `bash -c <command>` through the executor, then scrub
and cap stdout/stderr, collect outputs (legacy globs and the manifest), save
artifacts, and return the `skill_run` JSON (docs/execution.md).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from skillyard.execution.artifacts import (
    ArtifactError,
    ArtifactStore,
    FilesystemArtifactStore,
    parse_artifact_ref,
)
from skillyard.execution.base import (
    DEFAULT_TIMEOUT,
    MAX_TIMEOUT,
    Bind,
    ExecResult,
    ExecSpec,
    Executor,
    ExecutorUnavailable,
    KiB,
    Limits,
    MiB,
    max_timeout_for,
)
from skillyard.execution.collect import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_FILES,
    DEFAULT_MAX_TOTAL_BYTES,
    SCRUB_MARGIN,
    VAR_PREFIX,
    CollectedFile,
    CollectLimits,
    collect,
    workspace_var_base,
)
from skillyard.execution.executors import DEFAULT_EXECUTOR, EXECUTOR_ALIASES, EXECUTOR_NAMES, get_executor
from skillyard.execution.scrub import looks_secret_name, scrub
from skillyard.execution.tracing import span
from skillyard.execution.workspace import (
    SANDBOX_WORKSPACE,
    Workspace,
    WorkspaceError,
    WorkspaceManager,
    is_within,
    remove_tree,
    validate_skill_name,
)
from skillyard.model import Skill
from skillyard.schema_check import compile_schema

DEFAULT_OUTPUT_BYTES = 64 * KiB
_MAX_INPUT_BYTES = 512 * MiB
#: Variables skillyard sets for every run; a request or the config cannot override them.
RESERVED_ENV = frozenset(
    "WORKSPACE_DIR SKILLS_DIR WORK_DIR OUTPUT_DIR RUN_DIR SKILL_NAME SKILL_DIR HOME TMPDIR".split()
)
#: Host variables passed through (locale only); everything else is cleared.
HOST_ENV_ALLOWLIST = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


def _text(max_length: int, **schema: Any) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length, **schema}


def _globs(description: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "maxItems": 100, "items": _text(1024)}
    return {**schema, "description": description} if description else schema


#: JSON schema of the skill_run arguments, limits included: the one check of a call's arguments
#: (`RunRequest.from_arguments`, or the skill_run tool's dispatcher before `from_checked`), and what
#: the `skill_run` tool advertises, with an enum of skill names added.
RUN_ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "skill": _text(256, description="Name of the skill to run in."),
        "command": _text(64 * KiB, description="Shell command, run with `bash -c` at the skill root."),
        "cwd": _text(4096, description="Working dir, relative to the skill root or $WORK_DIR-style."),
        "env": {
            "type": "object",
            "maxProperties": 128,
            "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]{0,127}$"},
            "additionalProperties": _text(32 * KiB),
        },
        "output_files": _globs("Globs like out/*.txt."),
        "inputs": {
            "type": "array",
            "maxItems": 64,
            "items": {
                "type": "object",
                "properties": {
                    "from": _text(
                        4096,
                        pattern="^(artifact|host|workspace|skill)://.",
                        description="artifact://, host://, workspace:// or skill://",
                    ),
                    "to": _text(4096),
                    "mode": _text(4096, enum=["copy", "link"]),
                },
                "required": ["from"],
                "additionalProperties": False,
            },
        },
        "outputs": {
            "type": "object",
            "properties": {
                "globs": _globs(),
                "inline": {"type": "boolean"},
                "save": {"type": "boolean"},
                "name_template": _text(256),
                "max_files": {"type": "integer", "minimum": 1},
                "max_file_bytes": {"type": "integer", "minimum": 1},
                "max_total_bytes": {"type": "integer", "minimum": 1},
            },
            "additionalProperties": False,
        },
        "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT},
        "save_as_artifacts": {"type": "boolean"},
        "omit_inline_content": {"type": "boolean"},
        "artifact_prefix": _text(256),
    },
    "required": ["skill", "command"],
    "additionalProperties": False,
}
_check_arguments = compile_schema(RUN_ARGUMENTS_SCHEMA)
_ENV_NAME = re.compile(RUN_ARGUMENTS_SCHEMA["properties"]["env"]["propertyNames"]["pattern"])
#: The most output collection a request can ask for; larger values are lowered to these.
_OUTPUT_CEILINGS = {"max_files": 10_000, "max_file_bytes": 256 * MiB, "max_total_bytes": 1024 * MiB}


class RunError(ValueError):
    """A run request that cannot be carried out (bad cwd, bad input, unknown skill); clear message."""


@dataclass(frozen=True, slots=True)
class InputSpec:
    source: str
    to: str | None = None
    mode: str = "copy"


@dataclass(frozen=True, slots=True)
class OutputSpec:
    globs: tuple[str, ...] = ()
    inline: bool = False
    save: bool = False
    name_template: str = ""
    max_files: int = DEFAULT_MAX_FILES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES


def _without_nul(value: Any, where: str) -> None:
    """What the schema cannot say: no string in the arguments, key or value, holds a NUL byte."""
    if isinstance(value, str):
        if "\0" in value:
            raise ValueError(f"{where} must not contain NUL bytes")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _without_nul(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _without_nul(item, f"{where}[{i}]")


def _outputs(v: Mapping[str, Any] | None) -> OutputSpec | None:
    if v is None:
        return None
    sizes = {key: min(v[key], ceiling) for key, ceiling in _OUTPUT_CEILINGS.items() if key in v}
    return OutputSpec(
        tuple(v.get("globs") or ()),
        bool(v.get("inline")),
        bool(v.get("save")),
        v.get("name_template") or "",
        **sizes,
    )


@dataclass(frozen=True, slots=True)
class RunRequest:
    """The validated arguments of one skill_run call."""

    skill: str
    command: str
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    output_files: tuple[str, ...] = ()
    inputs: tuple[InputSpec, ...] = ()
    outputs: OutputSpec | None = None
    timeout: float | None = None
    save_as_artifacts: bool = False
    omit_inline_content: bool = False
    artifact_prefix: str = ""

    @classmethod
    def from_arguments(cls, args: Mapping[str, Any] | str) -> RunRequest:
        """skill_run arguments (a dict or its JSON text) checked against RUN_ARGUMENTS_SCHEMA;
        ValueError names the first problem, in the words the skill_run tool uses."""
        if isinstance(args, str | bytes):
            try:
                args = json.loads(args)
            except ValueError as e:
                raise ValueError(f"arguments are not valid JSON: {e}") from None
        if not isinstance(args, Mapping):
            raise ValueError("arguments must be a JSON object")
        problem = _check_arguments(dict(args), "")
        if problem:
            raise ValueError(problem)
        return cls.from_checked(args)

    @classmethod
    def from_checked(cls, args: Mapping[str, Any]) -> RunRequest:
        """Arguments that already match RUN_ARGUMENTS_SCHEMA (the skill_run tool's dispatcher checked
        them); only what a schema cannot say is checked here: a blank skill or command, NUL bytes."""
        for key in ("skill", "command"):
            if not args[key].strip():
                raise ValueError(f"{key} is required")
        for key, value in args.items():
            _without_nul(value, key)
        return cls(
            skill=args["skill"],
            command=args["command"],
            env=dict(args.get("env") or {}),
            timeout=None if args.get("timeout") is None else float(args["timeout"]),
            inputs=tuple(
                InputSpec(i["from"], i.get("to"), i.get("mode") or "copy") for i in args.get("inputs") or ()
            ),
            outputs=_outputs(args.get("outputs")),
            cwd=args.get("cwd"),
            output_files=tuple(args.get("output_files") or ()),
            save_as_artifacts=bool(args.get("save_as_artifacts")),
            omit_inline_content=bool(args.get("omit_inline_content")),
            artifact_prefix=args.get("artifact_prefix") or "",
        )


@dataclass(slots=True)
class RunResult:
    """The `skill_run` result (docs/execution.md)."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = -1
    timed_out: bool = False
    duration_ms: int = 0
    output_files: list[dict[str, Any]] = field(default_factory=list)
    artifact_files: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    executor: str = ""
    limits_hit: bool = False
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    run_dir: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def cap_text(data: bytes, cap: int, extra_secrets: tuple[str, ...] = ()) -> tuple[str, bool]:
    """Decode, scrub, then truncate to `cap` bytes on a UTF-8 boundary; (text, truncated)."""
    text = scrub(data.decode("utf-8", errors="replace"), extra_secrets)
    raw = text.encode("utf-8")
    if len(raw) <= cap:
        return text, False
    return raw[:cap].decode("utf-8", errors="ignore"), True


#: Why a remote skill's command is refused, and what to do instead.
NOT_RUNNABLE = (
    "skill {name} comes from a remote ([[skills.remote]]): its instructions can be read, but its scripts "
    "run only once a person installs it (skillyard install)"
)


@dataclass(frozen=True, slots=True)
class _StagedRun:
    """What staging hands to the execute and capture steps."""

    skill: str
    spec: ExecSpec
    run_rel: str  #: the run directory, relative to the workspace
    skill_rel: str  #: the staged skill, relative to the workspace
    secrets: tuple[str, ...]  #: values scrubbed from everything the run returns


class SkillRunner:
    """Runs skill commands in per-session workspaces through one executor."""

    def __init__(
        self,
        executor: str | Executor = DEFAULT_EXECUTOR,
        timeout: float = DEFAULT_TIMEOUT,
        network: bool = False,
        host_roots: tuple[str | os.PathLike[str], ...] | list[str | os.PathLike[str]] = (),
        artifact_store: ArtifactStore | None = None,
        workspace_root: str | os.PathLike[str] | None = None,
        retention: str = "session",
        *,
        limits: Limits | None = None,
        stdout_bytes: int = DEFAULT_OUTPUT_BYTES,
        stderr_bytes: int = DEFAULT_OUTPUT_BYTES,
        skill_lookup: Callable[[str], Skill | None] | None = None,
        max_timeout: float | None = None,
    ) -> None:
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not 0 < timeout <= MAX_TIMEOUT
        ):
            raise ValueError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}]")
        self._executor_arg = executor
        self._executor: Executor | None = executor if isinstance(executor, Executor) else None
        if isinstance(executor, str) and EXECUTOR_ALIASES.get(executor, executor) not in EXECUTOR_NAMES:
            raise ValueError(f"unknown executor: {executor!r} (expected one of {', '.join(EXECUTOR_NAMES)})")
        self.timeout = float(timeout)
        #: Ceiling for a timeout asked for in a request (default: 10x the default timeout, at least 10 minutes).
        self.max_timeout = float(max_timeout) if max_timeout else max_timeout_for(self.timeout)
        self.network = bool(network)
        self.host_roots = tuple(os.path.realpath(os.fspath(r)) for r in host_roots)
        self._store = artifact_store
        self.workspaces = WorkspaceManager(workspace_root, retention=retention)
        self.limits = limits or Limits()
        self.stdout_bytes = stdout_bytes
        self.stderr_bytes = stderr_bytes
        self.skill_lookup = skill_lookup
        self._lock = threading.Lock()

    # -- plumbing ------------------------------------------------------------------------------------------

    @property
    def executor(self) -> Executor:
        with self._lock:
            if self._executor is None:
                assert isinstance(self._executor_arg, str)
                self._executor = get_executor(self._executor_arg)
            return self._executor

    @property
    def artifact_store(self) -> ArtifactStore:
        with self._lock:
            if self._store is None:
                self._store = FilesystemArtifactStore()
            return self._store

    def close_session(self, session_id: str) -> bool:
        """Clean the session's workspace up per retention; True when it was removed."""
        return self.workspaces.close_session(session_id)

    def close(self) -> None:
        self.workspaces.close_all()

    def __enter__(self) -> SkillRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the run -------------------------------------------------------------------------------------------

    def run(
        self,
        skill: Skill,
        req: RunRequest,
        session_id: str = "default",
        extra_env: Mapping[str, str] | None = None,
        network: bool | None = None,
    ) -> RunResult:
        """Run `req.command` for `skill`: stage, execute, capture; RunError for requests that cannot be honoured."""
        if not isinstance(req, RunRequest):
            raise RunError("req must be a RunRequest (use RunRequest.from_arguments)")
        if req.skill != skill.name:
            raise RunError(f"request is for skill {req.skill!r} but skill {skill.name!r} was given")
        if not skill.runnable:
            raise RunError(NOT_RUNNABLE.format(name=skill.name))
        try:
            validate_skill_name(skill.name)
            ex = self.executor
            ws = self.workspaces.get(session_id)
        except (WorkspaceError, ValueError) as e:
            raise RunError(str(e)) from None
        extra = dict(extra_env or {})
        try:
            # One run at a time per workspace: host-side staging never races a command of the same session.
            with ws.lock:
                result = RunResult(executor=ex.name)
                net = self.network if network is None else network
                run = self._stage(ws, ex, skill, req, extra, net, result.warnings)
                er = self._execute(ex, run, result.warnings)
                self._capture(ws, req, run, er, result)
                return result
        finally:
            if self.workspaces.retention == "run":
                self.workspaces.close_session(session_id)

    def _stage(
        self,
        ws: Workspace,
        ex: Executor,
        skill: Skill,
        req: RunRequest,
        extra_env: dict[str, str],
        network: bool,
        warnings: list[str],
    ) -> _StagedRun:
        """The skill and the inputs in the workspace, a run directory, and the command's spec."""
        try:
            ws.repair()
            ws.set_owner(ex.host_uid())
            staged = ws.stage_skill(skill.name, skill.root)
            run_dir = ws.new_run_dir()
            with span("workspace.stage.inputs", skill=skill.name, count=len(req.inputs)):
                for spec in req.inputs:
                    self._stage_input(ws, skill, spec, ex, warnings)
        except (WorkspaceError, ArtifactError, OSError) as e:
            raise RunError(str(e)) from None
        except RecursionError:  # a tree a command nested past what Python's walk recurses
            raise RunError("cannot stage: a directory tree is nested too deeply") from None
        view = SANDBOX_WORKSPACE if ex.isolated else str(ws.root)
        run_rel = run_dir.relative_to(ws.root).as_posix()
        skill_rel = staged.relative_to(ws.root).as_posix()
        cwd = self._resolve_cwd(ws, req.cwd, view, run_rel, skill_rel)
        env = self._env(view, skill.name, skill_rel, run_rel, ex.isolated, req.env, extra_env, warnings)
        secrets = tuple(
            v for k, v in {**req.env, **extra_env}.items() if looks_secret_name(k) and isinstance(v, str)
        )
        limits = replace(
            self.limits,
            stdout_bytes=self.stdout_bytes + SCRUB_MARGIN,
            stderr_bytes=self.stderr_bytes + SCRUB_MARGIN,
        )
        timeout = req.timeout or self.timeout
        if timeout > self.max_timeout:
            warnings.append(
                f"timeout {timeout:g} s lowered to the configured maximum of {self.max_timeout:g} s"
            )
            timeout = self.max_timeout
        spec = ExecSpec(
            argv=["bash", "-c", req.command],
            cwd=cwd,
            env=env,
            timeout=timeout,
            limits=limits,
            binds=[
                Bind(ws.root, SANDBOX_WORKSPACE, True),
                Bind(ws.skills_dir, SANDBOX_WORKSPACE + "/skills", False),
            ],
            network=network,
            needs_bins=tuple(skill.requires.bins),
        )
        return _StagedRun(skill.name, spec, run_rel, skill_rel, secrets)

    @staticmethod
    def _execute(ex: Executor, run: _StagedRun, warnings: list[str]) -> ExecResult:
        """The command through the executor; an executor that cannot run at all is a RunError."""
        with span("workspace.run", skill=run.skill, executor=ex.name, network=run.spec.network):
            try:
                er = ex.run(run.spec)
            except ExecutorUnavailable as e:
                raise RunError(str(e)) from None
        warnings.extend(er.warnings)
        return er

    def _capture(
        self, ws: Workspace, req: RunRequest, run: _StagedRun, er: ExecResult, result: RunResult
    ) -> None:
        """Scrubbed, capped stdout and stderr, then the output files, into `result`."""
        result.executor = er.executor or result.executor
        result.exit_code = er.exit_code
        result.timed_out = er.timed_out
        result.duration_ms = er.duration_ms
        result.run_dir = run.run_rel
        result.stdout, t_out = cap_text(er.stdout, self.stdout_bytes, run.secrets)
        result.stderr, t_err = cap_text(er.stderr, self.stderr_bytes, run.secrets)
        result.stdout_truncated = t_out or er.stdout_truncated
        result.stderr_truncated = t_err or er.stderr_truncated
        if result.stdout_truncated:
            result.warnings.append("stdout truncated")
        if result.stderr_truncated:
            result.warnings.append("stderr truncated")
        if er.timed_out:
            result.warnings.append(
                f"command timed out after {run.spec.timeout:g} s; the process tree was killed"
            )
        self._collect(ws, req, run, result)
        result.warnings[:] = [scrub(w, run.secrets) for w in result.warnings]  # they name output files

    # -- helpers -------------------------------------------------------------------------------------------

    def _env(
        self,
        view: str,
        name: str,
        skill_rel: str,
        run_rel: str,
        isolated: bool,
        user_env: Mapping[str, str],
        extra_env: Mapping[str, str],
        warnings: list[str],
    ) -> dict[str, str]:
        env = {k: os.environ[k] for k in HOST_ENV_ALLOWLIST if k in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        env["PATH"] = SAFE_PATH
        for source in (extra_env, user_env):
            for k, v in source.items():
                usable = (
                    isinstance(k, str) and _ENV_NAME.fullmatch(k) and isinstance(v, str) and "\0" not in v
                )
                if not usable:
                    warnings.append(f"env variable ignored (invalid name or value): {k!r}")
                elif k in RESERVED_ENV:
                    warnings.append(f"env variable {k} is set by skillyard and was not overridden")
                else:
                    env[k] = v
        env.update(
            {
                "WORKSPACE_DIR": view,
                "SKILLS_DIR": f"{view}/skills",
                "WORK_DIR": f"{view}/work",
                "OUTPUT_DIR": f"{view}/out",
                "RUN_DIR": f"{view}/{run_rel}",
                "SKILL_NAME": name,
                "SKILL_DIR": f"{view}/{skill_rel}",
                "HOME": f"{view}/work",
                "TMPDIR": "/tmp" if isolated else f"{view}/{run_rel}/tmp",
            }
        )
        return env

    def _resolve_cwd(self, ws: Workspace, cwd: str | None, view: str, run_rel: str, skill_rel: str) -> str:
        """The command's cwd in the executor's view; RunError when it leaves the workspace."""
        if not cwd or not cwd.strip():
            rel = skill_rel
        else:
            c = cwd.strip()
            m = VAR_PREFIX.match(c)
            if m:
                var = m.group(1) or m.group(2)
                base = workspace_var_base(var, run_rel, skill_rel)
                if base is None:
                    raise RunError(f"cwd uses an unknown variable: ${var}")
                rel = posixpath.normpath(posixpath.join(base or ".", c[m.end() :].lstrip("/")))
            elif c.startswith("/"):
                norm = posixpath.normpath(c)
                if not is_within(norm, view):
                    raise RunError(f"cwd escapes the workspace: {cwd}")
                rel = posixpath.relpath(norm, view)
            else:
                rel = posixpath.normpath(posixpath.join(skill_rel, c))
            if rel == ".." or rel.startswith("../") or rel.startswith("/"):
                raise RunError(f"cwd escapes the workspace: {cwd}")
        host = os.path.realpath(ws.root / rel)
        if not is_within(host, os.path.realpath(ws.root)):
            raise RunError(f"cwd escapes the workspace: {cwd}")
        if not os.path.isdir(host):
            raise RunError(f"cwd does not exist: {cwd}")
        # The logical path (through the skill's links) is kept: it is what the user wrote, and it is contained.
        rel = rel if rel != "." else ""
        return view if not rel else f"{view}/{rel}"

    def _dest(self, ws: Workspace, to: str | None, basename: str) -> Path:
        if to is None or not to.strip():
            rel = f"work/inputs/{basename}"
        else:
            t = to.strip().replace("\\", "/")
            m = VAR_PREFIX.match(t)
            if m:
                var = m.group(1) or m.group(2)
                base = {"WORKSPACE_DIR": "", "WORK_DIR": "work", "OUTPUT_DIR": "out"}.get(var)
                if base is None:
                    raise RunError(f"inputs: 'to' uses an unsupported variable: ${var}")
                t = f"{base}/{t[m.end() :].lstrip('/')}".lstrip("/")
            if t.startswith("/"):
                raise RunError(f"inputs: 'to' must be workspace-relative: {to}")
            rel = posixpath.normpath(t)
            if rel.startswith("inputs/") or rel == "inputs":
                rel = "work/" + rel
        if rel in (".", "") or rel == ".." or rel.startswith("../"):
            raise RunError(f"inputs: 'to' escapes the workspace: {to}")
        top = rel.split("/")[0]
        if top not in ("work", "out", "runs"):
            raise RunError(f"inputs: 'to' must be under work/, out/ or runs/: {to}")
        dest = ws.root / rel
        parent_real = os.path.realpath(dest.parent)
        if not is_within(parent_real, os.path.realpath(ws.root)):
            raise RunError(f"inputs: 'to' escapes the workspace: {to}")
        if not is_within(parent_real, os.path.realpath(ws.root / top)):  # a link a command planted
            raise RunError(f"inputs: 'to' must be under work/, out/ or runs/ (it leads elsewhere): {to}")
        return dest

    def _stage_input(
        self, ws: Workspace, skill: Skill, spec: InputSpec, ex: Executor, warnings: list[str]
    ) -> None:
        """Materialise one input (what it could not do as asked goes to `warnings`)."""
        scheme, _, rest = spec.source.partition("://")
        ws_real = os.path.realpath(ws.root)
        if scheme == "artifact":
            name, version = parse_artifact_ref(rest)
            data, info = self.artifact_store.load(name, version)
            dest = self._dest(ws, spec.to, posixpath.basename(name))
            _prepare_dest(dest)
            dest.write_bytes(data)
            ws.chown_tree(dest)
            ws.record(
                "inputs", {"from": spec.source, "to": str(dest.relative_to(ws.root)), "version": info.version}
            )
            return
        if scheme == "host":
            if not self.host_roots:
                raise RunError("host:// inputs are disabled: no host roots are configured")
            path = "/" + rest.lstrip("/")
            real = os.path.realpath(path)
            if not any(is_within(real, r) for r in self.host_roots):
                raise RunError(f"host:// path is not under an allowed host root: {path}")
        elif scheme == "workspace":
            rel = posixpath.normpath(rest)
            if rel.startswith("/") or rel == ".." or rel.startswith("../"):
                raise RunError(f"workspace:// path escapes the workspace: {rest}")
            real = os.path.realpath(ws.root / rel)
            if not is_within(real, ws_real):
                raise RunError(f"workspace:// path escapes the workspace: {rest}")
        elif scheme == "skill":
            sname, _, srel = rest.partition("/")
            validate_skill_name(sname)
            if sname != skill.name and not (ws.skills_dir / sname).is_dir():
                other = self.skill_lookup(sname) if self.skill_lookup else None
                if other is None:
                    raise RunError(f"skill:// names a skill that is not staged in this workspace: {sname}")
                ws.stage_skill(other.name, other.root)
            base = os.path.realpath(ws.skills_dir / sname)
            real = os.path.realpath(os.path.join(base, posixpath.normpath(srel or ".")))
            if not is_within(real, base):
                raise RunError(f"skill:// path escapes the skill: {rest}")
        else:  # pragma: no cover - validated in from_arguments
            raise RunError(f"unsupported input: {spec.source}")
        src = Path(real)
        if not src.exists():
            raise RunError(f"input not found: {spec.source}")
        dest = self._dest(ws, spec.to, src.name or "input")
        _prepare_dest(dest)
        mode = spec.mode
        if mode == "link" and scheme == "host" and ex.isolated:
            warnings.append(
                f"link mode is not possible for host paths in an isolated executor; copied {spec.source}"
            )
            mode = "copy"
        if mode == "link":
            target = os.path.relpath(src, dest.parent) if is_within(str(src), ws_real) else str(src)
            os.symlink(target, dest)
        else:
            _copy_limited(src, dest)
            ws.chown_tree(dest)
        ws.record("inputs", {"from": spec.source, "to": dest.relative_to(ws.root).as_posix(), "mode": mode})

    def _collect(self, ws: Workspace, req: RunRequest, run: _StagedRun, result: RunResult) -> None:
        o, run_rel, skill_rel, secrets = req.outputs, run.run_rel, run.skill_rel, run.secrets
        with span("workspace.collect", patterns=len(req.output_files) + len(o.globs if o else ())):
            legacy = collect(ws.root, list(req.output_files), run_rel=run_rel, skill_rel=skill_rel)
            #: (files, inline their text, the artifact name prefix when they are saved)
            groups = [
                (legacy, not req.omit_inline_content, req.artifact_prefix if req.save_as_artifacts else None)
            ]
            if o is not None and o.globs:
                manifest = collect(
                    ws.root,
                    list(o.globs),
                    run_rel=run_rel,
                    skill_rel=skill_rel,
                    limits=CollectLimits(o.max_files, o.max_file_bytes, o.max_total_bytes),
                    exclude={f.name for f in legacy.files},
                )
                groups.append((manifest, o.inline, o.name_template if o.save else None))
            for got, _, _ in groups:
                result.warnings.extend(got.warnings)
                result.limits_hit |= got.limits_hit
        with span("workspace.inline", files=len(legacy.files)):
            for got, inline, _ in groups:
                result.output_files += [self._file_entry(f, inline, secrets) for f in got.files]
        to_save = [
            (f, prefix + scrub(f.name, secrets))
            for got, _, prefix in groups
            if prefix is not None
            for f in got.files
        ]
        if to_save:
            try:
                store = self.artifact_store
            except Exception as e:  # noqa: BLE001 - a broken store must not lose the run result
                result.warnings.append(f"save_as_artifacts requested but {e}; outputs are not persisted")
                return
            for f, name in to_save:
                if f.truncated:
                    result.warnings.append(f"cannot save truncated output file: {f.name}")
                    continue
                try:
                    info = store.save(name, f.data, mime_type=f.mime_type)
                except (ArtifactError, OSError) as e:
                    result.warnings.append(f"save artifact {name}: {e}")
                    continue
                result.artifact_files.append({"name": info.name, "version": info.version, "ref": info.ref()})
        if result.output_files or result.artifact_files:
            ws.record(
                "outputs",
                {
                    "files": [f["name"] for f in result.output_files],
                    "saved_as": [a["ref"] for a in result.artifact_files],
                    "limits_hit": result.limits_hit,
                },
            )

    @staticmethod
    def _file_entry(f: CollectedFile, inline: bool, secrets: tuple[str, ...]) -> dict[str, Any]:
        # scrubbed with the bytes read past the limit (a secret it cut is seen whole), then cut back
        cap = len(f.data) if f.truncated else sys.maxsize
        content = cap_text(f.data + f.tail, cap, secrets)[0] if inline and f.is_text else ""
        return {
            "name": scrub(f.name, secrets),  # a command may name a file after a secret as well as print it
            "content": content,
            "mime_type": f.mime_type,
            "size_bytes": f.size_bytes,
            "truncated": f.truncated,
        }


def _prepare_dest(dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_tree(dest)  # whatever is there, a FIFO included (writing to one would wait for a reader)


def _copy_limited(src: Path, dest: Path, max_bytes: int = _MAX_INPUT_BYTES, max_files: int = 10_000) -> None:
    """Copy a file or a tree without following symlinks, within size and count limits."""
    if src.is_file():
        if src.stat().st_size > max_bytes:
            raise RunError(f"input is larger than {max_bytes} bytes: {src}")
        shutil.copyfile(src, dest)
        return
    total = 0
    count = 0
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        for fname in filenames:
            p = os.path.join(dirpath, fname)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            count += 1
            total += os.path.getsize(p)
            if count > max_files or total > max_bytes:
                raise RunError(f"input tree exceeds {max_files} files or {max_bytes} bytes: {src}")
            shutil.copyfile(p, dest / rel / fname)
