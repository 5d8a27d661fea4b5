"""Archives shipped inside a skill: listed, checked for encryption, members handed back for scanning.

Limits are the install hygiene limits (`hygiene.Limits`): an archive that would exceed them is
reported as unscannable rather than partly read, so padding a member past a limit does not hide it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

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


def inspect(data: bytes, limits: Limits | None = None) -> Listing:
    """List an archive held in memory; never raises on malformed input."""
    import tarfile
    import zipfile

    limits = limits or Limits()
    kind = kind_of(data) or "unknown"
    try:
        if kind == "zip":
            return _zip(data, limits)
        if kind in ("gzip", "bzip2", "xz", "tar"):
            return _tar(data, kind, limits)
        if kind == "7z":
            return _sevenzip(data)
        if kind == "rar":
            return Listing(kind, encrypted=_rar_encrypted(data), unreadable="RAR archives cannot be read")
    except (
        zipfile.BadZipFile,
        tarfile.TarError,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
        TypeError,
    ) as e:
        return Listing(kind, unreadable=f"malformed {kind} archive ({type(e).__name__})")
    except (RuntimeError, MemoryError, IndexError, KeyError) as e:
        return Listing(kind, unreadable=f"malformed {kind} archive ({type(e).__name__})")
    return Listing(kind, unreadable=f"{kind} data")


def _zip(data: bytes, limits: Limits) -> Listing:
    import zipfile

    out = Listing("zip")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        if len(infos) > limits.max_files:
            out.unreadable = f"{len(infos)} members (limit {limits.max_files})"
        total = 0
        for info in infos:
            if info.flag_bits & 0x1:
                out.encrypted = True
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
            with zf.open(info) as fh:
                body = fh.read(limits.max_file_bytes + 1)
            if len(body) > limits.max_file_bytes:
                out.unreadable = f"member {info.filename} is over the size limit"
                continue
            out.members.append((info.filename, body))
    return out


def _tar(data: bytes, kind: str, limits: Limits) -> Listing:
    import tarfile

    out = Listing(kind)
    mode = {"gzip": "r:gz", "bzip2": "r:bz2", "xz": "r:xz", "tar": "r:"}[kind]
    if kind != "tar":
        # A compressed single file (not a tar) is still worth reading: decompress boundedly first.
        import bz2
        import gzip
        import lzma

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


def _sevenzip(data: bytes) -> Listing:
    """7z: the header says whether it is encrypted (an AES coder); members are not decoded here."""
    # The AES-256 + SHA-256 coder id 06 F1 07 01 appears in the (possibly packed) header of
    # encrypted archives; an encrypted header hides even the file names.
    encrypted = b"\x06\xf1\x07\x01" in data[-65536:] or b"\x06\xf1\x07\x01" in data[:65536]
    return Listing("7z", encrypted=encrypted, unreadable="7z archives cannot be read")


def _rar_encrypted(data: bytes) -> bool:
    if data.startswith(_RAR_MAGIC[0]) and len(data) > 12:
        # RAR 4: main archive header flags, 0x0080 = encrypted headers (password needed to list)
        return bool(int.from_bytes(data[10:12], "little") & 0x0080)
    return False
