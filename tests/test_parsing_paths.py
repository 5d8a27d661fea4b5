"""`path_of` must build exactly what `Path()` builds, for any string (it only skips work)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.discovery import path_of

segment = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=0, max_size=8
) | st.sampled_from([".", "..", "SKILL.md", "é"])


def _same(p: str) -> None:
    made, real = path_of(p), Path(p)
    assert type(made) is type(real)
    assert made == real and str(made) == str(real) and made.parts == real.parts
    assert made.parent == real.parent and made.name == real.name and hash(made) == hash(real)
    assert made / "SKILL.toml" == real / "SKILL.toml"


@settings(max_examples=200, deadline=None)
@given(st.lists(segment, min_size=0, max_size=6), st.booleans(), st.booleans())
def test_path_of_matches_path(segments: list[str], absolute: bool, trailing: bool) -> None:
    p = ("/" if absolute else "") + "/".join(segments) + ("/" if trailing else "")
    if p:
        _same(p)


def test_path_of_on_walk_paths_and_odd_spellings(tmp_path: Path) -> None:
    for p in (
        str(tmp_path / "skills" / "a" / "SKILL.md"),
        "/",
        "//double/lead",
        "///triple",
        "/a//b",
        "/a/./b",
        "/a/b/.",
        "/a/b/",
        "relative/SKILL.md",
        "/a/../b/SKILL.md",
    ):
        _same(p)
