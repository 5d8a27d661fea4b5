"""Installs asked for by the model (the `skills` tool's `install` action): narrower than `skillyard install`.

Why: a model that can write files (skill_run's workspace) and install them from a trusted path can
hand itself new tools. So an install by the model needs, in this order (docs/install.md,
"Installs by the model"):

1. `[trust] model_installs = true` in the config file (a person's decision; off by default);
2. a source matched by a pattern the user listed in `[trust] sources` (the built-in defaults,
   `local:*` and the hub, do not count here);
3. for a local source (`local:`, a path, `git+file://`): a real path (links resolved) under a
   `[trust] model_local_paths` directory and not under a workspace root, the artifact store or a
   temporary directory;
4. a name no skill already has: not the name asked for, nor the name the package declares (read
   before installing for local directories, and again after fetching, before the commit);
5. the host's `approve_install` callback, when there is one, answering True.

Nothing is fetched or written before rules 1 to 5 hold, and a local directory installs only when the
copy's digest is the one of what was scanned and shown for approval.
"""

from __future__ import annotations

import os
import tempfile
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard.fsread import is_within
from skillyard.model import fold_name

if TYPE_CHECKING:
    from skillyard.install import ScanReport, SourceSpec
    from skillyard.registry import Registry

DISABLED = "installs by the model are disabled"
DECLINED = "install declined by the user"
ENABLE_HINT = (
    "A person can allow installs by the model with `[trust] model_installs = true` in their config file "
    "(plus the sources in `[trust] sources`, and directories in `[trust] model_local_paths` for local "
    "paths), or install the skill themselves with `skillyard install SOURCE`."
)
#: temporary directories that are never an install source for the model, whatever the config says
TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
#: `from` values that mean "the configured hub"
HUB_ALIASES = frozenset({"clawhub", "hub", "skillhub", ""})


@dataclass(frozen=True, slots=True)
class InstallRequest:
    """What a host's `approve_install(request) -> bool` is asked; plain data, fit to show a person."""

    name: str  #: the skill name the model asked for
    source: str  #: the `from` string as the model sent it (the hub alias spelt out as hub:NAME)
    kind: str  #: local, git, archive or hub
    resolved: str  #: the real path of a local source; the clone URL, archive URL or hub source otherwise
    declared_name: str | None  #: the name the package declares, when readable before installing (local)
    audit: dict[str, Any] | None  #: the scanner's summary, when computed before installing (local)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: approve_install(request) -> bool: only True lets the install go on
ApproveInstall = Callable[[InstallRequest], bool]


class _Refused(Exception):
    """An answer for the model: the install does not happen."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data.get("error"))
        self.data = {"installed": False, **data}


def model_install(
    registry: Registry,
    name: str,
    source: str | None,
    *,
    approve: ApproveInstall | None = None,
    protected: Iterable[tuple[str, Path]] = (),
) -> dict[str, Any]:
    """Install for the model under the rules above: the installer's outcome or `{"installed": false,
    "error": ...}`. `protected`: (label, directory) pairs the model can write into. Never raises."""
    try:
        return _install(registry, name, source, approve, list(protected))
    except _Refused as r:
        return r.data
    except Exception as e:  # a bug here must still be an answer, and must not install anything
        return {"installed": False, "error": "install failed", "reason": f"{type(e).__name__}: {e}"}


def _install(
    registry: Registry,
    name: str,
    source: str | None,
    approve: ApproveInstall | None,
    protected: list[tuple[str, Path]],
) -> dict[str, Any]:
    config = registry.config
    if not config.model_installs:
        raise _Refused({"error": DISABLED, "hint": ENABLE_HINT})
    from skillyard.install import Installer, InstallError, TrustPolicy, parse_source
    from skillyard.install.installer import blocked_details
    from skillyard.install.lockfile import tree_hash
    from skillyard.install.sources import redact, valid_name
    from skillyard.install.trust import pattern_matches

    if not valid_name(name):
        raise _Refused({"error": "invalid name", "reason": "names are letters, digits, '.', '_', '-'"})
    raw = source if isinstance(source, str) else ""
    if raw.strip().lower() in HUB_ALIASES:
        raw = f"hub:{name}"
    try:
        spec = parse_source(raw, name)
    except InstallError as e:
        raise _Refused(e.to_dict()) from None
    trust = TrustPolicy(tuple(config.trust_sources), None, config.hub_index, defaults=())

    def untrusted(reason: str) -> _Refused:
        return _Refused({"error": "untrusted source", "reason": reason, "source": raw, "hint": ENABLE_HINT})

    if not trust.is_trusted(spec):
        raise untrusted("installs by the model only use sources the user listed in [trust] sources")
    install_source, resolved = raw, _resolved(spec, config.hub_index)
    local = _local_path(spec)
    if local is not None:
        real = check_local_path(local, config.model_local_paths, protected)
        resolved = real
        # a pattern matched only through a link (or a `git+file://` path) does not trust what it leads to
        reals = [f"local:{real}"] + ([f"file://{real}"] if spec.kind == "git" else [])
        if not any(pattern_matches(p, c) for p in trust.all_patterns() for c in reals):
            raise untrusted(f"the real path {real} is not matched by [trust] sources")
        if spec.kind == "local":
            install_source = f"local:{real}"  # what was checked is what gets copied
    refuse_existing(registry, name, config.install_root)
    installer = Installer(config.install_root, trust)
    declared: str | None = None
    audit: dict[str, Any] | None = None
    previewed: str | None = None  # the digest of what was scanned and shown, for a local directory
    if spec.kind == "local":
        try:
            preview = installer.preview_local(install_source, name=name)
        except InstallError as e:
            raise _Refused(e.to_dict()) from None
        if preview is not None:
            chosen, skill, report = preview
            declared, audit = skill.name, report.summary()
            previewed = tree_hash(chosen).digest
            if declared != name:
                refuse_existing(registry, declared, config.install_root)
            if report.blocked:
                raise _Refused({"error": "dangerous pattern detected", **blocked_details(report)})
    request = InstallRequest(name, redact(raw), spec.kind, resolved, declared, audit)
    if approve is not None:
        _ask(approve, request)

    def vet(final: str, report: ScanReport, digest: str) -> None:
        if previewed is not None and digest != previewed:
            raise InstallError(
                "source changed after approval",
                reason="the files to install differ from the ones scanned and shown for approval",
            )
        try:
            refuse_existing(registry, final, config.install_root)
        except _Refused as r:
            details = {k: v for k, v in r.data.items() if k not in ("installed", "error")}
            raise InstallError(str(r.data["error"]), **details) from None

    result = installer.install(install_source, name=name, force=False, vet=vet)
    data = result.to_dict()
    if not data.get("installed"):
        data.setdefault("error", "install failed")
    return data


def _resolved(spec: SourceSpec, hub_index: str | None) -> str:
    from skillyard.install.sources import redact

    if spec.kind == "hub":
        return f"{spec.canonical()} from {hub_index or 'no configured hub index'}"
    return redact(spec.location)  # a person is shown the URL, never a password in it


def _local_path(spec: SourceSpec) -> str | None:
    """The filesystem path a source reads from: local sources and `git+file://` clones."""
    if spec.kind == "local":
        return spec.location
    parts = urllib.parse.urlsplit(spec.location)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise _Refused({"error": "invalid source", "reason": "a file:// URL must name a local path"})
        return urllib.parse.unquote(parts.path)
    return None


def temp_dirs() -> list[Path]:
    """Every temporary directory a process here may use: tempfile's, $TMPDIR and the usual ones."""
    out = [Path(tempfile.gettempdir()), *(Path(p) for p in TEMP_DIRS)]
    env = os.environ.get("TMPDIR")
    if env and os.path.isabs(env):
        out.append(Path(env))
    return out


def _forms(path: str | os.PathLike[str]) -> set[str]:
    """A path as written (absolute, normalised) and with every link resolved."""
    p = os.path.abspath(os.fspath(path))
    return {os.path.normpath(p), os.path.realpath(p)}


def check_local_path(path: str, allowed: Iterable[Path], protected: Iterable[tuple[str, Path]] = ()) -> str:
    """The real path of a local source the model may install from; `_Refused` otherwise.

    Checked on the resolved path (a link from an allowed directory into /tmp is /tmp), and the
    forbidden places on both the written and the resolved form of each.
    """
    try:
        if "\0" in path:
            raise ValueError("NUL in path")
        real = os.path.realpath(path)
        written = os.path.normpath(os.path.abspath(path))
        allowed_real = [os.path.realpath(os.fspath(a)) for a in allowed]
    except (OSError, ValueError) as e:
        raise _Refused({"error": "invalid source", "reason": f"unusable local path: {e}"}) from None

    def not_allowed(reason: str, **hint: str) -> _Refused:
        return _Refused({"error": "local source not allowed", "reason": reason, "path": real, **hint})

    forbidden = [("temporary directory", d) for d in temp_dirs()] + list(protected)
    for label, root in forbidden:
        for r in _forms(root):
            if is_within(real, r) or is_within(written, r):
                raise not_allowed(f"installs by the model never read from a {label} ({r})")
    if not any(is_within(real, a) for a in allowed_real):
        where = "" if allowed_real else " (none configured)"
        reason = f"installs by the model read local paths only under [trust] model_local_paths{where}"
        raise not_allowed(reason, hint=ENABLE_HINT)
    return real


def existing_copies(registry: Registry, name: str, install_root: Path) -> list[dict[str, str]]:
    """Every skill called `name` (or a case/Unicode look-alike): on the search path, shadowed
    copies and bundled skills included, and a directory of that name in the install root."""
    out = [{"name": n, "path": str(p), "source": src} for n, p, src in registry.copies(name, fold=True)]
    seen = {c["path"] for c in out}
    from skillyard.discovery import bundled_root

    bundled = bundled_root()
    if not any(os.path.realpath(r.path) == os.path.realpath(bundled) for r in registry.roots):
        for n, p in _bundled_names():
            if fold_name(n) == fold_name(name) and str(p) not in seen:
                out.append({"name": n, "path": str(p), "source": "bundled"})
    target = Path(install_root) / name
    if os.path.lexists(target) and not any(c["path"].startswith(str(target) + os.sep) for c in out):
        out.append({"name": name, "path": str(target), "source": "install"})
    return out


def refuse_existing(registry: Registry, name: str, install_root: Path) -> None:
    copies = existing_copies(registry, name, install_root)
    if copies:
        where = ", ".join(f"{c['path']} ({c['source']})" for c in copies)
        raise _Refused(
            {
                "error": "skill exists",
                "name": name,
                "reason": f"a skill named {copies[0]['name']!r} already exists: {where}; "
                "installs by the model never replace or shadow a skill",
                "existing": copies,
                "hint": "A person can replace it with `skillyard install SOURCE --force`.",
            }
        )


_BUNDLED: list[tuple[str, Path]] | None = None


def _bundled_names() -> list[tuple[str, Path]]:
    """Names of the skills shipped with skillyard (read once; they only change with an upgrade)."""
    global _BUNDLED
    if _BUNDLED is None:
        from skillyard.discovery import bundled_root
        from skillyard.install.installer import find_skill_dirs, skill_file
        from skillyard.parsing import parse_skill

        found = []
        for d in find_skill_dirs(bundled_root()):
            f = skill_file(d)
            skill = parse_skill(f, source="bundled")[0] if f is not None else None
            if skill is not None and f is not None:
                found.append((skill.name, f))
        _BUNDLED = found
    return _BUNDLED


def _ask(approve: ApproveInstall, request: InstallRequest) -> None:
    """The host's answer; anything but True (an exception included) declines."""
    try:
        answer = approve(request)
    except Exception as e:
        raise _Refused(
            {"error": DECLINED, "name": request.name, "reason": f"approval failed: {type(e).__name__}: {e}"}
        ) from None
    if answer is not True:
        raise _Refused({"error": DECLINED, "name": request.name})
