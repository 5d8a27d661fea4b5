"""`run_tool` for tests about a command's output: the note every `local` result ends with is taken off.

Holds no tests itself; test files import it.
"""

from __future__ import annotations

from typing import Any

from skillyard.execution import LocalExecutor
from skillyard.toml_tools import run_tool as _run_tool

#: What every `local` result ends with (the model is told there is no isolation).
LOCAL_NOTE = f"\n[{LocalExecutor.WARNING}]"


def run_tool(*args: Any, **kwargs: Any) -> tuple[str, bool]:
    text, err = _run_tool(*args, **kwargs)
    return text.removesuffix(LOCAL_NOTE), err
