"""SKILL.md: frontmatter → Skill, with every dialect's fields (spec, Claude Code, OpenClaw, Codex).

Choices (also in docs/formats.md):

* name defaults to the directory name; a different frontmatter name is a warning and the skill
  is keyed by the frontmatter name;
* a file without frontmatter (or whose frontmatter is empty or not a mapping) takes its
  description from the first paragraph of the body (not a heading), with a warning;
  a frontmatter mapping without a description is not loaded;
* a sibling SKILL.toml contributes its tools and prompts (prompts are appended to the body).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any

from skillyard.fsread import Bounded, read_fd_bounded, read_under
from skillyard.model import (
    MAX_BODY_BYTES,
    SKILL_FIELDS,
    Diagnostic,
    Row,
    Skill,
    ToolSpec,
    install_rows,
    pack_frontmatter,
    skill_from_row,
    skill_to_row,
    tool_rows,
    usable_name,
)
from skillyard.parsing.frontmatter import parse_frontmatter
from skillyard.parsing.openclaw import decode_metadata, read_openclaw, str_list, to_bool
from skillyard.parsing.skill_toml import (
    long_description,
    parse_skill_toml,
    read_prompts,
    read_toml_file,
    read_tools,
    render_prompts,
    render_toml_body,
    unusable_directory_name,
)
from skillyard.parsing.text import ReadError, decode_text, read_head, split_frontmatter

#: Preference when a directory holds several: the spec's name first, then the lowercase variant
#: (accepted by skills-ref and ClawHub), then ZeroClaw's TOML manifest (merged into a SKILL.md when both exist).
SKILL_FILE_NAMES = ("SKILL.md", "skill.md", "SKILL.toml")


def find_skill_file(directory: Path) -> Path | None:
    """The skill file of a directory by preference (SKILL.md > skill.md > SKILL.toml), or None."""
    try:
        names = set(os.listdir(directory))
    except OSError:
        return None
    for name in SKILL_FILE_NAMES:
        if name in names and os.path.isfile(os.path.join(directory, name)):
            return Path(directory) / name
    return None


def parse_skill(
    path: str | Path, source: str = "custom", *, toml_sibling: bool | None = None
) -> tuple[Skill | None, list[Diagnostic]]:
    """Parse one skill file (SKILL.md / skill.md / SKILL.toml); never raises.

    `source` labels the root it came from. `toml_sibling` says whether a SKILL.toml sits next to
    a SKILL.md (its tools and prompts are merged in); None means "look" (one stat).
    """
    row, diags = parse_skill_row(path, source, toml_sibling=toml_sibling)
    if row is None:
        return None, diags
    if len(_SHARED) > _SHARED_MAX:
        _SHARED.clear()
    return skill_from_row(row, _SHARED), diags


#: Equal immutable values of the skills `parse_skill` builds (requirements, install options,
#: tuples of strings) are one object each, as in a registry; bounded, so hostile input cannot grow it.
_SHARED: dict[Any, Any] = {}
_SHARED_MAX = 4096


def parse_skill_row(
    path: str | Path, source: str = "custom", *, toml_sibling: bool | None = None, ino: int | None = None
) -> tuple[Row | None, list[Diagnostic]]:
    """`parse_skill` as a row (`model.skill_to_row`'s shape): a scan keeps rows, summaries are
    read from them, and a `Skill` is built from one only when someone asks for it. `ino`: the
    inode discovery found at `path`; a file replaced since then is not read (see `read_head`)."""
    spath = os.fspath(path)
    try:
        if spath[-5:].lower() == ".toml":
            skill, diags = parse_skill_toml(spath, source, ino)
            return (skill_to_row(skill) if skill is not None else None), diags
        return _parse_md(spath, source, toml_sibling, ino)
    except Exception as e:  # a parser bug must still only cost this one skill
        return None, [
            Diagnostic(
                "error", "parse-failed", f"unexpected error while parsing: {type(e).__name__}: {e}", spath
            )
        ]


def first_paragraph(body: str) -> str | None:
    """The first prose paragraph of a Markdown body: skips headings, rules, comments and fences."""
    para: list[str] = []
    in_fence = False
    in_comment = False
    for line in body.split("\n"):
        s = line.strip()
        if in_fence:
            if s.startswith(("```", "~~~")):
                in_fence = False
            continue
        if in_comment:
            if "-->" in s:
                in_comment = False
            continue
        if not s:
            if para:
                break
            continue
        if para:
            if s.startswith(("#", "```", "~~~")):
                break
            para.append(s)
            continue
        if s.startswith(("```", "~~~")):
            in_fence = True
        elif s.startswith("<!--"):
            in_comment = "-->" not in s
        elif s.startswith("#") or set(s) <= set("-*_= "):
            continue
        else:
            para.append(s)
    text = " ".join(para).strip()
    return text or None


def _str_field(fm: dict[str, Any], key: str, path: str, diags: list[Diagnostic]) -> str | None:
    v = fm.get(key)
    if v is None:
        return None
    if isinstance(v, str):
        return v.strip() or None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, list) and all(isinstance(x, str | int | float) for x in v):
        return " ".join(str(x) for x in v).strip() or None  # e.g. argument-hint given as a sequence
    if (
        key in _STR_ATTR
        and isinstance(v, dict)
        and all(isinstance(x, str | int | float | None) for x in v.values())
    ):
        # a map of plain values, e.g. `compatibility: {claude-code: true, cursor: true}`: the keys set
        # to true, `key: value` for the rest, false and empty left out
        parts = [
            str(k) if x is True else f"{k}: {x}" for k, x in v.items() if x is not False and x is not None
        ]
        return ", ".join(parts).strip() or None
    diags.append(Diagnostic("warning", "bad-field", f"`{key}` must be a string; ignored", path))
    return None


def _bool_field(fm: dict[str, Any], key: str, default: bool, path: str, diags: list[Diagnostic]) -> bool:
    if key not in fm or fm[key] is None:
        return default
    b = to_bool(fm[key])
    if b is None:
        diags.append(
            Diagnostic(
                "warning",
                "bad-boolean",
                f"`{key}` is not a boolean (yes/no/true/false/on/off/1/0); ignored",
                path,
            )
        )
        return default
    return b


def _parse_md(
    path: str, source: str, toml_sibling: bool | None, ino: int | None = None
) -> tuple[Row | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    try:
        head = read_head(path, ino)
    except ReadError as e:
        return None, [Diagnostic("error", e.code, f"skill not loaded: {e.message}", path)]
    if path[:1] == os.sep:  # absolute: plain string splits are exact
        abs_path = path
        dir_path = path.rpartition(os.sep)[0] or os.sep
        dir_name = dir_path.rpartition(os.sep)[2] or "skill"
    else:
        abs_path = os.path.abspath(path)
        dir_path = os.path.dirname(abs_path)
        dir_name = os.path.basename(dir_path) or "skill"
    fm: dict[str, Any] | None = None
    if head.loose_close:
        diags.append(
            Diagnostic(
                "warning",
                "frontmatter-loose-close",
                "the closing --- has text after it on the same line; read as the end of the "
                "frontmatter (put the closing --- on a line of its own)",
                path,
            )
        )
    if head.frontmatter is not None:
        fm, fdiags = parse_frontmatter(head.frontmatter, path)
        diags.extend(fdiags)
        if fm is None and any(d.level == "error" for d in fdiags):
            return None, diags
    if fm is None:
        description = first_paragraph(head.body_head)
        why = "has no frontmatter" if head.frontmatter is None else "has no usable frontmatter"
        if description is None:
            diags.append(
                Diagnostic(
                    "error",
                    "missing-description",
                    f"skill not loaded: the file {why} and its body has no paragraph to use as a description",
                    path,
                )
            )
            return None, diags
        diags.append(
            Diagnostic(
                "warning",
                "no-frontmatter",
                f"the file {why}; name taken from the directory, description from the first paragraph",
                path,
            )
        )
        fm_data: dict[str, Any] = {}
        name = dir_name
    else:
        fm_data = fm
        raw = fm_data.get("description")
        description = raw.strip() if raw.__class__ is str else None
        if not description and "description" not in fm_data:
            # omitted, as Claude Code allows: the first paragraph of the body stands in
            description = first_paragraph(head.body_head)
            if description is not None:
                diags.append(
                    Diagnostic(
                        "warning",
                        "description-from-body",
                        "frontmatter has no `description`; the first paragraph of the body is used",
                        path,
                    )
                )
        if not description:
            description = _description(fm_data, path, diags)
            if description is None:
                return None, diags
        raw_name = fm_data.get("name")
        if raw_name.__class__ is str:
            name = raw_name.strip() or None
        else:
            name = _str_field(fm_data, "name", path, diags) if raw_name is not None else None
        if name is not None and not usable_name(name):
            name = None  # a name with line breaks or control characters would leak into prompts
        if name is None:
            if raw_name is not None:
                diags.append(
                    Diagnostic("warning", "bad-name", "`name` is not usable; using the directory name", path)
                )
            name = dir_name
        elif name != dir_name:
            diags.append(
                Diagnostic(
                    "warning",
                    "name-mismatch",
                    f"skill name {name!r} differs from its directory {dir_name!r} (the skill is registered as {name!r})",
                    path,
                )
            )
    if not usable_name(name):
        diags.append(unusable_directory_name(path))
        return None, diags
    if (too_long := long_description(description, path)) is not None:
        diags.append(too_long)
    head_fields = (head.body_offset, head.mtime_ns, head.size)
    where = (path, abs_path, dir_path)
    return _build(fm_data, name, description, where, source, diags, toml_sibling, head_fields), diags


def _description(fm: dict[str, Any], path: str, diags: list[Diagnostic]) -> str | None:
    raw = fm.get("description")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        what = "is empty" if isinstance(raw, str) or ("description" in fm) else "is missing"
        diags.append(
            Diagnostic(
                "error", "missing-description", f"skill not loaded: frontmatter `description` {what}", path
            )
        )
        return None
    if isinstance(raw, dict | list):
        diags.append(
            Diagnostic(
                "error",
                "missing-description",
                "skill not loaded: frontmatter `description` is not a string",
                path,
            )
        )
        return None
    return _str_field(fm, "description", path, diags)


def _build(
    fm: dict[str, Any],
    name: str,
    description: str,
    where: tuple[str, str, str],
    source: str,
    diags: list[Diagnostic],
    toml_sibling: bool | None,
    head_fields: tuple[int, int, int],
) -> Row:
    """The skill's row from its frontmatter (fields in `_ROW_ORDER`); `where` is the file as
    given (what diagnostics name), as an absolute path, and its directory."""
    path, abs_path, dir_path = where
    get = fm.get
    raw_meta = get("metadata")
    if raw_meta.__class__ is dict:
        metadata = raw_meta
    else:
        metadata = decode_metadata(raw_meta, path, diags) if "metadata" in fm else {}
    oc, odiags = read_openclaw(fm, metadata, path)
    if odiags:
        diags.extend(odiags)
    arguments: tuple[str, ...] = ()
    args_raw = get("arguments")
    if isinstance(args_raw, str) and "," not in args_raw:
        arguments = tuple(args_raw.split())
    elif args_raw is not None:
        arguments = str_list(args_raw, "arguments", path, diags)
    tools_raw = get("allowed-tools", get("allowed_tools"))
    if tools_raw.__class__ is str:
        allowed = _ALLOWED.get(tools_raw)  # collections repeat the same few spellings
        if allowed is None:
            allowed = tuple(_TOOL_TOKEN.findall(tools_raw))
            if len(_ALLOWED) < _ALLOWED_MAX and len(tools_raw) <= 256:
                _ALLOWED[tools_raw] = allowed
    else:
        allowed = _allowed_tools(tools_raw, path, diags) if tools_raw is not None else ()
    tags_raw = get("tags")
    tags = str_list(tags_raw, "tags", path, diags) if tags_raw is not None else ()
    opt = _optional_fields(fm, path, diags) if not _OPTIONAL_KEYS.isdisjoint(fm) else {}
    tools: tuple[ToolSpec, ...] = ()
    prompts: tuple[str, ...] = ()
    if toml_sibling is not False:
        toml_path = dir_path + os.sep + "SKILL.toml"
        # access() first: for the usual missing file it answers without raising (isfile's
        # FileNotFoundError costs as much as the system call itself)
        if toml_sibling or (os.access(toml_path, os.F_OK) and os.path.isfile(toml_path)):
            tools, prompts = _merge_toml(toml_path, diags)
    opt_get = opt.get
    return (
        name,
        description,
        abs_path,
        source,
        "md",
        pack_frontmatter(fm, metadata),
        None,  # metadata: in the packed frontmatter
        oc.emoji,
        oc.homepage,
        opt_get("license"),
        opt_get("compatibility"),
        allowed,
        oc.requires_row,
        install_rows(oc.install) if oc.install else (),
        oc.always,
        opt_get("disable_model_invocation", False),
        opt_get("user_invocable", True),
        opt_get("when_to_use"),
        opt_get("argument_hint"),
        arguments,
        oc.skill_key,
        opt_get("version"),
        opt_get("author"),
        tags,
        tool_rows(tools) if tools else (),
        prompts,
        *head_fields,
    )


#: The fields of the row `_build` writes, in its order: `model.SKILL_FIELDS` (checked on import).
_ROW_ORDER = (
    *("name", "description", "path", "source", "format", "frontmatter", "metadata", "emoji", "homepage"),
    *("license", "compatibility", "allowed_tools", "requires", "install", "always"),
    *("disable_model_invocation", "user_invocable", "when_to_use", "argument_hint", "arguments"),
    *("skill_key", "version", "author", "tags", "tools", "prompts", "body_offset", "mtime_ns", "size"),
)
if _ROW_ORDER != SKILL_FIELDS:
    raise ImportError("parsing.skill_md writes rows in another order than model.SKILL_FIELDS")


def _optional_fields(fm: dict[str, Any], path: str, diags: list[Diagnostic]) -> dict[str, Any]:
    """The optional string and boolean fields present in `fm`, by field name."""
    opt: dict[str, Any] = {}
    present = fm.keys() & _OPTIONAL_KEYS
    if len(present) == 1:  # the usual case (e.g. only `license`): no walk over every optional key
        (key,) = present
        attr = _STR_ATTR.get(key)
        if attr is not None:
            v = fm[key]
            v = (v.strip() or None) if v.__class__ is str else _str_field(fm, key, path, diags)
            if v is not None:
                opt[attr] = v
        else:
            attr, default = _BOOL_ATTR[key]
            opt[attr] = _bool_field(fm, key, default, path, diags)
        return opt
    for key, attr in _STR_ATTRS:
        if key in fm:
            v = fm[key]
            if v.__class__ is str:
                v = v.strip() or None
            else:
                v = _str_field(fm, key, path, diags)
            if v is not None and opt.get(attr) is None:
                opt[attr] = v
    for key, attr, default in _BOOL_ATTRS:
        if key in fm:
            opt[attr] = _bool_field(fm, key, default, path, diags)
    return opt


_STR_ATTRS = (
    ("license", "license"),
    ("compatibility", "compatibility"),
    ("when_to_use", "when_to_use"),
    ("when-to-use", "when_to_use"),
    ("argument-hint", "argument_hint"),
    ("version", "version"),
    ("author", "author"),
)
_BOOL_ATTRS = (
    ("disable-model-invocation", "disable_model_invocation", False),
    ("user-invocable", "user_invocable", True),
)
_OPTIONAL_KEYS = frozenset(k for k, _ in _STR_ATTRS) | frozenset(k for k, _, _ in _BOOL_ATTRS)
_STR_ATTR = dict(_STR_ATTRS)
_BOOL_ATTR = {k: (attr, default) for k, attr, default in _BOOL_ATTRS}

_TOOL_TOKEN = re.compile(r"(?:[^\s,(]|\([^)]*\)?)+")
#: `allowed-tools` string → its tokens (an immutable tuple, so equal strings can share one); bounded.
_ALLOWED: dict[str, tuple[str, ...]] = {}
_ALLOWED_MAX = 4096


def _allowed_tools(value: Any, path: str, diags: list[Diagnostic]) -> tuple[str, ...]:
    """Space- or comma-separated string, or a list; `Bash(git diff:*)` keeps its inner spaces."""
    if isinstance(value, list):
        return str_list(value, "allowed-tools", path, diags)
    if not isinstance(value, str):
        diags.append(
            Diagnostic("warning", "bad-field", "`allowed-tools` must be a string or a list; ignored", path)
        )
        return ()
    return tuple(_TOOL_TOKEN.findall(value))


def _merge_toml(toml_path: str, diags: list[Diagnostic]) -> tuple[tuple[ToolSpec, ...], tuple[str, ...]]:
    """SKILL.md wins; the SKILL.toml next to it adds tools and prompts."""
    data, tdiags, _, _ = read_toml_file(toml_path)
    diags.extend(tdiags)
    if data is None:
        return (), ()
    return read_tools(data, toml_path, diags), read_prompts(data, toml_path, diags)


def load_body(skill: Skill) -> str:
    """The full instructions: Markdown body without frontmatter (plus merged TOML prompts),
    or the rendered body of a TOML skill. Raises OSError when the file cannot be read.

    At most MAX_BODY_BYTES are read (a note says how much was left out), and the file is
    opened inside the skill directory without following a link (see `_read_skill_file`).
    """
    if skill.format == "toml":
        return render_toml_body(skill)
    got = _read_skill_file(skill)
    text = decode_text(got.data)
    if not got.truncated and (got.size, got.mtime_ns) == (skill.size, skill.mtime_ns):
        body = text[skill.body_offset :]
    else:  # changed since discovery (or cut short): find the body again rather than trust the offset
        _, body, _ = split_frontmatter(text)
    body = body.lstrip("\n")
    if got.truncated:
        body = body.rstrip("\n") + f"\n[truncated: {got.size - len(got.data)} more bytes not read]\n"
    if skill.prompts:
        body = body.rstrip("\n") + "\n\n" + render_prompts(skill.prompts) + "\n"
    return body


def _read_skill_file(skill: Skill) -> Bounded:
    """The start of the skill file, opened in its directory with O_NOFOLLOW.

    Discovery accepts a skill file that is a link staying inside the skill roots. Such a
    file is opened through the link only when the file reached is a regular file with the
    size and mtime discovery recorded for it; a link changed since then is refused.
    """
    try:
        return read_under(skill.root, skill.path.name, MAX_BODY_BYTES)
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.EMLINK):
            raise
    fd = os.open(skill.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_size, st.st_mtime_ns) != (skill.size, skill.mtime_ns):
            raise OSError(errno.ESTALE, "skill file link changed since discovery (reload)", str(skill.path))
        data, more = read_fd_bounded(fd, MAX_BODY_BYTES)
        return Bounded(data, more, max(st.st_size, len(data) + more), st.st_mtime_ns)
    finally:
        os.close(fd)
