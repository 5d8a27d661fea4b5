"""The registry: the one place that knows which skills exist and which are usable.

Roots are walked, skill files parsed (frontmatter only), names resolved by
root priority, eligibility decided. Every surface (tools, CLI, MCP) asks the
registry; none re-parses or re-checks. Reloads re-read only files whose size
or mtime changed.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard import cache as cache_mod
from skillyard import discovery
from skillyard.config import Config, load_config, persist_disabled
from skillyard.discovery import (
    SKILL_FILES,
    AnyStat,
    Probe,
    Root,
    Walker,
    WalkResult,
    opening_probe,
    replay_walk,
    resolve_roots,
    walk_root,
)
from skillyard.eligibility import Host, evaluate, is_eligible
from skillyard.model import BUILTIN_TOOL_NAMES, Diagnostic, Eligibility, Requirements, Skill, ToolSpec

if TYPE_CHECKING:
    from skillyard.search import SearchHit, SearchIndex


_BUILD_LOCK = threading.Lock()


class _FileEntry:
    """What one skill file parsed to, keyed by its stat so unchanged files are not re-read.

    An entry from the start-up cache holds the skill's name and its marshal blob; the
    `Skill` is rebuilt on first use, so a second start builds names and order only.
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
        rows: cache_mod.Cached | None = None,
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
        return cache_mod.skill_to_blob(self.loaded())

    def summary(self) -> cache_mod.Row:
        """The skill's `cache.summary_of` row, from the cache while the skill is not built yet."""
        rows = self._rows
        if self._skill is None and rows is not None:
            found = rows.summary(self._row)
            if found is not None:
                return found
        return cache_mod.summary_of(self.loaded())

    def loaded(self) -> Skill:
        """The skill of an entry that has a name (every entry in a registry's order)."""
        s = self.skill
        assert s is not None
        return s

    def _materialise(self) -> Skill:
        """The skill from the cached blob; a blob that does not decode to this entry's skill is
        not trusted, and the file is parsed instead (same stat, so the same result as a cold start)."""
        assert self._rows is not None
        try:
            s = cache_mod.skill_from_blob(self._rows.row(self._row))
            if s.name == self.name and str(s.path) == self.path:
                return s
        except Exception:  # rows are data from a file: anything wrong means "parse it instead"
            pass
        skill, diags = _parse(self.path, self.source)
        if skill is None or skill.name != self.name:  # the name is already registered: keep it
            skill = Skill(name=str(self.name), description="", path=Path(self.path), source=self.source)
            diags = [
                *diags,
                Diagnostic("warning", "cache-mismatch", "start-up cache entry was unusable", self.path),
            ]
        self.diagnostics = tuple(diags)
        return skill


@dataclass(frozen=True, slots=True)
class ReloadDiff:
    """The reload result of the `skills` tool and `serve --watch`: counts before/after and per-skill status changes."""

    previous: dict[str, int]
    current: dict[str, int]
    changes: list[dict[str, str]]
    updated: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reloaded": True,
            "previous": self.previous,
            "current": self.current,
            "changes": self.changes,
            "updated": self.updated,
        }


_parser: tuple[Callable[..., tuple[Skill | None, list[Diagnostic]]], Callable[[str], Path]] | None = None


def _load_parser() -> tuple[Callable[..., tuple[Skill | None, list[Diagnostic]]], Callable[[str], Path]]:
    """Imported on first use (a start from the cache never needs the YAML stack), then kept:
    an import statement per file costs about a microsecond."""
    global _parser
    from skillyard.parsing import parse_skill

    _parser = (parse_skill, Path)
    return _parser


def _parse(
    path: str, source: str, st: AnyStat | None = None, fd: int = -1
) -> tuple[Skill | None, list[Diagnostic]]:
    """Parse one skill file; `fd`, when given, is the file already open (this closes it)."""
    parse_skill, path_of = _parser or _load_parser()
    try:
        return parse_skill(path_of(path), source=source, st=st, fd=fd)
    except Exception as e:  # the parser promises not to raise; one bad file must still not stop the others
        return None, [
            Diagnostic("error", "parse-crash", f"unexpected parser failure: {type(e).__name__}: {e}", path)
        ]


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Building thousands of small acyclic objects triggers full cyclic-GC passes over and over
    (each one walking every skill already loaded); pausing collection for the bulk work removes
    most of a large scan's cost without changing what is freed."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if gc.get_freeze_count() == 0:
                # What a scan leaves behind is long-lived (the registry keeps it). Left in the young
                # generation, the first collection after this walks all of it (about 7 us per skill)
                # and moves it up anyway; freeze + unfreeze puts every tracked object in the oldest
                # generation at once (documented: unfreeze returns them there), so only a full
                # collection ever looks at them again. Skipped when the application froze objects
                # itself, since unfreezing would undo that.
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _fold(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


class Registry:
    """Skills found on the search path, by priority, with eligibility for this host."""

    def __init__(
        self,
        roots: Sequence[Root],
        config: Config | None = None,
        *,
        host: Host | None = None,
        cache: bool | Path = False,
    ) -> None:
        self.roots: list[Root] = list(roots)
        self.config: Config = config or Config()
        self.host: Host = host or Host()
        self._lock = threading.RLock()
        self._files: dict[str, _FileEntry] = {}
        self._by_name: dict[str, _FileEntry] = {}
        self._order: list[_FileEntry] = []
        self._diagnostics: list[Diagnostic] = []
        self._eligibility: dict[str, tuple[Skill, Eligibility]] = {}
        self._walks: dict[int, WalkResult] = {}
        self._counts_memo: tuple[int, dict[str, int]] | None = None
        #: True while some skills in the order are still cached rows (see `_build_all`)
        self._lazy = False
        self._tool_plan: tuple[int, dict[str, tuple[Skill, ToolSpec]], list[Diagnostic]] | None = None
        self._index: SearchIndex | None = None
        self._listeners: list[Callable[[ReloadDiff], None]] = []
        #: bumps whenever the set of skills or their eligibility may have changed
        self.version = 0
        self._cache_file: Path | None = None
        self._cached: cache_mod.Cached = cache_mod.Cached()
        if cache:
            self._cache_file = (
                cache if isinstance(cache, Path) else cache_mod.cache_path([str(r.path) for r in self.roots])
            )
            with _gc_paused():
                self._cached = cache_mod.load(self._cache_file)
        self._fresh = 0
        #: skill files to parse again even though their own stat did not change (a sibling changed)
        self._forced: set[str] = set()
        #: skill files read while their mtime was within the racy window of the scan: a second
        #: edit in the same timestamp tick could keep the same stat, so they are read again at
        #: the next scan and never written to the start-up cache
        self._racy: set[str] = set()
        self._racy_before = 0  #: mtimes at or after this are racy (set when a scan starts)
        self._scan()
        if self._cache_file is not None:
            self._save_cache()
            self._cached = cache_mod.Cached()

    # ------------------------------------------------------------ construction

    @classmethod
    def discover(
        cls,
        config: Config | None = None,
        *,
        cwd: Path | None = None,
        host: Host | None = None,
        cache: bool | Path = True,
    ) -> Registry:
        """The default search path (or SKILLYARD_PATH / `[skills] roots` when set), with the start-up cache."""
        config = config if config is not None else load_config(cwd=cwd)
        return cls(resolve_roots(None, config, cwd), config, host=host, cache=cache)

    @classmethod
    def from_roots(
        cls, paths: Sequence[Path | str], config: Config | None = None, *, host: Host | None = None
    ) -> Registry:
        """Only the given roots, highest priority first."""
        config = config or Config()
        return cls(resolve_roots(list(paths), config), config, host=host)

    # ------------------------------------------------------------ scanning

    def _scan(self, changed: set[str] | None = None) -> set[str] | None:
        """Walk every root (or, given changed paths, only the roots whose structure changed).

        Returns the names whose entries changed when watcher paths allowed an in-place
        update (see `_patch`), None after a full scan.
        """
        self._racy_before = time.time_ns() - discovery.RACY_NS
        try:
            with _gc_paused():
                if changed is not None:
                    touched = self._patch(changed)
                    if touched is not None:
                        return touched
                self._scan_roots(changed)
            return None
        finally:
            self._forced.clear()

    def _patch(self, changed: set[str]) -> set[str] | None:
        """Watcher paths that only edit known skill files, keeping their names and diagnostics,
        are applied in place: O(changed), not O(skills). None when a full scan is needed."""
        refresh: dict[str, tuple[Root, os.stat_result]] = {}
        for i, root in enumerate(self.roots):
            walk = self._walks.get(i)
            mine: set[str] = set()
            if walk is None or not self._can_reuse_walk(root, walk, changed, mine):
                return None
            for path in mine:
                if path in refresh:
                    return None  # nested roots share the file: let the full scan decide
                refresh[path] = (root, walk.stats[walk.index()[path]])
        files = self._files
        swaps: list[tuple[_FileEntry, _FileEntry]] = []
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
        self.version += 1
        if not swaps:
            return set()
        by_name = dict(self._by_name)
        order = list(self._order)
        for old, new in swaps:
            if new.name is not None and by_name.get(new.name) is old:
                by_name[new.name] = new
                order[order.index(old)] = new
        self._by_name = by_name
        self._order = order
        return {new.name for _, new in swaps if new.name is not None}

    def _scan_roots(self, changed: set[str] | None) -> None:
        allowed = [os.path.realpath(r.path) for r in self.roots]
        files: dict[str, _FileEntry] = {}
        by_name: dict[str, _FileEntry] = {}
        order: list[_FileEntry] = []
        diags: list[Diagnostic] = []
        walks: dict[int, WalkResult] = {}
        for i, root in enumerate(self.roots):
            walk = self._walks.get(i)
            refresh: set[str] = set()
            ready: dict[str, _FileEntry] = {}
            if changed is None or walk is None or not self._can_reuse_walk(root, walk, changed, refresh):
                walk = self._replay(root, walk)
                if walk is None:
                    walk, ready = self._walk(root, allowed)
                refresh = set()
                reuse = False
            else:
                reuse = True
            walks[i] = walk
            diags.extend(walk.diagnostics)
            source = root.source
            old_files = self._files
            cached = self._cached
            # the second-start fast path applies to a registry's first scan
            hits = cached.index() if cached.paths and not reuse and not old_files else None
            stats, names, sources = cached.stats, cached.names, cached.sources
            cached_diags = cached.diags
            lazy = False
            if len(ready) == len(walk.paths):  # all parsed on the way (in walk order)
                entries: Iterable[_FileEntry] = ready.values()
            else:
                entries = []
                add = entries.append
                for path, st in zip(walk.paths, walk.stats, strict=True):
                    if reuse and path not in refresh:
                        add(old_files[path])
                    elif ready and path in ready:
                        add(ready[path])
                    elif (
                        hits is not None
                        and (j := hits.get(path)) is not None
                        and stats[(k := 3 * j)] == st.st_mtime_ns
                        and stats[k + 1] == st.st_size
                        and stats[k + 2] == st.st_ino
                        and sources[j] == source
                        and path not in cached_diags
                    ):  # the second-start fast path: a valid cache row, nothing built yet
                        add(_FileEntry(st, path, source, None, (), names[j], cached, j))
                        lazy = True
                    else:
                        add(self._entry_for(path, source, st))
            for entry in entries:
                files[entry.path] = entry
                if entry.diagnostics:
                    diags.extend(entry.diagnostics)
                name = entry.name
                if name is None:
                    continue
                winner = by_name.get(name)
                if winner is not None:
                    diags.append(
                        Diagnostic(
                            "warning",
                            "shadowed",
                            f"skill '{name}' is shadowed by {winner.path} ({winner.source})",
                            entry.path,
                        )
                    )
                    continue
                by_name[name] = entry
                order.append(entry)
            if lazy:
                self._lazy = True
        self._walks = walks
        self._racy.intersection_update(files)
        self._files = files
        self._by_name = by_name
        self._order = order
        self._diagnostics = diags
        if changed is None:
            self._eligibility = {}
        else:  # keep answers for skills whose objects did not change
            self._eligibility = {
                n: e
                for n, e in self._eligibility.items()
                if (f := by_name.get(n)) is not None and f._skill is e[0]
            }
        self.version += 1

    def _walk(self, root: Root, allowed: list[str]) -> tuple[WalkResult, dict[str, _FileEntry]]:
        """Walk a root. A cold walk parses each skill file as it finds it (see `_probe`);
        the entries parsed on the way are returned with the walk."""
        if self._files or self._cached.paths:
            return walk_root(root, allowed), {}
        ready: dict[str, _FileEntry] = {}
        walker = Walker(root, allowed, probe=self._probe(root.source, ready))
        entries = walker.top_entries()
        if entries:
            walker.visit(entries, walker.top, 0)
        return walker.finish(), ready

    def _probe(self, source: str, ready: dict[str, _FileEntry]) -> Probe:
        """Parse each candidate skill file the walk looks at, opened once."""

        def parse(candidate: str, st: os.stat_result, fd: int) -> None:
            self._fresh += 1
            if st.st_mtime_ns >= self._racy_before:
                self._racy.add(candidate)
            skill, diags = _parse(candidate, source, st, fd)
            ready[candidate] = _FileEntry(st, candidate, source, skill, tuple(diags))

        return opening_probe(parse)

    def _replay(self, root: Root, previous: WalkResult | None) -> WalkResult | None:
        """The previous walk of this root (this process's, or the start-up cache's) when no
        directory it looked into has changed; None means walk again."""
        top = str(root.path)
        if previous is not None:
            if not previous.replayable:
                return None
            return replay_walk(top, previous.paths, previous.listed_dirs, saved=False)
        saved = self._cached.walks.get(cache_mod.walk_key(top, root.source))
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
                    st = os.stat(c)
                except OSError:
                    return False  # a skill file disappeared: walk again
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

    def _entry_for(self, path: str, source: str, st: AnyStat) -> _FileEntry:
        old = self._files.get(path) if path not in self._forced and path not in self._racy else None
        if (
            old is not None
            and old.st.st_mtime_ns == st.st_mtime_ns
            and old.st.st_size == st.st_size
            and old.st.st_ino == st.st_ino  # a file replaced by a copy with the same size and time
            and (old.name is None or old.source == source)
        ):
            return old
        cached = self._cached
        if cached.paths and path not in self._forced:
            i = cached.lookup(path, st, source)
            if i >= 0:
                rows = cached.diags.get(path)
                try:
                    diags = tuple(cache_mod.diag_from_row(d) for d in rows) if rows else ()
                except TypeError:
                    diags = None
                if diags is not None:
                    self._lazy = True
                    return _FileEntry(st, path, source, None, diags, cached.names[i], cached, i)
        self._fresh += 1
        if st.st_mtime_ns >= self._racy_before:
            self._racy.add(path)
        else:
            self._racy.discard(path)
        skill, diags = _parse(path, source, st)
        # a tuple: the usual empty one is a shared constant, not one more object per file
        return _FileEntry(st, path, source, skill, tuple(diags))

    def _save_cache(self) -> None:
        if self._cache_file is None:
            return
        walks = {
            cache_mod.walk_key(str(root.path), root.source): (walk.paths, walk.listed_dirs)
            for i, root in enumerate(self.roots)
            if (walk := self._walks.get(i)) is not None and walk.replayable
        }
        if self._fresh == 0 and len(self._cached) == len(self._files) and walks == self._cached.walks:
            return
        out = cache_mod.Cached(walks=walks)
        for path, e in self._files.items():
            if e.name is None or path in self._racy:
                continue  # files that did not load are re-read (their diagnostics stay current)
            out.add(
                path,
                (e.st.st_mtime_ns, e.st.st_size, e.st.st_ino),
                e.source,
                e.name,
                e.row(),
                [cache_mod.diag_to_row(d) for d in e.diagnostics],
                e.summary(),
            )
        cache_mod.save(self._cache_file, out)

    def reload(self, changed: Iterable[str | Path] | None = None) -> ReloadDiff:
        """Re-scan, re-reading only files whose stat changed; returns the reload diff.

        With `changed` (paths a file watcher reported), roots whose structure did not
        change are not walked again and binary lookups are kept; without it
        everything is re-checked, including binaries installed since.
        """
        with self._lock, _gc_paused():
            prev_counts = self._counts()  # also fills the eligibility cache for every skill
            before = self._by_name
            old_elig = dict(self._eligibility)
            touched: set[str] | None = None
            if changed is None:
                self.host.forget_bins()
                self._scan()
            else:
                touched = self._scan({os.path.abspath(str(c)) for c in changed})
            after = self._by_name
            if self._index is not None:
                self._refresh_index(before, touched)
            if touched is not None:  # edited in place: only these entries changed
                names = touched
            elif changed is None:  # any status may have moved (binaries, env, config)
                names = set(before) | set(after)
            else:  # only skills whose objects changed can have moved
                names = {n for n in set(before) | set(after) if before.get(n) is not after.get(n)}
            changes: list[dict[str, str]] = []
            updated: list[str] = []
            for name in sorted(names):
                was = old_elig[name][1].status if name in before else "absent"
                now = self.eligibility(after[name].loaded()).status if name in after else "absent"
                if was != now:
                    changes.append({"skill": name, "was": was, "now": now})
                elif before.get(name) is not after.get(name):
                    updated.append(name)
            if touched is not None:  # other skills kept their objects, so their answers stand
                eligible = prev_counts["eligible"]
                for name in names:
                    eligible += (self.eligibility(after[name].loaded()).eligible) - old_elig[name][1].eligible
                self._counts_memo = (self.version, {"eligible": eligible, "total": len(self._order)})
            diff = ReloadDiff(prev_counts, self._counts(), changes, updated)
        for cb in list(self._listeners):
            cb(diff)
        return diff

    def on_change(self, callback: Callable[[ReloadDiff], None]) -> None:
        """Call `callback(diff)` after every reload (MCP list-changed notifications use it)."""
        self._listeners.append(callback)

    def _counts(self) -> dict[str, int]:
        """Eligible/total; remembered per registry version (every change of status bumps it)."""
        memo = self._counts_memo
        if memo is None or memo[0] != self.version:
            if self._lazy:
                self._build_all()
            counts = {
                "eligible": sum(1 for e in self._order if self.eligibility(e.loaded()).eligible),
                "total": len(self._order),
            }
            memo = self._counts_memo = (self.version, counts)
        return dict(memo[1])

    # ------------------------------------------------------------ lookup

    @property
    def skills(self) -> list[Skill]:
        """Loaded skills (shadowed ones excluded), highest-priority root first, walk order within a root."""
        order = self._order
        if self._lazy:
            self._build_all()
        return [e.loaded() for e in order]

    def _build_all(self) -> None:
        """Build every skill still held as a cached row, with the GC paused (as for a scan):
        built one by one under an active collector, 10,000 skills cost several times more."""
        with self._lock, _gc_paused():
            for e in self._order:
                if e._skill is None:
                    e.loaded()
        self._lazy = False

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic of the last scan (parse problems, skills not loaded, shadowing),
        plus notes on SKILL.toml tools that were renamed or left out."""
        return [*self._diagnostics, *self.tool_plan()[1]]

    def tool_plan(self) -> tuple[dict[str, tuple[Skill, ToolSpec]], list[Diagnostic]]:
        """Tool name → (skill, spec) for every SKILL.toml tool offered to the model, and rename notes.

        Computed once per registry version, so every surface agrees on the names.
        """
        if self._tool_plan is None or self._tool_plan[0] != self.version:
            # only skills that offer tools are built (a listing from the start-up cache builds none)
            with_tools = [e.loaded() for e in self._order if e.summary()[4]]
            skills = [s for s in with_tools if self.eligibility(s).eligible]
            plan: dict[str, tuple[Skill, ToolSpec]] = {}
            notes: list[Diagnostic] = []
            if skills:
                from skillyard.toml_tools import lint_tool
                from skillyard.toml_tools.naming import plan_tool_names

                plan, notes = plan_tool_names(skills, BUILTIN_TOOL_NAMES)
                for name, (skill, spec) in list(plan.items()):
                    found = lint_tool(spec, str(skill.root / "SKILL.toml"))
                    notes.extend(found)
                    if any(d.level == "error" for d in found):
                        del plan[name]  # a template that can never run is not offered to the model
            self._tool_plan = (self.version, plan, notes)
        return self._tool_plan[1], self._tool_plan[2]

    def summaries(self) -> list[tuple[str, str, str, bool]]:
        """(name, emoji, description, eligible) of every loaded skill, in `skills` order.

        What `skillyard list` shows. Every skill not from the install root is answered from its
        small summary row (the start-up cache's, or its built skill's), eligibility decided once per
        distinct set of requirements, so listing a cached catalog builds no `Skill`."""
        out = []
        host, config = self.host, self.config
        #: answers by (requirements, always) for skills without a per-skill config section, whose
        #: answer does not depend on their name
        shared: dict[tuple[object, ...], bool] = {}
        for e in self._order:
            # an installed skill is built: `eligibility` checks its files against the lockfile
            if e.source != "install":
                emoji, desc, always, req, _ = e.summary()
                name = str(e.name)
                if not any(req):
                    ok = not config.is_disabled(name)
                elif name in config.skills or name in config.disabled:  # decided by name too
                    ok = is_eligible(name, Requirements(*req), always, host, config)
                else:
                    key = (req, always)
                    hit = shared.get(key)
                    if hit is None:
                        hit = shared[key] = is_eligible(name, Requirements(*req), always, host, config)
                    ok = hit
            else:
                s = e.loaded()
                emoji, desc, ok = s.emoji, s.description, self.eligibility(s).eligible
            out.append((str(e.name), emoji or "", desc, ok))
        return out

    def get(self, name: str) -> Skill | None:
        if not isinstance(name, str):
            return None
        e = self._by_name.get(name)
        return None if e is None else e.skill

    def copies(self, name: str, *, fold: bool = False) -> list[tuple[str, Path, str]]:
        """Every skill on the search path named `name` as (name, skill file, root label), the one
        that wins first, shadowed ones after it in precedence order. `fold` also matches names that
        differ only in case or Unicode form (a look-alike a person could mistake for the other)."""
        if not isinstance(name, str):
            return []
        key = _fold(name) if fold else name
        with self._lock:
            entries = list(self._files.values())
        return [
            (e.name, Path(e.path), e.source)
            for e in entries
            if e.name is not None and (_fold(e.name) if fold else e.name) == key
        ]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._by_name

    def __len__(self) -> int:
        return len(self._order)

    def names(self) -> list[str]:
        return [e.name for e in self._order]  # type: ignore[misc]  # ordered entries all have names

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """'Did you mean' candidates for an unknown name."""
        if not isinstance(name, str) or not name:
            return []
        import difflib  # only when a name was not found

        names = list(self._by_name)
        hits = difflib.get_close_matches(name, names, n=n, cutoff=0.6)
        hits += [x for x in names if name.lower() in x.lower() and x not in hits]
        return hits[:n]

    # ------------------------------------------------------------ eligibility

    def eligibility(self, skill: Skill | str) -> Eligibility:
        s = self.get(skill) if isinstance(skill, str) else skill
        if s is None:
            raise KeyError(skill)
        cached = self._eligibility.get(s.name)
        if cached is None or cached[0] is not s:
            cached = (s, evaluate(s, self.host, self.config, modified=self._modified_since_install(s)))
            self._eligibility[s.name] = cached
        elif self._is_installed(s) and cached[1].eligible and self._modified_since_install(s):
            # an installed skill's files can change under a long-running host (scripts, docs, not just
            # SKILL.md): it is re-verified against its lockfile on every question, never from the cache
            cached = (s, evaluate(s, self.host, self.config, modified=True))
            self._eligibility[s.name] = cached
        return cached[1]

    def is_eligible(self, name: str) -> bool:
        s = self.get(name)
        return s is not None and self.eligibility(s).eligible

    def eligible_skills(self) -> list[Skill]:
        return [s for s in self.skills if self.eligibility(s).eligible]

    @staticmethod
    def _is_installed(skill: Skill) -> bool:
        """Skills from the install root; `resolve_roots` labels that root "install" however it was named."""
        return skill.source == "install"

    def _modified_since_install(self, skill: Skill) -> bool:
        if not self._is_installed(skill):
            return False
        try:
            from skillyard.install import is_modified
        except ImportError:
            return False
        try:
            return bool(is_modified(self.config.install_root, skill.name, skill.root))
        except Exception:
            return True  # the lockfile cannot vouch for these files: fail closed

    def set_enabled(self, name: str, enabled: bool, *, persist: bool = False) -> Eligibility:
        """Runtime enable/disable; with `persist`, also written to the config file."""
        skill = self.get(name)
        if skill is None:
            raise KeyError(name)
        with self._lock:
            if persist:
                from skillyard.config import user_config_path

                path = self.config.path or user_config_path()
                persist_disabled(path, name, not enabled)
                if self.config.path is None:
                    from dataclasses import replace

                    self.config = replace(self.config, path=path)
            self.config = self.config.with_disabled(name, not enabled)
            self._eligibility.pop(name, None)
            self.version += 1
        return self.eligibility(skill)

    # ------------------------------------------------------------ search

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        """Ranked skills for a free-text query, each with its confidence ([] only when nothing matches)."""
        with self._lock:
            if self._index is None:
                from skillyard.search import index_from_settings

                self._index = index_from_settings(self.skills, self.config.search)
            return self._index.search(query, limit=limit)

    def _refresh_index(self, before: dict[str, _FileEntry], touched: set[str] | None = None) -> None:
        assert self._index is not None
        now = self._by_name
        if touched is not None:  # only these names can differ
            removed = [n for n in touched if n in before and now.get(n) is not before[n]]
            added = [now[n].loaded() for n in touched if n in now and before.get(n) is not now[n]]
        else:
            removed = [n for n, e in before.items() if now.get(n) is not e]
            added = [e.loaded() for n, e in now.items() if before.get(n) is not e]
        if removed or added:
            self._index.update(added, removed)
