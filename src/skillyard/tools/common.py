"""Lookups shared by the tools: by registry name only, eligible skills only."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from skillyard._shown import shown

if TYPE_CHECKING:
    from skillyard.model import Skill
    from skillyard.registry import Registry

#: Above this many skills an enum of names is left out of schemas (providers choke on huge enums).
MAX_ENUM_NAMES = 256
#: Longest skill name a tool accepts (names are at most 64 characters by the spec; this leaves room).
MAX_NAME_CHARS = 256


class Unavailable(Exception):
    """Why a name cannot be used; `kind` is 'missing', 'ineligible' or 'user-only'."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def usable_skill(registry: Registry, name: str) -> Skill:
    """The eligible, model-invocable skill called `name`; raises Unavailable with the reason otherwise.

    The lookup is by registry name only, so a name can never turn into a path
    (`../x`, `/etc/passwd`, NUL bytes simply are not names).
    """
    skill = registry.get(name)
    if skill is None:
        hints = registry.suggest(name) if 0 < len(name) <= 256 else []
        tail = f" (did you mean: {', '.join(hints)}?)" if hints else ""
        raise Unavailable("missing", f"unknown skill: {name}{tail}")
    elig = registry.eligibility(skill)
    if not elig.eligible:
        reasons = (
            shown("; ".join(elig.reasons), one_line=True) or "not eligible on this host"
        )  # an author's names
        raise Unavailable("ineligible", f"skill '{name}' is not available: {reasons}")
    if skill.disable_model_invocation:
        raise Unavailable(
            "user-only", f"skill '{name}' can only be invoked by the user (disable-model-invocation)"
        )
    return skill


_NAMES: weakref.WeakKeyDictionary[Registry, tuple[int, list[str]]] = weakref.WeakKeyDictionary()


def model_names(registry: Registry) -> list[str]:
    """Names the model may load: eligible and not `disable-model-invocation`, by priority.

    Computed once per registry version: every tool's schema asks for the same list.
    """
    cached = _NAMES.get(registry)
    if cached is not None and cached[0] == registry.version:
        return list(cached[1])
    names = [s.name for s in registry.eligible_skills() if not s.disable_model_invocation]
    _NAMES[registry] = (registry.version, names)
    return list(names)


def name_property(registry: Registry, description: str) -> dict[str, object]:
    """A string property with an enum of usable names when there are few enough of them."""
    prop: dict[str, object] = {"type": "string", "maxLength": MAX_NAME_CHARS, "description": description}
    names = model_names(registry)
    if 0 < len(names) <= MAX_ENUM_NAMES:
        prop["enum"] = names
    return prop
