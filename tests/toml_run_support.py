"""`run_tool` for tests about a command's output: the note every `local` result ends with is taken off.

Holds no tests itself; test files import it.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skillyard.execution import LocalExecutor
from skillyard.model import Skill
from skillyard.toml_tools import run_tool as _run_tool

#: What every `local` result ends with (the model is told there is no isolation).
LOCAL_NOTE = f"\n[{LocalExecutor.WARNING}]"


def run_tool(*args: Any, **kwargs: Any) -> tuple[str, bool]:
    text, err = _run_tool(*args, **kwargs)
    return text.removesuffix(LOCAL_NOTE), err


@contextlib.contextmanager
def scratch_skill(name: str, description: str, files: dict[str, str] | None = None) -> Iterator[Path]:
    """A directory holding `skill/SKILL.md` (and `files` beside it), outside every test's tmp dir, with
    room next to the skill for the canary files hostile values try to create; removed afterwards."""
    d = Path(tempfile.mkdtemp(prefix=f"skillyard-{name}-"))
    (d / "skill").mkdir()
    (d / "skill" / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n")
    for rel, text in (files or {}).items():
        (d / "skill" / rel).write_text(text)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def skill_in(d: Path, name: str, description: str) -> Skill:
    """The `Skill` of a `scratch_skill` directory."""
    return Skill(name=name, description=description, path=d / "skill" / "SKILL.md")
