"""`skillyard prompt | tools | call | search`: what a model would see, printed from a shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillyard.cli import cli


@pytest.fixture
def root(tmp_path: Path, make_skill: Any) -> Path:
    r = tmp_path / "skills"
    make_skill(
        r, "pdf-reader", "Read and extract text from PDF files", body="PDF body\n", files={"API.md": "api"}
    )
    make_skill(r, "weather", "Get current weather and forecasts")
    return r


def run(root: Path, *args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(cli, ["--root", str(root), *args], input=input, catch_exceptions=False)


def test_prompt_formats_and_budget(root: Path) -> None:
    res = run(root, "prompt")
    assert res.exit_code == 0 and res.output.startswith("<available_skills>")
    res = run(root, "prompt", "--format", "markdown")
    assert "- pdf-reader: Read and extract text from PDF files" in res.output
    res = run(root, "prompt", "--budget", "120", "--json")
    data = json.loads(res.output)
    assert len(data["text"]) <= 120 and data["truncated"] is True and data["total"] == 2
    assert run(root, "prompt", "--format", "nope").exit_code == 2
    assert run(root, "prompt", "--budget", "-1").exit_code == 2


def test_call_with_session_then_prompt(root: Path, tmp_path: Path) -> None:
    session = tmp_path / "s.json"
    res = run(
        root, "call", "skill_load", '{"skill": "pdf-reader", "docs": ["API.md"]}', "--session", str(session)
    )
    assert res.exit_code == 0 and res.output == "loaded: pdf-reader\n"
    assert json.loads(session.read_text())["loaded"] == [{"skill": "pdf-reader", "docs": ["API.md"]}]
    res = run(root, "prompt", "--session", str(session))
    assert "Skill tool guidance:" in res.output
    assert "<available_skills>" in res.output
    assert "[Loaded] pdf-reader\n\nPDF body" in res.output and "[Doc] API.md\n\napi" in res.output
    res = run(root, "prompt")
    assert "[Loaded]" not in res.output


def test_call_json_and_errors(root: Path, tmp_path: Path) -> None:
    res = run(root, "call", "skills", '{"action": "check", "skill": "weather"}', "--json")
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert data["is_error"] is False and json.loads(data["content"])["eligible"] is True
    res = run(root, "call", "skills", '{"action": "info", "skill": "nope"}')
    assert res.exit_code == 1 and json.loads(res.output) == {"error": "skill not found: nope"}
    res = run(root, "call", "skills", "{broken")
    assert res.exit_code == 1 and "invalid JSON arguments" in res.output
    res = run(root, "call", "nope")
    assert res.exit_code == 1 and "unknown tool: nope" in res.output
    res = run(root, "call", "read_skill", "-", input='{"skill_name": "weather"}')
    assert res.exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    res = CliRunner().invoke(
        cli, ["--root", str(root), "call", "skills", '{"action":"list"}', "--session", str(bad)]
    )
    assert res.exit_code == 2 and "must be a JSON object" in res.output
    res = run(root, "call", "skill_load", '{"skill": "pdf-reader"}', "--load-mode", "result")
    assert res.output.startswith("[Loaded] pdf-reader")


def test_tools_exports(root: Path) -> None:
    for provider, key in [("openai", "function"), ("anthropic", "input_schema"), ("mcp", "inputSchema")]:
        res = run(root, "tools", "--provider", provider)
        assert res.exit_code == 0
        data = json.loads(res.output)
        assert all(key in t for t in data)
    data = json.loads(run(root, "tools", "--provider", "gemini", "--tool", "read_skill").output)
    assert [f["name"] for f in data[0]["functionDeclarations"]] == ["read_skill"]
    assert run(root, "tools", "--tool", "bogus").exit_code == 2
    assert run(root, "tools", "--provider", "bogus").exit_code == 2


def test_search(root: Path) -> None:
    res = run(root, "search", "pdf", "--json")
    data = json.loads(res.output)
    assert data["query"] == "pdf" and data["skills"][0]["name"] == "pdf-reader"
    assert set(data["skills"][0]) == {"name", "description", "eligible", "score", "confidence"}
    assert data["skills"][0]["confidence"] in ("strong", "weak")
    res = run(root, "search", "weather forecast")
    assert res.exit_code == 0 and "weather" in res.output
    res = run(root, "search", "zzzqqq")
    assert res.exit_code == 1
    assert run(root, "search", "pdf", "--limit", "0").exit_code == 2
