"""Reading skill files: decoding, newline normalisation and frontmatter splitting.

Discovery must stay cheap, so the frontmatter is read in chunks and the body is
never touched until someone asks for it (see `read_head`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from stat import S_ISREG

BOM = b"\xef\xbb\xbf"
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


#: First read at discovery; most frontmatters (and a whole typical skill) fit.
CHUNK = 8 * 1024
#: Frontmatter larger than this is refused (hostile or broken file).
MAX_FRONTMATTER = 256 * 1024
#: How much of a frontmatter-less file is read to find its first paragraph.
MAX_FALLBACK_HEAD = 64 * 1024

_CLOSE_RE = re.compile(rb"\n---[ \t]*(?:\n|\Z)")
_OPEN_RE = re.compile(rb"---[ \t]*\n")
_CLOSE_TEXT_RE = re.compile(r"\n---[ \t]*(?:\n|\Z)")
_OPEN_TEXT_RE = re.compile(r"---[ \t]*\n")
#: A closing `---` with text after it on the same line (`---# Heading`): read as the end of a
#: frontmatter that has no proper closing line, as the reference parser does (with a warning).
_LOOSE_CLOSE_RE = re.compile(rb"\n---(?=[ \t]*[^-\s])")
_LOOSE_CLOSE_TEXT_RE = re.compile(r"\n---(?=[ \t]*[^-\s])")


class ReadError(Exception):
    """A file that cannot be a skill at all (binary, empty, unreadable, oversized)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class Head:
    """What discovery reads of a SKILL.md: the frontmatter (if any) and the start of the body."""

    frontmatter: str | None  #: text between the delimiters, None when the file has none
    raw: bytes  #: what was read (normalised newlines); the body starts at `body_start`
    body_start: int
    body_offset: int  #: character offset of the body in the decoded, normalised text
    complete: bool  #: True when the whole file was read
    mtime_ns: int
    size: int
    bom: bool
    #: True when the frontmatter ended at a `---` with text after it (see `_LOOSE_CLOSE_RE`)
    loose_close: bool = False

    @property
    def body_raw(self) -> bytes:
        """The start of the body as read, sliced only when someone needs it (most skills never do)."""
        return self.raw[self.body_start :] if self.body_start else self.raw

    @property
    def body_head(self) -> str:
        """The start of the body as text (a character split by the chunk end is dropped)."""
        return self.body_raw.decode("utf-8", errors="ignore" if not self.complete else "replace")


def normalise_newlines(data: bytes) -> bytes:
    """CRLF and lone CR both become LF (old Mac files and Windows editors)."""
    if b"\r" not in data:
        return data
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _check_binary(raw: bytes, complete: bool) -> str:
    """Decode a chunk, refusing NUL bytes and invalid UTF-8 (a split character at the end is fine)."""
    if b"\0" in raw:
        raise ReadError("binary-file", "file contains NUL bytes (binary, not a text skill file)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if not complete and e.start >= len(raw) - 3 and e.reason == "unexpected end of data":
            return raw[: e.start].decode("utf-8")
        raise ReadError("invalid-utf8", f"file is not valid UTF-8 (byte {e.start}: {e.reason})") from None


def read_head(path: str, ino: int | None = None) -> Head:
    """Read only the frontmatter (and whatever of the body came along in the same chunk).

    One open, one fstat; further reads happen only while the closing `---` has not
    been seen, capped at MAX_FRONTMATTER. `ino` is the inode discovery saw at `path`: a file
    swapped since (for a link out of the skill roots, say) is refused, not read.
    """
    try:
        # O_NONBLOCK: a FIFO planted as SKILL.md must not hang discovery (no effect on regular files).
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)  # Python makes it close-on-exec
    except OSError as e:
        raise ReadError("unreadable", f"cannot open file: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            raise ReadError("not-a-file", "not a regular file")
        if ino is not None and st.st_ino != ino:
            raise ReadError("changed", "file was replaced while it was being read (reload to read it again)")
        try:
            raw = os.read(fd, CHUNK)
        except OSError as e:  # replaced by a directory or a FIFO since it was listed
            raise ReadError("unreadable", f"cannot read file: {e.strerror or e}") from None
        complete = len(raw) < CHUNK
        if not raw:
            raise ReadError("empty-file", "file is empty")
        bom = raw.startswith(BOM)
        if bom:
            raw = raw[3:]
        if raw.isspace():
            raise ReadError("empty-file", "file is empty (only whitespace)")
        if raw[:4] == b"---\n" and b"\r" not in raw and b"\0" not in raw:
            # Common case (LF, no trailing blanks on the delimiters): plain byte searches.
            i = raw.find(b"\n---", 3)
            while i != -1:
                after = raw[i + 4 : i + 5]
                if after == b"\n" or (not after and complete):
                    end = i + 4 + len(after)
                    try:
                        fm_text = raw[4:i].decode("utf-8")  # NUL bytes were ruled out above
                    except UnicodeDecodeError:
                        fm_text = _check_binary(raw[4:i], True)  # raises with the position
                    body_offset = end + len(fm_text) - (i - 4 if i > 4 else 0)
                    return Head(fm_text, raw, end, body_offset, complete, st.st_mtime_ns, st.st_size, bom)
                if after not in (b" ", b"\t", b""):
                    i = raw.find(b"\n---", i + 4)
                    continue
                break  # blanks after the delimiter or a chunk boundary: the general path decides
        o = _OPEN_RE.match(normalise_newlines(raw[:512]))
        if o is None:
            # No frontmatter: read enough to find the first paragraph of the body.
            while not complete and len(raw) < MAX_FALLBACK_HEAD:
                more = os.read(fd, CHUNK)
                raw += more
                complete = len(more) < CHUNK
            norm = normalise_newlines(raw)
            _check_binary(norm, complete)
            return Head(None, norm, 0, 0, complete, st.st_mtime_ns, st.st_size, bom)
        open_len = o.end()
        while True:
            norm = normalise_newlines(raw)
            m = _CLOSE_RE.search(norm, open_len - 1)
            if m is not None and not complete and m.end() == len(norm):
                m = None  # `---` at the very end of a chunk: the line may continue in the next one
            if m is not None:
                if b"\0" in norm:
                    raise ReadError("binary-file", "file contains NUL bytes (binary, not a text skill file)")
                fm_text = _check_binary(norm[open_len : m.start()], True) if m.start() > open_len else ""
                # Delimiter lines are ASCII, so the offset is their byte lengths plus the frontmatter's characters.
                body_offset = m.end() + len(fm_text) - max(0, m.start() - open_len)
                return Head(fm_text, norm, m.end(), body_offset, complete, st.st_mtime_ns, st.st_size, bom)
            if b"\0" in raw:
                raise ReadError("binary-file", "file contains NUL bytes (binary, not a text skill file)")
            if complete:
                loose = _LOOSE_CLOSE_RE.search(norm, open_len - 1)
                if loose is not None:  # the rest of that line is the body's first line
                    fm_text = _check_binary(norm[open_len : loose.start()], True)
                    end = loose.end()
                    body_offset = end + len(fm_text) - (loose.start() - open_len)
                    return Head(fm_text, norm, end, body_offset, True, st.st_mtime_ns, st.st_size, bom, True)
                _check_binary(norm, True)
                raise ReadError(
                    "frontmatter-unclosed", "frontmatter opened with --- but never closed with ---"
                )
            if len(raw) >= MAX_FRONTMATTER:
                raise ReadError(
                    "frontmatter-too-large",
                    f"frontmatter exceeds {MAX_FRONTMATTER // 1024} KiB without a closing ---",
                )
            more = os.read(fd, 8 * CHUNK)
            complete = len(more) < 8 * CHUNK
            raw += more
    finally:
        os.close(fd)


def decode_text(data: bytes) -> str:
    """Whole-file decode for load_body: BOM stripped, newlines normalised, bad bytes replaced."""
    if data.startswith(BOM):
        data = data[3:]
    return normalise_newlines(data).decode("utf-8", errors="replace")


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Split decoded text into (frontmatter or None, body, body_offset).

    The frontmatter is the lines between a first line `---` and the next line that
    is exactly `---` (trailing blanks allowed); a `---` inside a value never splits.
    Without such a line, a line starting `---` and going on with text (`---# Title`) closes it.
    """
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    m = _OPEN_TEXT_RE.match(text)
    if m is None:
        return None, text, 0
    c = _CLOSE_TEXT_RE.search(text, m.end() - 1) or _LOOSE_CLOSE_TEXT_RE.search(text, m.end() - 1)
    if c is None:
        return None, text, 0
    start = m.end()
    fm = text[start : c.start()] if c.start() >= start else ""
    return fm, text[c.end() :], c.end()
