"""`read_skill`, `skill` and Claude Code argument substitution."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.registry import Registry
from skillyard.tools import Toolkit
from skillyard.tools.arguments import split_arguments, substitute_arguments


@pytest.fixture
def reg(tmp_path: Path, make_skill: Any) -> Registry:
    r = tmp_path / "skills"
    make_skill(r, "data-analysis", "Analyse data", body="# Analyse\n\nStep one.\n")
    make_skill(
        r,
        "fix-issue",
        "Fix an issue",
        body="Fix issue $0 in $1 ($ARGUMENTS)\n",
        extra="arguments: [issue, repo]",
    )
    make_skill(r, "greet", "Greets", body="Say hello to $who.\n", extra="arguments: who")
    make_skill(
        r, "blocked", "Needs env", extra='metadata: {"openclaw": {"requires": {"env": ["SKILLYARD_NOPE"]}}}'
    )
    (tmp_path / "secret.txt").write_text("top secret", encoding="utf-8")
    return Registry.from_roots([r])


def test_read_skill_body_and_enum(reg: Registry) -> None:
    kit = Toolkit(reg, tools=["read_skill"])
    res = kit.call("read_skill", {"skill_name": "data-analysis"})
    assert (res.content, res.is_error) == ("# Analyse\n\nStep one.", False)
    assert "name:" not in res.content and "---" not in res.content
    enum = kit.definitions()[0].parameters["properties"]["skill_name"]["enum"]
    assert enum == ["data-analysis", "fix-issue", "greet"]  # eligible only


@pytest.mark.parametrize(
    "name",
    [
        "nope",
        "../secret.txt",
        "/etc/passwd",
        "data-analysis/../../secret.txt",
        "data\x00analysis",
        "",
        "a" * 200,
    ],
)
def test_read_skill_never_reads_a_path(reg: Registry, name: str) -> None:
    kit = Toolkit(reg, tools=["read_skill"])
    res = kit.call("read_skill", {"skill_name": name})
    assert res.is_error
    assert res.content == f"Error: Skill '{name}' not found."
    assert "top secret" not in res.content


def test_read_skill_ineligible_and_bad_args(reg: Registry) -> None:
    kit = Toolkit(reg, tools=["read_skill"])
    res = kit.call("read_skill", {"skill_name": "a" * 5000})
    assert res.is_error and "field 'skill_name' is too long (5000 characters, at most 256)" in res.content
    assert len(res.content) < 200
    res = kit.call("read_skill", {"skill_name": "blocked"})
    assert res.is_error and "Missing environment variable: SKILLYARD_NOPE" in res.content
    res = kit.call("read_skill", {})
    assert res.is_error
    assert (
        res.content == "Error: Invalid parameters for tool 'read_skill': missing required field 'skill_name'"
    )
    res = kit.call("read_skill", {"skill_name": 3})
    assert res.is_error and "must be a string" in res.content


def test_skill_two_messages(reg: Registry) -> None:
    kit = Toolkit(reg, tools=["skill"])
    skill = reg.get("data-analysis")
    assert skill is not None
    for name in ("data-analysis", "/data-analysis", "  data-analysis "):
        res = kit.call("skill", {"skill": name})
        assert not res.is_error
        assert res.display == "Loaded skill: data-analysis"
        messages = json.loads(res.content)
        assert messages == [
            {
                "type": "text",
                "text": "<command-message>data-analysis is running…</command-message>\n"
                "<command-name>data-analysis</command-name>",
            },
            {
                "type": "text",
                "text": f"Base directory for this skill: {skill.root}\n\n# Analyse\n\nStep one.\n",
                "isMeta": True,
            },
        ]


def test_skill_errors(reg: Registry) -> None:
    kit = Toolkit(reg, tools=["skill"])
    res = kit.call("skill", {"skill": "nope"})
    assert (res.content, res.is_error) == ('Skill "nope" not found', True)
    res = kit.call("skill", {"skill": "../../secret.txt"})
    assert res.is_error and "top secret" not in res.content
    res = kit.call("skill", {"skill": "blocked"})
    assert res.is_error and "SKILLYARD_NOPE" in res.content
    res = kit.call("skill", {"skill": "greet", "args": 5})
    assert res.is_error and "field 'args' must be a string" in res.content


def test_skill_lists_the_names_like_read_skill(reg: Registry) -> None:
    kit = Toolkit(reg, tools=["skill", "read_skill"])
    skill_prop = kit.get("skill").parameters["properties"]["skill"]
    read_prop = kit.get("read_skill").parameters["properties"]["skill_name"]
    assert skill_prop["enum"] == read_prop["enum"] == ["data-analysis", "fix-issue", "greet"]
    # the enum advertises; "/name" (how a user types it) and unknown names get the tool's own answers
    assert not kit.call("skill", {"skill": "/greet"}).is_error
    res = kit.call("skill", {"skill": "gret"})
    assert res.content == 'Skill "gret" not found (did you mean: greet?)'
    res = kit.call("skill", {"skill": "blocke"})  # ineligible skills are never suggested
    assert res.content == 'Skill "blocke" not found'


def test_skill_without_enum_on_a_large_registry(tmp_path: Path, make_skill: Any) -> None:
    from skillyard.tools.common import MAX_ENUM_NAMES

    r = tmp_path / "skills"
    for i in range(MAX_ENUM_NAMES + 1):
        make_skill(r, f"skill-{i:04d}", f"Skill number {i}")
    make_skill(r, "pdf-reader", "Reads PDFs")
    kit = Toolkit(Registry.from_roots([r]), tools=["skill", "read_skill"])
    assert "enum" not in kit.get("skill").parameters["properties"]["skill"]
    assert "enum" not in kit.get("read_skill").parameters["properties"]["skill_name"]
    res = kit.call("skill", {"skill": "pdf-reder"})
    assert (res.content, res.is_error) == ('Skill "pdf-reder" not found (did you mean: pdf-reader?)', True)


def test_skill_argument_substitution(reg: Registry) -> None:
    kit = Toolkit(reg, tools=["skill"])
    text = json.loads(kit.call("skill", {"skill": "fix-issue", "args": '123 "my repo"'}).content)[1]["text"]
    assert text.endswith('Fix issue 123 in my repo (123 "my repo")\n')
    text = json.loads(kit.call("skill", {"skill": "greet", "args": "Ada"}).content)[1]["text"]
    assert "Say hello to Ada." in text and text.endswith("\n\nARGUMENTS: Ada")
    text = json.loads(kit.call("skill", {"skill": "greet"}).content)[1]["text"]
    assert "Say hello to $who." in text and "ARGUMENTS:" not in text


def test_substitution_rules() -> None:
    assert substitute_arguments("a $ARGUMENTS[1] b", "x y") == "a y b"
    assert substitute_arguments("$ARGUMENTS.0", "x y") == "x"
    assert substitute_arguments("$0 and $2", "x y") == "x and $2\n\nARGUMENTS: x y"  # unmatched stays literal
    assert substitute_arguments("cost \\$1.00 $ARGUMENTS", "z") == "cost $1.00 z"
    assert substitute_arguments("$name.", "", names=["name"]) == "."  # unmatched named -> empty
    assert substitute_arguments("$HOME $ARGUMENTS", "q") == "$HOME q"  # undeclared names stay
    # values are never re-expanded
    assert substitute_arguments("$0 $1", "'$1' b") == "$1 b\n\nARGUMENTS: '$1' b"
    assert substitute_arguments("$ARGUMENTS", "$0 $ARGUMENTS") == "$0 $ARGUMENTS"
    env = {"CLAUDE_SKILL_DIR": "/d"}
    assert substitute_arguments("${CLAUDE_SKILL_DIR}/x $ARGUMENTS", "", env=env) == "/d/x "
    assert split_arguments('a "b c" d') == ["a", "b c", "d"]
    assert split_arguments('a "unterminated') == ["a", '"unterminated']


@settings(max_examples=150, deadline=None)
@given(body=st.text(max_size=200), raw=st.text(max_size=60))
def test_substitution_never_raises_and_keeps_body_without_placeholders(body: str, raw: str) -> None:
    out = substitute_arguments(body, raw, names=["who"])
    assert isinstance(out, str)
    if "$" not in body and "\\" not in body:
        expected = body if not raw else body.rstrip("\n") + f"\n\nARGUMENTS: {raw}"
        assert out == expected
