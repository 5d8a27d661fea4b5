"""Executor lookup by name, and `auto`: the sandbox where it works, else local with a warning."""

from __future__ import annotations

from pathlib import Path

from skillyard.execution.base import ExecResult, ExecSpec, Executor
from skillyard.execution.container import ContainerExecutor
from skillyard.execution.local import LocalExecutor
from skillyard.execution.sandbox import SandboxExecutor

EXECUTOR_NAMES = ("auto", "sandbox", "local", "container")


class AutoExecutor(Executor):
    """Delegates to the sandbox when bubblewrap works here (probed once), else to local.

    Falling back is never silent: every result of a local fallback carries a warning.
    """

    name = "auto"

    def __init__(self) -> None:
        self._sandbox = SandboxExecutor()
        reason = self._sandbox.probe()
        self.fallback_reason = reason
        self.chosen: Executor = self._sandbox if reason is None else LocalExecutor()
        self.isolated = self.chosen.isolated

    def host_uid(self) -> int | None:
        return self.chosen.host_uid()

    def host_uid_for(self, path: Path) -> int | None:
        return self.chosen.host_uid_for(path)

    def run(self, spec: ExecSpec) -> ExecResult:
        result = self.chosen.run(spec)
        if self.fallback_reason is not None:
            result.warnings.append(
                f"sandbox unavailable ({self.fallback_reason}); ran with the local executor, without isolation"
            )
        return result


def get_executor(name: str = "auto") -> Executor:
    """An executor by name: auto, sandbox, local or container (ValueError otherwise)."""
    if not isinstance(name, str) or name not in EXECUTOR_NAMES:
        raise ValueError(f"unknown executor: {name!r} (expected one of {', '.join(EXECUTOR_NAMES)})")
    if name == "local":
        return LocalExecutor()
    if name == "sandbox":
        return SandboxExecutor()
    if name == "container":
        return ContainerExecutor()
    return AutoExecutor()
