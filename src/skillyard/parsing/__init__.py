"""Parsing every skill dialect into the shared model, leniently and without ever raising.

Public API: `parse_skill` (`parse_skill_row` for the same as plain data), `load_body`, `find_skill_file`, `split_frontmatter`, `parse_frontmatter`.
"""

from __future__ import annotations

from skillyard.parsing.frontmatter import parse_frontmatter
from skillyard.parsing.skill_md import (
    SKILL_FILE_NAMES,
    find_skill_file,
    load_body,
    parse_skill,
    parse_skill_row,
)
from skillyard.parsing.text import split_frontmatter

__all__ = [
    "SKILL_FILE_NAMES",
    "find_skill_file",
    "load_body",
    "parse_frontmatter",
    "parse_skill",
    "parse_skill_row",
    "split_frontmatter",
]
