"""The registry: the one place that knows which skills exist and which are usable.

Roots are walked, skill files parsed (frontmatter only), names resolved by
root priority, eligibility decided. Every surface (tools, CLI, MCP) asks the
registry; none re-parses or re-checks. Reloads re-read only files whose size
or mtime changed.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard import cache as cache_mod
from skillyard.config import Config, load_config, persist_disabled
from skillyard.discovery import Root, resolve_roots, walk_root
from skillyard.eligibility import Host, evaluate
from skillyard.model import Diagnostic, Eligibility, Skill

if TYPE_CHECKING:
    from skillyard.search import SearchHit, SearchIndex


@dataclass(slots=True)
class _FileEntry:
    """What one skill file parsed to, keyed by its stat so unchanged files are not re-read."""

    mtime_ns: int
    size: int
    skill: Skill | None
    diagnostics: list[Diagnostic]
    ino: int = 0


@dataclass(frozen=True, slots=True)
class ReloadDiff:
    """Seed-000 reload result: counts before/after and per-skill status changes."""

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


def _parse(path: str, source: str) -> tuple[Skill | None, list[Diagnostic]]:
    from skillyard.parsing import parse_skill

    try:
        return parse_skill(Path(path), source=source)
    except Exception as e:  # the parser promises not to raise; one bad file must still not stop the others
        return None, [
            Diagnostic("error", "parse-crash", f"unexpected parser failure: {type(e).__name__}: {e}", path)
        ]


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
        self._by_name: dict[str, Skill] = {}
        self._order: list[Skill] = []
        self._diagnostics: list[Diagnostic] = []
        self._eligibility: dict[str, Eligibility] = {}
        self._index: SearchIndex | None = None
        self._listeners: list[Callable[[ReloadDiff], None]] = []
        #: bumps whenever the set of skills or their eligibility may have changed
        self.version = 0
        self._cache_file: Path | None = None
        self._cached: cache_mod.Entries = {}
        if cache:
            self._cache_file = (
                cache if isinstance(cache, Path) else cache_mod.cache_path([str(r.path) for r in self.roots])
            )
            self._cached = cache_mod.load(self._cache_file)
        self._fresh = 0
        self._scan()
        if self._cache_file is not None:
            self._save_cache()
            self._cached = {}

    # ------------------------------------------------------------ construction

    @classmethod
    def discover(
        cls, config: Config | None = None, *, cwd: Path | None = None, host: Host | None = None
    ) -> Registry:
        """The default search path (or SKILLYARD_PATH / `[skills] roots` when set)."""
        config = config if config is not None else load_config(cwd=cwd)
        return cls(resolve_roots(None, config, cwd), config, host=host)

    @classmethod
    def from_roots(
        cls, paths: Sequence[Path | str], config: Config | None = None, *, host: Host | None = None
    ) -> Registry:
        """Only the given roots, highest priority first."""
        config = config or Config()
        return cls(resolve_roots(list(paths), config), config, host=host)

    # ------------------------------------------------------------ scanning

    def _scan(self) -> None:
        allowed = [os.path.realpath(r.path) for r in self.roots]
        files: dict[str, _FileEntry] = {}
        by_name: dict[str, Skill] = {}
        order: list[Skill] = []
        diags: list[Diagnostic] = []
        for root in self.roots:
            walk = walk_root(root, allowed)
            diags.extend(walk.diagnostics)
            for path in walk.skill_files:
                entry = self._entry_for(path, root.source)
                if entry is None:
                    continue
                files[path] = entry
                diags.extend(entry.diagnostics)
                skill = entry.skill
                if skill is None:
                    continue
                winner = by_name.get(skill.name)
                if winner is not None:
                    diags.append(
                        Diagnostic(
                            "warning",
                            "shadowed",
                            f"skill '{skill.name}' is shadowed by {winner.path} ({winner.source})",
                            str(skill.path),
                        )
                    )
                    continue
                by_name[skill.name] = skill
                order.append(skill)
        self._files = files
        self._by_name = by_name
        self._order = order
        self._diagnostics = diags
        self._eligibility = {}
        self.version += 1

    def _entry_for(self, path: str, source: str) -> _FileEntry | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        old = self._files.get(path)
        unchanged = old is not None and old.mtime_ns == st.st_mtime_ns and old.size == st.st_size
        if unchanged and (old.skill is None or old.skill.source == source):
            return old
        hit = self._cached.get(path)
        if hit is not None and hit[:4] == (st.st_mtime_ns, st.st_size, st.st_ino, source):
            try:
                skill = cache_mod.skill_from_row(hit[4]) if hit[4] is not None else None
                return _FileEntry(
                    st.st_mtime_ns, st.st_size, skill, [cache_mod.diag_from_row(d) for d in hit[5]], st.st_ino
                )
            except (TypeError, ValueError, IndexError):
                pass  # a cache from another layout: parse instead
        self._fresh += 1
        skill, diags = _parse(path, source)
        return _FileEntry(st.st_mtime_ns, st.st_size, skill, list(diags), st.st_ino)

    def _save_cache(self) -> None:
        if self._cache_file is None or (self._fresh == 0 and len(self._cached) == len(self._files)):
            return
        entries: cache_mod.Entries = {}
        for path, e in self._files.items():
            source = e.skill.source if e.skill is not None else ""
            row = cache_mod.skill_to_row(e.skill) if e.skill is not None else None
            if e.skill is None:
                continue  # files that did not load are re-read (their diagnostics stay current)
            entries[path] = (
                e.mtime_ns,
                e.size,
                e.ino,
                source,
                row,
                [cache_mod.diag_to_row(d) for d in e.diagnostics],
            )
        cache_mod.save(self._cache_file, entries)

    def reload(self) -> ReloadDiff:
        """Re-scan the roots, re-reading only changed files; returns the seed's diff."""
        with self._lock:
            before = {s.name: (self.eligibility(s).status, s) for s in self._order}
            prev_counts = self._counts()
            self.host.forget_bins()
            self._scan()
            if self._index is not None:
                self._refresh_index(before)
            after = {s.name: (self.eligibility(s).status, s) for s in self._order}
            changes: list[dict[str, str]] = []
            updated: list[str] = []
            for name in sorted(set(before) | set(after)):
                was = before.get(name, ("absent", None))
                now = after.get(name, ("absent", None))
                if was[0] != now[0]:
                    changes.append({"skill": name, "was": was[0], "now": now[0]})
                elif was[1] is not now[1]:
                    updated.append(name)
            diff = ReloadDiff(prev_counts, self._counts(), changes, updated)
        for cb in list(self._listeners):
            cb(diff)
        return diff

    def on_change(self, callback: Callable[[ReloadDiff], None]) -> None:
        """Call `callback(diff)` after every reload (MCP list-changed notifications use it)."""
        self._listeners.append(callback)

    def _counts(self) -> dict[str, int]:
        return {
            "eligible": sum(1 for s in self._order if self.eligibility(s).eligible),
            "total": len(self._order),
        }

    # ------------------------------------------------------------ lookup

    @property
    def skills(self) -> list[Skill]:
        """Loaded skills (shadowed ones excluded), highest-priority root first, walk order within a root."""
        return list(self._order)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic of the last scan: parse problems, skills not loaded, shadowing."""
        return list(self._diagnostics)

    def get(self, name: str) -> Skill | None:
        if not isinstance(name, str):
            return None
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._by_name

    def __len__(self) -> int:
        return len(self._order)

    def names(self) -> list[str]:
        return [s.name for s in self._order]

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """'Did you mean' candidates for an unknown name."""
        if not isinstance(name, str) or not name:
            return []
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
        if cached is None:
            cached = evaluate(s, self.host, self.config, modified=self._modified_since_install(s))
            self._eligibility[s.name] = cached
        return cached

    def is_eligible(self, name: str) -> bool:
        s = self.get(name)
        return s is not None and self.eligibility(s).eligible

    def eligible_skills(self) -> list[Skill]:
        return [s for s in self._order if self.eligibility(s).eligible]

    def _modified_since_install(self, skill: Skill) -> bool:
        if skill.source != "install":
            return False
        try:
            from skillyard.install import is_modified
        except ImportError:
            return False
        try:
            return bool(is_modified(self.config.install_root, skill.name, skill.root))
        except Exception:
            return False

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
        """Ranked skills for a free-text query ([] when nothing is a good match)."""
        with self._lock:
            if self._index is None:
                from skillyard.search import SearchIndex

                self._index = SearchIndex(self._order)
            return self._index.search(query, limit=limit)

    def _refresh_index(self, before: dict[str, tuple[str, Skill | None]]) -> None:
        assert self._index is not None
        now = {s.name: s for s in self._order}
        removed = [n for n, (_, s) in before.items() if n not in now or now[n] is not s]
        added = [s for n, s in now.items() if n not in before or before[n][1] is not s]
        if removed or added:
            self._index.update(added, removed)
