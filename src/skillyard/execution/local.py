"""The `local` executor: no isolation, but a cleared environment, rlimits and process-group kills."""

from __future__ import annotations

import os

from skillyard.execution.base import (
    ExecResult,
    ExecSpec,
    Executor,
    count_user_processes,
    supervise,
)


class LocalExecutor(Executor):
    """Runs the argv directly on the host, as the current user.

    Guarantees: only `spec.env` reaches the command (the caller builds it from an
    allowlist), rlimits on memory, file size, open files and (for non-root users)
    processes, a wall-clock timeout that kills the process group and any
    descendant that left it. No file-system or network isolation.
    """

    name = "local"
    isolated = False

    #: Every result says so: `local` is only ever chosen explicitly, and the model should know.
    WARNING = "ran with the local executor: no isolation (host file system, network and user)"

    def run(self, spec: ExecSpec) -> ExecResult:
        spec.validate()
        uid = os.getuid()
        # RLIMIT_NPROC counts every process of the user, so the limit is relative to what already runs.
        base = count_user_processes(uid) if uid != 0 else 0
        if not os.path.isdir(spec.cwd):
            raise ValueError(f"cwd does not exist: {spec.cwd}")
        result = supervise(
            spec.argv,
            cwd=spec.cwd,
            env=spec.env,
            timeout=float(spec.timeout),
            limits=spec.limits,
            stdin=spec.stdin,
            nproc_base=base,
            executor=self.name,
            workspace=next((b.source for b in spec.binds if b.writable), None),
        )
        result.warnings.append(self.WARNING)
        return result
