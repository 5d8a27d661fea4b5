"""Finding the placeholders of a shell-mode template that bash would evaluate as arithmetic.

Quoting does not protect a value in bash arithmetic: `x[$(cmd)]` is an array
subscript, and bash runs the command substitution inside it while it evaluates
the expression. A variable named in arithmetic is evaluated the same way, so a
value stored in one and read later is just as dangerous. This scanner marks
every placeholder that may end up in arithmetic so that only integer values
reach it.

Direct contexts: `$(( ))`, `(( ))` (and `for (( ;; ))`), `$[ ]`, `let`, values
assigned to `declare/typeset/local -i` variables, the operands of `-eq -ne -lt
-le -gt -ge` in `[[ ]]`, `${var:offset:length}`, and array subscripts
(`name[...]` in any quoting). A placeholder assigned to a variable
(`n={x}`) is arithmetic when that variable is read in arithmetic.

Through variables: every name read in arithmetic must be *closed*: set only by
arithmetic, by an integer literal or by a placeholder (which then counts as
arithmetic itself), and read elsewhere only as `$name` / `${name}`. When a name
is not closed (it is set by `read`, `for`, a command substitution, bash itself,
`eval`...), or arithmetic reads `$1`, `$_`, a command substitution or an
indirect expansion, the scanner cannot tell where the text comes from and every
placeholder of the template counts as arithmetic.

The scanner errs on the side of "arithmetic": a false alarm asks the author
for an integer type, a miss would run a value as code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillyard.toml_tools.template import NAME_CHARS, PLACEHOLDER_RE
from skillyard.toml_tools.template import _match_close as match_close

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN_WORD_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[)?")
_ARITH_ASSIGN_RE = re.compile(r"\s*(?:<<|>>|[-+*/%&^|])?=(?!=)|\s*(?:\+\+|--)")
_INT_LITERAL_RE = re.compile(r"[+-]?[0-9]+")
#: `[[ ]]` operators whose operands bash evaluates as arithmetic.
ARITH_TEST_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
#: Builtins whose operands may carry `name=value` and attribute options.
DECLARATION_BUILTINS = frozenset({"declare", "typeset", "local", "export", "readonly"})
#: Builtins that set variables named by their operands, with the options whose value is not a name
#: (`read -p PROMPT`), or (`-v`, `-p`) the one option whose value is the name (`printf -v NAME`).
#: Bash evaluates the subscript of such a name, so what fills it flows like arithmetic.
NAME_SETTING_BUILTINS = {
    "read": "dinNptu", "mapfile": "cdnOsu", "readarray": "cdnOsu", "getopts": "", "unset": "", "wait": "-p",
    "printf": "-v",
}  # fmt: skip
#: Builtins that run text as code.
CODE_BUILTINS = frozenset({"eval", "source", "."})
#: Words that may come before the command they apply to (`if let ...`, `! [[ ... ]]`, `command let ...`).
PREFIX_WORDS = frozenset("if then else elif while until do ! { time -p command builtin exec".split())
#: Shells whose `-c` script is scanned with the template (it sees the template's exported variables).
SHELL_PROGRAMS = frozenset({"bash", "sh", "dash", "ksh", "mksh", "zsh", "busybox"})
#: Variables bash keeps as integers by itself; reading them in arithmetic is harmless.
BASH_INTEGER_VARS = frozenset(
    {"RANDOM", "SRANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "BASHPID", "PPID", "UID", "EUID"}
)
#: Variables whose value bash or a program runs as code (a prompt bash expands, a file bash sources,
#: a command line git, ssh or an editor setting runs, an exported function) or loads as code.
CODE_VARS = (
    "PS0 PS1 PS2 PS3 PS4 PROMPT_COMMAND BASH_ENV ENV BASH_FUNC_[^=]* LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH "
    "EDITOR VISUAL PAGER MANPAGER GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_SSH GIT_SSH_COMMAND "
    "GIT_ASKPASS SSH_ASKPASS SUDO_ASKPASS GIT_EXTERNAL_DIFF GIT_PROXY_COMMAND GIT_CONFIG_[A-Z0-9_]* "
    "LESSOPEN LESSCLOSE BROWSER PYTHONSTARTUP PERL5OPT RUBYOPT NODE_OPTIONS JAVA_TOOL_OPTIONS"
).split()
_CODE_VAR_RE = re.compile(f"({'|'.join(CODE_VARS)})(?:\\[[^]]*\\])?\\+?=")
#: The environment the runner sets itself: read in such a value, it carries no argument.
_RUNNER_ENV = frozenset({"HOME", "PATH", "TMPDIR", "LANG", "LC_ALL", "SKILL_DIR", "SKILL_NAME"})
#: Special parameters that only ever hold integers.
_INTEGER_SPECIALS = frozenset("#?$!")
_UPPER_RE = re.compile(r"[A-Z_][A-Z0-9_]*")


@dataclass(frozen=True, slots=True)
class ArithSite:
    """Why a placeholder counts as arithmetic, and whether it sits in arithmetic text itself."""

    context: str
    #: True when the placeholder is part of the expression (not inside a command substitution in it)
    inline: bool


@dataclass(frozen=True, slots=True)
class ArithInfo:
    """The placeholders a template exposes to bash arithmetic."""

    #: offset of a placeholder's `{` -> why it is arithmetic
    sites: dict[int, ArithSite]
    #: when set, every placeholder counts as arithmetic, for this reason
    everywhere: str | None
    #: the template starts a shell with a `-c` script or sets a variable a program runs as code: what
    #: is found here applies even in argv mode
    nested_shell: bool = False

    def context(self, pos: int) -> str | None:
        site = self.sites.get(pos)
        return site.context if site is not None else self.everywhere


class _Scanner:
    """One pass over a template; `int_names` (declared `-i`) come from a previous pass."""

    def __init__(self, src: str, int_names: set[str]) -> None:
        self.src = src
        self.n = len(src)
        self.covered = bytearray(self.n)
        self.sites: dict[int, ArithSite] = {}
        #: name -> first arithmetic context that reads it
        self.reads: dict[str, str] = {}
        self.assigned: set[str] = set()
        self.unsafe: set[str] = set()
        self.opened: list[str] = []
        self.dynamic: list[str] = []
        self.int_names = int_names
        self.new_int: set[str] = set()
        #: (variable, placeholder offset) for `name={x}` assignments
        self.assign_sites: list[tuple[str, int]] = []
        #: (variable, placeholder offset) for `declare name={x}`: arithmetic-like when `name` may be an array
        self.decl_sites: list[tuple[str, int]] = []
        #: names the template may make arrays (`a=(...)`, `a[i]=`, `declare -a a`, `read -a a`, `mapfile a`)
        self.arrays: set[str] = set()
        #: context of the arithmetic a command substitution is nested in
        self.sub_context: str | None = None
        self.nested_shell = False
        self.subshell_paren = False
        #: scanning the value of a CODE_VARS variable: the runner's own environment is read as harmless
        #: unless the template sets it (kept here, name -> context)
        self.code_value = False
        self.env_reads: dict[str, str] = {}

    # ------------------------------------------------------------------ helpers

    def cover(self, a: int, b: int) -> None:
        self.covered[a:b] = b"\x01" * (max(b, a) - a)

    def site(self, pos: int, context: str, inline: bool) -> None:
        if pos not in self.sites:
            self.sites[pos] = ArithSite(context, inline and self.sub_context is None)

    def open(self, why: str) -> None:
        if why not in self.opened:
            self.opened.append(why)

    def read(self, name: str, context: str) -> None:
        (self.env_reads if self.code_value and name in _RUNNER_ENV else self.reads).setdefault(name, context)

    # ------------------------------------------------------------------ arithmetic text

    def arith(self, a: int, b: int, context: str) -> None:
        """Scan src[a:b] as an arithmetic expression."""
        src = self.src
        i = a
        while i < b:
            c = src[i]
            if c == "{":
                m = PLACEHOLDER_RE.match(src, i)
                if m is not None and m.end() <= b:
                    self.site(i, context, True)
                    i = m.end()
                    continue
                i += 1
            elif c in "0123456789":
                i += 1
                while i < b and (src[i] in NAME_CHARS or src[i] in "#@"):
                    i += 1  # 42, 0x1f, 16#ff, 64#@_
            elif (m := _IDENT_RE.match(src, i)) is not None:
                name = m.group()
                self.read(name, context)
                after = _ARITH_ASSIGN_RE.match(src, m.end())
                before = src[max(a, i - 2) : i]
                if (after is not None and after.end() <= b) or before in ("++", "--"):
                    self.assigned.add(name)
                i = m.end()
            elif c == "$":
                i = self.dollar(i, context)
            elif c == "`":
                i = self.command_sub(i + 1, "`", context) + 1
            elif c == "\\":
                i += 2
            else:
                i += 1
        self.cover(a, b)

    def command_sub(self, i: int, closer: str, context: str | None) -> int:
        """A `$(...)` or backtick body; inside arithmetic its output is evaluated too."""
        outer = self.sub_context
        if context is not None:
            self.open(f"a command substitution inside {context}")
            self.sub_context = f"a command substitution inside {context}"
        end = self.shell(i, closer)
        self.sub_context = outer
        return end

    def dollar(self, i: int, context: str | None) -> int:
        """The `$` construct at i; `context` is the arithmetic it is in (None: shell text)."""
        src, n = self.src, self.n
        d = src[i + 1] if i + 1 < n else ""
        if d == "(":
            end = match_close(src, i + 2, "(", ")")
            if end is None:
                return n
            if src.startswith("((", i + 1) and src.startswith("))", end - 2):
                self.arith(i + 3, end - 2, "$(( ))")
                self.cover(i, end)
                return end
            end = self.command_sub(i + 2, ")", context) + 1
            self.cover(i, end)
            return end
        if d == "[":
            end = match_close(src, i + 2, "[", "]")
            if end is None:
                return n
            self.arith(i + 2, end - 1, "$[ ]")
            self.cover(i, end)
            return end
        if d == "{":
            return self.parameter(i, context)
        if d == "'":
            j = i + 2
            while j < n and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            return min(j + 1, n)
        m = _IDENT_RE.match(src, i + 1)
        if m is not None:
            if context is not None:
                self.read(m.group(), context)
            self.cover(i, m.end())
            return m.end()
        if d and d in "0123456789@*#?$!-_":
            if context is not None and d not in _INTEGER_SPECIALS:
                self.open(f"${d} inside {context}")
            self.cover(i, i + 2)
            return i + 2
        return i + 1

    def parameter(self, i: int, context: str | None) -> int:
        """A `${...}` expansion: subscripts and substring offsets are arithmetic."""
        src = self.src
        end = match_close(src, i + 2, "{", "}")
        if end is None:
            return self.n
        body_end = end - 1
        j = i + 2
        length = False
        if j < body_end and src[j] in "#!" and j + 1 < body_end and src[j + 1] not in "}":
            if src[j] == "!":
                if context is not None:
                    self.open(f"an indirect expansion ${{!...}} inside {context}")
            else:
                length = True
            j += 1
        indirect = src[i + 2] == "!" and j == i + 3
        m = _IDENT_RE.match(src, j)
        name = m.group() if m is not None and m.end() <= body_end else None
        if name is not None:
            j = m.end()  # type: ignore[union-attr]
            if context is not None and not length:
                self.read(name, context)
            # The value of `v` in ${!v} is a name (its subscript is evaluated); in ${v@P} it is a prompt
            # (command substitutions in it run): both flow like arithmetic.
            if indirect and context is None:
                self.read(name, "an indirect expansion ${!name}")
            if src.startswith("@P", j) and context is None:
                self.read(name, "a prompt expansion ${name@P}")
        elif j < body_end and src[j] in "0123456789@*#?$!-_":
            special = src[j]
            if context is not None and not length and special not in _INTEGER_SPECIALS:
                self.open(f"${{{special}}} inside {context}")
            j += 1
            while j < body_end and src[j] in "0123456789":
                j += 1
            if context is None and (indirect or src.startswith("@P", j)) and special not in _INTEGER_SPECIALS:
                self.open(f"an indirect or prompt expansion of ${special}")  # `${!1}`, `${1@P}`
        if j < body_end and src[j] == "[":
            close = match_close(src, j + 1, "[", "]")
            close = body_end if close is None or close > body_end else close
            # associative keys too: whether `name` is one is decided at run time (`local -A` in a function)
            self.arith(j + 1, close - 1, "an array subscript ${name[...]}")
            j = close
        if context is not None:
            self.arith(j, body_end, context)  # defaults, patterns: their text lands in the expression
        elif j < body_end and src[j] == ":" and j + 1 < body_end and src[j + 1] not in "-=?+":
            self.arith(j + 1, body_end, "a substring expansion ${var:offset:length}")
        else:
            if name is not None and (src.startswith("=", j) or src.startswith(":=", j)):
                self.unsafe.add(name)  # ${name:=word} sets name
            self.words_text(j, body_end, None)
        self.cover(i, end)
        return end

    def words_text(self, a: int, b: int, context: str | None) -> None:
        """Text inside an expansion that is not arithmetic: only nested constructs matter."""
        src = self.src
        i = a
        while i < b:
            c = src[i]
            if c == "$":
                i = self.dollar(i, context)
            elif c == "`":
                i = self.command_sub(i + 1, "`", context) + 1
            elif c == "\\":
                i += 2
            else:
                i += 1

    # ------------------------------------------------------------------ shell text

    def shell(self, i: int, closer: str | None) -> int:
        """Scan shell text from i up to `closer` (")" of `$(`, a backtick, or the end)."""
        src, n = self.src, self.n
        words: list[tuple[int, int]] = []
        start: int | None = None
        depth = 0
        in_test = False  # inside `[[ ... ]]`, where && || ( ) < > belong to the expression
        target = False  # the next word is a redirection's file, not an operand of the command

        def end_word(j: int) -> None:
            nonlocal start, in_test, target
            if start is not None:
                if not target:
                    words.append((start, j))
                target = False
                if src[start:j] == "[[":
                    in_test = True
                elif src[start:j] == "]]":
                    in_test = False
                start = None

        def end_command() -> None:
            self.command(list(words))
            words.clear()

        while i < n:
            c = src[i]
            if closer == "`" and c == "`":
                break
            if closer == ")" and c == ")" and depth == 0:
                break
            if c in " \t":
                end_word(i)
                i += 1
            elif c == "\n":
                end_word(i)
                end_command()
                i += 1
            elif c == "#" and start is None:
                j = src.find("\n", i)
                i = n if j < 0 else j
            elif c == "\\":
                start = i if start is None else start
                i += 2
            elif c == "'":
                start = i if start is None else start
                j = src.find("'", i + 1)
                i = n if j < 0 else j + 1
            elif c == '"':
                start = i if start is None else start
                i = self.double_quoted(i + 1)
            elif c == "$":
                start = i if start is None else start
                i = self.dollar(i, None)
            elif c == "`":
                start = i if start is None else start
                j = self.command_sub(i + 1, "`", None)
                self.cover(i, min(j + 1, n))
                i = j + 1
            elif c == "(" and start is None and src.startswith("((", i):
                # Each look for the `))` may read to the end: after the first `((` that opens a subshell,
                # the others count as arithmetic nobody follows (`((((...` would cost quadratic time).
                end = match_close(src, i + 1, "(", ")") if not self.subshell_paren else None
                if end is None or not src.startswith("))", end - 2):
                    if self.subshell_paren:
                        self.open("more than one '((' that starts a subshell (write '( (')")
                    self.subshell_paren = True
                    depth += 1
                    end_word(i)
                    end_command()
                    i += 1
                    continue
                self.arith(i + 2, end - 2, "(( ))")
                self.cover(i, end)
                words.append((i, end))
                i = end
            elif c in "|&<>()" and in_test:
                end_word(i)
                i += 1
            elif c in "|&;<>()":
                end_word(i)
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                target = c in "<>"
                if not target:
                    end_command()
                i += 1
            else:
                start = i if start is None else start
                i += 1
        end_word(min(i, n))
        end_command()
        return i

    def double_quoted(self, i: int) -> int:
        src, n = self.src, self.n
        while i < n:
            c = src[i]
            if c == "\\":
                i += 2
            elif c == '"':
                return i + 1
            elif c == "$":
                i = self.dollar(i, None)
            elif c == "`":
                i = self.command_sub(i + 1, "`", None) + 1
            else:
                i += 1
        return n

    # ------------------------------------------------------------------ commands

    def command(self, words: list[tuple[int, int]]) -> None:
        """Word-level contexts of one simple command: assignments, let, declare, [[ ]]."""
        if not words:
            return
        src = self.src
        raws = [src[a:b] for a, b in words]
        # `PS4={x}`, `export EDITOR={x}`, `env GIT_SSH={x} git`; `for PS4 in {x}`, `printf -v PS4 %s {x}`
        setter = any(_unquote(raw) in ("for", "select", *NAME_SETTING_BUILTINS) for raw in raws)
        for word, raw in zip(words, raws, strict=True):
            code = _CODE_VAR_RE.fullmatch(_unquote(raw) + "=") if setter else None
            if code is not None:
                what = f"{code.group(1)}, a variable bash or a program runs as code"
                for m in PLACEHOLDER_RE.finditer(src, words[0][0], words[-1][1]):
                    self.site(m.start(), what, False)
            elif (code := _CODE_VAR_RE.match(_unquote(raw))) is not None:
                what = f"{code.group(1)}=..., a variable bash or a program runs as code"
                self.nested_shell = True  # a program runs it, in argv mode too (`env PAGER={x} man ls`)
                for m in PLACEHOLDER_RE.finditer(src, *word):
                    self.site(m.start(), what, False)
                self.code_value = True
                self.outer_code(*word, what)
                self.code_value = False
        # `env {x} git`, `env -S {x}`: before its program, env takes `NAME=value` words and options, so
        # the value may set any variable above, or be the program and its arguments
        x = next((x for x, raw in enumerate(raws) if _unquote(raw).rsplit("/", 1)[-1] == "env"), len(raws))
        while (x := x + 1) < len(raws):
            if PLACEHOLDER_RE.search(raws[x]) is not None and not _is_assignment(_unquote(raws[x])):
                self.nested_shell = True
                for m in PLACEHOLDER_RE.finditer(src, *words[x]):
                    self.site(
                        m.start(),
                        "an operand of env before its program: a variable a program runs as code, or the program",
                        False,
                    )
            elif raws[x] in ("-u", "-C", "--unset", "--chdir"):
                x += 1  # the option's own argument
            elif raws[x][:1] != "-" and not _is_assignment(_unquote(raws[x])):
                break  # the program
        k = 0
        while k < len(words) and (_is_assignment(raws[k]) or raws[k] in PREFIX_WORDS):
            if raws[k] not in PREFIX_WORDS:
                self.assignment(words[k])
            k += 1
        if self.sub_context is not None:
            for a, b in words:
                for m in PLACEHOLDER_RE.finditer(src, a, b):
                    self.site(m.start(), self.sub_context, False)
        if k == len(words):
            return
        cmd = _unquote(raws[k])
        rest = list(range(k + 1, len(words)))
        handled: set[int] = set()
        if "$" in cmd or "`" in cmd:
            # `$cmd n={x}`: the command may be let, declare -i or a shell, decided at run time
            self.dynamic.append("a command name computed at run time")
            for a, b in words[k + 1 :]:
                for m in PLACEHOLDER_RE.finditer(src, a, b):
                    self.site(m.start(), f"an argument of the computed command {raws[k]}", False)
        if cmd == "alias":
            self.open("an alias (it can stand for let or declare -i)")
        if cmd == "let":
            for x in rest:
                self.arith(*words[x], "let")
            return
        if cmd in DECLARATION_BUILTINS:
            opts = "".join(raws[x][1:] for x in rest if raws[x][:1] in "-+")
            if "n" in opts:
                self.dynamic.append(f"'{cmd} -n'")
                if cmd != "export":  # `export -n` unexports; the others make a nameref, whose target (a
                    # name, maybe `a[$(cmd)]`, evaluated on every use) may be set from any value
                    self.open(f"a nameref ({cmd} -n)")
            for x in rest:
                raw = raws[x]
                if raw[:1] in "-+":
                    continue
                if "i" in opts and _ASSIGN_WORD_RE.match(_unquote(raw)) is not None:
                    # `declare -i n=...`, however quoted: the value is evaluated as arithmetic
                    self.new_int.add(_ASSIGN_WORD_RE.match(_unquote(raw)).group(1))  # type: ignore[union-attr]
                    if not _is_assignment(raw) and "=" in raw:
                        self.arith(*words[x], "an assignment to an integer variable (declare -i)")
                        handled.add(x)
                        continue
                m = _IDENT_RE.fullmatch(raw)
                if m is not None:
                    if "i" in opts:
                        self.new_int.add(raw)
                    handled.add(x)
                elif _is_assignment(raw):
                    name = _ASSIGN_WORD_RE.match(raw).group(1)  # type: ignore[union-attr]
                    if "i" in opts:
                        self.new_int.add(name)
                    self.assignment(words[x])
                    handled.add(x)
                else:
                    self.dynamic.append(f"'{cmd}' with a computed name")
            # `declare -a a={x}` (and `declare a={x}` once `a` is an array) evaluates `(...)` in the value as
            # an array assignment, running the `$(...)` of its subscripts; `declare -x {x}` is a name.
            array = "a" in opts or "A" in opts
            for x in rest:
                raw = _unquote(raws[x])
                named = _ASSIGN_WORD_RE.match(raw) if _is_assignment(raw) else None
                if raws[x][:1] in "-+" or (
                    named is None and not PLACEHOLDER_RE.fullmatch(raw) and "$" not in raw
                ):
                    self.arrays |= {raw} if array else set()
                    continue
                if named is not None and not array:
                    if cmd not in ("export", "readonly"):  # an array only if the template makes it one
                        self.decl_sites += [
                            (named.group(1), m.start()) for m in PLACEHOLDER_RE.finditer(src, *words[x])
                        ]
                    continue
                self.arrays |= {named.group(1)} if named is not None else set()
                for m in PLACEHOLDER_RE.finditer(src, *words[x]):
                    self.site(m.start(), f"an argument of '{cmd}' (a name, or an array assignment)", False)
                # `declare -a a="$v"`, `declare "$1"=x`: what fills it comes from a value
                self.words_text(
                    *words[x], f"an array assignment by '{cmd}'" if named else f"a variable name ({cmd})"
                )
        if "[[" in raws[k:]:  # `[[` may follow `if`, `!`, `&&` or a function's `{`
            lo = raws.index("[[", k)
            for x in range(lo + 1, len(words)):
                if raws[x] in ARITH_TEST_OPS:
                    for y in (x - 1, x + 1):
                        if lo < y < len(words) and raws[y] != "]]":
                            self.arith(*words[y], f"[[ {raws[x]} ]]")
                            handled.add(y)
        if cmd in CODE_BUILTINS:
            self.dynamic.append(f"'{cmd}'")
            if cmd == "eval":
                for x in rest:
                    self.nested(*words[x], f"'{cmd}'", alone=len(rest) == 1)
                    handled.add(x)
        elif cmd == "trap" and rest and not raws[rest[0]].startswith("-"):
            self.nested(*words[rest[0]], "'trap'")
            handled.add(rest[0])
        elif cmd == "compgen":  # the word list of -W is expanded again; -C's is run as a command
            for x, y in zip(rest, rest[1:], strict=False):
                if raws[x] in ("-W", "-C"):
                    self.nested(*words[y], f"'compgen {raws[x]}'", alone=False)
                    handled.add(y)
        elif cmd in NAME_SETTING_BUILTINS:
            spec, before = NAME_SETTING_BUILTINS[cmd], ["", *(raws[x] for x in rest)]
            if spec.startswith("-"):
                names = [x for x, p in zip(rest, before, strict=False) if p == spec]
            else:
                names = [
                    x
                    for x, p in zip(rest, before, strict=False)
                    if not raws[x].startswith("-") and not (p[:1] == "-" and p[-1:] and p[-1:] in spec)
                ]
            if any("$" in raws[x] or "`" in raws[x] for x in names):
                self.dynamic.append(f"'{cmd}' with a computed variable name")
            if cmd in ("mapfile", "readarray") or any(raws[y][:1] == "-" and "a" in raws[y] for y in rest):
                self.arrays |= {_unquote(raws[x]) for x in names}
            for x in names:  # `unset a[$(cmd)]` runs cmd, whether the name is a placeholder, `$v` or `$1`
                for m in PLACEHOLDER_RE.finditer(src, *words[x]):
                    self.site(m.start(), f"a variable name ({cmd})", False)
                self.words_text(*words[x], f"a variable name ({cmd})")
                handled.add(x)
        if cmd in ("test", "[", "[[") or "[[" in raws[k:]:
            for x in range(k, len(words) - 1):  # `-v name` tests evaluate the subscript of the name
                if raws[x] == "-v":
                    for m in PLACEHOLDER_RE.finditer(src, *words[x + 1]):
                        self.site(m.start(), f"a variable name ({raws[k]} -v)", False)
                    self.words_text(*words[x + 1], f"a variable name ({raws[k]} -v)")
                    handled.add(x + 1)
        for x in range(k, len(words)):
            if _unquote(raws[x]).rsplit("/", 1)[-1] in SHELL_PROGRAMS:
                script = next((y + 1 for y in range(x + 1, len(words) - 1) if _is_dash_c(raws[y])), None)
                if script is not None:
                    self.nested(*words[script], "a nested shell (sh -c)")
                    handled.add(script)
                break
        for x in range(k, len(words)):
            if x not in handled:
                self.subscripts(*words[x])
                self.tokens(*words[x])

    def nested(self, a: int, b: int, what: str, alone: bool = True) -> None:
        """A word run as a script (`bash -c '...'`, `eval`, `trap`): its arithmetic sees our variables."""
        raw = self.src[a:b]
        if what.startswith("a nested shell"):
            self.nested_shell = True
        if alone and PLACEHOLDER_RE.fullmatch(_script_text(raw)):
            return  # `bash -c {script}`, `eval {x}`: the value is the program, by the author's choice
        self.outer_code(a, b, f"the code of {what}")
        child = _Scanner(_script_text(raw), self.int_names)
        child.run()
        for name, context in child.reads.items():
            self.read(name, f"{context} of {what}")
        self.assigned |= child.assigned
        self.unsafe |= child.unsafe
        self.dynamic += child.dynamic
        for why in child.opened:
            self.open(f"{why} of {what}")
        if child.sites:
            self.open(f"a placeholder inside the script of {what}")
        for m in PLACEHOLDER_RE.finditer(self.src, a, b):
            self.site(m.start(), f"the script of {what}", False)
        self.cover(a, b)

    def outer_code(self, a: int, b: int, context: str) -> None:
        """What the shell expands into a word it then runs as code (`eval "echo $v"`, `trap "rm $f" EXIT`) is
        parsed as code: it flows like arithmetic. Single-quoted text is the script's own, expanded later."""
        src, i, dq = self.src, a, False
        while i < b:
            c = src[i]
            if c == "'" and not dq:
                j = src.find("'", i + 1, b)
                i = b if j < 0 else j + 1
            elif c in '"\\':
                dq ^= c == '"'
                i += 1 if c == '"' else 2
            elif c == "$":
                i = self.dollar(i, context)
            elif c == "`":
                i = self.command_sub(i + 1, "`", context) + 1
            else:
                i += 1

    def assignment(self, word: tuple[int, int]) -> None:
        """`name=value`, `name+=value`, `name[sub]=value`, on its own or after declare."""
        a, b = word
        src = self.src
        m = _ASSIGN_WORD_RE.match(src, a)
        assert m is not None
        name = m.group(1)
        j = m.end()
        if m.group(2):
            close = _bracket_close(src, j, b)
            self.arith(j, close - 1, "an array subscript name[...]")
            self.arrays.add(name)
            j = close
        if src.startswith("+=", j):
            j += 2
        elif src.startswith("=", j):
            j += 1
        self.cover(a, j)
        if name in self.int_names:
            self.arith(j, b, f"an assignment to integer variable '{name}' (declare -i)")
            self.assigned.add(name)
            return
        value = _unquote(src[j:b])
        if b < self.n and src[b] == "(" and j == b:
            self.unsafe.add(name)  # name=( ... ): an array filled with words
            self.arrays.add(name)
        elif value == "" or _INT_LITERAL_RE.fullmatch(value):
            self.assigned.add(name)
            self.cover(j, b)
        elif (ph := PLACEHOLDER_RE.fullmatch(value)) is not None and src.find(ph.group(), j, b) >= 0:
            self.assigned.add(name)
            self.assign_sites.append((name, src.find(ph.group(), j, b)))
            self.cover(j, b)
        else:
            self.unsafe.add(name)
            self.tokens(j, b)

    def subscripts(self, a: int, b: int) -> None:
        """`name[...]` in a word, in any quoting: bash evaluates it whenever the word names a variable."""
        src = self.src
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*\[", src[a:b]):
            start = a + m.end()
            if self.covered[start - 1]:
                continue
            close = _bracket_close(src, start, b)
            self.arith(
                start, close - 1 if src[close - 1 : close] == "]" else close, "an array subscript name[...]"
            )

    def tokens(self, a: int, b: int) -> None:
        """Names in words outside arithmetic: each may be a variable the command sets."""
        text = PLACEHOLDER_RE.sub(lambda m: " " * len(m.group()), self.src[a:b])
        for m in _TOKEN_RE.finditer(text):
            if not self.covered[a + m.start()]:
                self.unsafe.add(m.group())

    def run(self) -> None:
        self.shell(0, None)


def _is_assignment(raw: str) -> bool:
    m = _ASSIGN_WORD_RE.match(raw)
    if m is None:
        return False
    j = m.end()
    if m.group(2):
        close = _bracket_close(raw, j, len(raw))
        j = close
    return raw.startswith("=", j) or raw.startswith("+=", j)


def _is_dash_c(raw: str) -> bool:
    """`-c`, or an option cluster holding it (`-ec`)."""
    return raw.startswith("-") and not raw.startswith("--") and "c" in raw


def _script_text(raw: str) -> str:
    """The text a shell word stands for, quotes and escapes removed (expansions left as written)."""
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "'":
            j = raw.find("'", i + 1)
            j = n if j < 0 else j
            out.append(raw[i + 1 : j])
            i = j + 1
        elif c == '"':
            i += 1
            while i < n and raw[i] != '"':
                if raw[i] == "\\" and i + 1 < n and raw[i + 1] in '$`"\\':
                    i += 1
                out.append(raw[i])
                i += 1
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _bracket_close(src: str, i: int, limit: int) -> int:
    """Index past the `]` closing a `[` just before i (or `limit` when it is not closed)."""
    depth = 1
    while i < limit:
        c = src[i]
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return limit


def _unquote(raw: str) -> str:
    """A word's text with simple quoting removed (enough to recognise names and literals)."""
    return raw.replace("'", "").replace('"', "").replace("\\", "")


def _why_open(s: _Scanner, name: str) -> str | None:
    if s.dynamic:
        return f"the template uses {s.dynamic[0]}, which can set any variable"
    if name.startswith("SKILLYARD_"):
        return "it holds a raw argument value"
    if _UPPER_RE.fullmatch(name) and name not in BASH_INTEGER_VARS:
        return "bash or the environment may set it"
    if name in s.unsafe:
        return "the template may set it from other text"
    if name not in s.assigned and name not in BASH_INTEGER_VARS:
        return "the template never sets it"
    return None


def arith_contexts(src: str) -> ArithInfo:
    """Where bash would evaluate the template's placeholders as arithmetic (see the module docstring)."""
    if PLACEHOLDER_RE.search(src) is None:
        return ArithInfo({}, None)
    s = _Scanner(src, set())
    s.run()
    if s.new_int:  # `declare -i n` may come after `n={x}` in the text: scan again knowing the names
        s = _Scanner(src, s.new_int)
        s.run()
    everywhere: str | None = None
    reads = dict(s.reads)
    for name, context in s.env_reads.items():  # `HOME={x}`, `read HOME`: named other than as `$HOME`
        if s.dynamic or re.search(rf"(?<![$\w{{]){name}(?!\w)", src):
            reads.setdefault(name, context)
    for name in s.new_int:
        reads.setdefault(name, "every assignment to it (declare -i)")
    sites = dict(s.sites)
    for name, context in reads.items():
        why = _why_open(s, name)
        if why is not None:
            everywhere = f"variable '{name}' is evaluated in {context} and {why}"
            break
    if everywhere is None and s.opened:
        everywhere = s.opened[0]
    for name, pos in s.decl_sites:
        if name in s.arrays or s.dynamic or _UPPER_RE.fullmatch(name):  # bash's own arrays are upper-case
            sites.setdefault(
                pos, ArithSite(f"an assignment by declare/local to '{name}', which may be an array", False)
            )
    for name, pos in s.assign_sites:
        if name in reads and pos not in sites:
            sites[pos] = ArithSite(f"an assignment to '{name}', which is evaluated in {reads[name]}", False)
    return ArithInfo(sites, everywhere, s.nested_shell)
