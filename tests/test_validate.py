"""Strict validation: skills-ref's messages verbatim, plus skillyard's own warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillyard.validate import ValidationResult, validate_skill_dir

ALLOWED = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']"


def make(tmp_path: Path, content: str | bytes, name: str = "my-skill", filename: str = "SKILL.md") -> Path:
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    (d / filename).write_bytes(content.encode() if isinstance(content, str) else content)
    return d


def check(
    tmp_path: Path, content: str | bytes, name: str = "my-skill", strict: bool = False
) -> ValidationResult:
    return validate_skill_dir(make(tmp_path, content, name), strict=strict)


def test_valid_skill(tmp_path: Path) -> None:
    r = check(tmp_path, "---\nname: my-skill\ndescription: Does things\n---\n# Body\n", strict=True)
    assert r.valid and r.errors == [] and r.warnings == [] and r.name == "my-skill"
    assert r.to_dict() == {
        "path": str(tmp_path / "my-skill"),
        "name": "my-skill",
        "valid": True,
        "errors": [],
        "warnings": [],
    }


def test_path_may_be_the_skill_file(tmp_path: Path) -> None:
    d = make(tmp_path, "---\nname: my-skill\ndescription: d\n---\n")
    r = validate_skill_dir(d / "SKILL.md")
    assert r.valid and r.path == str(d)


def test_path_does_not_exist(tmp_path: Path) -> None:
    r = validate_skill_dir(tmp_path / "nope")
    assert r.errors == [f"Path does not exist: {tmp_path / 'nope'}"] and not r.valid


def test_not_a_directory(tmp_path: Path) -> None:
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert validate_skill_dir(f).errors == [f"Not a directory: {f}"]


def test_missing_skill_md(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert validate_skill_dir(tmp_path / "empty").errors == ["Missing required file: SKILL.md"]


@pytest.mark.parametrize("strict", [False, True])
def test_no_frontmatter(tmp_path: Path, strict: bool) -> None:
    r = check(tmp_path, "# Title\n\nText.\n", strict=strict)
    assert r.errors == ["SKILL.md must start with YAML frontmatter (---)"]


def test_unclosed_frontmatter(tmp_path: Path) -> None:
    assert check(tmp_path, "---\nname: my-skill\n").errors == [
        "SKILL.md frontmatter not properly closed with ---"
    ]


def test_frontmatter_not_mapping(tmp_path: Path) -> None:
    assert check(tmp_path, "---\n- a\n---\n").errors == ["SKILL.md frontmatter must be a YAML mapping"]
    assert check(tmp_path, "---\n---\n").errors == ["SKILL.md frontmatter must be a YAML mapping"]


def test_missing_fields(tmp_path: Path) -> None:
    assert check(tmp_path, "---\nlicense: MIT\n---\n").errors == [
        "Missing required field in frontmatter: name",
        "Missing required field in frontmatter: description",
    ]


def test_a_missing_description_does_not_hide_the_name_rules(tmp_path: Path) -> None:
    """As skills-ref: every problem of the frontmatter in one run, so an author fixes them in one pass."""
    r = check(tmp_path, "---\nname: Bad_Skill\n---\n")
    assert r.errors[0] == "Skill name 'Bad_Skill' must be lowercase"
    assert "Missing required field in frontmatter: description" in r.errors
    assert any("contains invalid characters" in e for e in r.errors)
    assert check(tmp_path, "---\ndescription: d\n---\n").errors == [
        "Missing required field in frontmatter: name"
    ]


@pytest.mark.parametrize("value", ['""', "[a]", "~"])
def test_empty_or_non_string_name(tmp_path: Path, value: str) -> None:
    r = check(tmp_path, f"---\nname: {value}\ndescription: d\n---\n")
    assert "Field 'name' must be a non-empty string" in r.errors


def test_empty_description(tmp_path: Path) -> None:
    r = check(tmp_path, '---\nname: my-skill\ndescription: ""\n---\n')
    assert r.errors == ["Field 'description' must be a non-empty string"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("My-Skill", "Skill name 'My-Skill' must be lowercase"),
        ("-skill", "Skill name cannot start or end with a hyphen"),
        ("skill-", "Skill name cannot start or end with a hyphen"),
        ("my--skill", "Skill name cannot contain consecutive hyphens"),
        (
            "my_skill",
            "Skill name 'my_skill' contains invalid characters. Only letters, digits, and hyphens are allowed.",
        ),
        ("a" * 65, f"Skill name '{'a' * 65}' exceeds 64 character limit (65 chars)"),
    ],
)
def test_name_rules(tmp_path: Path, name: str, message: str) -> None:
    r = check(tmp_path, f"---\nname: {name}\ndescription: d\n---\n", name=name.strip("-") or "x")
    assert message in r.errors and not r.valid


def test_unicode_names_follow_skills_ref(tmp_path: Path) -> None:
    assert check(tmp_path, "---\nname: мой-навык\ndescription: d\n---\n", name="мой-навык").valid
    r = check(tmp_path, "---\nname: НАВЫК\ndescription: d\n---\n", name="НАВЫК")
    assert "Skill name 'НАВЫК' must be lowercase" in r.errors


def test_name_is_nfkc_normalised(tmp_path: Path) -> None:
    r = check(tmp_path, "---\nname: ｓｋｉｌｌ\ndescription: d\n---\n", name="skill")
    assert r.valid, r.errors


def test_yaml11_name_is_a_string(tmp_path: Path) -> None:
    r = check(tmp_path, "---\nname: yes\ndescription: d\n---\n", name="yes")
    assert r.valid and r.name == "yes"


def test_directory_mismatch_is_warning_then_error(tmp_path: Path) -> None:
    content = "---\nname: other\ndescription: d\n---\n"
    msg = "Directory name 'my-skill' must match skill name 'other'"
    lenient = check(tmp_path, content)
    assert lenient.valid and msg in lenient.warnings
    strict = check(tmp_path, content, strict=True)
    assert not strict.valid and msg in strict.errors


def test_unexpected_fields_warning_then_error(tmp_path: Path) -> None:
    content = "---\nname: my-skill\ndescription: d\nversion: 1\nuser-invocable: false\n---\n"
    msg = f"Unexpected fields in frontmatter: user-invocable, version. Only {ALLOWED} are allowed."
    assert msg in check(tmp_path, content).warnings
    strict = check(tmp_path, content, strict=True)
    assert strict.errors == [msg]


def test_description_too_long(tmp_path: Path) -> None:
    r = check(tmp_path, f"---\nname: my-skill\ndescription: {'d' * 1025}\n---\n")
    assert r.errors == ["Description exceeds 1024 character limit (1025 chars)"]


def test_compatibility_rules(tmp_path: Path) -> None:
    r = check(tmp_path, f"---\nname: my-skill\ndescription: d\ncompatibility: {'c' * 501}\n---\n")
    assert r.errors == ["Compatibility exceeds 500 character limit (501 chars)"]
    r = check(tmp_path, "---\nname: my-skill\ndescription: d\ncompatibility: [a]\n---\n")
    assert r.errors == ["Field 'compatibility' must be a string"]


def test_invalid_yaml_messages(tmp_path: Path) -> None:
    content = "---\nname: my-skill\ndescription: Use when: asked\n---\n"
    lenient = check(tmp_path, content)
    assert lenient.valid
    assert any(
        w.startswith("Invalid YAML in frontmatter: mapping values are not allowed") for w in lenient.warnings
    )
    strict = check(tmp_path, content, strict=True)
    assert strict.errors[0].startswith("Invalid YAML in frontmatter: mapping values are not allowed")


def test_unrecoverable_yaml_is_an_error(tmp_path: Path) -> None:
    r = check(tmp_path, "---\nname: x\n  bad: indent\n---\n")
    assert r.errors and r.errors[0].startswith("Invalid YAML in frontmatter: ")


def test_unsafe_tag_is_an_error(tmp_path: Path) -> None:
    r = check(tmp_path, "---\nname: my-skill\ndescription: d\nx: !!python/object:os.system x\n---\n")
    assert r.errors and r.errors[0].startswith("Invalid YAML in frontmatter: ")


def test_bom_is_valid_but_noted_in_strict_mode(tmp_path: Path) -> None:
    content = b"\xef\xbb\xbf---\nname: my-skill\ndescription: d\n---\n"
    assert check(tmp_path, content).warnings == []
    strict = check(tmp_path, content, strict=True)
    assert strict.valid and any("byte order mark" in w for w in strict.warnings)


def test_crlf_is_valid(tmp_path: Path) -> None:
    assert check(tmp_path, b"---\r\nname: my-skill\r\ndescription: d\r\n---\r\n", strict=True).valid


def test_binary_file(tmp_path: Path) -> None:
    r = check(tmp_path, b"\x00\x01\x02")
    assert not r.valid and "binary" in r.errors[0]


def test_long_body_warns(tmp_path: Path) -> None:
    r = check(tmp_path, "---\nname: my-skill\ndescription: d\n---\n" + "line\n" * 501)
    assert r.valid and any("501 lines" in w for w in r.warnings)
    assert check(tmp_path, "---\nname: my-skill\ndescription: d\n---\n" + "line\n" * 500).warnings == []


def test_links(tmp_path: Path) -> None:
    d = make(
        tmp_path,
        "---\nname: my-skill\ndescription: d\n---\n"
        "See [ok](USAGE.md), [ref](references/api.md#x), ![img](assets/logo.png), [web](https://x.example),\n"
        "[anchor](#top), [mail](mailto:a@b.c), [missing](MISSING.md), [deep](a/b/c.md), [up](../other/SKILL.md),\n"
        "[abs](/etc/passwd), [space](my%20file.md), [titled](USAGE.md \"Usage\"), [t2](MISSING2.md 'x')\n"
        "```\n[in code](NOT_CHECKED.md)\n```\n",
    )
    (d / "USAGE.md").write_text("u")
    (d / "references").mkdir()
    (d / "references" / "api.md").write_text("a")
    (d / "assets").mkdir()
    (d / "assets" / "logo.png").write_bytes(b"png")
    (d / "my file.md").write_text("s")
    (d / "a" / "b").mkdir(parents=True)
    (d / "a" / "b" / "c.md").write_text("c")
    r = validate_skill_dir(d)
    assert r.valid
    assert r.warnings == [
        "Broken link: 'MISSING.md' does not exist in the skill",
        "Link 'a/b/c.md' is more than one level deep; keep references one level deep from SKILL.md",
        "Link '../other/SKILL.md' points outside the skill directory",
        "Link '/etc/passwd' is an absolute path; reference files relative to the skill directory",
        "Broken link: 'MISSING2.md' does not exist in the skill",
    ]


def test_loader_warnings_are_reported(tmp_path: Path) -> None:
    r = check(
        tmp_path,
        '---\nname: my-skill\ndescription: d\nmetadata: {"openclaw": {"install": [{"kind": "pip", "package": "x"}]}}\n---\n',
    )
    assert r.valid and any("unknown kind 'pip'" in w for w in r.warnings)


def test_skill_md_lowercase(tmp_path: Path) -> None:
    d = make(tmp_path, "---\nname: my-skill\ndescription: d\n---\n", filename="skill.md")
    assert validate_skill_dir(d).valid


# --------------------------------------------------------------- SKILL.toml

TOML_OK = """prompts = ["be nice"]
[skill]
name = "my-skill"
description = "Does things"
version = "1.0.0"
tags = ["a"]

[[tools]]
name = "list"
description = "List items"
command = "ls {dir}"
[tools.args]
dir = "Directory"
"""


def test_valid_toml(tmp_path: Path) -> None:
    r = validate_skill_dir(make(tmp_path, TOML_OK, filename="SKILL.toml"), strict=True)
    assert r.valid and r.name == "my-skill" and r.warnings == []


def test_toml_errors(tmp_path: Path) -> None:
    content = """surprise = 1
prompts = "x"
[skill]
name = "My_Skill"
version = 1
extra = true

[[tools]]
name = "bad name"
command = ""

[[tools]]
name = "t"
description = "d"
kind = "http"
command = "run {a} {b}"
timeout = 0
[tools.args]
a = { type = "float", required = "no", enum = 1, zap = 2 }
c = "unused"
"9x" = "bad"
"""
    r = validate_skill_dir(make(tmp_path, content, filename="SKILL.toml"), strict=True)
    errors = "\n".join(r.errors)
    warnings = "\n".join(r.warnings)
    for part in [
        "SKILL.toml: unexpected top-level key 'surprise'",
        "SKILL.toml: missing required field [skill].description",
        "Skill name 'My_Skill' must be lowercase",
        "SKILL.toml: unexpected field [skill].extra",
        "SKILL.toml: [skill].version must be a string",
        "SKILL.toml: prompts must be an array of strings",
        "SKILL.toml: tools[0]: name must be 1-64 characters",
        "SKILL.toml: tools[0]: command must be a non-empty string",
        "SKILL.toml: tools[0]: description must be a non-empty string",
        "SKILL.toml: tool 't': timeout must be a number of seconds between 0 and 86400",
        "SKILL.toml: tool 't': argument 'a' has unknown type 'float'",
        "SKILL.toml: tool 't': argument 'a': required must be a boolean",
        "SKILL.toml: tool 't': argument 'a': enum must be an array",
        "SKILL.toml: tool 't': argument 'a': unexpected key 'zap'",
        "SKILL.toml: tool 't': argument name '9x' is not an identifier",
    ]:
        assert part in errors, part
    for part in [
        "SKILL.toml: tool 't': kind 'http' is not supported",
        "SKILL.toml: tool 't': placeholder '{b}' has no [tools.args] entry",
        "SKILL.toml: tool 't': argument 'c' is not used in the command",
    ]:
        assert part in warnings, part
    assert not r.valid


def test_toml_invalid_syntax(tmp_path: Path) -> None:
    r = validate_skill_dir(make(tmp_path, "[skill\n", filename="SKILL.toml"))
    assert not r.valid and r.errors[0].startswith("SKILL.toml: invalid TOML")


def test_toml_strict_only_errors(tmp_path: Path) -> None:
    content = TOML_OK.replace('tags = ["a"]', 'tags = ["a"]\nhomepage = "x"')
    d = make(tmp_path, content, filename="SKILL.toml")
    assert validate_skill_dir(d).valid
    assert not validate_skill_dir(d, strict=True).valid


def test_markdown_with_toml_tools_validated(tmp_path: Path) -> None:
    d = make(tmp_path, "---\nname: my-skill\ndescription: d\n---\n")
    (d / "SKILL.toml").write_text('[[tools]]\nname = "t"\ndescription = "x"\ncommand = ""\n')
    r = validate_skill_dir(d)
    assert not r.valid and "SKILL.toml: tool 't': command must be a non-empty string" in r.errors


def test_validation_never_raises_on_odd_paths(tmp_path: Path) -> None:
    (tmp_path / "weird").mkdir()
    (tmp_path / "weird" / "SKILL.md").mkdir()  # a directory where the file should be
    r = validate_skill_dir(tmp_path / "weird")
    assert not r.valid


@pytest.mark.timeout(60)
def test_pathological_link_text_finishes(tmp_path: Path) -> None:
    body = "[" * 200_000 + "\n" + "[a](" * 50_000 + "\n" + "![x](" + " " * 100_000 + "\n"
    r = check(tmp_path, "---\nname: my-skill\ndescription: d\n---\n" + body)
    assert r.valid
