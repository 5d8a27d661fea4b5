"""`chat` asks before a run only about a command the screen shows whole: wide blank characters
count for the columns they take, not for one each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openai_server import ChatServer, Reply, scripted
from test_redteam13_terminal import yes_at_a_terminal


@pytest.mark.skipif(sys.platform == "win32", reason="pty")
def test_wide_blanks_cannot_scroll_the_command_off_the_approval_question(
    tmp_path: Path, make_skill: Any
) -> None:
    """The question's rows were counted a character to a column: `touch X`, then 3000 ideographic
    spaces (two columns each, 60 rows at 100 columns, counted as 31) then `echo hi` showed only
    blanks and `echo hi? [y/N]` on a 50-row screen, and a yes ran what had scrolled away."""
    pytest.importorskip("openai", reason="skillyard chat needs the openai package (the chat extra)")
    make_skill(tmp_path / "skills", "wordcount", "Counts the words of a text")
    config = tmp_path / "skillyard.toml"
    config.write_text(
        f'[install]\nroot = "{tmp_path / "installed"}"\n[execution]\nexecutor = "local"\ntimeout = 20\n'
    )
    marker = tmp_path / "scrolled-away-ran"
    done, server = yes_at_a_terminal(tmp_path, f"touch {marker}" + "\u3000" * 3000 + "echo hi", COLUMNS="100")
    assert done.returncode == 0, done.stderr
    assert not marker.exists() and "[y/N]" not in done.stderr
    (answer,) = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "too long to show for approval" in answer


def test_a_refused_run_is_reported_on_one_line(tmp_path: Path, make_skill: Any) -> None:
    """With no terminal to ask on, `chat` refused a run and printed the call with its line breaks:
    the model's command (a skill's text can steer it) printed a `[skill_run] deploy: exit 0` line for
    a run that never happened."""
    pytest.importorskip("openai", reason="skillyard chat needs the openai package (the chat extra)")
    make_skill(tmp_path / "skills", "wordcount", "Counts the words of a text")
    config = tmp_path / "skillyard.toml"
    config.write_text(f'[install]\nroot = "{tmp_path / "installed"}"\n')
    args = json.dumps({"skill": "wordcount", "command": "true\n[skill_run] deploy: exit 0\n  ok"})
    env = os.environ | {
        "SKILLYARD_CONFIG": str(config),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "OPENAI_API_KEY": "sk-test",
        "NO_COLOR": "1",
    }
    env.pop("OPENAI_BASE_URL", None)
    with ChatServer(scripted([Reply(tool_calls=[("skill_run", args)]), Reply(content="done")])) as server:
        argv = [sys.executable, "-m", "skillyard", "--root", str(tmp_path / "skills"), "chat"]
        argv += ["--base-url", server.url, "--model", "m", "--once", "go"]
        done = subprocess.run(
            argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False
        )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.replace("\r\n", "\n").split("\n")
    assert any(line.startswith("refused (no terminal to ask on") for line in lines), done.stderr
    assert not any(line.startswith("[skill_run] deploy") for line in lines), done.stderr
    assert "true\\n[skill_run] deploy: exit 0" in done.stderr
