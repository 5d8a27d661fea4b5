"""The `skills` tool's audit action, handed to `skillyard.install` (installs go through `install_gate`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillyard.model import Skill


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
