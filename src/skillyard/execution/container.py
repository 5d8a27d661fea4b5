"""The `container` executor: one throw-away Docker/Podman container per run.

The command line is built as data (`build_argv`) so it can be checked without
a daemon. Environment values are neither on the command line nor in the
client's environment (the client runs on the host: `LD_PRELOAD`, `DOCKER_HOST`
or `DOCKER_CONFIG` from a request would act there): they are an env file the
client reads from a memfd (`--env-file /dev/fd/N`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
import uuid

from skillyard.execution.base import (
    ExecResult,
    ExecSpec,
    Executor,
    ExecutorUnavailable,
    MiB,
    memfd,
    supervise,
)

DEFAULT_IMAGE = "python:3.12-slim"
#: Host variables the runtime's client reads to find and reach its daemon.
_PASS_THROUGH = tuple(
    "DOCKER_HOST DOCKER_CONFIG DOCKER_CONTEXT DOCKER_CERT_PATH DOCKER_TLS_VERIFY HOME".split()
)
_lock = threading.Lock()
_available: dict[str, str | None] = {}


class ContainerExecutor(Executor):
    """Runs the argv in `<runtime> run --rm` with no network, read-only rootfs and no capabilities."""

    name = "container"
    isolated = True

    def __init__(
        self,
        runtime: str | None = None,
        *,
        image: str = DEFAULT_IMAGE,
        user: str | None = None,
        tmp_size_bytes: int = 256 * MiB,
    ) -> None:
        self.runtime = runtime or shutil.which("docker") or shutil.which("podman") or "docker"
        self.image = image
        # As root: the unprivileged 65534 (the workspace is handed to it). Otherwise: our own ids,
        # so files in the bind-mounted workspace stay ours.
        self.user = user or ("65534:65534" if os.geteuid() == 0 else f"{os.getuid()}:{os.getgid()}")
        self.tmp_size_bytes = tmp_size_bytes

    def host_uid(self) -> int | None:
        uid = self.user.split(":", 1)[0]
        return int(uid) if os.geteuid() == 0 and uid.isdigit() and int(uid) != 0 else None

    def probe(self) -> str | None:
        """None when the runtime answers (daemon reachable), else the reason; cached per process."""
        with _lock:
            if self.runtime not in _available:
                _available[self.runtime] = self._probe_once()
            return _available[self.runtime]

    def _probe_once(self) -> str | None:
        path = shutil.which(self.runtime)
        if not path:
            return f"{self.runtime} is not installed"
        try:
            r = subprocess.run(
                [path, "info", "--format", "{{.ServerVersion}}"], capture_output=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError) as e:
            return f"{self.runtime} did not answer: {e}"
        if r.returncode == 0:
            return None
        last = (r.stderr.decode(errors="replace").strip().splitlines() or ["no answer"])[-1]
        return f"{self.runtime} daemon not reachable: {last}"

    def build_argv(self, spec: ExecSpec, name: str, env_fd: int | None = None) -> list[str]:
        """The full `docker run` command line for `spec`; the environment is the file at fd `env_fd`."""
        lim = spec.limits
        options = [
            ("--name", name),
            ("--network", "bridge" if spec.network else "none"),
            ("--cap-drop", "ALL"),
            ("--security-opt", "no-new-privileges"),
            ("--pids-limit", str(lim.max_processes)),
            ("--memory", str(lim.max_memory_bytes)),
            ("--memory-swap", str(lim.max_memory_bytes)),
            ("--ulimit", f"fsize={lim.max_file_size_bytes}"),
            ("--ulimit", f"nofile={lim.max_open_files}"),
            ("--ulimit", "core=0"),
            ("--user", self.user),
            ("--tmpfs", f"/tmp:rw,nosuid,nodev,size={self.tmp_size_bytes}"),
        ]
        argv = [
            self.runtime,
            "run",
            "--rm",
            "-i",
            "--read-only",
            *(word for pair in options for word in pair),
        ]
        for b in spec.binds:
            src = str(b.source)
            if "," in src or "," in b.target:
                raise ValueError(f"bind paths may not contain ',': {src!r}")
            mode = "" if b.writable else ",readonly"
            argv += ["--mount", f"type=bind,source={src},target={b.target}{mode}"]
        argv += ["--workdir", spec.cwd]
        if env_fd is not None:
            argv += ["--env-file", f"/dev/fd/{env_fd}"]
        argv += ["--entrypoint", spec.argv[0], self.image, *spec.argv[1:]]
        return argv

    def run(self, spec: ExecSpec) -> ExecResult:
        spec.validate()
        reason = self.probe()
        if reason is not None:
            raise ExecutorUnavailable(f"container executor unavailable: {reason}")
        if any(c in v for v in spec.env.values() for c in "\n\r"):
            raise ValueError("an environment value with a line break cannot be passed to a container")
        name = f"skillyard-{uuid.uuid4().hex[:16]}"
        env_fd = memfd("skillyard-container-env", "".join(f"{k}={v}\n" for k, v in spec.env.items()).encode())
        argv = self.build_argv(spec, name, env_fd)
        client_env = {k: os.environ[k] for k in _PASS_THROUGH if k in os.environ}

        def on_timeout(_proc: object) -> None:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run([self.runtime, "kill", name], capture_output=True, timeout=15)

        argv[0] = shutil.which(self.runtime) or self.runtime
        try:
            return supervise(
                argv,
                cwd=None,
                env=client_env,
                timeout=float(spec.timeout),
                limits=spec.limits,
                stdin=spec.stdin,
                pass_fds=[env_fd],
                on_timeout=on_timeout,
                executor=self.name,
            )
        finally:
            os.close(env_fd)
