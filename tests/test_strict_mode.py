"""OpenAI strict mode: every exported schema obeys the subset, and strict-shape calls dispatch like loose ones.

The checker below is written from the published rules of strict function
calling (root an object, every property required, `additionalProperties:
false` on every object, a closed list of keywords and formats, enum and nesting
limits), not from skillyard's converter, so the two can disagree.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.config import Config, ExecutionSettings
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit
from skillyard.tools.strict import strict_schema

# ---------------------------------------------------------------- the rules, as a checker

_TYPES = {"string", "number", "boolean", "integer", "object", "array", "null"}
_COMMON = {"description", "title", "$defs", "$ref"}
_BY_TYPE = {
    "string": {"type", "enum", "pattern", "format"},
    "number": {"type", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
    "integer": {"type", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
    "boolean": {"type", "enum"},
    "null": {"type", "enum"},
    "array": {"type", "items", "minItems", "maxItems"},
    "object": {"type", "properties", "required", "additionalProperties"},
}
_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
MAX_DEPTH = 5  # the stricter of the two published nesting limits


def strict_problems(schema: Any) -> list[str]:
    """Every way `schema` breaks OpenAI's strict-mode rules (empty when it obeys them)."""
    problems: list[str] = []
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        return ["root: must be an object schema, not anyOf"]
    enum_values = 0

    def walk(s: Any, where: str, depth: int) -> None:
        nonlocal enum_values
        if not isinstance(s, dict):
            problems.append(f"{where}: not a schema")
            return
        if "anyOf" in s:
            extra = set(s) - {"anyOf", "description", "title"}
            if extra:
                problems.append(f"{where}: anyOf beside {sorted(extra)}")
            if not isinstance(s["anyOf"], list) or not s["anyOf"]:
                problems.append(f"{where}: empty anyOf")
                return
            for i, branch in enumerate(s["anyOf"]):
                walk(branch, f"{where}.anyOf[{i}]", depth)
            return
        if "$ref" in s:
            return
        types = s.get("type")
        if types is None:
            problems.append(f"{where}: no type")
            return
        tlist = types if isinstance(types, list) else [types]
        if not tlist or not set(tlist) <= _TYPES:
            problems.append(f"{where}: unsupported type {types!r}")
            return
        allowed = set(_COMMON)
        for t in tlist:
            allowed |= _BY_TYPE[t]
        for key in s:
            if key not in allowed:
                problems.append(f"{where}: keyword {key!r} is not in the strict subset")
        if "format" in s and s["format"] not in _FORMATS:
            problems.append(f"{where}: format {s['format']!r} is not supported")
        if "enum" in s:
            values = s["enum"]
            enum_values += len(values)
            if "null" in tlist and None not in values:
                problems.append(f"{where}: nullable but its enum leaves null out")
            strings = [v for v in values if isinstance(v, str)]
            if len(values) > 250 and sum(map(len, strings)) > 15_000:
                problems.append(f"{where}: enum of {len(values)} values over 15,000 characters")
        if "object" in tlist:
            if depth > MAX_DEPTH:
                problems.append(f"{where}: nested {depth} objects deep")
            if s.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties must be false")
            props = s.get("properties")
            if not isinstance(props, dict):
                problems.append(f"{where}: object without properties")
                props = {}
            if sorted(s.get("required", [])) != sorted(props):
                missing = sorted(set(props) - set(s.get("required", [])))
                problems.append(f"{where}: properties not all required: {missing}")
            for name, sub in props.items():
                walk(sub, f"{where}.{name}", depth + 1)
        if "array" in tlist:
            if not isinstance(s.get("items"), dict):
                problems.append(f"{where}: array without an items schema")
            else:
                walk(s["items"], f"{where}[]", depth)

    walk(schema, "$", 1)
    if enum_values > 1000:
        problems.append(f"$: {enum_values} enum values in all (at most 1000)")
    return problems


def test_the_checker_knows_the_rules() -> None:
    ok = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert strict_problems(ok) == []
    assert strict_problems({**ok, "required": ["a"]})
    assert strict_problems({**ok, "additionalProperties": True})
    assert strict_problems(
        {**ok, "properties": {**ok["properties"], "a": {"type": "string", "maxLength": 3}}}
    )
    assert strict_problems(
        {**ok, "properties": {**ok["properties"], "a": {"type": "string", "default": "x"}}}
    )
    assert strict_problems({"anyOf": [ok]})
    assert strict_problems(
        {**ok, "properties": {**ok["properties"], "a": {"type": ["string", "null"], "enum": ["x"]}}}
    )


# ---------------------------------------------------------------- a registry with every kind of tool

TOML = """
[skill]
name = "ops"
description = "Ops helpers for files"

[[tools]]
name = "find_lines"
description = "Find lines in a file"
command = "grep -n -- {pattern} {file}"
[tools.args]
pattern = { description = "Text to look for", type = "string", allow_dash = true }
file = { description = "File", type = "string", enum = ["data/a.txt", "data/b.txt"] }

[[tools]]
name = "head_lines"
description = "First lines of a file"
command = "head -n {count} {file} {extra}"
[tools.args]
count = { description = "How many lines", type = "integer", default = 2 }
file = { description = "File", type = "string", default = "data/a.txt" }
extra = { description = "More files", type = "array", required = false }

[[tools]]
name = "flagged"
description = "A boolean and a number"
command = "echo {on} {ratio}"
[tools.args]
on = { description = "Switch", type = "boolean", required = false }
ratio = { description = "Ratio", type = "number", required = false }
"""


@pytest.fixture
def kit(tmp_path: Path, make_skill: Any) -> Toolkit:
    r = tmp_path / "skills"
    make_skill(
        r,
        "alpha",
        "Alpha writes reports",
        files={"USAGE.md": "usage\n", "references/api.md": "api\n", "scripts/hi.sh": "echo hi $1\n"},
    )
    make_skill(r, "beta", "Beta does maths")
    (r / "ops" / "data").mkdir(parents=True)
    (r / "ops" / "SKILL.toml").write_text(TOML, encoding="utf-8")
    (r / "ops" / "data" / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (r / "ops" / "data" / "b.txt").write_text("-x\ny\n", encoding="utf-8")
    config = Config(execution=ExecutionSettings(executor="local", timeout=20))
    with Toolkit(Registry.from_roots([r], config)) as k:
        yield k


def _params(kit: Toolkit, provider: str, strict: bool) -> dict[str, dict[str, Any]]:
    out = {}
    for t in kit.export(provider, strict=strict):
        fn = t.get("function", t)
        out[fn["name"]] = fn["parameters"]
    return out


def test_loose_exports_break_the_rules(kit: Toolkit) -> None:
    """The reason strict exports exist: the tools' own schemas are not in the subset."""
    broken = [name for name, s in _params(kit, "openai", False).items() if strict_problems(s)]
    assert {"skills", "skill_run", "skill_load", "skill", "head_lines"} <= set(broken)


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_every_strict_export_obeys_the_rules(kit: Toolkit, provider: str) -> None:
    exported = kit.export(provider, strict=True)
    assert len(exported) == len(kit.names()) >= 10
    for tool in exported:
        fn = tool["function"] if provider == "openai" else tool
        assert fn["strict"] is True
        assert strict_problems(fn["parameters"]) == [], fn["name"]
        jsonschema.Draft202012Validator.check_schema(fn["parameters"])
    assert all(t["type"] == "function" for t in exported)
    if provider == "openai":
        assert all(set(t["function"]) == {"name", "description", "parameters", "strict"} for t in exported)
    else:
        assert all(set(t) == {"type", "name", "description", "parameters", "strict"} for t in exported)


def test_openai_sdk_types_accept_strict_exports(kit: Toolkit) -> None:
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.responses import FunctionToolParam
    from pydantic import TypeAdapter

    chat = TypeAdapter(ChatCompletionToolParam)
    for tool in kit.export("openai", strict=True):
        chat.validate_python(tool)
    responses = TypeAdapter(FunctionToolParam)
    for tool in kit.export("openai-responses", strict=True):
        responses.validate_python(tool)


def test_strict_details(kit: Toolkit) -> None:
    p = _params(kit, "openai", True)
    env = p["skill_run"]["properties"]["env"]
    pair_list = env["anyOf"][0]
    assert pair_list["type"] == "array" and pair_list["items"]["required"] == ["name", "value"]
    assert p["skill_run"]["properties"]["skill"]["enum"] == ["alpha", "beta", "ops"]
    assert p["skill"]["properties"]["skill"]["enum"] == ["alpha", "beta", "ops"]
    assert "default: 2" in p["head_lines"]["properties"]["count"]["description"]
    assert p["skills"]["properties"]["skill"]["type"] == ["string", "null"]
    assert p["skill_run"]["properties"]["command"] == {
        "type": "string",
        "description": "Shell command, run with `bash -c` at the skill root.",
    }


def test_strict_is_for_openai_only(kit: Toolkit) -> None:
    for provider in ("anthropic", "gemini", "mcp"):
        with pytest.raises(ValueError, match="strict mode is only for"):
            kit.export(provider, strict=True)


def test_schemas_are_left_alone(kit: Toolkit) -> None:
    before = json.dumps([d.parameters for d in kit.definitions()], sort_keys=True)
    kit.export("openai", strict=True)
    assert json.dumps([d.parameters for d in kit.definitions()], sort_keys=True) == before


def test_converter_limits_and_odd_keywords() -> None:
    names = [f"name-{i:03d}-" + "x" * 60 for i in range(256)]
    schema = {
        "type": "object",
        "properties": {
            "big": {"type": "string", "enum": names},
            "fixed": {"type": "string", "const": "x", "format": "uri", "minLength": 1},
            "when": {"type": "string", "format": "date-time"},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Counts"},
            "pat": {"type": "object", "patternProperties": {"^a": {"type": "string"}}},
            "nested": {"type": "object", "properties": {"x": {"type": "integer", "default": 3}}},
        },
        "required": ["big"],
    }
    out = strict_schema(schema)
    assert "enum" not in out["properties"]["big"]  # 256 values, 17k characters: over the limit
    assert out["properties"]["fixed"] == {"type": ["string", "null"]}
    assert out["properties"]["when"]["format"] == "date-time"
    counts = out["properties"]["map"]["anyOf"][0]
    assert counts["items"]["properties"]["value"] == {"type": "integer"}
    assert "{name, value}" in out["properties"]["map"]["description"]
    assert [b["type"] for b in out["properties"]["either"]["anyOf"]] == ["string", "integer", "null"]
    assert out["properties"]["pat"]["anyOf"][0]["items"]["required"] == ["name", "value"]
    nested = out["properties"]["nested"]["anyOf"][0]
    assert nested["required"] == ["x"] and nested["properties"]["x"]["type"] == ["integer", "null"]
    assert strict_problems(out) == []


# ---------------------------------------------------------------- strict-shape calls dispatch like loose ones


def to_strict(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A loose call as a strict-mode model sends it: every field present, open maps as pair lists."""
    out: dict[str, Any] = {}
    for name, sub in schema.get("properties", {}).items():
        value = args.get(name)
        if isinstance(value, dict) and sub.get("type") == "object" and not sub.get("properties"):
            value = [{"name": k, "value": v} for k, v in value.items()]
        elif isinstance(value, dict) and sub.get("properties"):
            value = to_strict(sub, value)
        elif (
            isinstance(value, list) and isinstance(sub.get("items"), dict) and sub["items"].get("properties")
        ):
            value = [to_strict(sub["items"], v) for v in value]
        out[name] = value
    return out


def _stable(content: str) -> Any:
    """A result with the fields that differ between two identical runs taken out."""
    try:
        data = json.loads(content)
    except ValueError:
        return content
    if isinstance(data, dict):
        for key in ("duration_ms", "run_dir"):
            data.pop(key, None)
    return data


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("skills", {"action": "list"}),
    ("skills", {"action": "list", "filter": "eligible", "verbose": True}),
    ("skills", {"action": "info", "skill": "alpha"}),
    ("skills", {"action": "check", "skill": "nope"}),
    ("skills", {"action": "search", "query": "reports", "limit": 2}),
    ("skills", {"action": "info"}),
    ("skill_load", {"skill": "alpha"}),
    ("skill_load", {"skill": "alpha", "docs": ["USAGE.md"]}),
    ("skill_load", {"skill": "alpha", "include_all_docs": True}),
    ("skill_select_docs", {"skill": "alpha", "docs": ["references/api.md"], "mode": "add"}),
    ("skill_select_docs", {"skill": "alpha", "mode": "clear"}),
    ("skill_select_docs", {"skill": "alpha", "docs": ["missing.md"]}),
    ("skill_list_docs", {"skill": "alpha"}),
    ("read_skill", {"skill_name": "beta"}),
    ("skill", {"skill": "alpha"}),
    ("skill", {"skill": "alpha", "args": "one two"}),
    ("skill", {"skill": "alpah"}),
    ("skill_run", {"skill": "alpha", "command": "bash scripts/hi.sh there; echo $GREETING"}),
    (
        "skill_run",
        {
            "skill": "alpha",
            "command": 'echo "$GREETING $OTHER" > out/g.txt; echo done',
            "env": {"GREETING": "hello", "OTHER": "world"},
            "output_files": ["out/*.txt"],
            "timeout": 10,
        },
    ),
    (
        "skill_run",
        {
            "skill": "alpha",
            "command": "mkdir -p out/r && echo x > out/r/a.txt",
            "outputs": {"globs": ["out/r/*.txt"], "inline": True, "max_files": 5},
        },
    ),
    ("skill_run", {"skill": "alpha", "command": "echo $A", "env": {"1BAD": "x"}}),
    ("find_lines", {"pattern": "-x", "file": "data/b.txt"}),
    ("head_lines", {}),
    ("head_lines", {"count": 1, "file": "data/b.txt", "extra": ["data/a.txt"]}),
    ("flagged", {"on": True}),
    ("flagged", {"ratio": 0.5}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t}-{i}" for i, (t, _a) in enumerate(CALLS)])
def test_strict_shape_dispatches_like_loose(kit: Toolkit, tool: str, args: dict[str, Any]) -> None:
    strict = _params(kit, "openai", True)[tool]
    loose_def = kit.get(tool)
    assert loose_def is not None
    strict_args = to_strict(loose_def.parameters, args)
    if jsonschema.Draft202012Validator(loose_def.parameters).is_valid(args):
        jsonschema.validate(strict_args, strict)  # a call a strict-mode model can produce
    loose_session, strict_session = Session(), Session()
    a = kit.call(tool, args, session=loose_session)
    b = kit.call(tool, json.dumps(strict_args), session=strict_session)
    assert (_stable(a.content), a.is_error) == (_stable(b.content), b.is_error)
    assert loose_session.loaded == strict_session.loaded


def test_env_pairs_reach_the_command(kit: Toolkit) -> None:
    res = kit.call(
        "skill_run",
        {
            "skill": "alpha",
            "command": "echo $A-$B",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        },
    )
    assert json.loads(res.content)["stdout"] == "1-2\n"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ([{"name": "A"}], "list of {name, value} objects (item 0 is not)"),
        ([{"name": "A", "value": "1", "extra": 1}], "item 0 is not"),
        (["A=1"], "item 0 is not"),
        ([{"name": 3, "value": "1"}], "item 0 is not"),
        ([{"name": "A", "value": "1"}, {"name": "A", "value": "2"}], "names 'A' twice"),
        ([{"name": "A", "value": None}], "field 'env.A' must be a string, got null"),
    ],
)
def test_bad_pair_lists_are_clear_errors(kit: Toolkit, env: Any, message: str) -> None:
    res = kit.call("skill_run", {"skill": "alpha", "command": "true", "env": env})
    assert res.is_error and message in res.content


def test_null_for_a_required_field_is_still_an_error(kit: Toolkit) -> None:
    res = kit.call("skill_load", {"skill": None, "docs": None, "include_all_docs": None})
    assert res.is_error and "field 'skill' must be a string, got null" in res.content
    res = kit.call("find_lines", {"pattern": None, "file": "data/a.txt"})
    assert res.is_error and "must not be null" in res.content


# ---------------------------------------------------------------- hostile strict-shape arguments never crash


def _strategy(schema: dict[str, Any], names: list[str]) -> st.SearchStrategy[Any]:
    """Values of a strict schema, plus the odd wrong-typed one a broken model might send."""
    if "anyOf" in schema:
        return st.one_of([_strategy(b, names) for b in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    t = schema.get("type")
    if isinstance(t, list):
        return st.one_of([_strategy({**schema, "type": x}, names) for x in t])
    if t == "null":
        return st.none()
    if t == "boolean":
        return st.booleans()
    if t == "integer":
        return st.integers(min_value=-(2**40), max_value=2**40)
    if t == "number":
        return st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9)
    if t == "string":
        return st.one_of(
            st.text(max_size=30), st.sampled_from([*names, "", "../x", "-rf", "out/*.txt", "a\x00b"])
        )
    if t == "array":
        return st.lists(_strategy(schema["items"], names), max_size=3)
    if t == "object":
        return st.fixed_dictionaries({k: _strategy(v, names) for k, v in schema["properties"].items()})
    return st.nothing()


@pytest.fixture
def hostile(tmp_path_factory: pytest.TempPathFactory, make_skill: Any) -> Toolkit:
    r = tmp_path_factory.mktemp("hostile") / "skills"
    make_skill(r, "alpha", "Alpha", files={"USAGE.md": "u\n"})
    (r / "ops" / "data").mkdir(parents=True)
    (r / "ops" / "SKILL.toml").write_text(TOML, encoding="utf-8")
    (r / "ops" / "data" / "a.txt").write_text("a\n", encoding="utf-8")
    config = Config(execution=ExecutionSettings(executor="local", timeout=5))
    with Toolkit(Registry.from_roots([r], config)) as k:
        yield k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_strict_shape_arguments_never_crash(hostile: Toolkit, data: st.DataObject) -> None:
    exported = {
        t["function"]["name"]: t["function"]["parameters"] for t in hostile.export("openai", strict=True)
    }
    name = data.draw(st.sampled_from(sorted(exported)))
    schema = exported[name]
    if name == "skill_run":  # hostile arguments, benign commands: the shape is under test, not bash
        schema = {
            **schema,
            "properties": {**schema["properties"], "command": {"enum": ["true", "echo hi", "exit 3"]}},
        }
    if name == "skills":  # no installs or config writes from random data
        schema = {
            **schema,
            "properties": {**schema["properties"], "action": {"enum": ["list", "info", "check", "search"]}},
        }
    args = data.draw(_strategy(schema, ["alpha", "ops", "USAGE.md"]))
    as_text = data.draw(st.booleans())
    result = hostile.call(name, json.dumps(args) if as_text else args)
    assert isinstance(result.content, str) and isinstance(result.is_error, bool)
    assert f"tool '{name}' failed" not in result.content, result.content


# ---------------------------------------------------------------- a real client: the Agents SDK's own strictness check


def test_agents_sdk_takes_the_strict_schemas_unchanged(kit: Toolkit) -> None:
    strict_mod = pytest.importorskip("agents.strict_schema", reason="openai-agents is not installed")
    for name, schema in _params(kit, "openai", True).items():
        assert strict_mod.ensure_strict_json_schema(json.loads(json.dumps(schema))) == schema, name


def test_cli_strict_flag(tmp_path: Path, make_skill: Any) -> None:
    from click.testing import CliRunner

    from skillyard.cli import cli

    r = tmp_path / "skills"
    make_skill(r, "alpha", "Alpha")
    runner = CliRunner()
    res = runner.invoke(cli, ["--root", str(r), "tools", "--provider", "openai", "--strict"])
    assert res.exit_code == 0, res.output
    tools = json.loads(res.output)
    assert all(
        t["function"]["strict"] is True and not strict_problems(t["function"]["parameters"]) for t in tools
    )
    res = runner.invoke(cli, ["--root", str(r), "tools", "--provider", "gemini", "--strict"])
    assert res.exit_code == 2 and "strict mode is only for" in res.output


def test_strict_rules_in_words() -> None:
    """The docs name the shape a strict call uses for env; keep the two in step."""
    doc = (Path(__file__).parents[1] / "docs" / "tools.md").read_text(encoding="utf-8")
    assert "--strict" in doc and "{name, value}" in textwrap.dedent(doc)


def test_strict_shape_through_the_mcp_server(kit: Toolkit) -> None:
    """An MCP client sending strict-shape arguments (nulls, env pairs) is answered like any other."""
    import anyio
    from mcp import Client

    from skillyard.mcp import build_server

    async def main() -> list[tuple[bool, str]]:
        out = []
        async with Client(build_server(kit.registry)) as client:
            for name, args in (
                ("skill_load", {"skill": "alpha", "docs": None, "include_all_docs": None}),
                (
                    "skill_run",
                    {
                        "skill": "alpha",
                        "command": "echo $A",
                        "env": [{"name": "A", "value": "z"}],
                        "cwd": None,
                    },
                ),
                ("head_lines", {"count": None, "file": None, "extra": None}),
            ):
                res = await client.call_tool(name, args)
                out.append((res.is_error, res.content[0].text))
        return out

    (load_err, load), (run_err, run), (head_err, head) = anyio.run(main)
    assert not load_err and "[Loaded] alpha" in load
    assert not run_err and json.loads(run)["stdout"] == "z\n"
    assert not head_err and head.startswith("one\ntwo\n")
