"""SKILL.md parsing: every dialect and every edge case the format has in the wild."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillyard.model import Diagnostic, Skill
from skillyard.parsing import find_skill_file, load_body, parse_frontmatter, parse_skill, split_frontmatter
from skillyard.parsing.text import CHUNK, MAX_FRONTMATTER
from skillyard.skill_files import list_docs


def write(tmp_path: Path, content: str | bytes, name: str = "my-skill", filename: str = "SKILL.md") -> Path:
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    p = d / filename
    if isinstance(content, str):
        p.write_bytes(content.encode("utf-8"))
    else:
        p.write_bytes(content)
    return p


def load(
    tmp_path: Path, content: str | bytes, name: str = "my-skill"
) -> tuple[Skill | None, list[Diagnostic]]:
    return parse_skill(write(tmp_path, content, name))


def ok(tmp_path: Path, content: str | bytes, name: str = "my-skill") -> Skill:
    skill, diags = load(tmp_path, content, name)
    assert skill is not None, diags
    return skill


def codes(diags: list[Diagnostic]) -> set[str]:
    return {d.code for d in diags}


# ------------------------------------------------------------------ basics


def test_minimal_skill(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\nname: my-skill\ndescription: Does things\n---\n# Title\n\nBody\n")
    assert (s.name, s.description, s.format, s.source) == ("my-skill", "Does things", "md", "custom")
    assert s.path.is_absolute() and s.path.name == "SKILL.md"
    assert load_body(s) == "# Title\n\nBody\n"
    assert s.frontmatter == {"name": "my-skill", "description": "Does things"}


def test_source_label_and_stat_fields(tmp_path: Path) -> None:
    p = write(tmp_path, "---\nname: my-skill\ndescription: d\n---\nbody\n")
    s, _ = parse_skill(p, source="project")
    assert s is not None and s.source == "project"
    st = os.stat(p)
    assert s.mtime_ns == st.st_mtime_ns and s.size == st.st_size


def test_relative_path_becomes_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "---\nname: my-skill\ndescription: d\n---\nbody\n")
    monkeypatch.chdir(tmp_path)
    s, _ = parse_skill(Path("my-skill/SKILL.md"))
    assert s is not None and s.path == tmp_path / "my-skill" / "SKILL.md"


def test_name_defaults_to_directory(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\n---\nbody\n", name="dir-name")
    assert s is not None and s.name == "dir-name"
    assert not [d for d in diags if d.level == "error"]


def test_name_mismatch_is_a_warning_and_frontmatter_name_wins(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: other\ndescription: d\n---\n", name="dir-name")
    assert s is not None and s.name == "other"
    d = next(d for d in diags if d.code == "name-mismatch")
    assert d.level == "warning" and "dir-name" in d.message


def test_omitted_description_comes_from_the_first_paragraph(tmp_path: Path) -> None:
    # Claude Code's rule: a frontmatter without `description` uses the body's first paragraph
    s, diags = load(tmp_path, "---\nname: my-skill\n---\n# Title\n\nSome body paragraph.\n")
    assert s is not None and s.description == "Some body paragraph."
    d = next(d for d in diags if d.code == "description-from-body")
    assert d.level == "warning"


def test_omitted_description_and_no_paragraph_not_loaded(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: my-skill\n---\n# Only a heading\n")
    assert s is None
    d = next(d for d in diags if d.code == "missing-description")
    assert d.level == "error" and "description" in d.message


def test_closing_delimiter_with_text_after_it(tmp_path: Path) -> None:
    # seen in public skills: `---# Heading` ends the frontmatter (the reference parser reads it too)
    text = "---\nname: my-skill\ndescription: d\n---# Heading\n\nBody text.\n"
    s, diags = load(tmp_path, text)
    assert s is not None and s.description == "d"
    assert next(d for d in diags if d.code == "frontmatter-loose-close").level == "warning"
    assert load_body(s) == "# Heading\n\nBody text.\n"
    assert split_frontmatter(text) == ("name: my-skill\ndescription: d", "# Heading\n\nBody text.\n", 37)
    # a proper closing line anywhere wins over a loose one
    s, diags = load(tmp_path, "---\nname: my-skill\ndescription: d\n---x\n---\nbody\n")
    assert s is not None and load_body(s) == "body\n" and "frontmatter-loose-close" not in codes(diags)


@pytest.mark.parametrize("value", ['""', "''", "   ", "", "~", "null", "[a, b]", "{a: 1}"])
def test_unusable_description_not_loaded(tmp_path: Path, value: str) -> None:
    s, diags = load(tmp_path, f"---\nname: my-skill\ndescription: {value}\n---\n")
    assert s is None
    assert "missing-description" in codes(diags)


def test_description_is_stripped(tmp_path: Path) -> None:
    assert ok(tmp_path, '---\ndescription: "  spaced  "\n---\n').description == "spaced"


# ------------------------------------------------------------- encodings


def test_bom_is_accepted(tmp_path: Path) -> None:
    s = ok(tmp_path, b"\xef\xbb\xbf---\nname: my-skill\ndescription: d\n---\nbody\n")
    assert s.description == "d" and load_body(s) == "body\n"


def test_crlf_is_normalised(tmp_path: Path) -> None:
    s = ok(tmp_path, b"---\r\nname: my-skill\r\ndescription: d\r\n---\r\nline1\r\nline2\r\n")
    assert s.description == "d"
    assert load_body(s) == "line1\nline2\n"


def test_lone_cr_is_normalised(tmp_path: Path) -> None:
    s = ok(tmp_path, b"---\rname: my-skill\rdescription: d\r---\rline1\rline2\r")
    assert s.description == "d" and load_body(s) == "line1\nline2\n"


def test_body_offset_counts_characters_not_bytes(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\nname: my-skill\ndescription: héllo wörld ✓ 🐙\n---\nbödy 🐙\n")
    assert s.description == "héllo wörld ✓ 🐙"
    assert load_body(s) == "bödy 🐙\n"


def test_binary_file_is_a_diagnostic(tmp_path: Path) -> None:
    s, diags = load(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert s is None and "binary-file" in codes(diags)


def test_nul_inside_frontmatter(tmp_path: Path) -> None:
    s, diags = load(tmp_path, b"---\nname: a\x00b\ndescription: d\n---\n")
    assert s is None and "binary-file" in codes(diags)


def test_invalid_utf8_is_a_diagnostic(tmp_path: Path) -> None:
    s, diags = load(tmp_path, b"---\nname: my-skill\ndescription: caf\xe9\n---\n")
    assert s is None and "invalid-utf8" in codes(diags)


@pytest.mark.parametrize("content", [b"", b"   \n\n  "])
def test_empty_file_is_a_diagnostic(tmp_path: Path, content: bytes) -> None:
    s, diags = load(tmp_path, content)
    assert s is None and "empty-file" in codes(diags)


def test_missing_file_is_a_diagnostic(tmp_path: Path) -> None:
    s, diags = parse_skill(tmp_path / "nope" / "SKILL.md")
    assert s is None and diags and diags[0].level == "error"


def test_directory_instead_of_file(tmp_path: Path) -> None:
    (tmp_path / "x" / "SKILL.md").mkdir(parents=True)
    s, diags = parse_skill(tmp_path / "x" / "SKILL.md")
    assert s is None and diags


# ----------------------------------------------------------- frontmatter split


def test_triple_dash_inside_value_is_not_a_delimiter(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\nname: my-skill\ndescription: a --- b\n---\nbody --- here\n")
    assert s.description == "a --- b"
    assert load_body(s) == "body --- here\n"


def test_closing_delimiter_must_be_the_whole_line(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\nname: my-skill\ndescription: >\n  a\n  ---x\n---\nbody\n")
    assert s.description == "a ---x"


def test_delimiters_with_trailing_blanks(tmp_path: Path) -> None:
    s = ok(tmp_path, "---  \nname: my-skill\ndescription: d\n--- \t\nbody\n")
    assert s.description == "d" and load_body(s) == "body\n"


def test_frontmatter_closed_at_end_of_file(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\nname: my-skill\ndescription: d\n---")
    assert load_body(s) == ""


def test_unclosed_frontmatter(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: my-skill\ndescription: d\n")
    assert s is None and "frontmatter-unclosed" in codes(diags)


def test_frontmatter_spanning_several_chunks(tmp_path: Path) -> None:
    long = "x" * (CHUNK * 3)
    s = ok(tmp_path, f"---\nname: my-skill\ndescription: d\nnote: {long}\n---\nbody\n")
    assert s.frontmatter["note"] == long and load_body(s) == "body\n"


def test_delimiter_exactly_at_chunk_boundary(tmp_path: Path) -> None:
    for pad in range(CHUNK - 40, CHUNK + 4):
        head = "---\nname: my-skill\ndescription: d\nnote: "
        filler = "y" * (pad - len(head) - 1)
        content = f"{head}{filler}\n---\nbody\n"
        s = ok(tmp_path, content)
        assert s.frontmatter["note"] == filler
        assert load_body(s) == "body\n", pad


def test_oversized_frontmatter_is_refused(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: my-skill\n" + "k: v\n" * (MAX_FRONTMATTER // 4) + "---\nbody\n")
    assert s is None and "frontmatter-too-large" in codes(diags)


def test_large_body_not_read_at_discovery(tmp_path: Path) -> None:
    body = "# Big\n" + ("lorem ipsum dolor sit amet\n" * 80_000)  # ~2 MB
    p = write(tmp_path, "---\nname: my-skill\ndescription: big one\n---\n" + body)
    assert p.stat().st_size > 2_000_000
    s, _ = parse_skill(p)
    assert s is not None
    assert "lorem ipsum" not in repr(s)  # nothing of the body is kept from discovery
    assert s.body_offset == len("---\nname: my-skill\ndescription: big one\n---\n")
    assert load_body(s) == body


def test_body_re_read_when_file_changed(tmp_path: Path) -> None:
    p = write(tmp_path, "---\nname: my-skill\ndescription: d\n---\nold\n")
    s, _ = parse_skill(p)
    assert s is not None
    p.write_text("---\nname: my-skill\ndescription: a longer description\n---\nnew body\n")
    os.utime(p, ns=(s.mtime_ns + 10_000_000, s.mtime_ns + 10_000_000))
    assert load_body(s) == "new body\n"


def test_split_frontmatter_function() -> None:
    assert split_frontmatter("---\na: 1\n---\nbody") == ("a: 1", "body", 13)
    assert split_frontmatter("no frontmatter") == (None, "no frontmatter", 0)
    assert split_frontmatter("---\n---\nbody") == ("", "body", 8)
    assert split_frontmatter("\ufeff---\r\na: 1\r\n---\r\nb") == ("a: 1", "b", 13)
    assert split_frontmatter("---\nunclosed") == (None, "---\nunclosed", 0)
    assert split_frontmatter("----\na\n---\n")[0] is None


# ------------------------------------------------------------ no frontmatter


def test_no_frontmatter_uses_first_paragraph(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "# Heading\n\nFirst paragraph\ncontinues here.\n\nSecond.\n", name="plain")
    assert s is not None
    assert (s.name, s.description) == ("plain", "First paragraph continues here.")
    assert any(d.code == "no-frontmatter" and d.level == "warning" for d in diags)
    assert load_body(s).startswith("# Heading")


def test_no_frontmatter_skips_fences_and_comments(tmp_path: Path) -> None:
    s = ok(tmp_path, "<!-- note -->\n```\ncode\n```\n## H\nReal text.\n", name="plain")
    assert s.description == "Real text."


def test_no_frontmatter_and_no_paragraph(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "# Only a heading\n\n## And another\n")
    assert s is None
    d = next(d for d in diags if d.code == "missing-description")
    assert "no frontmatter" in d.message


def test_list_frontmatter_treated_as_no_metadata(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\n- a\n- b\n---\nThe body paragraph.\n")
    assert s is not None and s.description == "The body paragraph." and s.frontmatter == {}
    assert "frontmatter-not-mapping" in codes(diags)


def test_scalar_frontmatter_treated_as_no_metadata(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\njust a string\n---\n\n")
    assert s is None
    assert "frontmatter-not-mapping" in codes(diags)


def test_empty_frontmatter(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\n---\nBody text.\n")
    assert s is not None and s.description == "Body text."
    assert "frontmatter-empty" in codes(diags)


# ------------------------------------------------------------------- YAML


def test_unquoted_colon_is_repaired(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: my-skill\ndescription: Use when: the user asks\n---\n")
    assert s is not None and s.description == "Use when: the user asks"
    d = next(d for d in diags if d.code == "yaml-repaired")
    assert d.level == "warning" and d.line == 3


def test_line_fallback_keeps_skill_with_description(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '---\nname: my-skill\ndescription: fine\nbroken: [unclosed\n  "x\n---\n')
    assert s is not None and s.description == "fine"
    assert any(d.code == "yaml-invalid" and d.level == "warning" for d in diags)


def test_broken_yaml_without_description(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: [unclosed\nx: {\n---\n")
    assert s is None
    assert any(d.level == "error" for d in diags)
    s, diags = load(tmp_path, "---\nname: x\n  bad: indent\n---\n")
    assert s is None
    assert any(d.code == "yaml-invalid" and d.level == "error" for d in diags)


def test_unsafe_tag_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    content = (
        f"---\nname: my-skill\ndescription: d\nx: !!python/object/apply:os.system ['touch {marker}']\n---\n"
    )
    s, diags = load(tmp_path, content)
    assert s is None and "yaml-unsafe-tag" in codes(diags)
    assert not marker.exists()


def test_unsafe_tag_on_string_field(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: !!python/name:os.system\ndescription: d\n---\n")
    assert s is None and "yaml-unsafe-tag" in codes(diags)


def test_custom_tag_rejected(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: !custom d\n---\n")
    assert s is None and "yaml-unsafe-tag" in codes(diags)


def test_billion_laughs_is_capped(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    s, diags = load(tmp_path, "---\ndescription: d\n" + "\n".join(lines) + "\n---\n")
    assert s is None and "yaml-too-complex" in codes(diags)


def test_deep_nesting_is_capped(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\nx: " + "[" * 500 + "]" * 500 + "\n---\n")
    assert s is None and "yaml-too-complex" in codes(diags)


def test_extreme_nesting_never_raises(tmp_path: Path) -> None:
    # Past libyaml's own depth limit the YAML is invalid; the line fallback keeps the description only.
    s, diags = load(tmp_path, "---\ndescription: d\nx: " + "[" * 50_000 + "]" * 50_000 + "\n---\n")
    assert diags
    assert s is None or ("x" not in s.frontmatter or isinstance(s.frontmatter["x"], str))


def test_recursive_alias_is_capped(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\nx: &a [*a]\n---\n")
    assert s is None and "yaml-too-complex" in codes(diags)


def test_small_aliases_are_fine(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\ndescription: d\nbase: &b {x: 1}\nother: *b\n---\n")
    assert s.frontmatter["other"] == {"x": 1}


def test_duplicate_keys_last_wins(tmp_path: Path) -> None:
    assert ok(tmp_path, "---\ndescription: one\ndescription: two\n---\n").description == "two"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("yes", "yes"),
        ("No", "No"),
        ("on", "on"),
        ("true", "true"),
        ("3000", "3000"),
        ("1.10", "1.10"),
        ("0o17", "0o17"),
        ("2024-01-01", "2024-01-01"),
        ("1e3", "1e3"),
        (".inf", ".inf"),
        ("0x1F", "0x1F"),
    ],
)
def test_yaml11_coercions_keep_author_spelling(tmp_path: Path, raw: str, expected: str) -> None:
    s = ok(tmp_path, f"---\nname: {raw}\ndescription: {raw}\nversion: {raw}\nauthor: {raw}\n---\n")
    assert (s.name, s.description, s.version, s.author) == (expected, expected, expected, expected)
    assert s.frontmatter["name"] == expected


def test_version_in_flow_context_via_yaml_path(tmp_path: Path) -> None:
    # Indented content forces the YAML path; the raw scalar is still used.
    s = ok(tmp_path, "---\nname: my-skill\ndescription: d\nversion: 1.10\nmetadata:\n  a: 1\n---\n")
    assert s.version == "1.10" and s.metadata == {"a": 1}


def test_dates_in_other_fields_become_iso_strings(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\ndescription: d\ncreated: 2024-01-02\nat: 2024-01-02 10:00:00\nn: 5\n---\n")
    assert s.frontmatter["created"] == "2024-01-02"
    assert s.frontmatter["at"].startswith("2024-01-02T10:00:00")
    assert s.frontmatter["n"] == 5
    json.dumps(s.frontmatter)


def test_non_string_keys_and_odd_values_are_json_compatible(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        "---\ndescription: d\n2: two\ntrue: t\nnan: .nan\nb: !!binary aGVsbG8=\ns: !!set {a, b}\n---\n",
    )
    fm = s.frontmatter
    assert fm["2"] == "two" and fm["true"] == "t" and fm["nan"] == "nan"
    assert fm["b"] == "aGVsbG8=" and fm["s"] == ["a", "b"]
    json.dumps(fm, allow_nan=False)


@pytest.mark.parametrize("style", [">", "|", ">-", "|-", ">+", "|+"])
def test_block_scalar_descriptions(tmp_path: Path, style: str) -> None:
    s = ok(tmp_path, f"---\nname: my-skill\ndescription: {style}\n  Line one\n  line two\n\n---\n")
    assert not s.description.endswith("\n")
    assert s.description.startswith("Line one")
    if style.startswith(">"):
        assert s.description == "Line one line two"
    else:
        assert s.description == "Line one\nline two"


def test_quoted_descriptions(tmp_path: Path) -> None:
    assert ok(tmp_path, "---\ndescription: 'it''s: fine'\n---\n").description == "it's: fine"
    assert ok(tmp_path, '---\ndescription: "tab\\there"\n---\n').description == "tab\there"


# ---------------------------------------------------------- allowed-tools


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Bash(git:*) Read", ("Bash(git:*)", "Read")),
        ("Read, Write,Bash", ("Read", "Write", "Bash")),
        ("Bash(git diff:*) Read", ("Bash(git diff:*)", "Read")),
        ("[Read, Bash]", ("Read", "Bash")),
        ('["Read", "Bash(gh:*)"]', ("Read", "Bash(gh:*)")),
        ("\n  - Read\n  - Grep", ("Read", "Grep")),
    ],
)
def test_allowed_tools_shapes(tmp_path: Path, value: str, expected: tuple[str, ...]) -> None:
    assert ok(tmp_path, f"---\ndescription: d\nallowed-tools: {value}\n---\n").allowed_tools == expected


def test_allowed_tools_bad_type_warns(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\nallowed-tools: {a: 1}\n---\n")
    assert s is not None and s.allowed_tools == () and "bad-field" in codes(diags)


# --------------------------------------------------------------- metadata


def test_nested_metadata_is_kept(tmp_path: Path) -> None:
    s = ok(
        tmp_path, "---\ndescription: d\nmetadata:\n  hermes:\n    tags: [a, b]\n    on: true\n  x: '1'\n---\n"
    )
    assert (
        s.metadata == {"hermes": {"tags": ["a", "b"], True and "on": True}, "x": "1"} or s.metadata["hermes"]
    )
    assert s.metadata["x"] == "1" and s.metadata["hermes"]["tags"] == ["a", "b"]


def test_metadata_as_json_string(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        """---\ndescription: d\nmetadata: '{"openclaw": {"emoji": "🐙", "requires": {"bins": ["gh"]}}}'\n---\n""",
    )
    assert s.emoji == "🐙" and s.requires.bins == ("gh",)
    assert s.metadata["openclaw"]["emoji"] == "🐙"


def test_metadata_as_yaml_flow_string(tmp_path: Path) -> None:
    s = ok(tmp_path, """---\ndescription: d\nmetadata: "{openclaw: {emoji: x, always: true}}"\n---\n""")
    assert s.emoji == "x" and s.always is True


def test_metadata_not_a_mapping(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\nmetadata: [1, 2]\n---\n")
    assert s is not None and s.metadata == {} and "metadata-not-mapping" in codes(diags)


CLAWHUB = (
    '{"openclaw":{"emoji":"🐙","homepage":"https://x.example","skillKey":"gh-key","always":false,'
    '"os":["macos","linux","Windows"],'
    '"requires":{"bins":["gh"],"anyBins":["rg","ag"],"env":["GITHUB_TOKEN"],"config":["browser.enabled"]},'
    '"install":[{"id":"brew","kind":"brew","formula":"gh","bins":["gh"],"label":"Install GitHub CLI (brew)"},'
    '{"id":"apt","kind":"apt","package":"gh","bins":["gh"]},'
    '{"kind":"go","module":"github.com/x/y@latest"},{"type":"Node","package":"@scope/pkg"},'
    '{"kind":"cargo","crate":"himalaya"},{"kind":"uv","package":"ruff"},{"kind":"download","url":"https://x/y.tgz"},'
    '{"kind":"brew","cask":"docker"},'
    '{"kind":"pip","package":"x"},{"kind":"brew"}]}}'
)


def test_openclaw_single_line_json(tmp_path: Path) -> None:
    s, diags = load(tmp_path, f"---\nname: my-skill\ndescription: d\nmetadata: {CLAWHUB}\n---\n")
    assert s is not None
    assert (s.emoji, s.homepage, s.skill_key, s.key, s.always) == (
        "🐙",
        "https://x.example",
        "gh-key",
        "gh-key",
        False,
    )
    r = s.requires
    assert r.bins == ("gh",) and r.any_bins == ("rg", "ag") and r.env == ("GITHUB_TOKEN",)
    assert r.config == ("browser.enabled",) and r.os == ("darwin", "linux", "win32")
    kinds = [o.kind for o in s.install]
    assert kinds == ["brew", "apt", "go", "node", "cargo", "uv", "download", "brew"]
    assert s.install[0].formula == "gh" and s.install[0].label == "Install GitHub CLI (brew)"
    assert s.install[0].bins == ("gh",) and s.install[1].package == "gh"
    assert s.install[3].package == "@scope/pkg" and s.install[-1].formula == "docker"
    assert s.install[2].command() == "go install github.com/x/y@latest"
    dropped = [d for d in diags if d.code == "bad-install"]
    assert len(dropped) == 2 and all(d.level == "warning" for d in dropped)
    assert any("'pip'" in d.message for d in dropped) and any("formula" in d.message for d in dropped)


@pytest.mark.parametrize("key", ["clawdbot", "moltbot", "clawdis"])
def test_openclaw_legacy_keys(tmp_path: Path, key: str) -> None:
    s = ok(
        tmp_path, f'---\ndescription: d\nmetadata: {{"{key}": {{"requires": {{"bins": ["ffmpeg"]}}}}}}\n---\n'
    )
    assert s.requires.bins == ("ffmpeg",)


def test_openclaw_block_metadata(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        "---\ndescription: d\nmetadata:\n  openclaw:\n    requires:\n      bins: gh, jq\n      env: A\n"
        "    os: darwin\n    install:\n      - kind: BREW\n        formula: jq\n---\n",
    )
    assert s.requires.bins == ("gh", "jq") and s.requires.env == ("A",) and s.requires.os == ("darwin",)
    assert s.install[0].kind == "brew"


def test_openclaw_block_as_json_string_inside_metadata(tmp_path: Path) -> None:
    s = ok(tmp_path, """---\ndescription: d\nmetadata:\n  openclaw: '{"emoji": "x"}'\n---\n""")
    assert s.emoji == "x"


def test_openclaw_top_level_equivalents(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        "---\ndescription: d\nemoji: 🎬\nalways: yes\nos: [macos]\nrequires:\n  bins: [ffmpeg]\n"
        "install:\n  - kind: apt\n    package: ffmpeg\nhomepage: https://ffmpeg.org\n---\n",
    )
    assert s.emoji == "🎬" and s.always is True and s.requires.os == ("darwin",)
    assert s.requires.bins == ("ffmpeg",) and s.install[0].package == "ffmpeg"
    assert s.homepage == "https://ffmpeg.org"


def test_openclaw_block_beats_top_level(tmp_path: Path) -> None:
    s = ok(tmp_path, '---\ndescription: d\nemoji: a\nmetadata: {"openclaw": {"emoji": "b"}}\n---\n')
    assert s.emoji == "b"


def test_openclaw_bad_shapes_warn(tmp_path: Path) -> None:
    s, diags = load(
        tmp_path,
        '---\ndescription: d\nmetadata: {"openclaw": {"requires": "gh", "install": "brew", "always": "maybe",'
        ' "os": 5}}\n---\n',
    )
    assert s is not None and s.requires.is_empty() and s.install == () and s.always is False
    assert {"bad-requires", "bad-install", "bad-boolean", "bad-list"} <= codes(diags)


def test_openclaw_not_a_mapping(tmp_path: Path) -> None:
    s, diags = load(tmp_path, '---\ndescription: d\nmetadata: {"openclaw": [1]}\n---\n')
    assert s is not None and "openclaw-not-mapping" in codes(diags)


# -------------------------------------------------------- Claude Code fields


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("true", True),
        ("yes", True),
        ("On", True),
        ("1", True),
        ("TRUE", True),
        ("'yes'", True),
        ("false", False),
        ("no", False),
        ("OFF", False),
        ("0", False),
    ],
)
def test_boolean_spellings(tmp_path: Path, raw: str, value: bool) -> None:
    s = ok(tmp_path, f"---\ndescription: d\ndisable-model-invocation: {raw}\nuser-invocable: {raw}\n---\n")
    assert s.disable_model_invocation is value and s.user_invocable is value


def test_boolean_defaults_and_bad_values(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\ndescription: d\n---\n")
    assert s.disable_model_invocation is False and s.user_invocable is True
    s, diags = load(tmp_path, "---\ndescription: d\nuser-invocable: sometimes\n---\n")
    assert s is not None and s.user_invocable is True and "bad-boolean" in codes(diags)


def test_claude_code_fields(tmp_path: Path) -> None:
    s = ok(
        tmp_path,
        "---\nname: my-skill\ndescription: d\nwhen_to_use: When reviewing PRs\nargument-hint: [issue] [branch]\n"
        "arguments: issue branch\nlicense: MIT\ncompatibility: Requires git\nversion: 2.0\nauthor: Ann\n"
        "tags: [a, b]\n---\n",
    )
    assert s.when_to_use == "When reviewing PRs"
    assert s.argument_hint == "[issue] [branch]"  # the author's text, not YAML flow lists
    assert s.version == "2.0" and s.tags == ("a", "b")
    assert s.arguments == ("issue", "branch")
    assert (s.license, s.compatibility, s.version, s.author) == ("MIT", "Requires git", "2.0", "Ann")
    assert s.tags == ("a", "b")


def test_argument_hint_flow_list_keeps_spelling(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\nargument-hint: [issue-number]\n---\n")
    assert s is not None and s.argument_hint == "[issue-number]" and not diags


def test_argument_hint_as_string_and_arguments_as_list(tmp_path: Path) -> None:
    s = ok(tmp_path, '---\ndescription: d\nargument-hint: "[file]"\narguments: [a, b]\ntags: x, y\n---\n')
    assert s.argument_hint == "[file]" and s.arguments == ("a", "b") and s.tags == ("x", "y")


def test_bad_string_field_warns(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\ndescription: d\nlicense: {a: {b: 1}}\n---\n")
    assert s is not None and s.license is None and "bad-field" in codes(diags)


def test_a_map_of_flags_reads_as_the_text_it_means(tmp_path: Path) -> None:
    # seen in hundreds of public skills: which agents a skill works with, as a map of booleans
    text = (
        "---\nname: s\ndescription: d\ncompatibility:\n  claude-code: true\n  cursor: true\n"
        "  windsurf: false\n  python: '>=3.10'\nauthor: {name: Ana, email: null}\n---\n"
    )
    s, diags = load(tmp_path, text, "s")
    assert s is not None and not diags, diags
    assert s.compatibility == "claude-code, cursor, python: >=3.10"
    assert s.author == "name: Ana"


def test_a_name_given_as_a_map_is_still_not_a_name(tmp_path: Path) -> None:
    s, diags = load(tmp_path, "---\nname: {a: b}\ndescription: d\n---\n", "s")
    assert s is not None and s.name == "s" and "bad-field" in codes(diags)


# ------------------------------------------------------------ skill files


def test_find_skill_file_preference(tmp_path: Path) -> None:
    d = tmp_path / "s"
    d.mkdir()
    assert find_skill_file(d) is None
    (d / "SKILL.toml").write_text("")
    assert find_skill_file(d) == d / "SKILL.toml"
    (d / "skill.md").write_text("")
    assert find_skill_file(d) == d / "skill.md"
    (d / "SKILL.md").write_text("")
    assert find_skill_file(d) == d / "SKILL.md"
    assert find_skill_file(tmp_path / "missing") is None


def test_lowercase_skill_md(tmp_path: Path) -> None:
    p = write(tmp_path, "---\ndescription: lower\n---\n", filename="skill.md")
    s, _ = parse_skill(p)
    assert s is not None and s.description == "lower"


def test_markdown_with_sibling_toml_merges_tools_and_prompts(tmp_path: Path) -> None:
    p = write(tmp_path, "---\nname: my-skill\ndescription: md wins\n---\nBody.\n")
    (p.parent / "SKILL.toml").write_text(
        'prompts = ["Prefer listing first"]\n[skill]\nname = "other"\ndescription = "toml"\n'
        '[[tools]]\nname = "ls"\ndescription = "List"\ncommand = "ls {dir}"\n'
    )
    s, _ = parse_skill(p)
    assert s is not None and s.description == "md wins" and s.format == "md"
    assert [t.name for t in s.tools] == ["ls"] and s.prompts == ("Prefer listing first",)
    body = load_body(s)
    assert body.startswith("Body.\n") and "Prefer listing first" in body
    s2, _ = parse_skill(p, toml_sibling=False)
    assert s2 is not None and s2.tools == ()


def test_sibling_toml_broken_does_not_stop_markdown(tmp_path: Path) -> None:
    p = write(tmp_path, "---\ndescription: d\n---\n")
    (p.parent / "SKILL.toml").write_text("[[[ nope")
    s, diags = parse_skill(p)
    assert s is not None and s.tools == () and "toml-invalid" in codes(diags)


def test_skill_docs_and_body_through_model(tmp_path: Path) -> None:
    p = write(tmp_path, "---\ndescription: d\n---\nSee [usage](USAGE.md).\n")
    (p.parent / "USAGE.md").write_text("usage")
    s, _ = parse_skill(p)
    assert s is not None and list_docs(s) == ["USAGE.md"] and "USAGE.md" in load_body(s)


# ---------------------------------------------------------- parse_frontmatter


def test_parse_frontmatter_direct() -> None:
    data, diags = parse_frontmatter("name: x\ndescription: y")
    assert data == {"name": "x", "description": "y"} and diags == []
    data, diags = parse_frontmatter("- 1", "p")
    assert data is None and diags[0].path == "p"
    data, diags = parse_frontmatter("")
    assert data is None and diags[0].code == "frontmatter-empty"


def test_diagnostics_serialise(tmp_path: Path) -> None:
    _, diags = load(tmp_path, "---\nname: x\ndescription: Use when: y\n---\n")
    for d in diags:
        assert set(d.to_dict()) == {"level", "code", "message", "path", "line"}
        json.dumps(d.to_dict())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.timeout(20)
def test_fifo_does_not_hang(tmp_path: Path) -> None:
    d = tmp_path / "fifo-skill"
    d.mkdir()
    os.mkfifo(d / "SKILL.md")
    s, diags = parse_skill(d / "SKILL.md")
    assert s is None and "not-a-file" in codes(diags)


def test_duplicate_string_field_last_wins_on_yaml_path(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\ndescription: [a]\ndescription: yes\nmeta:\n  k: v\n---\n")
    assert s.description == "yes"
    s, diags = load(tmp_path, "---\ndescription: one\ndescription: [a]\nmeta:\n  k: v\n---\n")
    assert s is None and "missing-description" in codes(diags)


def test_argument_hint_span_with_non_ascii_before_it(tmp_path: Path) -> None:
    s = ok(tmp_path, "---\ndescription: é🐙é\nargument-hint: [fïle, 🐙]\n---\n")
    assert s.argument_hint == "[fïle, 🐙]"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "frontmatter",
    [
        "description: d\nkey:" + " " * 200_000 + "\x01",
        "description: d\nkey: x" + " " * 200_000 + "y: z\n  bad: [",
        "description: d\nkey: a: b" + " " * 200_000 + "c\n  bad: [",
        "description: d\n" + "k: v\n" * 30_000 + "x: ][",
    ],
)
def test_pathological_lines_finish(tmp_path: Path, frontmatter: str) -> None:
    # Guards against super-linear regular expressions (a hang would hit the timeout).
    s, diags = load(tmp_path, f"---\n{frontmatter}\n---\n")
    assert s is not None or diags


@pytest.mark.parametrize("value", ['"a\\nb"', '"tab\\there"', '"bell\\a"', "x" * 300])
def test_unprintable_or_huge_name_falls_back_to_directory(tmp_path: Path, value: str) -> None:
    s, diags = load(tmp_path, f"---\nname: {value}\ndescription: d\n---\n", name="dir-name")
    assert s is not None and s.name == "dir-name" and "bad-name" in codes(diags)


def test_unicode_name_is_kept(tmp_path: Path) -> None:
    assert ok(tmp_path, "---\nname: мой-навык\ndescription: d\n---\n", name="мой-навык").name == "мой-навык"


def test_identical_install_specs_share_one_value(tmp_path: Path) -> None:
    meta = '{"openclaw": {"requires": {"bins": ["jq"]}, "install": [{"kind": "brew", "formula": "jq"}]}}'
    a = ok(tmp_path, f"---\ndescription: d\nmetadata: {meta}\n---\n", name="a")
    b = ok(tmp_path, f"---\ndescription: d\nmetadata: {meta}\n---\n", name="b")
    assert a.install == b.install and a.install[0] is b.install[0]
    assert a.requires is b.requires
