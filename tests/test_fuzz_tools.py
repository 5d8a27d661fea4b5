"""A skill directory changing under the tools: files become directories, FIFOs, symlinks out, or vanish."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

from skillyard.registry import Registry
from skillyard.tools import Toolkit

MD = "---\nname: alpha\ndescription: Alpha skill\n---\nbody\n"
SECRET = "SECRET-OUTSIDE-THE-SKILL"
CALLS = (
    ("skills", {"action": "reload"}),
    ("skill_list_docs", {"skill": "alpha"}),
    ("skill_load", {"skill": "alpha", "include_all_docs": True}),
    ("read_skill", {"skill_name": "alpha"}),
    ("skill", {"skill": "alpha"}),
    ("skills", {"action": "info", "skill": "alpha"}),
)


def _flip(target: Path, kind: int, outside: Path) -> None:
    """Replace `target` by the kind-th shape: file, directory, FIFO, symlink out of the skill, nothing."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    if kind == 0:
        target.write_text(MD if target.name == "SKILL.md" else "doc")
    elif kind == 1:
        target.mkdir()
        (target / "x.md").write_text("x")
    elif kind == 2:
        os.mkfifo(target)
    elif kind == 3:
        target.symlink_to(outside)


def test_tools_answer_while_the_skill_changes_under_them(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text(SECRET)
    skill = tmp_path / "skills" / "alpha"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(MD)
    (skill / "a.md").write_text("doc")
    kit = Toolkit(Registry.from_roots([tmp_path / "skills"]))
    stop = threading.Event()

    def flipper() -> None:
        for i in range(10**9):
            if stop.is_set():
                return
            for target in (skill / "a.md", skill / "SKILL.md", skill / "refs"):
                try:
                    _flip(target, i % 5, outside)
                except OSError:  # the other thread's reload may hold or race the same path
                    pass

    t = threading.Thread(target=flipper)
    t.start()
    answered = 0
    try:
        deadline = time.monotonic() + 3  # how long to keep racing, not a performance bound
        while time.monotonic() < deadline:
            for tool, args in CALLS:
                res = kit.call(tool, args)  # a result every time, never an exception
                assert SECRET not in res.content, (tool, res.content[:200])
                assert SECRET not in kit.system_message()
                answered += 1
    finally:
        stop.set()
        t.join(30)
    assert not t.is_alive()
    assert answered >= len(CALLS)
