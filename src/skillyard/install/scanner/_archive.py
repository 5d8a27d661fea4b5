"""Archives shipped inside a skill: listed, checked for encryption, members handed back for scanning.

Limits are the install hygiene limits (`hygiene.Limits`): an archive that would exceed them is
reported as unscannable rather than partly read, so padding a member past a limit does not hide it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

from skillyard.install.hygiene import Limits

_7Z_MAGIC = b"7z\xbc\xaf\x27\x1c"
_RAR_MAGIC = (b"Rar!\x1a\x07\x00", b"Rar!\x1a\x07\x01\x00")
#: Archives inside archives are opened this deep; deeper ones are reported unscannable.
MAX_NESTING = 2


@dataclass(slots=True)
class Listing:
    """What could be learned about one archive without extracting it to disk."""

    kind: str
    encrypted: bool = False
    members: list[tuple[str, bytes]] = field(default_factory=list)
    #: why the members could not all be read (None: every regular member is in `members`)
    unreadable: str | None = None
    #: every encrypted member was read with one of the passwords given
    opened: bool = False


def kind_of(data: bytes) -> str | None:
    """Archive format from the first bytes, whatever the file is called."""
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return "zip"
    if data.startswith(_7Z_MAGIC):
        return "7z"
    if data.startswith(_RAR_MAGIC):
        return "rar"
    if data.startswith(b"\x1f\x8b"):
        return "gzip"
    if data.startswith((b"BZh",)):
        return "bzip2"
    if data.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if len(data) > 262 and data[257:262] == b"ustar":
        return "tar"
    return None


def zip_after(data: bytes) -> bool:
    """Whether `data` is a zip with something put before it (a `#!` line, a script, a picture):
    zip readers find the archive from its end, so what comes first does not hide it."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65557))
    if end <= 0 or data.startswith(b"PK"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return bool(zf.infolist())
    except Exception:  # hostile input: not a zip zipfile can open
        return False


def inspect(data: bytes, limits: Limits | None = None, passwords: tuple[bytes, ...] = ()) -> Listing:
    """List an archive held in memory; never raises on malformed input. `passwords`: those the
    skill gives for its archives, tried on a zip's encrypted members (traditional zip encryption)."""
    limits = limits or Limits()
    kind = kind_of(data) or ("zip" if zip_after(data) else "unknown")
    try:
        if kind == "zip":
            return _zip(data, limits, passwords)
        if kind in ("gzip", "bzip2", "xz", "tar"):
            return _tar(data, kind, limits)
        if kind == "7z":
            return _sevenzip(data, limits)
        if kind == "rar":
            return _rar(data, limits)
    except _OverLimit as e:
        return Listing(kind, unreadable=str(e))
    except Exception as e:  # hostile input: zipfile, tarfile, the decompressors, py7zr and rarfile
        return Listing(kind, unreadable=f"malformed {kind} archive ({type(e).__name__})")
    return Listing(kind, unreadable=f"{kind} data")


def _zip(data: bytes, limits: Limits, passwords: tuple[bytes, ...] = ()) -> Listing:
    out = Listing("zip")
    locked = 0
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        if len(infos) > limits.max_files:
            out.unreadable = f"{len(infos)} members (limit {limits.max_files})"
        total = 0
        for info in infos:
            pwd = None
            if info.flag_bits & 0x1:
                out.encrypted = True
                pwd = _password(zf, info, passwords) if not info.is_dir() else None
                if pwd is None:
                    locked += 1
                    continue
            if info.is_dir() or out.unreadable:
                continue
            if info.file_size > limits.max_file_bytes or (
                info.compress_size and info.file_size / info.compress_size > limits.max_ratio
            ):
                out.unreadable = f"member {info.filename} is over the size or ratio limit"
                continue
            total += info.file_size
            if total > limits.max_total_bytes:
                out.unreadable = f"over {limits.max_total_bytes} bytes uncompressed"
                continue
            with zf.open(info, pwd=pwd) as fh:
                body = fh.read(limits.max_file_bytes + 1)
            if len(body) > limits.max_file_bytes:
                out.unreadable = f"member {info.filename} is over the size limit"
                continue
            out.members.append((info.filename, body))
    out.opened = out.encrypted and not locked
    return out


def _password(zf: zipfile.ZipFile, info: zipfile.ZipInfo, passwords: tuple[bytes, ...]) -> bytes | None:
    """The one of `passwords` that opens the encrypted member `info` (its check byte, then a
    read of the member checked against its CRC), or None."""
    if info.file_size > 1 << 20 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return None
    for pwd in passwords[:8]:
        try:
            with zf.open(info, pwd=pwd) as fh:
                fh.read(1 << 20)
            return pwd
        except (RuntimeError, zipfile.BadZipFile, ValueError, OSError, EOFError, zlib.error):
            continue
    return None


def _tar(data: bytes, kind: str, limits: Limits) -> Listing:
    out = Listing(kind)
    mode = {"gzip": "r:gz", "bzip2": "r:bz2", "xz": "r:xz", "tar": "r:"}[kind]
    if kind != "tar":
        # A compressed single file (not a tar) is still worth reading: decompress boundedly first.
        opener = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}[kind]
        with opener(io.BytesIO(data), "rb") as fh:
            raw = fh.read(limits.max_total_bytes + 1)
        if len(raw) > limits.max_total_bytes or (data and len(raw) / len(data) > limits.max_ratio):
            out.unreadable = "over the size or compression-ratio limit"
            return out
        if not (len(raw) > 262 and raw[257:262] == b"ustar"):
            out.members.append(("(decompressed)", raw))
            return out
        data, mode = raw, "r:"
    total = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode=mode) as tf:
        for n, m in enumerate(tf):
            if n >= limits.max_files:
                out.unreadable = f"more than {limits.max_files} members"
                break
            if not m.isreg():
                continue
            if m.size > limits.max_file_bytes:
                out.unreadable = f"member {m.name} is over the size limit"
                continue
            total += m.size
            if total > limits.max_total_bytes:
                out.unreadable = f"over {limits.max_total_bytes} bytes"
                break
            fh = tf.extractfile(m)
            if fh is not None:
                out.members.append((m.name, fh.read(limits.max_file_bytes)))
    return out


class _OverLimit(Exception):
    """An archive member or the whole archive is over a hygiene limit (the message says which)."""


def _check_sizes(members: list[tuple[str, int, int]], limits: Limits) -> None:
    """(name, size, packed size) as the archive's own header declares them, checked before decoding."""
    if len(members) > limits.max_files:
        raise _OverLimit(f"{len(members)} members (limit {limits.max_files})")
    total = 0
    for name, size, packed in members:
        if size > limits.max_file_bytes or (packed and size / packed > limits.max_ratio):
            raise _OverLimit(f"member {name} is over the size or ratio limit")
        total += size
        if total > limits.max_total_bytes:
            raise _OverLimit(f"over {limits.max_total_bytes} bytes uncompressed")


class _Sink(io.RawIOBase):
    """Where a 7z member is decoded to: refuses to grow past the limit whatever the header said."""

    def __init__(self, name: str, limit: int) -> None:
        self.name, self.limit, self.buf = name, limit, bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        if len(self.buf) + len(b) > self.limit:
            raise _OverLimit(f"member {self.name} decodes past the size limit")
        self.buf += b
        return len(b)

    def read(self, size: int | None = -1) -> bytes:
        return bytes(self.buf)

    def size(self) -> int:
        return len(self.buf)


def _sevenzip(data: bytes, limits: Limits) -> Listing:
    """7z through py7zr: an AES coder or an encrypted header is `encrypted`; the rest is decoded."""
    import py7zr
    from py7zr.io import WriterFactory

    out = Listing("7z")
    try:
        zf = py7zr.SevenZipFile(io.BytesIO(data), mode="r")
    except py7zr.PasswordRequired:
        # the header itself is encrypted: not even the names can be listed
        return Listing("7z", encrypted=True, unreadable="encrypted header: member names hidden")
    with zf:
        if zf.needs_password():
            out.encrypted = True
            out.unreadable = "password-protected members"
            return out
        infos = [i for i in zf.list() if not i.is_directory]
        _check_sizes([(i.filename, i.uncompressed, i.compressed or 0) for i in infos], limits)
        sinks: dict[str, _Sink] = {}

        class Factory(WriterFactory):
            def create(self, filename: str) -> Any:
                sinks[filename] = _Sink(filename, limits.max_file_bytes)
                return sinks[filename]

        zf.extract(factory=Factory())
        out.members = [(name, bytes(s.buf)) for name, s in sinks.items()]
    if not out.members:
        # a damaged header can list members that never decode, or none at all: say so
        out.unreadable = f"{len(infos)} members listed, none decoded" if infos else "no member could be read"
    return out


def _rar(data: bytes, limits: Limits) -> Listing:
    """RAR through rarfile: names, sizes and encryption from the headers; stored members are read.

    Compressed members are listed but not decoded: RAR compression has no maintained Python
    decoder, and the scanner does not hand untrusted archives to an external unrar/bsdtar.
    """
    import rarfile

    out = Listing("rar")
    rf = rarfile.RarFile(io.BytesIO(data), errors="strict")
    infos = [i for i in rf.infolist() if not i.is_dir()]
    if rf.needs_password() and not infos:
        return Listing("rar", encrypted=True, unreadable="encrypted header: member names hidden")
    if not infos:
        return Listing("rar", unreadable="no members could be listed (empty or cut short)")
    _check_sizes([(i.filename or "?", i.file_size or 0, i.compress_size or 0) for i in infos], limits)
    packed: list[str] = []
    for info in infos:
        name = info.filename or "?"
        if info.needs_password():
            out.encrypted = True
            continue
        if info.compress_type != rarfile.RAR_M0 or info.file_redir is not None:
            packed.append(name)
            continue
        with rf.open(info) as fh:
            body = fh.read(limits.max_file_bytes + 1)
        if len(body) > limits.max_file_bytes:
            raise _OverLimit(f"member {name} is over the size limit")
        out.members.append((name, body))
    if packed:
        shown = ", ".join(packed[:5]) + (f" and {len(packed) - 5} more" if len(packed) > 5 else "")
        out.unreadable = f"{len(packed)} compressed RAR member(s) not read: {shown}"
    return out
