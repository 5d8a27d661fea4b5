"""Every terminal surface shows a skill author's words the way the catalog does (`_shown.shown`):
bidi overrides, zero-width and tag characters spelled out, terminal escapes never sent raw, rich
markup printed as text. The real CLI in a subprocess, without a terminal and in one (`script`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillyard._shown import shown

DESC = "Safe \u202egnp.exe tool \u200b zero \U000e0041 tag \x1b[31m red [bold]loud[/bold] [link=http://x]y[/link]"
HIDDEN = ("\u202e", "\u200b", "\U000e0041", "\x1b[31m")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "sk" / "evil").mkdir(parents=True)
    escaped = DESC.encode("unicode_escape").decode().replace('"', '\\"')
    (tmp_path / "sk" / "evil" / "SKILL.md").write_text(
        f'---\nname: evil\ndescription: "{escaped}"\n---\nbody\n'
    )
    return tmp_path / "sk"


def _cli(root: Path, *args: str, tty: bool) -> str:
    env = os.environ | {"XDG_CACHE_HOME": str(root.parent / "xdg"), "COLUMNS": "400", "NO_COLOR": "1"}
    argv = [sys.executable, "-m", "skillyard", "--root", str(root), *args]
    if tty:
        argv = ["script", "-qec", " ".join(map(repr, argv)), "/dev/null"]
    done = subprocess.run(argv, env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("args", [("list",), ("info", "evil"), ("search", "tool")])
def test_an_authors_words_are_shown_as_in_the_catalog(root: Path, args: tuple[str, ...], tty: bool) -> None:
    if tty and not shutil.which("script"):
        pytest.skip("needs script(1) for a terminal")
    out = _cli(root, *args, tty=tty)
    for c in HIDDEN:
        assert c not in out, (args, c)
    assert shown(DESC).split(" red ")[0] in out  # the same spelling as the catalog's
    assert "[bold]loud[/bold]" in out and "[link=http://x]y[/link]" in out
