"""The install pipeline: source → staging → hygiene → scanner → trust → atomic commit → lockfile.

Everything before the commit happens in a private staging directory on the same filesystem
as the install root, so the commit is a rename (or, with `force`, an atomic exchange on Linux).
A journal written before the swap lets any later operation repair the lockfile after a crash.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import filelock

from skillyard.execution.workspace import remove_tree
from skillyard.fsread import is_within, pid_gone
from skillyard.install.errors import HygieneError, InstallError, SourceError
from skillyard.install.fsutil import atomic_write_json, exchange, fsync_dir, json_bytes, write_temp
from skillyard.install.hygiene import Limits, copy_tree, extract_archive
from skillyard.install.lockfile import (
    STAGING_NAME,
    LockEntry,
    Lockfile,
    LockfileError,
    now_iso,
    pending_journals,
    tree_hash,
)
from skillyard.install.scanner import ScanPolicy, ScanReport, scan_path
from skillyard.install.sources import (
    SourceSpec,
    fetch_archive,
    fetch_git,
    parse_source,
    redact,
    resolve_hub,
    valid_name,
)
from skillyard.install.trust import TrustPolicy
from skillyard.model import fold_name

SKILL_FILES = ("SKILL.md", "skill.md", "SKILL.toml")
MAX_SEARCH_DEPTH = 5
LOCK_FILE_NAME = ".install.lock"
STALE_STAGING_SECONDS = 600
#: vet(final name, scan report, tree digest) runs after the scan and before the commit; it refuses by raising InstallError
Vet = Callable[[str, ScanReport, str], None]


@dataclass(slots=True)
class InstallResult:
    """Outcome of install/update; `to_dict()` is the install answer of docs/install.md (reports.add_eligibility completes it)."""

    installed: bool
    name: str | None = None
    path: str | None = None
    source: str | None = None
    revision: str | None = None
    tree_hash: str | None = None
    scan: ScanReport | None = None
    replaced: bool = False
    error: InstallError | None = None
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        if not self.installed:
            out = self.error.to_dict() if self.error else {"installed": False, "error": "install failed"}
            if self.scan is not None and "findings" not in out:
                out["scan"] = self.scan.summary()
            return out
        out = {
            "installed": True,
            "name": self.name,
            "path": self.path,
            "source": self.source,
            "revision": self.revision,
            "tree_hash": self.tree_hash,
            "scan": self.scan.summary() if self.scan else None,
        }
        if self.replaced:
            out["replaced"] = True
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def skill_file(root: Path) -> Path | None:
    for n in SKILL_FILES:
        p = root / n
        if p.is_file() and not p.is_symlink():
            return p
    return None


def _parse(root: Path) -> tuple[Any, list[str]]:
    """(Skill | None, error messages) using the shared parser."""
    from skillyard.parsing import parse_skill

    f = skill_file(root)
    if f is None:
        return None, ["no SKILL.md or SKILL.toml at the package root"]
    skill, diags = parse_skill(f, source="install")
    errors = [f"{d.code}: {d.message}" for d in diags if d.level == "error"]
    return skill, errors


def _valid_skill(root: Path) -> Any:
    """The skill at `root`, parsed without errors; else InstallError "invalid skill" with the reasons."""
    for n in SKILL_FILES:  # discovery reads a linked SKILL.md that skill_file() passes over for SKILL.toml
        if os.path.islink(root / n):
            raise InstallError("invalid skill", reason=f"{n} is a symbolic link; a skill file must be a file")
    skill, errors = _parse(root)
    if skill is None or errors:
        raise InstallError("invalid skill", reason="; ".join(errors) or "the skill file could not be parsed")
    return skill


def find_skill_dirs(root: Path, max_depth: int = MAX_SEARCH_DEPTH) -> list[Path]:
    """Skill directories under `root` (a skill dir is not searched further), breadth-first."""
    out: list[Path] = []
    frontier = [(root, 0)]
    while frontier:
        d, depth = frontier.pop(0)
        if skill_file(d) is not None:
            out.append(d)
            continue
        if depth >= max_depth:
            continue
        try:
            children = sorted(p for p in d.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            continue
        frontier.extend(
            (c, depth + 1) for c in children if not c.name.startswith(".") and c.name != "node_modules"
        )
    return out


def _local_source(spec: SourceSpec) -> Path:
    """The real path of a local source (a link to the skill is fine; links inside are checked later)."""
    src = Path(os.path.realpath(spec.location))
    if not src.exists():
        raise SourceError("fetch failed", reason="local path does not exist", path=spec.location)
    return src


def _abandoned(d: Path) -> bool:
    """A staging dir (named op-<pid>-...) whose owner process is gone, or an old unnamed one."""
    parts = d.name.split("-")
    if len(parts) < 3 or parts[0] != "op" or not parts[1].isdigit():
        return time.time() - d.stat().st_mtime > STALE_STAGING_SECONDS
    return pid_gone(f"{parts[0]}-{parts[1]}")


def _distance(a: str, b: str, cap: int = 3) -> int:
    """Levenshtein distance, stopping early once it exceeds `cap`."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > cap:
            return cap + 1
        prev = cur
    return prev[-1]


def blocked_details(report: ScanReport) -> dict[str, Any]:
    """What a refusal for a blocking scan names: the worst finding, then every finding."""
    worst = report.blocking[0]
    return {
        "pattern": worst.title,
        "line": worst.line,
        "file": worst.file,
        "rule_id": worst.rule_id,
        "severity": worst.severity,
        "findings": [f.to_dict() for f in report.findings],
    }


def lookalike_warnings(name: str, known: list[str]) -> list[str]:
    """Typosquat and clone-flood hints: a new name within edit distance 2 of an installed one,
    or `<installed>-<short random suffix>`. Warnings only; the user decides."""
    import re

    out = []
    folded = fold_name(name)
    for k in known:
        kf = fold_name(k)
        if kf == folded:
            continue
        if len(kf) >= 4 and _distance(folded, kf, 2) <= 2:
            out.append(f"name {name!r} is very close to the installed skill {k!r} (possible typosquat)")
        elif re.fullmatch(re.escape(kf) + r"-[a-z0-9]{4,7}", folded):
            out.append(f"name {name!r} looks like a clone of the installed skill {k!r}")
    return out


class Installer:
    """Installs skills into one install root under a trust policy and a scan policy."""

    def __init__(
        self,
        install_root: Path | str,
        trust: TrustPolicy | None = None,
        *,
        policy: ScanPolicy | None = None,
        limits: Limits | None = None,
        hub_index: str | None = None,
        lock_timeout: float = 300.0,
        git_timeout: float = 300.0,
    ) -> None:
        self.root = Path(install_root).absolute()
        self.trust = trust or TrustPolicy()
        if hub_index is not None:
            self.trust.hub_index = hub_index
        self.policy = policy or ScanPolicy()
        self.limits = limits or Limits()
        self.lock_timeout = lock_timeout
        self.git_timeout = git_timeout

    @property
    def hub_index(self) -> str | None:
        return self.trust.hub_index

    # ------------------------------------------------------------ helpers

    def _lock(self) -> filelock.FileLock:
        self.root.mkdir(parents=True, exist_ok=True)
        return filelock.FileLock(str(self.root / LOCK_FILE_NAME), timeout=self.lock_timeout)

    def _staging(self) -> Path:
        base = self.root / STAGING_NAME
        base.mkdir(parents=True, exist_ok=True)
        if base.is_symlink():  # its old entries are deleted: never those of the folder it names
            raise OSError(f"{base} is a symbolic link; remove it")
        return Path(tempfile.mkdtemp(prefix=f"op-{os.getpid()}-", dir=base))

    def recover(self) -> list[str]:
        """Finish or roll back interrupted commits and clear stale staging dirs; returns touched names."""
        with self._lock():
            return self._recover_locked()

    def _recover_locked(self, keep: Path | None = None) -> list[str]:
        """Repair after a crash. Must hold the install lock: a journal only exists while its writer
        holds the lock, so any journal seen here belongs to a process that died mid-commit."""
        touched: list[str] = []
        journals = [j for j in pending_journals(self.root) if keep is None or Path(j["_dir"]) != keep]
        if journals:
            lf = Lockfile.load(self.root, apply_journals=False)
            for j in journals:
                name = j.get("name")
                if isinstance(name, str) and valid_name(name):
                    target = self.root / name
                    aside = Path(j["_dir"]) / "old"
                    if not os.path.lexists(target) and aside.is_dir():
                        os.rename(aside, target)  # died between the two renames: put the old tree back
                    lf.reconcile(j)
                    touched.append(name)
                remove_tree(Path(j["_dir"]))
            lf.save()
        staging = self.root / STAGING_NAME
        with contextlib.suppress(OSError):
            for d in [] if staging.is_symlink() else staging.iterdir():
                with contextlib.suppress(OSError):
                    if d != keep and _abandoned(d):
                        remove_tree(d)
        return touched

    # ------------------------------------------------------------ install

    def install(
        self, source: str, *, name: str | None = None, force: bool = False, vet: Vet | None = None
    ) -> InstallResult:
        """Install from `source`; never raises for bad input, the result carries the error.

        `vet` lets a caller with extra rules (installs by the model) refuse once the package's
        real name and scan are known, before anything reaches the install root.
        """
        try:
            return self._install(source, name=name, force=force, vet=vet)
        except InstallError as e:
            return InstallResult(False, error=e, scan=getattr(e, "report", None))
        except (OSError, LockfileError, filelock.Timeout) as e:
            return InstallResult(False, error=InstallError("install failed", reason=str(e)))

    def _install(
        self, source: str, *, name: str | None, force: bool, vet: Vet | None = None
    ) -> InstallResult:
        if name is not None and (not isinstance(name, str) or not valid_name(name)):
            raise InstallError(
                "invalid name", name=str(name)[:200], reason="names are letters, digits, '.', '_', '-'"
            )
        if not isinstance(force, bool):
            raise InstallError("invalid argument", reason="force must be true or false")
        try:
            spec = parse_source(source, name)
        except SourceError:
            # an untrusted URL is refused as untrusted (docs/install.md), whatever else is wrong with it
            if isinstance(source, str) and "://" in source and not self.trust.url_trusted(source):
                raise InstallError(
                    "untrusted source",
                    source=redact(source),
                    hint="Add to trusted sources (skillyard trust add PATTERN) or install from the configured hub",
                ) from None
            raise
        if not self.trust.is_trusted(spec):
            raise InstallError(
                "untrusted source",
                source=redact(source),
                hint=(
                    f"Add to trusted sources (skillyard trust add '{self.trust.suggest(spec)}') "
                    "or install from the configured hub (hub:<name>)"
                ),
            )
        staging = self._staging()
        try:
            return self._install_staged(spec, staging, name=name, force=force, vet=vet)
        finally:
            # a journal left means a commit was interrupted (Ctrl-C): the next operation repairs it
            if not (staging / "journal.json").exists():
                remove_tree(staging)

    def _fetch(self, spec: SourceSpec, staging: Path) -> tuple[Path, str | None]:
        """Materialise the source under staging/raw; returns (tree root, resolved revision)."""
        raw = staging / "raw"
        if spec.kind == "local":
            src = _local_source(spec)
            if src.is_file() and src.name not in SKILL_FILES:
                extract_archive(src, raw, self.limits)
                return raw, None
            return (src.parent if src.is_file() else src), None
        if spec.kind == "git":
            sha = fetch_git(spec, raw, timeout=self.git_timeout, limits=self.limits)
            return raw, sha
        if spec.kind == "archive":
            digest = fetch_archive(spec.location, staging / "download", self.limits)
            extract_archive(staging / "download", raw, self.limits)
            return raw, f"sha256:{digest}"
        rel = resolve_hub(self.hub_index, spec.location, spec.version)
        fetch_archive(rel.url, staging / "download", self.limits, sha256=rel.sha256)
        extract_archive(staging / "download", raw, self.limits)
        return raw, rel.version

    def _select(self, tree: Path, spec: SourceSpec, name: str | None) -> Path:
        """Pick the skill directory: the subdir, the root, the only skill, or the one called `name`."""
        base = tree
        if spec.subdir:
            base = tree.joinpath(*spec.subdir.split("/"))
            if not is_within(os.path.realpath(base), os.path.realpath(tree)):
                raise HygieneError("subdirectory leaves the repository", spec.subdir)
            if not base.is_dir():
                raise SourceError("skill not found in source", reason=f"no directory {spec.subdir!r}")
        if skill_file(base) is not None:
            return base
        found = find_skill_dirs(base)
        if not found:
            raise SourceError("skill not found in source", reason="no SKILL.md or SKILL.toml found")
        wanted = name or (spec.location if spec.kind == "hub" else None)
        if wanted:
            by_dir = [d for d in found if d.name == wanted]
            if not by_dir:
                by_dir = [d for d in found if getattr(_parse(d)[0], "name", None) == wanted]
            if len(by_dir) == 1:
                return by_dir[0]
            if not by_dir:
                raise SourceError(
                    "skill not found in source", name=wanted, available=sorted(d.name for d in found)[:100]
                )
        if len(found) == 1:
            return found[0]
        raise SourceError(
            "several skills in source",
            hint="Pass --name NAME to choose one",
            available=sorted(d.name for d in found)[:100],
        )

    def preview_local(self, source: str, *, name: str | None = None) -> tuple[Path, Any, ScanReport] | None:
        """For a local directory or skill-file source: (skill dir, parsed skill, scan), read in place.

        Nothing is written, so a host can be asked before an install touches the disk.
        None for a local archive file (it must be extracted to be read).
        """
        spec = parse_source(source, name)
        if spec.kind != "local":
            raise SourceError("invalid source", reason="not a local source")
        src = _local_source(spec)
        if src.is_file() and src.name not in SKILL_FILES:
            return None
        tree = src.parent if src.is_file() else src
        chosen = self._select(tree, spec, name)
        skill = _valid_skill(chosen)
        return chosen, skill, scan_path(chosen, policy=self.policy, name=skill.name)

    def _install_staged(
        self, spec: SourceSpec, staging: Path, *, name: str | None, force: bool, vet: Vet | None = None
    ) -> InstallResult:
        tree, revision = self._fetch(spec, staging)
        chosen = self._select(tree, spec, name)
        pkg = staging / "pkg"
        copy_tree(chosen, pkg, self.limits)
        final = _valid_skill(pkg).name
        if not valid_name(final):
            raise InstallError(
                "invalid skill", reason=f"skill name {final!r} cannot be used as a directory name"
            )
        if name and spec.kind != "hub" and final != name and chosen.name != name:
            raise InstallError(
                "invalid skill", reason=f"the package's skill is named {final!r}, not {name!r}"
            )
        report = scan_path(pkg, policy=self.policy, name=final)
        if report.blocked:
            err = InstallError("dangerous pattern detected", **blocked_details(report))
            err.report = report  # type: ignore[attr-defined]
            raise err
        th = tree_hash(pkg)
        if vet is not None:
            vet(final, report, th.digest)
        sel = name if name and spec.kind != "hub" else None
        entry = LockEntry(
            name=final,
            source=spec.canonical(),
            kind=spec.kind,
            revision=revision,
            tree_hash=th.digest,
            files=th.files,
            bytes=th.bytes,
            installed_at=now_iso(),
            scan=report.summary(),
            selector=sel,
        )
        warnings = lookalike_warnings(final, self._installed_names())
        replaced = self._commit(final, pkg, staging, entry, force)
        path = skill_file(self.root / final)
        return InstallResult(
            True,
            warnings=warnings,
            name=final,
            path=str(path) if path else str(self.root / final),
            source=entry.source,
            revision=revision,
            tree_hash=th.digest,
            scan=report,
            replaced=replaced,
        )

    def _installed_names(self) -> list[str]:
        try:
            return [p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")]
        except OSError:
            return []

    def _commit(self, name: str, pkg: Path, staging: Path, entry: LockEntry, force: bool) -> bool:
        """Put `pkg` in place as `name` and record it; crash-safe (see module docstring)."""
        target = self.root / name
        with self._lock():
            self._recover_locked(keep=staging)
            lf = Lockfile.load(self.root, apply_journals=False)
            exists = os.path.lexists(target)
            if exists and not force:
                raise InstallError(
                    "skill exists", name=name, hint="Use --force (force=True from Python) to replace it"
                )
            old = lf.get(name)
            journal = {"name": name, "new": entry.to_dict(), "old": old.to_dict() if old else None}
            if exists and not os.path.isdir(target):
                raise InstallError("install failed", reason=f"{target} exists and is not a directory")
            os.chmod(pkg, 0o755)
            fsync_dir(pkg)
            lf.set(entry)
            # every byte is written before the swap: a full disk stops the commit with nothing changed,
            # and after the swap only renames remain
            lock_tmp = write_temp(lf.path, json_bytes(lf.to_dict()))
            try:
                atomic_write_json(staging / "journal.json", journal)
                if exists:
                    if not exchange(pkg, target):
                        os.rename(target, staging / "old")
                        os.rename(pkg, target)
                else:
                    os.rename(pkg, target)
                os.replace(lock_tmp, lf.path)
            finally:
                with contextlib.suppress(OSError):
                    lock_tmp.unlink()
            fsync_dir(self.root)
            with contextlib.suppress(OSError):
                (staging / "journal.json").unlink()
            return exists

    # ------------------------------------------------------------ uninstall / update / accept

    def uninstall(self, name: str) -> dict[str, Any]:
        """Remove an installed skill (only from the install root)."""
        if not isinstance(name, str) or not valid_name(name):
            return {"uninstalled": False, "error": "invalid name", "name": str(name)[:200]}
        try:
            with self._lock():
                self._recover_locked()
                target = self.root / name
                lf = Lockfile.load(self.root, apply_journals=False)
                if not os.path.lexists(target) and lf.get(name) is None:
                    return {"uninstalled": False, "error": f"skill not found: {name}"}
                old = lf.get(name)
                lf.remove(name)
                # a process killed after the move: readers and the next operation drop the entry
                journal = {"name": name, "new": None, "old": old.to_dict() if old else None}
                staging, done = self._staging(), False
                try:
                    # every byte is written before anything moves: a full disk fails here, with nothing changed
                    lock_tmp = write_temp(lf.path, json_bytes(lf.to_dict()))
                    try:
                        atomic_write_json(staging / "journal.json", journal)
                        if os.path.lexists(target):
                            os.rename(target, staging / "removed")
                        os.replace(lock_tmp, lf.path)
                        done = True
                    finally:
                        with contextlib.suppress(OSError):
                            lock_tmp.unlink()
                finally:
                    if done or not (staging / "journal.json").exists():
                        remove_tree(staging)
                fsync_dir(self.root)
        except (OSError, LockfileError, filelock.Timeout) as e:
            return {"uninstalled": False, "error": "uninstall failed", "reason": str(e)}
        return {"uninstalled": True, "name": name}

    def update(self, name: str) -> InstallResult:
        """Re-install from the recorded source (forced); the old version stays until the new one is in place."""
        if not isinstance(name, str) or not valid_name(name):
            return InstallResult(False, error=InstallError("invalid name", name=str(name)[:200]))
        try:
            entry = Lockfile.load(self.root).get(name)
        except LockfileError as e:
            return InstallResult(False, error=InstallError("update failed", reason=str(e)))
        if entry is None or not entry.source:
            return InstallResult(
                False,
                error=InstallError(
                    "not installed from a recorded source",
                    name=name,
                    hint="Install it with skillyard install SOURCE first",
                ),
            )
        selector = entry.selector or (name if entry.kind == "git" or entry.kind == "archive" else None)
        source = entry.source
        if entry.kind == "hub" and "@" in source:
            source = source.split("@", 1)[0]  # update means: latest version from the hub

        def only_itself(final: str, report: ScanReport, digest: str) -> None:
            if final != name and os.path.lexists(self.root / final):  # force replaces `name`, nothing else
                raise InstallError(
                    "skill exists",
                    name=final,
                    reason=f"the source of {name!r} now provides {final!r}; updating never replaces another skill",
                    hint=f"Review it, then replace {final!r} with skillyard install SOURCE --force",
                )

        result = self.install(source, name=selector, force=True, vet=only_itself)
        if result.installed and result.name != name:
            result.warnings.append(f"the source now provides {result.name!r} instead of {name!r}")
        return result

    def accept(self, name: str, *, allow_blocked: bool = False) -> dict[str, Any]:
        """Re-scan an installed skill and record its current tree as approved (`trust accept NAME`)."""
        return accept(
            self.root, name, policy=self.policy, allow_blocked=allow_blocked, lock_timeout=self.lock_timeout
        )


def accept(
    install_root: Path | str,
    name: str,
    *,
    policy: ScanPolicy | None = None,
    allow_blocked: bool = False,
    lock_timeout: float = 300.0,
) -> dict[str, Any]:
    """Re-scan `install_root/name` and record its tree hash, so a reviewed local edit is eligible again.

    A skill whose scan blocks is not recorded unless `allow_blocked` (the user reviewed the findings).
    """
    root = Path(install_root)
    if not isinstance(name, str) or not valid_name(name):
        return {"accepted": False, "error": "invalid name", "name": str(name)[:200]}
    target = root / name
    if not target.is_dir() or target.is_symlink():
        return {"accepted": False, "error": f"skill not found: {name}"}
    th = tree_hash(target)  # hashed before and after the scan: what is recorded is what was scanned
    report = scan_path(target, policy=policy or ScanPolicy(), name=name)
    if report.blocked and not allow_blocked:
        return {"accepted": False, "error": "dangerous pattern detected", **blocked_details(report)}
    try:
        with filelock.FileLock(str(root / LOCK_FILE_NAME), timeout=lock_timeout):
            lf = Lockfile.load(root)
            if tree_hash(target) != th:
                return {
                    "accepted": False,
                    "error": "accept failed",
                    "reason": "the skill changed while it was scanned",
                }
            old = lf.get(name) or LockEntry(name, f"local:{target}", "local", None, "", 0, 0, now_iso())
            accepted = dict(tree_hash=th.digest, files=th.files, bytes=th.bytes, accepted_at=now_iso())
            lf.set(replace(old, scan=report.summary(), **accepted))
            lf.save()
    except (OSError, LockfileError, filelock.Timeout) as e:  # an unreadable skills.lock is not overwritten
        return {"accepted": False, "error": "accept failed", "reason": str(e)}
    return {"accepted": True, "name": name, "tree_hash": th.digest, "scan": report.summary()}
