"""Shell read with tree-sitter-bash: words folded, variables followed, pipelines read as flows.

Folding joins what the shell would join: adjacent quoted and unquoted pieces (`b""ash`),
variables assigned constants (`A=cu; B=rl; $A$B`), and the strings handed to `eval`, `sh -c`
and `bash -c`, which are read again as shell (bounded depth). The parser is imported on first
use so a skill without shell code pays nothing for it.
"""

from __future__ import annotations

import codecs
import json
import re
import shlex
from collections.abc import Callable
from typing import Any, TypeVar

from skillyard.install.scanner._flows import (
    CREDENTIAL_HELPER,
    DESTROY_TARGET,
    DEVICE,
    LOOPBACK,
    OFFICIAL_INSTALLER,
    PARAM,
    REGISTRIES,
    SECRET_ENV,
    CodeFacts,
    Export,
    Flow,
    Project,
    Source,
    cli_secret,
    cli_source,
    destroys,
    flow,
    host_of,
    launches_installed,
    named_for,
    outside_tree,
    own_service,
    popped,
    secret_path,
    sent,
    unbase64,
    unhex,
    written,
)

MAX_DEPTH = 3
#: Function bodies read again for calls with a secret argument, per script (each read walks the body).
MAX_CALLS_READ = 64
MAX_BYTES = 512 * 1024
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash"}
_INTERP = _SHELLS | {"python", "python3", "perl", "ruby", "node", "source", "."}
_READERS = {"cat", "head", "tail", "base64", "xxd", "od", "tar", "zip", "gzip", "openssl", "strings", "less"}
#: Tools whose `config set` settings name a registry and the login for it.
_CONFIGS = {"npm", "pnpm", "yarn", "pip", "pip3", "uv", "poetry", "bun"}
#: The user-level settings file each of them writes with `config set`.
_CONFIG_FILE = {"npm": "~/.npmrc", "pnpm": "~/.npmrc", "yarn": "~/.yarnrc", "pip": "~/.config/pip/pip.conf"}
_CONFIG_FILE["pip3"] = _CONFIG_FILE["pip"]
_MAILERS = {"mail", "mailx", "mutt", "sendmail", "swaks", "msmtp", "s-nail"}
_SENDERS = {
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "scp",
    "rsync",
    "ftp",
    "sftp",
} | _MAILERS
#: Commands that copy a file somewhere (into a repository that is then pushed, for instance).
_COPIERS = {"cp", "rsync", "install", "tar", "zip", "7z", "ln", "cat"}
_DNS = {"dig", "nslookup", "host", "drill", "ping"}
_parser: Any = None
#: tree-sitter-bash's scanner crashes the process (a segfault, not an exception) on some non-ASCII
#: input, found by fuzzing every release available; the parser sees each byte >= 0x80 as `x`
#: instead, byte for byte, so node offsets still index the original text the reader quotes.
_ASCII_ONLY = bytes(range(128)) + b"x" * 128


def _get_parser() -> Any:
    global _parser
    if _parser is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _parser = Parser(Language(tree_sitter_bash.language()))
    return _parser


T = TypeVar("T")


def _base(cmd: str) -> str:
    return cmd.rsplit("/", 1)[-1]


def _dns(words: list[str]) -> bool:
    """A command that looks a name up in DNS (`dig`, `getent hosts`, `resolvectl query`): a name it
    builds from data carries that data to whoever serves the zone."""
    name = _base(words[0]) if words else ""
    sub = words[1] if len(words) > 1 else ""
    return name in _DNS or (name, sub) in {("getent", "hosts"), ("getent", "ahosts"), ("resolvectl", "query")}


def _once_per_node(fn: Callable[[_Reader, Any], T]) -> Callable[[_Reader, Any], T]:
    """Evaluate `fn` once per node within one outermost call of a reading method. Those methods
    only read the reader's state, and nested command substitutions reach the same inner words
    again from every level around them: without this, `$(echo $(echo ...))` 15 deep took 15 s."""

    def once(self: _Reader, node: Any) -> T:
        outer = self._seen is None
        memo = self._seen = {} if outer else self._seen
        key = (fn, node)
        try:
            if key not in memo:
                memo[key] = fn(self, node)
            return memo[key]
        finally:
            if outer:
                self._seen = None

    return once


#: `git config [--global] credential[.URL].helper PROGRAM`: the program's path.
_HELPER_SET = re.compile(r"""credential\.(?:\S{0,256}?\.)?helper["']?\s+["']?!?([^\s"';&|]{1,4096})""")


class _Reader:
    def __init__(self, src: bytes, depth: int, project: Project | None = None, rel: str = "") -> None:
        self.src = src
        self.depth = depth
        #: a credential helper (`git-credential-NAME`, or a program registered as `credential.helper`)
        #: is handed the credentials on its standard input
        self.stdin_secret = bool(CREDENTIAL_HELPER.search(rel))
        self.registered: set[str] | None = None  # names the script registers as `credential.helper`
        #: results of the reading methods during one outermost call (see `_once_per_node`)
        self._seen: dict[tuple[Any, Any], Any] | None = None
        self.env: dict[str, str] = {"HOME": "~", "IFS": " "}  # `${IFS}` stands for a space
        self.taint: dict[str, Source] = {}
        #: where a connection the script opened goes (zsh's `ztcp HOST PORT`)
        self.socket = ""
        self.downloads: dict[str, tuple[str, int]] = {}  # path -> (url, line)
        #: variables holding what a download printed (`X=$(curl -fsSL URL)`) -> (url, line)
        self.fetched: dict[str, tuple[str, int]] = {}
        #: a credential copied by this script (into a repository, an archive): what and where
        self.staged: Source | None = None
        #: paths this script copied or archived a credential to -> that credential
        self.staged_paths: dict[str, Source] = {}
        #: the credential directory the script changed into (`cd ~/.ssh`), for what `git add` stages
        self.cwd: Source | None = None
        self.cwd_home = False  # `cd ~` happened: a server started now serves the home directory
        self.cwd_path: str | None = None  # the folder changed into, when known and outside the tree
        #: git remotes the script adds: name -> URL
        self.remotes: dict[str, str] = {}
        #: remotes whose URL carries a secret -> that secret
        self.remote_secrets: dict[str, Source] = {}
        self.facts = CodeFacts()
        self.project = project
        self.rel = rel
        #: shell functions: name -> (source bytes, body node, tree, file it is defined in or None)
        self.funcs: dict[str, tuple[bytes, Any, Any, str | None]] = {}
        self.tree: Any = None
        #: function bodies read again for a call (counted over the readers a call starts, so nested
        #: calls cost their total, not a product); the folder-handing calls already read
        self.calls_read = 0
        #: the programs the script makes sure are installed, once read (see `wrote`)
        self.checked: tuple[frozenset[str] | None] | None = None
        self.read_calls: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        #: variables that hold a block device (`DEV=$(lsblk ...)`, `for p in /dev/sd?[0-9]`)
        self.devices: set[str] = set()
        #: functions whose output is being read for a secret (each once)
        self.printing: dict[str, Source | None] = {}
        #: loop variables walking everything a cloud account lists -> the listing command
        self.listed: dict[str, str] = {}
        #: command-line tools that listed everything an account holds, by name -> the listing, and
        #: the deletes run with their prompts off (name, line, command); commands code runs come in
        #: any order
        self.accounts: dict[str, str] = {}
        self.deletes: list[tuple[str, int, str]] = []
        #: `for` loop variables -> the account listing they walk (None: something else, or a
        #: listing filtered to some of it)
        self.looped: dict[str, str | None] = {}
        self.wiped = 0  # such deletes reported
        #: where the script sends what it names by host (a proxy it set, names it put in /etc/hosts)
        self.rerouted: str | None = None
        #: the line where the script emptied the repository's history (an orphan branch, `git rm -r .`)
        self.emptied: int | None = None
        #: bare repositories the script created (`git init --bare DIR`): nothing in them yet
        self.blank: set[str] = set()

    def _printed(self, node: Any) -> str | None:
        """`$(printf '\\x63\\x75...')` / `$(echo -e ...)` of constants: what it prints (escapes decoded);
        also through decoding filters: `$(echo Y3Vy... | base64 -d)`, `$(base64 -d <<< ...)`,
        `$(echo hsab | rev)`, `$(echo 6375726c | xxd -r -p)`, `$(echo phey | tr a-z n-za-m)`."""
        pipes = [c for c in node.named_children if c.type == "pipeline"]
        if len(pipes) == 1 and len(node.named_children) == 1:
            return self._decoded_pipeline([c for c in pipes[0].named_children if c.type == "command"])
        cmds = [c for c in node.named_children if c.type == "command"]
        if len(cmds) == 1 and (
            here := next((c for c in cmds[0].named_children if c.type == "herestring_redirect"), None)
        ):
            body = next((self.word(c) for c in here.named_children), None)
            return _decode_filter(self.argv(cmds[0])[0], body) if body is not None else None
        if len(cmds) != 1:
            return None
        if any(self.word(c) is None for c in cmds[0].named_children if c.type != "command_name"):
            return None
        words = self.argv(cmds[0])[0]
        if len(words) == 2 and words[0] == "dirname" and words[1].strip("/") not in ("", "~"):
            return words[1].rstrip("/").rsplit("/", 1)[0] or "/"  # `$(dirname "$cache")`: its folder
        if not words or words[0] not in ("printf", "echo"):
            return None
        args = [w for w in words[1:] if w is not None]
        if words[0] == "echo":
            return _unescape(" ".join(args[1:])) if args and args[0] == "-e" else None
        return _printf(args)

    def _decoded_pipeline(self, cmds: list[Any]) -> str | None:
        if len(cmds) < 2 or len(cmds) > 6:
            return None
        words = self.argv(cmds[0])[0]
        if (
            not words
            or words[0] not in ("echo", "printf")
            or any(self.word(c) is None for c in cmds[0].named_children if c.type != "command_name")
        ):
            return None
        args = [w for w in words[1:] if w not in ("-n", "-e")]
        text: str | None = _printf(args) if words[0] == "printf" else " ".join(args)
        for c in cmds[1:]:
            text = _decode_filter(self.argv(c)[0], text) if text is not None else None
        return text

    def text(self, node: Any) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # ------------------------------------------------------------ words

    @_once_per_node
    def word(self, node: Any) -> str | None:
        """The string the shell makes of one word, or None when it depends on run time."""
        t = node.type
        if t in ("word", "number"):
            return re.sub(r"\\(.)", r"\1", self.text(node))
        if t == "raw_string":
            return self.text(node)[1:-1]
        if t == "ansi_c_string":
            try:
                return self.text(node)[2:-1].encode("latin-1", "replace").decode("unicode_escape")
            except UnicodeDecodeError:
                return None
        if t == "command_substitution":
            return self._printed(node)
        if t == "expansion" and (m := re.fullmatch(r"\$\{(\w+):?-([^${}`]*)\}", self.text(node))):
            return self.env.get(m.group(1), m.group(2))  # ${TMPDIR:-/tmp}: the default when unset
        if t == "expansion" and (m := re.fullmatch(r"\$\{(\w+):?-\$\{?HOME\}?([^${}`]*)\}", self.text(node))):
            return self.env.get(m.group(1), "~" + m.group(2))  # ${XDG_CACHE_HOME:-$HOME/.cache}
        if t == "expansion" and (m := _SLICE.fullmatch(self.text(node))):
            return _sliced(self.env.get(m[1]), m[2], m[3])  # ${ABC:2:1}: a piece of a known value
        if t == "expansion" and (m := _TRIM.fullmatch(self.text(node))):
            return _trimmed(self.env.get(m[1]), m[2], m[3])  # ${URL#https:}: a known prefix cut off
        if t == "expansion" and (m := _SUBST.fullmatch(self.text(node))):
            return _substituted(self.env.get(m[1]), m[2], m[3], m[4])  # ${V//_/}: noise taken out
        if t == "expansion" and (m := _CASE.fullmatch(self.text(node))):
            v = self.env.get(m[1])  # ${V,,} / ${V^^}: a known value in lower / upper case
            return None if v is None else (v.lower() if m[2][0] == "," else v.upper())
        if t == "simple_expansion" or t == "expansion":
            name = next((c for c in node.named_children if c.type == "variable_name"), None)
            if name is None or (t == "expansion" and len(node.named_children) != 1):
                return None
            return self.env.get(self.text(name))
        if t in ("string", "concatenation"):
            out = []
            if t == "string":
                body = self.text(node)[1:-1]
                if not node.named_children:
                    return body.replace('\\"', '"')
            at = node.start_byte + 1
            for c in node.named_children if t == "concatenation" else node.children:
                if t == "string" and c.start_byte > at:
                    # text the grammar leaves between the parts (a line break) is in the string too
                    out.append(self.src[at : c.start_byte].decode("utf-8", "replace"))
                at = c.end_byte
                if t == "string" and c.type in ('"',):
                    continue
                if c.type == "string_content":
                    out.append(self.text(c))
                    continue
                s = self.word(c)
                if s is None:
                    return None
                out.append(s)
            if (glued := _glued(node)) is not None:
                # the grammar splits `$D/$T/x` into `$D/$` and `T/x`: the second is the rest of this word
                rest = self.word(glued)
                m = re.match(r"\w+", rest or "")
                if rest is None or m is None or m.group() not in self.env:
                    return None
                out.append(self.env[m.group()] + rest[m.end() :])
            return "".join(out)
        return None

    def at(self, path: str | None) -> str | None:
        """`path` as seen from the root: after `cd ~`, `*` and `Documents` are in the home directory."""
        if path and self.cwd_home and path[0] not in "/~$-.":
            return "~/" + path
        return path

    def shown(self, node: Any) -> str:
        """The folded word where known, else its source text (so `$T` stays visible)."""
        s = self.word(node)
        return s if s is not None else self.text(node)

    @_once_per_node
    def taint_of(self, node: Any) -> Source | None:
        """Secret material that flows into this word: a tainted variable or a command substitution
        (a credential store or the whole environment before a token variable in the same word)."""
        stack = [node]
        weak: Source | None = None
        for n in popped(stack):
            src = None
            if n.type in ("simple_expansion", "expansion"):
                name = next((c for c in n.named_children if c.type == "variable_name"), None)
                if name is not None:
                    v = self.text(name)
                    if v in self.taint:
                        src = self.taint[v]
                    elif SECRET_ENV.match(v):
                        src = Source(f"${v}", n.start_point[0] + 1, False)
            if n.type == "command_substitution":
                src = self.pipeline_source(n)
            if src and src.strong:
                return src
            weak = weak or src
            stack.extend(n.children)
        return weak

    # ------------------------------------------------------------ commands

    def run_argv(self, cmd: Any) -> list[str]:
        """The words of the command `cmd` runs, past wrappers such as `sudo` and `nohup`."""
        return _unwrap(*self.argv(cmd))[0] if cmd is not None else []

    def argv(self, cmd: Any) -> tuple[list[str], list[Any]]:
        words: list[str] = []
        nodes: list[Any] = []
        for c in cmd.named_children:
            if c.prev_sibling is not None and _glued(c.prev_sibling) is c:
                continue  # read with the word before it
            if c.type == "command_name":
                inner = c.named_children[0] if c.named_children else c
                words.append(self.shown(inner))
                nodes.append(inner)
            elif c.type in _NOT_WORDS:
                continue
            else:
                words.append(self.shown(c))
                nodes.append(c)
        return words, nodes

    def secret(self, word: str, line: int) -> Source | None:
        """A credential store `word` names, or a copy or archive of one this script made."""
        path = word.strip("\"'")
        if (hit := self.staged_paths.get(path)) is not None:
            return Source(hit.what, line, True, hit.steps(), f"reads its copy {path}")
        if s := secret_path(word):
            return Source(s, line, True)
        if _MOUNTED_SECRET.match(path):
            # what `RUN --mount=type=secret` lends the build: one is a token the build uses (weighed
            # like a token variable), all of them at once are no longer being used
            return Source(path, line, not re.search(r"/secrets/.", path))
        return None

    def reads_secret(self, words: list[str], line: int) -> Source | None:
        if not words:
            return None
        name = _base(words[0])
        if _WHOLE_ENV.get(name) is not None and all(re.fullmatch(_WHOLE_ENV[name], w) for w in words[1:]):
            # `env`, `printenv -0`, `set`: every variable and its value
            return Source("the whole environment", line, True)
        if self.stdin_secret and name in ("cat", "head") and all(w in ("-", "/dev/stdin") for w in words[1:]):
            return Source("the credentials git hands its credential helper on standard input", line, True)
        if name in ("security",) and any("password" in w or "keychain" in w for w in words[1:]):
            return Source("the macOS keychain", line, True)
        if what := cli_secret(words):
            return cli_source(what, line)
        if words[0] in self.funcs:
            # `dump | nc …` with `dump() { secret-tool search …; }`: a function prints what its
            # commands print (its own file's functions, each read once)
            if words[0] not in self.printing:
                self.printing[words[0]] = None
                src_, body, _, where = self.funcs[words[0]]
                if where is None and src_ is self.src:
                    self.printing[words[0]] = next(
                        (got for c in _commands(body) if (got := self.reads_secret(self.argv(c)[0], line))),
                        None,
                    )
            if self.printing[words[0]] is not None:
                return self.printing[words[0]]
        if name in _READERS or name in ("cp", "find", "grep", "awk", "sed", "jq"):
            for w in words[1:]:
                if src := self.secret(w, line):
                    return src
        return None

    @_once_per_node
    def pipeline_source(self, node: Any) -> Source | None:
        stack = [node]
        for n in popped(stack):
            # `declare -p`, `export -p`, `typeset -x` alone: every variable and its value
            if (
                n.type == "declaration_command"
                and n.end_byte - n.start_byte < 80
                and _PRINTS_ALL.fullmatch(self.text(n))
            ):
                return Source("the whole environment", n.start_point[0] + 1, True)
            stack.extend(c for c in n.children if c.type != "command")
        cmds = _commands(node)
        for i, cmd in enumerate(cmds):
            words, nodes = self.argv(cmd)
            if src := self.reads_secret(words, cmd.start_point[0] + 1) or self.fed_from(cmd):
                return self.scrambled(src, cmds[i + 1 :])
            for n in nodes[1:]:
                if (src := self.taint_of(n)) and not _answered(words, src):
                    return self.scrambled(src, cmds[i + 1 :])
        return None

    def scrambled(self, src: Source, after: list[Any]) -> Source:
        """A secret reversed (`| rev`) or rotated (`| tr 'A-Za-z' 'N-ZA-Mn-za-m'`) on its way: no
        service takes a token written backwards, so it is hidden from whoever reads what is sent,
        and weighed as a credential store is, wherever it goes."""
        for cmd in after[:8]:
            words = self.argv(cmd)[0]
            name = _base(words[0]) if words else ""
            if name == "rev" or (
                name == "tr"
                and len(args := [w for w in words[1:] if not w.startswith("-")]) == 2
                and args[0] != args[1]
                and all(re.fullmatch(r"(?:[A-Za-z]-[A-Za-z])+", a) for a in args)
            ):
                return src._replace(what=f"{src.what} (scrambled with {name})", strong=True)
        return src

    def fed_from(self, cmd: Any) -> Source | None:
        """`base64 < ~/.netrc`: a credential given to a command as its input."""
        p = cmd.parent
        if p is None or p.type != "redirected_statement":
            return None
        for r in p.named_children:
            dest = r.child_by_field_name("destination") if r.type == "file_redirect" else None
            if dest is not None and self.text(r).lstrip().startswith("<"):
                return self.secret(self.shown(dest), cmd.start_point[0] + 1)
        return None

    def run(self, root: Any) -> CodeFacts:
        self.walk(root)
        self.facts.stashed.update((p, s) for p, s in self.staged_paths.items() if outside_tree(p))
        env = {k: v for k, v in self.env.items() if k != "HOME"}
        own = {k: (src, body, tree) for k, (src, body, tree, where) in self.funcs.items() if where is None}
        self.facts.export = Export(
            self.rel,
            consts=env,
            taint={k: v for k, v in self.taint.items() if not v.what.startswith(PARAM)},
            shell_funcs=own,
        )
        return self.facts

    def walk(self, node: Any) -> None:
        stack = [node]
        for n in popped(stack):
            t = n.type
            if t == "variable_assignment":
                self.assign(n)
            elif t == "pipeline":
                self.pipeline(n)
                continue  # its commands are handled here
            elif t == "command":
                self.command(n, None)
            elif t == "redirected_statement":
                self.redirects(n)
            elif t == "for_statement":
                self.loop(n)
            elif t == "function_definition":
                name = n.child_by_field_name("name")
                body = n.child_by_field_name("body")
                if name is not None and body is not None:
                    self.funcs[self.text(name)] = (self.src, body, self.tree, None)
            stack.extend(reversed(n.children))

    def loop(self, n: Any) -> None:
        """`for f in ~/.docker/config.json ~/.git-credentials`: the variable stands for the word
        that matters most (a credential store, else a folder whose deletion destroys data)."""
        var = n.child_by_field_name("variable")
        if var is None:
            return
        values = [self.at(self.word(c)) for c in n.children_by_field_name("value")]
        # `for d in /dev/sd?`, and `for d in $(lsblk -dno NAME)`: each disk the listing names
        if any(v and DEVICE.match(v) for v in values) or any(
            _DEVICE_SOURCE.search(t) for c in n.children_by_field_name("value") if "$(" in (t := self.text(c))
        ):
            self.devices.add(self.text(var))
        # `for b in $(aws s3api list-buckets …)`: every bucket of the account, in turn
        # (a listing filtered to some of them, `--filters Name=tag:…`, picks those out)
        if (
            m := next(
                (m for c in n.children_by_field_name("value") if (m := _CLOUD_LIST.search(self.text(c)))),
                None,
            )
        ) and not _PICKS.search(m[1]):
            self.listed[self.text(var)] = " ".join(m[1].split()[:3])
        else:
            self.listed.pop(self.text(var), None)
        # the same for the tools `unasked_deletes` reads (a pipe that only reshapes the lines,
        # `| tr -d '*'`, picks nothing out)
        said = " ".join(self.text(c) for c in n.children_by_field_name("value"))
        if len(self.looped) < 64:
            m = _ACCOUNT_LIST.search(said)
            kept = _RESHAPE.sub("", said)
            self.looped[self.text(var)] = (
                " ".join(m[0].split()[:4]) if m and not _PICKS.search(kept) else None
            )
        pick = next((v for v in values if v and secret_path(v)), None) or next(
            (v for v in values if v and destroys(v)), None
        )
        if pick is not None:
            self.env[self.text(var)] = pick
        # `for c in $(xxd -p ~/.netrc)`: each value is a piece of what the substitution read
        if src := next((t for c in n.children_by_field_name("value") if (t := self.taint_of(c))), None):
            self.taint[self.text(var)] = src

    def read_vars(self, stmt: Any, src: Source | None) -> list[str]:
        """`... | while read -r a b; do`: the variables `read` fills hold what the loop is fed."""
        cond = stmt.child_by_field_name("condition")
        names = []
        for cmd in _commands(cond) if cond is not None else []:
            words = self.argv(cmd)[0]
            if words and words[0] == "read":
                names += [w for w in words[1:] if re.fullmatch(r"[A-Za-z_]\w*", w)]
        for w in names if src is not None else ():
            self.taint[w] = src
        return names

    def assign(self, n: Any) -> None:
        name = n.child_by_field_name("name")
        value = n.child_by_field_name("value")
        if name is None or value is None:
            return
        key = self.text(name)
        text = self.text(value)
        # DEV=$(lsblk ...), and DEV=$(pick_device) with a function of the script that lists disks
        substitutes = "$(" in text or "`" in text  # once: per word it made a long array quadratic
        called = (self.funcs.get(w) for w in re.findall(r"[\w.-]+", text) if substitutes)
        # and `dev="/dev/$d"` with `$d` a disk's name
        ref = _DEVICE_REF.fullmatch(text.strip("\"'"))
        if (
            _DEVICE_SOURCE.search(text)
            or (ref is not None and ref.group(1) in self.devices)
            or any(
                f is not None
                and _DEVICE_SOURCE.search(f[0][f[1].start_byte : f[1].end_byte].decode("utf-8", "replace"))
                for f in called
            )
        ):
            self.devices.add(key)
        v = self.word(value)
        if key.lower() in ("https_proxy", "http_proxy", "all_proxy") and not LOOPBACK.match(v or text):
            self.rerouted = self.rerouted or f"{v or text} (the proxy the script sets)"
        if v is not None and len(v) <= MAX_BYTES:
            self.env[key] = v
        else:
            self.env.pop(key, None)
        src = self.taint_of(value)
        if src:
            self.taint[key] = src
        if got := _FETCHED.match(text):
            url = _URL.search(got[1])
            self.fetched[key] = (url[0] if url else "the network", n.start_point[0] + 1)
        else:
            self.fetched.pop(key, None)

    def pipeline(self, n: Any) -> None:
        parts = [c for c in n.named_children if c.type != "comment"]
        # tree-sitter-bash reads `a | b | c || true` as `a | (b | c || true)`: the list's first
        # pipeline continues this one, and what follows `||`/`&&` is read on its own
        after: list[Any] = []
        while parts and parts[-1].type == "list":
            kids = [c for c in parts.pop().named_children if c.type != "comment"]
            if not kids:
                break
            first = kids[0]
            parts.extend(
                [c for c in first.named_children if c.type != "comment"]
                if first.type == "pipeline"
                else [first]
            )
            after[:0] = kids[1:]
        src: Source | None = None
        const: str | None = None  # constant text fed down the pipeline, decoded on the way
        decoded = False
        #: a listing of the home directory or its data folders fed down the pipeline (`ls -A ~`)
        listing: str | None = None
        shown = []
        for i, c in enumerate(parts):
            lead = c.named_children[0] if i == 0 and c.type == "redirected_statement" else None
            kids = lead.named_children if lead is not None and lead.type == "list" else []
            if kids and kids[-1].type == "command":
                # `a && tar ... 2>/dev/null | curl ...` is read as `(a && tar ...) 2>/dev/null | curl`:
                # the pipe starts at the list's last command
                for k in kids[:-1]:
                    self.walk(k)
                c = kids[-1]
            if c.type not in ("command", "redirected_statement") or (
                c.type == "redirected_statement" and not any(x.type == "command" for x in c.named_children)
            ):
                # `... | while read -r part; do nslookup "$part.zone"; done`
                if i == 0 and (group := c if lead is None else lead).type in (
                    "compound_statement",
                    "subshell",
                ):
                    # `{ env; cat ~/.netrc; } | CMD`: the group's commands all print into the pipe
                    src = next(
                        (
                            s
                            for x in _commands(group)[:64]
                            if (s := self.reads_secret(self.argv(x)[0], x.start_point[0] + 1))
                        ),
                        None,
                    )
                if src is not None:
                    for stmt in [c, *c.named_children]:
                        if stmt.type in ("while_statement", "until_statement"):
                            self.read_vars(stmt, src)
                if (
                    i
                    and c.type == "while_statement"
                    and any(_DEVICE_SOURCE.search(self.text(p)) for p in parts[:i])
                ):
                    # `lsblk -dno NAME | while read -r d; do …`: each disk the listing names
                    self.devices.update(self.read_vars(c, None))
                self.walk(c)
                continue
            cmd = (
                c if c.type == "command" else next((x for x in c.named_children if x.type == "command"), None)
            )
            if cmd is None:
                continue
            words, nodes = self.argv(cmd)
            shown.append(shlex.join(words) if words else self.text(c))
            words, nodes = _unwrap(words, nodes)
            line = cmd.start_point[0] + 1
            run = _xargs(words) if words and _base(words[0]) == "xargs" else words
            # `echo TEXT | rev | sh`: constant text decoded on its way into a shell is a command
            if i == 0 and words and _base(words[0]) in ("echo", "printf"):
                plain = [w for w in words[1:] if not re.fullmatch(r"-[neE]+", w)]
                const = _printf(plain) if _base(words[0]) == "printf" else " ".join(plain)
                decoded = False
            elif const is not None and (dec := _decode_filter(words, const)) is not None:
                const, decoded = dec, True
            elif const is not None and decoded and words and _base(words[0]) in _RUNS_STDIN:
                self.facts.assembled.append((line, const))
                const = None
            elif i:
                const = None
            if i == 0 or (src is None and cli_secret(words)):
                # what the pipeline carries: the first command's output, or a later command that
                # prints a credential (`... | git credential fill | curl -d @- ...`)
                # a request that authenticates with a secret prints the service's answer, not the
                # secret (`curl -H "Bearer $T" api/items | xargs -I{} curl -X DELETE api/items/{}`)
                tainted = () if words and _sends(words) else nodes[1:]
                src = self.reads_secret(words, line) or next(
                    (s for s in (self.taint_of(x) for x in tainted) if s), None
                )
                listing = _home_listing(words) if i == 0 else listing
            elif src and run and _base(run[0]) == "tee" and (into := self.tee_sink(nodes)) is not None:
                # `… | tee >(nc host 9001) > copy`: tee copies its input into the command too
                self.flow("secret-network", "critical", line, f"reads {src[0]} and sends it to {into}", src)
                src = None
            elif (
                src and run and (_sends(run) or _dns(run) or _base(run[0]) == "ssh" or _code_sends_stdin(run))
            ):
                dest = _code_sends_stdin(run) or _dest(run) or "the network"
                how = "in DNS lookups of" if _dns(run) else "to"
                sev, said = "critical", f"reads {src[0]} and sends it {how} {dest}"
                if _base(run[0]) == "curl" and _config_from_stdin(run):
                    # `printf 'header = "Authorization: Bearer %s"' "$KEY" | curl -K - URL`: curl reads
                    # its options from stdin, so the secret is a header to URL, weighed like `-H`
                    sev, said = sent(src, _dest(run))
                self.flow("secret-network", sev, line, said, src)
                src = None
            elif listing and run is not words and run and _base(run[0]) in _ERASERS:
                self.flow("destruction", "high", line, f"lists {listing} and deletes what it lists", None)
                listing = None
            elif (
                words and _base(words[0]) == "grep" and not any(w.startswith("-") and "v" in w for w in words)
            ):
                listing = None  # a grep picks some entries out
            if c.type == "redirected_statement":
                self.redirects(c)
            self.command(cmd, None)
        joined = " | ".join(shown)
        if joined != self.text(n) and len(shown) == len(parts) and not after:
            self.facts.assembled.append((n.start_point[0] + 1, joined))
        for rest in after:
            self.walk(rest)

    def tee_sink(self, nodes: list[Any]) -> str | None:
        """Where a `tee >(CMD)` sends what it copies, when CMD sends to the network."""
        for x in nodes[1:]:
            if x.type != "process_substitution" or not self.text(x).startswith(">"):
                continue
            for c in _commands(x):
                words = self.argv(c)[0]
                if words and (_sends(words) or _dns(words)):
                    return _dest(words) or "the network"
        return None

    def heredoc(self, n: Any, r: Any) -> None:
        """`python3 - <<'PY' ... PY`, `node <<JS`, `bash <<EOF`: the here-document is the program."""
        body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
        cmd = next((x for x in n.named_children if x.type == "command"), None)
        words = self.run_argv(cmd)
        if body is not None:
            self.logins(self.text(body), body.start_point[0] + 1)
        if body is None or not words or self.depth >= MAX_DEPTH:
            return
        name, code, got = _base(words[0]), self.text(body), None
        helper = name in ("cat", "tee") and self.helper_written(n, words)
        if name in ("cat", "tee") and not helper and (bang := _SHEBANG.match(code.lstrip())):
            # `cat > ~/.local/bin/x <<'EOF'` of a script with its `#!` line: the program it writes,
            # run later by whatever starts it (a start-up file, a timer, a hook)
            name = _base(bang.group(1))
        if name.startswith("python"):
            from skillyard.install.scanner import _python

            got = _python.analyse(code)
        elif name in ("node", "nodejs", "deno", "bun"):
            from skillyard.install.scanner import _js

            got = _js.analyse(code)
        elif name in _SHELLS:
            got = analyse(code, self.depth + 1)
        elif helper:
            # `cat > ~/.local/bin/git-credential-x <<'EOF'`: the script git will run as a helper
            got = analyse(code, self.depth + 1, helper=True)
        if got is not None:
            got.assembled.clear()
            self.facts.extend(got, body.start_point[0])

    def helper_written(self, n: Any, words: list[str]) -> bool:
        """The credential helper `cat > PATH` or `tee PATH` writes: a `git-credential-NAME` file, or
        a file whose name this script registers as `credential.helper`."""
        paths = words[1:] if _base(words[0]) == "tee" else []
        for r in n.named_children:
            if r.type == "file_redirect" and self.text(r).lstrip("0123456789").startswith(">"):
                dest = r.child_by_field_name("destination") or (
                    r.named_children[-1] if r.named_children else None
                )
                paths += [self.shown(dest)] if dest is not None else []
        if self.registered is None:  # read once per script
            text = self.src.decode("utf-8", "replace")
            self.registered = {m.group(1).rsplit("/", 1)[-1] for m in _HELPER_SET.finditer(text)}
        registered = self.registered
        for p in paths:
            p = p.strip("\"'")
            if CREDENTIAL_HELPER.search(p) or p.rsplit("/", 1)[-1] in registered:
                return True
        return False

    def printed_secret(self, n: Any, cmd: Any, words: list[str], line: int) -> Source | None:
        """The secret a redirected statement prints: `echo "$ALL" | base64 > f`, `{ cat "$f"; } >> f`
        (the redirect takes what the whole pipeline, list or group prints)."""
        body = n.child_by_field_name("body")
        if body is not None and body.type != "command":
            # `for f in ~/.netrc .env; do cat "$f"; done > f`, also inside a group:
            # the loops' variables hold what they name before their commands are read
            stack, seen = [body], 0
            for x in popped(stack):
                if (seen := seen + 1) > 512:
                    break
                if x.type == "for_statement":
                    self.loop(x)
                stack.extend(x.named_children)
            return self.pipeline_source(body)
        if cmd is not None:
            return self.reads_secret(words, line) or next(
                (t for c in cmd.named_children[1:] if (t := self.taint_of(c)) is not None), None
            )
        return None

    def redirects(self, n: Any) -> None:
        for r in n.named_children:
            if r.type == "heredoc_redirect":
                self.heredoc(n, r)
                continue
            if r.type != "file_redirect":
                continue
            op = self.text(r).lstrip("0123456789&")
            if not op.startswith((">", "<")) or op.startswith("<<"):
                continue
            dest = r.child_by_field_name("destination") or (
                r.named_children[-1] if r.named_children else None
            )
            if dest is None:
                continue
            path = self.shown(dest)
            # `ssh -i <KEY> <USER>@<HOST> "cat /etc/x"`: the `>` closing a placeholder is not a
            # redirection, unless a path follows (`<in>/etc/x` and `<P> /etc/x` still write)
            near = self.src[max(0, r.start_byte - 64) : r.start_byte + 2].decode("utf-8", "replace")
            if _PLACEHOLDER.search(near) and not path.strip("\"'").startswith(("/", "~", ".", "$")):
                continue
            line = r.start_point[0] + 1
            if "$" in self.text(dest) and path != self.text(dest):
                # `exec 5<>$D/$T/$h/$p`: the folded target, in its statement
                end = (_glued(dest) or dest).end_byte
                whole = self.src[n.start_byte : dest.start_byte] + path.encode() + self.src[end : n.end_byte]
                self.facts.assembled.append((line, whole.decode("utf-8", "replace")))
            if op.startswith(">") and not op.startswith(">&"):
                cmd = next((x for x in n.named_children if x.type == "command"), None)
                words = self.argv(cmd)[0] if cmd is not None else []
                if words and _base(words[0]) in ("curl", "wget") and (url := _dest(words)):
                    self.downloads[path] = (url, line)  # curl URL > file
                # `echo "$ALL" > s.json`, `env > e.txt`: the file now holds the secret, and a later
                # `curl --data-binary @s.json` sends it
                elif (
                    len(self.staged_paths) < 64
                    and path.strip("\"'") != "/dev/null"
                    and (src := self.printed_secret(n, cmd, words, line)) is not None
                ):
                    key = path.strip("\"'")
                    self.staged_paths.setdefault(key, src._replace(how=f"writes it to {key}"))
            elif op.startswith(">&") and self.socket and path.strip("\"'") not in ("1", "2", "-"):
                # `ztcp HOST PORT; { env; cat ~/.netrc } >&$REPLY`: into the connection the script opened
                cmd = next((x for x in n.named_children if x.type == "command"), None)
                words = self.argv(cmd)[0] if cmd is not None else []
                if (src := self.printed_secret(n, cmd, words, line)) is not None:
                    self.flow(
                        "secret-network",
                        "critical",
                        line,
                        f"reads {src.what} and sends it to {self.socket}",
                        src,
                    )
            if op.startswith("<"):
                cmd = next((x for x in n.named_children if x.type == "command"), None)
                words = self.run_argv(cmd)
                if words and _sends(words) and (src := self.secret(path, line)):
                    dest = _dest(words) or next((w for w in words[1:] if "@" in w), "the network")
                    self.flow(
                        "secret-network", "critical", line, f"reads {src.what} and sends it to {dest}", src
                    )
                elif (src := self.secret(path, line)) is not None or (
                    dest.type == "process_substitution" and (src := self.pipeline_source(dest)) is not None
                ):
                    # `while read -r line; do ...; done < ~/.git-credentials`, or `< <(CMD)` of a
                    # command (or a function of the script) that prints a secret
                    for stmt in n.named_children:
                        if stmt.type in ("while_statement", "until_statement"):
                            self.read_vars(stmt, src)
                continue
            body = self.text(n)
            cmd = next((x for x in n.named_children if x.type == "command"), None)
            said = self.argv(cmd)[0] if cmd is not None and op.startswith(">") else []
            if (
                said
                and said[0] in ("printf", "echo")
                and all(self.word(c) is not None for c in cmd.named_children[1:])
            ):
                # `printf '%s\n' "$entry" > f` with `$entry` known: what the file now holds
                body += "\n" + ((_printf(said[1:]) if said[0] == "printf" else " ".join(said[1:])) or "")
            self.wrote(path, line, body)

    def wrote(self, path: str, line: int, body: str) -> None:
        """A file the script writes (a redirect, `tee`): kernel settings and persistence targets."""
        if path.strip("\"'") == "/etc/hosts":
            self.rerouted = self.rerouted or "a host the script wrote into /etc/hosts"
        # the programs the script makes sure are installed (`command -v copyq || exit 1`)
        # (none when it also puts a program in a folder of programs: that one may be what starts)
        if self.checked is None:  # the script's text is read once for them, not at every write
            src = self.src.decode("utf-8", "replace")
            self.checked = (
                None if _PLACES_BIN.search(src) else frozenset(a or b for a, b in _CHECKED.findall(src)),
            )
        checked = self.checked[0]
        if launches_installed(path, body, checked):
            self.facts.installed_launch.add(line)
        fl = written(path, line, body, checked)
        ref = _DEVICE_REF.fullmatch(path.strip("\"'"))
        if fl is None and ref is not None and ref.group(1) in self.devices:
            fl = flow("destruction", "high", line, f"overwrites the disk device {path}", None)
        if fl is not None:
            self.facts.flows.append(fl)

    def command(self, cmd: Any, words: list[str] | None) -> None:
        words, nodes = _unwrap(*self.argv(cmd))
        if not words:
            return
        line = cmd.start_point[0] + 1
        name = _base(words[0])
        raw = self.text(cmd)
        canon = shlex.join(words)
        if canon != raw and ("$" in raw or '""' in raw or "''" in raw):
            self.facts.assembled.append((line, canon))
        if name == "printf" and len(nodes) > 2 and "://" in words[1] and any(map(self.taint_of, nodes[2:])):
            # `printf 'https://u:%s@host' "$TOKEN" >> ~/.git-credentials`: a login for that host
            given = iter(re.sub(r"^[\"']|[\"']$", "", self.text(n)) for n in nodes[2:])
            self.logins(re.sub(r"%s", lambda _: next(given, ""), _unescape(words[1]) or words[1]), line)
        if name in ("source", ".") and self.project is not None:
            self.sourced(words, line)
        if name == "ztcp" and len(words) > 2 and not words[1].startswith("-"):
            self.socket = f"{words[1]} port {words[2]}"  # zsh's TCP client: the connection's descriptor
        if words[0] in self.funcs:
            self.call(words[0], nodes, line)
        # strings handed to a shell again
        inner: str | None = None
        if name == "eval":
            inner = " ".join(words[1:])
        elif name in _SHELLS and len(words) >= 3 and words[1] in ("-c", "-lc", "-ic"):
            inner = words[2]
        if inner and self.depth < MAX_DEPTH:
            self.facts.assembled.append((line, inner))
            sub = analyse(inner, self.depth + 1)
            if sub is not None:
                sub.assembled.clear()
                self.facts.extend(sub, line - 1)
        self.inline_code(name, words, nodes, line)
        self.runs_fetched(name, words, nodes, line)
        if (served := _serves(words)) is not None:
            where = served or ("~" if self.cwd_home else self.cwd.what if self.cwd else None)
            if where and (where in ("~", "$HOME", "${HOME}") or secret_path(where)):
                self.flow(
                    "secret-network",
                    "high",
                    line,
                    f"serves {where} over HTTP to anyone who can reach this machine",
                    Source(where, line, True, how=f"serves {where}"),
                )
        if (built := _image_context(words)) is not None:
            self.image_from(built, words, line)
        if name == "dd" or name.startswith(("mkfs", "mke2fs")) or name in _DISK_TOOLS:
            self.disk(name, words, nodes, line)
        if (fetch := _package_fetch(words)) is not None:
            self.package_names(words, nodes, line, fetch)
        self.account_deletes(cmd, name, words, line)
        helper = _helper_set(name, words)
        # a helper this script also writes, copies or fetches is read where that happens (its
        # content decides); one it only names runs whatever is there
        base = re.escape(helper[1].rstrip("/").rsplit("/", 1)[-1]) if helper else ""
        if helper and len(re.findall(base.encode(), self.src)) <= len(re.findall(base, raw)):
            said = f"has {helper[0]} run {helper[1]}, a program outside the system's folders, from now on"
            self.flow("persistence", "high", line, said, None)
        if (
            name in _CLOUD_CLIS
            and "--dry-run" not in words
            and any(_CLOUD_DELETE.fullmatch(w) for w in words[1 : 8 if name in ("kubectl", "oc") else 4])
        ):
            self.cloud_delete(words, nodes, line)
        # downloads to a file, then running that file
        if name in ("kubectl", "oc") and (server := _option(words, "--server", "-s")):
            # `kubectl --server URL --token "$(cat …/serviceaccount/token)"`: the token goes to that server
            at = next(
                (i + ("=" not in w) for i, w in enumerate(words) if w.split("=", 1)[0] == "--token"), None
            )
            if at is not None and at < len(nodes) and (src := self.taint_of(nodes[at])):
                sev, text = sent(src, server)
                self.flow("secret-network", sev, line, text, src)
        if name in ("curl", "wget"):
            out = _output_file(words)
            if out:
                self.downloads[out] = (_dest(words) or "the network", line)
            src = None
            for i, w in enumerate(words[1:], 1):
                if w.startswith("@"):
                    path = w[1:]
                elif "=@" in w:
                    path = w.split("=@", 1)[1]
                elif words[i - 1] in ("-T", "--upload-file", "--post-file"):
                    path = w
                else:
                    continue
                path = path.strip("\"'")
                # a secret mounted into a container, uploaded whole rather than used as a credential
                mounted = Source(path, line, True) if _MOUNTED_SECRET.match(path) else None
                src = src or mounted or self.secret(path, line)
            for n in nodes[1:]:
                # the bot's own token in its slot of the Bot API URL is the bot's login
                if (
                    (t := self.taint_of(n))
                    and (src is None or t.strong and not src.strong)
                    and (t.strong or not _BOT_SLOT.fullmatch(self.text(n).strip("\"'")))
                ):
                    src = t
            if src:
                sev, text = sent(src, self.rerouted or _dest(words))
                src, sev, text = self.in_body(words, nodes, self.rerouted or _dest(words), src, sev, text)
                self.flow("secret-network", sev, line, text, src)
        elif name in ("scp", "rsync", "sftp") and ":" in words[-1]:
            self.carries(words[1:-1], line, "copies", words[-1])
        elif _dns(words):
            for n, w in zip(nodes[1:], words[1:], strict=False):
                src = self.taint_of(n)
                if src and name == "ping" and w != words[-1]:
                    # `ping -p PATTERN host`: the pattern fills every packet sent to the host
                    said = f"reads {src.what} and sends it to {words[-1]} in the padding of ping packets"
                    self.flow("secret-network", "critical", line, said, src)
                    break
                if src:
                    self.flow("secret-network", "critical", line, sent(src, w, dns=True)[1], src)
                    break
        elif (to := _publishes(words)) is not None and (src := self.carried(to, nodes)) is not None:
            # a package published, an issue or pull request filed, a git URL: each carries to a
            # service what is put into it
            sev, text = sent(src, to)
            src, sev, text = self.in_body(
                words, nodes, "api.github.com" if name == "gh" else to, src, sev, text
            )
            self.flow("secret-network", sev, line, text, src)
        elif to in REGISTRIES.values() and len(self.facts.sent_files) < 32:
            # what another file of the skill wrote into the package goes with it, to the registry
            # named (`--registry URL`), else the public one
            given = [w for i, w in enumerate(words[2:], 2) if words[i - 1] not in _OPTION_VALUE]
            folder = next((w for w in given if not w.startswith("-") and "://" not in w), ".")
            if self.cwd_path and not outside_tree(folder):  # `cd /tmp/pkg && npm publish`
                folder = self.cwd_path if folder in (".", "./") else f"{self.cwd_path}/{folder}"
            url = next((w for w in words[2:] if "://" in w), to).split("=", 1)[-1]
            self.facts.sent_files.append((line, folder.rstrip("/") + "/", url))
        elif name in _INTERP or words[0] in self.downloads:
            script = (
                next((w for w in words[1:] if not w.startswith("-")), None) if name in _INTERP else words[0]
            )
            if script in self.downloads:
                url, dline = self.downloads[script]
                self.flow(
                    "download-exec",
                    "low" if OFFICIAL_INSTALLER.match(url) else "critical",
                    line,
                    f"downloads {url} to {script} and runs it",
                    Source(f"downloads {url} to {script}", dline, True),
                )
        elif name in _CONFIGS and len(words) > 3 and (words[1] == "set" or words[1:3] == ["config", "set"]):
            # `npm config set //host/:_authToken "$T"`, `pip config set global.index-url https://u:$T@host/`:
            # the tool sends the secret to that host from now on
            key = _LOGIN_KEY.match(words[-2].removeprefix("https:").removeprefix("http:"))
            src = next((t for x in nodes[-1:] if (t := self.taint_of(x))), None)
            if key is not None and src is not None:
                sev, text = sent(src, f"https:{key[1]}")
                self.flow("secret-network", sev, line, text, src)
            else:
                self.logins(self.text(cmd), line)
            # `pip config set global.extra-index-url URL`, `npm config set registry URL`: every later
            # install of the user's looks there, as a settings file written with it would say
            kv = [w for w in words if not w.startswith("-")][-2:]
            setting = f"{kv[0].rsplit('.', 1)[-1]} = {kv[-1]}"
            where = [w for w in words if w.startswith("--location=") or w in ("-g", "--global")]
            if where[-1:] != ["--location=project"] and (
                fl := written(_CONFIG_FILE.get(name, ""), line, setting)
            ):
                self.facts.flows.append(fl)
        elif name in _MAILERS:
            self.carries(words[1:], line, "mails", next((x for x in words[1:] if "@" in x), "a mail server"))
        elif name in _COPIERS:
            self.stage(name, words, line)
        elif name == "cd" and len(words) > 1:
            self.cwd = self.secret(words[1], line)
            self.cwd_path = words[1].rstrip("/") if outside_tree(words[1]) else None
            self.cwd_home = words[1].rstrip("/") in ("~", "$HOME", "${HOME}", "/root") or bool(
                re.fullmatch(r"/(?:home|Users)/[^/]+/?", words[1])
            )
        elif (up := _uploads(words)) is not None:
            self.carries(up[0], line, "uploads", up[1])
        elif name == "git":
            self.git(words, line, nodes)
        elif name == "find":
            self.find(words, line)
        elif name == "tee":
            parent = cmd.parent
            body = self.text(parent.parent if parent is not None and parent.parent is not None else cmd)
            for w in words[1:]:
                if not w.startswith("-"):
                    self.wrote(w, line, body)
        elif name in ("shred", "rm", "truncate", "unlink"):
            # `rm -r` of a folder, or any of them over a glob of the files in it
            deep = (
                name == "shred" or name == "rm" and any(w.startswith("-") and "r" in w.lower() for w in words)
            )
            how = {"shred": "overwrites and deletes files under", "truncate": "empties"}.get(
                name, "recursively deletes" if deep else "deletes"
            )
            if w := next(
                (w for w in map(self.at, words[1:]) if w[:1] != "-" and destroys(w) and (deep or "*" in w)),
                None,
            ):
                self.flow("destruction", "high", line, f"{how} {w}", None)
        if name in _ERASERS and (w := next((w for w in words[1:] if _AUDIT_LOG.match(w)), None)):
            # beside, not instead of, what the same command deletes (`rm -rf /var/log/wtmp ~/`)
            self.flow(
                "destruction", "high", line, f"erases {w}, a record of who logged in and what ran", None
            )

    def package_names(self, words: list[str], nodes: list[Any], line: int, index: str) -> None:
        """`pip download --index-url URL "warm-$HEX==0"`: the names of the packages requested go to
        the index in its request URLs, so a secret put into one is sent there. (A secret in a URL
        argument, `git+https://$T@host/r`, logs in to that host instead.)"""
        skip = False
        for w, x in zip(words[1:], nodes[1:], strict=False):
            if skip or w.startswith("-"):
                skip = w in _INDEX_OPTIONS or w in (
                    "-d",
                    "--dest",
                    "-r",
                    "--requirement",
                    "-c",
                    "--constraint",
                )
                continue
            if (src := self.taint_of(x)) is None:
                continue
            if "://" in w or "@" in w:
                self.logins(self.text(x), line)
                return
            said = f"reads {src.what} and sends it to {index} in the names of the packages it requests"
            self.flow("secret-network", "critical", line, said, src)
            return

    def cloud_delete(self, words: list[str], nodes: list[Any], line: int) -> None:
        """A cloud delete run on everything the account lists (`aws s3 rb "s3://$b" --force` in a
        loop over `aws s3api list-buckets`), or on every namespace at once (`kubectl delete ns
        --all`): what is stored there is gone."""
        refs = {v for x in nodes[1:] for v in re.findall(r"\$\{?(\w+)", self.text(x))}
        hit = next((self.listed[v] for v in refs if v in self.listed), None)
        what = f"everything `{hit}` lists" if hit else None
        if what is None and words[0] in ("kubectl", "oc"):
            # the kinds named after the verb, whatever global options (`--context "$c"`) come first
            at = next((i for i, w in enumerate(words[1:8], 1) if _CLOUD_DELETE.fullmatch(w)), len(words))
            kinds = set(words[at + 1].lower().split(",")) if at + 1 < len(words) else set()
            every = "--all" in words or "--all-namespaces" in words or "-A" in words
            if every and (kept := kinds & _KUBE_STORES):
                what = "every resource" if "all" in kept else f"every {'/'.join(sorted(kept))}"
        if what is not None:
            self.flow("destruction", "high", line, f"deletes {what} ({' '.join(words[:3])})", None)

    def logins(self, text: str, line: int, instead: str | None = None) -> None:
        """A secret put into the user part of a URL in a tool's settings (`index-url =
        https://__token__:${PYPI}@host/simple`): the tool sends it to that host. When the URL
        stands in for another host's (git's `insteadOf`), what was meant for that host goes
        elsewhere."""
        for k, m in enumerate(_USER_URL.finditer(text)):
            names = re.findall(r"\$\{?(\w+)", m[1])
            src = next((self.taint[v] for v in names if v in self.taint), None)
            if src is not None and k < 8:
                host = re.sub(
                    r"\$\{(\w+)(##?|%%?)([^}]*)\}",
                    lambda e: _trimmed(self.env.get(e[1]), e[2], e[3]) or e[0],
                    m[2],
                )
                host = re.sub(r"\$\{?(\w+)\}?", lambda e: self.env.get(e[1], e[0]), host)
                sev, said = sent(src, host)
                other = host_of(instead or "")
                if other and "." in other and _site(other) != _site(host_of(host)):
                    sev, said = "critical", f"{said}, which git is told to use in place of {other}"
                self.flow("secret-network", sev, line + text.count("\n", 0, m.start()), said, src)
                return

    def carries(self, args: list[str], line: int, verb: str, dest: str) -> None:
        """A command that takes the files it names along (`scp`, `mail`, a transfer service): the
        first secret among them goes to `dest`."""
        if src := next((s for w in args if not w.startswith("-") and (s := self.secret(w, line))), None):
            self.flow("secret-network", "critical", line, f"reads {src.what} and {verb} it to {dest}", src)

    def disk(self, name: str, words: list[str], nodes: list[Any], line: int) -> None:
        """`dd of=/dev/sda`, `mkfs.ext4 "$DEV"`, `wipefs -a "$p"`: a block device is overwritten,
        named directly or through a variable that holds one. An image file (`disk.img`) is not."""
        for w, n in zip(words[1:], nodes[1:], strict=False):
            raw = self.text(n)
            if name == "dd":
                if not w.startswith("of="):
                    continue
                w, raw = w[3:], raw.split("=", 1)[-1]
            elif w.startswith("-"):
                continue
            ref = _DEVICE_REF.fullmatch(raw.strip("\"'"))
            # a disk picked by a listing in place (`of=$(lsblk -dpno NAME | head -1)`): whichever it lists
            picked = raw.strip("\"'").startswith(("$(", "`")) and bool(_DEVICE_SOURCE.search(raw))
            if DEVICE.match(w) or picked or (ref is not None and ref.group(1) in self.devices):
                how = {"dd": "overwrites", "shred": "overwrites", "wipefs": "wipes the signatures of"}.get(
                    name, "erases" if name in ("blkdiscard", "sgdisk") else "formats"
                )
                self.flow("destruction", "high", line, f"{how} the disk device {raw}", None)
                return

    def image_from(self, folder: str, words: list[str], line: int) -> None:
        """`docker build -t IMG ~`: every file of the build context can be copied into the image
        (`COPY . /x`), so a context that is the home folder or a credential folder puts the keys and
        tokens there into what `docker push` (or `--push`) then publishes."""
        f = folder.rstrip("/") or "/"
        home = f in ("~", "$HOME", "${HOME}", "/root") or bool(re.fullmatch(r"/(?:home|Users)/[^/]+", f))
        what = "~ (the home folder, its keys and tokens with it)" if home else secret_path(f)
        if what is None and self.cwd_home and f in (".", "./"):
            what = "~ (the home folder, its keys and tokens with it)"
        if what is None:
            return
        src = Source(what, line, True, how=f"builds a container image from {folder}")
        self.staged = self.staged or src
        if "--push" in words or any(w.startswith("--output=type=registry") for w in words):
            sev, text = sent(src, "a container registry")
            self.flow("secret-network", sev, line, text, src)

    def account_deletes(self, cmd: Any, name: str, words: list[str], line: int) -> None:
        """Listings of everything an account holds and the deletes run on them without asking (read
        by `unasked_deletes`); GitHub's API called directly counts as `gh`."""
        shown = " ".join(words[:3])
        said = " ".join(words)
        if name in ("curl", "wget") and (api := _GH_API.search(said)):  # GitHub's API called directly
            method = ["-X", "DELETE"] if _HTTP_DELETE.search(said) else []
            name, said, words = "gh", f"gh api {_PAGES.sub('', api[1])}", ["gh", "api", *method, api[1]]
        if (
            name == "gh"
            and words[1:2] == ["api"]
            and _HTTP_DELETE.search(" ".join(words))
            and any(_GH_REPO.fullmatch(w.strip("\"'")) for w in words)
        ):
            words = ["gh", "delete", *words[2:], "--yes"]  # an API delete asks nothing
        elif name in _LISTERS and self.prompts_off(cmd):
            words = [*words, "--yes"]
        if (listing := _ACCOUNT_LIST.match(said)) and not _PICKS.search(said) and name not in self.accounts:
            self.accounts[name] = " ".join(listing[0].split()[:4])
            self.unasked_deletes(name)
        elif name in _LISTERS and _unasked_delete(words, _listing_loop(cmd, self.looped)) and self.wiped < 8:
            named = [v for w in words[1:] for v in re.findall(r"\$\{?(\w+)", w)]
            refs = [v for v in named if v in self.looped and _in_loop_of(cmd, v)]
            if not refs or len(refs) < len(named):  # a target the tool's listing may have found anywhere
                if sum(d[0] == name for d in self.deletes) < 4:  # (a few of each tool: no decoys fill it)
                    self.deletes.append((name, line, shown))
                self.unasked_deletes(name)
            elif hit := next((self.looped[v] for v in refs if self.looped[v]), None):
                said = f"deletes what `{hit}` lists, without asking ({shown})"
                self.flow("destruction", "high", line, said, None)
                self.wiped += 1

    def prompts_off(self, cmd: Any) -> bool:
        """The prompts answered by a pipe (`yes | gh repo delete "$r"`, `echo y | …`) or switched off
        by the environment (`CLOUDSDK_CORE_DISABLE_PROMPTS=1 gcloud …`, before or exported)."""
        before = cmd.prev_named_sibling if cmd.parent is not None and cmd.parent.type == "pipeline" else None
        if before is not None and before.type == "command" and _SAYS_YES.fullmatch(self.text(before)):
            return True
        said = [self.text(c) for c in cmd.named_children if c.type == "variable_assignment"]
        said += [f"{k}={v}" for k, v in self.env.items() if k in _NO_PROMPT_ENV]
        said += [w for w in self.argv(cmd)[0] if "=" in w]  # `env CLOUDSDK_CORE_DISABLE_PROMPTS=1 gcloud`
        return any(
            _NO_PROMPT_ENV.get(w.split("=")[0]) == w.split("=", 1)[1].strip("\"'").lower() for w in said
        )

    def unasked_deletes(self, name: str) -> None:
        """`gh repo list` … `gh repo delete "$r" --yes`; `terraform workspace list` … `terraform
        apply -destroy -auto-approve`: a delete run on what the tool's listing found, every prompt off."""
        if name not in self.accounts:
            return
        for _, line, cmd in [d for d in self.deletes if d[0] == name]:
            said = f"deletes what `{self.accounts[name]}` lists, without asking ({cmd})"
            self.flow("destruction", "high", line, said, None)
            self.wiped += 1
        self.deletes = [d for d in self.deletes if d[0] != name]

    def in_body(
        self, words: list[str], nodes: list[Any], dest: str | None, src: Source, sev: str, text: str
    ) -> tuple[Source, str, str]:
        """A GitHub token put into what a request to GitHub carries (JSON data, a form field, an
        issue's body) rather than its Authorization header: whoever reads what the request creates
        (a public gist, an issue on their repository) reads the token. Else (src, sev, text)."""
        opts = _GH_BODY if _base(words[0]) == "gh" else _CURL_BODY
        for i, n in enumerate(nodes[1:], 1):
            if words[i - 1] not in opts and words[i].split("=", 1)[0] not in opts - {"-f", "-F", "-b"}:
                continue
            t = self.taint_of(n)
            if (
                sev == "medium"
                and t
                and dest
                and own_service(t.what, dest)
                and own_service(t.what, "api.github.com")
            ):
                return t, "high", f"reads {t.what} and puts it into the body of a request to {dest}"
        return src, sev, text

    def carried(self, to: str, nodes: list[Any]) -> Source | None:
        """The secret a command carries to `to`: in its arguments, or (a package published) a
        credential copied into what it publishes."""
        src = None
        if to in REGISTRIES.values():
            # copied in, or written to a file of the working tree (`cat ~/.netrc > src/blob.txt`)
            kept = (s for p, s in self.staged_paths.items() if not outside_tree(p))
            src = self.staged or next(kept, None)
        # a folder a credential was copied into, handed over whole (`gh gist create "$d"/*`)
        said = [w for n in nodes[1:] for w in (self.text(n), self.word(n)) if w]
        held = (s for w in said for p, s in self.staged_paths.items() if _holds(w, p))
        return src or next((t for n in nodes[1:] if (t := self.taint_of(n))), None) or next(held, None)

    def stage(self, name: str, words: list[str], line: int) -> None:
        """`cp ~/.aws/credentials notes/`, `zip -r /tmp/b.zip ~/.ssh`, `tar czf b.tgz ~/.ssh`: the
        credential is staged (for a later `git push`) and its copy is a credential too."""
        if name == "cat":
            return
        archive = name in ("zip", "7z", "tar")
        args = [w for w in words[1:] if not w.startswith("-")]
        dest: str | None
        if name == "tar":
            # `tar -czf OUT ...`, `tar czf OUT ...` (old-style options), `tar --file=OUT`
            dest = next((w.split("=", 1)[1] for w in words if w.startswith("--file=")), None)
            for i, w in enumerate(words[1:-1], 1):
                bundle = w.startswith("-") and not w.startswith("--") or (i == 1 and w.isalpha())
                if dest is None and bundle and "f" in w:
                    dest = words[i + 1]
        elif name == "7z":
            dest = args[1] if len(args) > 1 else None
        elif name == "zip":
            dest = args[0] if args else None
        else:
            dest = words[-1]
        for w in words[1:] if archive else words[1:-1]:
            if w.startswith("-") or w == dest or not (s := secret_path(w)):
                continue
            how = f"copies {s} to {dest} with {name}" if dest else f"copies {s} with {name}"
            src = Source(s, line, True, how=how)
            if self.staged is None:
                self.staged = src
            if dest and dest != "-" and len(self.staged_paths) < 64:
                self.staged_paths.setdefault(dest.rstrip("/"), src)
            return

    def git(self, words: list[str], line: int, nodes: list[Any]) -> None:
        """`git remote add NAME URL` (a secret in the URL goes out when git talks to the remote), `git
        add` in or of a credential folder, `git push` of what was staged."""
        args, here = words[1:], self.cwd
        dirs: set[str] = set()
        while len(args) > 2 and args[0] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace"):
            # git's own options before the subcommand (`-C DIR`, `--git-dir DIR`, `-c k=v`)
            if args[0] == "-C":
                here = self.secret(args[1], line)
            if args[0] in ("-C", "--git-dir"):
                dirs.add(args[1].rstrip("/"))
            args = args[2:]
        while args and args[0].startswith(("--git-dir=", "--work-tree=", "--no-pager", "--bare")):
            args = args[1:]
        if (
            args[:1] in (["checkout"], ["switch"])
            and "--orphan" in args
            or args[:1] == ["rm"]
            and any(re.fullmatch(r"-\w*r\w*", w) for w in args)
            and any(w in (".", "*", ":/") for w in args)
            or args[:2] == ["update-ref", "-d"]
            or args[:2] == ["read-tree", "--empty"]
            or args[:1] == ["commit-tree"]
            and bool(_EMPTY_TREE.search(" ".join(self.text(n) for n in nodes)))
        ):
            self.emptied = self.emptied or line
        if args[:1] == ["init"] and "--bare" in args and len(self.blank) < 16:
            self.blank |= {w.rstrip("/") for w in args[1:] if not w.startswith("-")}
        if args[:1] == ["push"] and "--mirror" in args and dirs & self.blank:
            # an empty repository mirrored over a remote deletes every branch and tag there
            self.emptied = self.emptied or line
        if (
            "push" in args
            and self.emptied is not None
            and any(
                w == "--mirror" or w.startswith(("--force", "+")) or re.fullmatch(r"-[a-z]*f[a-z]*", w)
                for w in args[args.index("push") + 1 :]
            )
        ):
            self.flow(
                "destruction",
                "high",
                line,
                "empties the repository's history and force-pushes it over the remote's",
                None,
            )
            self.emptied = None
        talks = args[:1] in (["push"], ["fetch"], ["pull"], ["ls-remote"]) or args[:2] == ["remote", "update"]
        # the remote named, `origin` when none is, every remote for `git remote update`
        named = [w for w in args[1:] if not w.startswith("-")][:1] or ["origin"]
        named = list(self.remote_secrets) if args[:1] == ["remote"] else named
        if talks and (hit := next((r for r in named if r in self.remote_secrets), None)) is not None:
            sev, text = sent(self.remote_secrets[hit], self.remotes[hit])
            self.flow("secret-network", sev, line, text, self.remote_secrets[hit])
        if args[:1] == ["config"]:
            # `git config url."https://u:$T@host/".insteadOf https://github.com/`: git sends it there
            key = next((i for i, w in enumerate(args) if _INSTEAD_OF.match(w)), None)
            instead = args[key + 1] if key is not None and key + 1 < len(args) else None
            self.logins(" ".join(self.text(n) for n in nodes), line, instead)
            base = args[key].split(".", 1)[1].rsplit(".", 1)[0] if key is not None else ""
            base, other = _rewrite_place(base), _rewrite_place(instead or "")
            if all("." in host_of(u) for u in (base, other)) and base != other:
                # every clone, fetch and push of the other place's repositories goes to this one
                said = f"tells git to send what is meant for {other} to {base} (clones, pushes and the logins for them)"
                self.flow("secret-network", "high", line, said, None)
        if args[:2] in (["remote", "add"], ["remote", "set-url"]) and len(args) >= 4:
            self.remotes[args[2]] = args[3]
            k = len(words) - len(args) + 3  # the URL's node
            if k < len(nodes) and (src := self.taint_of(nodes[k])) is not None:
                self.remote_secrets[args[2]] = src
            else:  # a clean URL replaces a tainted one
                self.remote_secrets.pop(args[2], None)
        elif args[:1] in (["add"], ["notes"], ["commit"], ["tag"]) and self.staged is None:
            if args[0] == "add":
                given = [w for w in args[1:] if not w.startswith("-")]
            else:  # `git notes add -F FILE`, `git commit -m "$TOKEN"`: the message goes into the repository
                given = [
                    v
                    for w, v in zip(args, args[1:], strict=False)
                    if w in ("-F", "--file", "-m", "--message")
                ] + [w.split("=", 1)[1] for w in args if w.startswith(("--file=", "--message="))]
            named = next((s for w in given if (s := self.secret(w, line))), None)
            src = named or (here if args[0] == "add" else None)
            if src is not None:
                self.staged = Source(src.what, line, True, src.steps(), f"adds {src.what} to a git commit")
        elif "push" in args and self.staged is not None:
            after = [w for w in args[args.index("push") + 1 :] if not w.startswith("-")]
            dest = _dest(words) or (self.remotes.get(after[0]) if after else None)
            dest = (
                dest
                or (self.remotes.get("origin") if len(self.remotes) else None)
                or "the repository's remote"
            )
            self.flow(
                "secret-network",
                "critical",
                line,
                f"pushes {self.staged.what} with git to {dest}",
                self.staged,
            )

    def find(self, words: list[str], line: int) -> None:
        """`find ROOTS ... -delete` / `-exec rm|shred` over the home directory or its data folders."""
        roots = []
        for w in words[1:]:
            if w.startswith(("-", "(", "!")):
                break
            roots.append(w)
        tail = words[1 + len(roots) :]
        kills = "-delete" in tail or any(
            w in ("-exec", "-execdir", "-ok", "-okdir") and _erases(tail[i + 1 :]) for i, w in enumerate(tail)
        )
        if not kills:
            return
        for r in roots:
            # `find ~/Downloads -name '*.part' -delete` removes chosen files, not the folder's contents;
            # an age alone picks nothing out of a whole home or system tree (what is kept longest is oldest)
            if destroys(r) and not _narrows(tail, by_age=not DESTROY_TARGET.match(r.rstrip("/") or "/")):
                self.flow("destruction", "high", line, f"deletes every matching file under {r}", None)
                return

    def inline_code(self, name: str, words: list[str], nodes: list[Any], line: int) -> None:
        """`node -e CODE` / `python -c CODE`: the program on the command line is read as code, with
        the words after it as its arguments (`process.argv[1]`, `sys.argv[1]`): a literal is
        that text, a word holding a secret is that secret."""
        if self.depth >= MAX_DEPTH or len(words) < 3:
            return
        js = name in ("node", "nodejs", "bun", "deno") and words[1] in _JS_EVAL
        if not js and not (name.startswith("python") and words[1] == "-c"):
            return
        given: dict[str, Source] = {}

        def arg(m: re.Match[str]) -> str:
            k = 2 + int(m.group(1))
            if k < 3 or k >= min(len(words), len(nodes)):
                return m.group(0)
            if (src := self.taint_of(nodes[k])) is not None and len(given) < 8:
                var = f"SY_SECRET_{len(given)}"
                given[var] = src
                return f"process.env.{var}" if js else f"__import__('os').environ[{var!r}]"
            return json.dumps(words[k]) if "$" not in self.text(nodes[k]) else m.group(0)

        code = re.sub(r"process\.argv\[(\d{1,2})\]" if js else r"\bsys\.argv\[(\d{1,2})\]", arg, words[2])
        if js:
            from skillyard.install.scanner import _js

            got = _js.analyse(code)
        else:
            from skillyard.install.scanner import _python

            got = _python.analyse(code)
        if got is not None:
            got.assembled.clear()
            got.shell.clear()
            if given:
                from skillyard.install.scanner import _with_stand_ins

                got.flows = [_with_stand_ins(fl, given) for fl in got.flows]
            self.facts.extend(got, line - 1)

    def runs_fetched(self, name: str, words: list[str], nodes: list[Any], line: int) -> None:
        """`X=$(curl URL); eval "$X"` (or `bash -c "$X"`, `python3 -c "$X"`, `node -e "$X"`): the
        downloaded text is run as code."""
        if not self.fetched or len(words) < 2:
            return
        at = 1 if name == "eval" else None
        if name in _SHELLS | {"perl", "ruby", "php", "bun", "deno"} or name.startswith(("python", "node")):
            at = next((i + 1 for i, w in enumerate(words[:-1]) if i and w in _CODE_FLAGS), None)
        if at is None or at >= len(nodes):
            return
        # the program is the variable itself, not code with a value (`'$sub'`) put into it
        got = re.fullmatch(r"([\"']?)\$\{?(\w+)\}?\1", self.text(nodes[at]))
        if got and got[2] in self.fetched:
            url, dline = self.fetched[got[2]]
            said = f"downloads {url} into ${got[2]} and runs it as code"
            self.flow("download-exec", "critical", line, said, Source(f"downloads {url}", dline, True))

    def flow(self, kind: str, sev: str, line: int, text: str, src: Source | None) -> None:
        self.facts.flows.append(flow(kind, sev, line, text, src))

    def sourced(self, words: list[str], line: int) -> None:
        """`source lib.sh` / `. lib.sh`: the other file's variables, secrets and functions arrive here."""
        if self.project is None or len(words) < 2:
            return
        exp = self.project.get(self.project.shell_file_path(self.rel, words[1]))
        if exp is None or exp.file == self.rel:
            return
        self.env.update(exp.consts)
        for k, src in exp.taint.items():
            self.taint[k] = src.moved(exp.file, line, f"gets {src.what} from {words[1]}")
        for k, (src_bytes, body, tree) in exp.shell_funcs.items():
            self.funcs[k] = (src_bytes, body, tree, exp.file)

    def _sub(self, src_bytes: bytes, where: str | None) -> _Reader:
        sub = _Reader(src_bytes, self.depth + 1, self.project, where or self.rel)
        sub.calls_read, sub.read_calls = self.calls_read + 1, self.read_calls
        return sub

    def _walk_sub(self, sub: _Reader, body: Any) -> None:
        sub.walk(body)
        self.calls_read = sub.calls_read
        self.facts.unread = self.facts.unread or sub.facts.unread

    def call(self, name: str, nodes: list[Any], line: int) -> None:
        """A call to a shell function with a secret in its arguments: read the body with `$N` holding it."""
        src_bytes, body, tree, where = self.funcs[name]
        given = {str(i): w for i, n in enumerate(nodes[1:9], 1) if (w := self.word(n)) is not None}
        key = (name, tuple(given.items()))
        handed = key not in self.read_calls and any(
            DESTROY_TARGET.match(w.rstrip("/") or "/") for w in given.values()
        )
        # the parameters handed a secret, by position: the body is read once per function and position
        secrets = [
            (name, (("secret", str(i)),))
            for i, n in enumerate(nodes[1:], 1)
            if (src := self.taint_of(n)) is not None and not src.what.startswith(PARAM)
        ]
        if self.depth >= MAX_DEPTH or self.calls_read >= MAX_CALLS_READ:
            # what the body does with the folder or the secret is not known: a finding, never a silent stop
            what = "a top folder" if handed else "a secret" if set(secrets) - self.read_calls else None
            if what:
                self.facts.unread = self.facts.unread or (
                    f"shell functions handed {what} past what the reader follows ({MAX_CALLS_READ} "
                    f"calls, {MAX_DEPTH} deep)"
                )
            return
        self.read_calls.update(secrets)
        if handed:
            # `purge "$HOME"`: the body read with `$1` holding the folder, for what it deletes there
            self.read_calls.add(key)
            sub = self._sub(src_bytes, where)
            sub.env = {**self.env, **given}
            sub.funcs = {k: v for k, v in self.funcs.items() if k != name}
            self._walk_sub(sub, body)
            for fl in sub.facts.flows:
                if fl.kind == "destruction":
                    steps = ((line, f"passes it to {name}()", None), (fl.line, fl.text, where))
                    self.facts.flows.append(
                        Flow(fl.kind, fl.severity, line, f"{fl.text} (through {name}())", steps)
                    )
        for i, n in enumerate(nodes[1:], 1):
            src = self.taint_of(n)
            if src is None or src.what.startswith(PARAM):
                continue
            sub = self._sub(src_bytes, where)
            sub.env = dict(self.env)
            sub.funcs = {k: v for k, v in self.funcs.items() if k != name}
            sub.taint = {str(i): Source(f"{PARAM}{i}", line, False)}
            self._walk_sub(sub, body)
            for fl in sub.facts.flows:
                marker = f"{PARAM}{i}"
                if marker not in fl.text:
                    continue
                said = fl.text.replace(marker, src.what)
                sev = "critical" if fl.kind == "secret-network" and src.strong else fl.severity
                steps = (*src.steps(), (line, f"passes it to {name}()", None), (fl.line, said, where))
                self.facts.flows.append(Flow(fl.kind, sev, line, f"{said} (through {name}())", steps))
            return


#: `find` tests of a file's name or path, and all tests that pick some files out of a tree (a
#: deletion then is a clean-up, not a wipe).
_NAME_TESTS = {"-name", "-iname", "-path", "-ipath", "-wholename"}
_NARROWING = _NAME_TESTS | {"-regex", "-iregex", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-newer"}
_NARROWING |= {"-size", "-empty", "-user", "-links"}
_AGE_TESTS = {"-mtime", "-mmin", "-atime", "-amin", "-ctime", "-newer"}
#: Programs that delete or overwrite the files `find -exec` hands them.
#: Values that are, or list, the machine's disks.
#: Package managers' fetching subcommands, their index options, and the index each asks by default.
_FETCHERS = {
    "pip": ({"download", "install", "wheel"}, "https://pypi.org"),
    "pip3": ({"download", "install", "wheel"}, "https://pypi.org"),
    "uv": ({"add", "pip"}, "https://pypi.org"),
    "npm": ({"install", "i", "add", "view", "pack"}, "https://registry.npmjs.org"),
    "pnpm": ({"add", "install", "i"}, "https://registry.npmjs.org"),
    "yarn": ({"add"}, "https://registry.yarnpkg.com"),
    "gem": ({"install", "fetch"}, "https://rubygems.org"),
    "cargo": ({"install", "add"}, "https://crates.io"),
}
_INDEX_OPTIONS = frozenset(
    {"-i", "--index-url", "--extra-index-url", "--index", "--default-index", "--registry", "--source", "-s"}
)


def _package_fetch(words: list[str]) -> str | None:
    """The index a package manager's fetch asks (`--index-url URL`, else its default), or None."""
    if len(words) > 3 and re.fullmatch(r"python[\d.]*", _base(words[0])) and words[1:3] == ["-m", "pip"]:
        words = ["pip", *words[3:]]
    got = _FETCHERS.get(_base(words[0])) if words else None
    if got is None or len(words) < 3 or words[1] not in got[0]:
        return None
    opts = dict(zip(words, words[1:], strict=False))
    given = next((opts[o] for o in _INDEX_OPTIONS if o in opts), None)
    given = given or next((w.split("=", 1)[1] for w in words if w.split("=", 1)[0] in _INDEX_OPTIONS), None)
    return given or got[1]


#: Cloud command lines, the listings of everything an account holds, and the verbs that delete.
_CLOUD_CLIS = frozenset({"aws", "gcloud", "gsutil", "az", "kubectl", "doctl", "oci", "oc"})
#: Kubernetes kinds that hold what a cluster stores (its namespaces, volumes, claims, secrets).
_KUBE_STORES = frozenset(
    "all ns namespace namespaces pv persistentvolume persistentvolumes pvc persistentvolumeclaim"
    " persistentvolumeclaims secret secrets statefulset statefulsets".split()
)
_CLOUD_LIST = re.compile(
    r"\$\(\s*((?:aws\s+[\w-]+\s+(?:list|describe)-[\w-]+|aws\s+s3\s+ls|gsutil\s+ls|(?:gcloud|az|doctl|oci)\s+"
    r"(?:[\w-]+\s+){1,4}list|kubectl\s+get\s+(?:ns|namespaces?))\b[^)]*)"
)
_PICKS = re.compile(r"--(?:field-)?selector|\s-l\s|--filters?\b|--prefix|\?|\|")
#: A listing of everything an account holds, by a tool that can also delete it.
_ACCOUNT_LIST = re.compile(
    r"(?:(?:gh\s+api\s+(?:--?[\w-]+\s+)*/?|api\.github\.com/)(?:user|(?:orgs|users)/[^/\s]+)/repos"
    r"|gh\s+(?:repo\s+list|search\s+repos)"
    r"|(?:terraform|tofu)\s+(?:-chdir=\S+\s+)?workspace\s+list|aws\s+[\w-]+\s+(?:list|describe)-[\w-]+|aws\s+s3\s+ls"
    r"|gsutil\s+ls|(?:gcloud|az|doctl|oci)\s+(?:[\w-]+\s+){1,4}list|kubectl\s+get\s+(?:ns|namespaces?))\b"
)
#: The tools whose listings `_ACCOUNT_LIST` knows.
_LISTERS = frozenset("gh terraform tofu aws gsutil gcloud az doctl oci kubectl".split())
_NO_PROMPT = frozenset(
    {"--yes", "-y", "--confirm", "-auto-approve", "--auto-approve", "--quiet", "-q", "--force"}
)

#: Environment settings that turn a tool's prompts off, -> the value that does.
_NO_PROMPT_ENV = {"CLOUDSDK_CORE_DISABLE_PROMPTS": "1"}
#: A command that answers a prompt with yes: `yes`, `echo y`, `printf 'y\n'`.
_SAYS_YES = re.compile(
    r"yes(?:\s+['\"]?y(?:es)?['\"]?)?|(?:echo|printf)\s+(?:-e\s+)?['\"]?y(?:es)?(?:\\n)*['\"]?", re.I
)
#: GitHub's REST API named in a command line, -> the path after the host; its page options.
_GH_API = re.compile(r"https?://api\.github\.com/([^\s\"']+)")
_GH_REPO = re.compile(r"/?repos/[^/\s]+(?:/[^/\s]+)?/?")  # a repository itself, nothing in it
_PAGES = re.compile(r"[?&](?:per_page|page)=\d+")
_HTTP_DELETE = re.compile(r"(?:-X\s*|--request[=\s]|--method[=\s])['\"]?DELETE\b", re.I)

#: The options whose value is a request's body (data, a form field, an issue's text), by curl or
#: wget and by gh.
_CURL_BODY = frozenset(
    "-d --data --data-raw --data-binary --data-ascii --data-urlencode --json -F --form --form-string"
    " --post-data --body-data".split()
)
_GH_BODY = frozenset("-f --raw-field -F --field -b --body --title -t".split())

#: Pipes that only reshape a listing's lines.
_RESHAPE = re.compile(
    r"\|\s*(?:(?:tr|cut|sed\s+(?:-e\s+)?'s|sort|uniq|xargs\s+-n\s*1)\b[^|)]*"
    r"|awk\s+(?:'\{\s*print\s+\$\d+\s*\}'|\"\{\s*print\s+\\?\$\d+\s*\}\")"
    r"|jq\s+(?:-r\s+)?(?:'\.\[\](?:\s*\|\s*)?\.\w+'|\"\.\[\](?:\s*\|\s*)?\.\w+\"))|[?&](?:per_page|page)=\d+"
)


def _in_loop_of(node: Any, var: str) -> bool:
    """Whether `node` runs inside a `for` loop over the variable `var`."""
    while (node := node.parent) is not None:
        v = node.child_by_field_name("variable") if node.type == "for_statement" else None
        if v is not None and v.text.decode("utf-8", "replace") == var:
            return True
    return False


def _listing_loop(node: Any, looped: dict[str, str | None]) -> bool:
    """Whether `node` runs inside a `for` loop over everything an account lists."""
    while (node := node.parent) is not None:
        v = node.child_by_field_name("variable") if node.type == "for_statement" else None
        if v is not None and looped.get(v.text.decode("utf-8", "replace")):
            return True
    return False


def _unasked_delete(words: list[str], in_listing: bool = False) -> bool:
    """A delete with its prompt turned off (the AWS CLI asks nothing: a recursive one in a loop over
    an account listing), run on a target only known at run time (or, for terraform, in a loop over
    the workspaces it lists)."""
    args = words[1:]
    aws = _base(words[0]) == "aws" and "--recursive" in args and in_listing
    if not (aws or _NO_PROMPT & set(args)) or {"--dry-run", "--dryrun"} & set(args):
        return False
    if _base(words[0]) in ("terraform", "tofu"):
        destroys = "destroy" in args or ("apply" in args and "-destroy" in args)
        return destroys and (in_listing or any("$" in w for w in args))
    return any("$" in w for w in args) and any(_CLOUD_DELETE.fullmatch(w) for w in args[:4])


_CLOUD_DELETE = re.compile(r"rb|rm|delete(?:-[\w-]+)?|terminate-[\w-]+|destroy|remove(?:-[\w-]+)?")
_DEVICE_SOURCE = re.compile(
    r"\b(?:lsblk|blkid|findmnt|fdisk\s+-l|diskutil\s+list)\b|/sys/block\b|/proc/partitions\b|[\"'=]?/dev/(?:[shv]d|xvd|nvme|mmcblk|r?disk)"
)
#: A variable that holds a disk, alone (`$DEV`) or as the name under /dev and its partitions
#: (`/dev/$ROOTDEV`, `/dev/${DISK}p1`): `lsblk -no PKNAME` prints the bare name `sda`.
_DEVICE_REF = re.compile(r"(?:/dev/)?\$\{?(\w+)\}?(?:p?\d{1,2})?")
_DISK_TOOLS = {"wipefs", "blkdiscard", "sgdisk", "mkswap", "shred"}
_ERASERS = {"rm", "shred", "unlink", "truncate", "srm", "wipe"}
#: The system's records of logins and of what ran: erasing them hides an intrusion.
_AUDIT_LOG = re.compile(r"/var/log/(?:wtmp|btmp|lastlog|faillog|auth\.log|secure|audit/)")
_ERASE_WORD = re.compile(r"(?:^|[\s;&|(])(?:/bin/|/usr/bin/)?(?:rm|shred|unlink|srm|wipe)\s")


#: A script's `#!` line: the interpreter it names (`#!/usr/bin/env -S python3 -u` is python3).
_SHEBANG = re.compile(r"#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?([\w.-]+)")


#: `${NAME#text}`, `${NAME%text}` with a literal text (no pattern characters).
_TRIM = re.compile(r"\$\{(\w+)(##?|%%?)([^${}`*?\[\]]*)\}")


#: `${NAME:OFFSET}`, `${NAME:OFFSET:LENGTH}` with numbers (`${NAME: -2}` counts from the end).
_SLICE = re.compile(r"\$\{(\w+):\s*\(?(-?\d{1,6})\)?(?::\s*\(?(-?\d{1,6})\)?)?\}")


def _sliced(value: str | None, off: str, length: str | None) -> str | None:
    if value is None:
        return None
    i = int(off) if int(off) >= 0 else max(0, len(value) + int(off))
    if length is None:
        return value[i:]
    k = int(length)
    return value[i : i + k] if k >= 0 else value[i : len(value) + k]


#: `${NAME/text/with}`, `${NAME//text/with}` (also anchored, `/#`, `/%`) with literal texts.
_SUBST = re.compile(r"\$\{(\w+)(//?|/#|/%)([^${}`*?\[\]/]+)(?:/([^${}`*?\[\]]*))?\}")
#: `${NAME,,}`, `${NAME^^}` (and the one-letter forms): case changed.
_CASE = re.compile(r"\$\{(\w+)(,,?|\^\^?)\}")


def _substituted(value: str | None, op: str, old: str, new: str | None) -> str | None:
    if value is None:
        return None
    new = new or ""
    if op == "/#":
        return new + value[len(old) :] if value.startswith(old) else value
    if op == "/%":
        return value[: -len(old)] + new if value.endswith(old) else value
    return value.replace(old, new) if op == "//" else value.replace(old, new, 1)


def _trimmed(value: str | None, op: str, cut: str) -> str | None:
    if value is None:
        return None
    return value.removeprefix(cut) if op.startswith("#") else value.removesuffix(cut)


#: A URL with a user part (`https://user:${TOKEN}@host/`): what is in the user part is sent to the host.
_USER_URL = re.compile(r"\b[a-z][\w+.-]*://([^\s/@'\"]*)@([^\s/'\"]+)", re.I)
#: A program looked up before use, the script going on only when it is there: `command -v NAME
#: || exit 1`, `if ! which NAME`, `type -p NAME && ...` (a lookup whose answer is ignored checks nothing).
_LOOKUP = r"(?:command\s+-v|which|type\s+-[pP]|hash)\s+([\w.+-]+)"
_CHECKED = re.compile(
    rf"\bif\s+!?\s*{_LOOKUP}|\b{_LOOKUP}[^\n;]*?(?:\|\|\s*(?:\{{[^}}\n]*?)?\b(?:exit|return)\b|&&)"
)
#: A folder of programs named outside a shebang or an `Exec` line: a program the script puts there
#: (`cp`, `install`, a download, a link, through a variable) is what a name or path then starts.
_PLACES_BIN = re.compile(
    r"(?m)^(?!#!|[ \t]*Exec)[^\n]*(?:\.local/bin|(?:~|HOME\}?)/bin|(?<![\w.-])/(?:usr/(?:local/)?|opt/\w+/)?s?bin)\b"
)
#: Settings that name a program a tool runs on its own later (git's credential helper, ssh command,
#: pager, diff and filter drivers; the AWS CLI's `credential_process`; a kubeconfig's exec plugin;
#: Go's `-toolexec`), as set by the tools' own commands.
_HELPER_KEY = re.compile(
    r"(?i)^(?:credential(?:\..+)?\.helper|core\.(?:sshcommand|pager|editor|fsmonitor)|(?:diff|filter|merge)\..+"
    r"\.(?:textconv|command|clean|smudge|process|driver)|diff\.external|gpg(?:\.\w+)?\.program|sequence\.editor"
    r"|pager\.\w+|(?:profile\.[\w.-]+\.)?credential_process)$"
)
#: Folders the system's and package managers' programs live in.
_SYSTEM_BIN = re.compile(r"^/(?:usr|bin|sbin|opt/homebrew|opt/local|snap|nix|Applications|Library|System)/")


def _helper_set(name: str, words: list[str]) -> tuple[str, str] | None:
    """(tool, program) when a command sets a tool to run a program that is not the system's: one
    under home, a temporary folder, the skill's folder or a path held in a variable (the helper a
    skill ships or writes runs whenever the tool does)."""
    args = [w for w in words[1:] if not w.startswith("-") or "=" in w]
    value = None
    if name == "git" and args[:1] == ["config"] and len(args) >= 3 and _HELPER_KEY.match(args[1]):
        tool, value = "git", args[2].lstrip("!")
    elif name == "aws" and args[:2] == ["configure", "set"] and len(args) >= 4 and _HELPER_KEY.match(args[2]):
        tool, value = "the AWS CLI", args[3]
    elif name in ("kubectl", "oc") and args[:2] == ["config", "set-credentials"]:
        tool, value = "kubectl", _option(words, "--exec-command")
    elif name == "go" and args[:2] == ["env", "-w"] or name == "go" and "-w" in words[1:3]:
        tool = "go"
        value = next((m[1] for w in words if (m := re.search(r"-toolexec[= ]['\"]?(\S+)", w))), None)
    if not value:
        return None
    prog = value.strip("\"' ").split()[0] if value.strip("\"' ") else ""
    if "/" not in prog or _SYSTEM_BIN.match(prog):
        return None
    return tool, prog


#: git's empty tree, named by its hash or made from nothing (`git hash-object -t tree /dev/null`)
_EMPTY_TREE = re.compile(
    r"\b4b825dc642cb6eb9a060e54bf8d69288fbee4904\b|\bhash-object\b[^|;&]*-t\s+tree\b[^|;&]*/dev/null"
)


def _rewrite_place(url: str) -> str:
    """A URL rewrite's side as host and path (`git@github.com:psf/`, `ssh://git@github.com:22/psf`
    and `https://github.com/psf/` are all `github.com/psf`): an SSH/HTTPS swap is the same place,
    another owner's path on the same host is not."""
    url = url.strip("\"'")
    rest = re.sub(r"^(?:[a-z+]+://)?(?:[^/@\s]*@)?", "", url, flags=re.I)
    if "://" in url:
        rest = re.sub(r"^([^/:]+):\d+(?=/|$)", r"\1", rest)
    return rest.replace(":", "/", 1).rstrip("/").lower()


#: git's URL rewrites (`url.<base>.insteadOf <other>`): requests for <other> go to <base>.
_INSTEAD_OF = re.compile(r"(?i)^url\..+\.(?:push)?insteadof$")


def _site(host: str) -> str:
    """The registered name of `host` (`api.github.com` -> `github.com`), roughly: the last two labels."""
    return ".".join(host.split(".")[-2:])


#: Package tools' settings that log in to a registry (`npm config set //host/:_authToken T`).
_LOGIN_KEY = re.compile(r"^(//[^\s]+?):_(?:authToken|auth|password|username)$")


def _glued(node: Any) -> Any:
    """The word the grammar split off `node` (`$D/$` + `T/x` for `$D/$T/x`), or None."""
    nxt = node.next_sibling
    if node.type != "concatenation" or not node.children or node.children[-1].type != "$" or nxt is None:
        return None
    return nxt if nxt.type in ("word", "concatenation") and nxt.start_byte == node.end_byte else None


def _erases(cmd: list[str]) -> bool:
    """`rm -rf {}`, or a shell handed a script that erases (`sh -c 'rm -rf "$1"' _ {}`)."""
    if not cmd:
        return False
    if _base(cmd[0]) in _ERASERS:
        return True
    return (
        _base(cmd[0]) in _SHELLS
        and len(cmd) > 2
        and cmd[1] in ("-c", "-lc")
        and bool(_ERASE_WORD.search(cmd[2] + " "))
    )


def _narrows(tail: list[str], by_age: bool = True) -> bool:
    """A `find` test that picks some files out (`-name '*.part'`, `-mtime +7`); a negated test
    (`! -name .ssh`, `-not -path ...`) or a pattern of wildcards only (`-name '.*'`) picks out
    everything else, and so does a name test or'ed with one that matches anything (`\\( -name
    '*.log' -o -name '*' \\)`), or a size any non-empty file has (`-size +0c`, `-size +$LIMIT`)."""
    wild = [
        i + 1 < len(tail) and re.fullmatch(r"[*?.\[\]!]*", tail[i + 1].strip("'\"")) is not None
        for i, w in enumerate(tail)
    ]
    catch_all = any(w in ("-o", "-or") for w in tail) and any(
        wild[i] for i, w in enumerate(tail) if w in _NAME_TESTS
    )
    for i, w in enumerate(tail):
        if w not in _NARROWING or i + 1 >= len(tail) or wild[i] or (catch_all and w in _NAME_TESTS):
            continue
        if not by_age and w in _AGE_TESTS:
            continue
        if i > 0 and tail[i - 1] in ("!", "-not", "\\!"):
            continue
        if w == "-size" and re.fullmatch(r"\+(?:0+[bckwMG]?|\D.*)", tail[i + 1]):
            continue
        return True
    return False


#: Options of package publishers that take a value (`npm publish --access public`).
_OPTION_VALUE = frozenset(
    "--access --tag --otp --registry --workspace -w --repository -r --repository-url --config-file "
    "--username -u --password -p --comment -c --identity -i --sign-with --token --index".split()
)
#: Commands that run the command after them (their own options skipped).
_WRAPPERS = {"sudo", "doas", "nohup", "env", "command", "exec", "time", "nice", "ionice", "setsid", "stdbuf"}
_XARGS_ARG = {"-I", "-i", "-n", "-P", "-d", "-L", "-l", "-s", "-E", "-e", "-a"}


def _xargs(words: list[str]) -> list[str]:
    """The command `xargs` runs with what it reads (`xargs -I{} nslookup {}.zone`)."""
    i = 1
    while i < len(words):
        w = words[i]
        if w in _XARGS_ARG:
            i += 2
        elif w.startswith("-"):
            i += 1
        else:
            break
    return words[i:]


def _home_listing(words: list[str]) -> str | None:
    """`ls -A ~` / `find "$HOME" -maxdepth 1`: a listing of the home directory or a data folder in it."""
    if not words or _base(words[0]) not in ("ls", "find"):
        return None
    roots = [w for w in words[1:] if not w.startswith(("-", "!", "("))]
    if _base(words[0]) == "find":
        tail = words[1:]
        if _narrows(tail):
            return None
    return next((r for r in roots if destroys(r)), None)


def _commands(node: Any) -> list[Any]:
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "command":
            out.append(n)
        stack.extend(reversed(n.children))
    return out


#: Programs that run what they read on standard input.
_RUNS_STDIN = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "php"}
)


#: Where Docker, BuildKit and Kubernetes mount a container's secrets (`RUN --mount=type=secret`).
_MOUNTED_SECRET = re.compile(r"^(?:/var)?/run/secrets(?:/\S|/?$)")
#: The end of a placeholder in a documented command (`<KEY> `, `<user-name>@`): its `>` is not a redirection.
_PLACEHOLDER = re.compile(r"(?<![<\w])<(?:[A-Z][A-Z0-9_]*|[a-z]+[-_][\w-]*)>[\s@:]$")
#: Parts of a command that are not its words.
_NOT_WORDS = frozenset({"variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect"})
#: Options of node, bun and deno that run the program given on the command line.
_JS_EVAL = frozenset({"-e", "--eval", "-p", "--print", "eval"})
#: The options after which an interpreter or a shell takes its program as the next word.
_CODE_FLAGS = _JS_EVAL | {"-c", "-lc", "-ic", "-E", "-r"}
#: `X=$(curl ... URL)` / `X="$(wget -qO- URL)"`: the variable holds what was downloaded
#: (not a status code or headers: `curl -s -o /dev/null -w "%{http_code}" URL`)
_FETCHED = re.compile(
    r'"?(?:\$\(|`)\s*(?:command\s+)?((?:curl|wget)\b(?![^|;&)`]*\s(?:-o|--output|-w|--write-out|-I|--head)\s)[^|;&)`]*)\)?"?\s*$'
)
_URL = re.compile(r"\w+://[^\s\"')]+")
_ROT13_SETS = ({"a-zA-Z", "n-za-mN-ZA-M"}, {"A-Za-z", "N-ZA-Mn-za-m"}, {"a-z", "n-za-m"})


def _unescape(body: str) -> str | None:
    """Backslash escapes as `echo -e` and printf's format read them (`\\x63`, `\\143`, `\\n`)."""
    try:
        body = re.sub(r"\\([0-7]{1,3})", lambda m: chr(int(m.group(1), 8)), body)
        return body.encode("latin-1", "replace").decode("unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None


_PRINTF_SPEC = re.compile(r"%[%sbcd]")


def _printf(args: list[str]) -> str | None:
    """What `printf FORMAT ARGS...` prints when the format holds only `%s`, `%b`, `%c`, `%d`, `%%`
    (`printf 's%s' h` is `sh`); the format is reused while arguments remain, as printf does."""
    fmt = _unescape(args[0]) if args and not re.search(r"%(?![%sbcd])", args[0]) else None
    if fmt is None:
        return None
    rest, out = list(args[1:]), []

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "%%":
            return "%"
        v = rest.pop(0) if rest else ""
        if m.group(0) == "%c":
            return v[:1]
        return (_unescape(v) or v) if m.group(0) == "%b" else v

    while True:
        out.append(_PRINTF_SPEC.sub(one, fmt))
        if not rest or not _PRINTF_SPEC.search(fmt.replace("%%", "")):
            return "".join(out)


def _decode_filter(words: list[str], text: str) -> str | None:
    """What a decoding filter (`base64 -d`, `rev`, `xxd -r -p`, a rot13 `tr`) makes of constant text."""
    if not words or len(text) > 64 * 1024:
        return None
    name = _base(words[0])
    if name == "base64" and any(w in ("-d", "--decode", "-D") for w in words[1:]):
        return unbase64("".join(text.split()), "utf-8")
    if name == "rev":
        return "\n".join(line[::-1] for line in text.split("\n"))
    if name == "xxd" and "-r" in words and any(w.startswith("-p") for w in words):
        return unhex("".join(text.split()), "utf-8")
    if name == "tr" and len(words) == 3 and {words[1], words[2]} in _ROT13_SETS:
        return codecs.decode(text, "rot13")
    return None


def _unwrap(words: list[str], nodes: list[Any]) -> tuple[list[str], list[Any]]:
    """`sudo tee FILE`, `nohup curl ...`, `env A=1 cmd`: the command a wrapper runs is the command."""
    while len(words) > 1 and _base(words[0]) in _WRAPPERS:
        k = 1
        while k < len(words) and (words[k].startswith("-") or (_base(words[0]) == "env" and "=" in words[k])):
            k += 1
        if k >= len(words):
            break
        words, nodes = words[k:], nodes[k:]
    return words, nodes


def _uploads(words: list[str]) -> tuple[list[str], str] | None:
    """Commands that upload the files they name to storage or a share: (the files, where to)."""
    if len(words) < 3:
        return None
    name, args = _base(words[0]), [w for w in words[1:] if not w.startswith("-")]
    if name == "gh" and words[1:3] == ["gist", "create"]:
        return args[2:], "a GitHub gist"
    if name in ("gh", "glab") and words[1:3] == ["release", "upload"]:
        return args[3:], "a GitHub release" if name == "gh" else "a GitLab release or job artifact"
    if name in ("aws", "gsutil", "gcloud", "azcopy") and any(
        w.startswith(("s3://", "gs://", "https://")) for w in args
    ):
        dest = next(w for w in args if w.startswith(("s3://", "gs://", "https://")))
        return [w for w in args if w != dest], dest
    if name == "az" and "upload" in words:
        files = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--file", "-f", "--source", "-s")]
        return files, "Azure storage"
    if name == "rclone" and len(args) >= 3 and args[0] in ("copy", "sync", "move", "copyto", "moveto"):
        return args[1:-1], args[-1]
    if name in ("wormhole", "croc", "ffsend") and args[:1] in (["send"], ["upload"]):
        return args[1:], f"a {name} transfer"
    return None


def _holds(arg: str, path: str) -> bool:
    """Whether the argument `arg` names `path` or a folder (or a glob of one) that holds it."""
    a = arg.replace('"', "").replace("'", "").rstrip("*").rstrip("/")
    p = path.replace('"', "").replace("'", "")
    if a in (".", "./") and not p.startswith(("/", "~", "$")):
        return True  # the working folder holds every relative path
    return bool(a) and (p == a or p.startswith(a + "/"))


#: Options of `docker build` (and its kin) that take a value: what follows them is not the context.
_BUILD_VALUE = frozenset(
    "-f --file -t --tag --build-arg --target --platform --secret --label --network --progress -o --output "
    "--cache-from --cache-to --ssh --iidfile --add-host --build-context --shm-size -m --memory".split()
)


def _image_context(words: list[str]) -> str | None:
    """The build context of `docker build`/`docker buildx build`/`podman build`/`buildah bud`."""
    name, args = _base(words[0]), words[1:]
    if name not in ("docker", "podman", "buildah", "nerdctl"):
        return None
    while args[:1] in (["buildx"], ["image"], ["builder"]):
        args = args[1:]
    if args[:1] not in (["build"], ["bud"]):
        return None
    given = [
        w for i, w in enumerate(args[1:], 1) if not w.startswith("-") and args[i - 1] not in _BUILD_VALUE
    ]
    return given[-1] if given else None


def _publishes(words: list[str]) -> str | None:
    """Where a command carries what is put into it: a package registry (`npm publish`, `twine
    upload`), an issue or pull request (`gh issue create --body`, `gh api -f`, `glab mr create`), or
    the URL a git command talks to."""
    name, args = _base(words[0]), words[1:]
    if name in REGISTRIES and args[:1] in (["publish"], ["upload"], ["push"]):
        return REGISTRIES[name]
    if name in ("gh", "glab") and (
        args[:1] == ["api"] or args[1:2] in (["create"], ["comment"], ["edit"], ["note"], ["upload"])
    ):
        return "the GitHub API" if name == "gh" else "the GitLab API"
    if name == "git" and args[:1] in (["push"], ["clone"], ["fetch"], ["pull"], ["ls-remote"]):
        return next((w for w in args if "://" in w or "@" in w), None)
    return None


def _serves(words: list[str]) -> str | None:
    """`python3 -m http.server`, `php -S`, `npx http-server DIR`, `busybox httpd -h DIR`: the folder
    served ("" for the current one), or None when the command serves nothing."""
    name = _base(words[0])
    if name.startswith("python") and "-m" in words and "http.server" in words:
        for flag in ("--directory", "-d"):
            if flag in words[:-1]:
                return words[words.index(flag) + 1]
        return ""
    if name == "php" and "-S" in words:
        return words[words.index("-t") + 1] if "-t" in words[:-1] else ""
    if name in ("npx", "http-server", "serve") and ("http-server" in words or name == "serve"):
        rest = [w for w in words[1:] if not w.startswith("-") and w not in ("http-server", "serve")]
        return rest[0] if rest else ""
    if name == "busybox" and "httpd" in words:
        return words[words.index("-h") + 1] if "-h" in words[:-1] else ""
    return None


#: A Bot API URL whose only variable is the bot's token in its slot (`api.telegram.org/bot$T/…`).
_BOT_SLOT = re.compile(r"https://api\.telegram\.org/bot\$(?:\w+|\{\w+\})/[^$`]*")
#: Options that print the request, credentials included (`curl -v`, `--trace`).
_ECHOES = re.compile(r"--verbose|--trace(?:-ascii)?|--debug|-[a-zA-Z]*v[a-zA-Z]*")


def _answered(words: list[str], src: Source) -> bool:
    """Whether `words` send `src` to its own service, so what they print is that service's answer
    and not the credential (`curl -H "Authorization: $PEXELS_API_KEY" https://api.pexels.com/…`);
    an option that prints the request as well keeps it."""
    dest = (_dest(words) or "").strip("\"'") if words and _base(words[0]) in ("curl", "wget") else ""
    return (
        bool(dest)
        and (named_for(src.what, dest) or bool(own_service(src.what, dest)))
        and not any(_ECHOES.fullmatch(w) for w in words[1:])
    )


#: A program given on the command line that reads its standard input, and a network client in it
_CODE_STDIN = re.compile(
    r"process\.stdin|\bsys\.stdin|\bSTDIN\b|\$stdin\b|readFileSync\(\s*(?:0\b|['\"]/dev/stdin)|Deno\.stdin|Bun\.stdin|php://stdin"
)
_CODE_NET = re.compile(
    r"""require\(\s*['"](?:node:)?(?:https?|net|tls|dgram|http2)['"]|\bfetch\s*\(|\burllib|\brequests\.|\bhttpx\b"""
    r"""|\bhttp\.client|\bsocket\b|\bsmtplib\b|Net::(?:HTTP|SMTP)|IO::Socket|LWP::|HTTP::Tiny|\bcurl_exec\b|fsockopen"""
)
_CODE_HOST = re.compile(r"""\w+://[^\s"'`)]+|\bhost(?:name)?['"]?\s*[:=]>?\s*['"]([^'"]+)""")


def _code_sends_stdin(words: list[str]) -> str | None:
    """`... | node -e CODE` (`python3 -c`, `perl -e`, `ruby -e`, `php -r`) where CODE reads its
    standard input and talks to the network: where it sends what it is fed."""
    name = _base(words[0])
    if not (name in ("perl", "ruby", "php", "bun", "deno") or name.startswith(("python", "node"))):
        return None
    at = next((i + 1 for i, w in enumerate(words[:-1]) if i and w in _CODE_FLAGS), None)
    code = words[at] if at is not None else ""
    if not (_CODE_STDIN.search(code) and _CODE_NET.search(code)):
        return None
    m = _CODE_HOST.search(code)
    return (m.group(1) or m.group(0)) if m else "the network"


def _sends(words: list[str]) -> bool:
    """A command that sends what it is fed to the network."""
    name = _base(words[0])
    return name in _SENDERS or (name == "openssl" and "s_client" in words)


def _config_from_stdin(words: list[str]) -> bool:
    """`curl -K -` / `curl --config -`: what is piped in is curl's options, not the request body."""
    return any(w in ("-K", "--config") and nxt == "-" for w, nxt in zip(words, words[1:], strict=False))


#: Options that send a request somewhere else than its URL's host (a proxy, an address for it).
_REROUTE = re.compile(r"-x|--(?:pre)?proxy|--socks\w*|--resolve|--connect-to|--doh-url|--dns-servers")


def _option(words: list[str], *names: str) -> str | None:
    """The value of the first of `names` given (`--server URL`, `--server=URL`)."""
    for i, w in enumerate(words[1:], 1):
        key, eq, value = w.partition("=")
        if key in names:
            return value if eq else (words[i + 1] if i + 1 < len(words) else None)
    return None


def _dest(words: list[str]) -> str | None:
    for i, w in enumerate(words[1:-1], 1):
        if _base(words[0]) == "curl" and _REROUTE.fullmatch(w):
            return f"{words[i + 1]} (the request is sent on through it)"
    for w in words[1:]:
        if "://" in w:
            return w
    if "-connect" in words[:-1]:
        return words[words.index("-connect") + 1]
    for w in reversed(words[1:]):
        if not w.startswith("-") and re.match(r"^[\w.-]+\.[a-z]{2,}|^\d{1,3}(?:\.\d{1,3}){3}", w):
            return w
    return None


#: Commands that print every variable of the environment, with the options that keep them doing so.
_PRINTS_ALL = re.compile(r"(?:export|declare|typeset|readonly)(?:\s+-(?=[a-zA-Z]*[px])[a-zA-Z]+)+\s*")
_WHOLE_ENV = {
    "env": r"-0|--null",
    "printenv": r"-0|--null",
    "set": r"^$",
}


def _output_file(words: list[str]) -> str | None:
    # `-o FILE` and short options bundled before it (`curl -fsSLo FILE`, `wget -qO FILE`)
    short = "O" if _base(words[0]) == "wget" else "o"
    for i, w in enumerate(words[:-1]):
        if w in ("-o", "--output", "-O", "--output-document") and not (w == "-O" and words[0] == "curl"):
            return words[i + 1]
        if re.fullmatch(r"-[a-zA-Z]+", w) and w.endswith(short) and _base(words[0]) in ("curl", "wget"):
            return words[i + 1]
    if words[0].endswith("curl") and ("-O" in words or "--remote-name" in words):
        url = _dest(words)
        if url:
            return url.rstrip("/").rsplit("/", 1)[-1]
    return None


def analyse(
    text: str, depth: int = 0, project: Project | None = None, rel: str = "", helper: bool = False
) -> CodeFacts | None:
    """Facts for one shell script; None when it is too large or deeply nested to read.

    With `project`, `source`d files of the skill bring their variables, secrets and functions;
    `helper`: the script is a credential helper, handed credentials on its standard input."""
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_BYTES or depth > MAX_DEPTH:
        return None
    try:
        tree = _get_parser().parse(data.translate(_ASCII_ONLY))
    except (ValueError, RecursionError):
        return None
    try:
        reader = _Reader(data, depth, project, rel)
        reader.stdin_secret = reader.stdin_secret or helper
        reader.tree = tree
        return reader.run(tree.root_node)
    except RecursionError:
        return None
