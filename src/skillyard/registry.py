"""The registry: the one place that knows which skills exist and which are usable.

A `discovery.Scan` walks the roots and parses skill files (frontmatter only); the
registry resolves names by root priority, decides eligibility, reports what a
reload changed, and bumps `version` whenever the set of skills or their
eligibility may have changed. Every surface (tools, CLI, MCP) asks the registry;
none re-parses or re-checks. What is built from the skills (the search index,
the SKILL.toml tool plan) is kept by its owner, keyed on `version`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard import cache as cache_mod
from skillyard.config import Config, load_config, persist_disabled
from skillyard.discovery import Root, Scan, resolve_roots
from skillyard.eligibility import Host, evaluate, is_eligible
from skillyard.model import Diagnostic, Eligibility, Requirements, Skill, fold_name

if TYPE_CHECKING:
    from skillyard.search import SearchHit


@dataclass(frozen=True, slots=True)
class ReloadDiff:
    """The reload result of the `skills` tool and `serve --watch`: counts before/after and per-skill status changes."""

    previous: dict[str, int]
    current: dict[str, int]
    changes: list[dict[str, str]]
    updated: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"reloaded": True, **asdict(self)}


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
        self._eligibility: dict[str, tuple[Skill, Eligibility]] = {}
        self._counts_memo: tuple[int, dict[str, int]] | None = None
        self._listeners: list[Callable[[ReloadDiff], None]] = []
        self._full_reloads = 0  #: full reloads begun so far
        self._last_full: ReloadDiff | None = None
        #: bumps whenever the set of skills or their eligibility may have changed
        self.version = 0
        cache_file: Path | None = None
        cached = None
        if cache:
            cache_file = (
                cache if isinstance(cache, Path) else cache_mod.cache_path([str(r.path) for r in self.roots])
            )
            cached = cache_mod.load(cache_file)
        #: the skill files found on the roots and what each parsed to
        self.scan = Scan(self.roots, cached)
        self._rescan()
        if cache_file is not None:
            cache_mod.save_scan(cache_file, self.scan)
            self.scan.cached = cache_mod.Cached()

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

    def _rescan(self, changed: set[str] | None = None) -> set[str] | None:
        """Run the scan (see `Scan.run`); answers stay for skills whose objects did not change."""
        touched = self.scan.run(changed)
        if touched is None:  # a full scan: a reload given no paths re-checks everything
            by_name, kept = self.scan.by_name, self._eligibility.items() if changed is not None else ()
            self._eligibility = {
                n: e for n, e in kept if (f := by_name.get(n)) is not None and f.built and f.skill is e[0]
            }
        self.version += 1
        return touched

    def reload(self, changed: Iterable[str | Path] | None = None) -> ReloadDiff:
        """Re-scan, re-reading only files whose stat changed; returns the reload diff.

        With `changed` (paths a file watcher reported), roots whose structure did not
        change are not walked again and binary lookups are kept; without it
        everything is re-checked, including binaries installed since. Full reloads asked for
        while another waits share its rescan (a burst of clients asking costs one).
        """
        asked = self._full_reloads
        with self._lock:
            if changed is None and self._full_reloads > asked and self._last_full is not None:
                return self._last_full  # a full reload began after this call and has finished
            prev_counts = self._counts()  # also fills the eligibility cache for every skill
            before = self.scan.by_name
            old_elig = dict(self._eligibility)
            touched: set[str] | None = None
            if changed is None:
                self._full_reloads += 1
                self.host.forget_bins()
                self._rescan()
            else:
                touched = self._rescan({os.path.abspath(str(c)) for c in changed})
            after = self.scan.by_name
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
                self._counts_memo = (self.version, {"eligible": eligible, "total": len(self)})
            diff = ReloadDiff(prev_counts, self._counts(), changes, updated)
            if changed is None:
                self._last_full = diff
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
            counts = {
                "eligible": sum(1 for s in self.skills if self.eligibility(s).eligible),
                "total": len(self),
            }
            memo = self._counts_memo = (self.version, counts)
        return dict(memo[1])

    # ------------------------------------------------------------ lookup

    @property
    def skills(self) -> list[Skill]:
        """Loaded skills (shadowed ones excluded), highest-priority root first, walk order within a root."""
        scan = self.scan
        if scan.lazy:
            with self._lock:
                scan.build_all()
        return [e.loaded() for e in scan.order]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic of the last scan (parse problems, skills not loaded, shadowing),
        plus notes on SKILL.toml tools that were renamed or left out (`toml_tools.tool_plan`)."""
        if not self.tool_skills():  # no tool to plan: the tool layer is not even loaded
            return list(self.scan.diagnostics)
        from skillyard.toml_tools.plan import tool_plan

        return [*self.scan.diagnostics, *tool_plan(self)[1]]

    def tool_skills(self) -> list[Skill]:
        """Eligible skills whose SKILL.toml offers tools to the model, in `skills` order. Only
        these are built (a listing from the start-up cache builds none)."""
        with_tools = [e.loaded() for e in self.scan.order if e.summary()[4]]
        return [s for s in with_tools if self.eligibility(s).eligible]

    def summaries(self) -> list[tuple[str, str, str, bool]]:
        """(name, emoji, description, eligible) of every loaded skill, in `skills` order.

        What `skillyard list` shows. Every skill not from the install root is answered from its
        small summary row (the start-up cache's, or its built skill's), eligibility decided once per
        distinct set of requirements, so listing a cached catalog builds no `Skill`."""
        out = []
        host, config = self.host, self.config
        #: names whose answer depends on the name (a config section or a disable); every other
        #: skill's answer is its (requirements, always) one, decided once per distinct pair
        named = config.skills.keys() | config.disabled
        shared: dict[tuple[object, ...], bool] = {}
        for e in self.scan.order:
            name = str(e.name)
            # an installed skill is built: `eligibility` checks its files against the lockfile
            if e.source == "install":
                s = e.loaded()
                out.append((name, s.emoji or "", s.description, self.eligibility(s).eligible))
                continue
            emoji, desc, always, req, _ = e.summary()
            if name in named:
                ok = is_eligible(name, Requirements(*req), always, host, config)
            else:
                ok = shared.get(key := (req, always))
                if ok is None:
                    ok = shared[key] = is_eligible(name, Requirements(*req), always, host, config)
            out.append((name, emoji or "", desc, ok))
        return out

    def get(self, name: str) -> Skill | None:
        if not isinstance(name, str):
            return None
        e = self.scan.by_name.get(name)
        return None if e is None else e.skill

    def copies(self, name: str, *, fold: bool = False) -> list[tuple[str, Path, str]]:
        """Every skill on the search path named `name` as (name, skill file, root label), the one
        that wins first, shadowed ones after it in precedence order. `fold` also matches names that
        differ only in case or Unicode form (a look-alike a person could mistake for the other)."""
        if not isinstance(name, str):
            return []
        key = fold_name(name) if fold else name
        with self._lock:
            entries = list(self.scan.files.values())
            winners = set(self.scan.order)
        found = [e for e in entries if e.name is not None and (fold_name(e.name) if fold else e.name) == key]
        found.sort(key=lambda e: e not in winners)  # stable: the rest stay in precedence order
        return [(e.name, Path(e.path), e.source) for e in found]  # type: ignore[misc]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.scan.by_name

    def __len__(self) -> int:
        return len(self.scan.order)

    def names(self) -> list[str]:
        return [e.name for e in self.scan.order]  # type: ignore[misc]  # ordered entries all have names

    def suggest(self, name: str, n: int = 3) -> list[str]:
        """'Did you mean' candidates for an unknown name."""
        if not isinstance(name, str) or not name:
            return []
        import difflib  # only when a name was not found

        names = list(self.scan.by_name)
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
        elif cached[1].eligible and self._modified_since_install(s):
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

    def _modified_since_install(self, skill: Skill) -> bool:
        if skill.source != "install":  # `resolve_roots` labels the install root so however it was named
            return False
        from skillyard.install import is_modified

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

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        """Ranked skills for a free-text query, each with its confidence ([] only when nothing
        matches); the index is kept by `search.search_registry`, in step with `version`."""
        from skillyard.search import search_registry  # the ranking stack, loaded only for a search

        return search_registry(self, query, limit)
