"""Reading a SKILL.toml command template the way a POSIX shell would, without running one.

The template is trusted (it comes from the installed skill) but the values that
fill its `{placeholders}` are not. So the template is split into words once,
here, and every placeholder is pinned to the word it occupies. Values are then
put into those words (argv mode) or handed to bash as environment variables
(shell mode); a value is never pasted into text that anything re-parses.

A template needs bash only when it uses shell syntax (pipes, redirections,
`&&`, `;`, `$VAR`, `$(...)`, globs, comments, assignments, shell keywords or
builtins). Everything else runs as a plain argv with no shell at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from skillyard.toml_tools.arith import ArithInfo

#: Placeholder names: what the SKILL.toml parser extracts from `{name}` (ASCII identifiers).
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Longest template accepted; real ones are a line or two.
MAX_TEMPLATE_CHARS = 65_536
#: Longest template kept compiled between calls: a compiled template holds about 75 bytes per
#: character, so the cache (1024 templates) stays under about 80 MB whatever the skills hold.
CACHED_TEMPLATE_CHARS = 1024

Ctx = Literal["none", "sq", "dq", "opaque"]

#: Words that only mean something to a shell when they start a command.
SHELL_WORDS = frozenset(
    {
        # reserved words
        "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
        "function", "time", "coproc", "{", "}", "!", "[[", "]]",
        # builtins with no standalone program (or whose program would not act on this shell)
        ".", "source", "cd", "export", "unset", "set", "shopt", "alias", "unalias", "eval", "exec", "exit",
        "return", "read", "readonly", "local", "declare", "typeset", "trap", "ulimit", "umask", "wait", "shift",
        "builtin", "command", "let", "pushd", "popd", "dirs", "hash", "enable", "mapfile", "readarray",
    }
)  # fmt: skip

_ASSIGNMENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_BRACE_EXPANSION_RE = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")


@dataclass(frozen=True, slots=True)
class _Ch:
    ch: str
    ctx: Ctx
    escaped: bool
    pos: int


@dataclass(frozen=True, slots=True)
class Slot:
    """One placeholder occurrence, pinned to its word."""

    name: str
    #: "whole": the placeholder is the entire word; "value": the word is `<prefix>={name}`;
    #: "inner": part of a bash arithmetic expression (`$(( {n} + 1 ))`, `a[{i}]`), integers only.
    form: Literal["whole", "value", "inner"]
    #: decoded literal text before the placeholder ("" for whole words), e.g. `--limit=`
    prefix: str
    #: source span of the `{name}` characters
    span: tuple[int, int]
    #: quoting context of the placeholder in the template
    ctx: Ctx
    #: the bash arithmetic context the value may reach (None: never evaluated as arithmetic)
    arith: str | None = None


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word of the template: literal text, or a word holding one placeholder."""

    start: int
    end: int
    #: index of the simple command the word belongs to (operators and newlines start a new one)
    command: int
    text: str
    slot: Slot | None = None


@dataclass(frozen=True, slots=True)
class CompiledTemplate:
    """A template split into words, with its placeholders located and its mode decided."""

    source: str
    words: tuple[Word, ...]
    #: placeholder names in order of first appearance
    names: tuple[str, ...]
    #: why bash is needed (empty: the template runs as a plain argv)
    shell_reasons: tuple[str, ...]
    #: why the template cannot be used at all (None when it can)
    error: str | None
    #: placeholders inside arithmetic expressions, not pinned to a word of their own
    inner: tuple[Slot, ...] = ()
    #: the command starts a shell with a `-c` script, whose arithmetic sees the values too, or sets a
    #: variable a program runs as code (`env GIT_SSH_COMMAND={x} git ...`)
    nested_shell: bool = False

    def slots(self) -> tuple[Slot, ...]:
        """Every placeholder occurrence: the word slots, then the inner ones."""
        return tuple(w.slot for w in self.words if w.slot is not None) + self.inner

    @property
    def shell(self) -> bool:
        return bool(self.shell_reasons)


class _Scan:
    """State of one pass over a template."""

    def __init__(self, src: str) -> None:
        self.src = src
        #: (start, end, command index, chars, what came before: "sep" | "redirect" | "word")
        self.words: list[tuple[int, int, int, list[_Ch], str]] = []
        self.before = "sep"
        self.cur: list[_Ch] | None = None
        self.cur_start = 0
        self.command = 0
        self.reasons: list[str] = []
        self.errors: list[str] = []
        self.heredoc_at: int | None = None

    def reason(self, why: str) -> None:
        if why not in self.reasons:
            self.reasons.append(why)

    def start(self, i: int) -> list[_Ch]:
        if self.cur is None:
            self.cur = []
            self.cur_start = i
        return self.cur

    def end(self, i: int) -> None:
        if self.cur is not None:
            self.words.append((self.cur_start, i, self.command, self.cur, self.before))
            self.before = "word"
            self.cur = None


def _skip_expansion(src: str, i: int) -> tuple[int, bool] | None:
    """End of the `$...` or backtick construct at `i`; the flag says it is a real expansion.

    None means the construct is never closed.
    """
    n = len(src)
    if src[i] == "`":
        return _past_unescaped(src, i + 1, "`")
    # src[i] == "$"
    if i + 1 >= n:
        return i + 1, False
    d = src[i + 1]
    if d in _BRACKETS:  # `$[ ]` is the old form of `$(( ))`
        end = _match_close(src, i + 2, d, _BRACKETS[d])
        return None if end is None else (end, True)
    if d == "'":
        return _past_unescaped(src, i + 2, "'")
    if d == '"':
        j = src.find('"', i + 2)
        return None if j < 0 else (j + 1, True)
    if d.isascii() and (d.isalpha() or d == "_"):
        j = i + 1
        while j < n and src[j] in NAME_CHARS:
            j += 1
        return j, True
    if d in "0123456789?!#@*$-":
        return i + 2, True
    return i + 1, False


_BRACKETS = {"(": ")", "{": "}", "[": "]"}


def _past_unescaped(src: str, j: int, close: str) -> tuple[int, bool] | None:
    """Past the first `close` from `j` that no backslash escapes (None: there is none)."""
    while j < len(src):
        if src[j] == "\\":
            j += 2
        elif src[j] == close:
            return j + 1, True
        else:
            j += 1
    return None


def _match_close(src: str, i: int, open_ch: str, close_ch: str) -> int | None:
    """Index just past the `close_ch` balancing an already-consumed `open_ch`, quote-aware."""
    depth = 1
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                return None
            i = j + 1
            continue
        if c == '"':
            i += 1
            while i < n and src[i] != '"':
                if src[i] == "\\":
                    i += 2
                    continue
                if src[i] in "$`":
                    sk = _skip_expansion(src, i)
                    if sk is None:
                        return None
                    i = sk[0]
                    continue
                i += 1
            if i >= n:
                return None
            i += 1
            continue
        if c == "`" or (c == "$" and src[i + 1 : i + 2] in ("(", "{")):
            sk = _skip_expansion(src, i)
            if sk is None:
                return None
            i = sk[0]
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _scan(src: str) -> _Scan:
    s = _Scan(src)
    n = len(src)
    i = 0
    while i < n:
        c = src[i]
        if c in " \t":
            s.end(i)
            i += 1
        elif c in "\n\r":
            s.end(i)
            if c == "\n":
                s.reason("newline (several commands)")
                s.command += 1
                s.before = "sep"
            else:
                s.errors.append("carriage return in the command")
            i += 1
        elif c == "#" and s.cur is None:
            j = src.find("\n", i)
            i = n if j < 0 else j
            s.reason("comment")
        elif c == "\\":
            if i + 1 < n and src[i + 1] == "\n":
                i += 2  # line continuation
                continue
            if i + 1 < n:
                s.start(i).append(_Ch(src[i + 1], "none", True, i + 1))
                i += 2
            else:
                s.start(i).append(_Ch("\\", "none", True, i))
                i += 1
        elif c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                s.errors.append("unterminated single quote")
                break
            word = s.start(i)
            word.extend(_Ch(src[k], "sq", False, k) for k in range(i + 1, j))
            i = j + 1
        elif c == '"':
            word = s.start(i)
            i += 1
            closed = False
            while i < n:
                d = src[i]
                if d == "\\" and i + 1 < n and src[i + 1] in '$`"\\\n':
                    if src[i + 1] != "\n":
                        word.append(_Ch(src[i + 1], "dq", True, i + 1))
                    i += 2
                elif d in "$`":
                    sk = _skip_expansion(src, i)
                    if sk is None:
                        s.errors.append("unterminated $(...), ${...} or `...` expansion")
                        return s
                    j, real = sk
                    if real:
                        s.reason("$ or ` expansion")
                    word.extend(_Ch(src[k], "opaque" if real else "dq", False, k) for k in range(i, j))
                    i = j
                elif d == '"':
                    closed = True
                    i += 1
                    break
                else:
                    word.append(_Ch(d, "dq", False, i))
                    i += 1
            if not closed:
                s.errors.append("unterminated double quote")
                break
        elif c in "$`":
            sk = _skip_expansion(src, i)
            if sk is None:
                s.errors.append("unterminated $(...), ${...} or `...` expansion")
                break
            j, real = sk
            if real:
                s.reason("$ or ` expansion")
            s.start(i).extend(_Ch(src[k], "opaque" if real else "none", False, k) for k in range(i, j))
            i = j
        elif c in "|&;<>()":
            s.end(i)
            s.reason("shell operators (| & ; < > ( ))")
            j = i
            while j < n and src[j] in "|&;<>()":
                j += 1
            run = src[i:j]
            if "<<" in run and s.heredoc_at is None:
                s.heredoc_at = i
            # `>`, `2>&1`, `&>`: the next word is a redirection target; anything else starts a command
            s.before = (
                "redirect" if ("<" in run or ">" in run) and not any(x in run for x in ";()") else "sep"
            )
            s.command += 1
            i = j
        else:
            word = s.start(i)
            if c in "*?[":
                s.reason("glob pattern")
            if c == "~" and not word:
                s.reason("~ expansion")
            word.append(_Ch(c, "none", False, i))
            i += 1
    s.end(n)
    return s


def _find_slots(chars: list[_Ch]) -> list[tuple[int, int, str]]:
    """(first char index, last char index + 1, name) of each `{name}` in a word."""
    found: list[tuple[int, int, str]] = []
    k = 0
    n = len(chars)
    while k < n:
        c = chars[k]
        if c.ch == "{" and not c.escaped and c.ctx != "opaque":
            m = k + 1
            while m < n and chars[m].ch in NAME_CHARS and not chars[m].escaped and chars[m].ctx == c.ctx:
                m += 1
            closed = m < n and chars[m].ch == "}" and not chars[m].escaped and chars[m].ctx == c.ctx
            # written as one run (`{n}`, not `{n""}` or `{\<newline>n}`): what every other reader of
            # the template, the arithmetic scanner's PLACEHOLDER_RE included, takes for a placeholder
            whole = closed and chars[m].pos - c.pos == m - k
            if m > k + 1 and whole and not chars[k + 1].ch.isdigit():
                found.append((k, m + 1, "".join(ch.ch for ch in chars[k + 1 : m])))
                k = m + 1
                continue
        k += 1
    return found


def _show(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def compile_template(source: str) -> CompiledTemplate:
    """Split a command template into words and locate its placeholders (cached per template, up to
    CACHED_TEMPLATE_CHARS characters)."""
    if isinstance(source, str) and len(source) <= CACHED_TEMPLATE_CHARS:
        return _cached(source)
    return _compile_checked(source)


@lru_cache(maxsize=1024)
def _cached(source: str) -> CompiledTemplate:
    return _compile_checked(source)


compile_template.cache_clear = _cached.cache_clear  # type: ignore[attr-defined]


def _compile_checked(source: str) -> CompiledTemplate:
    if not isinstance(source, str) or not source.strip():
        return CompiledTemplate(str(source), (), (), (), "the command is empty")
    if len(source) > MAX_TEMPLATE_CHARS:
        return CompiledTemplate(
            source[:100], (), (), (), f"the command is longer than {MAX_TEMPLATE_CHARS} characters"
        )
    if "\x00" in source:
        return CompiledTemplate(source, (), (), (), "the command contains a NUL byte")
    try:
        return _compile(source.replace("\r\n", "\n"))
    except RecursionError:  # thousands of nested $( or ${: refused, never a crash of the loader
        return CompiledTemplate(source[:100], (), (), (), "the command nests too deeply to be checked")


def _compile(source: str) -> CompiledTemplate:
    s = _scan(source)
    errors = list(s.errors)
    words: list[Word] = []
    names: list[str] = []
    expect_program = True
    from skillyard.toml_tools.arith import arith_contexts  # it reads this module's helpers

    arith = arith_contexts(source)
    inner: list[Slot] = []
    argv_only: list[str] = []  # why the inner slots are unusable when no shell runs the template
    for start, end, command, chars, before in s.words:
        raw = source[start:end]
        if before == "sep":
            expect_program = True
        at_program = expect_program and before != "redirect"
        slots = _find_slots(chars)
        ctx_at = {c.pos: c.ctx for c in chars}
        hidden = [m for m in PLACEHOLDER_RE.finditer(source, start, end) if ctx_at.get(m.start()) == "opaque"]
        if any(not _inline(arith, m.start()) for m in hidden):
            errors.append(
                f"a placeholder inside $(...), ${{...}} or `...` is not supported (in {_show(raw)})"
            )
            continue
        here = [Slot(m.group(1), "inner", "", m.span(), "opaque", arith.context(m.start())) for m in hidden]
        if s.heredoc_at is not None and start > s.heredoc_at and (slots or here):
            errors.append("placeholders after a here-document (<<) are not supported")
            continue
        text = "".join(c.ch for c in chars)
        # Unquoted, unescaped text with placeholders blanked: what bash would brace-expand or treat as assignment.
        plain = list(c.ch if c.ctx == "none" and not c.escaped else "x" for c in chars)
        for a, b, _ in slots:
            plain[a:b] = ["x"] * (b - a)
        plain_text = "".join(plain)
        if _BRACE_EXPANSION_RE.search(plain_text):
            s.reason("brace expansion")
        if at_program:
            if _ASSIGNMENT_RE.match(plain_text):
                s.reason("variable assignment")  # `FOO=1 cmd`: the program is still to come
            else:
                expect_program = False
            if not slots and all(c.ctx == "none" and not c.escaped for c in chars) and text in SHELL_WORDS:
                s.reason(f"shell keyword or builtin {text!r}")
                expect_program = True  # `if cmd`, `! cmd`, `exec cmd`: the next word is a program too
        slot: Slot | None = None
        problem: str | None = None
        if len(slots) == 1 and not here:
            a, b, name = slots[0]
            span = (chars[a].pos, chars[b - 1].pos + 1)
            if a == 0 and b == len(chars):
                slot = Slot(name, "whole", "", span, chars[a].ctx, arith.context(span[0]))
            elif b == len(chars) and text[a - 1] == "=" and all(c.ctx != "opaque" for c in chars[:a]):
                slot = Slot(name, "value", text[:a], span, chars[a].ctx, arith.context(span[0]))
            else:
                problem = (
                    f"placeholder {{{name}}} must be a whole word or the value of --flag={{{name}}} "
                    f"(in {_show(raw)})"
                )
        elif len(slots) + len(here) > 1:
            problem = f"a word may hold only one placeholder (in {_show(raw)})"
        if problem is not None:
            # Inside an arithmetic expression (`a[{i}]=1`, `let 'n={x}+1'`) a placeholder needs no word of its own.
            if not all(_inline(arith, chars[a].pos) for a, _, _ in slots):
                errors.append(problem)
                continue
            for a, b, name in slots:
                pos = chars[a].pos
                here.append(
                    Slot(name, "inner", "", (pos, chars[b - 1].pos + 1), chars[a].ctx, arith.context(pos))
                )
            argv_only.append(problem)
        # `(( {n} > 1 ))`: inside arithmetic the first word is an operand, not a program
        if slot is not None and at_program and slot.form == "whole" and not _inline(arith, slot.span[0]):
            errors.append(f"the program (first word of a command) cannot be a placeholder: {{{slot.name}}}")
            continue
        words.append(Word(start, end, command, text, slot))
        for found in ([slot] if slot is not None else []) + here:
            if found.name not in names:
                names.append(found.name)
        inner.extend(here)
    if not s.reasons:
        errors.extend(argv_only)  # no bash, no arithmetic: a placeholder mid-word is just unsupported
    if not s.reasons and not arith.nested_shell:
        words = [w if w.slot is None else replace(w, slot=replace(w.slot, arith=None)) for w in words]
    if not words and not errors:
        errors.append("the command is empty")
    # Placeholders the scanner could not pin (e.g. inside $(...)) still name parameters for the schema.
    for m in PLACEHOLDER_RE.finditer(source):
        if errors and m.group(1) not in names:
            names.append(m.group(1))
    return CompiledTemplate(
        source=source,
        words=tuple(words),
        names=tuple(names),
        shell_reasons=tuple(s.reasons),
        error="; ".join(dict.fromkeys(errors)) if errors else None,
        inner=tuple(inner),
        nested_shell=arith.nested_shell,
    )


def _inline(arith: ArithInfo, pos: int) -> bool:
    """The placeholder at `pos` is part of an arithmetic expression itself."""
    site = arith.sites.get(pos)
    return site is not None and site.inline
