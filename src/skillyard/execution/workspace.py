"""Per-session workspaces: layout, skill staging, path containment and cleanup.

Layout (host side; isolated executors see it at `/workspace`)::

    ws_<digest of the session id>/
      skills/<name>/        read-only copy of the skill, with links out -> ../../out,
                            work -> ../../work, inputs -> ../../work/inputs
      work/  work/inputs/   scratch space and staged inputs
      runs/run_<ts>/        one directory per run
      out/                  results to collect
      metadata.json         staged skills (digests), inputs and outputs records

The copy (rather than a bind of the original skill dir) keeps the skill's own
tree untouched whatever the command does, and gives every executor the same
relative links.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillyard.execution.tracing import span
from skillyard.fsread import is_within, read_regular_file

#: The path the workspace has inside isolated executors.
SANDBOX_WORKSPACE = "/workspace"
RETENTIONS = ("session", "keep", "run")
#: A larger metadata.json (the command can write it) is not read: the workspace starts afresh.
_MAX_METADATA_BYTES = 16 * 1024 * 1024
_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_STAGE_SKIP = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache"})
_LINKS = {"out": "../../out", "work": "../../work", "inputs": "../../work/inputs"}
#: Env-style prefixes accepted in paths and globs, mapped to workspace-relative dirs (RUN_DIR is per run).
ENV_PREFIXES = ("WORKSPACE_DIR", "SKILLS_DIR", "WORK_DIR", "OUTPUT_DIR", "RUN_DIR", "SKILL_DIR")


class WorkspaceError(ValueError):
    """A request that would leave the workspace, or a skill that cannot be staged; the message says why."""


def validate_skill_name(name: object) -> str:
    if not isinstance(name, str) or not _SKILL_NAME.fullmatch(name) or name in (".", ".."):
        raise WorkspaceError(f"skill name cannot be used as a directory name: {name!r}")
    return name


def _sanitise(session_id: str) -> str:
    """The workspace's directory name: a digest, never the id, which the command could read (its bind
    shows in /proc/self/mountinfo) and, where the server has no authentication, use."""
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"ws_{digest[12:32]}_{digest[:12]}"  # ends with its `_tag`


def _tag(session_id: str) -> str:
    """What spans say of a session: a session id lets whoever echoes it use the session (its
    workspace) when the server has no authentication, so it is never exported whole."""
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass
class Workspace:
    """One session's directory tree on the host."""

    session_id: str
    root: Path
    skills_dir: Path = field(init=False)
    work_dir: Path = field(init=False)
    inputs_dir: Path = field(init=False)
    runs_dir: Path = field(init=False)
    out_dir: Path = field(init=False)
    owner_uid: int | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        self.skills_dir = self.root / "skills"
        self.work_dir = self.root / "work"
        self.inputs_dir = self.work_dir / "inputs"
        self.runs_dir = self.root / "runs"
        self.out_dir = self.root / "out"

    # -- metadata ------------------------------------------------------------------------------------------

    @property
    def metadata_path(self) -> Path:
        return self.root / "metadata.json"

    def read_metadata(self) -> dict[str, Any]:
        # unreadable, not ours, not a regular file (a FIFO would block), too large or too deep: start afresh
        with contextlib.suppress(OSError, ValueError, RecursionError):
            if self.metadata_path.is_symlink():
                raise OSError("metadata.json is a symlink")
            data = json.loads(read_regular_file(self.metadata_path, _MAX_METADATA_BYTES))
            if _well_formed(data):
                return data
        now = time.time()
        return {"version": 1, "created_at": now, "updated_at": now, "skills": {}, "inputs": [], "outputs": []}

    def write_metadata(self, data: dict[str, Any]) -> None:
        data["updated_at"] = time.time()
        for key in ("inputs", "outputs"):  # bounded history
            if isinstance(data.get(key), list):
                data[key] = data[key][-200:]
        tmp = self.root / ".metadata.tmp"
        remove_tree(tmp)
        if self.metadata_path.is_dir() and not self.metadata_path.is_symlink():  # a command made it one
            remove_tree(self.metadata_path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.metadata_path)

    def record(self, key: str, entry: dict[str, Any]) -> None:
        with self.lock:
            meta = self.read_metadata()
            meta.setdefault(key, []).append({**entry, "ts": time.time()})
            self.write_metadata(meta)

    def repair(self) -> None:
        """Undo what a previous command may have done to the layout (dirs swapped for symlinks or files)."""
        for d in (self.skills_dir, self.work_dir, self.inputs_dir, self.runs_dir, self.out_dir):
            if d.is_symlink() or (d.exists() and not d.is_dir()):
                remove_tree(d)
            if not d.exists():
                d.mkdir(mode=0o755)
                self.chown_tree(d)

    # -- runs ----------------------------------------------------------------------------------------------

    def new_run_dir(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%f")[:-3]
        for i in range(1000):
            d = self.runs_dir / (f"run_{stamp}" if i == 0 else f"run_{stamp}_{i}")
            try:
                d.mkdir(parents=True)
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - 1000 runs in the same millisecond
            raise WorkspaceError("could not allocate a run directory")
        (d / "tmp").mkdir()
        self.chown_tree(d)
        return d

    def chown_tree(self, path: Path) -> None:
        """Give a subtree to the executor's host uid (sandbox started as root), without following links."""
        if self.owner_uid is not None:
            chown_tree(path, self.owner_uid)

    def set_owner(self, uid: int | None) -> None:
        """Hand the writable parts of the workspace to `uid` (once per owner change)."""
        if uid == self.owner_uid:
            return
        self.owner_uid = uid
        chown_tree(self.root, uid if uid is not None else os.getuid())

    # -- staging -------------------------------------------------------------------------------------------

    def stage_skill(self, name: str, source: Path) -> Path:
        """Copy the skill to `skills/<name>` (skipped when unchanged), add the links, make it read-only."""
        validate_skill_name(name)
        source = Path(source)
        if not source.is_dir():
            raise WorkspaceError(f"skill directory not found: {source}")
        dest = self.skills_dir / name
        with self.lock, span("workspace.stage.skill", skill=name):
            digest = _tree_signature(source)
            meta = self.read_metadata()
            known = meta.get("skills", {}).get(name, {})
            if known.get("digest") == digest and dest.is_dir():
                return dest
            if dest.exists() or dest.is_symlink():
                remove_tree(dest)
            tmp = Path(tempfile.mkdtemp(dir=self.skills_dir, prefix=f".stage-{name}-"))
            try:
                _copy_skill(source, tmp)
                if _tree_signature(source) != digest:  # replaced while copied (an update): never run a mix
                    raise WorkspaceError(f"skill {name} changed while it was staged; run it again")
                for link, target in _LINKS.items():
                    p = tmp / link
                    if p.exists() or p.is_symlink():
                        remove_tree(p)
                    os.symlink(target, p)
                os.chmod(tmp, 0o755)
                self.chown_tree(tmp)
                make_read_only(tmp)
                os.rename(tmp, dest)
            except BaseException:
                remove_tree(tmp)
                raise
            meta.setdefault("skills", {})[name] = {
                "name": name,
                "rel_path": f"skills/{name}",
                "digest": digest,
                "source": str(source),
                "staged_at": time.time(),
            }
            self.write_metadata(meta)
            return dest


def _well_formed(meta: object) -> bool:
    """metadata.json in the shape skillyard writes (the command may have written any other)."""
    if not isinstance(meta, dict):
        return False
    skills = meta.get("skills", {})
    return (
        isinstance(skills, dict)
        and all(isinstance(v, dict) for v in skills.values())
        and all(isinstance(meta.get(k, []), list) for k in ("inputs", "outputs"))
    )


def _tree_signature(root: Path) -> str:
    """A cheap change detector: paths, sizes, mtimes, ctimes and modes (content is not hashed; the ctime
    moves with an edit whose size and mtime were put back, `touch -d`)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _STAGE_SKIP)
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            rel = os.path.relpath(p, root)
            h.update(
                f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_mode}\0".encode(
                    "utf-8", "surrogatepass"
                )
            )
    return h.hexdigest()


def _copy_skill(src: Path, dst: Path, *, max_files: int = 20_000, max_bytes: int = 512 * 1024 * 1024) -> None:
    """Regular files and dirs only; symlinks are kept only when they stay inside the skill. Every entry
    (a folder, a link: each costs a copy too) counts against `max_files`."""
    real_src = os.path.realpath(src)
    count = 0
    total = 0
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in _STAGE_SKIP)
        count += len(dirnames) + len(filenames)
        if count > max_files:
            raise WorkspaceError(f"skill has more than {max_files} files and folders; not staged")
        rel = os.path.relpath(dirpath, src)
        target_dir = dst if rel == "." else dst / rel
        target_dir.mkdir(exist_ok=True)
        for d in list(dirnames):
            p = os.path.join(dirpath, d)
            if os.path.islink(p):
                dirnames.remove(d)
                if is_within(os.path.realpath(p), real_src):
                    os.symlink(os.readlink(p), target_dir / d)
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                real = os.path.realpath(p)
                if is_within(real, real_src) and os.path.isfile(real) and not os.path.isabs(os.readlink(p)):
                    os.symlink(os.readlink(p), target_dir / f)
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            total += st.st_size
            if total > max_bytes:
                raise WorkspaceError(f"skill is larger than {max_bytes} bytes; not staged")
            shutil.copyfile(p, target_dir / f, follow_symlinks=False)
            os.chmod(target_dir / f, 0o755 if st.st_mode & 0o111 else 0o644)


def chown_tree(root: Path, uid: int) -> None:
    """Give a tree to `uid` (and the group of the same number), never following links."""
    for dirpath, dirnames, filenames in os.walk(root):
        os.chown(dirpath, uid, uid, follow_symlinks=False)
        for n in dirnames + filenames:
            os.chown(os.path.join(dirpath, n), uid, uid, follow_symlinks=False)


def make_read_only(root: Path, *, for_all: bool = False) -> None:
    """Nothing under `root` writable; with `for_all`, every file readable (and every directory and
    executable enterable) by any uid. Links are left alone."""
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                mode = stat.S_IMODE(os.lstat(p).st_mode)
                os.chmod(p, (mode | (0o555 if mode & 0o100 else 0o444) if for_all else mode) & ~0o222)
        for d in dirnames:
            p = os.path.join(dirpath, d)
            if not os.path.islink(p):
                os.chmod(p, 0o555)
    os.chmod(root, 0o555)


_copies_lock = threading.Lock()
_copies_dir: Path | None = None


def readable_copy(source: Path) -> Path:
    """A read-only copy of a skill that any uid can read, refreshed when the skill changes.

    For commands that see a skill without a workspace (SKILL.toml tools) when the
    sandboxed uid is not the skill's owner: the original (perhaps under a 0700
    home) is never mounted, and the copy is root-owned, world-readable, unwritable, in a folder only
    root can enter.
    """
    global _copies_dir
    source = Path(source)
    if not source.is_dir():
        raise WorkspaceError(f"skill directory not found: {source}")
    digest = _tree_signature(source)
    with _copies_lock:
        if _copies_dir is None or not _copies_dir.is_dir():
            _copies_dir = Path(tempfile.mkdtemp(prefix="skillyard-skill-copies-"))
            os.chmod(_copies_dir, 0o700)  # bound as root: the command never walks through it
            atexit.register(remove_tree, _copies_dir)
        seed = f"{source.resolve()}\0{digest}".encode("utf-8", "surrogatepass")
        key = hashlib.sha256(seed).hexdigest()[:24]
        dest = _copies_dir / key
        if dest.is_dir():
            return dest
        tmp = Path(tempfile.mkdtemp(dir=_copies_dir, prefix=".stage-"))
        try:
            _copy_skill(source, tmp)
            if _tree_signature(source) != digest:  # replaced while copied: never keep a mix
                raise WorkspaceError(f"skill {source.name} changed while it was copied; run it again")
            make_read_only(tmp, for_all=True)
            os.rename(tmp, dest)
        except BaseException:
            remove_tree(tmp)
            raise
        return dest


def remove_tree(path: Path) -> None:
    """Delete a tree even where staging made it read-only; never follows symlinks."""
    p = Path(path)
    if p.is_symlink() or not p.is_dir():  # files, links, FIFOs (which rmtree would open and block on)
        p.unlink(missing_ok=True)
        return
    try:
        for dirpath, dirnames, _ in os.walk(p):
            for d in dirnames:
                full = os.path.join(dirpath, d)
                if not os.path.islink(full):
                    with contextlib.suppress(OSError):
                        os.chmod(full, 0o700)
        with contextlib.suppress(OSError):
            os.chmod(p, 0o700)
        shutil.rmtree(p, ignore_errors=True)
    except RecursionError:  # nested deeper than Python recurses (a command's mkdir loop); coreutils is not
        for argv in (["chmod", "-R", "u+rwx", "--", str(p)], ["rm", "-rf", "--", str(p)]):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=600, check=False)


def _check_private_dir(path: Path) -> None:
    """The shared-temp default root must be ours: a pre-created dir or symlink there would hijack runs."""
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise WorkspaceError(
            f"workspace root {path} is not a directory owned by this user and writable only by it; "
            "remove it or configure another workspace root"
        )


class WorkspaceManager:
    """Creates one workspace per session under `root` and removes them per retention.

    retention: `session` (removed by `close_session`), `keep` (never removed by
    skillyard), `run` (the workspace is removed after every run).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, *, retention: str = "session") -> None:
        if retention not in RETENTIONS:
            raise ValueError(f"retention must be one of {', '.join(RETENTIONS)} (got {retention!r})")
        self._default_root = root is None
        if root is None:
            root = Path(tempfile.gettempdir()) / f"skillyard-workspaces-{os.getuid()}"
        self.root = Path(root)
        self.retention = retention
        self._lock = threading.Lock()
        self._open: dict[str, Workspace] = {}
        # Sessions still open when the manager is dropped or the interpreter exits are cleaned per retention.
        self._finalizer = weakref.finalize(self, _cleanup_open, self._open, self._lock, retention)

    def get(self, session_id: str) -> Workspace:
        """The session's workspace, created on first use."""
        if not isinstance(session_id, str) or not session_id or len(session_id) > 256 or "\0" in session_id:
            raise WorkspaceError("session_id must be a non-empty string of at most 256 characters")
        with self._lock:
            ws = self._open.get(session_id)
            if ws is not None and ws.root.is_dir():
                return ws
            with span("workspace.create", session=_tag(session_id)):
                if not self.root.exists():
                    self.root.mkdir(parents=True, mode=0o711)
                    os.chmod(self.root, 0o711)  # the sandbox's unprivileged uid must traverse it
                if self._default_root:
                    _check_private_dir(self.root)
                ws = Workspace(session_id, self.root / _sanitise(session_id))
                ws.root.mkdir(exist_ok=True, mode=0o700)
                for d in (ws.skills_dir, ws.work_dir, ws.inputs_dir, ws.runs_dir, ws.out_dir):
                    d.mkdir(exist_ok=True, mode=0o755)
                if not ws.metadata_path.exists():
                    ws.write_metadata(ws.read_metadata())
                self._open[session_id] = ws
            return ws

    def close_session(self, session_id: str, *, force: bool = False, wait: bool = True) -> bool:
        """Remove the session's workspace unless retention is `keep` (or `force`); True when removed.
        A run of the session in progress finishes first, unless not `wait` (`close_all`: all go now)."""
        with self._lock:
            ws = self._open.pop(session_id, None)
        if ws is None:
            root = self.root / _sanitise(session_id) if isinstance(session_id, str) else None
            if root is None or not root.is_dir():
                return False
            ws = Workspace(session_id, root)
        if self.retention == "keep" and not force:
            return False
        with (
            ws.lock if wait else contextlib.nullcontext(),
            span("workspace.cleanup", session=_tag(session_id)),
        ):
            remove_tree(ws.root)
        return True

    def close_all(self) -> None:
        for sid in list(self._open):
            self.close_session(sid, wait=False)

    def prune(self, older_than: float) -> list[Path]:
        """Remove workspaces under the root not used for `older_than` seconds (left by crashed processes)."""
        removed: list[Path] = []
        cutoff = time.time() - older_than
        with self._lock:
            open_roots = {ws.root for ws in self._open.values()}
        try:
            entries = sorted(self.root.iterdir())
        except OSError:
            return removed
        for d in entries:
            if not d.name.startswith("ws_") or d.is_symlink() or not d.is_dir() or d in open_roots:
                continue
            try:
                last = max(d.stat().st_mtime, (d / "metadata.json").stat().st_mtime)
            except OSError:
                last = d.stat().st_mtime
            if last < cutoff:
                with span("workspace.cleanup", session=d.name[-12:]):  # its `_tag`
                    remove_tree(d)
                removed.append(d)
        return removed


def _cleanup_open(open_sessions: dict[str, Workspace], lock: threading.Lock, retention: str) -> None:
    """Finalizer: remove the workspaces a manager still had open (never the `keep` ones)."""
    if retention == "keep":
        return
    with contextlib.suppress(Exception):  # never fail garbage collection or interpreter shutdown
        with lock:
            roots = [ws.root for ws in open_sessions.values()]
            open_sessions.clear()
        for root in roots:
            remove_tree(root)
