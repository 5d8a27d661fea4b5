"""Property tests: hostile input never escapes as an exception, and the fast path equals the YAML path."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skillyard.cache import summary_of
from skillyard.model import skill_to_row, summary_of_row
from skillyard.parsing import load_body, parse_frontmatter, parse_skill, parse_skill_row, split_frontmatter
from skillyard.parsing.frontmatter import STRING_FIELDS, _finish, _yaml_load, fast_parse
from skillyard.validate import validate_skill_dir

SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)

# ------------------------------------------------------------ fast == YAML

KEYS = st.sampled_from(
    sorted(STRING_FIELDS)
    + [
        "metadata",
        "allowed-tools",
        "always",
        "user-invocable",
        "tags",
        "x",
        "count",
        "y",
        "null",
        "on",
        "Yes",
        "NULL",
        "_k",
        "a-b",
    ]
)
PLAIN_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r")
SCALAR_WORDS = st.sampled_from(
    [
        "yes",
        "No",
        "on",
        "OFF",
        "true",
        "null",
        "~",
        "Null",
        "yEs",
        "Off",
        "NULL",
        "True",
        "nulls",
        "n",
        "Y",
        "offline",
        ".hidden",
        "-foo",
        "+0",
        "1",
        "-1",
        "+1",
        "0",
        "007",
        "0x1F",
        "0o17",
        "1_000",
        "1.5",
        "1.10",
        ".5",
        "1e3",
        "1.0e+3",
        ".inf",
        "-.Inf",
        ".NaN",
        "2024-01-02",
        "2024-01-02 10:00:00",
        "1:30",
        "=",
        "<<",
        "- x",
        "-",
        "a: b",
        "a #b",
        "a:",
        "#x",
        "@x",
        "`x`",
        "!x",
        "&x",
        "*x",
        "|",
        ">",
        "%x",
        "?x",
        ":x",
        "a,b",
        "[a]",
        "{a: 1}",
        "'q'",
        '"q"',
        "Bash(git:*) Read",
        "http://x.example/a?b=c#d",
        "🐙 ok",
        "\ufeffbom",
        "tab\there",
        "\x85nel",
        "\u2028ls",
        "é",
        "x" * 300,
    ]
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=PLAIN_CHARS, max_size=12),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(alphabet=PLAIN_CHARS, max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def values(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(SCALAR_WORDS)
    if kind == 1:
        return draw(st.text(alphabet=PLAIN_CHARS, max_size=40))
    if kind == 2:
        return '"' + draw(st.text(alphabet=PLAIN_CHARS, max_size=30)) + '"'
    if kind == 3:
        return "'" + draw(st.text(alphabet=PLAIN_CHARS, max_size=30)) + "'"
    if kind == 4:
        return json.dumps(draw(JSON_VALUES), ensure_ascii=draw(st.booleans()))
    return json.dumps(
        draw(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3)), separators=(",", ":")
    )


@st.composite
def simple_frontmatter(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 7))):
        shape = draw(st.integers(0, 9))
        if shape == 0:
            lines.append("")
        elif shape == 1:
            lines.append("# comment " + draw(st.text(alphabet=PLAIN_CHARS, max_size=10)))
        elif shape == 2:
            lines.append(f"{draw(KEYS)}:")
        else:
            lines.append(
                f"{draw(KEYS)}:{' ' * draw(st.integers(1, 2))}{draw(values())}{' ' * draw(st.integers(0, 1))}"
            )
    return "\n".join(lines)


def yaml_path(text: str) -> Any:
    data = _yaml_load(text)
    out, _ = _finish(data, "", [])
    return out


@SETTINGS
@given(simple_frontmatter())
@example('name: yes\ndescription: 1.10\nalways: yes\nx: 12\nmetadata: {"a": [1, 2.5, null, true]}')
@example('metadata: {"k": 1e5}')
@example("x: 0x1F\ny: 007")
@example("argument-hint: =\nx: <<\ny: =")
def test_fast_path_matches_yaml_path(text: str) -> None:
    fast = fast_parse(text)
    if fast is None:
        return  # the YAML path decides
    if not fast:
        assert yaml_path(text) is None  # blank/comment-only frontmatter
        return
    assert fast == yaml_path(text), text


def test_fast_path_takes_the_common_shapes() -> None:
    text = (
        "name: pdf-tools\n"
        'description: "Extract text from PDFs. Use when the user mentions PDFs."\n'
        'metadata: {"openclaw": {"emoji": "📄", "requires": {"bins": ["pdftotext"]}}}\n'
        "allowed-tools: Bash(pdftotext:*) Read\n"
        "license: Apache-2.0\n"
        "version: 1.10\n"
        "user-invocable: false\n"
    )
    fast = fast_parse(text)
    assert fast is not None
    assert fast == yaml_path(text)
    assert fast["version"] == "1.10" and fast["user-invocable"] is False


# ------------------------------------------------------------ never raises


def check_parse(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "fuzz-skill"
        d.mkdir()
        p = d / "SKILL.md"
        p.write_bytes(content)
        skill, diags = parse_skill(p)
        assert skill is not None or any(x.level == "error" for x in diags)
        row, row_diags = parse_skill_row(p)
        assert row_diags == diags and (row is None) == (skill is None)
        if skill is not None:
            assert isinstance(skill.description, str) and skill.description
            json.dumps(skill.frontmatter, allow_nan=False)
            assert isinstance(load_body(skill), str)
            # the row a scan keeps is the skill, field for field (its frontmatter packed again from
            # the dicts just read), and its summary is what a listing reads of the skill
            assert row == skill_to_row(skill)
            assert summary_of_row(row) == summary_of(skill)
        result = validate_skill_dir(d, strict=True)
        assert result.valid == (not result.errors)
        json.dumps(result.to_dict())


@SETTINGS
@given(st.binary(max_size=600))
@example(b"---\n")
@example(b"---\n---")
@example(b"\xef\xbb\xbf")
@example(b"---\r\n\r---\r")
def test_arbitrary_bytes_never_raise(content: bytes) -> None:
    check_parse(content)


YAMLISH = st.lists(
    st.sampled_from(
        [
            "---",
            "name: x",
            "description: d",
            "description: a: b",
            "  - item",
            "- item",
            "key: [1, {a: b}]",
            "{",
            "}",
            "[",
            "&a x",
            "*a",
            "!!python/object:os.system",
            "!tag",
            "|",
            ">",
            "  folded",
            "metadata:",
            "  openclaw:",
            '    requires: {"bins": ["gh"]}',
            '"unterminated',
            "'",
            "? complex",
            ": v",
            "%YAML 1.1",
            "...",
            "\t\tx: y",
            "name: yes",
            "version: 1.10",
            "description: >",
            "x: 2024-01-01",
            "allowed-tools: [Read, Bash]",
            'metadata: {"openclaw": {"install": [{"kind": "brew"}]}}',
            "a: &a [*a]",
            "\x00",
            "é: ü",
            "\ufeff",
            "\r",
        ]
    )
    | st.text(max_size=20),
    max_size=14,
)


@SETTINGS
@given(YAMLISH)
def test_yamlish_skill_files_never_raise(lines: list[str]) -> None:
    text = "\n".join(lines)
    check_parse(text.encode("utf-8", errors="surrogatepass"))
    check_parse(("---\n" + text + "\n---\nbody\n").encode("utf-8", errors="surrogatepass"))


@SETTINGS
@given(st.text(max_size=300))
def test_parse_frontmatter_and_split_never_raise(text: str) -> None:
    data, diags = parse_frontmatter(text, "p")
    assert data is None or isinstance(data, dict)
    if data is None:
        assert diags
    else:
        json.dumps(data, allow_nan=False)
    fm, body, offset = split_frontmatter(text)
    assert fm is None or isinstance(fm, str)
    assert isinstance(body, str) and offset >= 0


@SETTINGS
@given(st.binary(max_size=400))
def test_arbitrary_toml_never_raises(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "fuzz-skill"
        d.mkdir()
        p = d / "SKILL.toml"
        p.write_bytes(b'[skill]\nname = "fuzz-skill"\ndescription = "d"\n' + content)
        skill, diags = parse_skill(p)
        assert skill is not None or diags
        if skill is not None:
            assert isinstance(load_body(skill), str)
        validate_skill_dir(d, strict=True)


def test_fast_path_refuses_exactly_the_characters_yaml_does_not_print() -> None:
    """`_REFUSED` is the complement of the characters YAML reads as printable (minus tab and
    `\\n`, the line break the fast path splits on), checked over every code point."""
    import re

    from skillyard.parsing.frontmatter import _REFUSED

    printable = re.compile(
        "[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff\n]"
    )
    text = "".join(map(chr, range(0x110000)))
    refused = {m.start() for m in _REFUSED.finditer(text)}
    accepted = {m.start() for m in printable.finditer(text)}
    assert refused.isdisjoint(accepted) and len(refused) + len(accepted) == 0x110000
    assert fast_parse("name: a\tb\n") is None and fast_parse("name: a\u2028b\n") is None
    assert fast_parse("name: a\u00e9\U0001f600b\n") == {"name": "a\u00e9\U0001f600b"}
