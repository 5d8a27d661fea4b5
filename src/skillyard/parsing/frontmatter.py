"""The lenient frontmatter chain: fast path, safe YAML, colon repair, line parser.

Every step produces the same JSON-compatible mapping for the same input; the fast
path only accepts what it can read exactly like the YAML path (the tests check
that with generated frontmatters) and hands everything else to libyaml. PyYAML is
imported only when a frontmatter needs it: most catalogs never do, and a listing
then starts without it.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import math
import re
from types import ModuleType
from typing import Any

from skillyard.model import Diagnostic

_yaml_module: ModuleType | None = None
_Loader: Any = None


def _yaml() -> ModuleType:
    """PyYAML, imported on first use, with the loader the YAML path reads with."""
    global _yaml_module, _Loader
    if _yaml_module is None:
        import yaml

        base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class Loader(base):  # type: ignore[misc, valid-type]
            """The safe loader, plus: a bare `=` or `<<` value is text (PyYAML resolves them to
            tags it cannot build)."""

        text = yaml.constructor.SafeConstructor.construct_yaml_str
        Loader.add_constructor("tag:yaml.org,2002:value", text)
        Loader.add_constructor("tag:yaml.org,2002:merge", text)
        _Loader = Loader
        _yaml_module = yaml
    return _yaml_module


#: Top-level keys whose values are read as the author spelled them (`name: yes` is "yes", `version: 1.10`
#: is "1.10"), never as YAML 1.1 booleans, numbers or dates.
STRING_FIELDS = frozenset(
    {
        "name",
        "description",
        "version",
        "author",
        "license",
        "compatibility",
        "when_to_use",
        "when-to-use",
        "argument-hint",
        "homepage",
        "emoji",
        "skillKey",
        "model",
        "display-name",
        "primaryEnv",
    }
)

#: String fields whose flow-sequence spelling is kept as the author's text (Claude Code hints).
RAW_SPAN_FIELDS = frozenset({"argument-hint"})

#: Complexity caps: an alias bomb or deep nesting becomes a diagnostic, not a hang.
MAX_NODES = 20_000
MAX_DEPTH = 64

_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"

# What YAML 1.1 reads a plain scalar as (yaml.org/type): these exact spellings are booleans and
# nulls; a scalar starting with a digit, sign or dot may be an int, float or timestamp. Anything
# else is a string. The fast path settles the simple cases and sends every other one to PyYAML.
_BOOL_WORDS = {
    spelling: word in ("yes", "true", "on")
    for word in ("yes", "no", "true", "false", "on", "off")
    for spelling in (word, word.capitalize(), word.upper())
}
_NULL_WORDS = frozenset({"~", "null", "Null", "NULL"})
#: First characters of the plain scalars YAML 1.1 may read as something other than a string.
_IMPLICIT = frozenset("~+-.0123456789yYnNtTfFoO")

# Fast path grammar: one `key: value` per line, nothing indented, no tabs, only characters YAML reads as
# printable and not as line breaks.
_PLAIN_BAD_START = frozenset("?:,[]{}#&*!|>'\"%@`")
_SIMPLE_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FAST_MAX_JSON = 4096


class _Fallback(Exception):
    """The fast path cannot be sure; use the YAML path."""


class _TooComplex(Exception):
    pass


def _is_plain_text(key: str) -> bool:
    """Whether YAML 1.1 reads this plain key (a letter or `_`, then word characters) as a string."""
    return key not in _BOOL_WORDS and key not in _NULL_WORDS


_KEY_OK: dict[str, bool] = {}


def _fast_scalar(key: str, value: str) -> Any:
    c = value[0]
    if c == '"':
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Fallback
        return inner
    if c == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'":
            raise _Fallback
        if "'" in inner:
            if "'" in inner.replace("''", ""):
                raise _Fallback
            return inner.replace("''", "'")
        return inner
    if c == "{" or c == "[":
        if key in STRING_FIELDS or len(value) > _FAST_MAX_JSON or "\\u" in value:
            raise _Fallback
        if value.count("[") + value.count("{") > MAX_DEPTH:
            raise _Fallback  # let the YAML path apply its depth cap
        if len(value) > 1000 and _LONG_JSON_KEY.search(value):
            raise _Fallback  # YAML limits implicit keys to 1024 characters
        try:
            data, end = _SCAN(value, 0)  # the C scanner behind raw_decode, without its wrapper
        except (StopIteration, ValueError, RecursionError):
            raise _Fallback from None
        if end != len(value):
            raise _Fallback
        return data
    if (
        c in _PLAIN_BAD_START
        or ": " in value
        or " #" in value
        or value[-1] == ":"
        or c == "-"
        and value[:2] in ("-", "- ")
    ):
        raise _Fallback
    if c not in _IMPLICIT:
        return value
    if value in _NULL_WORDS:
        return None
    if key in STRING_FIELDS:
        return value
    flag = _BOOL_WORDS.get(value)
    if flag is not None:
        return flag
    if c in "yYnNtTfFoO":
        return value  # a word that is not one of the boolean spellings
    if _SIMPLE_INT.fullmatch(value):
        return int(value)
    raise _Fallback  # floats, timestamps, octal and sexagesimal numbers: PyYAML decides


def _json_float(s: str) -> float:
    if "e" in s or "E" in s:
        raise _Fallback  # YAML 1.1 floats need a signed exponent and a dot
    return float(s)


_LONG_JSON_KEY = re.compile(r'"(?:[^"\\]|\\.){900,}"\s*:')


#: Characters the fast path refuses anywhere: those YAML does not read as printable, its line
#: breaks other than `\n`, the BOM, and tabs. Every other character is accepted, so within the
#: fast path's lines `.` stands for "an accepted character" (one check of the whole text first;
#: a character class of the accepted ones takes milliseconds to compile at every start).
_REFUSED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
# One pass over the text: a key line, a comment or blank line, or anything else (then `bad` is set).
# The value must start with a non-space so ` +` and the value never compete (linear matching).
_FAST_DOC = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_-]{0,63}):(?: +([^ \n].*)?)?|(?:#.*| *)|(.+))$", re.M)
_JSON = json.JSONDecoder(parse_float=_json_float)
_SCAN = _JSON.scan_once


def fast_parse(text: str) -> dict[str, Any] | None:
    """Parse simple frontmatter without YAML; None when the text needs the full parser."""
    if "\r" in text or _REFUSED.search(text):  # (`$` would match before a `\r`)
        return None
    out: dict[str, Any] = {}
    try:
        for key, value, bad in _FAST_DOC.findall(text):
            if bad:
                return None
            if not key:
                continue
            ok = _KEY_OK.get(key)
            if ok is None:
                ok = _is_plain_text(key)
                if len(_KEY_OK) < 4096:
                    _KEY_OK[key] = ok
            if not ok:
                return None
            value = value.rstrip(" ")
            if not value:
                out[key] = None
                continue
            c = value[0]
            if c == '"' and value[-1] == '"' and len(value) > 1:
                inner = value[1:-1]
                if '"' not in inner and "\\" not in inner:
                    out[key] = inner
                    continue
                return None
            if (
                c not in _IMPLICIT
                and c not in _PLAIN_BAD_START
                and ": " not in value
                and " #" not in value
                and value[-1] != ":"
            ):
                out[key] = value  # a plain scalar that YAML 1.1 can only read as a string
                continue
            out[key] = _fast_scalar(key, value)
    except _Fallback:
        return None
    return out


# ---------------------------------------------------------------- YAML path


def _check_complexity(root: Any) -> None:
    """Count nodes as a consumer would see them (aliases expanded) and bound the depth."""
    nodes = _yaml().nodes
    SequenceNode, MappingNode = nodes.SequenceNode, nodes.MappingNode  # noqa: N806
    budget = MAX_NODES
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise _TooComplex(f"frontmatter expands to more than {MAX_NODES} values (alias bomb?)")
        if depth > MAX_DEPTH:
            raise _TooComplex(f"frontmatter nests deeper than {MAX_DEPTH} levels")
        if isinstance(node, SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))


def _yaml_load(text: str) -> Any:
    nodes = _yaml().nodes
    MappingNode, ScalarNode = nodes.MappingNode, nodes.ScalarNode  # noqa: N806
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_complexity(node)
        data = loader.construct_document(node)
        if isinstance(node, MappingNode) and isinstance(data, dict):
            last: dict[str, Any] = {}  # duplicate keys: the last one wins, as in the constructed data
            for k_node, v_node in node.value:
                if isinstance(k_node, ScalarNode) and k_node.tag == _STR and k_node.value in STRING_FIELDS:
                    last[k_node.value] = v_node
            for key, v_node in last.items():
                if key not in data:
                    continue
                if not isinstance(v_node, ScalarNode):
                    if key in RAW_SPAN_FIELDS:  # `argument-hint: [file]` means the text "[file]"
                        data[key] = text[v_node.start_mark.index : v_node.end_mark.index].strip()
                    continue
                if v_node.tag == _NULL and not v_node.style:
                    data[key] = None
                elif v_node.style in ("|", ">"):
                    data[key] = v_node.value.rstrip("\n")
                else:
                    data[key] = v_node.value
        return data
    finally:
        loader.dispose()


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """YAML values as JSON data: dates become ISO strings, keys strings, sets lists, bytes base64."""
    if _depth > MAX_DEPTH + 2:
        raise _TooComplex("nesting too deep")
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {_json_key(k): to_jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v, _depth + 1) for v in value]
    if isinstance(value, set):
        return sorted((to_jsonable(v, _depth + 1) for v in value), key=str)
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _json_key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if k is None:
        return "null"
    if isinstance(k, _dt.date | _dt.datetime):
        return k.isoformat()
    return str(to_jsonable(k)) if isinstance(k, tuple) else str(k)


# ------------------------------------------------------- repair and line parser

_REPAIR_LINE = re.compile(r"^(\s*(?:-\s+)?[^\s:#'\"{}\[\],&*!|>%@`-][^:#]*?):[ \t]+(\S(?:.*\S)?)\s*$")
_REPAIR_SKIP_START = frozenset("'\"{[|>&*!#%@`")


def repair_colons(text: str) -> str | None:
    """Quote unquoted values that contain `: ` (the most common frontmatter mistake); None if nothing to do."""
    changed = False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = _REPAIR_LINE.match(line)
        if not m:
            continue
        value = m.group(2)
        if value[0] in "[{" and not _flow_ok(value):
            # `argument-hint: [a] [b]`: a flow collection that YAML cannot read is meant as text.
            lines[i] = f"{m.group(1)}: " + '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            changed = True
            continue
        if value[0] in _REPAIR_SKIP_START:
            continue
        if ": " in value or value.endswith(":") or ":\t" in value:
            quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            lines[i] = f"{m.group(1)}: {quoted}"
            changed = True
    return "\n".join(lines) if changed else None


def _flow_ok(value: str) -> bool:
    try:
        _yaml_load("x: " + value)
    except Exception:
        return False
    return True


_LINE_KEY = re.compile(r"^([A-Za-z0-9_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")


def line_parse(text: str) -> dict[str, str]:
    """Last resort: top-level `key: value` lines, quotes stripped, continuations joined: indented
    lines, and lines that are not `key: value` after a value begun on its key's line (a
    description whose later lines were not indented, the usual reason YAML failed)."""
    out: dict[str, str] = {}
    key: str | None = None
    parts: list[str] = []
    literal = False

    def flush() -> None:
        if key is not None:
            joined = ("\n" if literal else " ").join(p for p in parts if p or literal).strip()
            out[key] = _unquote(joined)

    for line in text.split("\n"):
        if line[:1] in (" ", "\t") and key is not None:
            parts.append(line.strip())
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE_KEY.match(line)
        if m is None:
            if key is not None and parts and parts[0]:
                parts.append(line.strip())
            continue
        flush()
        key = m.group(1)
        first = (m.group(2) or "").strip()
        literal = first.startswith("|")
        # a quoted first line with more after it: the quotes close that line's text
        parts = [] if first[:1] in ("|", ">") else [_unquote(first)]
    flush()
    return out


def _unquote(v: str) -> str:
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


# ------------------------------------------------------------------- the chain


def _to_file_lines(e: BaseException) -> BaseException:
    """Make the error's positions count lines of the file, not of the frontmatter: its message
    and the diagnostic's `line` then agree. (The opening `---` is line 1 of the file.)"""
    for attr in ("problem_mark", "context_mark"):
        mark = getattr(e, attr, None)
        if mark is not None and isinstance(getattr(mark, "line", None), int):
            # libyaml's marks are read-only: put a plain one in their place
            setattr(
                e, attr, _yaml().error.Mark(mark.name, mark.index, mark.line + 1, mark.column, None, None)
            )
    return e


def _mark_line(e: BaseException) -> int | None:
    """The 1-based file line of an error passed through `_to_file_lines` (marks are 0-based)."""
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    return mark.line + 1 if mark is not None else None


def _is_unsafe_tag(e: BaseException) -> bool:
    """A tag no safe constructor knows (`!!python/object`...), as opposed to data the safe
    constructor cannot build (an unhashable key, say), which the line fallback may still read."""
    return "could not determine a constructor" in str(getattr(e, "problem", "") or "")


def parse_frontmatter(text: str, path: str = "") -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """Frontmatter text → JSON-compatible mapping (or None) and diagnostics; never raises.

    None means "no usable metadata" (not a mapping, unsafe or too complex); a dict from the
    line parser comes with a `yaml-invalid` diagnostic.
    """
    diags: list[Diagnostic] = []
    try:
        fast = fast_parse(text)
    except Exception:  # the fast path must never decide an outcome by crashing
        fast = None
    if fast:
        return fast, diags
    if fast is not None:  # nothing but blanks and comments
        return _finish(None, path, diags)
    yaml = _yaml()
    try:
        data = _yaml_load(text)
    except _TooComplex as e:
        diags.append(Diagnostic("error", "yaml-too-complex", str(e), path))
        return None, diags
    except RecursionError:
        diags.append(Diagnostic("error", "yaml-too-complex", "frontmatter nests too deeply", path))
        return None, diags
    except Exception as e:  # YAML errors, libyaml reader errors and the like
        if isinstance(e, yaml.YAMLError):
            _to_file_lines(e)
        if isinstance(e, yaml.constructor.ConstructorError) and _is_unsafe_tag(e):
            msg = str(getattr(e, "problem", "") or e).strip()
            diags.append(
                Diagnostic(
                    "error",
                    "yaml-unsafe-tag",
                    f"frontmatter uses a tag that is not allowed: {msg}",
                    path,
                    _mark_line(e),
                )
            )
            return None, diags
        data, diags = _recover(text, path, e)
        if data is None:
            return None, diags
    return _finish(data, path, diags)


def _finish(data: Any, path: str, diags: list[Diagnostic]) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    if data is None:
        diags.append(Diagnostic("warning", "frontmatter-empty", "frontmatter is empty", path))
        return None, diags
    if not isinstance(data, dict):
        diags.append(
            Diagnostic(
                "warning",
                "frontmatter-not-mapping",
                f"frontmatter is a {type(data).__name__}, not a mapping; ignored",
                path,
            )
        )
        return None, diags
    try:
        return to_jsonable(data), diags
    except (_TooComplex, RecursionError):
        diags.append(Diagnostic("error", "yaml-too-complex", "frontmatter nests too deeply", path))
        return None, diags


def _recover(text: str, path: str, err: BaseException) -> tuple[Any, list[Diagnostic]]:
    detail = " ".join(str(err).replace(' in "<unicode string>",', " at").split())[:300]
    line = _mark_line(err)
    repaired = repair_colons(text)
    if repaired is not None:
        try:
            data = _yaml_load(repaired)
        except Exception:
            data = None
        else:
            return data, [
                Diagnostic(
                    "warning",
                    "yaml-repaired",
                    f"invalid YAML in frontmatter ({detail}); read after quoting values that contain ': '",
                    path,
                    line,
                )
            ]
    fallback = line_parse(text)
    has_description = bool(fallback.get("description", "").strip())
    level = "warning" if has_description else "error"
    how = "read with the line fallback" if has_description else "no description could be recovered"
    return (fallback if has_description else None), [
        Diagnostic(level, "yaml-invalid", f"invalid YAML in frontmatter: {detail}; {how}", path, line)
    ]
