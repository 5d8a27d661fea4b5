"""Checks on outside input anchored with `$` matched before a final line break: `re.match(r"^x$")`
accepts "x\\n". Each check below let such a value through before it anchored at `\\Z`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")
SKILL = "---\nname: pdf\ndescription: PDF files\n---\nbody\n"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC, "NO_COLOR": "1"}
    env.pop("SKILLYARD_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "skillyard", "--root", str(cwd / "skills"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "skills" / "pdf").mkdir(parents=True)
    (tmp_path / "skills" / "pdf" / "SKILL.md").write_text(SKILL)
    return tmp_path


def test_a_remote_header_name_with_a_final_line_break_is_a_config_error(home: Path) -> None:
    """`headers = {"X-Key\\n" = ...}` was taken as a header name: the request it built was one no
    HTTP library sends (a bad request at sync time) instead of a config error naming the key."""
    cfg = home / "skillyard.toml"
    cfg.write_text(
        '[[skills.remote]]\nname = "r"\nurl = "http://127.0.0.1:9/mcp"\nheaders = {"X-Key\\n" = "v"}\n'
    )
    r = _cli(home, "--config", str(cfg), "list")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "headers" in r.stderr
    cfg.write_text(
        '[[skills.remote]]\nname = "r"\nurl = "http://127.0.0.1:9/mcp"\nheaders = {"X-Key" = "v"}\n'
    )
    assert _cli(home, "--config", str(cfg), "list").returncode == 0


def test_a_session_file_id_with_a_final_line_break_is_refused(home: Path) -> None:
    """A session file's `session_id` of "abc\\n" was loaded and echoed back as the session's id."""
    sess = home / "s.json"
    sess.write_text(json.dumps({"format": 1, "session_id": "abc\n", "loaded": []}))
    r = _cli(home, "prompt", "--session", str(sess), "--json")
    assert r.returncode == 2, r.stdout
    assert "session_id must be" in r.stderr
    sess.write_text(json.dumps({"format": 1, "session_id": "abc", "loaded": []}))
    r = _cli(home, "prompt", "--session", str(sess), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["session_id"] == "abc"


@pytest.mark.parametrize(
    "raw",
    [
        "git+https://example.com/team/repo.git@main\n",  # a git ref handed to `git fetch`
        "hub:pdf\n",  # a hub name that becomes a folder name
        "hub:pdf@1.0\n",
    ],
)
def test_install_source_parts_with_a_final_line_break_are_refused(raw: str) -> None:
    """The source text as a whole refuses control characters, so these checks are the second line:
    each on its own accepted its part with a final line break."""
    from skillyard.install import sources

    ref_ok = sources._REF_RE.match("main\n")
    hub_ok = sources._HUB_RE.match(raw.split(":", 1)[1]) if raw.startswith("hub:") else None
    assert ref_ok is None and hub_ok is None
    with pytest.raises(sources.SourceError):
        sources._check_ref("main\n")
    assert sources._HOST_RE.match("example.com\n") is None
    assert sources._check_ref("main") == "main"


def test_mcp_skill_uri_and_artifact_ref_with_a_final_line_break_are_refused() -> None:
    """`skill://pdf\\n/SKILL.md` split into the served name "pdf\\n"; an artifact ref `out.txt@2\\n`
    from a tool argument read as version 2 of out.txt."""
    from skillyard.execution.artifacts import ArtifactError, parse_artifact_ref
    from skillyard.mcp.catalog import CatalogError, SkillCatalog

    with pytest.raises(CatalogError):
        SkillCatalog.split_uri("skill://pdf\n/SKILL.md")
    assert SkillCatalog.split_uri("skill://pdf/SKILL.md") == ("pdf", "SKILL.md")
    with pytest.raises(ArtifactError):
        parse_artifact_ref("out.txt@2\n")
    assert parse_artifact_ref("out.txt@2") == ("out.txt", 2)


def test_workspace_and_env_names_anchor_at_the_end() -> None:
    """These were checked with `fullmatch` already; the patterns themselves no longer depend on it."""
    from skillyard.execution import base, workspace

    assert base._ENV_NAME.match("PATH\n") is None
    assert workspace._SKILL_NAME.match("pdf\n") is None


def test_an_env_name_with_a_final_line_break_is_not_taken_for_a_path_or_an_id() -> None:
    """`GITHUB_TOKEN_ID\\n` read as ending in `_ID` (a name that is no secret): its value went
    unscrubbed from a run's output."""
    from skillyard.execution.scrub import looks_secret_name

    assert looks_secret_name("GITHUB_TOKEN_ID\n")
    assert not looks_secret_name("GITHUB_TOKEN_ID") and looks_secret_name("GITHUB_TOKEN")
