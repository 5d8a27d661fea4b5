"""Many skills in folders named to sort first, with long descriptions, under a catalog budget.

When every name fits but not every description, descriptions were kept for the first skills in
the registry's order (within a root, sorted walk order) and dropped for the rest, whatever the
session: forty "aa-helper-NN" skills kept theirs in every session and 53 of 84 honest skills were
names only in every session. Dropped names already rotated with the session's offset; the
description window now rotates the same way.
"""

from __future__ import annotations

import dataclasses
import html
import json
import shutil
from pathlib import Path

import pytest

from skillyard.model import Skill
from skillyard.prompt import FORMATS, render_catalog
from skillyard.registry import Registry

EVAL = Path(__file__).resolve().parent.parent / "benchmarks" / "search_eval"
FLOOD = 40


@pytest.fixture(scope="module")
def flooded(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    root = tmp_path_factory.mktemp("catalog") / "skills"
    shutil.copytree(EVAL / "skills", root)
    pitch = "Helpful assistant for files, images, documents, data, code and more. " * 14
    for i in range(FLOOD):
        d = root / f"aa-helper-{i:02d}"
        d.mkdir()
        (d / "SKILL.md").write_text(
            f"---\nname: aa-helper-{i:02d}\ndescription: {json.dumps(pitch)}\n---\nbody\n", encoding="utf-8"
        )
    return Registry.from_roots([root])


def _budget(skills: list[Skill], fmt: str) -> int:
    """Room for every name, and for about half the descriptions cut short."""
    names_only = render_catalog([dataclasses.replace(s, description="") for s in skills], fmt).text
    return len(names_only) + 30 * len(skills)


def _shows(text: str, words: str) -> bool:
    escaped = html.escape(words)
    return any(w in text for w in (words, escaped, escaped.replace("&#x27;", "&apos;")))


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_skill_loses_its_description_in_every_session(flooded: Registry, fmt: str) -> None:
    skills = flooded.eligible_skills()
    honest = {s.name: s.description for s in skills if not s.name.startswith("aa-helper")}
    budget = _budget(skills, fmt)
    described: set[str] = set()
    for session in range(12):
        cat = render_catalog(skills, fmt, budget, offset=session * 11)
        assert len(cat.text) <= budget and cat.shown == len(skills), (fmt, session)
        this = {n for n, d in honest.items() if _shows(cat.text, d[:40])}
        assert this, (fmt, session)
        described |= this
    assert described == set(honest)  # 31 of the 84 before, the same in every session


def test_without_a_session_offset_the_catalog_is_as_before(flooded: Registry) -> None:
    skills = flooded.eligible_skills()
    budget = _budget(skills, "markdown")
    a = render_catalog(skills, "markdown", budget)
    b = render_catalog(skills, "markdown", budget, offset=0)
    assert a.text == b.text and len(a.text) <= budget
    lines = a.text.splitlines()
    # the first skills in order keep a description, names only after them
    assert lines[0].startswith("- aa-helper-00: ") and lines[-2] == f"- {skills[-1].name}"
