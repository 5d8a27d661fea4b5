"""JavaScript and TypeScript read with tree-sitter: strings folded, `child_process` and secrets followed.

Folding covers `+` concatenation, template literals with known parts, `[...].join("")`,
`path.join`, `os.homedir()`, `Buffer.from(x, "base64"|"hex").toString()`, `atob` and
`String.fromCharCode` of constants; names bound by `const`/`let`/`var` and `require`/`import` of
modules are resolved. Like the Python reader it is flow-insensitive within a file.
"""

from __future__ import annotations

import base64
import codecs
import json
import re
import shlex
import urllib.parse
from typing import Any

from skillyard.install.scanner._flows import (
    ALT,
    MAX_ALTS,
    PARAM,
    SECRET_ENV,
    STAND_IN,
    CodeFacts,
    Export,
    Flow,
    Project,
    Source,
    cli_secret,
    cli_source,
    climb,
    combine,
    destroys,
    exchanged,
    flow,
    popped,
    secret_path,
    sent,
    stand_in_command,
    stand_in_marker,
    unbase64,
    unhex,
    written,
)

MAX_BYTES = 512 * 1024
MAX_FOLD = 64 * 1024
_parsers: dict[str, Any] = {}
_EXEC = {"exec", "execSync", "spawn", "spawnSync", "execFile", "execFileSync"}
_NET = set("fetch axios.post axios.put axios http.request https.request got.post needle.post".split())
_DNS = {"dns.lookup", "dns.resolve", "dns.resolve4", "dns.promises.lookup", "dns.promises.resolve"}
#: File calls, as `_fs` spells them (without `fs.`, `fs.promises.`, `fs-extra.` or `fse.`).
_READ = {"readFileSync", "readFile"}
#: Calls that fetch something from the network (their result may be code).
_GET = set(
    "http.get https.get http.request https.request fetch axios.get axios got got.get needle.get "
    "request".split()
)
#: Streams of the machine itself, whose `data` events receive nothing from the network.
_LOCAL_STREAM = re.compile(r"ReadStream|stdin|stdout|stderr|readline|\bfs\b|watch", re.I)
#: Calls that open a connection whose `.write`/`.end`/`.send` then sends data.
_CONNECT = set(
    "http.request https.request net.connect net.createConnection tls.connect net.Socket WebSocket ws".split()
)
#: An extension's reads of the browser's cookie jar (`chrome.cookies.getAll`, `browser.cookies.get`).
_COOKIE_JAR = re.compile(r"^(?:chrome|browser)\.cookies\.(?:get|getAll)$")
#: Evaluate a string as JavaScript.
_EVAL = set(
    "eval Function vm.runInThisContext vm.runInNewContext vm.runInContext vm.Script "
    "vm.compileFunction".split()
)
_AS_JS = "evaluates it as JavaScript"
#: A response's body read out (`r.text()`, `r.json()`, `r.data` is a property, not read here).
_BODY_READS = {"text", "json", "arrayBuffer", "blob", "buffer", "body"}
#: A module URL made at run time: a `data:` URL with something added, or an object URL of a blob.
_BUILT_MODULE = re.compile(r"""\s*(?:[`"']data:[^`"']*(?:[`"']\s*\+|\$\{)|(?:\w+\.)*createObjectURL\()""")
_WRITE = {"writeFileSync", "writeFile", "appendFileSync", "appendFile", "createWriteStream"}
_REMOVE = {"rmSync", "rm", "rmdirSync", "rmdir", "removeSync", "remove", "rimraf", "rimraf.sync"}
_FS_MODULE = re.compile(r"^(?:fs[./]promises|fs|fs-extra|fse)\.")
#: Module registries and CDNs that Deno and browser code import from by URL.
_MODULE_CDN = re.compile(
    r"(?i)https://(?:deno\.land|jsr\.io|esm\.sh|esm\.run|cdn\.jsdelivr\.net|unpkg\.com|cdn\.skypack\.dev|ga\.jspm\.io)/"
)


def _lists_folder(r: Any, node: Any) -> bool:
    """Whether `node` is a call that lists a folder (`fs.readdirSync(dir)`)."""
    f = node.child_by_field_name("function") if node is not None and node.type == "call_expression" else None
    return f is not None and bool(re.search(r"\breaddir(?:Sync)?$", r.qual(f)))


def _data_url(url: str) -> str | None:
    """The script a `data:` URL of JavaScript holds (base64 or percent-encoded), else None."""
    m = re.match(
        r"(?is)data:(?:text|application)/(?:x-)?(?:java|ecma)script(?:;[^,;]*)*?(;base64)?,(.*)$", url
    )
    if not m:
        return None
    try:
        raw = base64.b64decode(m.group(2) + "=" * (-len(m.group(2)) % 4)) if m.group(1) else None
    except ValueError:
        return None
    return raw.decode("utf-8", "replace") if raw is not None else urllib.parse.unquote(m.group(2))


#: Names of the global object: a call through them is a call of the global function.
_GLOBALS = frozenset({"globalThis", "window", "global", "self"})
#: Expressions that stand for the one inside them (TypeScript's `x as T`, `x!`, `x satisfies T`).
_WRAPPED = frozenset(
    {"parenthesized_expression", "as_expression", "non_null_expression", "satisfies_expression"}
)
_LOCAL = re.compile(r"^(?:127\.|localhost\b|::1$|\[::1\]|0\.0\.0\.0)")
#: A helper whose name says it reads (`readIf`, `loadFile`, `slurp`) is a read when handed a secret path.
_READISH = re.compile(r"read|load|slurp|cat|get.*file|grab", re.IGNORECASE)
_SHELL_CMD = re.compile(
    r"^(?:/usr)?(?:/bin/)?(?:ba|z|da|k)?sh$|^(?:cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)$"
)


def _parser(lang: str) -> Any:
    if lang not in _parsers:
        from tree_sitter import Language, Parser

        if lang == "javascript":
            import tree_sitter_javascript as mod

            _parsers[lang] = Parser(Language(mod.language()))
        else:
            import tree_sitter_typescript as ts

            grammar = ts.language_tsx() if lang == "tsx" else ts.language_typescript()
            _parsers[lang] = Parser(Language(grammar))
    return _parsers[lang]


#: Calls of a file's one-line helpers folded per file (each folds the helper's body again).
MAX_APPLIES = 4096
_FUNCS = ("function_declaration", "function_expression", "arrow_function", "generator_function_declaration")
#: Functions of one file whose bodies may be read, and parameters read per function.
MAX_FUNCTIONS = 200
MAX_PARAMS = 8
#: Nodes all function-body readings of one file may visit together (deeply nested bundles stop here).
MAX_SUMMARY_NODES = 200_000
#: Where a value given to a parameter goes: kind, severity, line, text with PARAM for the value.
Sink = tuple[str, str, int, str]


#: The bytes of decoded constants a file may still have read (`_decoded_eval`), shared with the
#: readers of what it decodes: nested encodings cost the file's budget, not a fresh one each.
_DECODING: list[list[int]] = []


class _Reader:
    def __init__(self, src: bytes, project: Project | None = None, rel: str = "") -> None:
        self.src = src
        self.decode_left = _DECODING[-1] if _DECODING else [256 * 1024]
        self._runs: bool | None = None  # whether the file runs or evaluates anything (`runs_anything`)
        self.root: Any = None  # the file's syntax tree, once `run` reads it
        #: secret-holding names -> their stand-in while a command is read for the secrets in it
        self.marking: dict[str, str] = {}
        #: nodes left for reading function bodies, shared by the readers of one file's functions
        #: (`budget` is set on those readers only: the file's own walk is never cut short)
        self.shared: list[int] = [MAX_SUMMARY_NODES]
        self.budget: list[int] | None = None
        self.project = project
        self.rel = rel
        #: this file's functions by name (declarations, `const f = () => ...`, `exports.f = ...`)
        self.defs: dict[str, Any] = {}
        self.done: set[str] = set()
        #: names bound to a folder's listing (`names = fs.readdirSync(dir)`): a loop's entry is `dir/*`
        self.listings: set[str] = set()
        #: arrays with some items known at run time only: the known ones (`roots.forEach(scan)`)
        self.partial: dict[str, list[str]] = {}
        #: function -> {parameter position: the secret its body puts into that container}
        self.fills: dict[str, dict[int, Source]] = {}
        self.ready = False
        #: callee (as `qual` spells it) -> (secret it returns, file it is defined in or None)
        self.returns: dict[str, tuple[Source, str | None]] = {}
        #: callee -> ({parameter position: sink}, file it is defined in or None)
        self.sinks: dict[str, tuple[dict[int, Sink], str | None]] = {}
        self.env: dict[str, str] = {}
        self.mods: dict[str, str] = {}
        self.taint: dict[str, Source] = {}
        self.arrays: dict[str, list[str]] = {}
        #: calls of the file's helpers being folded, one inside another (bounded)
        self._applying = 0
        self._applies = MAX_APPLIES
        #: names holding text read from local files
        self.local: set[str] = set()
        #: names bound to an open connection -> where it goes
        self.conns: dict[str, str] = {}
        self.facts = CodeFacts()
        self.gets: list[tuple[int, str]] = []
        #: names bound to a DNS TXT record awaited (`const recs = await r.resolveTxt(zone)`)
        self.txt: set[str] = set()
        #: names bound to a response or its body (`const t = await (await fetch(u)).text()`)
        self.bodies: set[str] = set()
        #: function (by its span) -> whether it makes a request and returns (read once each)
        self.fetchers: dict[tuple[int, int], bool] = {}
        #: (line, how) of code run whose text is only known at run time
        self.evals: list[tuple[int, str]] = []
        self.sockets: list[tuple[int, str]] = []
        self.shells: list[int] = []
        #: (line, path) of files the code writes
        self.written: list[tuple[int, str]] = []
        #: (line, path) of absolute paths the code `require`s (a file it may have written itself)
        self.required: list[tuple[int, str]] = []
        #: names of files written with a path only known at run time, and lines that run one
        self.written_names: set[str] = set()
        self.ran_written: list[int] = []
        #: arrays of credential-store paths: name -> the first credential in them
        self.secret_arrays: dict[str, Source] = {}
        #: loop variables walking such an array (`for (const f of files)`)
        self.secret_items: dict[str, Source] = {}

    def text(self, n: Any) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "replace")

    def qual(self, n: Any) -> str:
        while n.type in ("parenthesized_expression", "sequence_expression") and n.named_children:
            n = n.named_children[-1]  # `(0, eval)`, `(fn.constructor)`
        if n.type == "identifier":
            name = self.text(n)
            return self.mods.get(name, name)
        if n.type == "member_expression":
            obj = n.child_by_field_name("object")
            prop = n.child_by_field_name("property")
            if obj is not None and prop is not None:
                if self.text(prop) == "constructor" and self._a_function(obj):
                    return "Function"
                base = self.qual(obj)
                # globalThis.fetch, window["eval"], g.Function with g = globalThis: the global itself
                return self.text(prop) if base in _GLOBALS else f"{base}.{self.text(prop)}"
        if n.type == "subscript_expression":
            obj = n.child_by_field_name("object")
            idx = n.child_by_field_name("index")
            key = self.fold(idx) if idx is not None else None
            if obj is not None and key:
                if key == "constructor" and self._a_function(obj):
                    return "Function"
                base = self.qual(obj)
                return key if base in _GLOBALS else f"{base}.{key}"
        if n.type == "call_expression":
            f = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if f is not None and self.qual(f) == "require" and args is not None and args.named_children:
                mod = self.fold(args.named_children[0])
                if mod:
                    return mod.removeprefix("node:")
        return self.text(n)[:200]

    def _a_function(self, n: Any) -> bool:
        """Whether `n` is a function value whose `constructor` is `Function`: a function or arrow
        written there, a method read off a literal (`[]["filter"]`, `"".sub`), or an object's
        constructor (`({}).constructor`, whatever the object)."""
        while n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[-1]
        if n.type in ("function_expression", "function", "arrow_function", "generator_function"):
            return True
        if n.type == "call_expression" and (a := n.child_by_field_name("arguments")) is not None:
            # `Object.getPrototypeOf(async function () {})`: a function's prototype, whose
            # `constructor` is `AsyncFunction` (or `Function`, `GeneratorFunction`)
            f = n.child_by_field_name("function")
            proto = f is not None and self.qual(f) in ("Object.getPrototypeOf", "Reflect.getPrototypeOf")
            return proto and bool(a.named_children) and self._a_function(a.named_children[0])
        if n.type == "member_expression" and self.text(n.child_by_field_name("property")) == "__proto__":
            return self._a_function(n.child_by_field_name("object"))
        if n.type not in ("member_expression", "subscript_expression"):
            return False
        obj = n.child_by_field_name("object")
        key = n.child_by_field_name("property") or n.child_by_field_name("index")
        name = self.text(key) if n.type == "member_expression" else self.fold(key)
        while obj is not None and obj.type == "parenthesized_expression" and obj.named_children:
            obj = obj.named_children[-1]
        literal = obj is not None and obj.type in (
            "array",
            "string",
            "template_string",
            "object",
            "number",
            "regex",
        )
        return name == "constructor" or (literal and name is not None)

    def fold(self, n: Any) -> str | None:
        out = self._fold(n)
        return out if out is None or len(out) <= MAX_FOLD else None

    def _fold(self, n: Any) -> str | None:
        t = n.type
        if self.marking and t in _REFERENCES:
            # reading a command for the secrets in it: `${n.slice(0, 40)}` is where secret n goes
            hit = next((x for x in _walk(n) if x.type == "identifier" and self.text(x) in self.marking), None)
            if hit is not None:
                return self.marking[self.text(hit)]
        if t == "string":
            return "".join(
                self.text(c) if c.type == "string_fragment" else _unescape(self.text(c))
                for c in n.named_children
                if c.type in ("string_fragment", "escape_sequence")
            )
        if t == "template_string":
            parts = []
            for c in n.named_children:
                if c.type == "string_fragment":
                    parts.append(self.text(c))
                elif c.type == "template_substitution" and c.named_children:
                    s = self.fold(c.named_children[0])
                    if s is None:
                        return None
                    parts.append(s)
            return "".join(parts)
        if t == "identifier":
            return self.env.get(self.text(n))
        if t == "number":
            return self.text(n)
        if t in _WRAPPED and n.named_children:
            return self.fold(n.named_children[0])
        if t == "binary_expression":
            op = n.child_by_field_name("operator")
            if op is not None and self.text(op) in ("??", "||"):
                left = self.fold(n.child_by_field_name("left"))
                return left if left is not None else self.fold(n.child_by_field_name("right"))
            if op is not None and self.text(op) == "+":
                a = self.fold(n.child_by_field_name("left"))
                b = self.fold(n.child_by_field_name("right"))
                return combine([a, b], "".join) if a is not None and b is not None else None
            return None
        if t == "member_expression":
            if self.qual(n) == "process.env.HOME":
                return "~"
            return None
        if t == "call_expression":
            return self._fold_call(n)
        return None

    def _fold_call(self, n: Any) -> str | None:
        f = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        if f is None or args is None:
            return None
        q = self.qual(f)
        a = args.named_children
        if q in ("os.homedir", "homedir"):
            return "~"
        if q in ("os.tmpdir", "tmpdir"):
            return "/tmp"
        if q == "process.cwd":
            return "."
        if f.type == "identifier" and len(a) == 1 and (fn := self.defs.get(self.text(f))) is not None:
            return self._applied(fn, a[0])
        if q == "String.fromCharCode.apply" and len(a) == 2 and a[1].type == "identifier":
            codes = self.arrays.get(self.text(a[1]))
            try:
                return "".join(chr(int(c, 0)) for c in codes) if codes else None
            except (ValueError, OverflowError):
                return None
        if q in ("path.join", "path.resolve", "join"):
            vals = [self.fold(x) for x in a]
            if not vals or any(v is None for v in vals):
                return None
            return combine(
                [str(v) for v in vals],
                lambda vs: climb("/".join(v.strip("/") if i else v.rstrip("/") for i, v in enumerate(vs))),
            )
        if (
            f.type == "member_expression"
            and self.text(f.child_by_field_name("property")) == "reduce"
            and (obj := f.child_by_field_name("object")) is not None
            and obj.type == "array"
            and a
            and a[0].type == "arrow_function"
            and re.search(r"\bpath\.(?:resolve|join)\(", self.text(a[0]))
            and all((v := self.fold(x)) is not None and ALT not in v for x in obj.named_children)
        ):
            # [dir, "..", ".."].reduce((a, b) => path.resolve(a, b)): the parts joined as a path
            return climb("/".join(str(self.fold(x)).strip("/") for x in obj.named_children))
        if q == "atob" and a:
            s = self.fold(a[0])
            return unbase64(s) if s is not None else None
        if q == "String.fromCharCode":
            codes: list[str] = []
            for x in a:
                if x.type == "spread_element" and x.named_children:
                    inner = x.named_children[0]
                    got = (
                        self.arrays.get(self.text(inner))
                        if inner.type == "identifier"
                        else self._mapped(inner)
                    )
                    if got is None:
                        return None
                    codes.extend(got)
                else:
                    codes.append(self.text(x))
            try:
                return "".join(chr(int(c, 0)) for c in codes)
            except (ValueError, OverflowError):
                return None
        if f.type == "member_expression":
            prop = self.text(f.child_by_field_name("property"))
            obj = f.child_by_field_name("object")
            rev = self.method(obj)
            split = self.method(rev[0]) if rev and rev[1] == "reverse" else None
            if prop == "join" and split and split[1] == "split":
                # "...".split("").reverse().join(""): a reversed string
                base, sep = self.fold(split[0]), self.fold(a[0]) if a else ","
                if base is not None and sep == "":
                    return base[::-1]
            if prop == "join" and obj is not None and obj.type in ("array", "identifier"):
                # ["a", "b"].join(""), and the same through a name bound to the array
                sep = self.fold(a[0]) if a else ","
                items = (
                    [self.fold(x) for x in obj.named_children]
                    if obj.type == "array"
                    else self.arrays.get(self.text(obj), [None])
                )
                if sep is not None and all(i is not None for i in items):
                    return sep.join(str(i) for i in items)
            if prop == "join" and obj is not None and (chars := self._char_map(obj)) is not None:
                sep = self.fold(a[0]) if a else ","
                return sep.join(chars) if sep is not None else None
            if prop == "join" and obj is not None and (words := self.strings_mapped(obj)) is not None:
                sep = self.fold(a[0]) if a else ","
                return sep.join(words) if sep is not None else None
            made = self.method(obj)
            if prop == "toString" and made and made[1] == "from" and self.text(made[0]) == "Buffer":
                # Buffer.from(DATA, "base64").toString(): the text DATA encodes
                xs = obj.child_by_field_name("arguments").named_children
                data, enc = (self.fold(xs[0]) if xs else None), (self.fold(xs[1]) if len(xs) > 1 else None)
                decode = {"base64": unbase64, "hex": unhex}.get(enc or "")
                return decode(data) if decode is not None and data is not None else None
        return None

    def _applied(self, fn: Any, arg: Any) -> str | None:
        """A call of a one-line, one-parameter function of this file with a constant argument (a
        string or an array of numbers): what its body folds to (`d(R)` with `d = (a) =>
        String.fromCharCode(...a.map((c) => c ^ K))`)."""
        ps = fn.child_by_field_name("parameter") or fn.child_by_field_name("parameters")
        names = [self.text(x) for x in _walk(ps) if x.type == "identifier"] if ps is not None else []
        body = _returned(fn)
        if len(names) != 1 or len(body) != 1 or self._applying > 3 or self._applies <= 0:
            return None
        self._applies -= 1
        name = names[0]
        if arg.type == "array":
            codes = [self.fold(x) for x in arg.named_children]
            items = [str(c) for c in codes if c is not None] if None not in codes else None
        else:
            items = self.arrays.get(self.text(arg)) if arg.type == "identifier" else None
        value = None if items is not None else self.fold(arg)
        if items is None and value is None:
            return None
        saved = self.env.pop(name, None), self.arrays.pop(name, None)
        if items is not None:
            self.arrays[name] = items
        else:
            self.env[name] = value  # type: ignore[assignment]
        self._applying += 1
        try:
            return self.fold(body[0])
        finally:
            self._applying -= 1
            self.env.pop(name, None)
            self.arrays.pop(name, None)
            if saved[0] is not None:
                self.env[name] = saved[0]
            if saved[1] is not None:
                self.arrays[name] = saved[1]

    def strings_mapped(self, call: Any) -> list[str] | None:
        """`["mr", "fr-"].map((w) => w.split("").reverse().join(""))` of constant strings: each
        item put through the same one-expression function."""
        m = self.method(call)
        args = call.child_by_field_name("arguments") if m is not None else None
        if m is None or m[1] != "map" or args is None or len(args.named_children) != 1:
            return None
        base, fn = m[0], args.named_children[0]
        if base.type == "array":
            items = [self.fold(x) for x in base.named_children]
        else:
            items = self.arrays.get(self.text(base), [None]) if base.type == "identifier" else [None]  # type: ignore[assignment]
        ps = fn.child_by_field_name("parameter") or fn.child_by_field_name("parameters")
        names = [self.text(x) for x in _walk(ps) if x.type == "identifier"] if ps is not None else []
        body = _returned(fn) if fn.type in ("arrow_function", "function_expression") else []
        if not items or None in items or len(items) > 256 or len(names) != 1 or len(body) != 1:
            return None
        saved = self.env.pop(names[0], None)
        out: list[str] = []
        try:
            for item in items:
                self.env[names[0]] = item  # type: ignore[assignment]
                if (v := self.fold(body[0])) is None:
                    return None
                out.append(v)
        finally:
            self.env.pop(names[0], None)
            if saved is not None:
                self.env[names[0]] = saved
        return out

    def _mapped(self, call: Any) -> list[str] | None:
        """`CODES.map((c) => c ^ K)` of a constant array: the numbers the arithmetic gives."""
        m = self.method(call)
        args = call.child_by_field_name("arguments")
        if m is None or m[1] != "map" or args is None or len(args.named_children) != 1:
            return None
        base, fn = m[0], args.named_children[0]
        codes = self.arrays.get(self.text(base)) if base.type == "identifier" else None
        ps = fn.child_by_field_name("parameter") or fn.child_by_field_name("parameters")
        names = [self.text(x) for x in _walk(ps) if x.type == "identifier"] if ps is not None else []
        body = _returned(fn) if fn.type in ("arrow_function", "function_expression") else []
        if not codes or len(names) != 1 or len(body) != 1 or len(codes) > 4096:
            return None
        out = []
        for c in codes:
            v = self._number(body[0], {names[0]: c})
            if v is None:
                return None
            out.append(str(v))
        return out

    def _number(self, n: Any, given: dict[str, str]) -> int | None:
        """An integer expression of numbers, constant names and `given` (`c ^ K`, `(c - 3) & 255`)."""
        t = n.type
        try:
            if t == "number":
                return int(self.text(n), 0)
            if t == "identifier":
                v = given.get(self.text(n), self.env.get(self.text(n)))
                return int(v, 0) if v is not None else None
        except ValueError:
            return None
        if t == "parenthesized_expression" and n.named_children:
            return self._number(n.named_children[0], given)
        if t != "binary_expression":
            return None
        op = n.child_by_field_name("operator")
        x, y = n.child_by_field_name("left"), n.child_by_field_name("right")
        a = self._number(x, given) if x is not None else None
        b = self._number(y, given) if y is not None else None
        if a is None or b is None or op is None:
            return None
        how = {"^": int.__xor__, "+": int.__add__, "-": int.__sub__, "&": int.__and__, "|": int.__or__}
        f = how.get(self.text(op))
        return f(a, b) if f is not None and abs(a) < 1 << 32 and abs(b) < 1 << 32 else None

    def method(self, call: Any) -> tuple[Any, str] | None:
        """(object, method name) of a method call such as `s.split("")`, else None."""
        if call is None or call.type != "call_expression":
            return None
        f = call.child_by_field_name("function")
        obj = f.child_by_field_name("object") if f is not None and f.type == "member_expression" else None
        return (obj, self.text(f.child_by_field_name("property"))) if obj is not None else None

    def _char_map(self, call: Any) -> list[str] | None:
        """`CODES.map((c) => String.fromCharCode(c))` or `.map(String.fromCharCode)` of a constant
        array: the characters the codes spell."""
        m = self.method(call)
        args = call.child_by_field_name("arguments")
        if m is None or m[1] != "map" or args is None or len(args.named_children) != 1:
            return None
        base = m[0]
        if base.type == "array":
            codes: list[str] | None = [self.text(x) for x in base.named_children]
        elif base.type == "identifier":
            codes = self.arrays.get(self.text(base))
        else:
            codes = None
        fn = args.named_children[0]
        body = (
            fn.child_by_field_name("body") if fn.type in ("arrow_function", "function_expression") else None
        )
        plain = self.qual(fn) == "String.fromCharCode"
        if not codes or not (
            plain
            or (
                body is not None
                and re.fullmatch(
                    r"\{?\s*(?:return\s+)?String\.fromCharCode\(\s*\w+\s*\)\s*;?\s*\}?", self.text(body)
                )
            )
        ):
            return None
        try:
            return [chr(int(c, 0)) for c in codes]
        except (ValueError, OverflowError):
            return None

    def source(self, n: Any) -> Source | None:
        """The secret `n` carries, a credential store before an environment variable."""
        weak: Source | None = None
        for got in self._sources(n):
            if got.strong:
                return got
            weak = weak or got
        return weak

    def _sources(self, n: Any) -> Any:
        stack = [n]
        for x in popped(stack):
            if x.type in ("identifier", "shorthand_property_identifier") and self.text(x) in self.taint:
                yield self.taint[self.text(x)]  # `body` in `{ method: "POST", body }` too
            if x.type == "member_expression":
                q = self.qual(x)
                if q.startswith("process.env.") and SECRET_ENV.match(q.rsplit(".", 1)[-1]):
                    yield Source(f"${q.rsplit('.', 1)[-1]}", x.start_point[0] + 1, False)
                elif q in ("process.env", "Bun.env") and x.parent is not None and x.parent.type in _HANDED_ON:
                    # `{ ...process.env }`, `JSON.stringify(process.env)`: the whole environment
                    yield Source("the whole environment", x.start_point[0] + 1, True)
            if x.type == "call_expression":
                f = x.child_by_field_name("function")
                args = x.child_by_field_name("arguments")
                q = self.qual(f) if f is not None else ""
                if self.ready and f is not None and f.type == "identifier" and self.text(f) in self.defs:
                    self.summary(self.text(f))
                if (hit := self.returns.get(q)) is not None:
                    src, where = hit
                    line = x.start_point[0] + 1
                    if where is None:
                        yield Source(src.what, line, src.strong, src.steps(), f"gets it from {q}()")
                    else:
                        yield src.moved(where, line, f"gets {src.what} from {q}()")
                if (
                    self.secret_arrays
                    and f is not None
                    and f.type == "member_expression"
                    and q.rsplit(".", 1)[-1] in _EACH
                    and args is not None
                    and any(r in self.text(args) for r in ("readFile", "createReadStream"))
                    and (base := _chain_base(f)) in self.secret_arrays
                ):
                    # files.map((f) => fs.readFileSync(f)): each credential in the list is read
                    yield self.secret_arrays[base]
                readish = _fs(q) in _READ or bool(_READISH.search(q.rsplit(".", 1)[-1]))
                if readish and args is not None and args.named_children:
                    p = self.fold(args.named_children[0])
                    if p and (s := secret_path(p)):
                        yield Source(s, x.start_point[0] + 1, True)
                    elif (item := self.text(args.named_children[0])) in self.secret_items:
                        yield self.secret_items[item]
                if (
                    q.rsplit(".", 1)[-1] == "loadEnv"
                    and args is not None
                    and len(args.named_children) > 2
                    and self.fold(args.named_children[2]) == ""
                ) or q == "Deno.env.toObject":
                    # Vite's `loadEnv(mode, dir, "")` (every variable, not only the public `VITE_`
                    # ones), Deno's `Deno.env.toObject()`: the whole environment
                    yield Source("the whole environment", x.start_point[0] + 1, True)
                if _COOKIE_JAR.match(q):
                    # the browser's cookie jar, every site's sessions (an extension's `cookies` API)
                    yield Source("the browser's cookies", x.start_point[0] + 1, True)
                if (
                    q.startswith(("child_process.exec", "child_process.spawn"))
                    and args is not None
                    and args.named_children
                ):
                    # `execFileSync(git, ["credential", "fill"])`: a program held in a name is read as
                    # that name, its argument list after it
                    a0, *rest = args.named_children
                    cmd = self.fold(a0) or (self.text(a0) if a0.type == "identifier" else "")
                    if rest and rest[0].type == "array":
                        cmd = " ".join([cmd, *(self.fold(v) or "?" for v in rest[0].named_children)])
                    if what := cli_secret(cmd.split()):
                        yield cli_source(what, x.start_point[0] + 1)
                if q in _NET or q in _GET:
                    # a request's answer is what the server sent back, not what went into the request;
                    # the send itself is its own flow. An issuer's token endpoint answers a fresh token.
                    url = (
                        self.fold(args.named_children[0])
                        if args is not None and args.named_children
                        else None
                    )
                    s = self.source(args) if url and args is not None else None
                    if s is not None and (token := exchanged(s, url or "", x.start_point[0] + 1)) is not None:
                        yield token
                    continue
            stack.extend(x.named_children)

    def run(self, root: Any, export: bool = False) -> CodeFacts:
        self.root = root
        self.collect(root)
        for i in range(2):
            self.facts = CodeFacts()
            self.ready = i == 1
            self.walk(root)
            self.combine()
        if export:
            for name in list(self.defs):
                self.summary(name)
            self.facts.export = Export(
                self.rel,
                consts=dict(self.env),
                taint={k: v for k, v in self.taint.items() if not v.what.startswith(PARAM)},
                returns={
                    k: src for k, (src, where) in self.returns.items() if where is None and k in self.defs
                },
                sinks={k: s for k, (s, where) in self.sinks.items() if where is None and k in self.defs},
            )
        return self.facts

    def runs_anything(self) -> bool:
        if self.root is None or (self.project is not None and self.rel in self.project.exports):
            # nothing to tell by, or a file another file of the skill loads (and may evaluate what
            # it holds): its strings are not taken for data
            return True
        if self._runs is None:
            # in the code itself, not in what its strings and comments say
            self._runs = any(
                n.type in ("identifier", "property_identifier")
                and self.text(n) in _RUNNERS
                or n.type in ("call_expression", "new_expression")
                and not _plain_call(n)
                for n in _walk(self.root)
            )
        return self._runs

    def walk(self, root: Any) -> None:
        stack = [root]
        for n in popped(stack):
            if self.budget is not None:
                # reading function bodies for their callers shares one budget per file
                self.budget[0] -= 1
                if self.budget[0] < 0:
                    return
            if n.type == "variable_declarator":
                self.declare(n)
            elif n.type == "import_statement":
                self.imports(n)
                source = n.child_by_field_name("source")
                if source is not None and (code := _data_url(self.fold(source) or "")):
                    # `import "data:text/javascript;base64,…"`: the module it names is that code
                    self.facts.assembled.append((n.start_point[0] + 1, code))
                    if (sub := analyse(code)) is not None:
                        sub.assembled.clear()
                        self.facts.extend(sub, n.start_point[0])
            elif n.type in ("call_expression", "new_expression"):
                self.call(n)
            elif n.type == "for_in_statement":
                self.loop(n)
            elif n.type == "array" and _data_array(n) and not self.runs_anything():
                # `module.exports = ["eval(atob('…'))", …]` in a file that runs and evaluates
                # nothing: strings kept as data, as in Python
                self.facts.data_lines.update(range(n.start_point[0] + 1, n.end_point[0] + 2))
            elif n.type in ("assignment_expression", "augmented_assignment_expression"):
                # b += readFileSync(p), ctx[f] = readFileSync(p), out.key = token: the name, or
                # the object, holds what is put into it
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if left is not None and left.type != "identifier":
                    left = left.child_by_field_name("object")
                if (
                    left is not None
                    and left.type == "identifier"
                    and right is not None
                    and (src := self.source(right))
                ):
                    self.taint.setdefault(self.text(left), src)
                if left is not None and left.type == "identifier" and _lists_folder(self, right):
                    self.listings.add(self.text(left))
            stack.extend(reversed(n.named_children))

    def given(self, fn: Any, a: list[Any]) -> None:
        """`compact(cache)` with `cache` a constant: the parameter holds it in the body (the reader is
        flow-insensitive; a name given a constant elsewhere keeps that one)."""
        ps = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        names = ps.named_children if ps is not None and ps.type == "formal_parameters" else [ps]
        for p, x in zip(names[:MAX_PARAMS], a, strict=False):
            ok = p is not None and p.type == "identifier" and self.text(p) not in self.env
            if ok and (v := self.fold(x)) is not None:
                self.env[self.text(p)] = v

    def loop(self, n: Any) -> None:
        """`for (const f of [".npmrc", ".netrc"])`: the name holds each constant in turn (folding
        combines the alternatives); over an array of credential paths, it holds a credential."""
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if left is None or right is None:
            return
        f = right.child_by_field_name("function") if right.type == "call_expression" else None
        # `for (const [k, rel] of Object.entries(STORES))`, `Object.values(…)`, `for (const k in STORES)`:
        # the names take every key or value the object literal was given
        obj = right.child_by_field_name("arguments") if f is not None else None
        whole = obj.named_children[0] if obj is not None and len(obj.named_children) == 1 else None
        if (
            whole is None
            and n.child_by_field_name("operator") is not None
            and self.text(n.child_by_field_name("operator")) == "in"
        ):
            whole, how = right, "Object.keys"
        else:
            how = self.qual(f) if f is not None else ""
        if (
            whole is not None
            and whole.type == "identifier"
            and how in ("Object.entries", "Object.keys", "Object.values")
        ):
            names = (
                [left]
                if left.type == "identifier"
                else [x for x in left.named_children if x.type == "identifier"][:2]
            )
            which = {
                "Object.entries": ("keys", "values"),
                "Object.keys": ("keys",),
                "Object.values": ("values",),
            }[how]
            for x, w in zip(names, which, strict=False):
                if items := self.arrays.get(f"{self.text(whole)}.{w}"):
                    self.env[self.text(x)] = ALT.join(items[:MAX_ALTS])
            return
        if left.type != "identifier":
            return
        if right.type == "array":
            nodes = right.named_children
        elif f is not None and f.type == "identifier" and (fn := self.defs.get(self.text(f))) is not None:
            # for (const t of targets(now)): the items of every array the helper returns
            nodes = [x for r in _returned(fn) if r.type == "array" for x in r.named_children]
        else:
            nodes = []
        # the values known before the loop runs (a value only known at run time is left out)
        items = [i for x in nodes if (i := self.fold(x)) is not None and ALT not in i] or self.arrays.get(
            self.text(right), []
        )
        if items and len(items) <= MAX_ALTS:
            self.env[self.text(left)] = ALT.join(items)
        elif (f is not None and re.search(r"\breaddir(?:Sync)?$", self.qual(f))) or self.text(
            right
        ) in self.listings:
            # for (const e of fs.readdirSync(dir)), also of a name bound to it: each entry, `dir/*` joined
            self.env.setdefault(self.text(left), "*")
        if self.text(right) in self.secret_arrays:
            self.secret_items[self.text(left)] = self.secret_arrays[self.text(right)]
        if self.taint and (src := self.source(right)) is not None:
            # for (const m of text.matchAll(re)): each piece of a secret is secret
            self.taint.setdefault(self.text(left), src)

    def collect(self, root: Any) -> None:
        """This file's named functions: declarations, functions bound to names, `exports.f = ...`."""
        for n in _walk(root):
            if len(self.defs) >= MAX_FUNCTIONS:
                return
            name = None
            if n.type in ("function_declaration", "generator_function_declaration"):
                name = n.child_by_field_name("name")
                fn = n
            elif n.type == "variable_declarator":
                name, fn = n.child_by_field_name("name"), n.child_by_field_name("value")
            elif n.type == "assignment_expression":
                left, fn = n.child_by_field_name("left"), n.child_by_field_name("right")
                if (
                    left is not None
                    and left.type == "member_expression"
                    and self.text(left).startswith(("module.exports.", "exports."))
                ):
                    name = left.child_by_field_name("property")
            elif n.type == "pair":
                name, fn = n.child_by_field_name("key"), n.child_by_field_name("value")
            if name is not None and fn is not None and fn.type in _FUNCS:
                self.defs.setdefault(self.text(name).strip("\"'"), fn)

    def _sub(self, taint: dict[str, Source]) -> _Reader:
        sub = _Reader(self.src, self.project, self.rel)
        sub.env, sub.mods, sub.arrays, sub.local = dict(self.env), dict(self.mods), self.arrays, self.local
        sub.conns, sub.taint = dict(self.conns), taint
        sub.defs, sub.done, sub.returns, sub.sinks, sub.ready = (
            self.defs,
            self.done,
            self.returns,
            self.sinks,
            True,
        )
        sub.shared = self.shared
        sub.budget = self.shared
        sub.root, sub._runs = self.root, self._runs
        return sub

    def summary(self, name: str) -> None:
        """Read one function as its callers run it: once as it stands (the secret it returns), then
        once per parameter standing for the caller's value (where that value goes)."""
        if name in self.done:
            return
        self.done.add(name)
        fn = self.defs[name]
        body = fn.child_by_field_name("body")
        if body is None:
            return
        params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        names = []
        for p in (
            params.named_children if params is not None and params.type == "formal_parameters" else [params]
        ):
            if p is None:
                continue
            p = p.child_by_field_name("left") or p if p.type == "assignment_pattern" else p
            names.append(self.text(p) if p.type == "identifier" else "")
        # (the parameters are the function's own names: a global of the same name does not fill them)
        sub = self._sub({k: v for k, v in self.taint.items() if k not in names})
        sub.walk(body)
        filled = {i: sub.taint[p] for i, p in enumerate(names[:MAX_PARAMS]) if p and p in sub.taint}
        if filled:
            self.fills[name] = filled
        for r in _returned(fn):
            if (src := sub.source(r)) is not None and not src.what.startswith(PARAM):
                self.returns[name] = (src, None)
                break
        sinks: dict[int, Sink] = {}
        for i, param in enumerate(names[:MAX_PARAMS]):
            if not param:
                continue
            marker = f"{PARAM}{i}"
            sub = self._sub({**self.taint, param: Source(marker, fn.start_point[0] + 1, False)})
            sub.walk(body)
            for fl in sub.facts.flows:
                if marker in fl.text:
                    sinks.setdefault(i, (fl.kind, fl.severity, fl.line, fl.text.replace(marker, PARAM)))
        if sinks:
            self.sinks[name] = (sinks, None)

    def stand_in(self, node: Any, argv: list[Any] | None = None) -> str | None:
        """The command `node` folds to with each secret-holding name replaced by a stand-in variable
        (with `argv`: the program `node` names, run with those arguments)."""
        nodes = [node, *(argv or [])]
        names = {
            self.text(x)
            for y in nodes
            for x in _walk(y)
            if x.type == "identifier" and self.text(x) in self.taint
        }
        marks = {}
        for name in sorted(names):
            src = self.taint[name]
            if not src.what.startswith((PARAM, "downloads")) and len(self.facts.stand_ins) + len(marks) < 32:
                marks[name] = (len(self.facts.stand_ins) + len(marks), src)
        if not marks:
            return None
        self.marking = {k: stand_in_marker(i) for k, (i, _) in marks.items()}
        try:
            if argv is None:
                cmd = self.fold(node)
            else:
                words = [self.fold(x) for x in nodes]
                cmd = shlex.join(w if w is not None else "ARG" for w in words) if words[0] else None
        finally:
            self.marking = {}
        if not cmd:
            return None
        for i, src in marks.values():
            self.facts.stand_ins[f"{STAND_IN}{i}"] = src
        return stand_in_command(cmd)

    def call_sinks(self, n: Any, q: str, f: Any, a: list[Any], line: int) -> None:
        """A call to a function whose parameters reach a sink: the caller's secrets flow there."""
        if (
            self.ready
            and f.type == "identifier"
            and self.text(f) in self.defs
            and self.text(f) not in self.done
        ):
            if not any(self.source(x) for x in a):
                return
            self.summary(self.text(f))
        hit = self.sinks.get(q)
        if hit is None:
            return
        sinks, where = hit
        for i, x in enumerate(a):
            sink = sinks.get(i)
            src = self.source(x) if sink is not None else None
            if sink is None or src is None:
                continue
            kind, sev, sline, text = sink
            if kind == "secret-network" and src.what.startswith("downloads"):
                continue
            said = text.replace(PARAM, src.what)
            if kind == "secret-network" and src.strong:
                sev = "critical"
            steps = (*src.steps(), (line, f"passes it to {q}()", None), (sline, said, where))
            self.facts.flows.append(Flow(kind, sev, line, f"{said} (through {q}())", steps))
            return

    def link(self, spec: str) -> None:
        """`require("./read")` / `import ... from "./read.js"`: that file's helpers, as `./read.NAME`."""
        if self.project is None or not spec.startswith("."):
            return
        exp = self.project.get(self.project.js_module_path(self.rel, spec))
        if exp is None or exp.file == self.rel:
            return
        for name, src in exp.returns.items():
            self.returns[f"{spec}.{name}"] = (src, exp.file)
        for name, sk in exp.sinks.items():
            self.sinks[f"{spec}.{name}"] = (sk, exp.file)

    def combine(self) -> None:
        """File-level flows the value tracking cannot tie: a download and an eval of a computed
        string in one file; a socket and a shell process in one file; a download saved to a file
        that a command then runs (handed to the shell reader as `curl -o FILE URL`)."""
        if self.gets and self.written and self.facts.shell:
            url = self.gets[0][1]
            saved = [
                (n, f"curl -o {p} {url}") for n, p in self.written if any(p in c for _, c in self.facts.shell)
            ]
            self.facts.shell[:0] = saved
        if self.gets and self.ran_written:
            line, dest = self.gets[0]
            self.flow(
                "download-exec",
                "critical",
                self.ran_written[0],
                f"downloads {dest}, saves it to a file and runs that file",
                Source(f"downloads {dest}", line, True),
            )
        ran = [n for n, p in self.required if any(p == w for _, w in self.written)]
        if self.gets and ran and not self.evals:
            self.evals.append((ran[0], _AS_JS))  # a downloaded file written and then `require`d is run
        if self.gets and self.evals:
            line, dest = self.gets[0]
            self.flow(
                "download-exec",
                "critical",
                self.evals[0][0],
                f"downloads {dest} and {self.evals[0][1]}",
                Source(f"downloads {dest}", line, True),
            )
        if self.sockets and self.shells:
            line, dest = next((x for x in self.sockets if x[1]), self.sockets[0])
            dest = dest or "a remote host"
            self.flow(
                "reverse-shell",
                "critical",
                self.shells[0],
                f"connects to {dest} and starts a shell in the same program",
                Source(dest, line, True, how=f"connects to {dest}"),
            )

    def in_download(self, n: Any) -> bool:
        """Whether `n` sits in a callback of a download (`https.get(u, (r) => ...)`, `fetch(u).then(...)`)."""
        p = n.parent
        while p is not None:
            x = p.child_by_field_name("function") if p.type == "call_expression" else None
            while x is not None and x.type in ("member_expression", "call_expression", "identifier"):
                if self.qual(x) in _GET or self.qual(x).endswith("resolveTxt"):
                    return True
                x = x.child_by_field_name("object" if x.type == "member_expression" else "function")
            p = p.parent
        return False

    def _decoded_eval(self, args: list[Any], line: int) -> None:
        """`run(decode(CONST))` with a decoder the reader does not follow (a function of the file's
        own): each constant read through the common encodings (rot13, base64, hex, reversed), and
        every reading that is code with flows taken as what may be evaluated (a harmless reading
        beside the real one hides nothing). The readings share one budget per file."""
        for c in args:
            raw = self.fold(c)
            if not raw or not 16 <= len(raw) <= 64 * 1024:
                continue
            tries = [codecs.encode(raw, "rot13"), unbase64(raw, "utf-8"), unhex(raw, "utf-8"), raw[::-1]]
            for text in tries:
                if not text or self.decode_left[0] < len(text):
                    continue
                self.decode_left[0] -= len(text)
                _DECODING.append(self.decode_left)
                try:
                    sub = analyse(text)
                finally:
                    _DECODING.pop()
                if sub is not None and (sub.flows or sub.shell):
                    self.facts.assembled.append((line, text))
                    sub.assembled.clear()
                    self.facts.extend(sub, line - 1)

    def _bound(self, n: Any, a: list[Any], code: str) -> str:
        """`new Function("r", "e", CODE)(require, process.env)`: the body read with its parameters
        replaced by what the call passes (`r("net")` is `require("net")`)."""
        call = n.parent
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != n:
            return code
        given = call.child_by_field_name("arguments")
        params = [self.fold(x) for x in a[:-1]]
        for name, x in zip(params, given.named_children if given is not None else (), strict=False):
            if not name or not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
                continue
            if x.type in ("identifier", "member_expression") and re.fullmatch(r"[\w$.]+", self.text(x)):
                value = self.text(x)
            elif (v := self.fold(x)) is not None:
                value = json.dumps(v)
            else:
                continue
            code = re.sub(rf"(?<![\w$.'\"]){re.escape(name)}(?![\w$'\"])", lambda _m, v=value: v, code)
        return code

    def declare(self, n: Any) -> None:
        name = n.child_by_field_name("name")
        value = n.child_by_field_name("value")
        while value is not None and value.type in _WRAPPED and value.named_children:
            value = value.named_children[0]  # `globalThis as any` is globalThis
        if name is None or value is None:
            return
        if value.type == "call_expression" and self.qual(value.child_by_field_name("function")) == "require":
            mod = self.qual(value)
            self.link(mod)
            if name.type == "identifier":
                self.mods[self.text(name)] = mod
            elif name.type == "object_pattern":
                for c in name.named_children:
                    if c.type == "shorthand_property_identifier_pattern":
                        self.mods[self.text(c)] = f"{mod}.{self.text(c)}"
                    elif c.type == "pair_pattern":
                        k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
                        if k is not None and v is not None:
                            self.mods[self.text(v)] = f"{mod}.{self.text(k)}"
            return
        if name.type != "identifier":
            return
        key = self.text(name)
        if self.decoder(value):
            self.mods[key] = "atob"  # `const dec = atob`: `dec(k)` decodes k
        if value.type == "call_expression" and self.qual(value.child_by_field_name("function")) == "eval":
            # `const r = eval(name)`: a name spelt at run time (`require`, `process`) is that name
            xs = value.child_by_field_name("arguments").named_children
            got = self.fold(xs[0]) if xs else None
            if got and re.fullmatch(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*", got):
                self.mods[key] = got
        if value.type == "identifier" and self.qual(value) in _GLOBALS:
            self.mods[key] = "globalThis"  # const g = globalThis: g.fetch is fetch
        elif self.qual(value) in ("Function", "eval"):
            self.mods[key] = self.qual(value)  # `const AF = (async () => {}).constructor`: AF builds code
        if value.type == "call_expression" and (words := self.strings_mapped(value)) is not None:
            self.arrays[key] = words
        if self.received(value):
            self.bodies.add(key)  # `const body = await (await fetch(u)).text()`: what a server sent
        if value.type == "object" and (kv := self.pairs(value)):
            # `const STORES = {gh: ".config/gh/hosts.yml", …}`: its keys and values, for a loop over them
            self.arrays[key + ".keys"] = [k for k, _ in kv]
            self.arrays[key + ".values"] = [
                v for _, x in kv if (v := self.fold(x)) is not None and ALT not in v
            ]
        if value.type == "array":
            items = [self.fold(x) for x in value.named_children]
            if items and all(i is not None for i in items):
                self.arrays[key] = [str(i) for i in items]
            elif known := [str(i) for i in items if i and ALT not in i]:
                self.partial[key] = known[:MAX_ALTS]
            hit = next((s for i in items if i and (s := secret_path(i))), None)
            if hit is not None:
                self.secret_arrays[key] = Source(hit, n.start_point[0] + 1, True)
        if value.type in ("call_expression", "new_expression", "await_expression"):
            call = (
                value.named_children[0]
                if value.type == "await_expression" and value.named_children
                else value
            )
            f = call.child_by_field_name("function") or call.child_by_field_name("constructor")
            if f is not None and self.qual(f) in _CONNECT:
                self.conns[key] = self.dest(call) or "the network"
            if f is not None and self.qual(f) in ("axios.create", "got.extend", "ky.create", "ky.extend"):
                self.mods[key] = self.qual(f).split(".")[0]  # an instance sends as the library does
        folded = self.fold(value)
        if folded is not None:
            self.env[key] = folded
        if src := self.source(value):
            self.taint[key] = src
        if value.type == "call_expression":
            fn = value.child_by_field_name("function")
            if fn is not None and _fs(self.qual(fn)) in _READ:
                self.local.add(key)  # read from a file of the project, not fetched

    def decoder(self, v: Any) -> bool:
        """Whether `v` is a base64 decoder: `atob`, a function that decodes its one parameter
        (`(s) => Buffer.from(s, "base64").toString()`), or a choice between two of them."""
        if v.type == "identifier":
            return self.qual(v) == "atob"
        if v.type == "ternary_expression":
            both = (v.child_by_field_name("consequence"), v.child_by_field_name("alternative"))
            return all(x is not None and self.decoder(x) for x in both)
        if v.type not in ("arrow_function", "function_expression"):
            return False
        ps = v.child_by_field_name("parameter") or v.child_by_field_name("parameters")
        names = [self.text(x) for x in _walk(ps) if x.type == "identifier"] if ps is not None else []
        body = _returned(v)
        if len(names) != 1 or len(body) != 1:
            return False
        saved = self.env.get(names[0])
        self.env[names[0]] = "b2s="  # decodes to "ok"
        try:
            return self.fold(body[0]) == "ok"
        finally:
            self.env.pop(names[0])
            if saved is not None:
                self.env[names[0]] = saved

    def imports(self, n: Any) -> None:
        src = n.child_by_field_name("source")
        if src is None:
            return
        mod = (self.fold(src) or "").removeprefix("node:")
        self.link(mod)
        for c in _walk(n):
            if c.type == "import_specifier":
                name = c.child_by_field_name("name")
                alias = c.child_by_field_name("alias") or name
                if name is not None and alias is not None:
                    self.mods[self.text(alias)] = f"{mod}.{self.text(name)}"
            elif c.type in ("namespace_import", "import_clause") and c.named_children:
                first = c.named_children[0]
                if first.type == "identifier":
                    self.mods[self.text(first)] = mod

    def dest(self, call: Any) -> str | None:
        """Where a request or connection goes: a URL, or the host of an options object."""
        args = call.child_by_field_name("arguments")
        for x in args.named_children if args is not None else ():
            if x.type == "object":
                for pair in x.named_children:
                    k = pair.child_by_field_name("key") if pair.type == "pair" else None
                    v = pair.child_by_field_name("value") if pair.type == "pair" else None
                    if k is not None and v is not None and self.text(k).strip("\"'") in ("host", "hostname"):
                        return self.fold(v)
                continue
            got = self.fold(x)
            if got and ("." in got or "://" in got):
                return got
        return None

    def received(self, value: Any) -> bool:
        """Whether `value` is what a request received: `await fetch(u)`, `await r.text()` of such a
        response, `(await fetch(u)).json()`, or a call of a function of this file that makes a request
        and returns (`await get("x.js")` with `get` returning `r.text()`)."""
        while value is not None and value.type in ("await_expression", "parenthesized_expression"):
            value = value.named_children[0] if value.named_children else None
        if value is None or value.type != "call_expression":
            return False
        f = value.child_by_field_name("function")
        q = self.qual(f) if f is not None else ""
        if q in _GET or (
            q.split(".")[0] in ("axios", "got", "needle") and q.rsplit(".", 1)[-1] in ("get", "post")
        ):
            return True
        if f is not None and f.type == "member_expression" and q.rsplit(".", 1)[-1] in _BODY_READS:
            obj = f.child_by_field_name("object")
            return obj is not None and (self.text(obj) in self.bodies or self.received(obj))
        fn = self.defs.get(q) if f is not None and f.type == "identifier" else None
        if fn is None:
            return False
        if (got := self.fetchers.get(span := (fn.start_byte, fn.end_byte))) is None:
            got = self.fetchers[span] = bool(_returned(fn)) and any(
                x.type == "call_expression"
                and (g := x.child_by_field_name("function")) is not None
                and self.qual(g) in _GET
                for x in _walk(fn)
            )
        return got

    def pairs(self, obj: Any) -> list[tuple[str, Any]]:
        """The (key, value node) pairs an object literal spells out."""
        out = []
        for pair in obj.named_children:
            k = pair.child_by_field_name("key") if pair.type == "pair" else None
            v = pair.child_by_field_name("value") if pair.type == "pair" else None
            if k is not None and v is not None:
                out.append((self.text(k).strip("\"'"), v))
        return out

    def flow(self, kind: str, sev: str, line: int, text: str, src: Source | None) -> None:
        self.facts.flows.append(flow(kind, sev, line, text, src))

    def sends_files(self, a: list[Any], line: int, dest: str) -> None:
        """`req.end(fs.readFileSync(p))`: the file at `p` is sent (what it holds may be a secret another
        file of the skill put there)."""
        for n in (n for x in a for n in _walk(x) if n.type == "call_expression"):
            f, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
            if f is None or args is None or not args.named_children or _fs(self.qual(f)) not in _READ:
                continue
            if (p := self.fold(args.named_children[0])) is not None and len(self.facts.sent_files) < 32:
                self.facts.sent_files.append((line, p, dest))

    def mailed(self, a: list[Any], line: int) -> None:
        """`transport.sendMail({attachments: [{path: "~/.ssh/id_rsa"}], text: secret})`: the mail
        carries a secret it is given, or a credential file it attaches by path."""
        for x in a:
            for sub in _walk(x):
                src = self.source(sub) if sub.type in _REFERENCES else None
                if src is None and sub.type in _BUILT:
                    v = self.fold(sub)
                    if v and (s := secret_path(v)):
                        src = Source(s, line, True)
                if src is not None:
                    text = f"reads {src[0]} and sends it by mail"
                    self.flow("secret-network", "critical" if src[2] else "medium", line, text, src)
                    return

    def call(self, n: Any) -> None:
        f = n.child_by_field_name("function") or n.child_by_field_name("constructor")
        args = n.child_by_field_name("arguments")
        if f is None or args is None:
            return
        q = self.qual(f)
        a = args.named_children
        line = n.start_point[0] + 1
        short = q.rsplit(".", 1)[-1]
        if self.sinks or (f.type == "identifier" and self.text(f) in self.defs):
            self.call_sinks(n, q, f, a, line)
        if f.type == "identifier" and (fn := self.defs.get(self.text(f))) is not None:
            self.given(fn, a)
            if self.ready and any(x.type == "identifier" for x in a):
                # `scan(dir, found)` whose body puts a secret into `found`: the caller's container holds it
                self.summary(self.text(f))
                for i, src in self.fills.get(self.text(f), {}).items():
                    if i < len(a) and a[i].type == "identifier":
                        self.taint.setdefault(self.text(a[i]), src)
        if short in _EACH and f.type == "member_expression" and a and a[0].type in _FUNCS:
            # `roots.forEach((r) => …)`: the parameter holds each item known before the loop runs
            obj = f.child_by_field_name("object")
            items = (
                self.arrays.get(self.text(obj)) or self.partial.get(self.text(obj))
                if obj is not None
                else None
            )
            ps = a[0].child_by_field_name("parameter") or a[0].child_by_field_name("parameters")
            first = (
                ps.named_children[0]
                if ps is not None and ps.type == "formal_parameters" and ps.named_children
                else ps
            )
            if items and first is not None and first.type == "identifier" and len(items) <= MAX_ALTS:
                self.env.setdefault(self.text(first), ALT.join(items))
        if q in _GET or (short in ("get", "request") and q.split(".")[0] in ("axios", "got", "needle")):
            self.gets.append((line, self.dest(n) or "a URL"))
        elif short == "resolveTxt":
            # a DNS TXT record is text its zone's owner serves: a download by another name
            self.gets.append((line, f"the DNS TXT record of {(self.fold(a[0]) if a else None) or 'a name'}"))
            p = n.parent.parent if n.parent is not None and n.parent.type == "await_expression" else n.parent
            if p is not None and p.type == "variable_declarator" and (v := p.child_by_field_name("name")):
                self.txt.add(self.text(v))
            ps = a[-1].child_by_field_name("parameters") if a and "function" in a[-1].type else None
            if ps is not None and ps.named_children:  # `(err, recs) => ...`: the records
                self.txt.add(self.text(ps.named_children[-1]))
        elif short == "on" and a and self.fold(a[0]) == "data" and not _LOCAL_STREAM.search(self.text(f)):
            # `x.on("data", ...)`: what a response or socket receives, however `x` was reached
            self.gets.append((line, "data the program receives"))
        if (
            (f.type == "import" or (q in ("Worker", "SharedWorker") and n.type == "new_expression"))
            and a
            and (code := _data_url(self.fold(a[0]) or ""))
        ):
            # import("data:text/javascript;base64,…"), new Worker("data:…"): the URL is the code run
            self.facts.assembled.append((line, code))
            if (sub := analyse(code)) is not None:
                sub.assembled.clear()
                self.facts.extend(sub, line - 1)
        elif (
            (f.type == "import" or (q in ("Worker", "SharedWorker") and n.type == "new_expression"))
            and a
            and _BUILT_MODULE.match(self.text(a[0]))
        ):
            # import("data:text/javascript;base64," + btoa(text)), import(URL.createObjectURL(blob)):
            # a module made at run time from text, run as code
            self.evals.append((line, "runs it as a module"))
        if f.type == "import" and a and (url := self.fold(a[0])) and re.match(r"(?i)https?://", url):
            # import("https://…"): a module fetched from the network and run
            text = f"imports {url} from the network and runs it as a module"
            sev = "medium" if _MODULE_CDN.match(url) else "critical"  # Deno and browser code do this
            self.flow("download-exec", sev, line, text, None)
        if any(x.type == "identifier" and self.qual(x) in ("eval", "Function") for x in a):
            self.evals.append((line, _AS_JS))  # `.then(eval)`: the evaluator handed on as a callback
        if short == "sendMail" and f.type == "member_expression" and a:
            self.mailed(a, line)
        opens = q in _CONNECT or (q.endswith(".connect") and q.split(".")[0] in self.conns)
        if opens and q not in ("http.request", "https.request"):
            where = self.dest(n) or ""
            if not _LOCAL.match(where):
                self.sockets.append((line, where))
        if short in ("push", "unshift", "add", "set") and f.type == "member_expression" and a:
            # out.push(fs.readFileSync(f)), seen.add(…), byName.set(k, …): the container holds it
            obj = f.child_by_field_name("object")
            if obj is not None and obj.type == "identifier" and (src := self.source(args)):
                self.taint.setdefault(self.text(obj), src)
        if _fs(q) in _WRITE and a:
            p = self.fold(a[0])
            if p:
                self.written.append((line, p))
            elif a[0].type == "identifier" and len(self.written_names) < 64:
                self.written_names.add(self.text(a[0]))
            body = (self.fold(a[1]) or self.text(a[1])) if len(a) > 1 else None
            if p and (fl := written(p, line, body)) is not None:
                self.facts.flows.append(fl)
            if len(a) > 1 and (src := self.source(a[1])) is not None and len(self.facts.stashed) < 64:
                self.facts.stashed.setdefault(p or self.text(a[0])[:80], src)
        if q == "require" and a and (req := self.fold(a[0])) and req.startswith("/"):
            self.required.append((line, req))
        if _fs(q) in _REMOVE and a and (target := self.fold(a[0])):
            recursive = (
                q.endswith(("rmdirSync", "rmdir"))
                or "rimraf" in q
                or "remove" in q
                or "recursive" in self.text(args)
            )
            if recursive and destroys(target):
                self.flow("destruction", "high", line, f"recursively deletes {target}", None)
        if q.startswith("child_process.") and short in _EXEC and a:
            if a[0].type == "identifier" and self.text(a[0]) in self.written_names:
                self.ran_written.append(line)  # a file this program wrote is run as a program
            first = self.fold(a[0])
            local = a[0].type != "identifier" or self.text(a[0]) in self.local
            if not first and (
                (not local and self.in_download(n))
                or any(self.text(x) in self.txt for x in _walk(a[0]) if x.type == "identifier")
                or (a[0].type == "identifier" and self.text(a[0]) in self.bodies)
            ):
                # `https.get(u, (r) => ... exec(body))`: the response is the command
                self.evals.append((line, "runs it as a shell command"))
            names = [first] if first else [self.fold(x) for x in _walk(a[0]) if x.type == "string"]
            argv = [self.fold(x) for x in a[1].named_children] if len(a) > 1 and a[1].type == "array" else []
            runs_command = any(x in ("-c", "/c", "-Command", "-EncodedCommand") for x in argv)
            if any(c and _SHELL_CMD.match(c.strip()) for c in names) and not runs_command:
                self.shells.append(line)  # an interactive shell, not `sh -c "npm run build"`
            cmd = first
            if cmd and short.startswith(("spawn", "execFile")) and len(a) > 1 and a[1].type == "array":
                parts = [self.fold(x) for x in a[1].named_children]
                if None in parts and (marked := self.stand_in(a[0], a[1].named_children)):
                    # `spawn("curl", ["-d", body, url])`: a secret handed to the program as an argument
                    self.facts.shell.append((line, marked))
                    return
                cmd = " ".join([cmd, *[p for p in parts if p]])
            opts = self.pairs(a[-1]) if len(a) > 1 and a[-1].type == "object" else []
            cwd = next((self.fold(v) for k, v in opts if k == "cwd"), None)
            if cmd:
                # `{ cwd: dir }`: run in that folder
                self.facts.shell.append((line, f"cd {shlex.quote(cwd)} && {cmd}" if cwd else cmd))
                if a[0].type != "string":
                    self.facts.assembled.append((line, cmd))
            elif marked := self.stand_in(a[0]):
                self.facts.shell.append((line, marked))  # a secret put into a command it runs
            return
        if q in _EVAL and a:
            arg = a[-1] if q == "Function" else a[0]
            code = self.fold(arg)
            if code and arg.type != "string":
                self.facts.assembled.append((line, code))
                if q == "Function":
                    code = self._bound(n, a, code)
                if (sub := analyse(code)) is not None:
                    sub.assembled.clear()
                    self.facts.extend(sub, line - 1)
            elif (
                not code
                and arg.type in ("identifier", "member_expression", "call_expression")
                and not (arg.type == "identifier" and self.text(arg) in self.local)
            ):
                self.evals.append((line, _AS_JS))
                if arg.type == "call_expression" and (inner := arg.child_by_field_name("arguments")):
                    self._decoded_eval(inner.named_children[:4], line)
            return
        if short in ("write", "end", "send") and f.type == "member_expression":
            obj = f.child_by_field_name("object")
            conn = self.conns.get(self.text(obj)) if obj is not None and obj.type == "identifier" else None
            if conn is None and obj is not None and obj.type in ("call_expression", "new_expression"):
                # https.request({...}).end(data): a connection opened and written in one expression
                of = obj.child_by_field_name("function") or obj.child_by_field_name("constructor")
                if of is not None and self.qual(of) in _CONNECT:
                    conn = self.dest(obj) or "the network"
            if conn is not None:
                for x in a:
                    if src := self.source(x):
                        sev, text = sent(src, conn)
                        self.flow("secret-network", sev, line, text, src)
                        return
                self.sends_files(a, line, conn)
        dns = q in _DNS
        # a GET sends its URL and headers too (`https.get({host, headers: {"User-Agent": tok}})`)
        gets = q in ("http.get", "https.get") or (
            short == "get" and q.split(".")[0] in ("axios", "got", "needle")
        )
        if (
            dns
            or gets
            or q in _NET
            or (short in ("post", "put") and q.split(".")[0] in ("axios", "got", "needle"))
        ):
            for x in a:
                if x.type in ("arrow_function", "function_expression", "function"):
                    continue  # the response's handler, not what is sent
                src = self.source(x)
                if not src:
                    continue
                sev, text = sent(src, self.fold(a[0]), dns)
                self.flow("secret-network", sev, line, text, src)
                return
            if not dns and a:  # `fetch()` with no arguments: a local function of that name, nothing sent
                self.sends_files(a, line, self.fold(a[0]) or "the network")


#: Expressions that name or compute a value (what a secret can be read through).
_REFERENCES = frozenset({"identifier", "call_expression", "member_expression", "subscript_expression"})
#: Expressions that may fold to a path.
_BUILT = frozenset({"string", "template_string", "call_expression", "binary_expression"})
#: Where an object is handed on whole: spread, passed, put into an object or an array.
_HANDED_ON = frozenset({"spread_element", "arguments", "pair", "array"})
#: Array methods that hand each element to a callback.
_EACH = {"map", "forEach", "flatMap", "reduce", "filter", "some", "every"}


def _fs(q: str) -> str:
    """A file-system call without its module (`fs.promises.rm`, `fse.remove`: `rm`, `remove`)."""
    return _FS_MODULE.sub("", q)


#: Names that run a program or evaluate code.
_RUNNERS = frozenset(
    "eval Function child_process exec execSync execFile execFileSync spawn spawnSync fork vm "
    "runInThisContext runInNewContext runInContext Script compileFunction constructor setTimeout "
    "setInterval import _compile Worker writeFile writeFileSync appendFile appendFileSync "
    "createWriteStream".split()
)


def _plain_call(n: Any) -> bool:
    """A call whose callee is a name or a chain of names (`f(x)`, `a.b.c(x)`), not a computed one
    (`x[k](…)`, `f()(…)`), and not `require`/`import` of a computed module."""
    f = n.child_by_field_name("function") or n.child_by_field_name("constructor")
    while f is not None and f.type == "member_expression":
        f = f.child_by_field_name("object")
    if f is None or f.type not in ("identifier", "this"):
        return False
    args = n.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    return not (
        f.type == "identifier" and f.text == b"require" and first is not None and first.type != "string"
    )


def _data_array(n: Any) -> bool:
    """An array of two or more plain string literals (no substitutions) that is stored, not handed
    to a call nor worked on by a method (`[...].join("")`, `.map(...)`): its strings are data."""
    items = n.named_children
    if len(items) < 2 or not all(x.type == "string" for x in items):
        return False
    parent = n.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return parent is not None and parent.type in (
        "assignment_expression",
        "variable_declarator",
        "pair",
        "return_statement",
        "export_statement",
        "array",
    )


def _returned(fn: Any) -> list[Any]:
    """The expressions a function returns (an arrow function's body is one)."""
    body = fn.child_by_field_name("body")
    if body is None:
        return []
    if body.type != "statement_block":
        return [body]
    return [r.named_children[0] for r in _walk(body) if r.type == "return_statement" and r.named_children]


def _chain_base(f: Any) -> str | None:
    """`files` in `files.filter(fs.existsSync).map`: the array a chain of calls starts from."""
    x = f
    while x is not None and x.type in ("member_expression", "call_expression"):
        x = (
            x.child_by_field_name("object")
            if x.type == "member_expression"
            else x.child_by_field_name("function")
        )
    return x.text.decode("utf-8", "replace") if x is not None and x.type == "identifier" else None


def _walk(n: Any) -> list[Any]:
    out, stack = [], [n]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(x.named_children)
    return out


def _unescape(esc: str) -> str:
    """The character a JavaScript escape sequence stands for (`\\x63`, `\\u0063`, `\\n`)."""
    try:
        if esc.startswith(("\\x", "\\u")) and "{" not in esc:
            return chr(int(esc[2:], 16))
        if esc.startswith("\\u{"):
            return chr(int(esc[3:-1], 16))
    except ValueError:
        return esc
    return {"\\n": "\n", "\\t": "\t", "\\r": "\r", "\\0": "\0"}.get(esc, esc[1:] if len(esc) == 2 else esc)


def analyse(
    text: str, lang: str = "javascript", project: Project | None = None, rel: str = "", export: bool = False
) -> CodeFacts | None:
    """Facts for one JavaScript/TypeScript source; None when too large to read. With `project`,
    helpers `require`d or imported from the skill's other files bring what they return and where
    their parameters go; `export`: every function is read, for the files that import this one."""
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_BYTES:
        return None
    try:
        tree = _parser(lang).parse(data)
        return _Reader(data, project, rel).run(tree.root_node, export)
    except (ValueError, RecursionError):
        return None
