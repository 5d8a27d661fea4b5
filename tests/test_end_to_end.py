"""One agent's day, across every layer: discovery, tools, session, sandboxed run, install, tamper detection."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillyard import Registry, Session, Toolkit
from skillyard.config import load_config

HELLO = """#!/usr/bin/env bash
set -eu
mkdir -p out
printf 'hello %s\\n' "${1:-world}" > out/hello.txt
echo "wrote out/hello.txt"
"""


@pytest.fixture
def incoming(outside_tmp: Path) -> Path:
    """Where a person keeps skills the model may install (never a temporary directory)."""
    return outside_tmp / "incoming"


@pytest.fixture
def project(tmp_path: Path, incoming: Path, make_skill) -> Path:
    proj = tmp_path / "proj"
    make_skill(
        proj / ".agents" / "skills",
        "greet",
        "Write a greeting file. Use when someone wants to be greeted.",
        files={"scripts/hello.sh": HELLO, "USAGE.md": "# Usage\n\nRun `bash scripts/hello.sh NAME`.\n"},
    )
    (proj / "skillyard.toml").write_text(
        f'[install]\nroot = "{tmp_path / "installed"}"\n\n[execution]\ntimeout = 30\n\n'
        f'[trust]\nmodel_installs = true\nsources = ["local:{incoming}/**"]\nmodel_local_paths = ["{incoming}"]\n',
        encoding="utf-8",
    )
    return proj


def call(tk: Toolkit, session: Session, name: str, args: dict) -> tuple[str, bool]:
    res = tk.call(name, args, session=session)
    return res.content, res.is_error


def test_agent_flow(
    project: Path, tmp_path: Path, incoming: Path, make_skill, request: pytest.FixtureRequest
) -> None:
    config = load_config(project / "skillyard.toml")  # named: it widens trust
    reg = Registry.discover(config, cwd=project, cache=False)
    tk = Toolkit(reg)
    request.addfinalizer(tk.close)  # the skill_run workspace goes when the test does, not at GC
    session = Session()

    listed = json.loads(call(tk, session, "skills", {"action": "list", "filter": "eligible"})[0])
    names = {s["name"] for s in listed["skills"]}
    assert "greet" in names and "skill-authoring" in names  # project + bundled

    out, err = call(tk, session, "skill_load", {"skill": "greet", "docs": ["USAGE.md"]})
    assert not err and out == "loaded: greet"
    system = tk.system_message(session)
    assert "[Loaded] greet" in system and "[Doc] USAGE.md" in system and "<available_skills>" in system

    out, err = call(
        tk,
        session,
        "skill_run",
        {"skill": "greet", "command": "bash scripts/hello.sh agent", "output_files": ["out/*.txt"]},
    )
    result = json.loads(out)
    assert not err, out
    assert result["exit_code"] == 0 and "wrote out/hello.txt" in result["stdout"]
    files = {f["name"]: f for f in result["output_files"]}
    assert any(v["content"] == "hello agent\n" for v in files.values()), files

    # install a new skill from a local path, then use it
    src = make_skill(incoming, "fresh-skill", "A freshly installed skill for testing installs.")
    out, err = call(
        tk, session, "skills", {"action": "install", "skill": "fresh-skill", "from": f"local:{src}"}
    )
    data = json.loads(out)
    assert not err, out
    assert data["installed"] is True and data["name"] == "fresh-skill" and data["eligible"] is True
    assert reg.get("fresh-skill") is not None and reg.get("fresh-skill").source == "install"
    out, err = call(tk, session, "read_skill", {"skill_name": "fresh-skill"})
    assert not err and "Do the thing." in out

    # installing again without force is refused in the seed's words
    out, err = call(
        tk, session, "skills", {"action": "install", "skill": "fresh-skill", "from": f"local:{src}"}
    )
    assert err and json.loads(out)["error"] == "skill exists"

    # tampering with the installed copy makes it ineligible until accepted again
    installed = reg.get("fresh-skill").path
    installed.write_text(installed.read_text() + "\nNew line nobody reviewed.\n")
    reg.reload()
    check = json.loads(call(tk, session, "skills", {"action": "check", "skill": "fresh-skill"})[0])
    assert check["eligible"] is False and "Modified since install" in check["reasons"]

    # every provider export carries the same tool names
    base = {d.name for d in tk.definitions()}
    for provider in ("openai", "openai-responses", "anthropic", "mcp"):
        assert len(tk.export(provider)) == len(base)
    (gemini,) = tk.export("gemini")  # one Tool holding every function declaration
    assert {f["name"] for f in gemini["functionDeclarations"]} == base

    # the session survives a round trip
    again = Session.from_json(session.to_json())
    assert again.is_loaded("greet")
    shutil.rmtree(tmp_path / "installed")
