"""Where skills live: the search path, walking one root to find skill files, and
`Scan`, every root walked and its skill files parsed, redoing only what changed.

Walking is bounded (depth, directory count) and symlink-aware: a link is only
followed while its target stays inside one of the allowed roots, so a skill
folder cannot smuggle `~/.ssh` into a catalog.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from stat import S_ISREG
from typing import NamedTuple

from skillyard.cache import Cached, Entry, diag_from_row, parse_entry, walk_key
from skillyard.config import Config
from skillyard.fsread import ours
from skillyard.model import Diagnostic, fold_name

#: Names that make a directory a skill, in order of preference.
SKILL_FILES = ("SKILL.md", "skill.md", "SKILL.toml")
#: Directories never walked into.
IGNORED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "dist", "build"})
MAX_DEPTH = 6
_FIRST = os.sep + SKILL_FILES[0]
_BY_NAME = attrgetter("name")
MAX_DIRS_PER_ROOT = 200_000
#: A directory changed this close to a walk may change again within the same timestamp tick
#: (coarse kernel clocks; 2 s on FAT), so its ctime cannot prove its entries unchanged later.
RACY_NS = 2_000_000_000


def _claim(entry: Entry) -> tuple[bool, bool, int]:
    """How a skill file ranks among copies of one name in one root (lower wins): a name written as
    it reads first ("pdf" over "PDF" or "рdf", which only fold to it), then in a folder named after
    the skill, then the shallowest."""
    folder, name = os.path.dirname(entry.path), entry.name or ""
    return (
        fold_name(name) != name,
        fold_name(os.path.basename(folder)) != fold_name(name),
        folder.count(os.sep),
    )


def _shadowed(entry: Entry, winner: Entry) -> Diagnostic:
    alike = "" if winner.name == entry.name else f" (its name '{winner.name}' reads the same)"
    return Diagnostic(
        "warning",
        "shadowed",
        f"skill '{entry.name}' is shadowed by {winner.path} ({winner.source}){alike}",
        entry.path,
    )


@dataclass(frozen=True, slots=True)
class Root:
    """One directory on the search path; `source` labels where it came from."""

    path: Path
    source: str


def bundled_root() -> Path:
    return Path(__file__).parent / "builtin"


#: Other agents' skill folders, each searched only if it exists (docs/discovery.md lists them):
#: project level, relative to the working directory, after `.agents` and `.claude` and before `./skills`.
VENDOR_PROJECT_DIRS = (
    (".github", "skills"),  # GitHub Copilot, VS Code
    (".cursor", "skills"),  # Cursor
    (".codex", "skills"),  # OpenAI Codex
    (".gemini", "skills"),  # Gemini CLI
    (".opencode", "skills"),  # OpenCode
    (".goose", "skills"),  # Goose
)
#: User level, relative to the home directory, after `~/.agents` and `~/.claude`.
VENDOR_USER_DIRS = (
    (".copilot", "skills"),  # GitHub Copilot
    (".cursor", "skills"),  # Cursor
    (".codex", "skills"),  # OpenAI Codex
    (".gemini", "skills"),  # Gemini CLI
    (".config", "opencode", "skills"),  # OpenCode
    (".config", "goose", "skills"),  # Goose
    (".config", "agents", "skills"),  # Goose's agent-neutral folder
)


#: Roots found by their place rather than named (`--root`, `SKILLYARD_PATH`, `[skills] roots`): skipped
#: when another user owns them or can write them.
_BY_PLACE = frozenset({"project", "user", "install", "remote"})


def _held(top: str) -> bool:
    """No other user can rename a folder on the way to `top` (and put another in its place after it
    was checked): each is ours, or a sticky folder of root's or ours (/tmp), where others move only their own."""
    for d in {*Path(top).parents, *Path(os.path.realpath(top)).parents}:
        try:
            st = os.lstat(d)
        except OSError:
            return False
        if not ours(st) and not (st.st_mode & stat.S_ISVTX and st.st_uid in (0, os.geteuid())):
            return False
    return True


def default_roots(config: Config, cwd: Path | None = None, home: Path | None = None) -> list[Root]:
    """Project roots, then user roots, then the install root, then skills fetched from remotes, then bundled.

    Other agents' folders join only when they exist, so a machine without them keeps the short path."""
    cwd = cwd or Path.cwd()
    home = home or Path.home()
    return [
        Root(cwd / ".agents" / "skills", "project"),
        Root(cwd / ".claude" / "skills", "project"),
        *_existing(cwd, VENDOR_PROJECT_DIRS, "project"),
        Root(cwd / "skills", "project"),
        Root(home / ".agents" / "skills", "user"),
        Root(home / ".claude" / "skills", "user"),
        *_existing(home, VENDOR_USER_DIRS, "user"),
        Root(config.install_root, "install"),
        *(Root(r.root, "remote") for r in config.remotes),
        Root(bundled_root(), "bundled"),
    ]


def _existing(base: Path, dirs: Sequence[tuple[str, ...]], source: str) -> list[Root]:
    return [Root(p, source) for parts in dirs if (p := base.joinpath(*parts)).is_dir()]


def resolve_roots(
    explicit: Sequence[Path | str] | None,
    config: Config,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> list[Root]:
    """`--root` beats `SKILLYARD_PATH` beats `[skills] roots` beats the default search path."""
    env = os.environ if env is None else env
    if explicit:
        paths = [_abs(p, cwd) for p in explicit]
    elif raw := env.get("SKILLYARD_PATH"):
        paths = [_abs(p, cwd) for p in raw.split(os.pathsep) if p]
    elif config.roots is not None:
        paths = [_abs(p, cwd) for p in config.roots]
    else:
        return dedupe(default_roots(config, cwd))
    # The install root keeps its label however it is named, so installed skills stay checked against
    # their lockfile (a tampered one must never pass as a plain custom skill).
    install_real = os.path.realpath(config.install_root)
    return dedupe(Root(p, "install" if os.path.realpath(p) == install_real else "custom") for p in paths)


def _abs(p: Path | str, cwd: Path | None) -> Path:
    p = Path(os.path.expanduser(str(p)))
    return p if p.is_absolute() else (cwd or Path.cwd()) / p


def dedupe(roots: Iterable[Root]) -> list[Root]:
    """The same directory twice (e.g. via a symlink) is searched once, at its highest position."""
    seen: set[str] = set()
    out: list[Root] = []
    for r in roots:
        key = os.path.realpath(r.path)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


class FileStat(NamedTuple):
    """The parts of a stat the registry compares; what the start-up cache keeps of one."""

    st_mtime_ns: int
    st_size: int
    st_ino: int
    #: an edit put back to its old size and mtime (`touch -d`) still moves the ctime
    st_ctime_ns: int


#: A skill file's stat as discovery keeps it.
AnyStat = os.stat_result | FileStat


@dataclass(slots=True)
class WalkResult:
    """What one walk of a root found: skill files in walk order and every directory whose listing was read."""

    #: path and stat of each skill file, in walk order; the stat is reused to validate cached parses
    #: (two parallel lists rather than pairs: one object fewer per skill for the cyclic GC to walk)
    paths: list[str] = field(default_factory=list)
    stats: list[AnyStat] = field(default_factory=list)
    #: (directory, ctime_ns, inode) of every non-skill directory looked into: while none of them
    #: changes (an entry added, removed or renamed, a permission changed), the same skill files
    #: are found in the same order (see `replay_walk`)
    listed_dirs: list[tuple[str, int, int]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: True when `listed_dirs` alone decides the result: no symlink met (even a dangling one),
    #: nothing unreadable, no limit hit, no directory changed just before the walk
    replayable: bool = True
    #: skill file -> its position in `paths`, and the skill directories; built on first use
    _index: dict[str, int] | None = None
    _skill_dirs: frozenset[str] | None = None

    def index(self) -> dict[str, int]:
        """Skill file → position in `paths` (built once; reloads with watcher paths reuse it)."""
        if self._index is None:
            self._index = {p: i for i, p in enumerate(self.paths)}
        return self._index

    def add(self, path: str, st: AnyStat) -> None:
        self.paths.append(path)
        self.stats.append(st)

    def skill_dirs(self) -> frozenset[str]:
        if self._skill_dirs is None:
            self._skill_dirs = frozenset(p.rpartition(os.sep)[0] for p in self.paths)
        return self._skill_dirs


def walk_root(root: Root, allowed_real: Sequence[str]) -> WalkResult:
    """Find skill files under `root`; skill directories are not searched further."""
    walker = Walker(root, allowed_real)
    entries = walker.top_entries()
    if entries:
        walker.visit(entries, walker.top, 0)
    return walker.finish()


class Walker:
    """One walk of one root (`walk_root` runs it)."""

    def __init__(self, root: Root, allowed_real: Sequence[str]) -> None:
        self.top = str(root.path)
        self.source = root.source
        self.allowed_real = allowed_real
        self.result = WalkResult()
        self.top_real = os.path.realpath(self.top)
        #: real paths of the root and of directories entered through a symlink (each entered once)
        self.visited: set[str] = {self.top_real}
        self.budget = [MAX_DIRS_PER_ROOT]
        self.started = time.time_ns()

    def top_entries(self) -> list[os.DirEntry[str]] | None:
        """The root's listing to visit; None when the root is missing, not a directory,
        unreadable or itself a skill (then the result already holds everything)."""
        result, top = self.result, self.top
        try:
            st, link = os.stat(top), os.lstat(top)
        except OSError:
            result.replayable = False
            return None  # a missing root is normal (most default roots do not exist)
        if not stat.S_ISDIR(st.st_mode):
            result.replayable = False
            result.diagnostics.append(
                Diagnostic("warning", "root-not-directory", "search root is not a directory", top)
            )
            return None
        if self.source in _BY_PLACE and not (ours(st) and ours(link) and _held(top)):
            # found by its place (the working directory may be /tmp, XDG_DATA_HOME a shared disk):
            # another user's skills there would shadow this user's own of the same name, and receive
            # what is configured for that name
            result.replayable = False
            result.diagnostics.append(
                Diagnostic(
                    "warning",
                    "foreign-root",
                    "another user owns or can write this folder (or move one above it); skipped"
                    " (name it with --root to use it)",
                    top,
                )
            )
            return None
        own, linked = _skill_file(top)
        if linked:
            result.replayable = False
        if own is not None:  # a root that is itself a skill
            result.add(own[0], own[1])
            return None
        return self._list(top, st)

    def finish(self) -> WalkResult:
        result = self.result
        if result.replayable:
            newest = max((c for _, c, _ in result.listed_dirs), default=0)
            result.replayable = newest < self.started - RACY_NS
        return result

    def _list(self, directory: str, dir_st: os.stat_result) -> list[os.DirEntry[str]] | None:
        try:
            entries = sorted(os.scandir(directory), key=_BY_NAME)
        except OSError as e:
            self.result.replayable = False
            self.result.diagnostics.append(
                Diagnostic("warning", "unreadable-dir", f"cannot list directory: {e.strerror}", directory)
            )
            return None
        self.result.listed_dirs.append((directory, dir_st.st_ctime_ns, dir_st.st_ino))
        return entries

    def visit(self, entries: Iterable[os.DirEntry[str]], directory: str, depth: int) -> bool:
        """Visit the entries of one listed directory. Once the directory budget has run out,
        each level stops at its next directory to descend into; True when this level stopped."""
        result, allowed_real, visited, budget = self.result, self.allowed_real, self.visited, self.budget
        for entry in entries:
            name = entry.name
            if name[0] == "." or name in IGNORED_DIRS:
                continue
            try:
                is_link = entry.is_symlink()
                if is_link:  # even one that leads nowhere yet: its target may appear unseen
                    result.replayable = False
                if not entry.is_dir(follow_symlinks=True):
                    continue
            except OSError:
                result.replayable = False
                continue
            path = entry.path
            if is_link:
                real = os.path.realpath(path)
                if not any(real == a or real.startswith(a + os.sep) for a in allowed_real):
                    result.diagnostics.append(
                        Diagnostic(
                            "warning",
                            "symlink-outside-root",
                            f"symlink leaves the skill roots ({real}); not followed",
                            path,
                        )
                    )
                    continue
                if real in visited:
                    continue
                visited.add(real)
            found, linked = _skill_file(path)
            if linked:
                result.replayable = False
            if found is not None:
                skill_file = found[0]
                real = found[2]
                if real is not None and not any(real.startswith(a + os.sep) for a in allowed_real):
                    result.diagnostics.append(
                        Diagnostic(
                            "warning",
                            "symlink-outside-root",
                            f"skill file links outside the skill roots ({real})",
                            skill_file,
                        )
                    )
                    continue
                result.add(skill_file, found[1])
                continue
            try:
                sub_st = os.stat(path)
            except OSError:
                result.replayable = False
                continue
            if depth + 1 >= MAX_DEPTH:
                # looked into (for a skill file) but not listed: a skill file added here changes its mtime
                result.listed_dirs.append((path, sub_st.st_ctime_ns, sub_st.st_ino))
                continue
            budget[0] -= 1
            if budget[0] < 0:
                result.replayable = False
                if budget[0] == -1:
                    result.diagnostics.append(
                        Diagnostic(
                            "warning",
                            "walk-limit",
                            f"more than {MAX_DIRS_PER_ROOT} directories; stopped walking",
                            directory,
                        )
                    )
                return True
            sub_entries = self._list(path, sub_st)
            if sub_entries:
                self.visit(sub_entries, path, depth + 1)
        return False


def replay_walk(
    top: str, paths: Sequence[str], listed: Sequence[tuple[str, int, int]], *, saved: bool = True
) -> WalkResult | None:
    """The walk of a root again without listing it: valid while every directory it looked into
    is unchanged (same inode and ctime: an entry added, removed or renamed, or a permission
    change, moves the ctime; `utime` cannot set it back).

    Each skill file is still `lstat`ed (an edit in place changes no directory), so the result
    carries fresh stats. None when anything differs: the caller walks for real.

    A `saved` walk is data from a file and is held to the shape a walk produces: listed
    directories are real directories (not links) below the root, each inside one listed before
    it; every path is a skill file name, once, in a directory that one of them holds, with no
    `.`, `..`, hidden, ignored or empty part below the root and no deeper than a walk goes.
    So a tampered cache cannot name a file outside the root's tree. What it still can do is
    leave skills out, or name a skill directory that is a symlink inside the root (a walk
    refuses those; noticing would cost an lstat of every skill directory on every start); the
    cache lives in the user's own cache directory. A walk this process made is not re-checked.
    """
    try:
        base = top + os.sep
        looked: set[str] = set()
        for d, ctime_ns, ino in listed:
            if d == top:
                st = os.stat(top)  # the root itself may be reached through a link
            elif (
                d.__class__ is not str
                or not d.startswith(base)
                or not _plain_below(d[len(top) :])
                or d.rpartition(os.sep)[0] not in looked
            ):
                return None
            else:
                st = os.lstat(d)
            if not stat.S_ISDIR(st.st_mode) or st.st_ctime_ns != ctime_ns or st.st_ino != ino:
                return None
            looked.add(d)
        paths = list(paths)
        if not looked and len(paths) != 1:
            return None  # only a root that is itself a skill looks into nothing
        if saved and len(set(paths)) != len(paths):
            return None
    except Exception:  # a saved walk is untrusted data
        return None
    # a saved walk's paths are checked one by one in _file_stats, unless the whole list passes
    # the same checks at once (the usual flat root: every skill directory straight below it)
    check = looked if saved and not _flat_walk_ok(top, paths, looked) else None
    stats = _file_stats(top, paths, check)
    if stats is None:
        return None
    return WalkResult(paths=paths, stats=stats, listed_dirs=list(listed))


def _file_stats(top: str, paths: Sequence[str], looked: set[str] | None) -> list[AnyStat] | None:
    """The lstat of each skill file, or None at the first that is gone, not regular, or no
    longer its directory's skill file. With `looked` (a saved walk: data from a file), also
    None at the first path the walk of `top` could not have found."""
    out: list[AnyStat] = []
    add = out.append
    lstat = os.lstat
    base = top + os.sep
    below = len(top)
    hidden = os.sep + "."
    double = os.sep + os.sep
    try:
        for p in paths:
            if looked is not None:
                rel = p[below:]  # the part below the root, from its leading separator
                if (
                    not p.startswith(base)
                    or hidden in rel
                    or double in rel
                    or rel.count(os.sep) > MAX_DEPTH + 1
                ):
                    return None  # outside the root, `.`/`..`/hidden/empty parts, too deep: never from a walk
                skill_dir = p.rpartition(os.sep)[0]
                if skill_dir == top:
                    if looked:  # only a root that is itself a skill holds its skill file directly
                        return None
                else:
                    parent, _, dir_name = skill_dir.rpartition(os.sep)
                    if dir_name in IGNORED_DIRS or skill_dir in looked or parent not in looked:
                        return None  # a directory the walk never looked into, or would skip
            if not p.endswith(_FIRST):  # skill.md / SKILL.toml: a SKILL.md added since would win
                skill_dir, _, name = p.rpartition(os.sep)
                found, linked = _skill_file(skill_dir)
                if name not in SKILL_FILES or linked or found is None or found[0] != p:
                    return None
            st = lstat(p)
            if not S_ISREG(st.st_mode):
                return None
            # the four fields the registry compares: the 19-field stat_result (about 15 objects)
            # is freed at once instead of living, and taking fresh pages, as long as the registry
            add(FileStat(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns))
    except Exception:  # a saved walk is untrusted data
        return None
    return out


def _flat_walk_ok(top: str, paths: list[str], looked: set[str]) -> bool:
    """True when every path is `top/<name>/SKILL.md` for a plain `<name>` and the walk listed only
    `top`: what `_file_stats` would check per path, done with a few whole-list string operations.
    False means "check them one by one", not "invalid"."""
    try:
        if looked != {top} or not paths or not all(map(str.endswith, paths, repeat(_FIRST))):
            return False
        if not all(map(str.startswith, paths, repeat(top + os.sep))):
            return False
        joined = "\n".join(paths)
    except TypeError:  # not all strings: the per-path check refuses them
        return False
    if joined.count("\n") != len(paths) - 1:
        return False  # a name with a line break: the per-path check handles it
    rels = ("\n" + joined).replace("\n" + top, "\n")  # each path from the separator after the root
    return (
        rels.count(os.sep) == 2 * len(paths)  # exactly `/<name>/SKILL.md` below the root
        and os.sep + "." not in rels  # no hidden, `.` or `..` name
        and os.sep + os.sep not in rels  # no empty name
        and not any(f"{os.sep}{name}{os.sep}" in rels for name in IGNORED_DIRS)
    )


def _plain_below(rel: str) -> bool:
    """`rel` (from the separator after the root) names directories a walk enters: no hidden,
    `.`, `..`, ignored or empty part, and not deeper than a walk goes."""
    parts = rel.split(os.sep)[1:]
    return 0 < len(parts) <= MAX_DEPTH and all(
        part and part[0] != "." and part not in IGNORED_DIRS for part in parts
    )


def _skill_file(directory: str) -> tuple[tuple[str, os.stat_result, str | None] | None, bool]:
    """((path, stat, real path when it is a link) of the directory's skill file or None, whether any
    candidate name is a symlink, even one leading nowhere): one lstat in the common case.

    A link is resolved once and the stat is of the file it resolved to (an lstat: no link is followed
    after the check), so a link swapped later cannot lend another file's stat; the read that follows
    compares inodes (`parsing.text.read_head`)."""
    linked = False
    for name in SKILL_FILES:
        p = directory + os.sep + name
        real = None
        try:
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                linked = True
                real = os.path.realpath(p)
                st = os.lstat(real)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            return (p, st, real), linked
    return None, linked


# ---------------------------------------------------------------- scanning the roots


class Scan:
    """Every root walked and its skill files parsed, with what a reload needs to redo only what changed.

    A registry holds one and `run`s it; `files`, `by_name`, `order` and `diagnostics` are the
    result. A file whose stat did not change keeps its entry (it is not read again). On a first
    scan, rows of the start-up cache (`cached`) stand in for files whose stat they match, and a
    `Skill` is built from such a row only when someone uses it.
    """

    def __init__(self, roots: Sequence[Root], cached: Cached | None = None) -> None:
        self.roots = list(roots)
        self.cached = cached if cached is not None else Cached()
        #: every skill file found, loaded or not, by path
        self.files: dict[str, Entry] = {}
        #: the winning entry of each name, and those entries by root priority, walk order within a root
        self.by_name: dict[str, Entry] = {}
        self.order: list[Entry] = []
        self.diagnostics: list[Diagnostic] = []
        self.walks: dict[int, WalkResult] = {}
        #: skill files the last `run` parsed (rather than keeping an entry or taking a cached row)
        self.parsed: list[str] = []
        #: where a running scan keeps the rows it parses (see `cache.parse_entry`); each entry holds
        #: its store until its `Skill` is built, so the store goes with the last of them
        self._rows: Cached | None = None
        #: True while some entries in `order` are still cached rows (see `build_all`)
        self.lazy = False
        #: skill files read while their mtime was within the racy window of the scan: a second
        #: edit in the same timestamp tick could keep the same stat, so they are read again at
        #: the next scan and never written to the start-up cache
        self.racy: set[str] = set()
        self._racy_before = 0  #: mtimes at or after this are racy (set when a scan starts)
        #: skill files to parse again even though their own stat did not change (a sibling changed)
        self._forced: set[str] = set()

    def run(self, changed: set[str] | None = None) -> set[str] | None:
        """Walk every root (or, given changed paths, only the roots whose structure changed).

        Returns the names whose entries changed when watcher paths allowed an in-place
        update (see `_patch`), None after a full scan.
        """
        self.parsed = []
        self._rows = Cached()
        self._racy_before = time.time_ns() - RACY_NS
        try:
            if changed is not None:
                touched = self._patch(changed)
                if touched is not None:
                    return touched
            self._scan_roots(changed)
            return None
        finally:
            self._forced.clear()
            self._rows = None

    def build_all(self) -> None:
        """Build every skill still held as a cached row."""
        for e in self.order:
            e.loaded()
        self.lazy = False

    def _patch(self, changed: set[str]) -> set[str] | None:
        """Watcher paths that only edit known skill files, keeping their names and diagnostics,
        are applied in place: O(changed), not O(skills). None when a full scan is needed."""
        refresh: dict[str, tuple[Root, os.stat_result]] = {}
        for i, root in enumerate(self.roots):
            walk = self.walks.get(i)
            mine: set[str] = set()
            if walk is None or not self._can_reuse_walk(root, walk, changed, mine):
                return None
            for path in mine:
                if path in refresh:
                    return None  # nested roots share the file: let the full scan decide
                refresh[path] = (root, walk.stats[walk.index()[path]])
        files = self.files
        swaps: list[tuple[Entry, Entry]] = []
        for path, (root, st) in refresh.items():
            old = files.get(path)
            if old is None or old.source != root.source:
                return None
            new = self._entry_for(path, root.source, st)
            if new is old:
                continue
            files[path] = new  # a full scan from here reuses this parse (same stat)
            if new.name != old.name or new.diagnostics != old.diagnostics:
                return None
            swaps.append((old, new))
        if not swaps:
            return set()
        by_name = dict(self.by_name)
        order = list(self.order)
        for old, new in swaps:
            if new.name is not None and by_name.get(new.name) is old:
                by_name[new.name] = new
                order[order.index(old)] = new
        self.by_name = by_name
        self.order = order
        return {new.name for _, new in swaps if new.name is not None}

    def _scan_roots(self, changed: set[str] | None) -> None:
        allowed = [os.path.realpath(r.path) for r in self.roots]
        files: dict[str, Entry] = {}
        by_name: dict[str, Entry] = {}
        # names equal but for case or Unicode form ("pdf", "PDF", "ｐｄｆ") are one name to a reader
        # of the catalog, so the later one is shadowed as an exact copy would be
        by_folded: dict[str, Entry] = {}
        won_in: dict[str, int] = {}  #: folded name -> index of the root its skill is from
        losers: dict[str, list[tuple[int, Entry]]] = {}  #: folded name -> (diagnostic index, shadowed entry)
        order: list[Entry] = []
        diags: list[Diagnostic] = []
        walks: dict[int, WalkResult] = {}
        for i, root in enumerate(self.roots):
            walk = self.walks.get(i)
            refresh: set[str] = set()
            if changed is None or walk is None or not self._can_reuse_walk(root, walk, changed, refresh):
                walk = self._replay(root, walk) or walk_root(root, allowed)
                refresh = set()
                reuse = False
            else:
                reuse = True
            walks[i] = walk
            diags.extend(walk.diagnostics)
            source = root.source
            old_files = self.files
            cached = self.cached
            # the second-start fast path applies to a scan's first run
            first_run = bool(cached.paths) and not reuse and not old_files
            entries: list[Entry] = []
            add = entries.append
            for path, st in zip(walk.paths, walk.stats, strict=True):
                if reuse and path not in refresh:
                    add(old_files[path])
                elif first_run and (j := cached.lookup(path, st, source)) >= 0 and path not in cached.diags:
                    # the second-start fast path: a valid cache row, nothing built yet
                    add(Entry(st, path, source, None, (), cached.names[j], cached, j))
                    self.lazy = True
                else:
                    add(self._entry_for(path, source, st))
            for entry in entries:
                files[entry.path] = entry
                if entry.diagnostics:
                    diags.extend(entry.diagnostics)
                name = entry.name
                if name is None:
                    continue
                folded = name if name.isascii() and name.islower() else fold_name(name)
                winner = by_folded.get(folded)
                if winner is not None and won_in[folded] == i and _claim(entry) < _claim(winner):
                    # within one root, the copy in the folder named after it wins over one that a folder
                    # sorting first ("0-pdf", "a/pdf") would otherwise let take the name
                    order[order.index(winner)] = entry
                    del by_name[winner.name]
                    by_name[name] = by_folded[folded] = entry
                    for j, loser in losers.get(folded, ()):
                        diags[j] = _shadowed(loser, entry)
                    entry, winner = winner, entry
                if winner is not None:
                    losers.setdefault(folded, []).append((len(diags), entry))
                    diags.append(_shadowed(entry, winner))
                    continue
                by_name[name] = by_folded[folded] = entry
                won_in[folded] = i
                order.append(entry)
        self.walks = walks
        self.racy.intersection_update(files)
        self.files = files
        self.by_name = by_name
        self.order = order
        self.diagnostics = diags

    def _replay(self, root: Root, previous: WalkResult | None) -> WalkResult | None:
        """The previous walk of this root (this process's, or the start-up cache's) when no
        directory it looked into has changed; None means walk again."""
        top = str(root.path)
        if previous is not None:
            if not previous.replayable:
                return None
            return replay_walk(top, previous.paths, previous.listed_dirs, saved=False)
        saved = self.cached.walks.get(walk_key(top, root.source))
        return replay_walk(top, *saved) if saved is not None else None

    def _can_reuse_walk(self, root: Root, walk: WalkResult, changed: set[str], refresh: set[str]) -> bool:
        """True when the changed paths only edit known skill files (collected into `refresh`) or docs."""
        top = str(root.path)
        known = walk.index()
        skill_dirs = walk.skill_dirs()
        for c in changed:
            if not (c == top or c.startswith(top + os.sep)):
                continue
            if c in known:
                try:
                    st = os.lstat(c)
                except OSError:
                    return False  # a skill file disappeared: walk again
                if not stat.S_ISREG(st.st_mode):
                    return False  # now a link (perhaps out of the roots) or not a file: the walk decides
                refresh.add(c)
                walk.stats[known[c]] = st
                continue
            parent = os.path.dirname(c)
            if parent in skill_dirs and os.path.basename(c) == "SKILL.toml":
                # a SKILL.toml beside a SKILL.md adds its tools and prompts: parse that SKILL.md again
                md = next(
                    (p for p in (parent + os.sep + "SKILL.md", parent + os.sep + "skill.md") if p in known),
                    None,
                )
                if md is not None:
                    refresh.add(md)
                    self._forced.add(md)
                    continue
            if parent in skill_dirs and os.path.basename(c) not in SKILL_FILES:
                continue  # a doc or script inside a skill: listed live, no metadata change
            inside = any(c.startswith(d + os.sep) for d in skill_dirs)
            if inside and parent not in skill_dirs:
                continue  # deeper inside a skill: supporting content only
            return False
        return True

    def _entry_for(self, path: str, source: str, st: AnyStat) -> Entry:
        old = self.files.get(path) if path not in self._forced and path not in self.racy else None
        if (
            old is not None
            and old.st.st_mtime_ns == st.st_mtime_ns
            and old.st.st_size == st.st_size
            and old.st.st_ino == st.st_ino  # a file replaced by a copy with the same size and time
            and old.st.st_ctime_ns == st.st_ctime_ns
            and (old.name is None or old.source == source)
        ):
            return old
        cached = self.cached
        if cached.paths and path not in self._forced:
            i = cached.lookup(path, st, source)
            if i >= 0:
                rows = cached.diags.get(path)
                try:
                    diags = tuple(diag_from_row(d) for d in rows) if rows else ()
                except TypeError:
                    diags = None
                if diags is not None:
                    self.lazy = True
                    return Entry(st, path, source, None, diags, cached.names[i], cached, i)
        self.parsed.append(path)
        if st.st_mtime_ns >= self._racy_before:
            self.racy.add(path)
        else:
            self.racy.discard(path)
        assert self._rows is not None, "entries are parsed while a scan runs"
        entry = parse_entry(path, source, st, self._rows)
        if entry.name is not None:
            self.lazy = True
        return entry
