"""The dispatcher: tool selection, argument decoding, validation, and never raising on any input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.registry import Registry
from skillyard.schema_check import compile_schema
from skillyard.session import Session
from skillyard.tools import BUILTIN_TOOLS, Toolkit, ToolResult


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Toolkit:
    r = tmp_path_factory.mktemp("skills")
    d = r / "demo"
    d.mkdir()
    (d / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo skill\n---\nBody $ARGUMENTS\n", encoding="utf-8"
    )
    (d / "USAGE.md").write_text("usage", encoding="utf-8")
    return Toolkit(Registry.from_roots([r]), tools=[t for t in BUILTIN_TOOLS if t != "skill_run"])


def test_selection(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown tool: 'nope'"):
        Toolkit(Registry.from_roots([tmp_path]), tools=["nope"])
    with pytest.raises(ValueError, match="unknown load_mode"):
        Toolkit(Registry.from_roots([tmp_path]), load_mode="magic")
    kit = Toolkit(Registry.from_roots([tmp_path]), tools=["skill", "skills", "skill"])
    assert kit.names() == ["skills", "skill"]  # export order is fixed, duplicates dropped
    assert Toolkit(Registry.from_roots([tmp_path])).names() == list(BUILTIN_TOOLS)


def test_empty_registry_schemas_have_no_empty_enum(tmp_path: Path) -> None:
    kit = Toolkit(Registry.from_roots([tmp_path]))
    for d in kit.definitions():
        for prop in d.parameters["properties"].values():
            assert prop.get("enum", ["x"]) != []
    res = kit.call("read_skill", {"skill_name": "anything"})
    assert res.is_error and res.content == "Error: Skill 'anything' not found."


def test_arguments_as_json_text_bytes_none(kit: Toolkit) -> None:
    a = kit.call("skill_list_docs", '{"skill": "demo"}')
    b = kit.call("skill_list_docs", b'{"skill": "demo"}')
    c = kit.call("skill_list_docs", {"skill": "demo"})
    assert a == b == c and json.loads(a.content) == ["USAGE.md"]
    res = kit.call("skills", None)
    assert res.is_error and "missing required field 'action'" in res.content
    res = kit.call("skills", "")
    assert res.is_error and "missing required field 'action'" in res.content


def test_unknown_tool_and_bad_names(kit: Toolkit) -> None:
    for name in ("nope", "", None, 5, "x" * 10_000):
        res = kit.call(name, {})  # type: ignore[arg-type]
        assert isinstance(res, ToolResult) and res.is_error
        assert res.content.startswith("Error: unknown tool: ")
        assert len(res.content) < 400


def test_oversized_and_deep_json(kit: Toolkit) -> None:
    res = kit.call("skills", "x" * (2 * 1024 * 1024))
    assert res.is_error and "too large" in res.content
    res = kit.call("skills", "[" * 50_000 + "]" * 50_000)
    assert res.is_error
    res = kit.call("skills", json.dumps({"action": "list", "filter": "all", "verbose": False}))
    assert not res.is_error


def test_handler_exception_becomes_error_result(kit: Toolkit, monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(Exception):
        pass

    def boom(skill: Any) -> list[str]:
        raise Broken("disk on fire")

    monkeypatch.setattr("skillyard.tools.disclosure.list_docs", boom)
    res = kit.call("skill_list_docs", {"skill": "demo"})
    assert res.is_error and "Broken: disk on fire" in res.content


def test_default_session_and_explicit_session(kit: Toolkit) -> None:
    s = Session()
    kit.call("skill_load", {"skill": "demo"}, session=s)
    assert s.is_loaded("demo") and not kit.session.is_loaded("demo")


def test_validator_agrees_with_jsonschema_on_examples(kit: Toolkit) -> None:
    samples: list[Any] = [
        {},
        {"action": "list"},
        {"action": "list", "limit": 3.0},
        {"action": "list", "limit": True},
        {"skill": "demo", "docs": ["a", 1]},
        {"skill": "demo", "mode": "add"},
        {"skill": None},
        {"skill_name": "demo", "x": 1},
    ]
    for d in kit.definitions():
        strict = jsonschema.Draft202012Validator({k: v for k, v in d.parameters.items()})
        for sample in samples:
            ours = d.validate(sample)
            theirs = list(strict.iter_errors(sample))
            if d.soft_enums:  # soft enums are checked by the handler instead
                theirs = [
                    e for e in theirs if e.validator != "enum" or e.path and e.path[0] not in d.soft_enums
                ]
            assert (ours is None) == (not theirs), (d.name, sample, ours, [e.message for e in theirs])


def test_compile_schema_messages() -> None:
    check = compile_schema(
        {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 3},
                "s": {"type": "string", "maxLength": 3},
                "l": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                "o": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "additionalProperties": False,
        }
    )
    assert check({"n": 4}, "") == "field 'n' must be <= 3 (got 4)"
    assert check({"n": 1.5}, "") == "field 'n' must be an integer, got number"
    assert check({"s": "abcd"}, "") == "field 's' is too long (4 characters, at most 3)"
    assert check({"l": ["a", "b", "c"]}, "") == "field 'l' has too many items (3, at most 2)"
    assert check({"o": {"k": 1}}, "") == "field 'o.k' must be a string, got integer"
    assert check([], "") == "the arguments must be an object, got array"
    assert check({"n": 2, "s": "ab", "l": ["x"], "o": {"k": "v"}}, "") is None


def test_compile_schema_patterns_and_names() -> None:
    schema = {
        "type": "object",
        "properties": {
            "u": {"type": "string", "pattern": "^https://", "description": "an https URL"},
            "e": {"type": "object", "maxProperties": 2, "propertyNames": {"pattern": "^[A-Z]+$"}},
        },
    }
    check = compile_schema(schema)
    assert (
        check({"u": "ftp://x"}, "") == "field 'u' does not match '^https://' (an https URL) (got 'ftp://x')"
    )
    assert check({"e": {"A": 1, "B": 2, "C": 3}}, "") == "field 'e' has too many entries (3, at most 2)"
    assert check({"e": {"a": 1}}, "") == "field 'e' has an invalid name 'a' (names must match '^[A-Z]+$')"
    for good in ({"u": "https://x"}, {"e": {"AB": 1}}, {}):
        assert check(good, "") is None
    for value in (
        {"u": "ftp://x"},
        {"e": {"A": 1, "B": 2, "C": 3}},
        {"e": {"a": 1}},
        {"u": "https://x", "e": {}},
    ):
        assert (check(value, "") is None) == jsonschema.Draft202012Validator(schema).is_valid(value)


def test_a_pattern_dollar_ends_the_string_as_json_schema_says() -> None:
    # JSON Schema patterns are ECMA-262 regexes, where `$` ends the string; Python's `$` (and so the
    # jsonschema package) also matches before a final newline: an environment name "ODD\n" passed
    schema = {
        "type": "object",
        "properties": {"e": {"type": "object", "propertyNames": {"pattern": "^[A-Z_]+$"}}},
        "additionalProperties": {"type": "string", "pattern": "^[a-z$]+$"},
    }
    check = compile_schema(schema)
    assert check({"e": {"ODD\n": "1"}}, "") == (
        "field 'e' has an invalid name 'ODD\\n' (names must match '^[A-Z_]+$')"
    )
    assert check({"x": "abc\n"}, "") is not None
    validator = jsonschema.Draft202012Validator(schema)
    for value in ({"e": {"OK": "1"}}, {"e": {"ok": "1"}}, {"x": "ab$c"}, {"x": "abc"}, {"x": "ABC"}):
        assert (check(value, "") is None) == validator.is_valid(value), value


_json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=30)
)
_json = st.recursive(
    _json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def _args_for(kit: Toolkit) -> st.SearchStrategy[Any]:
    keys = sorted({k for d in kit.definitions() for k in d.parameters["properties"]} | {"bogus"})
    values = st.one_of(_json, st.sampled_from(["demo", "list", "info", "USAGE.md", "../x", "add", "/demo"]))
    objects = st.dictionaries(st.sampled_from(keys), values, max_size=5)
    return st.one_of(objects, _json, st.text(max_size=50), objects.map(json.dumps))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_arguments_never_raise(kit: Toolkit, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from([*kit.names(), "nope"]))
    args = data.draw(_args_for(kit))
    res = kit.call(name, args, session=Session())
    assert isinstance(res, ToolResult)
    assert isinstance(res.content, str) and isinstance(res.is_error, bool) and isinstance(res.display, str)
    assert set(res.to_dict()) == {"content", "is_error", "display"}


@pytest.fixture(scope="module")
def full_kit(tmp_path_factory: pytest.TempPathFactory) -> Toolkit:
    from skillyard.config import Config, ExecutionSettings

    r = tmp_path_factory.mktemp("skills-full")
    d = r / "echo-tools"
    d.mkdir()
    (d / "SKILL.toml").write_text(
        '[skill]\nname = "echo-tools"\ndescription = "Echo"\n\n[[tools]]\nname = "say"\n'
        'description = "Say {text}"\ncommand = "echo {text}"\n[tools.args]\ntext = "What to say"\n',
        encoding="utf-8",
    )
    config = Config(execution=ExecutionSettings(executor="local", timeout=10))
    return Toolkit(Registry.from_roots([r], config))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_arguments_for_run_and_toml_tools_never_raise(full_kit: Toolkit, data: st.DataObject) -> None:
    """skill_run gets everything but a usable command (nothing random is executed); `say` runs echo."""
    name = data.draw(st.sampled_from(["skill_run", "say"]))
    args = data.draw(_args_for(full_kit))
    if name == "skill_run" and isinstance(args, dict):
        args.pop("command", None)
    if name == "skill_run" and isinstance(args, str) and "command" in args:
        args = args.replace("command", "commandx")
    res = full_kit.call(name, args, session=Session())
    assert isinstance(res, ToolResult) and isinstance(res.content, str)
    if name == "skill_run":
        assert res.is_error
