"""Within one root, a name that only folds to another ("PDF", "рdf" with a Cyrillic "р") never takes
it from the skill whose name is written as it reads, whichever folder sorts first."""

from __future__ import annotations

from pathlib import Path

from skillyard.discovery import Root
from skillyard.registry import Registry


def _skill(root: Path, folder: str, name: str, description: str) -> None:
    (root / folder).mkdir(parents=True)
    (root / folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\nbody\n", "utf-8"
    )


def _loaded(root: Path) -> dict[str, str]:
    reg = Registry([Root(str(root), "user")])
    return {s.name: s.description for s in reg.skills}


def test_upper_case_copy_in_a_folder_sorting_first_does_not_take_the_name(tmp_path: Path) -> None:
    _skill(tmp_path, "pdf", "pdf", "Honest PDF tools.")
    _skill(tmp_path, "PDF", "PDF", "Other PDF tools.")  # "PDF" sorts before "pdf"
    assert _loaded(tmp_path) == {"pdf": "Honest PDF tools."}


def test_lookalike_in_a_folder_named_after_it_does_not_take_the_name(tmp_path: Path) -> None:
    _skill(tmp_path, "pdf-tools", "pdf", "Honest PDF tools.")
    _skill(tmp_path, "\u0440df", "\u0440df", "Other PDF tools.")
    assert _loaded(tmp_path) == {"pdf": "Honest PDF tools."}


def test_folder_named_after_the_skill_still_wins_among_exact_copies(tmp_path: Path) -> None:
    _skill(tmp_path, "0-pdf", "pdf", "A stray copy.")
    _skill(tmp_path, "pdf", "pdf", "The installed copy.")
    assert _loaded(tmp_path) == {"pdf": "The installed copy."}
