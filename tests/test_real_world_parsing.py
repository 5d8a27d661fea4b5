"""Shapes found in public skills that the parser and validator once got wrong."""

from __future__ import annotations

import json
from pathlib import Path

from skillyard.parsing import parse_skill
from skillyard.registry import Registry
from skillyard.toml_tools import tool_plan
from skillyard.validate import validate_skill_dir


def _md(tmp_path: Path, frontmatter: str, name: str = "s") -> Path:
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\n{frontmatter}\n---\nBody.\n", encoding="utf-8")
    return d / "SKILL.md"


def test_an_unhashable_key_loads_with_a_warning_not_as_an_unsafe_tag(tmp_path: Path) -> None:
    path = _md(tmp_path, 'name: s\ndescription: Does things.\nmetadata: {"a":{"b":["x"],["y"]}}')
    skill, diags = parse_skill(path, source="custom")
    assert skill is not None and skill.description == "Does things."
    assert [d.code for d in diags if d.level == "error"] == []
    assert all(d.code != "yaml-unsafe-tag" for d in diags)
    assert any(d.level == "warning" and d.code in ("yaml-repaired", "yaml-invalid") for d in diags)


def test_a_description_whose_later_lines_are_not_indented_keeps_them(tmp_path: Path) -> None:
    # YAML fails on `**` (an alias) and on the unindented lines; the line fallback joins them
    path = _md(
        tmp_path,
        "name: s\ndescription: **CLI guide**\nRuns queries on the warehouse.\n- **Sync**: copies files\nlicense: MIT",
    )
    skill, diags = parse_skill(path, source="custom")
    assert skill is not None
    assert skill.description == "**CLI guide** Runs queries on the warehouse. - **Sync**: copies files"
    assert skill.license == "MIT" and any(d.code == "yaml-invalid" for d in diags)


def test_a_quoted_description_with_an_indented_continuation_loses_its_quotes(tmp_path: Path) -> None:
    path = _md(tmp_path, 'name: s\ndescription: "Counts things."\n  More about counting.')
    skill, _ = parse_skill(path, source="custom")
    assert skill is not None and skill.description == "Counts things. More about counting."


def test_a_key_without_a_value_takes_no_unindented_lines(tmp_path: Path) -> None:
    path = _md(tmp_path, "name: s\ndescription: Real.\ntags:\nnot a key line: [\nalso not")
    skill, _ = parse_skill(path, source="custom")
    assert skill is not None and skill.description == "Real." and skill.tags == ()


def test_an_unsafe_tag_is_still_refused(tmp_path: Path) -> None:
    path = _md(tmp_path, "name: s\ndescription: x\nz: !!python/object:os.system x")
    skill, diags = parse_skill(path, source="custom")
    assert skill is None and [d.code for d in diags] == ["yaml-unsafe-tag"]
    assert diags[0].line == 4


def test_yaml_error_messages_count_file_lines(tmp_path: Path) -> None:
    """The message's "line N" and the diagnostic's `line` are the same file line."""
    path = _md(tmp_path, "name: s\ndescription: ok\nbad: [unclosed\nother: 1")
    _, diags = parse_skill(path, source="custom")
    yaml_diags = [d for d in diags if d.code.startswith("yaml-")]
    assert yaml_diags and yaml_diags[0].line is not None
    assert f"line {yaml_diags[0].line}," in yaml_diags[0].message
    # and the validator, which quotes the parser's own message
    result = validate_skill_dir(path.parent)
    text = " ".join(result.errors + result.warnings)
    assert f"line {yaml_diags[0].line}," in text


def test_validate_reports_missing_and_unexpected_fields_together(tmp_path: Path) -> None:
    path = _md(tmp_path, "name: s\nfavourite-colour: blue")
    result = validate_skill_dir(path.parent, strict=True)
    assert "Missing required field in frontmatter: description" in result.errors
    assert any(e.startswith("Unexpected fields in frontmatter: favourite-colour.") for e in result.errors)


def test_toml_with_top_level_fields_and_openclaw_requirements_loads(tmp_path: Path) -> None:
    d = tmp_path / "zc"
    d.mkdir()
    (d / "SKILL.toml").write_text(
        'name = "zc"\ndescription = "Top-level fields, as ZeroClaw writes them."\nversion = "1.2.0"\n\n'
        '[openclaw.requires]\nbins = ["surely-not-installed-anywhere"]\n\n'
        '[[tools]]\nname = "hi"\ndescription = "Say hi"\ncommand = "echo hi"\n',
        encoding="utf-8",
    )
    reg = Registry.from_roots([tmp_path])
    skill = reg.get("zc")
    assert skill is not None, [d.to_dict() for d in reg.diagnostics]
    assert skill.version == "1.2.0" and [t.name for t in skill.tools] == ["hi"]
    assert skill.requires.bins == ("surely-not-installed-anywhere",)
    assert reg.eligibility(skill).reasons == ("Missing binary: surely-not-installed-anywhere",)
    assert validate_skill_dir(d).valid
    strict = validate_skill_dir(d, strict=True)
    assert not strict.valid and any("[skill] table" in e for e in strict.errors)


def test_toml_with_neither_form_is_still_an_error(tmp_path: Path) -> None:
    d = tmp_path / "nothing"
    d.mkdir()
    (d / "SKILL.toml").write_text('version = "1"\n', encoding="utf-8")
    skill, diags = parse_skill(d / "SKILL.toml", source="custom")
    assert skill is None and [x.code for x in diags] == ["toml-missing-skill"]


def test_double_brace_placeholders_say_what_to_write(tmp_path: Path) -> None:
    d = tmp_path / "mood"
    d.mkdir()
    (d / "SKILL.toml").write_text(
        '[skill]\nname = "mood"\ndescription = "Moods."\n\n'
        '[[tools]]\nname = "say_mood"\ndescription = "Say it"\ncommand = "echo {{mood}}"\n'
        '[tools.args]\nmood = "The mood"\n',
        encoding="utf-8",
    )
    reg = Registry.from_roots([tmp_path])
    found = [x for x in reg.diagnostics if x.code == "tool-template"]
    assert len(found) == 1 and "use {mood}, not {{mood}}" in found[0].message
    assert tool_plan(reg)[0] == {}


def test_a_long_description_loads_with_a_warning(tmp_path: Path) -> None:
    path = _md(tmp_path, "name: s\ndescription: " + "word " * 300)
    skill, diags = parse_skill(path, source="custom")
    assert skill is not None
    assert [d.code for d in diags] == ["description-too-long"]
    assert "1024" in diags[0].message or "1,024" in diags[0].message
    d = tmp_path / "t"
    d.mkdir()
    (d / "SKILL.toml").write_text(f'[skill]\nname = "t"\ndescription = "{"word " * 300}"\n', encoding="utf-8")
    skill, diags = parse_skill(d / "SKILL.toml", source="custom")
    assert skill is not None and [x.code for x in diags] == ["description-too-long"]
    # validate says it once, in skills-ref's words
    errors = validate_skill_dir(path.parent).errors
    assert len([e for e in errors if "1024" in e]) == 1


def test_strict_validation_warns_about_nested_metadata(tmp_path: Path) -> None:
    path = _md(tmp_path, 'name: s\ndescription: ok\nmetadata: {"openclaw": {"requires": {"bins": ["git"]}}}')
    strict = validate_skill_dir(path.parent, strict=True)
    assert strict.valid
    assert any("not portable: agentskills.io metadata maps strings to strings" in w for w in strict.warnings)
    assert not any("not portable" in w for w in validate_skill_dir(path.parent).warnings)


def test_bundled_skills_pass_strict_validation_and_keep_their_requirements() -> None:
    from skillyard.discovery import bundled_root

    root = bundled_root()
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        result = validate_skill_dir(d, strict=True)
        assert result.valid and result.warnings == [], (d.name, result.errors, result.warnings)
    reg = Registry.from_roots([root])
    git = reg.get("git-changelog")
    video = reg.get("video-frames")
    assert git is not None and video is not None
    assert git.requires.bins == ("git",) and git.emoji == "📝"
    assert {o.kind for o in video.install} == {"apt", "brew"} and video.requires.bins == ("ffmpeg",)
    assert isinstance(git.metadata["openclaw"], str)
    assert json.loads(git.metadata["openclaw"])["requires"] == {"bins": ["git"]}
