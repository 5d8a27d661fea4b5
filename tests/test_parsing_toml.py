"""SKILL.toml (ZeroClaw) parsing: metadata, tools, argument inference, rendered body."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillyard.model import Diagnostic, Skill
from skillyard.parsing import load_body, parse_skill
from skillyard.parsing.skill_toml import infer_optional, infer_type, placeholders


def write(tmp_path: Path, text: str | bytes, name: str = "telegram") -> Path:
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    p = d / "SKILL.toml"
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def load(tmp_path: Path, text: str | bytes, name: str = "telegram") -> tuple[Skill | None, list[Diagnostic]]:
    return parse_skill(write(tmp_path, text, name))


def ok(tmp_path: Path, text: str, name: str = "telegram") -> Skill:
    s, diags = load(tmp_path, text, name)
    assert s is not None, diags
    return s


def codes(diags: list[Diagnostic]) -> set[str]:
    return {d.code for d in diags}


FULL = """
prompts = ["Prefer list_dialogs before reading", "Never post"]

[skill]
name = "telegram"
description = "Read chats"
version = "0.2.0"
author = "me"
tags = ["chat", "telegram"]

[[tools]]
name = "list_dialogs"
description = "List recent dialogs"
kind = "shell"
command = "python3 list.py --limit {limit} --query {query}"
timeout = 30
[tools.args]
limit = "Maximum number of dialogs"
query = "Search query (optional)"

[[tools]]
name = "send"
description = "Send a message"
command = "python3 send.py {chat} {text}"
[tools.args]
extra = { description = "Extra flag", type = "boolean", required = false, default = false }
text = { description = "Message text", type = "string", allow_dash = true }
chat = { description = "Chat", type = "string", enum = ["a", "b"] }
"""


def test_full_manifest(tmp_path: Path) -> None:
    s = ok(tmp_path, FULL)
    assert (s.name, s.description, s.format, s.version, s.author) == (
        "telegram",
        "Read chats",
        "toml",
        "0.2.0",
        "me",
    )
    assert s.tags == ("chat", "telegram")
    assert s.prompts == ("Prefer list_dialogs before reading", "Never post")
    assert [t.name for t in s.tools] == ["list_dialogs", "send"]
    t = s.tools[0]
    assert t.kind == "shell" and t.timeout == 30.0
    assert [a.name for a in t.args] == ["limit", "query"]
    limit, query = t.args
    assert (limit.type, limit.required, limit.inferred) == ("integer", True, True)
    assert (query.type, query.required) == ("string", False)
    assert s.frontmatter["name"] == "telegram"


def test_arg_order_placeholders_first_then_declared(tmp_path: Path) -> None:
    send = ok(tmp_path, FULL).tools[1]
    assert [a.name for a in send.args] == ["chat", "text", "extra"]
    chat, text, extra = send.args
    assert chat.enum == ("a", "b") and chat.inferred is False and chat.required is True
    assert text.allow_dash is True
    assert (extra.type, extra.required, extra.default) == ("boolean", False, False)


def test_undeclared_placeholder_becomes_required_string(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        '[skill]\nname = "telegram"\ndescription = "d"\n[[tools]]\nname = "t"\ndescription = "x"\n'
        'command = "echo {a} {b} {a} {{c}} {1x} {_ok}"\n',
    )
    args = s.tools[0].args
    assert [a.name for a in args] == ["a", "b", "c", "_ok"]
    assert all(a.type == "string" and a.required for a in args)
    assert args[0].description == "Parameter: a"


def test_placeholders_function() -> None:
    assert placeholders("x {a} {b} {a} {9} {a-b} {A_1}") == ["a", "b", "A_1"]


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Maximum number of dialogs", "integer"),
        ("Number of results", "integer"),
        ("Result limit", "integer"),
        ("Minimum size", "integer"),
        ("Item count", "integer"),
        ("Count of things", "integer"),
        ("Account name", "string"),  # "count" inside a word is not the word count
        ("Phone number", "string"),  # "number" alone is not "number of"
        ("Enable verbose output", "boolean"),
        ("Set to true to recurse", "boolean"),
        ("A flag", "boolean"),
        ("Disable cache", "boolean"),
        ("Enabled features list", "string"),  # whole words only
        ("Flagship product", "string"),
        ("Search query", "string"),
        ("", "string"),
    ],
)
def test_type_inference(description: str, expected: str) -> None:
    assert infer_type(description) == expected


@pytest.mark.parametrize(
    ("description", "optional"),
    [
        ("Query (optional)", True),
        ("Limit, default: 10", True),
        ("Limit (Default 10)", True),
        ("Query (OPTIONAL)", True),
        ("Query", False),
        ("defaults", False),
    ],
)
def test_optional_inference(description: str, optional: bool) -> None:
    assert infer_optional(description) is optional


def test_table_arg_required_defaults(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        '[skill]\nname = "telegram"\ndescription = "d"\n[[tools]]\nname = "t"\ndescription = "x"\n'
        'command = "run {a} {b}"\n[tools.args]\na = { type = "integer" }\nb = { type = "number", default = 1.5 }\n',
    )
    a, b = s.tools[0].args
    assert (a.type, a.required, a.inferred) == ("integer", True, False)
    assert (b.type, b.required, b.default) == ("number", False, 1.5)


def test_bad_arg_shapes_warn(tmp_path: Path) -> None:
    s, diags = load(
        tmp_path,
        '[skill]\nname = "telegram"\ndescription = "d"\n[[tools]]\nname = "t"\ndescription = "x"\n'
        'command = "run {a}"\n[tools.args]\na = { type = "float", required = "yes", enum = "x", allow_dash = 1, '
        'bogus = 1 }\nb = 5\n"bad-name" = "x"\n',
    )
    assert s is not None
    a = s.tools[0].args[0]
    assert (a.type, a.required, a.enum, a.allow_dash) == ("string", True, None, False)
    assert [x.name for x in s.tools[0].args] == ["a"]
    msgs = " ".join(d.message for d in diags if d.code == "toml-bad-tool")
    for part in ("unknown type", "`required`", "`enum`", "`allow_dash`", "'bogus'", "'b'", "'bad-name'"):
        assert part in msgs


def test_bad_tools_are_dropped(tmp_path: Path) -> None:
    s, diags = load(
        tmp_path,
        '[skill]\nname = "telegram"\ndescription = "d"\n'
        '[[tools]]\nname = "no command"\ncommand = "x"\n'
        '[[tools]]\nname = "nocmd"\n'
        '[[tools]]\nname = "dup"\ncommand = "a"\n'
        '[[tools]]\nname = "dup"\ncommand = "b"\n'
        '[[tools]]\nname = "odd"\ncommand = "b"\nkind = 5\ntimeout = -1\nargs = 3\nextra = 1\ndescription = 7\n',
    )
    assert s is not None
    assert [t.name for t in s.tools] == ["dup", "odd"]
    odd = s.tools[1]
    assert odd.kind == "shell" and odd.timeout is None and odd.args == () and odd.description == "7"
    assert sum(d.code == "toml-bad-tool" for d in diags) >= 7


def test_tools_not_a_list(tmp_path: Path) -> None:
    s, diags = load(tmp_path, 'tools = "x"\nprompts = 3\n[skill]\nname = "telegram"\ndescription = "d"\n')
    assert s is not None and s.tools == () and s.prompts == ()
    assert {"toml-bad-tool", "toml-bad-prompts"} <= codes(diags)


def test_kind_is_kept_for_the_runner(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        '[skill]\nname = "telegram"\ndescription = "d"\n[[tools]]\nname = "h"\nkind = "HTTP"\ncommand = "u"\n',
    )
    assert s.tools[0].kind == "http"


def test_invalid_toml(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "[skill\nname = 1")
    assert s is None and "toml-invalid" in codes(diags)
    assert next(d for d in diags if d.code == "toml-invalid").line == 1


def test_missing_skill_table(tmp_path: Path) -> None:
    s, diags = load(tmp_path, 'prompts = ["x"]\n')
    assert s is None and "toml-missing-skill" in codes(diags)


def test_missing_description(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '[skill]\nname = "telegram"\n')
    assert s is None and "missing-description" in codes(diags)


def test_missing_name_uses_directory(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '[skill]\ndescription = "d"\n', name="dir-x")
    assert s is not None and s.name == "dir-x" and "missing-name" in codes(diags)


def test_name_mismatch_warns(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '[skill]\nname = "other"\ndescription = "d"\n', name="dir-x")
    assert s is not None and s.name == "other" and "name-mismatch" in codes(diags)


def test_non_string_fields(tmp_path: Path) -> None:
    s = ok(tmp_path, '[skill]\nname = "telegram"\ndescription = "d"\nversion = 1.5\ntags = ["a", 3, " "]\n')
    assert s.version == "1.5" and s.tags == ("a",)


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"", "empty-file"), (b"\x00\x01", "binary-file"), (b'[skill]\nname = "\xff"\n', "invalid-utf8")],
)
def test_unreadable_content(tmp_path: Path, content: bytes, code: str) -> None:
    s, diags = load(tmp_path, content)
    assert s is None and code in codes(diags)


def test_bom_and_crlf(tmp_path: Path) -> None:
    s = ok(tmp_path, '\ufeff[skill]\r\nname = "telegram"\r\ndescription = "d"\r\n')
    assert s.description == "d"


def test_dates_in_skill_table_are_json_compatible(tmp_path: Path) -> None:
    s = ok(tmp_path, '[skill]\nname = "telegram"\ndescription = "d"\nreleased = 2024-01-02\n')
    assert s.frontmatter["released"] == "2024-01-02"


def test_rendered_body(tmp_path: Path) -> None:
    s = ok(tmp_path, FULL)
    body = load_body(s)
    assert body.startswith("Read chats\n")
    assert body.index("Prefer list_dialogs") < body.index("## Tools")
    assert "- `list_dialogs`: List recent dialogs" in body
    assert "  - `limit` (integer, required): Maximum number of dialogs" in body
    assert "  - `query` (string, optional): Search query (optional)" in body
    assert load_body(s) == body


def test_body_without_tools_or_prompts(tmp_path: Path) -> None:
    s = ok(tmp_path, '[skill]\nname = "telegram"\ndescription = "Just this"\n')
    assert load_body(s) == "Just this\n"


def test_oversized_toml(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '[skill]\nname = "t"\ndescription = "d"\n#' + "x" * (1024 * 1024 + 10))
    assert s is None and "file-too-large" in codes(diags)


def test_deeply_nested_toml_never_raises(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '[skill]\nname = "t"\ndescription = "d"\nx = ' + "[" * 5000 + "]" * 5000 + "\n")
    assert s is not None or diags


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.timeout(20)
def test_fifo_does_not_hang(tmp_path: Path) -> None:
    d = tmp_path / "fifo-skill"
    d.mkdir()
    os.mkfifo(d / "SKILL.toml")
    s, diags = parse_skill(d / "SKILL.toml")
    assert s is None and "not-a-file" in codes(diags)
