"""The execution layer: workspaces, executors, output collection, artifacts and scrubbing.

See docs/execution.md for the layout, each executor's guarantees and the threat model.
"""

from skillyard.execution.artifacts import (
    ArtifactError,
    ArtifactInfo,
    ArtifactStore,
    FilesystemArtifactStore,
    parse_artifact_ref,
)
from skillyard.execution.base import (
    Bind,
    ExecResult,
    ExecSpec,
    Executor,
    ExecutorUnavailable,
    Limits,
    run_cancellable,
)
from skillyard.execution.container import ContainerExecutor
from skillyard.execution.executors import DEFAULT_EXECUTOR, EXECUTOR_NAMES, configured_executor, get_executor
from skillyard.execution.local import LocalExecutor
from skillyard.execution.runner import (
    RUN_ARGUMENTS_SCHEMA,
    RunError,
    RunRequest,
    RunResult,
    SkillRunner,
    cap_text,
)
from skillyard.execution.sandbox import SandboxExecutor
from skillyard.execution.scrub import scrub
from skillyard.execution.workspace import Workspace, WorkspaceError, WorkspaceManager

__all__ = [
    "DEFAULT_EXECUTOR",
    "EXECUTOR_NAMES",
    "RUN_ARGUMENTS_SCHEMA",
    "ArtifactError",
    "ArtifactInfo",
    "ArtifactStore",
    "Bind",
    "ContainerExecutor",
    "ExecResult",
    "ExecSpec",
    "Executor",
    "ExecutorUnavailable",
    "FilesystemArtifactStore",
    "Limits",
    "LocalExecutor",
    "RunError",
    "RunRequest",
    "RunResult",
    "SandboxExecutor",
    "SkillRunner",
    "Workspace",
    "WorkspaceError",
    "WorkspaceManager",
    "cap_text",
    "configured_executor",
    "get_executor",
    "parse_artifact_ref",
    "run_cancellable",
    "scrub",
]
