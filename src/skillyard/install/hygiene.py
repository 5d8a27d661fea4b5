"""Package hygiene: hardened extraction and copying, checked before anything is installed.

Archives and trees are rejected rather than "fixed": a package that tries to escape its
directory, smuggle a device file or a setuid bit, or inflate into a bomb is refused as a whole.
"""

from __future__ import annotations

import gzip
import os
import stat
import tarfile
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from skillyard.fsread import is_within
from skillyard.install.errors import HygieneError

MB = 1024 * 1024
_BLOCK = 512  #: a tar block
#: Version-control metadata, never copied into an installed skill whatever its type (case-folded):
#: a `.git` file (`gitdir: meta`) or link naming a folder of the package would make the skill a live
#: repository whose config runs commands (core.fsmonitor) when git is used in it.
STRIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


def is_vcs(name: str) -> bool:
    return name.casefold() in STRIPPED_DIRS


@dataclass(frozen=True, slots=True)
class Limits:
    """Size limits for one package; the defaults follow the reference's install-hygiene numbers."""

    max_total_bytes: int = 50 * MB
    max_files: int = 1000
    max_file_bytes: int = 10 * MB
    max_ratio: float = 100.0
    max_depth: int = 32
    max_path_len: int = 1024
    max_download_bytes: int = 50 * MB
    #: a git repository is checked out whole before its skill is chosen and copied
    max_checkout_files: int = 20_000
    max_checkout_bytes: int = 200 * MB
    max_checkout_depth: int = 128  #: folders; far below what removing the checkout can recurse into


def check_member_name(name: str) -> PurePosixPath:
    """Validate one archive/tree path and return it normalised; raise HygieneError otherwise."""
    if not name or "\x00" in name:
        raise HygieneError("empty or NUL path in package", name or None)
    if any(ord(c) < 32 for c in name):
        raise HygieneError("control character in path", repr(name))
    if "\\" in name:
        raise HygieneError("backslash in path", name)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise HygieneError("absolute path in package", name)
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise HygieneError("'..' path in package", name)
    if not parts:
        raise HygieneError("empty path in package", name)
    return PurePosixPath(*parts)


class Tracker:
    """Counts files and bytes, and catches duplicate names after case-folding + NFC."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.files = 0
        self.total = 0
        self.seen: dict[str, str] = {}

    def name(self, rel: PurePosixPath) -> None:
        s = str(rel)
        if len(s) > self.limits.max_path_len:
            raise HygieneError("path too long", s[:200])
        if len(rel.parts) > self.limits.max_depth:
            raise HygieneError("path nested too deeply", s[:200])
        key = unicodedata.normalize("NFC", s).casefold()
        if key in self.seen:
            raise HygieneError(f"duplicate name after case-folding/NFC (clashes with {self.seen[key]!r})", s)
        self.seen[key] = s

    def file(self, rel: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise HygieneError(f"too many files (limit {self.limits.max_files})", rel)

    def add_bytes(self, rel: str, n: int, so_far: int) -> None:
        if so_far > self.limits.max_file_bytes:
            raise HygieneError(f"file larger than {self.limits.max_file_bytes} bytes", rel)
        self.total += n
        if self.total > self.limits.max_total_bytes:
            raise HygieneError(f"package larger than {self.limits.max_total_bytes} bytes", rel)


def _safe_mode(mode: int) -> int:
    """Keep the executable bit; drop setuid/setgid/sticky and group/other write."""
    return 0o755 if mode & 0o111 else 0o644


def _copy_stream(src: object, dest: Path, rel: str, tracker: Tracker, mode: int) -> int:
    written = 0
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        while chunk := src.read(1024 * 256):  # type: ignore[attr-defined]
            written += len(chunk)
            tracker.add_bytes(rel, len(chunk), written)
            out.write(chunk)
    os.chmod(dest, _safe_mode(mode))
    return written


def _ensure_dir(dest_root: Path, rel: PurePosixPath) -> Path:
    """Create the directories of `rel` under dest_root, refusing to pass through anything but real dirs."""
    cur = dest_root
    for part in rel.parts:
        cur = cur / part
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            os.mkdir(cur, 0o755)
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise HygieneError("path component is not a directory", str(rel))
    return cur


def detect_archive(path: Path) -> str:
    """'zip', 'tar.gz' or 'tar' from the content's magic bytes (extensions lie); HygieneError otherwise."""
    with open(path, "rb") as fh:
        head = fh.read(262)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    raise HygieneError("not a zip or gzip-compressed tar archive", path.name)


def extract_archive(archive: Path, dest: Path, limits: Limits | None = None) -> None:
    """Extract a zip or tar(.gz) into the empty directory `dest`, enforcing every rule."""
    limits = limits or Limits()
    kind = detect_archive(archive)
    dest.mkdir(parents=True, exist_ok=True)
    compressed = max(archive.stat().st_size, 1)
    tracker = Tracker(limits)
    try:
        if kind == "zip":
            _extract_zip(archive, dest, tracker)
        else:
            _extract_tar(archive, dest, tracker, gz=kind == "tar.gz")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as e:
        if isinstance(e, HygieneError):
            raise
        raise HygieneError(f"corrupt archive: {e}", archive.name) from None
    if tracker.total > limits.max_ratio * compressed and tracker.total > MB:
        raise HygieneError(f"compression ratio above {limits.max_ratio:g}x (archive bomb)", archive.name)


def _extract_zip(archive: Path, dest: Path, tracker: Tracker) -> None:
    limits = tracker.limits
    # ZipFile reads the whole central directory into objects first: 50 MB of tiny entries cost 0.5 GB
    with open(archive, "rb") as fh:
        end = zipfile._EndRecData(fh)  # type: ignore[attr-defined]
    directory = end[zipfile._ECD_SIZE] if end else 0  # type: ignore[attr-defined]
    if directory > limits.max_files * 2 * (64 + limits.max_path_len):
        raise HygieneError(f"archive directory of {directory} bytes (too many entries)", archive.name)
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        if len(infos) > limits.max_files * 2:
            raise HygieneError(f"too many archive entries ({len(infos)})", archive.name)
        declared = 0
        for info in infos:
            declared += info.file_size
            if info.flag_bits & 0x1:
                raise HygieneError("encrypted archive member", info.filename)
            if declared > limits.max_total_bytes:
                raise HygieneError(f"package larger than {limits.max_total_bytes} bytes", info.filename)
            if info.compress_size and info.file_size / info.compress_size > limits.max_ratio * 10:
                raise HygieneError("member compression ratio too high (archive bomb)", info.filename)
        for info in infos:
            rel = check_member_name(info.filename)
            tracker.name(rel)
            unix_mode = info.external_attr >> 16
            ftype = stat.S_IFMT(unix_mode)
            if info.is_dir() or ftype == stat.S_IFDIR:
                _ensure_dir(dest, rel)
                continue
            if ftype == stat.S_IFLNK:
                raise HygieneError("symbolic link in archive", str(rel))
            if ftype not in (0, stat.S_IFREG):
                raise HygieneError("special file (device/FIFO/socket) in archive", str(rel))
            tracker.file(str(rel))
            parent = _ensure_dir(dest, rel.parent)
            with zf.open(info) as src:
                _copy_stream(src, parent / rel.name, str(rel), tracker, unix_mode)


class _CappedStream:
    """The tar stream, decompressed, refused past `cap` bytes.

    tarfile reads a long-name or pax header whole into memory before any member check
    runs, so a few hundred KiB of gzip could otherwise cost gigabytes.
    """

    def __init__(self, raw: BinaryIO, cap: int) -> None:
        self.raw, self.cap, self.read_bytes = raw, cap, 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(self.cap + 1 - self.read_bytes if n < 0 else n)
        self.read_bytes += len(data)
        if self.read_bytes > self.cap:
            raise HygieneError(f"tar stream larger than {self.cap} bytes (archive bomb)")
        return data


def _extract_tar(archive: Path, dest: Path, tracker: Tracker, *, gz: bool) -> None:
    limits = tracker.limits
    # Room for every member's header, padding and a long name beside the file data.
    cap = limits.max_total_bytes + 2 * limits.max_files * 4 * _BLOCK + limits.max_path_len
    with open(archive, "rb") as raw:
        plain: BinaryIO = gzip.GzipFile(fileobj=raw) if gz else raw  # type: ignore[assignment]
        with tarfile.open(fileobj=_CappedStream(plain, cap), mode="r|") as tf:  # type: ignore[call-overload]
            for count, member in enumerate(tf, 1):
                if count > limits.max_files * 2:
                    raise HygieneError("too many archive entries", archive.name)
                if member.name in (".", "./"):
                    continue
                rel = check_member_name(member.name)
                if member.issym() or member.islnk():
                    raise HygieneError("link in archive", str(rel))
                if member.isdev() or member.isfifo() or not (member.isreg() or member.isdir()):
                    raise HygieneError("special file (device/FIFO/socket) in archive", str(rel))
                tracker.name(rel)
                if member.isdir():
                    _ensure_dir(dest, rel)
                    continue
                if member.size > limits.max_file_bytes:
                    raise HygieneError(f"file larger than {limits.max_file_bytes} bytes", str(rel))
                tracker.file(str(rel))
                parent = _ensure_dir(dest, rel.parent)
                src = tf.extractfile(member)
                if src is None:
                    raise HygieneError("unreadable archive member", str(rel))
                with src:
                    _copy_stream(src, parent / rel.name, str(rel), tracker, member.mode)


def copy_tree(src_root: Path, dest: Path, limits: Limits | None = None) -> None:
    """Copy a skill directory into `dest` (which must not exist), checking every entry.

    Symlinks are kept only when they are relative and resolve inside the skill; anything
    else that is not a regular file or directory is refused. VCS directories are stripped, and so are
    `__pycache__` folders (no staged run sees them either; a `.pyc` anywhere else is the scanner's).
    """
    limits = limits or Limits()
    tracker = Tracker(limits)
    src_root = Path(src_root)
    try:
        st = os.lstat(src_root)
    except OSError as e:
        raise HygieneError(f"cannot read source: {e.strerror}", str(src_root)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise HygieneError("source is not a directory", str(src_root))
    real_root = os.path.realpath(src_root)
    os.mkdir(dest, 0o755)
    stack: list[PurePosixPath] = [PurePosixPath()]
    while stack:
        rel_dir = stack.pop()
        src_dir = src_root.joinpath(*rel_dir.parts)
        try:
            entries = sorted(os.scandir(src_dir), key=lambda e: e.name)
        except OSError as e:
            raise HygieneError(f"cannot list directory: {e.strerror}", str(rel_dir) or ".") from None
        for entry in entries:
            rel = rel_dir / entry.name
            s = str(rel)
            if is_vcs(entry.name) or entry.name == "__pycache__":  # bytecode Python left after a local run
                continue
            check_member_name(s)
            tracker.name(rel)
            st = entry.stat(follow_symlinks=False)
            target = dest.joinpath(*rel.parts)
            if stat.S_ISDIR(st.st_mode):
                os.mkdir(target, 0o755)
                stack.append(rel)
            elif stat.S_ISLNK(st.st_mode):
                link = os.readlink(entry.path)
                resolved = os.path.realpath(entry.path)
                if os.path.isabs(link) or not is_within(resolved, real_root):
                    raise HygieneError(f"link leaves the skill ({link})", s)
                if not os.path.exists(resolved):
                    raise HygieneError(f"dangling link ({link})", s)
                tracker.file(s)
                os.symlink(link, target)
            elif stat.S_ISREG(st.st_mode):
                tracker.file(s)
                if st.st_size > limits.max_file_bytes:
                    raise HygieneError(f"file larger than {limits.max_file_bytes} bytes", s)
                # O_NONBLOCK and the type of what was opened: the entry may have been swapped for a
                # FIFO (whose open would wait forever) or anything else since it was listed
                try:
                    fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                except OSError as e:
                    raise HygieneError(f"cannot read file: {e.strerror}", s) from None
                with os.fdopen(fd, "rb") as fh:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        raise HygieneError("file changed while it was copied", s)
                    _copy_stream(fh, target, s, tracker, st.st_mode)
            else:
                raise HygieneError("special file (device/FIFO/socket) in package", s)
