"""From a ToolSpec and the model's arguments to an argv that cannot be hijacked.

The contract: every value becomes exactly one argv element (or, for array
parameters, one element per item), in the word the template put its
placeholder in, or — when the template needs bash — one double-quoted
expansion of an environment variable (inside a bash arithmetic expression, an
unquoted one, of a value checked to be a plain integer: see `arith`). No value is ever parsed as shell text,
so no value can add a command, a redirection or a word. What values can still
do is look like options, so a string that starts with `-` is refused unless
the parameter declares `allow_dash`.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from skillyard.model import ToolArg, ToolSpec
from skillyard.toml_tools.errors import TemplateError, ToolArgError
from skillyard.toml_tools.template import CompiledTemplate, Word, compile_template
from skillyard.toml_tools.values import MAX_TOTAL_BYTES, ValueProblem, brief, render_value

#: Largest JSON argument text accepted from a provider.
MAX_ARGS_JSON_CHARS = 2_000_000
#: Environment variable prefixes for values in shell mode (scalars, then array items).
ENV_PREFIX = "SKILLYARD_ARG_"
ARRAY_ENV_PREFIX = "SKILLYARD_ARR_"
#: How shell-mode templates are run: bash reads no startup files.
BASH_ARGV = ("bash", "--noprofile", "--norc", "-c")
#: Longest bash script (one argv element: Linux refuses one over 128 KiB).
MAX_SCRIPT_CHARS = 128 * 1024 - 1

_SHORT_FLAG_RE = re.compile(r"-[A-Za-z0-9]")
#: What a value may look like where bash evaluates it as arithmetic: a plain 64-bit decimal integer.
_ARITH_VALUE_RE = re.compile(r"-?[0-9]{1,19}")
#: Parameter types whose values can be checked to be plain integers.
ARITH_TYPES = ("integer", "number")
_MISSING = object()


@dataclass(slots=True)
class Invocation:
    """What to execute: an argv, plus the environment variables it needs (shell mode only)."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    shell: bool = False
    #: the bash script (shell mode); the values are in `env`, never in here
    script: str | None = None

    def display(self) -> str:
        """A copy-pasteable rendering for logs and dry runs."""
        assignments = "".join(f"{k}={shlex.quote(v)} " for k, v in sorted(self.env.items()))
        return assignments + shlex.join(self.argv)


def parse_arguments(args: Any) -> dict[str, Any]:
    """Accept a dict or the JSON text a provider sends; anything else is refused in the words docs/toml-tools.md lists."""
    if args is None:
        return {}
    if isinstance(args, bytes | bytearray):
        try:
            args = args.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolArgError("Tool arguments must be a JSON object") from None
    if isinstance(args, str):
        if not args.strip():
            return {}
        if len(args) > MAX_ARGS_JSON_CHARS:
            raise ToolArgError(
                f"Tool arguments are too large ({len(args)} characters; at most {MAX_ARGS_JSON_CHARS})"
            )
        try:
            args = json.loads(args, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            raise ToolArgError("Tool arguments must be a JSON object") from None
    if not isinstance(args, dict):
        raise ToolArgError("Tool arguments must be a JSON object")
    return args


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parameters(spec: ToolSpec) -> list[ToolArg]:
    """The parameters a tool takes: its template's placeholders, described by `[tools.args]`.

    A placeholder with no declaration is a required string (`Parameter: <name>`);
    a declaration with no placeholder is not a parameter (the linter reports it).
    """
    names = compile_template(spec.command).names
    return [spec.arg(n) or ToolArg(name=n, description=f"Parameter: {n}") for n in names]


def _json_safe(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return value


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    """JSON schema of a tool's arguments, for native function calling."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for arg in parameters(spec):
        prop: dict[str, Any] = {"type": arg.type}
        if arg.type == "array":
            prop["items"] = {"type": "string"}
        prop["description"] = arg.description or f"Parameter: {arg.name}"
        if arg.enum is not None:
            enum = _json_safe(list(arg.enum))
            if enum is not None:
                if arg.type == "array":
                    prop["items"]["enum"] = enum
                else:
                    prop["enum"] = enum
        default = _json_safe(arg.default)
        if default is not None:
            prop["default"] = default
        props[arg.name] = prop
        if arg.required and arg.default is None:
            required.append(arg.name)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def arithmetic_slots(ct: CompiledTemplate) -> dict[str, str]:
    """Placeholder name -> the bash arithmetic context its value may reach.

    Argv mode runs no shell of its own; only a `bash -c '...'` it starts can evaluate arithmetic.
    """
    if not ct.shell and not ct.nested_shell:
        return {}
    out: dict[str, str] = {}
    for slot in ct.slots():
        if slot.arith is not None:
            out.setdefault(slot.name, slot.arith)
    return out


def arithmetic_problems(spec: ToolSpec, ct: CompiledTemplate) -> list[str]:
    """Placeholders in bash arithmetic whose parameter is not typed integer or number.

    Quoting cannot protect such a value (bash runs `$(...)` inside an array subscript while
    it evaluates the expression), so only parameters whose values are checked to be plain
    integers may sit there.
    """
    problems: list[str] = []
    for name, context in arithmetic_slots(ct).items():
        arg = spec.arg(name)
        kind = arg.type if arg is not None else "string"
        if kind not in ARITH_TYPES:
            problems.append(
                f"placeholder {{{name}}} is inside a bash arithmetic context ({context}); "
                f"declare the argument as type integer (it is {kind})"
            )
    return problems


def _show_key(key: Any) -> str:
    return brief(key, 64) if isinstance(key, str) else repr(key)[:64]


def _is_own_flag(text: str, name: str) -> bool:
    """A flag word that belongs to the placeholder right after it: `--name`, `--na-me` or `-x`."""
    return text in (f"--{name}", f"--{name.replace('_', '-')}") or bool(_SHORT_FLAG_RE.fullmatch(text))


def _removed_words(words: tuple[Word, ...], omitted: set[str]) -> set[int]:
    """Indexes of the words dropped for omitted optional parameters (with their own flag)."""
    removed: set[int] = set()
    for idx, w in enumerate(words):
        if w.slot is None or w.slot.name not in omitted:
            continue
        removed.add(idx)
        if w.slot.form != "whole" or idx < 2:
            continue
        prev, before = words[idx - 1], words[idx - 2]
        # the flag must be a literal of the same simple command, and not that command's program
        same_command = prev.command == w.command and before.command == w.command
        if prev.slot is None and same_command and _is_own_flag(prev.text, w.slot.name):
            removed.add(idx - 1)
    return removed


def _resolve(
    spec: ToolSpec, ct: CompiledTemplate, args: dict[str, Any]
) -> tuple[dict[str, str | list[str]], set[str]]:
    """Validate every argument: the rendered values, and the optional parameters left out."""
    errors: list[str] = []
    params = parameters(spec)
    known = {p.name for p in params}
    unknown = sorted(_show_key(k) for k in args if k not in known)
    if unknown:
        errors.append(f"unknown argument(s): {', '.join(unknown)}")
    values: dict[str, str | list[str]] = {}
    omitted: set[str] = set()
    dash_checked = {w.slot.name for w in ct.words if w.slot is not None and w.slot.form == "whole"}
    arith = arithmetic_slots(ct)
    inner = {slot.name for slot in ct.inner}
    for p in params:
        raw = args.get(p.name, _MISSING)
        if raw is _MISSING or raw is None:
            if p.default is not None:
                raw = p.default
            elif p.required:
                errors.append(
                    f"Missing required parameter '{p.name}'"
                    if raw is _MISSING
                    else f"Required parameter '{p.name}' must not be null"
                )
                continue
            elif p.name in inner:
                errors.append(f"Missing parameter '{p.name}' (the command uses it in arithmetic)")
                continue
            else:
                omitted.add(p.name)
                continue
        if raw == "" or (isinstance(raw, list) and not raw):
            if p.name in inner:
                errors.append(f"Parameter '{p.name}' must not be empty (the command uses it in arithmetic)")
            elif p.required and p.default is None:
                errors.append(f"Required parameter '{p.name}' must not be empty")
            else:
                omitted.add(p.name)
            continue
        try:
            value = render_value(p, raw)
        except ValueProblem as e:
            errors.append(str(e))
            continue
        if p.name in dash_checked and not p.allow_dash and p.type in ("string", "array"):
            items = value if isinstance(value, list) else [value]
            if any(item.startswith("-") for item in items):
                errors.append(f"Parameter '{p.name}' must not start with '-' (it would be read as an option)")
                continue
        if p.name in arith and not (isinstance(value, str) and _ARITH_VALUE_RE.fullmatch(value)):
            # bash evaluates this value as an expression: only a plain integer cannot run anything
            errors.append(
                f"Parameter '{p.name}' must be a whole number here (bash arithmetic), got '{brief(raw)}'"
            )
            continue
        values[p.name] = value
    if not errors:
        total = sum(
            len(v.encode()) for val in values.values() for v in (val if isinstance(val, list) else [val])
        )
        if total > MAX_TOTAL_BYTES:
            errors.append(f"Tool arguments are too large ({total} bytes; at most {MAX_TOTAL_BYTES})")
    if errors:
        raise ToolArgError(errors)
    return values, omitted


def _expansion(var: str, ctx: str) -> str:
    """A quoted expansion of `var` that fits the quoting context the placeholder sat in."""
    if ctx == "dq":
        return "${" + var + "}"
    if ctx == "sq":
        return "'\"${" + var + "}\"'"
    return '"${' + var + '}"'


def build_invocation(spec: ToolSpec, args: Any, *, force_shell: bool = False) -> Invocation:
    """Turn one tool call into an Invocation; raise ToolArgError with a model-facing message.

    `force_shell` renders even a plain template as a bash script (same words, same values);
    the tests use it to check the tokenizer against bash itself.
    """
    if spec.kind != "shell":
        raise ToolArgError(f"Unsupported tool kind '{brief(spec.kind)}': only shell tools are supported")
    ct = compile_template(spec.command)
    if ct.error is not None:
        raise TemplateError(f"Tool '{spec.name}' has an unusable command template: {ct.error}")
    problems = arithmetic_problems(spec, ct)
    if problems:
        raise TemplateError(f"Tool '{spec.name}' has an unusable command template: {'; '.join(problems)}")
    for w in ct.words:
        arg = spec.arg(w.slot.name) if w.slot is not None else None
        if w.slot is not None and w.slot.form == "value" and arg is not None and arg.type == "array":
            raise TemplateError(
                f"Tool '{spec.name}' has an unusable command template: "
                f"array parameter '{w.slot.name}' must be a whole word, not the value of {w.slot.prefix!r}"
            )
    values, omitted = _resolve(spec, ct, parse_arguments(args))
    removed = _removed_words(ct.words, omitted)
    if not ct.shell and not force_shell:
        argv: list[str] = []
        for idx, w in enumerate(ct.words):
            if idx in removed:
                continue
            if w.slot is None:
                argv.append(w.text)
                continue
            value = values[w.slot.name]
            if isinstance(value, list):
                argv.extend(value)
            else:
                argv.append(w.slot.prefix + value)
        return Invocation(argv=argv, env={}, shell=False)
    env: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    arrays: dict[str, str] = {}  # an array's expansions, once however often its placeholder occurs
    for idx, w in enumerate(ct.words):
        if idx in removed:
            edits.append((w.start, w.end, ""))
            continue
        if w.slot is None:
            continue
        name = w.slot.name
        value = values[name]
        if isinstance(value, list):
            if name not in arrays:
                env.update((f"{ARRAY_ENV_PREFIX}{i}_{name}", item) for i, item in enumerate(value))
                arrays[name] = " ".join(f'"${{{ARRAY_ENV_PREFIX}{i}_{name}}}"' for i in range(len(value)))
            edits.append((w.start, w.end, arrays[name]))
            continue
        var = ENV_PREFIX + name
        env[var] = value
        if w.slot.form == "whole":
            edits.append((w.start, w.end, '"${' + var + '}"'))
        else:
            edits.append((w.slot.span[0], w.slot.span[1], _expansion(var, w.slot.ctx)))
    for slot in ct.inner:
        var = ENV_PREFIX + slot.name
        env[var] = str(values[slot.name])
        # a checked integer needs no quotes (nothing to split or glob), and arithmetic takes none
        text = "${" + var + "}" if slot.ctx in ("none", "opaque") else _expansion(var, slot.ctx)
        edits.append((slot.span[0], slot.span[1], text))
    size = len(ct.source) + sum(len(text) - (end - start) for start, end, text in edits)
    if size > MAX_SCRIPT_CHARS:  # the kernel refuses a longer argument; checked before it is built
        raise ToolArgError(
            f"Tool arguments make the command too long ({size} characters; at most {MAX_SCRIPT_CHARS})"
        )
    pieces: list[str] = []
    pos = 0
    for start, end, text in sorted(edits):
        pieces += (ct.source[pos:start], text)
        pos = end
    script = "".join(pieces) + ct.source[pos:]
    return Invocation(argv=[*BASH_ARGV, script], env=env, shell=True, script=script)
