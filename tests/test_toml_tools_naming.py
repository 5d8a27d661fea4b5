"""Tool naming: built-in collisions, cross-skill collisions, sanitising, determinism."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.model import Skill, ToolSpec
from skillyard.toml_tools import BUILTIN_TOOL_NAMES, plan_tool_names, sanitize_tool_name, tool_definition

VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def skill(name: str, *tools: str, kind: str = "shell") -> Skill:
    return Skill(
        name=name,
        description="d",
        path=Path(f"/skills/{name}/SKILL.toml"),
        format="toml",
        tools=tuple(ToolSpec(name=t, description=f"{t} tool", command="echo hi", kind=kind) for t in tools),
    )


def names(plan: dict) -> dict[str, tuple[str, str]]:
    return {n: (s.name, t.name) for n, (s, t) in plan.items()}


def test_unique_names_are_kept_without_notes() -> None:
    plan, notes = plan_tool_names([skill("a", "list_dialogs"), skill("b", "search")])
    assert names(plan) == {"list_dialogs": ("a", "list_dialogs"), "search": ("b", "search")}
    assert notes == []


def test_builtin_names_are_qualified() -> None:
    plan, notes = plan_tool_names([skill("web", "skills", "skill_run", "fetch")])
    assert set(plan) == {"web__skills", "web__skill_run", "fetch"}
    assert {n.code for n in notes} == {"tool-renamed"}
    assert any("'skills' is a built-in tool" in n.message and "'web__skills'" in n.message for n in notes)
    assert all(n.path == "/skills/web/SKILL.toml" and n.level == "warning" for n in notes)
    for builtin in BUILTIN_TOOL_NAMES:
        assert builtin not in plan_tool_names([skill("x", builtin)])[0]


def test_custom_reserved_names() -> None:
    plan, _ = plan_tool_names([skill("a", "bash")], reserved=["bash"])
    assert list(plan) == ["a__bash"]


def test_cross_skill_collision_renames_every_claimant_regardless_of_order() -> None:
    a, b, c = skill("alpha", "search"), skill("beta", "search"), skill("gamma", "other")
    plan1, notes1 = plan_tool_names([a, b, c])
    plan2, _ = plan_tool_names([b, c, a])
    assert set(plan1) == set(plan2) == {"alpha__search", "beta__search", "other"}
    assert names(plan1) == names(plan2)
    assert len(notes1) == 2
    assert "defined by more than one tool: skills alpha, beta" in notes1[0].message


def test_qualified_name_meeting_a_plain_name_gets_hashed_deterministically() -> None:
    tricky = [skill("a", "b"), skill("x", "b"), skill("c", "a__b")]
    plan, notes = plan_tool_names(tricky)
    assert len(plan) == 3 and all(VALID.fullmatch(n) for n in plan)
    assert "x__b" in plan
    assert plan_tool_names(list(reversed(tricky)))[0].keys() == plan.keys()
    assert any("the qualified name was taken too" in n.message for n in notes)


def test_duplicate_tool_names_inside_one_skill_stay_distinct() -> None:
    plan, _ = plan_tool_names([skill("a", "t", "t")])
    assert len(plan) == 2 and all(VALID.fullmatch(n) for n in plan)


def test_same_skill_object_twice_counts_once() -> None:
    s = skill("a", "t")
    assert list(plan_tool_names([s, s])[0]) == ["t"]


def test_non_shell_kinds_are_not_offered() -> None:
    plan, notes = plan_tool_names([skill("h", "fetch", kind="http")])
    assert plan == {}
    assert notes[0].code == "tool-unsupported-kind"
    assert "only shell tools are supported" in notes[0].message


def test_sanitise_and_shorten_with_stable_hash() -> None:
    assert sanitize_tool_name("ok_name-1") == "ok_name-1"
    odd = sanitize_tool_name("list dialogs.v2")
    assert odd.startswith("list_dialogs_v2_") and VALID.fullmatch(odd)
    assert odd == sanitize_tool_name("list dialogs.v2")
    assert sanitize_tool_name("a.b") != sanitize_tool_name("a b")  # different originals never meet
    long = sanitize_tool_name("x" * 100)
    assert len(long) == 64 and VALID.fullmatch(long)
    assert sanitize_tool_name("") != "" and VALID.fullmatch(sanitize_tool_name(""))
    assert VALID.fullmatch(sanitize_tool_name("\ud800\x00/../../etc"))


def test_long_skill_names_qualify_within_64() -> None:
    plan, _ = plan_tool_names([skill("s" * 60, "skills"), skill("s" * 60 + "x", "skills")])
    assert len(plan) == 2 and all(len(n) <= 64 and VALID.fullmatch(n) for n in plan)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=70),
            st.lists(st.sampled_from(["skills", "a", "b", "a__b", "x y"]), max_size=4),
        ),
        max_size=6,
    )
)
def test_any_set_of_skills_gets_unique_valid_names(entries: list[tuple[str, list[str]]]) -> None:
    skills = [skill(n, *tools) for n, tools in entries]
    plan, _ = plan_tool_names(skills)
    assert len(plan) == sum(len(t) for _, t in entries)
    assert all(VALID.fullmatch(n) and n not in BUILTIN_TOOL_NAMES for n in plan)
    assert plan_tool_names(skills)[0].keys() == plan.keys()


def test_tool_definition_names_the_skill() -> None:
    s = skill("web", "fetch")
    d = tool_definition("fetch", s, s.tools[0])
    assert d["name"] == "fetch"
    assert d["description"] == "fetch tool (skill: web)"
    assert d["parameters"]["type"] == "object"
