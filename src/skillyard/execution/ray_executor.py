"""The `ray` executor: each run is a Ray task, and the worker runs it with its own executor.

The boundary stays the sandbox on every node (`worker_executor = "sandbox"`):
Ray only moves the run. What travels:

- read-only binds (the staged skills, a SKILL.toml tool's skill) as a tar
  archive addressed by its sha256, put in the object store once per content
  and unpacked once per node into a cache directory;
- writable binds (the workspace) as a tar archive with the task, and back
  again with the result, so outputs are collected, scrubbed and saved into the
  caller's artifact store exactly as for a local run;
- the spec itself (argv, env, cwd, timeout, limits, network).

The skill's required binaries are checked on the node that runs it
(`Missing binary: ffmpeg (on ray node ...)`), and with `bin_resources = true`
the task asks for a custom resource per binary (`skillyard-bin:ffmpeg`), so
Ray schedules it only on nodes started with that resource. Timeouts are the
worker executor's own (it kills the process tree); on top, the caller waits
at most the timeout plus a grace period and then force-cancels the task, which
ends the worker process and, through `--die-with-parent`, the sandbox.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import socket
import stat
import tarfile
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from skillyard.config import RaySettings
from skillyard.execution.base import (
    CANCELLED,
    Bind,
    ExecResult,
    ExecSpec,
    Executor,
    ExecutorUnavailable,
    Limits,
    current_stop,
)
from skillyard.execution.workspace import (
    _tree_signature,
    chown_tree,
    make_read_only,
    remove_tree,
)

#: Custom resource a node offers for a binary it has: `ray start --resources '{"skillyard-bin:ffmpeg": 1000}'`.
BIN_RESOURCE = "skillyard-bin:{}"
_BIN_AMOUNT = 0.001
#: Seconds the caller waits beyond the run's own timeout before it force-cancels the task.
_GRACE = 30.0
_MAX_TREE_BYTES = 1024 * 1024 * 1024
#: What a worker may run the command with: only isolating executors (the command sees bind targets).
WORKER_EXECUTORS = ("sandbox", "container")


class RayExecutor(Executor):
    """Runs each spec as a Ray task on the cluster at `settings.address`."""

    name = "ray"
    isolated = True

    def __init__(
        self, settings: RaySettings | None = None, *, sandbox_uid: int = 65534, sandbox_gid: int = 65534
    ) -> None:
        self.settings = settings or RaySettings()
        if self.settings.worker_executor not in WORKER_EXECUTORS:
            raise ValueError(
                f"execution.ray.worker_executor must be one of {', '.join(WORKER_EXECUTORS)} "
                f"(got {self.settings.worker_executor!r}): the boundary stays on every node"
            )
        self.sandbox_uid = sandbox_uid
        self.sandbox_gid = sandbox_gid
        self._lock = threading.Lock()
        self._task: Any = None
        self._trees: dict[tuple[str, str], tuple[str, Any]] = {}  # (path, signature) -> (digest, ObjectRef)

    # -- connecting ----------------------------------------------------------------------------------------

    def _connect(self) -> Any:
        try:
            import ray
        except ImportError:
            raise ExecutorUnavailable(
                "the ray executor needs Ray; fix: pip install 'skillyard[ray]'"
            ) from None
        with self._lock:
            if self._task is not None:
                return ray
            address = self.settings.resolved_address()
            _check_reachable(address, self.settings.connect_timeout)
            try:
                if not ray.is_initialized():
                    ray.init(
                        address=address,
                        namespace="skillyard",
                        log_to_driver=False,
                        logging_level="ERROR",
                        configure_logging=False,
                    )
            except Exception as e:  # ConnectionError, RuntimeError, ...: all mean "no cluster for us"
                raise ExecutorUnavailable(f"cannot connect to the Ray cluster at {address}: {e}") from None
            self._task = ray.remote(max_retries=0)(run_on_worker)
            return ray

    # -- running -------------------------------------------------------------------------------------------

    def run(self, spec: ExecSpec) -> ExecResult:
        spec.validate()
        ray = self._connect()
        ro = [b for b in spec.binds if not b.writable]
        rw = [b for b in spec.binds if b.writable]
        trees = [self._tree_ref(ray, b) for b in ro]
        excluded = [_shipped_exclusions(b, ro, spec.env) for b in rw]
        uploads = [_pack(Path(b.source), ex) for b, ex in zip(rw, excluded, strict=True)]
        options: dict[str, Any] = {"num_cpus": self.settings.num_cpus}
        resources = dict(self.settings.resources)
        if self.settings.bin_resources:
            for name in spec.needs_bins:
                resources[BIN_RESOURCE.format(name)] = _BIN_AMOUNT
            self._check_resources(ray, resources)
        if resources:
            options["resources"] = resources
        if self.settings.runtime_env:
            options["runtime_env"] = dict(self.settings.runtime_env)
        payload = {
            "spec": {k: v for k, v in asdict(spec).items() if k != "binds"},  # the binds travel as trees
            "ro": [(b.target, digest, ref) for b, (digest, ref) in zip(ro, trees, strict=True)],
            "rw": [(b.target, data) for b, data in zip(rw, uploads, strict=True)],
            "executor": self.settings.worker_executor,
            "uid": self.sandbox_uid,
            "gid": self.sandbox_gid,
        }
        stop = current_stop()
        if stop is not None and stop.is_set():  # cancelled during the uploads: no task is sent
            return ExecResult(b"", b"", -1, False, 0, executor=self.name, warnings=[CANCELLED])
        ref = self._task.options(**options).remote(payload)
        start = time.monotonic()
        deadline = start + float(spec.timeout) + _GRACE
        try:
            while stop is not None and not ray.wait([ref], timeout=0.25)[0] and time.monotonic() < deadline:
                if stop.is_set():  # the caller gave up: the task goes, and the sandbox with its worker
                    ray.cancel(ref, force=True)
                    took = int((time.monotonic() - start) * 1000)
                    return ExecResult(b"", b"", -1, False, took, executor=self.name, warnings=[CANCELLED])
            out = ray.get(ref, timeout=max(0.0, deadline - time.monotonic()))
        except BaseException as e:
            ray.cancel(ref, force=True)
            if isinstance(e, ray.exceptions.GetTimeoutError):
                return ExecResult(b"", b"", -1, True, int((spec.timeout + _GRACE) * 1000), executor=self.name)
            if isinstance(e, Exception) and not isinstance(e, ExecutorUnavailable):
                raise ExecutorUnavailable(f"ray: the run failed on the cluster ({_first_line(e)})") from None
            raise
        if out.get("unavailable"):
            raise ExecutorUnavailable(f"ray node {out.get('node', '?')}: {out['unavailable']}")
        for b, ex, data in zip(rw, excluded, out.pop("rw") or [None] * len(rw), strict=True):
            if data is not None:
                _sync_tree(Path(b.source), data, ex)
        return ExecResult(**{**out, "executor": self.name})

    def _tree_ref(self, ray: Any, b: Bind) -> tuple[str, Any]:
        """(digest, ObjectRef) of a read-only tree, uploaded once per content."""
        src = Path(b.source)
        key = (str(src), _tree_signature(src))
        with self._lock:
            if key not in self._trees:
                data = _pack(src)
                self._trees[key] = (hashlib.sha256(data).hexdigest(), ray.put(data))
            return self._trees[key]

    @staticmethod
    def _check_resources(ray: Any, wanted: Mapping[str, float]) -> None:
        """An infeasible task would wait for ever: say which binary no node offers instead."""
        have = ray.cluster_resources()
        missing = [k for k in wanted if k.startswith(BIN_RESOURCE.format("")) and k not in have]
        if missing:
            names = ", ".join(k.split(":", 1)[1] for k in missing)
            raise ExecutorUnavailable(
                f"Missing binary: {names} (no node of the Ray cluster offers it; start such nodes with "
                f"--resources '{{\"{missing[0]}\": 1000}}')"
            )


# -- the worker side ----------------------------------------------------------------------------------------


def run_on_worker(payload: dict[str, Any]) -> dict[str, Any]:
    """Materialise the binds on this node, run with the worker executor, hand back output and the workspace."""
    from skillyard.execution.executors import get_executor

    node = socket.gethostname()
    with contextlib.suppress(Exception):  # not inside a Ray worker: the host name says where
        import ray

        node = ray.get_runtime_context().get_node_id()[:12]
    fields = payload["spec"]
    missing = [b for b in fields["needs_bins"] if not _which(b)]
    if missing:
        msg = f"Missing binary: {', '.join(missing)} (on ray node {node})\n".encode()
        return {**asdict(ExecResult(b"", msg, 127, False, 0)), "rw": None}  # nothing ran: the workspace stays
    try:
        ex = get_executor(payload["executor"], sandbox_uid=payload["uid"], sandbox_gid=payload["gid"])
    except ValueError as e:
        return {"unavailable": str(e), "node": node}
    work = Path(tempfile.mkdtemp(prefix="skillyard-ray-run-"))
    os.chmod(work, 0o711)
    try:
        binds: list[Bind] = []
        local_rw: list[Path] = []
        for i, (target, data) in enumerate(payload["rw"]):
            dest = work / f"rw{i}"
            _unpack(data, dest)
            owner = ex.host_uid()
            if owner is not None:
                chown_tree(dest, owner)
            binds.append(Bind(dest, target, True))
            local_rw.append(dest)
        for target, digest, ref in payload["ro"]:
            binds.append(Bind(_cached_tree(digest, ref), target, False))
        # Nested binds must come after their parents, as the caller ordered them.
        binds.sort(key=lambda b: b.target.count("/"))
        spec = ExecSpec(**{**fields, "limits": Limits(**fields["limits"]), "binds": binds})
        try:
            res = ex.run(spec)
        except Exception as e:  # ExecutorUnavailable and friends: the caller says which node
            return {"unavailable": _first_line(e), "node": node}
        ro_binds = [b for b in binds if not b.writable]
        back = [
            _pack(dest, _nested(Bind(dest, target, True), ro_binds))
            for (target, _), dest in zip(payload["rw"], local_rw, strict=True)
        ]
        return {**asdict(res), "rw": back}
    finally:
        remove_tree(work)


_cache_lock = threading.Lock()


def _cached_tree(digest: str, ref: Any) -> Path:
    """The read-only tree for `digest` on this node, unpacked once; content is checked against the digest."""
    import ray

    root = Path(tempfile.gettempdir()) / f"skillyard-ray-trees-{os.geteuid()}"
    with _cache_lock:
        root.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(root)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise ExecutorUnavailable(f"refusing the tree cache {root}: not a private directory of ours")
        if st.st_mode & 0o077:
            # the trees are world-readable for the sandboxed uid, and any user reads their paths in a
            # run's /proc/PID/mountinfo: only the owner enters the folder (binds never walk through it)
            os.chmod(root, 0o700)
        dest = root / digest
        if dest.is_dir():
            return dest
        data = ray.get(ref) if not isinstance(ref, bytes) else ref
        if hashlib.sha256(data).hexdigest() != digest:
            raise ExecutorUnavailable("a skill tree arrived with the wrong digest; refusing it")
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=".unpack-"))
        _unpack(data, tmp)
        make_read_only(tmp, for_all=True)
        os.rename(tmp, dest)
        return dest


# -- trees as tar archives ----------------------------------------------------------------------------------


def _nested(b: Bind, ro: Sequence[Bind]) -> frozenset[str]:
    """Paths inside a writable bind that another (read-only) bind covers: they do not travel."""
    base = b.target.rstrip("/") + "/"
    return frozenset(o.target[len(base) :].split("/")[0] for o in ro if o.target.startswith(base))


def _shipped_exclusions(b: Bind, ro: Sequence[Bind], env: Mapping[str, str]) -> frozenset[str]:
    """What stays with the caller: read-only binds, and the run directories of earlier runs.

    A workspace gains a `runs/run_<ts>` per run; shipping all of them both ways
    would make every run slower than the last. The current one (`RUN_DIR`) travels.
    """
    out = set(_nested(b, ro))
    run_dir = env.get("RUN_DIR", "")
    base = b.target.rstrip("/") + "/"
    if run_dir.startswith(base):
        rel = run_dir[len(base) :].strip("/")
        parent, _, current = rel.rpartition("/")
        if parent and current:
            try:
                names = os.listdir(Path(b.source) / parent)
            except OSError:
                names = []
            out.update(f"{parent}/{n}" for n in names if n != current)
    return frozenset(out)


def _pack(root: Path, exclude: frozenset[str] = frozenset()) -> bytes:
    """A tar of `root`'s regular files, dirs and symlinks (never followed), modes kept, owners dropped."""
    buf = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root)
            prefix = "" if rel_dir == "." else f"{rel_dir}/"
            dirnames[:] = sorted(d for d in dirnames if prefix + d not in exclude)
            for n in dirnames + sorted(f for f in filenames if prefix + f not in exclude):
                p = os.path.join(dirpath, n)
                st = os.lstat(p)
                if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                    continue  # FIFOs, sockets, devices never travel
                info = tar.gettarinfo(p, arcname=prefix + n)
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                if info.isreg():
                    total += info.size
                    if total > _MAX_TREE_BYTES:
                        raise ExecutorUnavailable(
                            f"{root} is larger than {_MAX_TREE_BYTES} bytes; too big to ship"
                        )
                    with open(p, "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
    return buf.getvalue()


def _unpack(data: bytes, dest: Path) -> None:
    """Unpack into a fresh directory; tarfile's `tar` filter refuses absolute, `..` and link-escaping names."""
    dest.mkdir(mode=0o700, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        tar.extractall(dest, filter="tar")


def _sync_tree(root: Path, data: bytes, exclude: frozenset[str]) -> None:
    """Make the host's writable tree what the run left; only what changed is written or removed.

    The archive is unpacked into a fresh directory first (tarfile's `tar` filter),
    then moved into place top-down: every directory on the way is checked to be
    a real directory of the tree, so a symlink the command planted is replaced,
    never followed. Paths in `exclude` (not shipped) are left alone.
    """
    fresh = Path(tempfile.mkdtemp(dir=root.parent, prefix=f".{root.name}-back-"))
    try:
        _unpack(data, fresh)
        _sync_dir(str(fresh), str(root), "", exclude)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def _sync_dir(src: str, dst: str, rel: str, exclude: frozenset[str]) -> None:
    incoming = {e.name: e for e in os.scandir(src)}
    for e in os.scandir(dst):
        r = f"{rel}{e.name}"
        if r not in exclude and e.name not in incoming:
            _remove(e.path)
    for name, e in incoming.items():
        r = f"{rel}{name}"
        if r in exclude:
            continue
        s_st = e.stat(follow_symlinks=False)
        d = os.path.join(dst, name)
        try:
            d_st: os.stat_result | None = os.lstat(d)
        except FileNotFoundError:
            d_st = None
        if stat.S_ISDIR(s_st.st_mode):
            if d_st is None or not stat.S_ISDIR(d_st.st_mode):
                if d_st is not None:
                    _remove(d)
                os.mkdir(d, 0o700)
            os.chmod(d, stat.S_IMODE(s_st.st_mode), follow_symlinks=False)
            _sync_dir(e.path, d, f"{r}/", exclude)
        elif d_st is not None and _same(e.path, s_st, d, d_st):
            continue
        else:
            if d_st is not None and stat.S_ISDIR(d_st.st_mode):
                remove_tree(Path(d))
            os.replace(e.path, d)


def _same(src: str, s: os.stat_result, dst: str, d: os.stat_result) -> bool:
    """Unchanged by the run: same type, size, mode and mtime (to the microsecond the archive keeps)."""
    if stat.S_IFMT(s.st_mode) != stat.S_IFMT(d.st_mode) or stat.S_IMODE(s.st_mode) != stat.S_IMODE(d.st_mode):
        return False
    if stat.S_ISLNK(s.st_mode):
        return os.readlink(src) == os.readlink(dst)
    return s.st_size == d.st_size and abs(s.st_mtime_ns - d.st_mtime_ns) < 2000


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        remove_tree(Path(path))
    else:
        os.unlink(path)


def _which(name: str) -> bool:
    """The sandbox sees only /usr, so a binary counts when it is on the sandbox's PATH."""
    return shutil.which(name, path="/usr/local/bin:/usr/bin:/bin") is not None


def _check_reachable(address: str, timeout: float) -> None:
    """A bounded TCP connect first: an unreachable `host:port` fails in seconds, never hangs."""
    hostport = address.removeprefix("ray://")
    if address in ("auto", "local") or ":" not in hostport:
        return
    host, _, port = hostport.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as e:
        raise ExecutorUnavailable(
            f"cannot reach the Ray cluster at {address} within {timeout:g} s ({e}); "
            "fix: start it (ray start --head) or set [execution.ray] address / RAY_ADDRESS"
        ) from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[-1][:500]
