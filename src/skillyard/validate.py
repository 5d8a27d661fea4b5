"""Strict validation of skill directories (`skillyard validate PATH... [--strict]`).

Parsing is lenient; validation says what a strict consumer (the agentskills.io spec and its
reference validator, skills-ref) would reject, with skills-ref's exact messages for the same
conditions.

Which problems are errors:

* always: what stops skillyard from loading the skill, and the skills-ref structural errors
  (no/unclosed frontmatter, invalid YAML that even the colon repair cannot read, a frontmatter
  that is not a mapping, missing or empty `name`/`description`, the name rules, description and
  compatibility lengths);
* only with `strict=True`: a name that differs from the directory name, unexpected frontmatter
  fields, and YAML that only loads after the colon repair (these are warnings otherwise).

Only with `strict=True`, a warning: `metadata` values that are not strings (agentskills.io maps
strings to strings; skillyard reads nested maps, other tools may not).

Always warnings: a UTF-8 BOM (only reported in strict mode; skillyard reads such files), a body
over 500 lines, Markdown links to files that do not exist in the skill, links deeper than one
level (`a/b/c.md`), links leaving the skill directory.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

__all__ = ["ValidationResult", "validate_skill_dir"]

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_BODY_LINES = 500
MAX_FILE_BYTES = 16 * 1024 * 1024
ALLOWED_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
TOML_TOP_KEYS = frozenset({"skill", "tools", "prompts"})
TOML_SKILL_KEYS = frozenset({"name", "description", "version", "author", "tags"})

#: Parser diagnostics already covered by a validation message of their own.
_COVERED_CODES = frozenset(
    """
    name-mismatch missing-name bad-name missing-description description-too-long
    no-frontmatter frontmatter-empty frontmatter-not-mapping frontmatter-unclosed frontmatter-too-large
    yaml-repaired yaml-invalid yaml-unsafe-tag yaml-too-complex
    binary-file invalid-utf8 empty-file unreadable file-too-large
    toml-invalid toml-missing-skill toml-bad-tool tool-unused-arg
    """.split()
)

# Link text without nested brackets, a target without blanks/brackets/parentheses, an optional title:
# every part stops at a nearby delimiter, so matching stays linear on hostile lines.
_LINK_RE = re.compile(
    r"!?\[(?:[^\[\]\\]|\\.)*\]\(\s*<?([^\s()\[\]<>]+)>?(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(slots=True)
class ValidationResult:
    """The outcome for one skill; `valid` is False when there is any error."""

    path: str
    name: str | None
    valid: bool
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Collector:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, msg: str) -> None:
        if msg not in self.errors:
            self.errors.append(msg)

    def warn(self, msg: str) -> None:
        if msg not in self.warnings:
            self.warnings.append(msg)

    def strict_error(self, msg: str) -> None:
        """An error with strict=True, a warning otherwise."""
        (self.error if self.strict else self.warn)(msg)


def validate_skill_dir(path: Path, *, strict: bool = False) -> ValidationResult:
    """Validate one skill (a directory, or its SKILL.md / SKILL.toml); never raises."""
    p = Path(path)
    c = _Collector(strict)
    name: str | None = None
    try:
        if not p.exists():
            c.error(f"Path does not exist: {p}")
            return _result(p, None, c)
        if p.is_file() and p.name in ("SKILL.md", "skill.md", "SKILL.toml"):
            p = p.parent
        elif not p.is_dir():
            c.error(f"Not a directory: {p}")
            return _result(p, None, c)
        from skillyard.parsing import find_skill_file

        skill_file = find_skill_file(p)
        if skill_file is None:
            c.error("Missing required file: SKILL.md")
            return _result(p, None, c)
        if skill_file.name == "SKILL.toml":
            name = _validate_toml(skill_file, c)
        else:
            name = _validate_md(skill_file, c)
            toml = skill_file.parent / "SKILL.toml"
            if toml.is_file():
                _validate_toml(toml, c, merged=True)
        _parser_diagnostics(skill_file, c)
    except Exception as e:  # validation must report, never crash
        c.error(f"Validation failed unexpectedly: {type(e).__name__}: {e}")
    return _result(p, name, c)


def _result(p: Path, name: str | None, c: _Collector) -> ValidationResult:
    return ValidationResult(str(p), name, not c.errors, c.errors, c.warnings)


def _parser_diagnostics(skill_file: Path, c: _Collector) -> None:
    """What the loader itself noticed (dropped install specs, bad booleans, …) as warnings."""
    from skillyard.parsing import parse_skill

    skill, diags = parse_skill(skill_file)
    if skill is not None and skill.tools:
        from skillyard.toml_tools import lint_tool

        toml_path = str(skill_file.parent / "SKILL.toml")
        for spec in skill.tools:  # templates that cannot run, flags left behind, values that do not fit
            diags = [*diags, *lint_tool(spec, toml_path)]
    for d in diags:
        if d.code in _COVERED_CODES:
            continue
        where = os.path.basename(d.path) if d.path else ""  # a message about SKILL.md needs no prefix
        (c.error if d.level == "error" else c.warn)(
            f"{where}: {d.message}" if where and where != "SKILL.md" else d.message
        )


def _read_text(path: Path, c: _Collector) -> str | None:
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            c.error(f"{path.name} is not a regular file")
            return None
        if st.st_size > MAX_FILE_BYTES:
            c.error(f"{path.name} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
            return None
        data = path.read_bytes()
    except OSError as e:
        c.error(f"Cannot read {path.name}: {e.strerror or e}")
        return None
    if b"\0" in data:
        c.error(f"{path.name} is a binary file (contains NUL bytes)")
        return None
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        c.error(f"{path.name} is not valid UTF-8 (byte {e.start}: {e.reason})")
        return None
    if bom and c.strict:
        c.warn(f"{path.name} starts with a UTF-8 byte order mark; skillyard reads it, other tools may not")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# ---------------------------------------------------------------- SKILL.md


def _validate_md(skill_file: Path, c: _Collector) -> str | None:
    from skillyard.parsing.frontmatter import _to_file_lines, _yaml_load, parse_frontmatter, to_jsonable

    text = _read_text(skill_file, c)
    if text is None:
        return None
    lines = text.split("\n")  # an empty or blank file fails the first check below
    if lines[0].rstrip(" \t") != "---":
        c.error("SKILL.md must start with YAML frontmatter (---)")
        return None
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip(" \t") == "---"), None)
    if close is None:
        c.error("SKILL.md frontmatter not properly closed with ---")
        return None
    fm_text = "\n".join(lines[1:close])
    body_lines = lines[close + 1 :]
    # Strict YAML first, so the message is the parser's own.
    strict_error: str | None = None
    try:
        _yaml_load(fm_text)
    except Exception as e:
        strict_error = " ".join(str(_to_file_lines(e)).replace(' in "<unicode string>",', " at").split())
    data, diags = parse_frontmatter(fm_text, str(skill_file))
    if strict_error is not None:
        unsafe = any(d.code in ("yaml-unsafe-tag", "yaml-too-complex") for d in diags)
        if data is None or c.strict or unsafe:
            c.error(f"Invalid YAML in frontmatter: {strict_error}")
            if data is None:
                return None
        else:
            repaired = any(d.code == "yaml-repaired" for d in diags)
            how = "after quoting values that contain ': '" if repaired else ""
            warning = f"Invalid YAML in frontmatter: {strict_error} (skillyard still reads it {how})"
            c.warn(warning.replace(" )", ")"))
    if data is None:
        c.error("SKILL.md frontmatter must be a YAML mapping")
        return None
    data = to_jsonable(data)
    if c.errors:  # YAML that only the lenient reader takes: skills-ref stops there too
        return data.get("name") if isinstance(data.get("name"), str) else None
    # every field's problems in one run, as skills-ref reports them: an author fixes them in one pass
    name = None
    if "name" not in data:
        c.error("Missing required field in frontmatter: name")
    else:
        name = _check_name(data["name"], skill_file.parent, c)
    if "description" not in data:
        c.error("Missing required field in frontmatter: description")
    else:
        _check_description(data["description"], c)
    extra = sorted(set(data) - ALLOWED_FIELDS)
    if extra:
        c.strict_error(
            f"Unexpected fields in frontmatter: {', '.join(extra)}. Only {sorted(ALLOWED_FIELDS)} are allowed."
        )
    if c.strict:
        _check_metadata(data.get("metadata"), c)
    if "compatibility" in data:
        comp = data["compatibility"]
        if not isinstance(comp, str):
            c.error("Field 'compatibility' must be a string")
        elif len(comp) > MAX_COMPATIBILITY:
            c.error(f"Compatibility exceeds {MAX_COMPATIBILITY} character limit ({len(comp)} chars)")
    _check_body(body_lines, skill_file.parent, c)
    return name


def _check_name(raw: Any, skill_dir: Path, c: _Collector) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        c.error("Field 'name' must be a non-empty string")
        return None
    name = unicodedata.normalize("NFKC", raw.strip())
    if len(name) > MAX_NAME:
        c.error(f"Skill name '{name}' exceeds {MAX_NAME} character limit ({len(name)} chars)")
    if name != name.lower():
        c.error(f"Skill name '{name}' must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        c.error("Skill name cannot start or end with a hyphen")
    if "--" in name:
        c.error("Skill name cannot contain consecutive hyphens")
    if not all(ch.isalnum() or ch == "-" for ch in name):
        c.error(
            f"Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."
        )
    if unicodedata.normalize("NFKC", skill_dir.name) != name:
        c.strict_error(f"Directory name '{skill_dir.name}' must match skill name '{name}'")
    return name


def _check_metadata(raw: Any, c: _Collector) -> None:
    """Strict mode: agentskills.io defines `metadata` as a map of strings; skillyard reads nested
    maps (OpenClaw requirements), other tools may not. Put those in a JSON string instead."""
    if not isinstance(raw, dict):
        return
    nested = sorted(k for k, v in raw.items() if not isinstance(v, str))
    if nested:
        c.warn(
            f"metadata.{', metadata.'.join(nested)}: not portable: agentskills.io metadata maps strings to "
            "strings (write the value as a JSON string)"
        )


def _check_description(raw: Any, c: _Collector) -> None:
    if not isinstance(raw, str) or not raw.strip():
        c.error("Field 'description' must be a non-empty string")
        return
    if len(raw.strip()) > MAX_DESCRIPTION:
        c.error(f"Description exceeds {MAX_DESCRIPTION} character limit ({len(raw.strip())} chars)")


def _check_body(body_lines: list[str], skill_dir: Path, c: _Collector) -> None:
    while body_lines and not body_lines[-1].strip():
        body_lines = body_lines[:-1]
    if len(body_lines) > MAX_BODY_LINES:
        c.warn(
            f"SKILL.md body has {len(body_lines)} lines; keep it under {MAX_BODY_LINES} "
            "and move details to referenced files"
        )
    root = skill_dir.resolve()
    in_fence = False
    seen: set[str] = set()
    for line in body_lines:
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in _LINK_RE.finditer(line):
            target = m.group(1)
            if target in seen:
                continue
            seen.add(target)
            _check_link(target, root, c)


def _check_link(target: str, root: Path, c: _Collector) -> None:
    if target.startswith("#") or _SCHEME_RE.match(target) or target.startswith("//"):
        return  # anchors and URLs are not files of the skill
    rel = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not rel:
        return
    if rel.startswith("/") or rel.startswith("~"):
        c.warn(f"Link '{target}' is an absolute path; reference files relative to the skill directory")
        return
    full = (root / rel).resolve()
    if full != root and root not in full.parents:
        c.warn(f"Link '{target}' points outside the skill directory")
        return
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if len(parts) > 2:
        c.warn(f"Link '{target}' is more than one level deep; keep references one level deep from SKILL.md")
    if not full.exists():
        c.warn(f"Broken link: '{target}' does not exist in the skill")


# ---------------------------------------------------------------- SKILL.toml


def _validate_toml(path: Path, c: _Collector, *, merged: bool = False) -> str | None:
    from skillyard.parsing.skill_toml import (
        ARG_TABLE_KEYS,
        ARG_TYPES,
        PLACEHOLDER_RE,
        TOOL_KEYS,
        TOOL_NAME_RE,
        placeholders,
        read_toml_file,
        skill_table,
    )

    data, diags, _, _ = read_toml_file(str(path))
    if data is None:
        for d in diags:
            c.error(f"SKILL.toml: {d.message}")
        return None
    table = skill_table(data)
    flat = table is not None and table is not data.get("skill")
    if flat:
        c.strict_error(
            "SKILL.toml: the skill's fields are at the top level; the spec form is a [skill] table"
        )
    for key in sorted(set(data) - TOML_TOP_KEYS - (set(table) if flat and table else set())):
        c.strict_error(f"SKILL.toml: unexpected top-level key '{key}'")
    name: str | None = None
    if not merged:
        if not isinstance(table, dict):
            c.error("SKILL.toml: missing [skill] table")
        else:
            for key in ("name", "description"):
                if key not in table:
                    c.error(f"SKILL.toml: missing required field [skill].{key}")
            if "name" in table:
                name = _check_name(table["name"], path.parent, c)
            if "description" in table:
                _check_description(table["description"], c)
            for key in sorted(set(table) - TOML_SKILL_KEYS):
                c.strict_error(f"SKILL.toml: unexpected field [skill].{key}")
            if "tags" in table and not (
                isinstance(table["tags"], list) and all(isinstance(t, str) for t in table["tags"])
            ):
                c.error("SKILL.toml: [skill].tags must be an array of strings")
            for key in ("version", "author"):
                if key in table and not isinstance(table[key], str):
                    c.error(f"SKILL.toml: [skill].{key} must be a string")
    prompts = data.get("prompts")
    if prompts is not None and not (isinstance(prompts, list) and all(isinstance(p, str) for p in prompts)):
        c.error("SKILL.toml: prompts must be an array of strings")
    tools = data.get("tools")
    if tools is None:
        return name
    if not isinstance(tools, list):
        c.error("SKILL.toml: tools must be an array of tables ([[tools]])")
        return name
    seen: set[str] = set()
    for i, t in enumerate(tools):
        where = f"SKILL.toml: tools[{i}]"
        if not isinstance(t, dict):
            c.error(f"{where} must be a table")
            continue
        tname = t.get("name")
        if not isinstance(tname, str) or not TOOL_NAME_RE.match(tname):
            c.error(f"{where}: name must be 1-64 characters of letters, digits, '_' or '-'")
        else:
            where = f"SKILL.toml: tool '{tname}'"
            if tname in seen:
                c.error(f"{where}: duplicate tool name")
            seen.add(tname)
        desc = t.get("description")
        if not isinstance(desc, str) or not desc.strip():
            c.error(f"{where}: description must be a non-empty string")
        kind = t.get("kind", "shell")
        if kind != "shell":
            c.warn(f"{where}: kind '{kind}' is not supported; only shell tools run")
        command = t.get("command")
        if not isinstance(command, str) or not command.strip():
            c.error(f"{where}: command must be a non-empty string")
            command = ""
        for key in sorted(set(t) - TOOL_KEYS):
            c.strict_error(f"{where}: unexpected key '{key}'")
        timeout = t.get("timeout")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86400
        ):
            c.error(f"{where}: timeout must be a number of seconds between 0 and 86400")
        args = t.get("args", {})
        if not isinstance(args, dict):
            c.error(f"{where}: args must be a table")
            args = {}
        used = placeholders(command)
        for ph in used:
            if ph not in args:
                c.warn(
                    f"{where}: placeholder '{{{ph}}}' has no [tools.args] entry; it becomes a required string"
                )
        for aname, spec in args.items():
            if not PLACEHOLDER_RE.fullmatch("{" + aname + "}"):
                c.error(f"{where}: argument name '{aname}' is not an identifier")
                continue
            if aname not in used:
                c.warn(f"{where}: argument '{aname}' is not used in the command")
            if isinstance(spec, str):
                continue
            if not isinstance(spec, dict):
                c.error(f"{where}: argument '{aname}' must be a description string or a table")
                continue
            if spec.get("type", "string") not in ARG_TYPES:
                c.error(f"{where}: argument '{aname}' has unknown type {spec.get('type')!r}")
            for key in ("required", "allow_dash"):
                if key in spec and not isinstance(spec[key], bool):
                    c.error(f"{where}: argument '{aname}': {key} must be a boolean")
            if "enum" in spec and not isinstance(spec["enum"], list):
                c.error(f"{where}: argument '{aname}': enum must be an array")
            for key in sorted(set(spec) - ARG_TABLE_KEYS):
                c.strict_error(f"{where}: argument '{aname}': unexpected key '{key}'")
    return name
