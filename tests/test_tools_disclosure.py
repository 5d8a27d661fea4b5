"""Progressive disclosure: skill_load, skill_select_docs, skill_list_docs, both load modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit

DOCS = {
    "USAGE.md": "usage text",
    "references/api.md": "api text",
    "notes.txt": "notes",
    "script.py": "print(1)",
}


@pytest.fixture
def reg(tmp_path: Path, make_skill: Any) -> Registry:
    r = tmp_path / "skills"
    make_skill(r, "demo", "A demo skill", body="Demo body\n", files=DOCS)
    make_skill(r, "plain", "No docs here", body="Plain body\n")
    make_skill(
        r,
        "blocked",
        "Needs a binary",
        extra='metadata: {"openclaw": {"requires": {"env": ["SKILLYARD_NOPE_ENV"]}}}',
    )
    make_skill(r, "manual", "User only", extra="disable-model-invocation: true")
    return Registry.from_roots([r])


def test_list_docs_sorted_and_filtered(reg: Registry) -> None:
    kit = Toolkit(reg)
    res = kit.call("skill_list_docs", {"skill": "demo"})
    assert not res.is_error
    assert json.loads(res.content) == ["USAGE.md", "notes.txt", "references/api.md"]
    assert json.loads(kit.call("skill_list_docs", {"skill": "plain"}).content) == []


def test_load_system_mode(reg: Registry) -> None:
    kit = Toolkit(reg)
    s = Session()
    res = kit.call("skill_load", {"skill": "demo", "docs": ["references/api.md"]}, session=s)
    assert (res.content, res.is_error, res.display) == ("loaded: demo", False, "Loaded skill: demo")
    assert s.selection("demo") == ["references/api.md"]
    # docs omitted keeps the previous selection
    kit.call("skill_load", {"skill": "demo"}, session=s)
    assert s.selection("demo") == ["references/api.md"]
    kit.call("skill_load", {"skill": "demo", "include_all_docs": True}, session=s)
    assert s.selection("demo") == "*"
    text = kit.system_message(s)
    assert "[Loaded] demo\n\nDemo body" in text
    assert "Docs loaded: USAGE.md, notes.txt, references/api.md" in text
    assert "[Doc] references/api.md\n\napi text" in text
    assert "print(1)" not in text


def test_load_result_mode_returns_body_and_docs(reg: Registry) -> None:
    kit = Toolkit(reg, load_mode="result")
    s = Session()
    res = kit.call("skill_load", {"skill": "demo", "docs": ["USAGE.md"]}, session=s)
    assert not res.is_error
    assert res.content.startswith("[Loaded] demo\n\nDemo body")
    assert "Docs loaded: USAGE.md" in res.content and "[Doc] USAGE.md\n\nusage text" in res.content
    # result mode: the system message carries the catalog, not the bodies
    assert "[Loaded]" not in kit.system_message(s)
    sel = json.loads(
        kit.call("skill_select_docs", {"skill": "demo", "docs": ["notes.txt"]}, session=s).content
    )
    assert sel["docs"] == [{"path": "notes.txt", "content": "notes"}]


def test_load_errors(reg: Registry) -> None:
    kit = Toolkit(reg)
    res = kit.call("skill_load", {"skill": "nope"})
    assert res.is_error and res.content.startswith("unknown skill: nope")
    res = kit.call("skill_load", {"skill": ""})
    assert res.is_error and res.content == "skill is required"
    res = kit.call("skill_load", {"skill": "blocked"})
    assert res.is_error and "Missing environment variable: SKILLYARD_NOPE_ENV" in res.content
    res = kit.call("skill_load", {"skill": "manual"})
    assert res.is_error and "only be invoked by the user" in res.content
    res = kit.call("skill_load", {"skill": "demo", "docs": ["../../etc/passwd"]})
    assert res.is_error and "unknown doc" in res.content and "available: USAGE.md" in res.content
    res = kit.call("skill_load", {})
    assert res.is_error and "missing required field 'skill'" in res.content
    res = kit.call("skill_load", {"skill": "demo", "docs": "USAGE.md"})
    assert res.is_error and "field 'docs' must be an array" in res.content
    res = kit.call("skill_load", {"skill": "demo", "docs": [1]})
    assert res.is_error and "docs[0]" in res.content
    assert kit.session.loaded == {}


def test_select_docs_modes_and_order(reg: Registry) -> None:
    kit = Toolkit(reg)
    s = Session()

    def sel(**args: Any) -> dict[str, Any]:
        res = kit.call("skill_select_docs", {"skill": "demo", **args}, session=s)
        assert not res.is_error, res.content
        return json.loads(res.content)

    out = sel(docs=["references/api.md", "USAGE.md"])  # default mode replace, skill order kept
    assert out == {
        "skill": "demo",
        "selected_docs": ["USAGE.md", "references/api.md"],
        "include_all_docs": False,
        "mode": "replace",
    }
    assert s.is_loaded("demo")
    assert sel(docs=["notes.txt"], mode="add")["selected_docs"] == [
        "USAGE.md",
        "notes.txt",
        "references/api.md",
    ]
    out = sel(include_all_docs=True, mode="add")
    assert out["include_all_docs"] is True and len(out["selected_docs"]) == 3
    assert sel(docs=["notes.txt"], mode="add")["include_all_docs"] is True  # adding to "all" stays all
    # narrowing from "all" works with replace
    assert sel(docs=["notes.txt"], mode="replace")["selected_docs"] == ["notes.txt"]
    out = sel(mode="clear")
    assert out["selected_docs"] == [] and out["include_all_docs"] is False
    # deterministic: same inputs, same output, whatever the order
    a = sel(docs=["references/api.md", "notes.txt", "USAGE.md"])
    b = sel(docs=["USAGE.md", "references/api.md", "notes.txt"])
    assert a == b


def test_select_docs_errors(reg: Registry) -> None:
    kit = Toolkit(reg)
    res = kit.call("skill_select_docs", {"skill": "demo", "docs": ["missing.md"]})
    assert res.is_error
    assert json.loads(res.content)["error"].startswith(
        "unknown doc for skill 'demo': missing.md (available: "
    )
    res = kit.call("skill_select_docs", {"skill": "demo", "mode": "merge"})
    assert (
        res.is_error
        and "field 'mode' must be one of: add, replace, clear" in json.loads(res.content)["error"]
    )
    res = kit.call("skill_select_docs", {"skill": "nope"})
    assert res.is_error and json.loads(res.content)["error"].startswith("unknown skill: nope")
    res = kit.call("skill_list_docs", {"skill": "SKILL.md"})
    assert res.is_error


def test_enum_of_names_follows_registry(tmp_path: Path, make_skill: Any) -> None:
    r = tmp_path / "s"
    make_skill(r, "one", "First")
    reg = Registry.from_roots([r])
    kit = Toolkit(reg)
    enum = kit.get("skill_load").parameters["properties"]["skill"]["enum"]  # type: ignore[union-attr]
    assert enum == ["one"]
    make_skill(r, "two", "Second")
    reg.reload()
    enum = kit.get("skill_load").parameters["properties"]["skill"]["enum"]  # type: ignore[union-attr]
    assert enum == ["one", "two"]
    assert kit.call("skill_load", {"skill": "two"}).content == "loaded: two"


def test_body_edits_show_on_next_render(tmp_path: Path, make_skill: Any) -> None:
    r = tmp_path / "s"
    d = make_skill(r, "live", "Live skill", body="old body\n", files={"a.md": "A"})
    reg = Registry.from_roots([r])
    kit = Toolkit(reg)
    kit.call("skill_load", {"skill": "live", "docs": ["a.md"]})
    assert "old body" in kit.system_message()
    (d / "a.md").unlink()
    text = kit.system_message()
    assert "Docs loaded: none" in text  # a doc that disappeared is simply dropped
