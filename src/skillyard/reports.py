"""JSON views of the registry (docs/tools.md), shared by the `skills` tool and the CLI.

One builder per shape, so `skillyard list --json` and the model's `skills`
tool can never drift apart.
"""

from __future__ import annotations

from typing import Any

from skillyard.eligibility import install_hints
from skillyard.model import Skill
from skillyard.registry import Registry
from skillyard.skill_files import list_docs

__all__ = [
    "FILTERS",
    "add_eligibility",
    "check_report",
    "info_report",
    "list_report",
    "not_found",
    "search_report",
]

FILTERS = ("all", "eligible", "ineligible")


def not_found(name: str, registry: Registry | None = None) -> dict[str, Any]:
    """`{"error": "skill not found: foo"}` plus suggestions when there are any (extra key)."""
    out: dict[str, Any] = {"error": f"skill not found: {name}"}
    if registry is not None:
        hints = registry.suggest(name)
        if hints:
            out["did_you_mean"] = hints
    return out


def list_report(registry: Registry, filter: str = "all", verbose: bool = False) -> dict[str, Any]:
    def wanted(eligible: bool) -> bool:
        return filter not in ("eligible", "ineligible") or eligible is (filter == "eligible")

    if not verbose:  # from the registry's summaries: a cached catalog is listed without building skills
        items = [
            {"name": name, "emoji": emoji, "description": desc, "eligible": ok}
            for name, emoji, desc, ok in registry.summaries()
            if wanted(ok)
        ]
        return {"count": len(items), "skills": items}
    skills = []
    for s in registry.skills:
        elig = registry.eligibility(s)
        if not wanted(elig.eligible):
            continue
        item: dict[str, Any] = {
            "name": s.name,
            "emoji": s.emoji or "",
            "description": s.description,
            "eligible": elig.eligible,
            "path": str(s.path),
            "source": s.source,
            "requires": s.requires.to_dict(),
        }
        if not elig.eligible:
            item["reasons"] = list(elig.reasons)
        skills.append(item)
    return {"count": len(skills), "skills": skills}


def info_report(registry: Registry, name: str) -> dict[str, Any]:
    s = registry.get(name)
    if s is None:
        return not_found(name, registry)
    elig = registry.eligibility(s)
    out: dict[str, Any] = {
        "name": s.name,
        "emoji": s.emoji or "",
        "description": s.description,
        "eligible": elig.eligible,
        "path": str(s.path),
        "requires": s.requires.to_dict(),
        "missing": elig.missing.to_dict(),
        "install": [o.to_dict() for o in s.install],
        "source": s.source,
        "format": s.format,
        "reasons": list(elig.reasons),
        "docs": list_docs(s),
    }
    if s.homepage:
        out["homepage"] = s.homepage
    if s.allowed_tools:
        out["allowed_tools"] = list(s.allowed_tools)
    if s.tools:
        out["tools"] = [t.name for t in s.tools]
    return out


def check_report(registry: Registry, name: str) -> dict[str, Any]:
    s = registry.get(name)
    if s is None:
        return not_found(name, registry)
    elig = registry.eligibility(s)
    return {
        "name": s.name,
        "eligible": elig.eligible,
        "reasons": list(elig.reasons),
        "fixes": list(elig.fixes),
    }


def eligibility_fields(registry: Registry, skill: Skill | None) -> dict[str, Any]:
    """An installed skill's `eligible`, `missing` (the non-empty requirement lists) and `install_hints`."""
    if skill is None:
        return {"eligible": False, "missing": {}, "install_hints": []}
    elig = registry.eligibility(skill)
    missing = {k: v for k, v in elig.missing.to_dict().items() if v}
    hints = install_hints(skill, registry.host.os_name)
    return {"eligible": elig.eligible, "missing": missing, "install_hints": hints}


def search_report(registry: Registry, query: str, limit: int = 5) -> dict[str, Any]:
    """The `skills` tool's search result and `skillyard search --json`; `note` when every hit is weak."""
    hits = registry.search(query, limit=limit)
    skills = []
    for h in hits:
        s = registry.get(h.name)
        if s is None:
            continue
        skills.append(
            {
                "name": s.name,
                "description": s.description,
                "eligible": registry.eligibility(s).eligible,
                "score": h.score,
                "confidence": h.confidence,
            }
        )
    data: dict[str, Any] = {"query": query, "count": len(skills), "skills": skills}
    if skills and all(s["confidence"] == "weak" for s in skills):
        data["note"] = (
            "No skill clearly matches this request: every result is a weak match. Check the descriptions "
            "before loading one, or search again with other words."
        )
    return data


def add_eligibility(data: dict[str, Any], registry: Any) -> dict[str, Any]:
    """Complete a successful install answer with `eligible`, `missing` and `install_hints`.

    Reloads `registry` first so the new skill is seen. It lives here, with the reports, so that the
    installer knows nothing about the registry.
    """
    name = data.get("name")
    if not data.get("installed") or not isinstance(name, str):
        return data
    try:
        registry.reload()
        skill = registry.get(name)
        if skill is None:
            data.setdefault("warnings", []).append(
                f"{name} is installed but not visible in the current skill roots"
            )
            return data
        data.update(eligibility_fields(registry, skill))
    except Exception as e:  # eligibility is extra information; the install itself succeeded
        data.setdefault("warnings", []).append(f"could not reload the registry: {e}")
    return data
