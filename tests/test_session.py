"""Sessions: state, rendering of the three layers, and JSON round trips (including hostile files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.registry import Registry
from skillyard.session import Session, SessionError
from skillyard.tools import Toolkit


@pytest.fixture
def reg(tmp_path: Path, make_skill: Any) -> Registry:
    r = tmp_path / "skills"
    make_skill(r, "b-skill", "Second skill", body="B body\n", files={"x.md": "X doc", "y.md": "Y doc"})
    make_skill(r, "a-skill", "First skill", body="A body\n")
    return Registry.from_roots([r])


def test_round_trip(tmp_path: Path) -> None:
    s = Session(session_id="sess-1")
    s.load_skill("b-skill", ["y.md", "x.md"])
    s.load_skill("a-skill", all_docs=True)
    again = Session.from_json(s.to_json())
    assert again.session_id == "sess-1"
    assert again.loaded == s.loaded
    assert list(again.loaded) == ["b-skill", "a-skill"]  # load order kept
    path = tmp_path / "deep" / "session.json"
    s.save(path)
    assert Session.load(path).to_dict() == s.to_dict()
    assert [p.name for p in path.parent.iterdir()] == ["session.json"]  # no temp files left


def test_missing_or_empty_file_starts_fresh(tmp_path: Path) -> None:
    assert Session.load(tmp_path / "none.json").loaded == {}
    (tmp_path / "empty.json").write_text("  \n")
    assert Session.load(tmp_path / "empty.json").loaded == {}


@pytest.mark.parametrize(
    "text, needle",
    [
        ("not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"format": 2}', "unsupported session format"),
        ('{"session_id": "../../etc"}', "session_id must be"),
        ('{"session_id": ""}', "session_id must be"),
        ('{"loaded": {}}', "'loaded' must be a list"),
        ('{"loaded": [{"skill": 1}]}', "loaded[0]"),
        ('{"loaded": [{"skill": "a", "docs": "x"}]}', "loaded[0].docs"),
        ('{"extra": 1}', "unknown session key: extra"),
        ("[" * 100000, "not valid JSON"),
        ('{"format": ' + "1" * 5000 + "}", "not valid JSON"),  # past int()'s digit limit
    ],
)
def test_hostile_session_text(text: str, needle: str) -> None:
    with pytest.raises(SessionError, match=None) as info:
        Session.from_json(text)
    assert needle in str(info.value)


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="directory"):
        Session.load(tmp_path)


def test_render_layers(reg: Registry) -> None:
    s = Session()
    s.load_skill("b-skill", ["y.md"])
    s.load_skill("gone-skill")  # no longer in the registry: skipped, not an error
    kit = Toolkit(reg)
    text = kit.system_message(s)
    guidance = text.index("Skill tool guidance:")
    catalog = text.index("<available_skills>")
    loaded = text.index("[Loaded] b-skill")
    docs = text.index("Docs loaded: y.md")
    doc = text.index("[Doc] y.md\n\nY doc")
    assert guidance < catalog < loaded < docs < doc
    assert "X doc" not in text and "gone-skill" not in text
    only = Toolkit(reg, tools=["read_skill"]).system_message(Session())
    assert "skill_load" not in only and "read_skill" in only


def test_render_budget_and_format(reg: Registry) -> None:
    kit = Toolkit(reg, catalog_format="markdown")
    assert "- a-skill: First skill" in kit.system_message()
    assert "<available_skills>" not in kit.system_message()


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=20),
        st.one_of(st.just("*"), st.lists(st.text(max_size=20), max_size=4)),
        max_size=5,
    )
)
def test_any_state_round_trips(loaded: dict[str, Any]) -> None:
    s = Session(loaded=dict(loaded))
    again = Session.from_json(s.to_json())
    assert again.loaded == s.loaded
    assert json.loads(again.to_json()) == json.loads(s.to_json())


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_random_text_never_crashes(text: str) -> None:
    try:
        Session.from_json(text)
    except SessionError:
        pass


def test_huge_doc_is_capped(tmp_path: Path, make_skill: Any) -> None:
    from skillyard.session import MAX_DOC_CHARS

    r = tmp_path / "big"
    make_skill(r, "big", "Big docs", files={"HUGE.md": "x" * (MAX_DOC_CHARS + 10)})
    kit = Toolkit(Registry.from_roots([r]))
    kit.call("skill_load", {"skill": "big", "include_all_docs": True})
    text = kit.system_message()
    assert "[truncated: 10 more characters]" in text
    assert len(text) < MAX_DOC_CHARS + 5000
