"""Realistic skills in each dialect (self-written fixtures) load with the expected fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillyard.model import Skill, skill_to_row
from skillyard.parsing import find_skill_file, load_body, parse_skill, parse_skill_row
from skillyard.parsing.text import CHUNK, read_head
from skillyard.skill_files import list_docs
from skillyard.validate import validate_skill_dir

FIXTURES = Path(__file__).parent / "fixtures" / "parsing"


def load(name: str) -> tuple[Skill, set[str]]:
    path = find_skill_file(FIXTURES / name)
    assert path is not None
    skill, diags = parse_skill(path, source="bundled")
    assert skill is not None, diags
    json.dumps(skill.frontmatter, allow_nan=False)
    assert parse_skill_row(path, "bundled") == (skill_to_row(skill), diags)  # what a scan keeps
    return skill, {d.code for d in diags}


def test_clawhub_github() -> None:
    s, codes = load("clawhub-github")
    assert codes == set()
    assert s.emoji == "🐙" and s.requires.bins == ("gh",)
    assert [o.command() for o in s.install] == ["brew install gh", "apt install gh"]
    assert load_body(s).startswith("# GitHub")


def test_claude_code_review() -> None:
    s, codes = load("claude-review")
    assert "yaml-repaired" in codes  # the unquoted "Use when:" in the description
    assert s.description.startswith("Review the current diff") and "Use when: the user" in s.description
    assert s.when_to_use == "Before opening a pull request"
    assert s.argument_hint == "[base-branch]" and s.arguments == ("base",)
    assert s.allowed_tools == ("Bash(git diff:*)", "Bash(git log:*)", "Read")
    assert s.disable_model_invocation is True and s.user_invocable is True
    assert s.frontmatter["hooks"]["PostToolUse"][0]["once"] is True
    assert list_docs(s) == ["checklist.md"]


def test_codex_folded_description() -> None:
    s, codes = load("codex-pdf")
    assert s.description == "Extract text and tables from PDF files. Use when the user mentions a PDF."
    assert s.metadata == {"short-description": "PDF extraction"} and not codes


def test_hermes_nested_metadata_and_legacy_openclaw_string() -> None:
    s, codes = load("hermes-notes")
    assert s.version == "1.10" and s.license == "MIT"
    assert s.metadata["hermes"]["limits"] == {"max_notes": 200}
    assert s.requires.env == ("NOTES_DIR",) and s.requires.config == ("notes.enabled",)
    assert s.requires.os == ("darwin", "linux")
    assert "bad-list-item" in codes  # the object entry in requires.config


def test_zeroclaw_toml() -> None:
    s, _ = load("zeroclaw-telegram")
    assert s.format == "toml" and [t.name for t in s.tools] == ["list_dialogs", "export"]
    export = s.tools[1]
    assert [a.name for a in export.args] == ["chat", "format"] and export.timeout == 120.0
    assert export.args[1].enum == ("json", "md") and export.args[1].required is False
    assert "Prefer list_dialogs" in load_body(s) and "## Tools" in load_body(s)


def test_crlf_block_list() -> None:
    s, codes = load("legacy-crlf")
    assert s.allowed_tools == ("Read", "Grep") and not codes
    assert load_body(s) == "Body line one\nBody line two\n"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_fixtures_validate_without_errors_in_lenient_mode(name: str) -> None:
    r = validate_skill_dir(FIXTURES / name)
    if name == "claude-review":
        assert r.valid and any("Unexpected fields" in w for w in r.warnings)
    else:
        assert r.valid, r.errors


def test_discovery_reads_only_the_first_chunk(tmp_path: Path) -> None:
    d = tmp_path / "big"
    d.mkdir()
    p = d / "SKILL.md"
    p.write_text("---\nname: big\ndescription: d\n---\n" + "x" * 2_000_000 + "\n")
    head = read_head(str(p))
    assert not head.complete and len(head.body_raw) < CHUNK
