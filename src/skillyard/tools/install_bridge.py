"""The `skills` tool's install and audit actions, handed to `skillyard.install`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillyard.model import Skill
    from skillyard.registry import Registry


#: `from` values that mean "the configured hub" (seed 000 says "clawhub").
HUB_ALIASES = frozenset({"clawhub", "hub", "skillhub", ""})


def install(registry: Registry, name: str, source: str | None, *, force: bool) -> dict[str, Any]:
    """Install `name` from `source`; returns the installer's outcome or `{"error": ...}` (never raises)."""
    try:
        from skillyard.install import Installer
    except ImportError:
        return {"error": "install is not available in this build", "name": name}
    from skillyard.install import TrustPolicy

    config = registry.config
    if source is None or source.strip().lower() in HUB_ALIASES:
        source = f"hub:{name}"
    try:
        installer = Installer(
            config.install_root, TrustPolicy.from_config(config), hub_index=config.hub_index
        )
        result = installer.install(source, name=name, force=force)
    except Exception as e:  # the installer promises results, not exceptions; keep the promise here too
        return _error_dict(e, name)
    data = result.to_dict()
    if not data.get("installed"):
        data.setdefault("error", "install failed")
    return data


def audit(skill: Skill) -> dict[str, Any]:
    """The scanner's report for an installed skill (`skillyard audit --format json` shape)."""
    try:
        from skillyard.install import scan_path
    except ImportError:
        return {"error": "audit is not available in this build", "name": skill.name}
    try:
        report = scan_path(skill.root, name=skill.name)
    except Exception as e:
        return _error_dict(e, skill.name)
    return report.to_dict() if hasattr(report, "to_dict") else dict(report)


def _error_dict(e: Exception, name: str) -> dict[str, Any]:
    data = getattr(e, "to_dict", None)
    if callable(data):
        try:
            out = dict(data())
            out.setdefault("error", str(e))
            return out
        except Exception:
            pass
    return {"error": str(e) or type(e).__name__, "name": name}
