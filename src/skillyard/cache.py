"""A start-up cache of parse results, so a second start does not re-read skill files.

Entries are keyed by path and validated by (mtime_ns, size, inode, ctime_ns) from one
`stat`, exactly like an in-process reload. The file holds only plain data
(`marshal`, never pickle), but that data includes the commands SKILL.toml tools
run: a file another user made or can change is not read (`_ours`).

The layout is columnar (one list per field) and each skill's row is a nested
marshal blob, all of them packed in one buffer: loading the file builds a handful
of lists of strings and ints (no per-skill objects for the cyclic GC to walk), and
a `Skill` is only rebuilt from its row when someone asks for it (see `Entry`).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import struct
import threading
import zlib
from array import array
from collections.abc import Iterable, MutableSequence
from dataclasses import dataclass, field, fields
from itertools import chain
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

import platformdirs

from skillyard import model
from skillyard.fsread import pid_gone
from skillyard.model import (
    ROW_INSTALL,
    ROW_REQUIRES,
    ROW_STRINGS,
    ROW_TOOLS,
    SKILL_FIELDS,
    Diagnostic,
    InstallOption,
    Row,
    Skill,
    ToolArg,
    skill_to_row,
    summary_of_row,
)

if TYPE_CHECKING:
    from skillyard.discovery import AnyStat, Scan

#: Bump when the parser's output for the same bytes may change, or the layout does.
FORMAT = 14
_SKILL_FIELDS = list(SKILL_FIELDS)
_INSTALL_FIELDS = [f.name for f in fields(InstallOption)]
_ARG_FIELDS = [f.name for f in fields(ToolArg)]


@dataclass(slots=True)
class Cached:
    """The loaded cache: parallel columns, one position per skill file that loaded."""

    paths: list[str] = field(default_factory=list)
    #: (mtime_ns, size, inode, ctime_ns) of entry i at [4i] to [4i+3] (a view of packed int64s once loaded)
    stats: MutableSequence[int] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    #: diagnostic rows of the entries that had any, by path
    diags: dict[str, list[Row]] = field(default_factory=dict)
    #: replayable walks by `walk_key`: (skill files in walk order, (dir, mtime_ns, inode) looked into)
    walks: dict[str, tuple[list[str], list[tuple[str, int, int]]]] = field(default_factory=dict)
    #: every entry's marshalled `skill_to_row`, packed: entry i is data[offsets[i]:offsets[i + 1]]
    #: (one buffer instead of one bytes object per skill; decoded only when the skill is used)
    data: bytes | memoryview = b""
    offsets: MutableSequence[int] = field(default_factory=lambda: [0])
    #: every entry's `summary_of` row, marshalled as one list (decoded on first `summary`)
    summaries: bytes = b""
    #: where `data` is still to be read from: (file, offset, the file's identity when the header was
    #: read, the rows' CRC-32); a listing never needs the rows, which are most of the file
    rows_at: tuple[str, int, tuple[int, int, int, int], int] | None = None
    _parts: list[bytes | memoryview] = field(default_factory=list)
    _index: dict[str, int] | None = None
    _summaries: list[Any] | None = None
    #: immutable values already built from equal rows (see `skill_from_row`)
    _shared: dict[Any, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.paths)

    def index(self) -> dict[str, int]:
        """Path → position (built once)."""
        if self._index is None:
            self._index = dict(zip(self.paths, range(len(self.paths)), strict=True))
        return self._index

    def row(self, i: int) -> memoryview:
        """Entry i's packed skill row (a view: nothing is copied). The rows are read on first use,
        from the same file only: one replaced since gives none, and the skill is parsed instead."""
        if self._parts:  # rows added in this process (see `parse_entry`)
            return memoryview(self._parts[i])
        if self.rows_at is not None:
            self.data = _read_rows(*self.rows_at)
            self.rows_at = None
        return memoryview(self.data)[self.offsets[i] : self.offsets[i + 1]]

    def skill(self, i: int) -> Skill:
        """Entry i's `Skill`, built from its row. A row read from a file is checked field by field
        first (ValueError and the like when it is not one of ours); a row this process parsed and
        added is built as it is."""
        if self._parts:
            return model.skill_from_row(marshal.loads(self._parts[i]), self._shared)
        return skill_from_blob(self.row(i), self._shared)

    def summary(self, i: int) -> Row | None:
        """Entry i's `summary_of` row; None when the cache holds none of the right shape."""
        if self._summaries is None:
            try:
                loaded = marshal.loads(self.summaries) if self.summaries else []
            except (ValueError, EOFError, TypeError):
                loaded = []
            if not isinstance(loaded, list) or len(loaded) != len(self.paths):
                loaded = []
            self._summaries = (
                loaded if _summaries_ok(loaded) else [r if _summary_ok(r) else None for r in loaded]
            )
        try:
            return self._summaries[i]
        except IndexError:
            return None

    def lookup(self, path: str, st: AnyStat, source: str) -> int:
        """Position of `path` when its cached stat and source still match, else -1."""
        i = self.index().get(path)
        if i is None:
            return -1
        j = 4 * i
        s = self.stats
        if (
            s[j] == st.st_mtime_ns
            and s[j + 1] == st.st_size
            and s[j + 2] == st.st_ino
            and s[j + 3] == st.st_ctime_ns
            and self.sources[i] == source
        ):
            return i
        return -1

    def add(
        self,
        path: str,
        stat: tuple[int, int, int, int],
        source: str,
        name: str,
        row: bytes | memoryview,
        diags: list[Row],
        summary: Row,
    ) -> int:
        """One entry to save; returns its position. One without a row (its cache file was replaced
        before the row was read) is left out (-1), so the next start parses that file instead of
        trusting an empty row."""
        if not len(row):
            return -1
        self.paths.append(path)
        self.stats.extend(stat)
        self.sources.append(source)
        self.names.append(name)
        self._parts.append(row)
        self.offsets.append(self.offsets[-1] + len(row))
        if self._summaries is None:
            self._summaries = []
        self._summaries.append(summary)
        if diags:
            self.diags[path] = diags
        self._index = None
        return len(self.paths) - 1


def walk_key(root: str, source: str) -> str:
    return f"{source}\0{root}"


def cache_path(roots: list[str]) -> Path:
    from skillyard import __version__

    # a name per set of roots, not a security boundary (rows are validated by path and stat):
    # two zlib checksums, which every start has loaded already, instead of importing hashlib
    raw = "\0".join([__version__, *roots]).encode("utf-8", "surrogatepass")
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return Path(platformdirs.user_cache_dir("skillyard")) / f"registry-{key}.v{FORMAT}.marshal"


def _all(items: Any, kind: type) -> bool:
    """A list whose items are all exactly `kind` (checked in C: `map(type, ...)`)."""
    return isinstance(items, list) and (not items or set(map(type, items)) == {kind})


#: File layout: MAGIC, the header's length (8 bytes, little-endian), the CRC-32s of the header and
#: of the rows (4 bytes each), the marshalled header (columns), then the packed rows, which are never
#: copied out of the file's buffer. A damaged byte must not change a name or a tool's command.
MAGIC = b"skillyd\0"
_PREFIX = len(MAGIC) + 16


def stat_key(st: AnyStat) -> tuple[int, int, int, int]:
    """What says a skill file is unchanged (the order of `Cached.stats` and `discovery.FileStat`):
    the ctime moves with an edit whose size and mtime were put back (`touch -d`)."""
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _ours(st: os.stat_result) -> bool:
    """A regular file of this user's that no one else can write. A row holds a SKILL.toml tool's
    command, so whoever can write the cache chooses what a tool runs: a file another user made or
    can change (in a shared XDG_CACHE_HOME, say) is not read."""
    return S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022 and st.st_nlink == 1


def _open(path: str | Path) -> Any:
    """The cache file, never through a link nor waiting on a FIFO put in its place (the directory
    may not be private, and `_read_rows` may come long after `load`)."""
    return open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC), "rb")


def _read_rows(path: str, offset: int, identity: tuple[int, int, int, int], crc: int) -> bytes:
    """The packed rows of the cache file read by `load`; empty when it was replaced since, or damaged."""
    try:
        with _open(path) as f:
            if _identity(os.fstat(f.fileno())) != identity:
                return b""
            f.seek(offset)
            rows = f.read()
    except OSError:
        return b""
    return rows if zlib.crc32(rows) == crc else b""


def load(path: Path) -> Cached:
    """The cache at `path`, or an empty one when it is missing, from another format, or malformed.

    Only the header is read here; the skills' rows are read when one is first needed. A link, or
    a file someone else could have written, is not read (see `_ours`)."""
    try:
        with _open(path) as f:
            prefix = f.read(_PREFIX)
            size, header_crc, rows_crc = struct.unpack("<QII", prefix[len(MAGIC) :])
            st = os.fstat(f.fileno())
            if not _ours(st) or prefix[: len(MAGIC)] != MAGIC or _PREFIX + size > st.st_size:
                return Cached()
            header = f.read(size)
        if zlib.crc32(header) != header_crc:
            return Cached()
        data = marshal.loads(header)
    except (OSError, ValueError, EOFError, TypeError, MemoryError, OverflowError, struct.error):
        return Cached()  # missing, foreign, truncated, or a header claiming absurd sizes
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return Cached()
    paths, sources = data.get("paths"), data.get("sources")
    names, diags = data.get("names"), data.get("diags")
    stats, offsets = _ints(data.get("stats")), _ints(data.get("offsets"))
    walks = data.get("walks")
    n = len(paths) if isinstance(paths, list) else -1
    if not (
        _all(paths, str)
        and _all(sources, str)
        and _all(names, str)
        and offsets is not None
        and stats is not None
        and isinstance(diags, dict)
        and isinstance(walks, dict)
        and len(sources) == n
        and len(names) == n
        and len(offsets) == n + 1
        and len(stats) == 4 * n
    ):
        return Cached()
    # a malformed walk is dropped (that root is walked); its items are checked as they are replayed
    good_walks = {
        k: w
        for k, w in walks.items()
        if isinstance(k, str)
        and isinstance(w, tuple)
        and len(w) == 2
        and _all(w[0], str)
        and _all(w[1], tuple)
    }
    # offsets are not checked one by one: a row sliced wrongly fails to decode (or decodes to
    # another skill) and that file is parsed instead (see the registry's `_materialise`)
    summaries = data.get("summaries")
    return Cached(
        paths,
        stats,
        sources,
        names,
        diags,
        good_walks,
        b"",
        offsets,
        summaries if isinstance(summaries, bytes) else b"",
        rows_at=(str(path), _PREFIX + size, _identity(st), rows_crc),
    )


def _packed(values: MutableSequence[int]) -> bytes | MutableSequence[int]:
    """Ints as one buffer of int64s (loaded without building 30,000 int objects); as a list
    in the rare case one does not fit (an inode number above 2**63, say)."""
    try:
        return array("q", values).tobytes()
    except OverflowError:
        return values


def _ints(value: Any) -> MutableSequence[int] | None:
    """A column saved by `_packed`: a read-only view of its int64s, or the list itself."""
    if isinstance(value, bytes):
        if len(value) % 8:
            return None
        return memoryview(value).cast("q")
    return value if _all(value, int) else None


def _shared(rows: list[Row]) -> list[Row]:
    """Summary rows whose equal emojis and requirement lists are one object each: marshal writes
    such an object once and refers back to it, so loading builds one per distinct value, not one
    per skill (a catalog repeats a few of each)."""
    seen: dict[Any, Any] = {}
    keep = seen.setdefault
    return [
        (keep(emoji, emoji), desc, always, keep(req, req), tools) for emoji, desc, always, req, tools in rows
    ]


def _our_place(folder: Path) -> bool:
    """Whether `folder`, or its nearest existing parent, is this user's or root's: root with a user's
    HOME (`sudo -E`) must not leave files there that the user can neither read (`_ours`) nor replace."""
    for p in (folder, *folder.parents):
        with contextlib.suppress(FileNotFoundError):
            return p.stat().st_uid in (0, os.geteuid())
    return False


def make_our_place(folder: Path) -> bool:
    """Create `folder` (0700) where `_our_place` allows it, and check it again once it exists: a user who
    made it in a shared parent between the check and the `mkdir` keeps it, and gets nothing written in it."""
    if not _our_place(folder):
        return False
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return _our_place(folder)


def save(path: Path, cached: Cached) -> None:
    """Write atomically; a cache that cannot be written is simply not used next time."""
    header = marshal.dumps(
        {
            "format": FORMAT,
            "paths": cached.paths,
            "stats": _packed(cached.stats),
            "sources": cached.sources,
            "names": cached.names,
            "offsets": _packed(cached.offsets),
            "diags": cached.diags,
            "walks": cached.walks,
            "summaries": marshal.dumps(_shared(cached._summaries or [])),
        }
    )
    rows_crc = 0
    for part in cached._parts:
        rows_crc = zlib.crc32(part, rows_crc)
    head = MAGIC + struct.pack("<QII", len(header), zlib.crc32(header), rows_crc)
    try:
        if not make_our_place(path.parent):
            return
        write_new(path, path.with_name(f".{path.name}.{os.getpid()}.tmp"), [head, header, *cached._parts])
        for left in path.parent.iterdir():  # what starts killed while writing this cache left
            if left.name.startswith(f".{path.name}.") and left.name.endswith(".tmp") and pid_gone(left.name):
                left.unlink()
    except (OSError, ValueError):
        pass  # a cache that cannot be written is simply not used next time


def write_new(path: Path, tmp: Path, parts: Iterable[bytes]) -> None:
    """`parts` written to `path` atomically through `tmp`, a new private file (one left by a crashed
    start with this pid, or planted, is removed first): never written through a link, as its name is
    predictable and others may write the folder. No partial file stays when writing fails."""
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with open(fd, "wb") as f:
            f.writelines(parts)
        os.replace(tmp, path)
    except BaseException:  # a full disk, an interrupt
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


# ---------------------------------------------------------------- rows


def summary_of(s: Skill) -> Row:
    """`model.summary_of_row` of a built skill: kept beside the full row, so `skillyard list`
    over a cached catalog decodes this small tuple, not every `Skill`."""
    return summary_of_row(skill_to_row(s))


def _summaries_ok(rows: list[Any]) -> bool:
    """Every row of the shape `summary_of` makes, checked column by column in C (`map(type, ...)`);
    False means "check them one by one", not "all invalid"."""
    if not rows:
        return True
    if set(map(type, rows)) != {tuple} or set(map(len, rows)) != {5}:
        return False
    emojis, descriptions, always, reqs, tools = zip(*rows, strict=True)
    if not (
        set(map(type, emojis)) <= _OPT_STR
        and set(map(type, descriptions)) == _STR_SET
        and set(map(type, always)) <= _BOOL_SET
        and set(map(type, tools)) <= _BOOL_SET
        and set(map(type, reqs)) == _TUPLE_SET
    ):
        return False
    # a catalog repeats a few requirement sets: each distinct one is checked once (hashing a
    # tuple that holds something unhashable raises TypeError: then check them one by one)
    try:
        distinct = set(reqs)
    except TypeError:
        return False
    return (
        set(map(len, distinct)) == {5}
        and set(map(type, chain.from_iterable(distinct))) <= _TUPLE_SET
        and set(map(type, chain.from_iterable(chain.from_iterable(distinct)))) <= _STR_SET
    )


_BOOL_SET = {bool}


def _summary_ok(row: Any) -> bool:
    """A summary row of the shape `summary_of` makes (it is data from a file)."""
    if row.__class__ is not tuple or len(row) != 5:
        return False
    emoji, description, always, req, tools = row
    return (
        description.__class__ is str
        and emoji.__class__ in _OPT_STR
        and always.__class__ is bool
        and tools.__class__ is bool
        and req.__class__ is tuple
        and len(req) == 5
        and set(map(type, req)) <= _TUPLE_SET
        and set(map(type, chain(*req))) <= _STR_SET
    )


def skill_to_blob(s: Skill) -> bytes:
    return marshal.dumps(skill_to_row(s))


def skill_from_blob(blob: bytes | memoryview, shared: dict[Any, Any] | None = None) -> Skill:
    """Raises ValueError/TypeError/IndexError/EOFError for a blob that is not one of ours."""
    row = marshal.loads(blob)
    if not isinstance(row, tuple) or len(row) != len(_SKILL_FIELDS):
        raise ValueError("not a skill row")
    return skill_from_row(row, shared)


def _strs(v: Any) -> bool:
    """A tuple of strings (checked in C: the set of the items' types)."""
    return v.__class__ is tuple and (not v or set(map(type, v)) == _STR_SET)


_STR_SET = {str}


def _install(v: Any) -> bool:
    return (
        v.__class__ is tuple
        and len(v) == len(_INSTALL_FIELDS)
        and v[0].__class__ is str
        and v[1].__class__ is str
        and v[2].__class__ is str
        and set(map(type, v[3:8])) <= _OPT_STR
        and _strs(v[8])
        and _strs(v[9])
    )


_OPT_STR = {str, type(None)}


def _arg(v: Any) -> bool:
    return (
        v.__class__ is tuple
        and len(v) == len(_ARG_FIELDS)
        and set(map(type, v[:3])) == _STR_SET
        and v[3].__class__ is bool
        and (v[5] is None or v[5].__class__ is tuple)
        and v[6].__class__ is bool
        and v[7].__class__ is bool
    )


def _tool(v: Any) -> bool:
    return (
        v.__class__ is tuple
        and len(v) == 6
        and set(map(type, v[:4])) == _STR_SET
        and v[4].__class__ is tuple
        and all(map(_arg, v[4]))
        and (v[5] is None or v[5].__class__ in (int, float))
    )


_NONE = type(None)
#: The types each field of a row may have, in field order: a row is data from a file, and a
#: wrong type would only surface later, far from here (in eligibility, a tool plan, a listing).
_FIELD_TYPES: dict[str, frozenset[type]] = {
    **dict.fromkeys(("name", "description", "path", "source", "format"), frozenset({str})),
    "frontmatter": frozenset({bytes}),  # `Skill.packed_frontmatter`, decoded on first read
    "metadata": frozenset({_NONE}),  # in the frontmatter slot's blob
    **dict.fromkeys(
        (
            "emoji",
            "homepage",
            "license",
            "compatibility",
            "when_to_use",
            "argument_hint",
            "skill_key",
            "version",
            "author",
        ),
        frozenset({str, _NONE}),
    ),
    **dict.fromkeys(
        ("allowed_tools", "arguments", "tags", "prompts", "requires", "install", "tools"), frozenset({tuple})
    ),
    **dict.fromkeys(("always", "disable_model_invocation", "user_invocable"), frozenset({bool})),
    **dict.fromkeys(("body_offset", "mtime_ns", "size"), frozenset({int})),
}
assert set(_FIELD_TYPES) == set(_SKILL_FIELDS), "every Skill field needs its types here"
_ROW_TYPES = [_FIELD_TYPES[name] for name in _SKILL_FIELDS]
_IN = frozenset.__contains__
_FORMAT_I = _SKILL_FIELDS.index("format")


def _row_ok(row: Row) -> bool:
    """Every field of the type it must have, nested ones included (C-level checks first)."""
    if len(row) != len(_ROW_TYPES) or not all(map(_IN, _ROW_TYPES, map(type, row))):
        return False
    req = row[ROW_REQUIRES]
    if len(req) != 5 or not set(map(type, req)) <= _TUPLE_SET:
        return False
    a, b, c, d = (row[i] for i in ROW_STRINGS)
    return (
        set(map(type, chain(a, b, c, d, *req))) <= _STR_SET
        and row[_FORMAT_I] in ("md", "toml")
        and all(map(_install, row[ROW_INSTALL]))
        and all(map(_tool, row[ROW_TOOLS]))
    )


_TUPLE_SET = {tuple}


def skill_from_row(row: Row, shared: dict[Any, Any] | None = None) -> Skill:
    """The skill a row read from a file stands for; ValueError for a row with a field of the wrong shape."""
    if not _row_ok(row):
        raise ValueError("a cached row field has the wrong shape")
    return model.skill_from_row(row, shared)


def diag_to_row(d: Diagnostic) -> Row:
    return (d.level, d.code, d.message, d.path, d.line)


def diag_from_row(r: Row) -> Diagnostic:
    return Diagnostic(*r)


# ---------------------------------------------------------------- entries of a scan


def parse_entry(path: str, source: str, st: AnyStat, rows: Cached) -> Entry:
    """One skill file parsed into an entry whose row is added to `rows` (a scan's own rows,
    which become the start-up cache): like an entry from the cache, its `Skill` is built from
    the row when first used, and a listing reads only the row's summary."""
    from skillyard.parsing import parse_skill_row  # a start from the cache never loads the parser

    row, diags = parse_skill_row(path, source, ino=st.st_ino)  # the file the walk found, not a swap
    found = tuple(diags)  # the usual empty tuple is a shared constant, not one more object per file
    if row is None:
        return Entry(st, path, source, None, found)
    i = rows.add(
        path,
        stat_key(st),
        source,
        row[0],
        marshal.dumps(row),
        [diag_to_row(d) for d in found],
        summary_of_row(row),
    )
    return Entry(st, path, source, None, found, row[0], rows, i)


_BUILD_LOCK = threading.Lock()


class Entry:
    """What one skill file parsed to, keyed by its stat so unchanged files are not re-read.

    An entry from the start-up cache holds the skill's name and where its row lives; the
    `Skill` is built from the row on first use, so a second start builds names and order only.
    """

    __slots__ = ("st", "path", "source", "name", "diagnostics", "_skill", "_rows", "_row")

    def __init__(
        self,
        st: AnyStat,
        path: str,
        source: str,
        skill: Skill | None,
        diagnostics: tuple[Diagnostic, ...],
        name: str | None = None,
        rows: Cached | None = None,
        row: int = 0,
    ) -> None:
        self.st = st  #: the stat this entry was read (or validated) under
        self.path = path
        self.source = source
        self.diagnostics = diagnostics
        self._skill = skill
        self._rows = rows  #: where this skill's packed row lives until it is built
        self._row = row
        self.name = skill.name if skill is not None else name

    @property
    def built(self) -> bool:
        """False while the skill is only a cached row (or the file did not load)."""
        return self._skill is not None

    @property
    def skill(self) -> Skill | None:
        s = self._skill
        if s is None and self._rows is not None:
            with _BUILD_LOCK:  # two threads must not build two objects for one skill
                s = self._skill
                if s is None and self._rows is not None:
                    s = self._skill = self._materialise()
                    self._rows = None
        return s

    def row(self) -> bytes | memoryview:
        """The packed row of this skill (from the cache it came from, or made from the object)."""
        if self._rows is not None:
            return self._rows.row(self._row)
        return skill_to_blob(self.loaded())

    def summary(self) -> Row:
        """The skill's `summary_of` row, from the cache while the skill is not built yet."""
        rows = self._rows
        if self._skill is None and rows is not None:
            found = rows.summary(self._row)
            if found is not None:
                return found
        return summary_of(self.loaded())

    def loaded(self) -> Skill:
        """The skill of an entry that has a name (every entry in a registry's order)."""
        s = self.skill
        assert s is not None
        return s

    def _materialise(self) -> Skill:
        """The skill from the cached row; a row that does not decode to this entry's skill is
        not trusted, and the file is parsed instead (same stat, so the same result as a cold start)."""
        assert self._rows is not None
        try:
            s = self._rows.skill(self._row)
            if s.name == self.name and str(s.path) == self.path:
                return s
        except Exception:  # rows are data from a file: anything wrong means "parse it instead"
            pass
        from skillyard.parsing import parse_skill  # imported on first use (see `parse_entry`)

        skill, diags = parse_skill(self.path, self.source)
        if skill is None or skill.name != self.name:  # the name is already registered: keep it
            skill = Skill(name=str(self.name), description="", path=Path(self.path), source=self.source)
            diags = [
                *diags,
                Diagnostic("warning", "cache-mismatch", "start-up cache entry was unusable", self.path),
            ]
        self.diagnostics = tuple(diags)
        return skill


def save_scan(path: Path, scan: Scan) -> None:
    """Write what `scan` found as the start-up cache; skipped when it would hold what it already does.
    Files that did not load, or were read while they might still change unseen, are left out."""
    walks = {
        walk_key(str(root.path), root.source): (walk.paths, walk.listed_dirs)
        for i, root in enumerate(scan.roots)
        if (walk := scan.walks.get(i)) is not None and walk.replayable
    }
    old = scan.cached
    if not scan.parsed and len(old) == len(scan.files) and walks == old.walks:
        return
    keep = [e for p, e in scan.files.items() if e.name is not None and p not in scan.racy]
    parsed = keep[0]._rows if keep else None
    if parsed is not None and len(parsed._parts) == len(keep) and all(e._rows is parsed for e in keep):
        # every entry to save is a row one scan parsed (a first start without a cache), and that
        # scan parsed nothing else: its columns are the cache as they are
        parsed.walks = walks
        save(path, parsed)
        return
    out = Cached(walks=walks)
    for e in keep:  # files that did not load are left out: re-read, their diagnostics stay current
        out.add(
            e.path,
            stat_key(e.st),
            e.source,
            e.name,
            e.row(),
            [diag_to_row(d) for d in e.diagnostics],
            e.summary(),
        )
    save(path, out)
