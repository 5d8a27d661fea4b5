"""Executor lookup by name. The default is the sandbox, and it fails closed.

`auto` is still accepted (configurations written before it was retired use it)
and means `sandbox`: a run is never moved to `local` because the sandbox is
missing; it is refused with the reason and the fix instead.
"""

from __future__ import annotations

from typing import Any

from skillyard.execution.base import Executor
from skillyard.execution.container import ContainerExecutor
from skillyard.execution.local import LocalExecutor
from skillyard.execution.sandbox import SANDBOX_GID, SANDBOX_UID, SandboxExecutor

EXECUTOR_NAMES = ("sandbox", "local", "container", "ray")
#: Names accepted for compatibility, and what they mean now.
EXECUTOR_ALIASES = {"auto": "sandbox"}
DEFAULT_EXECUTOR = "sandbox"


def get_executor(
    name: str = DEFAULT_EXECUTOR,
    *,
    sandbox_uid: int = SANDBOX_UID,
    sandbox_gid: int = SANDBOX_GID,
    ray: Any = None,
) -> Executor:
    """An executor by name: sandbox (default), local, container or ray (ValueError otherwise).

    `ray` is a `RaySettings` (`[execution.ray]`); defaults apply when it is None.
    """
    if isinstance(name, str):
        name = EXECUTOR_ALIASES.get(name, name)
    if not isinstance(name, str) or name not in EXECUTOR_NAMES:
        raise ValueError(f"unknown executor: {name!r} (expected one of {', '.join(EXECUTOR_NAMES)})")
    if name == "local":
        return LocalExecutor()
    if name == "container":
        return ContainerExecutor()
    if name == "ray":
        from skillyard.execution.ray_executor import RayExecutor

        return RayExecutor(ray, sandbox_uid=sandbox_uid, sandbox_gid=sandbox_gid)
    return SandboxExecutor(uid=sandbox_uid, gid=sandbox_gid)


def configured_executor(settings: Any) -> Executor:
    """The executor `[execution]` names, with its sandbox identity (an `ExecutionSettings`)."""
    return get_executor(
        settings.executor,
        sandbox_uid=settings.sandbox_uid,
        sandbox_gid=settings.sandbox_gid,
        ray=getattr(settings, "ray", None),
    )
