"""Unique, provider-safe names for SKILL.toml tools.

A tool keeps its own name when nothing else claims it. When a name is a
built-in tool's or more than one skill defines it, every claimant is renamed
to `<skill>__<tool>` — all of them, so the result never depends on the order
skills were found in. Names are limited to `[A-Za-z0-9_-]` and 64 characters;
a name that had to be changed gets a hash suffix so that two different
originals never end up equal.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from skillyard._shown import shown
from skillyard.model import BUILTIN_TOOL_NAMES, Diagnostic, Skill, ToolSpec
from skillyard.toml_tools.invocation import tool_schema

MAX_TOOL_NAME = 64
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def fnv1a64(data: bytes) -> int:
    """64-bit FNV-1a: small, stable across runs and platforms (unlike `hash()`)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _hashed(clean: str, seed: str) -> str:
    suffix = f"_{fnv1a64(seed.encode('utf-8', 'surrogatepass')):016x}"
    return clean[: MAX_TOOL_NAME - len(suffix)] + suffix


def sanitize_tool_name(name: str) -> str:
    """`name` itself when valid; else invalid characters replaced and a hash of the original appended."""
    clean = _BAD_CHARS.sub("_", name) or "tool"
    if clean == name and len(name) <= MAX_TOOL_NAME:
        return name
    return _hashed(clean, name)


def _note(skill: Skill, spec: ToolSpec, code: str, what: str) -> Diagnostic:
    """A warning about one tool of `skill`: `what` says what became of it."""
    return Diagnostic("warning", code, f"tool '{spec.name}' of skill '{skill.name}' {what}", str(skill.path))


def plan_tool_names(
    skills: Iterable[Skill], reserved: Iterable[str] = BUILTIN_TOOL_NAMES
) -> tuple[dict[str, tuple[Skill, ToolSpec]], list[Diagnostic]]:
    """Name every shell tool of `skills`; return {name: (skill, spec)} and notes on each rename.

    Tools of another kind are left out with a note (they could only ever fail).
    The caller passes the skills it offers (eligible, enabled) in priority order.
    """
    taken = set(reserved)
    notes: list[Diagnostic] = []
    entries: list[tuple[Skill, ToolSpec, int]] = []
    seen: set[Skill] = set()  # a Skill compares by identity
    for skill in skills:
        if skill in seen:
            continue
        seen.add(skill)
        for idx, spec in enumerate(skill.tools):
            if spec.kind != "shell":
                what = f"has kind '{spec.kind}': only shell tools are supported; not offered"
                notes.append(_note(skill, spec, "tool-unsupported-kind", what))
                continue
            entries.append((skill, spec, idx))

    plain = [sanitize_tool_name(spec.name) for _, spec, _ in entries]
    claims = Counter(plain)
    names: list[str] = []
    whys: list[str | None] = []
    for (skill, spec, _), p in zip(entries, plain, strict=True):
        if p in taken:
            names.append(sanitize_tool_name(f"{skill.name}__{spec.name}"))
            whys.append(f"'{p}' is a built-in tool")
        elif claims[p] > 1:
            owners = sorted({s.name for (s, _, _), q in zip(entries, plain, strict=True) if q == p})
            names.append(sanitize_tool_name(f"{skill.name}__{spec.name}"))
            whys.append(f"'{p}' is defined by more than one tool: skills {', '.join(owners)}")
        else:
            names.append(p)
            whys.append(None if p == spec.name else "not a valid tool name")

    # Qualified names can still meet each other or a plain name: every name involved gets a hash.
    finals = Counter(names)
    for i, (skill, spec, idx) in enumerate(entries):
        if finals[names[i]] > 1 or names[i] in taken:
            names[i] = _hashed(
                _BAD_CHARS.sub("_", f"{skill.name}__{spec.name}"), f"{skill.path}\0{spec.name}\0{idx}"
            )
            whys[i] = (whys[i] + "; " if whys[i] else "") + "the qualified name was taken too"
    plan: dict[str, tuple[Skill, ToolSpec]] = {}
    for i, (skill, spec, _) in enumerate(entries):
        name = names[i]
        n = 2
        while name in plan or name in taken:  # only identical paths and tools can get here
            name = _hashed(name, f"{names[i]}\0{n}")
            n += 1
        plan[name] = (skill, spec)
        if whys[i] is not None or name != spec.name:
            why = whys[i] or "the name was taken"
            notes.append(_note(skill, spec, "tool-renamed", f"is exposed as '{name}' ({why})"))
    return plan, notes


def tool_definition(name: str, skill: Skill, spec: ToolSpec) -> dict[str, Any]:
    """Provider-neutral definition: name, description (naming the skill) and JSON schema; the author's
    words (descriptions, defaults, enum values) with hidden characters spelled out (`shown`), as in every
    other surface: an enum value that hid some can then never be chosen."""
    desc = spec.description.strip() or f"Run the '{spec.name}' command"
    params = _shown_values(tool_schema(spec))
    return {"name": name, "description": shown(f"{desc} (skill: {skill.name})"), "parameters": params}


def _shown_values(value: Any) -> Any:
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list):
        return [_shown_values(v) for v in value]
    return {k: _shown_values(v) for k, v in value.items()} if isinstance(value, dict) else value
