"""Is a skill usable on this host? Reasons and fixes in the words docs/discovery.md lists.

Order follows OpenClaw: disabled, then OS, then `always`, then bins, anyBins,
env and config. `always: true` skips the `requires.*` checks but not the OS or
an explicit disable.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import filterfalse

from skillyard.config import Config
from skillyard.model import Eligibility, InstallOption, Requirements, Skill

__all__ = ["Host", "evaluate", "install_fixes", "install_hints", "is_eligible"]

OS_ALIASES = {"macos": "darwin", "mac": "darwin", "osx": "darwin", "windows": "win32", "win": "win32"}
OS_LABELS = {"darwin": "macOS", "linux": "Linux", "win32": "Windows"}


def normalise_os(name: str) -> str:
    n = name.strip().lower()
    return OS_ALIASES.get(n, n)


def current_os() -> str:
    if sys.platform.startswith("linux"):
        return "linux"
    return "win32" if sys.platform == "cygwin" else sys.platform  # darwin and win32 are already the names


@dataclass(slots=True)
class Host:
    """What eligibility is checked against; tests build one with a fake PATH and env."""

    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    os_name: str = field(default_factory=current_os)
    path: str | None = None  #: PATH to search; defaults to env["PATH"]
    _which: dict[str, bool] = field(default_factory=dict)

    def has_bin(self, name: str) -> bool:
        if name not in self._which:
            path = self.path if self.path is not None else self.env.get("PATH", "")
            self._which[name] = shutil.which(name, path=path) is not None
        return self._which[name]

    def forget_bins(self) -> None:
        """Binaries may have been installed since: look again."""
        self._which.clear()


def _truthy(v: object) -> bool:
    if isinstance(v, str):
        return v.strip().lower() not in ("", "0", "false", "no", "off")
    return bool(v)


_ELIGIBLE = Eligibility(eligible=True)


#: Answers by everything they depend on (see `evaluate`); most skills share a few requirement sets.
_MEMO: dict[tuple[object, ...], Eligibility] = {}
#: Entries kept before the memo starts over (a long-running process sees many hosts and configs).
MAX_MEMO = 4096


def evaluate(skill: Skill, host: Host, config: Config, *, modified: bool = False) -> Eligibility:
    """Decide eligibility; `modified` marks an installed skill whose files changed since install.

    The answer of an unmodified skill depends only on what it lacks here, its install options, the
    host's OS and whether it is disabled, never on its name: skills alike in these get the same
    (immutable) answer, worked out once per distinct case (a catalog of 10,000 skills has a handful).
    """
    req = skill.requires
    disabled = config.is_disabled(skill.name)
    if not modified and not disabled and req.is_empty():
        return _ELIGIBLE  # the common case, kept cheap for catalogs of thousands
    if modified:  # rare, and the answer names the skill
        return evaluate_plain(skill, host, config, modified=modified)
    try:
        key = (_unmet(skill.name, req, skill.always, host, config), skill.install, host.os_name, disabled)
        hit = _MEMO.get(key)
    except TypeError:  # an unhashable value slipped into a requirement: answer without the memo
        return evaluate_plain(skill, host, config)
    if hit is None:
        hit = evaluate_plain(skill, host, config)
        if len(_MEMO) >= MAX_MEMO:
            _MEMO.clear()
        _MEMO[key] = hit
    return hit


def _unmet(
    name: str, req: Requirements, always: bool, host: Host, config: Config
) -> tuple[tuple[str, ...], ...]:
    """The requirements this host does not meet, as `Requirements` fields (`always` skips all but `os`)."""
    wanted = tuple(map(normalise_os, req.os))
    miss_os = wanted if wanted and host.os_name not in wanted else ()
    if always:
        return (), (), (), (), miss_os
    miss_bins = tuple(filterfalse(host.has_bin, req.bins))
    miss_any = req.any_bins if req.any_bins and not any(map(host.has_bin, req.any_bins)) else ()
    miss_env: tuple[str, ...] = ()
    if req.env:
        per_skill_env = config.override(name).env
        miss_env = tuple(e for e in req.env if not (host.env.get(e) or per_skill_env.get(e)))
    miss_cfg = tuple(c for c in req.config if not _truthy(config.value(c))) if req.config else ()
    return miss_bins, miss_any, miss_env, miss_cfg, miss_os


def is_eligible(name: str, req: Requirements, always: bool, host: Host, config: Config) -> bool:
    """`evaluate(...).eligible` for a skill not installed by skillyard, from its requirements alone
    (a listing answers this without building the skill)."""
    if config.is_disabled(name):
        return False
    return req.is_empty() or not any(_unmet(name, req, always, host, config))


def evaluate_plain(skill: Skill, host: Host, config: Config, *, modified: bool = False) -> Eligibility:
    """The decision itself, step by step, with no memo (`evaluate` is the entry point)."""
    reasons: list[str] = []
    fixes: list[str] = []
    if config.is_disabled(skill.name):
        reasons.append("Disabled in config")
    if modified:
        reasons.append("Modified since install")
        fixes.append(f"skillyard trust accept {skill.name}")
    missing = Requirements(*_unmet(skill.name, skill.requires, skill.always, host, config))
    if missing.os:
        label = " or ".join(OS_LABELS.get(o, o) for o in missing.os)
        reasons.append(f"Requires {label} (current: {host.os_name})")
    reasons.extend(f"Missing binary: {b}" for b in missing.bins)
    if missing.any_bins:
        reasons.append(f"Requires one of: {', '.join(missing.any_bins)}")
    reasons.extend(f"Missing environment variable: {e}" for e in missing.env)
    reasons.extend(f"Missing config: {c}" for c in missing.config)
    if missing.bins or missing.any_bins:
        fixes.extend(install_fixes(skill, {*missing.bins, *missing.any_bins}, host.os_name))
    fixes.extend(f"export {e}=<value>" for e in missing.env)
    return Eligibility(
        eligible=not reasons, missing=missing, reasons=tuple(reasons), fixes=tuple(dict.fromkeys(fixes))
    )


def _applicable(skill: Skill, os_name: str) -> list[tuple[InstallOption, str]]:
    """The skill's install options for `os_name` that give a command, in declared order, with it."""
    here = [opt for opt in skill.install if not opt.os or os_name in {normalise_os(o) for o in opt.os}]
    return [(opt, cmd) for opt in here if (cmd := opt.command())]


def install_fixes(skill: Skill, missing_bins: set[str], os_name: str) -> list[str]:
    """Install commands for missing binaries, in declared order, skipping options for other OSes."""
    return [cmd for opt, cmd in _applicable(skill, os_name) if not opt.bins or set(opt.bins) & missing_bins]


def install_hints(skill: Skill, os_name: str | None = None) -> list[dict[str, str]]:
    """The `skills` tool's `install_hints`: every applicable option as {kind, command}."""
    return [{"kind": opt.kind, "command": cmd} for opt, cmd in _applicable(skill, os_name or current_os())]
