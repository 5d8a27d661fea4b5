"""SKILL.toml (ZeroClaw): `[skill]` metadata, `[[tools]]` shell tools and `prompts`.

Type inference for `[tools.args]` description strings (only when no table declares the type),
on the lower-cased description:

* integer when it contains "number of", "limit", "maximum" or "minimum", or the whole word "count";
* else boolean when it contains one of the whole words enable, disable, flag, true, false;
* else string.

An inferred argument is optional when its description contains "(optional)", "default:" or
"default " (any case), otherwise required. A table `{description, type, required, default, enum,
allow_dash}` declares everything (`required` defaults to true unless a `default` is given).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

from skillyard.fsread import read_fd_bounded
from skillyard.model import Diagnostic, Skill, ToolArg, ToolSpec, usable_name
from skillyard.parsing.frontmatter import to_jsonable

MAX_TOML_BYTES = 1024 * 1024
#: Characters the `command`s of one SKILL.toml may hold in all: checking a template costs time and
#: memory in proportion to its length, and real ones are a line or two.
MAX_COMMAND_CHARS = 65_536
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
TOOL_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")  # `$` would pass a final line break
ARG_TYPES = ("string", "integer", "number", "boolean", "array")
TOOL_KEYS = frozenset({"name", "description", "kind", "command", "args", "timeout"})
ARG_TABLE_KEYS = frozenset({"description", "type", "required", "default", "enum", "allow_dash"})

_INT_WORD = re.compile(r"\bcount\b")
_BOOL_WORD = re.compile(r"\b(?:enable|disable|flag|true|false)\b")


def infer_type(description: str) -> str:
    """The documented heuristic (module docstring); never substring matches for the single words."""
    d = description.lower()
    if any(s in d for s in ("number of", "limit", "maximum", "minimum")) or _INT_WORD.search(d):
        return "integer"
    if _BOOL_WORD.search(d):
        return "boolean"
    return "string"


def infer_optional(description: str) -> bool:
    d = description.lower()
    return "(optional)" in d or "default:" in d or "default " in d


def placeholders(command: str) -> list[str]:
    """Placeholder names in order of first appearance, without repeats."""
    seen: list[str] = []
    for m in PLACEHOLDER_RE.finditer(command):
        if m.group(1) not in seen:
            seen.append(m.group(1))
    return seen


def read_toml_file(
    path: str, ino: int | None = None
) -> tuple[dict[str, Any] | None, list[Diagnostic], int, int]:
    """Parse a SKILL.toml; returns (data or None, diagnostics, mtime_ns, size). With `ino` (the inode
    discovery saw), a file replaced since then is refused, not read."""
    diags: list[Diagnostic] = []
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None, [Diagnostic("error", "not-a-file", "not a regular file", path)], 0, 0
            if ino is not None and st.st_ino != ino:
                why = "skill not loaded: file was replaced while it was being read (reload to read it again)"
                return None, [Diagnostic("error", "changed", why, path)], 0, 0
            raw, too_large = read_fd_bounded(fd, MAX_TOML_BYTES)
        finally:
            os.close(fd)
    except OSError as e:
        return None, [Diagnostic("error", "unreadable", f"cannot read file: {e.strerror or e}", path)], 0, 0
    if too_large:
        diags.append(
            Diagnostic("error", "file-too-large", f"SKILL.toml exceeds {MAX_TOML_BYTES // 1024} KiB", path)
        )
        return None, diags, st.st_mtime_ns, st.st_size
    if not raw.strip():
        diags.append(Diagnostic("error", "empty-file", "file is empty", path))
        return None, diags, st.st_mtime_ns, st.st_size
    if b"\0" in raw:
        diags.append(
            Diagnostic(
                "error", "binary-file", "file contains NUL bytes (binary, not a text skill file)", path
            )
        )
        return None, diags, st.st_mtime_ns, st.st_size
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        diags.append(
            Diagnostic("error", "invalid-utf8", f"file is not valid UTF-8 (byte {e.start}: {e.reason})", path)
        )
        return None, diags, st.st_mtime_ns, st.st_size
    import tomllib  # only a skill with a SKILL.toml needs it, not every scan

    try:
        data = tomllib.loads(text.replace("\r\n", "\n"))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as e:
        diags.append(Diagnostic("error", "toml-invalid", f"invalid TOML: {e}", path, _toml_line(e)))
        return None, diags, st.st_mtime_ns, st.st_size
    return data, diags, st.st_mtime_ns, st.st_size


def _toml_line(e: BaseException) -> int | None:
    m = re.search(r"line (\d+)", str(e))
    return int(m.group(1)) if m else None


def read_prompts(data: dict[str, Any], path: str, diags: list[Diagnostic]) -> tuple[str, ...]:
    raw = data.get("prompts")
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        diags.append(
            Diagnostic("warning", "toml-bad-prompts", "`prompts` must be a list of strings; ignored", path)
        )
        return ()
    out = []
    for p in raw:
        if isinstance(p, str) and p.strip():
            out.append(p.strip())
        else:
            diags.append(
                Diagnostic("warning", "toml-bad-prompts", "ignored a prompt that is not a string", path)
            )
    return tuple(out)


def read_tools(data: dict[str, Any], path: str, diags: list[Diagnostic]) -> tuple[ToolSpec, ...]:
    """`[[tools]]` → ToolSpec; a tool that cannot be used is dropped with a warning."""
    raw = data.get("tools")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        diags.append(
            Diagnostic("warning", "toml-bad-tool", "`tools` must be an array of tables; ignored", path)
        )
        return ()
    out: list[ToolSpec] = []
    names: set[str] = set()
    left = MAX_COMMAND_CHARS
    for i, t in enumerate(raw):
        tool = _read_tool(i, t, path, diags)
        if tool is None:
            continue
        if len(tool.command) > left:
            why = (
                f"tools[{i}]: {tool.name}: the commands of a SKILL.toml may hold {MAX_COMMAND_CHARS} characters "
                "in all; dropped (put a long command in a script under scripts/ and run that)"
            )
            diags.append(Diagnostic("error", "toml-bad-tool", why, path))
            continue
        left -= len(tool.command)
        if tool.name in names:
            diags.append(
                Diagnostic(
                    "warning",
                    "toml-bad-tool",
                    f"tools[{i}]: duplicate tool name {tool.name!r}; dropped",
                    path,
                )
            )
            continue
        names.add(tool.name)
        out.append(tool)
    return tuple(out)


def _read_tool(i: int, t: Any, path: str, diags: list[Diagnostic]) -> ToolSpec | None:
    def warn(msg: str) -> None:
        diags.append(Diagnostic("warning", "toml-bad-tool", f"tools[{i}]: {msg}", path))

    if not isinstance(t, dict):
        warn("not a table; dropped")
        return None
    name = t.get("name")
    if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
        warn(f"name must be 1-64 characters of letters, digits, '_' or '-' (got {name!r}); dropped")
        return None
    command = t.get("command")
    kind = t.get("kind", "shell")
    if not isinstance(kind, str) or not kind.strip():
        warn(f"{name}: kind must be a string; using 'shell'")
        kind = "shell"
    if not isinstance(command, str) or not command.strip():
        warn(f"{name}: missing `command`; dropped")
        return None
    description = t.get("description", "")
    if not isinstance(description, str):
        warn(f"{name}: description must be a string")
        description = str(description)
    for key in sorted(set(t) - TOOL_KEYS):
        warn(f"{name}: unknown key {key!r} ignored")
    timeout = t.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86400:
            warn(f"{name}: timeout must be a number of seconds between 0 and 86400; ignored")
            timeout = None
        else:
            timeout = float(timeout)
    args_raw = t.get("args", {})
    if not isinstance(args_raw, dict):
        warn(f"{name}: `args` must be a table; ignored")
        args_raw = {}
    declared: dict[str, ToolArg] = {}
    for arg_name, spec in args_raw.items():
        arg = _read_arg(name, arg_name, spec, warn)
        if arg is not None:
            declared[arg_name] = arg
    ordered: list[ToolArg] = []
    for p in placeholders(command):
        ordered.append(declared.pop(p, None) or ToolArg(name=p, description=f"Parameter: {p}"))
    ordered.extend(declared.values())
    return ToolSpec(
        name=name,
        description=description.strip(),
        command=command,
        kind=kind.strip().lower(),
        args=tuple(ordered),
        timeout=timeout,
    )


def _read_arg(tool: str, name: str, spec: Any, warn: Any) -> ToolArg | None:
    if not PLACEHOLDER_RE.fullmatch("{" + name + "}"):
        warn(f"{tool}: argument name {name!r} is not an identifier; dropped")
        return None
    if isinstance(spec, str):
        return ToolArg(
            name=name,
            description=spec.strip(),
            type=infer_type(spec),  # type: ignore[arg-type]
            required=not infer_optional(spec),
            inferred=True,
        )
    if not isinstance(spec, dict):
        warn(f"{tool}: argument {name!r} must be a description string or a table; dropped")
        return None
    for key in sorted(set(spec) - ARG_TABLE_KEYS):
        warn(f"{tool}: argument {name!r}: unknown key {key!r} ignored")
    desc = spec.get("description", "")
    if not isinstance(desc, str):
        desc = str(desc)
    typ = spec.get("type", "string")
    if typ not in ARG_TYPES:
        warn(f"{tool}: argument {name!r}: unknown type {typ!r}; using string")
        typ = "string"
    has_default = "default" in spec
    required = spec.get("required", not has_default)
    if not isinstance(required, bool):
        warn(f"{tool}: argument {name!r}: `required` must be a boolean")
        required = not has_default
    enum = spec.get("enum")
    if enum is not None and not isinstance(enum, list):
        warn(f"{tool}: argument {name!r}: `enum` must be an array; ignored")
        enum = None
    allow_dash = spec.get("allow_dash", False)
    if not isinstance(allow_dash, bool):
        warn(f"{tool}: argument {name!r}: `allow_dash` must be a boolean")
        allow_dash = False
    return ToolArg(
        name=name,
        description=desc.strip(),
        type=typ,
        required=required,
        default=to_jsonable(spec.get("default")) if has_default else None,
        enum=tuple(to_jsonable(enum)) if enum is not None else None,
        allow_dash=allow_dash,
        inferred=False,
    )


def unusable_directory_name(path: str) -> Diagnostic:
    return Diagnostic(
        "error",
        "bad-name",
        "skill not loaded: its directory's name, which names it when the skill file gives no usable"
        " name, has line breaks, control characters or two spaces in a row (give the skill a `name`)",
        path,
    )


def _opt_str(v: Any) -> str | None:
    if isinstance(v, str):
        return v.strip() or None
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v)
    return None


#: The agentskills.io limit on `description`; longer ones load, with a warning.
MAX_DESCRIPTION_CHARS = 1024


def long_description(description: str, path: str) -> Diagnostic | None:
    """A warning for a description over the spec's limit: the skill loads, but other tools reject
    it, and catalogs spend the whole text on every prompt."""
    if len(description) <= MAX_DESCRIPTION_CHARS:
        return None
    return Diagnostic(
        "warning",
        "description-too-long",
        f"description is {len(description)} characters; agentskills.io allows {MAX_DESCRIPTION_CHARS}",
        path,
    )


#: Keys of a SKILL.toml that are never the skill's own fields.
_NOT_SKILL_FIELDS = frozenset({"tools", "prompts", "skill"})


def skill_table(data: dict[str, Any]) -> dict[str, Any] | None:
    """The skill's fields: the `[skill]` table or, as ZeroClaw/OpenClaw manifests write them, top-level
    `name`/`description` keys with no `[skill]` table. None when there is neither."""
    table = data.get("skill")
    if isinstance(table, dict):
        return table
    if table is None and ("name" in data or "description" in data):
        return {k: v for k, v in data.items() if k not in _NOT_SKILL_FIELDS}
    return None


def parse_skill_toml(path: str, source: str, ino: int | None = None) -> tuple[Skill | None, list[Diagnostic]]:
    """A SKILL.toml as a Skill(format="toml"); never raises. `ino`: see `read_toml_file`."""
    data, diags, mtime_ns, size = read_toml_file(path, ino)
    if data is None:
        return None, diags
    table = skill_table(data)
    if table is None:
        diags.append(Diagnostic("error", "toml-missing-skill", "SKILL.toml has no [skill] table", path))
        return None, diags
    dir_name = os.path.basename(os.path.dirname(path))
    name = _opt_str(table.get("name"))
    if name is not None and not usable_name(name):
        name = None  # a name with line breaks or control characters would leak into prompts
    if name is None:
        diags.append(
            Diagnostic(
                "warning",
                "missing-name",
                f"[skill] has no usable name; using the directory name {dir_name!r}",
                path,
            )
        )
        name = dir_name
        if not usable_name(name):
            diags.append(unusable_directory_name(path))
            return None, diags
    elif name != dir_name:
        diags.append(
            Diagnostic(
                "warning",
                "name-mismatch",
                f"skill name {name!r} differs from its directory {dir_name!r}",
                path,
            )
        )
    description = _opt_str(table.get("description"))
    if description is None:
        diags.append(
            Diagnostic(
                "error", "missing-description", "skill not loaded: [skill] has no usable description", path
            )
        )
        return None, diags
    if (too_long := long_description(description, path)) is not None:
        diags.append(too_long)
    from skillyard.parsing.openclaw import read_openclaw

    metadata = to_jsonable(table["metadata"]) if isinstance(table.get("metadata"), dict) else {}
    block = table.get("openclaw", data.get("openclaw"))
    if block is not None:  # `[openclaw.requires]` and friends, as ZeroClaw/OpenClaw manifests write them
        metadata = {**metadata, "openclaw": to_jsonable(block)}
    oc, odiags = read_openclaw({}, metadata, path)
    diags.extend(odiags)
    tags_raw = table.get("tags", [])
    tags = (
        tuple(str(t).strip() for t in tags_raw if isinstance(t, str) and t.strip())
        if isinstance(tags_raw, list)
        else ()
    )
    skill = Skill(
        name=name,
        description=description,
        path=_abs(path),
        source=source,
        format="toml",
        frontmatter=to_jsonable(table),
        version=_opt_str(table.get("version")),
        author=_opt_str(table.get("author")),
        tags=tags,
        metadata=metadata,
        emoji=oc.emoji,
        homepage=oc.homepage,
        skill_key=oc.skill_key,
        requires=oc.requires,
        install=oc.install,
        always=oc.always,
        tools=read_tools(data, path, diags),
        prompts=read_prompts(data, path, diags),
        mtime_ns=mtime_ns,
        size=size,
    )
    return skill, diags


def _abs(path: str):  # type: ignore[no-untyped-def]
    from pathlib import Path

    return Path(os.path.abspath(path))


def render_tools(tools: tuple[ToolSpec, ...]) -> str:
    """A short Markdown section naming each tool and its parameters."""
    lines = ["## Tools", ""]
    for t in tools:
        lines.append(f"- `{t.name}`: {t.description}" if t.description else f"- `{t.name}`")
        for a in t.args:
            need = "required" if a.required else "optional"
            desc = f": {a.description}" if a.description else ""
            lines.append(f"  - `{a.name}` ({a.type}, {need}){desc}")
    return "\n".join(lines)


def render_prompts(prompts: tuple[str, ...]) -> str:
    return "\n\n".join(["## Prompts", *prompts])


def render_toml_body(skill: Skill) -> str:
    """The body of a TOML skill: description, prompts, then the tools."""
    parts = [skill.description]
    if skill.prompts:
        parts.append(render_prompts(skill.prompts))
    if skill.tools:
        parts.append(render_tools(skill.tools))
    return "\n\n".join(parts) + "\n"
