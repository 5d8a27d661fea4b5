"""Python read with `ast`: constants folded, names resolved, secrets followed to sinks.

Folding covers what a disguise needs and no more: concatenation, f-strings, `%` and `.format`
with constant parts, `os.path.join`/`expanduser`/`Path` arithmetic, `"".join`, reversal slices,
`getattr`/`importlib.import_module`/`__import__` with constant names, and base64/hex/rot13
decoding of constants. The reader is flow-insensitive within a file (a name keeps the last
constant it was given), which is the cheap and conservative choice for a gate.
"""

from __future__ import annotations

import ast
import codecs
import re
import shlex
from collections.abc import Callable, Iterator
from typing import Any

from skillyard.install.scanner._flows import (
    ALT,
    CREDENTIAL_HELPER,
    INSTANCE_CREDENTIALS,
    LOOPBACK,
    MAX_ALTS,
    OWN_FILE,
    PARAM,
    SECRET_ENV,
    SEVERITIES,
    STAND_IN,
    CodeFacts,
    Export,
    Flow,
    Project,
    Source,
    check_deadline,
    cli_secret,
    cli_source,
    climb,
    combine,
    destroys,
    flow,
    secret_path,
    sent,
    shown,
    stand_in_command,
    stand_in_marker,
    unbase64,
    unhex,
    written,
)

MAX_FOLD = 64 * 1024
#: Levels of code handed to `exec` read inside code handed to `exec`.
MAX_RUN_DEPTH = 3
#: Bytes of such code read per file, in all.
MAX_RUN_BYTES = 256 * 1024
_STD_STREAM = re.compile(r"sys\.(?:__)?std(?:out|err)(?:__)?(?:\.buffer)?")
MAX_NODES = 200_000

_EXEC = set(
    "subprocess.run subprocess.call subprocess.check_call subprocess.check_output subprocess.Popen "
    "subprocess.getoutput subprocess.getstatusoutput os.system os.popen pty.spawn "
    "asyncio.create_subprocess_shell asyncio.create_subprocess_exec".split()
)
_EXEC_PREFIX = ("os.exec", "os.spawn", "os.posix_spawn")
#: The last part of those names, to tell cheaply whether a function may run a program.
_EXEC_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in _EXEC) | {"posix_spawn"}
_CODE = {"eval", "exec", "builtins.eval", "builtins.exec", "compile"}
#: Loading these runs code the data carries (a pickle's `__reduce__`): a download loaded so is run.
_UNPICKLE = set("pickle.loads pickle.load marshal.loads dill.loads cloudpickle.loads _pickle.loads".split())
_NET = set(
    "urllib.request.urlopen urllib.request.Request urllib.request.urlretrieve urlopen Request "
    "socket.create_connection smtplib.SMTP smtplib.SMTP_SSL http.client.HTTPConnection "
    "http.client.HTTPSConnection ftplib.FTP".split()
)
_NET_MODULES = ("requests.", "httpx.", "aiohttp.", "urllib3.")
_NET_METHODS = set(
    "send sendall sendto post put patch request connect urlopen send_message sendmail storbinary".split()
)
#: Methods that send the file whose path they are given (boto3, paramiko's SFTP, Google Cloud Storage).
_UPLOADS = set("upload_file put upload upload_from_filename put_file".split())
#: Methods that write a file at the path they are first given, with what their other arguments hold.
_SAVE_METHODS = {"save", "save_as", "to_file", "write_to", "export"}
#: Methods that put a value into a container (a mail, a list, a dict): the container then holds it.
_FILL_METHODS = set("add_attachment attach set_content set_payload append extend update add".split())
_DNS = set(
    "socket.gethostbyname socket.gethostbyname_ex socket.getaddrinfo dns.resolver.resolve "
    "dns.resolver.query gethostbyname getaddrinfo".split()
)
#: Names of calls that run commands or code, when a `getattr` spells them from pieces on an object
#: the reader cannot name (`getattr(o, "sys" + "tem")`): building the name hides the call it is.
_BUILT_EXEC = {
    "system": "os.system",
    "popen": "os.popen",
    "Popen": "subprocess.Popen",
    "run": "subprocess.run",
    "call": "subprocess.call",
    "check_call": "subprocess.check_call",
    "check_output": "subprocess.check_output",
    "getoutput": "subprocess.getoutput",
    "spawn": "pty.spawn",
    "eval": "builtins.eval",
    "exec": "builtins.exec",
}
#: Archive writers: what is added to one ends up in the file or buffer it writes.
_ARCHIVES = {"tarfile.open", "tarfile.TarFile", "zipfile.ZipFile", "ZipFile", "py7zr.SevenZipFile", "TarFile"}
_PACK_METHODS = {"add", "write", "writestr", "addfile", "writeall"}
#: Calls whose value is a network socket.
_SOCKETS = {"socket.socket", "socket.create_connection", "create_connection", "ssl.wrap_socket"}
_SHELL_NAMES = re.compile(r"(?:^|/)(?:ba|z|da|k|c)?sh$|^(?:cmd|cmd\.exe|powershell|pwsh)$")
_DELETE = {"os.remove", "os.unlink", "shutil.rmtree", "rmtree", "os.rmdir", "send2trash.send2trash"}
_SAY = {"print", "logging.info", "logging.warning", "logging.debug", "log.info", "logger.info", "click.echo"}
_READ_METHODS = {"read", "read_text", "read_bytes", "readlines", "readline"}


#: A function's body is read once per function with its parameters standing for the caller's values.
MAX_FUNCTIONS = 200
MAX_PARAMS = 8


#: `os.open` flags that open a file for writing.
_OS_WRITE = re.compile(r"\bO_(?:WRONLY|RDWR|APPEND|TRUNC|CREAT)\b")


#: Modules the interpreter imports by itself at every start, from any folder on its path.
_STARTUP_MODULE = re.compile(r"(?:^|/)(?:site|user)customize\.py$")


#: An item of a command line known only at run time, as the shell reader reads it.
_RUNTIME = "$ARG"
_MAX_ARGV = 256


def _kept_arguments(nodes: list[ast.AST]) -> dict[str, dict[int | str, str]]:
    """Classes of the file whose `__init__` keeps a parameter on the object (`self.source = source`):
    class name -> {argument position, and parameter name: attribute}."""
    out: dict[str, dict[int | str, str]] = {}
    for cls in (n for n in nodes if isinstance(n, ast.ClassDef)):
        init = next((b for b in cls.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
        if init is None or len(out) >= 64:
            continue
        params = [a.arg for a in init.args.args[1:]]
        for st in ast.walk(init):
            if (
                isinstance(st, ast.Assign)
                and isinstance(st.value, ast.Name)
                and st.value.id in params
                and any(
                    isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                    for t in st.targets
                )
            ):
                attr = next(t.attr for t in st.targets if isinstance(t, ast.Attribute))
                out.setdefault(cls.name, {})[params.index(st.value.id)] = attr
                out[cls.name][st.value.id] = attr  # given by keyword
    return out


def _int(node: ast.AST | None) -> int | None | bool:
    """A slice bound: None when absent, its value when a constant integer, else False."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int(node.operand)
        return -v if isinstance(v, int) and not isinstance(v, bool) else False
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return False


def _trimmed(stmt: ast.stmt, name: str) -> bool:
    """`line = line.strip()`: the name given its own value trimmed, still that one line."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(t := stmt.targets[0], ast.Name)
        and t.id == name
    ):
        return False
    v = stmt.value
    while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _TRIMS:
        if not all(isinstance(a, ast.Constant) for a in v.args) or v.keywords:
            return False
        v = v.func.value
    return isinstance(v, ast.Name) and v.id == name and v is not stmt.value


_TRIMS = frozenset({"strip", "lstrip", "rstrip", "decode"})


class _Reader:
    def __init__(self, project: Project | None = None, rel: str = "") -> None:
        self.env: dict[str, Any] = {}  # name -> folded str | ("mod", dotted)
        self.lists: dict[str, list[str]] = {}  # name -> constant list it was given
        #: name -> a command's argument list with run-time items (`["git", "-C", str(repo)]`)
        self.argvs: dict[str, list[str]] = {}
        self.requests: dict[str, str] = {}  # names bound to a request object -> where it goes
        self.taint: dict[str, Source] = {}  # name -> the secret it holds
        #: an assignment -> the one variable of a `.env` line it takes (see `_narrow`)
        self.narrowed: dict[ast.AST, Source] = {}
        #: `if` statements directly in a loop over a file's lines -> the name each line is given
        self.line_tests: dict[ast.AST, str] = {}
        self.facts = CodeFacts()
        self.budget = MAX_NODES
        self.visited = 0  #: nodes visited, for the scan's time budget (see `check_deadline`)
        self.project = project
        self.rel = rel
        #: callee (as `qual` spells it) -> (secret it returns, file it is defined in or None)
        self.returns: dict[str, tuple[Source, str | None]] = {}
        #: callee -> ({param position: (kind, severity, line, text)}, file or None, offset for `self`)
        self.sinks: dict[str, tuple[dict[int, tuple[str, str, int, str]], str | None, int]] = {}
        #: set while a function body is read: where its parameters go
        self.param_sinks: dict[int, tuple[str, str, int, str]] | None = None
        #: `module.NAME` -> constant, for `import helpers` then `helpers.URL`
        self.attrs: dict[str, str] = {}
        #: calls seen that send their arguments somewhere (a function without any needs no
        #: reading per parameter)
        self.sink_calls = 0
        #: this file's functions by name, and those whose body has been read
        self.defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        #: helpers being folded (a helper that calls itself is not folded), lambdas bound to names
        self.folding: set[str] = set()
        self.lambdas: dict[str, ast.Lambda] = {}
        #: `back = str.maketrans(A, B)`: the name holds that table
        self.tables: dict[str, list[str]] = {}
        self.done: set[str] = set()
        self.ready = False
        #: class -> {argument position: the attribute its `__init__` keeps it in}
        self.kept: dict[str, dict[int | str, str]] = {}
        #: loop names bound to files found under the home directory -> that directory
        self.home_walk: dict[str, str] = {}
        #: secret-holding names -> their stand-in while a command is read for the secrets in it
        self.marking: dict[str, str] = {}
        #: list nodes passed to subprocess calls
        self.argv_nodes: set[ast.AST] = set()
        #: folded paths this file copied a credential store to -> that store
        self.copied: dict[str, Source] = {}
        #: callee -> its parameter names, so keyword arguments find their position
        self.params: dict[str, list[str]] = {}
        #: names given a value read through a partly known path (`*/Cookies`), with that value
        self.loose: list[tuple[str, ast.AST]] = []
        #: archive objects (`with ZipFile(z, "w") as zf`) -> the file or buffer they write
        self.archive_of: dict[str, ast.AST] = {}
        #: a secret reached a name after the pass that reads it had gone by (packed into an archive)
        self.late = False
        #: names bound to network sockets; lines where one is duplicated onto a standard stream;
        #: lines where a shell is started
        self.sockets: set[str] = set()
        self.dup_lines: list[int] = []
        #: names holding what a socket received (a command sent by the remote end)
        self.received: set[str] = set()
        #: file objects opened for writing -> the name of the path they write; paths (names) a
        #: download was saved to
        self.file_of: dict[str, ast.expr] = {}
        self.dl_files: dict[str, str] = {}
        self.shell_lines: list[int] = []
        #: calls to helpers whose commands were read with the call's arguments; lines of calls that
        #: may run a program
        self.helper_runs = 0
        self.exec_lines: list[int] = []
        #: levels of `exec`'d code this reading is inside of
        self.depth = 0
        #: code handed to `exec` already read -> what it does; bytes of such code left to read
        self.run_read: dict[str, CodeFacts | None] = {}
        self.run_left = [MAX_RUN_BYTES]
        #: name -> the string literals assigned to it, joined (see `_assign`)
        self.pieces: dict[str, str] = {}
        #: where a logging handler of this file ships records over the network (see `_log_shipping`),
        #: and the secrets put on records or logged
        self.log_dest: tuple[int, str] | None = None
        self.logged: list[tuple[int, Source]] = []
        self.records: frozenset[str] = frozenset()
        #: names bound to a path only partly known that names a credential file (`*/logins.json`)
        self.loose_paths: dict[str, str] = {}

    # ------------------------------------------------------------ names

    def qual(self, node: ast.AST) -> str | None:
        """Dotted name a callee resolves to (`m.run` with `m = import_module("subprocess")`)."""
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            if isinstance(v, tuple) and v[0] == "mod":
                return v[1]
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            if base and node.attr == "__call__":
                return base
            return f"{base}.{node.attr}" if base else node.attr
        if isinstance(node, ast.Subscript):
            # `ns["ex" + "ec"]` (a builtins or globals mapping): a key built to hide the call, or
            # `__builtins__["exec"]`, `vars(builtins)["eval"]` by its plain name
            key = self.fold(node.slice)
            base = node.value
            plain = (self.qual(base) in ("__builtins__", "builtins.__dict__", "builtins")) or (
                isinstance(base, ast.Call)
                and self.qual(base.func) in ("vars", "globals")
                and len(base.args) <= 1
            )
            if key in _BUILT_EXEC and (plain or not isinstance(node.slice, ast.Constant)):
                return _BUILT_EXEC[key]
            return None
        if isinstance(node, ast.Call):
            f = self.qual(node.func)
            if f == "getattr" and len(node.args) >= 2:
                base = self.qual(node.args[0])
                attr = self.fold(node.args[1])
                if (
                    attr in _BUILT_EXEC
                    and not isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[0], ast.Name)
                    and not isinstance(self.env.get(node.args[0].id), tuple)
                ):
                    return _BUILT_EXEC[attr]  # getattr(o, "sys" + "tem"): a name built to hide the call
                if base and attr:
                    return base if attr == "__call__" else f"{base}.{attr}"
            if f in ("importlib.import_module", "import_module", "__import__") and node.args:
                mod = self.fold(node.args[0])
                # __import__("a.b") returns the top package a; import_module returns a.b
                return mod.split(".")[0] if mod and f == "__import__" else mod
            if f in self.defs and not node.keywords:
                # `def _m(n): return importlib.import_module(codecs.decode(n, "rot13"))`: `_m("bf")` is os
                return self._fold_helper(self.defs[f], node.args, self.qual)
        return None

    # ------------------------------------------------------------ constants

    def fold(self, node: ast.AST | None) -> str | None:
        """The string `node` always evaluates to, when that can be known without running it."""
        if node is None:
            return None
        self.budget -= 1
        if self.budget < 0:
            return None
        out = self._fold(node)
        if out is not None and len(out) > MAX_FOLD:
            return None
        return out

    def _fold(self, node: ast.AST) -> str | None:
        if self.marking and isinstance(node, ast.Name | ast.Subscript | ast.Call | ast.Attribute):
            # reading a command for the secrets in it: `{d[:50]}` is where secret d goes
            hit = next(
                (n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.marking), None
            )
            if hit is not None:
                return self.marking[hit]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.fold(node.operand)
            return f"-{inner}" if inner is not None and inner.isdigit() else None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return node.value
            if isinstance(node.value, bytes):
                return node.value.decode("latin-1")
            if (
                isinstance(node.value, int)
                and not isinstance(node.value, bool)
                and node.value.bit_length() < 8192
            ):
                return str(node.value)  # (a longer number is more than Python turns into digits)
            return None
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            return v if isinstance(v, str) else None
        if isinstance(node, ast.IfExp | ast.BoolOp) and not isinstance(getattr(node, "op", None), ast.And):
            # `devs[0] if devs else "/dev/sda"`, `dest or "/dev/sda"`: each side the program may use
            sides = [node.body, node.orelse] if isinstance(node, ast.IfExp) else node.values
            known = [v for v in map(self.fold, sides) if v is not None]
            return ALT.join(dict.fromkeys(known)) if known else None
        if isinstance(node, ast.Attribute) and self.qual(node) == "sys.executable":
            return "python3"  # `[sys.executable, "-m", "pip", ...]` runs pip
        if isinstance(node, ast.Attribute) and self.qual(node) in ("os.pardir", "os.path.pardir"):
            return ".."
        if isinstance(node, ast.Attribute) and node.attr == "parent" and (base := self.fold(node.value)):
            # Path(...).parent of a folded path (`(home / ".cache" / "x").parent.parent` is `~`)
            return climb(f"{base}/..") if base.startswith(("~", "/")) and ALT not in base else None
        if isinstance(node, ast.Attribute) and self.attrs:
            return self.attrs.get(self.qual(node) or "")
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    s = self.fold(v.value)
                else:
                    s = self.fold(v)
                if s is None:
                    return None
                parts.append(s)
            return combine(parts, "".join)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add | ast.Div):
                a, b = self.fold(node.left), self.fold(node.right)
                if a is None or b is None:
                    return None
                return combine([a, b], "".join if isinstance(node.op, ast.Add) else _SLASH)
            if isinstance(node.op, ast.Mod):
                a = self.fold(node.left)
                if a is None:
                    return None
                elts = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
                # numbers stay numbers: "%c%c" % (99, 117) spells characters
                vals: list[Any] = [
                    e.value
                    if isinstance(e, ast.Constant)
                    and isinstance(e.value, int)
                    and not isinstance(e.value, bool)
                    else self.fold(e)
                    for e in elts
                ]
                if any(v is None for v in vals) or len(vals) > 4096:
                    return None
                try:
                    return a % tuple(vals)
                except (TypeError, ValueError):
                    return None
            if isinstance(node.op, ast.Mult):
                a = self.fold(node.left)
                n = node.right.value if isinstance(node.right, ast.Constant) else None
                if a is not None and isinstance(n, int) and 0 <= n * len(a) <= MAX_FOLD:
                    return a * n
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            s = self.fold(node.value)
            sl = node.slice
            if s is not None and sl.lower is None and sl.upper is None:
                step = self.fold(sl.step) if sl.step is not None else None
                if step == "-1":
                    return s[::-1]
            bounds = [_int(b) for b in (sl.lower, sl.upper)]
            if s is not None and sl.step is None and all(b is not False for b in bounds):
                return s[bounds[0] : bounds[1]]  # ALPHABET[23:] + ALPHABET[:23]: a rotated alphabet
            return None
        if isinstance(node, ast.Subscript):
            q = self.qual(node.value)
            if q in ("os.environ", "environ") and self.fold(node.slice) == "HOME":
                return "~"
            i = _int(node.slice)
            if isinstance(node.value, ast.Name) and node.value.id in self.lists and type(i) is int:
                items = self.lists[node.value.id]  # `PARTS[2]` of a list of constants
                return items[i] if -len(items) <= i < len(items) else None
            return None
        if isinstance(node, ast.List | ast.Tuple):
            vals: list[str | None] = []
            for e in node.elts:
                # ["git", *args] with args a known list: its items in place
                starred = isinstance(e, ast.Starred) and isinstance(e.value, ast.Name)
                vals += self.lists.get(e.value.id, [None]) if starred else [self.fold(e)]  # type: ignore[attr-defined]
            if vals and all(v is not None for v in vals):
                return shlex.join([v for v in vals if v is not None])
            return None
        if isinstance(node, ast.Call):
            return self._fold_call(node)
        return None

    def _table(self, node: ast.AST) -> list[str] | None:
        """The constant arguments of a `str.maketrans(FROM, TO[, DELETE])` call, else None."""
        if not isinstance(node, ast.Call) or self.qual(node.func) not in ("str.maketrans", "maketrans"):
            return None
        parts = [self.fold(x) for x in node.args]
        if len(parts) not in (2, 3) or None in parts or len(parts[0] or "") != len(parts[1] or ""):
            return None
        return [p for p in parts if p is not None]

    def _fold_call(self, node: ast.Call) -> str | None:
        f = self.qual(node.func) or ""
        args = node.args
        short = f.rsplit(".", 1)[-1]
        if f in ("os.path.join", "posixpath.join", "path.join", "join") and args and short == "join":
            if isinstance(node.func, ast.Attribute) and not f.startswith(("os.", "posixpath", "path.")):
                base = self.fold(node.func.value)
                if base is not None and len(args) == 1:
                    items = self._fold_items(args[0])
                    return base.join(items) if items is not None else None
            vals = [self.fold(a) for a in args]
            if all(v is not None for v in vals):
                return combine([v for v in vals if v is not None], _path_join)
            return None
        if short == "join" and isinstance(node.func, ast.Attribute) and len(args) == 1:
            base = self.fold(node.func.value)
            items = self._fold_items(args[0])
            if base is not None and items is not None:
                return base.join(items)
            return None
        if f in (
            "os.path.expanduser",
            "expanduser",
            "os.path.expandvars",
            "os.path.abspath",
            "str",
            "Path",
        ):
            return self.fold(args[0]) if len(args) == 1 else None
        if f == "pathlib.Path" and len(args) == 1 and (p := self.fold(args[0])) and p.startswith("~"):
            # `Path(os.environ.get("X") or Path.home() / ".config/x")`: a path in the user's home
            return p
        if f.endswith(("Path.home", "os.path.expanduser")) or f in ("Path.home", "pathlib.Path.home"):
            return "~"
        if f in ("os.getenv", "os.environ.get", "environ.get", "getenv") and args:
            if self.fold(args[0]) == "HOME":
                return "~"
            # os.environ.get("KUBECONFIG", "~/.kube/config"): the default is the value to expect
            return self.fold(args[1]) if len(args) > 1 else None
        if short == "format" and isinstance(node.func, ast.Attribute):
            base = self.fold(node.func.value)
            vals = [self.fold(a) for a in args]
            kw = {k.arg: self.fold(k.value) for k in node.keywords if k.arg}
            if base is None or any(v is None for v in vals) or any(v is None for v in kw.values()):
                return None
            try:
                return base.format(*vals, **kw)
            except (IndexError, KeyError, ValueError, AttributeError):
                return None
        if (
            short in ("decode", "strip", "lower", "upper", "expanduser", "resolve", "absolute")
            and isinstance(node.func, ast.Attribute)
            and not f.startswith("codecs.")
        ):
            s = self.fold(node.func.value)
            if s is None:
                return None
            return {"strip": s.strip(), "lower": s.lower(), "upper": s.upper()}.get(short, s)
        if short == "replace" and isinstance(node.func, ast.Attribute) and len(args) == 2:
            base, old, new = self.fold(node.func.value), self.fold(args[0]), self.fold(args[1])
            if base is None or old is None or new is None or not old:
                return None
            out = base.replace(old, new)
            return out if len(out) <= MAX_FOLD else None
        if short == "translate" and isinstance(node.func, ast.Attribute) and len(args) == 1:
            # "qhc2".translate(str.maketrans("qhc", "dup")) is "dup2"
            # (also through a name bound to the table: `back = str.maketrans(B, A)`, `s.translate(back)`)
            table = args[0]
            parts = self.tables.get(table.id) if isinstance(table, ast.Name) else self._table(table)
            base = self.fold(node.func.value)
            if base is not None and parts is not None:
                return base.translate(str.maketrans(*parts))
            return None
        if short == "joinpath" and isinstance(node.func, ast.Attribute):
            parts = [self.fold(node.func.value)] + [self.fold(a) for a in args]
            return "/".join(p.rstrip("/") for p in parts if p is not None) if None not in parts else None
        if f in ("bytes", "bytearray") and len(args) == 1 and (codes := self._codes(args[0])) is not None:
            return bytes(c & 0xFF for c in codes).decode("latin-1")
        if f in ("bytes", "bytearray") and len(args) == 1 and (out := self._xored(args[0])) is not None:
            return out
        if f == "compile" and args:
            return self.fold(args[0])  # the code object holds the source it was compiled from
        if f == "chr" and args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, int):
            try:
                return chr(args[0].value)
            except (ValueError, OverflowError):
                return None
        if args and short in ("b64decode", "standard_b64decode", "urlsafe_b64decode", "decodebytes"):
            s = self.fold(args[0])
            return unbase64(s) if s is not None else None
        if args and (f in ("bytes.fromhex", "binascii.unhexlify", "unhexlify") or short == "fromhex"):
            s = self.fold(args[0])
            return unhex(s) if s is not None else None
        if short == "to_bytes" and isinstance(node.func, ast.Attribute):
            # `n.to_bytes(len, "big")`: text held as one number turned back into its bytes
            num = self.fold(node.func.value)
            order = [
                self.fold(x) for x in [*args[1:2], *(k.value for k in node.keywords if k.arg == "byteorder")]
            ]
            if num is None or not num.isdigit() or len(num) > 4000:
                return None
            n = int(num)
            raw = n.to_bytes(max(1, (n.bit_length() + 7) // 8), "little" if "little" in order else "big")
            return raw.decode("latin-1")
        if f in ("codecs.decode", "codecs.encode") and len(args) >= 2:
            s, enc = self.fold(args[0]), self.fold(args[1])
            if s is not None and enc and enc.replace("_", "").lower() == "rot13":
                return codecs.decode(s, "rot13")
        if f in self.defs and not node.keywords:
            return self._fold_helper(self.defs[f], args)
        if isinstance(node.func, ast.Name) and node.func.id in self.lambdas and not node.keywords:
            return self._fold_helper(self.lambdas[node.func.id], args)
        return None

    def _fold_helper(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        args: list[ast.expr],
        read: Callable[[ast.AST], str | None] | None = None,
    ) -> str | None:
        """A call to a one-line helper of this file (`def _n(*codes): return "".join(map(chr,
        codes))`, or a lambda bound to a name) with constant arguments folds to what it returns
        (`read`: how the returned expression is read, `fold` unless the module it names is asked)."""
        name = fn.name if not isinstance(fn, ast.Lambda) else f"<lambda at {fn.lineno}:{fn.col_offset}>"
        if isinstance(fn, ast.Lambda):
            result: ast.expr | None = fn.body
        else:
            body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            result = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
        a = fn.args
        if (
            result is None
            and isinstance(fn, ast.FunctionDef)
            and not args
            and not a.args
            and name not in self.folding
        ):
            return self._returned_path(fn)
        if (
            result is None
            or name in self.folding
            or a.kwonlyargs
            or a.posonlyargs
            or any(isinstance(x, ast.Starred) for x in args)
            or len(args) < len(a.args) - len(a.defaults)
            or (len(args) > len(a.args) and a.vararg is None)
        ):
            return None
        vals = [self.fold(x) for x in args]
        if any(v is None for v in vals):
            return None
        saved_env, saved_lists = self.env, self.lists
        self.env, self.lists = dict(self.env), dict(self.lists)
        self.folding.add(name)
        try:
            for i, p in enumerate(a.args):
                if i < len(vals):
                    self.env[p.arg] = vals[i]
                else:
                    d = self.fold(a.defaults[i - (len(a.args) - len(a.defaults))])
                    if d is None:
                        return None
                    self.env[p.arg] = d
                self.lists.pop(p.arg, None)
            if a.vararg is not None:
                self.lists[a.vararg.arg] = [v for v in vals[len(a.args) :] if v is not None]
                self.env.pop(a.vararg.arg, None)
            return (read or self.fold)(result)
        finally:
            self.env, self.lists = saved_env, saved_lists
            self.folding.discard(name)

    def _returned_path(self, fn: ast.FunctionDef) -> str | None:
        """A helper without parameters that sets a credential store's path and returns it (`p =
        expanduser("~/.config/x/id.json")`, perhaps changed by a settings file read between):
        a call to it may be that path."""
        saved_env = self.env
        self.env = dict(self.env)
        self.folding.add(fn.name)
        try:
            for st in fn.body[:64]:
                if (
                    isinstance(st, ast.Assign)
                    and len(st.targets) == 1
                    and isinstance(st.targets[0], ast.Name)
                ):
                    if (v := self.fold(st.value)) is not None:
                        self.env[st.targets[0].id] = v
                elif isinstance(st, ast.Return) and st.value is not None:
                    v = self.fold(st.value)
                    return v if v is not None and secret_path(v) else None
            return None
        finally:
            self.env = saved_env
            self.folding.discard(fn.name)

    def _xored(self, gen: ast.AST) -> str | None:
        """`bytes(b ^ K for b in T)`, `bytes(b ^ KEY[i % len(KEY)] for i, b in enumerate(T))`: a
        constant table under a constant XOR key (one byte, or repeated), as the text it decodes to."""
        if not (isinstance(gen, ast.GeneratorExp | ast.ListComp) and len(gen.generators) == 1):
            return None
        comp, elt = gen.generators[0], gen.elt
        if comp.ifs or not (isinstance(elt, ast.BinOp) and isinstance(elt.op, ast.BitXor)):
            return None
        it, index = comp.iter, None
        target = comp.target
        if isinstance(it, ast.Call) and self.qual(it.func) == "enumerate" and len(it.args) == 1:
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return None
            index, target, it = target.elts[0], target.elts[1], it.args[0]
        table = self.fold(it)
        if not isinstance(target, ast.Name) or table is None or not table:
            return None
        sides = [elt.left, elt.right]
        if not any(isinstance(x, ast.Name) and x.id == target.id for x in sides):
            return None
        key_node = next(x for x in sides if not (isinstance(x, ast.Name) and x.id == target.id))
        if isinstance(key_node, ast.Constant) and isinstance(key_node.value, int):
            key = [key_node.value & 0xFF]
        elif (
            isinstance(key_node, ast.Subscript)
            and isinstance(index, ast.Name)
            and isinstance(key_node.slice, ast.BinOp)
            and isinstance(key_node.slice.op, ast.Mod)
            and isinstance(key_node.slice.left, ast.Name)
            and key_node.slice.left.id == index.id
            and (k := self.fold(key_node.value) or self._default(key_node.value))
        ):
            key = [ord(c) & 0xFF for c in k]
        else:
            return None
        self.budget -= len(table) // 64  # decoding is work the reader's budget counts, as nodes are
        if self.budget < 0:
            return None
        return bytes((ord(c) ^ key[i % len(key)]) & 0xFF for i, c in enumerate(table)).decode("latin-1")

    def _default(self, node: ast.AST) -> str | None:
        """A parameter's constant default (`def load(tag=b"glyf")`): the key a call without it uses."""
        if not isinstance(node, ast.Name):
            return None
        for fn in list(self.defs.values())[:256]:
            a = fn.args
            self.budget -= 1
            for p, d in zip(a.args[len(a.args) - len(a.defaults) :], a.defaults, strict=True):
                if p.arg == node.id and isinstance(d, ast.Constant):
                    return self.fold(d)
        return None

    def _codes(self, node: ast.AST) -> list[int] | None:
        """A constant list of character or byte codes (literal, or a name bound to one)."""
        if isinstance(node, ast.Name):
            items = self.lists.get(node.id)
        elif isinstance(node, ast.List | ast.Tuple):
            items = [self.fold(e) for e in node.elts]
        else:
            return None
        if not items or any(i is None or not str(i).isdigit() for i in items):
            return None
        return [int(str(i)) for i in items]

    def _chars(self, node: ast.AST) -> list[str] | None:
        codes = self._codes(node)
        try:
            return [chr(c) for c in codes] if codes is not None else None
        except (ValueError, OverflowError):
            return None

    def _fold_items(self, node: ast.AST) -> list[str] | None:
        if isinstance(node, ast.List | ast.Tuple):
            vals = [self.fold(e) for e in node.elts]
            return None if any(v is None for v in vals) else [v for v in vals if v is not None]
        if isinstance(node, ast.GeneratorExp | ast.ListComp) and len(node.generators) == 1:
            # (chr(c) for c in CODES): character codes spelled as numbers
            gen, elt = node.generators[0], node.elt
            if (
                isinstance(gen.target, ast.Name)
                and not gen.ifs
                and isinstance(elt, ast.Call)
                and self.qual(elt.func) == "chr"
                and len(elt.args) == 1
            ):
                arg = elt.args[0]
                if isinstance(arg, ast.Name) and arg.id == gen.target.id:
                    return self._chars(gen.iter)
                # (chr(c ^ 42) for c in CODES), chr(c - 3): codes shifted or XORed with a constant
                if (
                    isinstance(arg, ast.BinOp)
                    and isinstance(arg.left, ast.Name)
                    and arg.left.id == gen.target.id
                    and isinstance(arg.right, ast.Constant)
                    and isinstance(arg.right.value, int)
                    and isinstance(arg.op, ast.BitXor | ast.Add | ast.Sub)
                    and (codes := self._codes(gen.iter)) is not None
                ):
                    k = arg.right.value
                    op = {ast.BitXor: lambda c: c ^ k, ast.Add: lambda c: c + k, ast.Sub: lambda c: c - k}[
                        type(arg.op)
                    ]
                    try:
                        return [chr(op(c)) for c in codes]
                    except (ValueError, OverflowError):
                        return None
            # [s[::-1] for s in ("mr", "fr-")], [codecs.decode(w, "rot13") for w in WORDS]: each
            # known item put through the same expression
            items = self._fold_items(gen.iter) if isinstance(gen.target, ast.Name) and not gen.ifs else None
            if items is None or len(items) > _MAX_ARGV:
                return None
            saved = self.env
            self.env = dict(saved)
            try:
                out = []
                for item in items:
                    self.env[gen.target.id] = item  # type: ignore[attr-defined]
                    if (v := self.fold(elt)) is None:
                        return None
                    out.append(v)
                return out
            finally:
                self.env = saved
        if isinstance(node, ast.Call) and self.qual(node.func) == "map" and len(node.args) == 2:
            return self._chars(node.args[1]) if self.qual(node.args[0]) == "chr" else None
        if isinstance(node, ast.Name) and node.id in self.lists:
            return list(self.lists[node.id])  # " ".join(parts) of a constant list
        if isinstance(node, ast.Call) and self.qual(node.func) == "reversed" and len(node.args) == 1:
            items = self._fold_items(node.args[0])
            return items[::-1] if items is not None else None
        s = self.fold(node)
        return list(s) if s is not None else None

    def _argv(self, node: ast.AST, depth: int = 0) -> list[str] | None:
        """An argument list that names its program, items known only at run time as `$ARG`
        (`g + ["push", "--force"]` with `g = ["git", "-C", str(repo)]`); None for any other value."""
        items = self._loose_items(node, depth)
        return items if items and items[0] != _RUNTIME and len(items) <= _MAX_ARGV else None

    def _loose_items(self, node: ast.AST, depth: int = 0) -> list[str] | None:
        if isinstance(node, ast.Name):
            return self.argvs.get(node.id, self.lists.get(node.id))
        if isinstance(node, ast.Call) and self.qual(node.func) in ("list", "tuple") and len(node.args) == 1:
            return self._loose_items(node.args[0], depth + 1)
        if isinstance(node, ast.ListComp):
            return self._fold_items(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and depth < 8:
            a = self._loose_items(node.left, depth + 1)
            b = self._loose_items(node.right, depth + 1) if a is not None else None
            return a + b if b is not None and a is not None and len(a) + len(b) <= _MAX_ARGV else None
        if not isinstance(node, ast.List | ast.Tuple):
            return None
        out: list[str] = []
        for e in node.elts[:_MAX_ARGV]:
            if isinstance(e, ast.Starred):
                out += (self._loose_items(e.value, depth + 1) or [_RUNTIME])[:_MAX_ARGV]
            else:
                out.append(v if (v := self.fold(e)) is not None else _RUNTIME)
        return out if len(out) <= _MAX_ARGV else None

    # ------------------------------------------------------------ secrets

    def source(self, node: ast.AST) -> Source | None:
        """(what, line, strong) if `node` evaluates to secret material; strong = a credential store.
        Of the sources a value combines (`os.environ.get("T") or Path(".vault-token").read_text()`),
        a credential store is the one it carries."""
        weak: Source | None = None
        for sub in ast.walk(node):
            self.budget -= 1
            if self.budget < 0:
                return None
            got = None
            if isinstance(sub, ast.Name) and sub.id in self.taint:
                got = self.taint[sub.id]
            elif isinstance(sub, ast.Attribute) and self.taint and (q := self.qual(sub)) in self.taint:
                got = self.taint[q]
            elif isinstance(sub, ast.Call):
                got = self._source_call(sub)
            elif isinstance(sub, ast.Subscript):
                q = self.qual(sub.value)
                if q in ("os.environ", "environ"):
                    name = self.fold(sub.slice)
                    if name and SECRET_ENV.match(name):
                        got = Source(f"${name}", sub.lineno, False)
            if got is not None and got.strong:
                return got
            weak = weak or got
        return weak

    def _source_call(self, call: ast.Call) -> Source | None:
        f = self.qual(call.func) or ""
        short = f.rsplit(".", 1)[-1]
        line = call.lineno
        if (name := self._local(f)) is not None:
            self._summary(name)
        if (hit := self.returns.get(f)) is not None or (
            f.startswith("self.") and (hit := self.returns.get(short)) is not None
        ):
            src, where = hit
            if where is None:
                return Source(src.what, line, src.strong, src.steps(), f"gets it from {f}()")
            return src.moved(where, line, f"gets {src.what} from {f}()")
        if f.startswith("sys.stdin.read") and CREDENTIAL_HELPER.search(self.rel):
            # git and docker hand a credential helper the credentials on standard input
            return Source("the credentials git hands its credential helper on standard input", line, True)
        if any(
            INSTANCE_CREDENTIALS.search(t) and not t.rstrip("'\"").endswith("/")  # not a listing of names
            for arg in call.args[:2]
            for t in _spellings(arg, self.fold(arg))
        ):
            # what a request for the metadata service's credentials path answers
            return Source("the instance's credentials from the metadata service", line, True)
        copies = f in ("sqlite3.connect", "shutil.copy", "shutil.copy2", "shutil.copyfile")
        if copies and call.args and (s := self._secret(call.args[0])):
            return Source(s, line, True)  # a browser's login or cookie database, opened or copied
        if f in ("open", "io.open", "builtins.open", "Path", "pathlib.Path") and call.args:
            mode = self.fold(call.args[1]) if len(call.args) > 1 else None
            if (mode is None or "r" in mode or mode == "b") and (s := self._secret(call.args[0])):
                return Source(s, line, True)
        if (
            short == "open"
            and isinstance(call.func, ast.Attribute)
            and f not in ("io.open", "builtins.open", "os.open")
        ):
            # Path(...).open("rb")
            mode = self.fold(call.args[0]) if call.args else None
            if (mode is None or "r" in mode or mode == "b") and (s := self._secret(call.func.value)):
                return Source(s, line, True)
        if (
            short in _READ_METHODS
            and isinstance(call.func, ast.Attribute)
            and (s := self._secret(call.func.value))
        ):
            return Source(s, line, True)
        if f in ("shutil.make_archive", "make_archive"):
            # an archive of ~/.ssh holds what ~/.ssh holds; its path is what gets uploaded
            root = (
                call.args[2]
                if len(call.args) > 2
                else next((k.value for k in call.keywords if k.arg == "root_dir"), None)
            )
            if root is not None and (s := self._secret(root)):
                return Source(s, line, True, how=f"archives {s}")
        if f in ("os.getenv", "os.environ.get", "environ.get", "getenv") and call.args:
            name = self.fold(call.args[0])
            if name and SECRET_ENV.match(name):
                return Source(f"${name}", line, False)
        if (
            f in ("dict", "json.dumps", "str", "repr")
            and call.args
            and self.qual(call.args[0]) == "os.environ"
        ):
            return Source("the whole environment", line, True)
        if f in ("os.environ.copy", "os.environ.items"):
            return Source("the whole environment", line, True)
        if short in ("glob", "rglob") and isinstance(call.func, ast.Attribute) and call.args:
            base, pat = self.fold(call.func.value), self.fold(call.args[0])
            if base and pat:
                p = f"{base.rstrip('/')}/{pat.replace('*', '').strip('/')}"
                if s := secret_path(p.rstrip("/")):
                    return Source(s, line, True)
        if f in ("glob.glob", "glob.iglob", "os.listdir", "os.walk") and call.args:
            p = self.fold(call.args[0])
            if p and (s := secret_path(p.rstrip("*/").rstrip("/") or p)):
                return Source(s, line, True)
        if (f.startswith("subprocess.") or f in ("os.popen", "check_output", "getoutput")) and call.args:
            cmd = self.fold(call.args[0]) or ""
            if "find-generic-password" in cmd or "dump-keychain" in cmd or "find-internet-password" in cmd:
                return Source("the macOS keychain", line, True)
            try:
                argv = shlex.split(shown(cmd)) if cmd else []
            except ValueError:
                argv = []
            if what := cli_secret(argv):
                return cli_source(what, line)
        if f in ("dotenv_values", "dotenv.dotenv_values", "dotenv.main.dotenv_values"):
            p = self.fold(call.args[0]) if call.args else ".env"
            return Source(secret_path(p or ".env") or p or ".env", line, True)
        return None

    def _secret(self, node: ast.AST) -> str | None:
        """The credential store a path expression names (parts not known at run time may stand
        around it: `tmp / "Login Data"`), or a copy of one this file made."""
        p = self.fold(node)
        if p is None:
            p = self._loose_path(node)
        if p is None and isinstance(node, ast.Name):
            p = self.loose_paths.get(node.id)
        if p is None:
            return None
        return self.copied[p].what if p in self.copied else secret_path(p)

    def _loose_path(self, node: ast.AST, depth: int = 0) -> str | None:
        """A path with its unknown parts as `*` (`Path(tempdir) / name` is `*/Cookies`), when at
        least one part is known; only ever tested against credential-store names."""
        if depth > 8:
            return None
        f = (self.qual(node.func) or "") if isinstance(node, ast.Call) else ""
        parts: list[ast.AST]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
            parts = [node.left, node.right]
        elif isinstance(node, ast.Call) and f.endswith("joinpath") and isinstance(node.func, ast.Attribute):
            parts = [node.func.value, *node.args]
        elif (
            isinstance(node, ast.Call) and f.startswith(("os.", "posixpath", "path.")) and f.endswith(".join")
        ) or (isinstance(node, ast.Call) and f in ("Path", "pathlib.Path") and len(node.args) > 1):
            parts = list(node.args)
        elif isinstance(node, ast.Call) and f in ("Path", "pathlib.Path", "str") and len(node.args) == 1:
            return self._loose_path(node.args[0], depth + 1)
        else:
            return None
        vals = [
            v if (v := self.fold(p)) is not None else self._loose_path(p, depth + 1) or "*" for p in parts
        ]
        if all(v == "*" for v in vals):
            return None
        return combine(
            vals, _path_join if not isinstance(node, ast.BinOp) or isinstance(node.op, ast.Div) else "".join
        )

    # ------------------------------------------------------------ statements

    def run(self, nodes_in_order: list[ast.AST], eager: bool = False) -> CodeFacts:
        # Two passes: the first learns constants and imports anywhere in the file, the second
        # follows values (a helper defined below its first use still resolves). A function's body
        # is read when the second pass meets a call whose value or arguments matter (or, for a
        # module other files import, `eager`, every function once).
        # the nodes `visit` acts on, in walk order, listed once for both passes
        nodes = []
        for fn in nodes_in_order:
            if isinstance(fn, _VISITED):
                nodes.append(fn)
            elif isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and len(self.defs) < MAX_FUNCTIONS:
                self.defs.setdefault(fn.name, fn)
        cut = len(nodes)
        if cut > MAX_NODES:
            del nodes[MAX_NODES:]
        self.exec_lines = [n.lineno for n in nodes if isinstance(n, ast.Call) and _may_run(n)]
        self.kept = _kept_arguments(nodes_in_order)
        for i in range(3):
            if i == 2 and not self.late:
                break
            self.facts = CodeFacts()
            self.ready = i == 1
            if self.ready:
                # a file read by a path only partly known may turn out to be a copy this file made
                # later on: read those values again now that every copy is known
                for key, value in self.loose[:64]:
                    if (src := self.source(value)) is not None:
                        self.taint[key] = src
            if eager and self.ready:
                for name in list(self.defs):
                    self._summary(name)
            for node in nodes:
                self.budget -= 1
                if self.budget < 0:
                    break
                self.visit(node)
        if cut > MAX_NODES or self.budget < 0:
            # padding past the reader's horizon hides whatever it did not reach: a finding, as an
            # oversized file is, never a silent stop
            self.facts.unread = (
                f"Python code of {cut} syntax nodes, past what the reader follows ({MAX_NODES})"
            )
        if (wipe := _account_wipe(nodes_in_order, self.defs)) is not None:
            self._flow("destruction", "high", wipe[0], wipe[1], None)
        if self.log_dest and self.logged:
            line, src = self.logged[0]
            sev, text = sent(src, self.log_dest[1])
            text = f"{text} in the log records of line {line}, which this logging handler ships"
            self._flow("secret-network", sev, self.log_dest[0], text, src)
        if self.dup_lines and self.shell_lines:
            self._flow(
                "reverse-shell",
                "critical",
                self.dup_lines[0],
                "connects a socket, puts it in place of the standard streams and starts a shell on it",
                None,
            )
        self.facts.export = Export(
            self.rel,
            consts={k: v for k, v in self.env.items() if isinstance(v, str)},
            taint={k: v for k, v in self.taint.items() if not v.what.startswith(PARAM)},
            returns={k: src for k, (src, where) in self.returns.items() if where is None and "." not in k},
            sinks={
                k: s
                for k, (s, where, off) in self.sinks.items()
                if where is None and not off and "." not in k
            },
            params={k: v for k, v in self.params.items() if "." not in k},
        )
        return self.facts

    def _local(self, f: str) -> str | None:
        """The name of the function of this file a call spells `f`, once its body may be read."""
        if not self.ready:
            return None
        if f in self.defs:
            return f
        short = f.rsplit(".", 1)[-1]
        return short if f.startswith("self.") and short in self.defs else None

    def _summary(self, name: str) -> None:
        """Read one function as its callers would run it: once as it stands, to learn what secret
        it returns, then once per parameter standing for the caller's value, to learn where that
        parameter goes. Each function once per file."""
        if name in self.done:
            return
        self.done.add(name)
        fn = self.defs[name]
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)][:MAX_PARAMS]
        self.params[fn.name] = params
        body = [n for n in ast.walk(fn) if n is not fn]
        sub = self._body(body, dict(self.taint), None)
        for node in body:
            if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom) and node.value is not None:
                src = sub.narrowed.get(node) or sub.source(node.value)
                if src is not None and not src.what.startswith(PARAM):
                    self.returns[fn.name] = (src, None)
                    break
        sinks: dict[int, tuple[str, str, int, str]] = {}
        for i, param in enumerate(params if sub.sink_calls else ()):
            if param in ("self", "cls") and i == 0:
                continue
            sub = self._body(body, {param: Source(f"{PARAM}{i}", fn.lineno, False)}, {})
            if sub.param_sinks and i in sub.param_sinks:
                sinks[i] = sub.param_sinks[i]
        if sinks:
            self.sinks[fn.name] = (sinks, None, 1 if params and params[0] in ("self", "cls") else 0)

    def _body(
        self,
        body: list[ast.AST],
        taint: dict[str, Source],
        sinks: dict[int, tuple[str, str, int, str]] | None,
    ) -> _Reader:
        sub = _Reader(self.project, self.rel)
        sub.env, sub.lists, sub.taint, sub.attrs = dict(self.env), dict(self.lists), taint, self.attrs
        sub.returns, sub.sinks, sub.param_sinks = self.returns, self.sinks, sinks
        sub.defs, sub.done, sub.ready = self.defs, self.done, True
        sub.copied, sub.params = self.copied, self.params
        sub.archive_of, sub.sockets, sub.received = self.archive_of, self.sockets, self.received
        sub.file_of, sub.dl_files, sub.exec_lines = self.file_of, self.dl_files, self.exec_lines
        sub.budget = self.budget
        sub.run_read, sub.run_left, sub.depth = self.run_read, self.run_left, self.depth
        for node in body:
            sub.budget -= 1
            if sub.budget < 0:
                break
            sub.visit(node)
        self.budget = sub.budget
        return sub

    def _imports(self, node: ast.Import | ast.ImportFrom) -> None:
        """Names another file of the skill gives this one: constants, secrets, helper functions."""
        if self.project is None:
            return
        if isinstance(node, ast.ImportFrom):
            exp = self.project.get(self.project.python_module_path(self.rel, node.module, node.level))
            mod = node.module or "."
            for a in node.names:
                local = a.asname or a.name
                # `from . import settings` / `from lib import loader`: a module of the skill
                sub = self.project.get(
                    self.project.python_module_path(
                        self.rel, f"{node.module}.{a.name}" if node.module else a.name, node.level
                    )
                )
                if sub is not None and sub.file != self.rel:
                    prefix = f"{node.module}.{a.name}" if node.module else local
                    for name in {*sub.consts, *sub.taint, *sub.returns, *sub.sinks}:
                        dotted = f"{prefix}.{name}"
                        self._import_name(
                            sub, name, None, dotted, f"{mod}.{a.name}".lstrip("."), node, dotted
                        )
                    continue
                if exp is None or exp.file == self.rel:
                    continue
                self._import_name(exp, a.name, local, f"{node.module or ''}.{a.name}".lstrip("."), mod, node)
            return
        for a in node.names:
            exp = self.project.get(self.project.python_module_path(self.rel, a.name))
            if exp is None or exp.file == self.rel:
                continue
            for name in {*exp.consts, *exp.taint, *exp.returns, *exp.sinks}:
                dotted = f"{a.name}.{name}"
                self._import_name(exp, name, None, dotted, a.name, node, dotted)

    def _import_name(
        self, exp: Export, name: str, local: str | None, dotted: str, mod: str, node: ast.AST, attr: str = ""
    ) -> None:
        line = getattr(node, "lineno", 0)
        if local is not None and name in exp.consts:
            self.env[local] = exp.consts[name]
        elif attr and name in exp.consts:
            self.attrs[attr] = exp.consts[name]
        if name in exp.taint:
            src = exp.taint[name].moved(exp.file, line, f"imports {name} from {mod}")
            self.taint[local or attr] = src
        if name in exp.returns:
            self.returns[dotted] = (exp.returns[name], exp.file)
        if name in exp.sinks:
            self.sinks[dotted] = (exp.sinks[name], exp.file, 0)
            if name in exp.params:
                self.params[dotted] = exp.params[name]

    def _call_sinks(self, call: ast.Call, f: str) -> None:
        """A call to a function whose parameters reach a sink: the caller's secrets flow there."""
        if (name := self._local(f)) is not None and name not in self.done:
            if not any(self.source(a) for a in [*call.args, *(k.value for k in call.keywords)]):
                return
            self._summary(name)
        hit = self.sinks.get(f) or (self.sinks.get(f.rsplit(".", 1)[-1]) if f.startswith("self.") else None)
        if hit is None:
            return
        self.sink_calls += 1
        sinks, where, offset = hit
        off = offset if "." in f else 0
        names = (
            self.params.get(f)
            or (self.params.get(f.rsplit(".", 1)[-1]) if f.startswith("self.") else None)
            or []
        )
        given = [(i + off, a) for i, a in enumerate(call.args)] + [
            (names.index(k.arg), k.value) for k in call.keywords if k.arg in names
        ]
        for i, a in given:
            sink = sinks.get(i)
            src = self.source(a) if sink is not None else None
            if sink is None or src is None:
                continue
            kind, sev, sline, text = sink
            if src.what.startswith(PARAM):
                if self.param_sinks is not None and where is None:  # handed on to another helper
                    self.param_sinks.setdefault(int(src.what[len(PARAM) :]), sink)
                continue
            if kind == "secret-network" and src.what.startswith(_FETCHED):
                continue  # a response handed on to another request is not a secret
            said = text.replace(PARAM, src.what)
            if kind == "secret-network" and src.strong:
                sev = "critical"
            steps = (*src.steps(), (call.lineno, f"passes it to {f}()", None), (sline, said, where))
            self.facts.flows.append(Flow(kind, sev, call.lineno, f"{said} (through {f}())", steps))
            return

    def visit(self, node: ast.AST) -> None:
        self.visited += 1
        if not self.visited & 255:
            check_deadline()
        if isinstance(node, ast.Import):
            for a in node.names:
                self.env[a.asname or a.name.split(".")[0]] = (
                    "mod",
                    a.name if a.asname else a.name.split(".")[0],
                )
            self._imports(node)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if node.module:
                    self.env[a.asname or a.name] = ("mod", f"{node.module}.{a.name}")
            self._imports(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            self._assign(node)
        elif isinstance(node, ast.If):
            self._narrow(node)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name) and (src := self.source(item.context_expr)):
                    self.taint[item.optional_vars.id] = src
                elif isinstance(item.optional_vars, ast.Name) and (
                    dest := self._downloaded(item.context_expr)
                ):
                    # `with urlopen(u) as r`: whatever is read from `r` was downloaded
                    self.taint[item.optional_vars.id] = Source(
                        f"content downloaded from {dest}", node.lineno, True
                    )
                if isinstance(item.optional_vars, ast.Name) and isinstance(item.context_expr, ast.Call):
                    self._opened(item.optional_vars.id, item.context_expr)
        elif isinstance(node, ast.For) and (root := self._home_tree(node.iter)):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    self.home_walk[n.id] = root
        if (
            isinstance(node, ast.For | ast.comprehension)
            and isinstance(it := node.iter, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and isinstance(it.func.value, ast.Name)
            and it.func.attr in ("items", "keys", "values")
        ):
            # `for name, rel in PATHS.items()`: each name takes every key or value the dict was given
            d = it.func.value.id
            parts = [node.target] if it.func.attr != "items" else getattr(node.target, "elts", [])[:2]
            for t, which in zip(
                parts, ("values",) if it.func.attr == "values" else ("keys", "values"), strict=False
            ):
                if isinstance(t, ast.Name) and (found := self.lists.get(f"{d}.{which}")):
                    self.env[t.id] = ALT.join(found)
        if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Tuple | ast.List):
            # `for name, data in attachments()`: each part of an item of a secret sequence holds it
            if self.ready and (src := self.source(node.iter)):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        self.taint[n.id] = src
        elif isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
            if (
                isinstance(node, ast.For)
                and isinstance(it := node.iter, ast.Call)
                and (getattr(it.func, "attr", None) or getattr(it.func, "id", None))
                in ("splitlines", "readlines", "open")
                and not any(
                    isinstance(x, ast.Name) and x.id == node.target.id and not isinstance(x.ctx, ast.Load)
                    for stmt in node.body
                    if not _trimmed(stmt, node.target.id)
                    for x in ast.walk(stmt)
                )
            ):
                # each `line` one line of the file, never given another value in the loop
                self.line_tests.update((x, node.target.id) for x in node.body if isinstance(x, ast.If))
            if self.ready and (src := self.source(node.iter)):
                self.taint[node.target.id] = src
            elif self.ready and (dest := self._downloaded(node.iter)):
                # `for rec in resolver.resolve(name, "TXT")`: each item was downloaded
                self.taint[node.target.id] = Source(f"content downloaded from {dest}", node.iter.lineno, True)
            if isinstance(node.iter, ast.Name):
                items = self.lists.get(node.iter.id) or self.lists.get(node.iter.id + ".keys")
            elif isinstance(node.iter, ast.List | ast.Tuple):
                # `for base in (home, Path.cwd())`: the values that fold are among those it takes
                items = [v for e in node.iter.elts if (v := self.fold(e)) is not None]
            else:
                items = self._globbed(node.iter)
            if items:
                self.env[node.target.id] = ALT.join(items)
        elif isinstance(node, ast.Call):
            if (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "join"
                and isinstance(node.func.value, ast.Constant)
            ):
                self.argv_nodes.update(node.args)  # `"".join(("ex", "ec"))`: one string's pieces
            self._call(node)
            if (later := _deferred(node, self.qual(node.func) or "")) is not None:
                self._call(later)
            if (self.qual(node.func) or "") in _SAY and not _calls_inside(node):
                # a message shown to the user ("run: systemctl ...") is text, not a command; one
                # that calls something on its way out (`print(f"{os.system(c)}")`) is not just shown
                for a in node.args:
                    if isinstance(a, ast.Constant | ast.JoinedStr):
                        self.facts.data_lines.update(range(a.lineno, (a.end_lineno or a.lineno) + 1))
        elif (
            isinstance(node, ast.List | ast.Tuple | ast.Set)
            and node not in self.argv_nodes
            and len(node.elts) >= 2
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
        ):
            self.facts.data_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    def _read_run(self, code: str, line: int) -> None:
        """Code assembled at run time and handed to `exec` (decoded, unscrambled) is read as Python
        too: what it does is reported at the line that runs it."""
        if self.depth >= MAX_RUN_DEPTH:
            return
        if code not in self.run_read:
            # each distinct text once per file, and a bounded amount in all
            self.run_left[0] -= len(code)
            if self.run_left[0] < 0 or len(self.run_read) >= 64:
                return
            self.run_read[code] = analyse(code, depth=self.depth + 1)
        sub = self.run_read[code]
        if sub is None:
            return
        for fl in sub.flows:
            steps = tuple((line if fn is None else n, st, fn) for n, st, fn in fl.steps)
            self.facts.flows.append(Flow(fl.kind, fl.severity, line, fl.text, steps))
        self.facts.shell.extend((line, c) for _, c in sub.shell)

    def _walked(self, node: ast.AST) -> str | None:
        """The home folder a loop walks, when `node` names one of the files it finds."""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        return next((self.home_walk[n] for n in names if n in self.home_walk), None)

    def _home_tree(self, it: ast.AST) -> str | None:
        """The home directory (or a data folder in it) a loop walks: `Path.home().rglob("*")`,
        `os.walk("~/Documents")`, `glob.glob("~/Desktop/**")`, or a name bound to such a walk."""
        if isinstance(it, ast.Name):
            return self.home_walk.get(it.id)
        if not isinstance(it, ast.Call):
            return None
        f = self.qual(it.func) or ""
        short = f.rsplit(".", 1)[-1]
        base = None
        if (
            short in ("rglob", "glob", "iterdir", "walk")
            and isinstance(it.func, ast.Attribute)
            and not f.startswith(("os.", "glob."))
        ):
            base = self.fold(it.func.value)
        elif f in ("os.walk", "os.scandir", "os.listdir", "glob.glob", "glob.iglob") and it.args:
            base = self.fold(it.args[0])
            if base is not None:
                base = base.split("*", 1)[0].rstrip("/") or base
        # `for root in (home / "Documents", home / "src")`: any folder among those it takes
        return next((b for b in base.split(ALT) if destroys(b)), None) if base else None

    def _narrow(self, node: ast.If) -> None:
        """`if line.startswith("LUMA_API_KEY="): key = line.split("=", 1)[1]` (or `return ...`) over a project's own
        `.env`: what the body takes from `line` is that one variable, weighed like `$LUMA_API_KEY`."""
        t = node.test
        if not (
            isinstance(t, ast.Call)
            and isinstance(t.func, ast.Attribute)
            and t.func.attr == "startswith"
            and isinstance(t.func.value, ast.Name)
            and self.line_tests.get(node) == t.func.value.id
            and (src := self.taint.get(t.func.value.id)) is not None
            and OWN_FILE.search(src.what)
            and len(t.args) == 1
            and (name := re.fullmatch(r"\s*(\w+)\s*=?", self.fold(t.args[0]) or ""))
            and SECRET_ENV.match(name[1])
        ):
            return
        for stmt in node.body:
            if (
                isinstance(stmt, ast.Assign | ast.Return)
                and stmt.value is not None
                # taken from the line alone: `line.split("=", 1)[1].strip()`, nothing else beside it
                and all(n.id == t.func.value.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name))
                and any(isinstance(n, ast.Name) for n in ast.walk(stmt.value))
            ):
                self.narrowed[stmt] = Source(f"${name[1]}", stmt.lineno, False)

    def _assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        if value is None:
            return
        if (
            self.ready
            and self.log_dest
            and len(self.logged) < 8
            and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in self.records
                for t in targets
            )
            and (src := self.source(value)) is not None
        ):
            # a filter or formatter that puts a secret on the log record: the handler ships it
            self.logged.append((node.lineno, src))
        if (
            isinstance(node, ast.Assign)
            and len(targets) == 1
            and isinstance(targets[0], ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(targets[0].elts) == len(value.elts)
        ):
            for t, v in zip(targets[0].elts, value.elts, strict=True):
                if isinstance(t, ast.Name) and (f := self.fold(v)) is not None:
                    self.env[t.id] = f
            return
        for t in targets:
            # files[name] = open(...): the container holds the secret from then on
            if isinstance(t, ast.Subscript | ast.Attribute) and (src := self.source(value)):
                base = t.value
                while isinstance(base, ast.Subscript):
                    base = base.value
                key = (
                    base.id
                    if isinstance(base, ast.Name)
                    else self.qual(base)
                    if isinstance(base, ast.Attribute)
                    else None
                )
                if key and (self.ready or key not in self.taint):
                    self.taint[key] = src
                    if src.what.startswith("*"):
                        self.loose.append((key, value))
        for t in targets:  # a request object re-pointed (`req.full_url = ...`) or rebound
            while isinstance(t, ast.Attribute | ast.Subscript):
                t = t.value
            self.requests.pop(t.id if isinstance(t, ast.Name) else "", None)
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not names:
            return
        if isinstance(value, ast.Lambda) and len(self.lambdas) < MAX_FUNCTIONS:
            for n in names:
                self.lambdas[n] = value
        if (table := self._table(value)) is not None and len(self.tables) < MAX_FUNCTIONS:
            for n in names:
                self.tables[n] = table
        if isinstance(value, ast.Dict) and None not in value.keys and len(self.lists) < MAX_FUNCTIONS:
            # `PATHS = {"fly": ".fly/config.yml", …}`: its keys and values, for a loop over them
            keys, vals = (
                [self.fold(k) for k in value.keys if k is not None],
                [self.fold(v) for v in value.values],
            )
            for n in names:
                self.lists[n + ".keys"] = [k for k in keys if k is not None]
                self.lists[n + ".values"] = [v for v in vals if v is not None]
        if (
            isinstance(value, ast.List | ast.Tuple | ast.ListComp)
            and (items := self._fold_items(value)) is not None
        ):
            for n in names:
                self.lists[n] = items
        elif (argv := self._argv(value)) is not None and len(self.argvs) < MAX_FUNCTIONS:
            for n in names:
                self.argvs[n] = argv
        elif isinstance(value, ast.Call | ast.BinOp) and (found := self._globbed(value)):
            for n in names:
                self.lists[n] = found
        if isinstance(node, ast.AugAssign):
            if isinstance(node.op, ast.Add):
                cur = self.env.get(names[0])
                add = self.fold(value)
                if isinstance(cur, str) and add is not None and len(cur) + len(add) <= MAX_FOLD:
                    self.env[names[0]] = cur + add
            src = self.source(value)
            if src:
                self.taint[names[0]] = src
            return
        if isinstance(value, ast.Call):
            for n in names:
                self._opened(n, value)
            # `req = Request(url, ...)`: `urlopen(req)` goes where `url` is
            if (self.qual(value.func) or "").endswith("Request") and (to := self._dest(value)):
                self.requests.update(dict.fromkeys(names, to))
        if self.sockets and any(
            isinstance(c, ast.Call)
            and isinstance(c.func, ast.Attribute)
            and c.func.attr in ("recv", "recvfrom", "read", "readline")
            and self._socket_fd(c.func.value)
            for c in ast.walk(value)
        ):
            self.received.update(names)
        q = self.qual(value) if isinstance(value, ast.Call) else None
        folded = self.fold(value)
        for n in names:
            if isinstance(value, ast.Call) and (
                self.qual(value.func) in ("importlib.import_module", "import_module", "__import__")
            ):
                if q:
                    self.env[n] = ("mod", q)
                continue
            qv = self.qual(value) if isinstance(value, ast.Attribute | ast.Name) else None
            if isinstance(value, ast.Call) and self.qual(value.func) == "getattr" and q and "." in q:
                self.env[n] = ("mod", q)  # run = getattr(builtins, "ex" + "ec")
                continue
            if qv and "." in qv and isinstance(self.env.get(qv.split(".")[0]), tuple):
                self.env[n] = ("mod", qv)
                continue
            if folded is not None:
                self.env[n] = folded
            elif (
                (loose := self._loose_path(value)) is not None
                and secret_path(loose)
                # a project's own `.env`, found upwards, is its own; a round of several credential
                # files (`.env`, `.env.production`, ...) read in turn is a collection of them
                # (one under the home directory or at an absolute path is no project's own)
                and (
                    not OWN_FILE.search(loose)
                    or loose.startswith(("~", "/"))
                    or sum(1 for x in loose.split(ALT) if secret_path(x)) > 1
                )
                and len(self.loose_paths) < 64
            ):
                self.loose_paths[n] = loose  # `f = prof / name` with `name` a credential file's name
            else:
                self.loose_paths.pop(n, None)
            src = self.source(value)
            if src:
                src = self.narrowed.get(node, src)
                self.taint[n] = src
                if src.what.startswith("*"):
                    self.loose.append((n, value))
            elif isinstance(value, ast.Call) and self._is_download(value):
                self.taint[n] = Source(
                    f"content downloaded from {self._dest(value) or 'the network'}",
                    node.lineno,
                    True,
                )
            elif isinstance(value, ast.Call) and _unlocks(value):
                # z.read(name, pwd=...): what a password-protected archive hid from the scan
                self.taint[n] = Source(
                    "content unpacked from a password-protected archive", node.lineno, True
                )

    def _is_download(self, call: ast.Call) -> bool:
        f = self.qual(call.func) or ""
        if f in ("urllib.request.urlopen", "urlopen") or f.startswith(("requests.get", "httpx.get")):
            return True
        if f.endswith(("resolver.resolve", "resolver.query")) and any(
            (self.fold(a) or "").upper() == "TXT"
            for a in [*call.args[1:2], *(k.value for k in call.keywords)]
        ):
            return True  # a DNS TXT record: text its zone's owner serves
        if f.startswith("subprocess.") and call.args:
            # `check_output(["dig", "+short", zone, "TXT"])`, `getoutput("nslookup -type=txt zone")`
            a0 = call.args[0]
            words = [self.fold(x) or "" for x in a0.elts] if isinstance(a0, ast.List | ast.Tuple) else []
            words = words or (self.fold(a0) or "").split()
            if words and _TXT_LOOKUP.match(words[0]) and any(_TXT_TYPE.search(w) for w in words[1:]):
                return True
        # urlopen(...).read()
        return (
            isinstance(call.func, ast.Attribute)
            and call.func.attr in _READ_METHODS | {"text", "content", "json", "decode"}
            and isinstance(call.func.value, ast.Call)
            and self._is_download(call.func.value)
        )

    def _downloaded(self, node: ast.AST | None) -> str | None:
        """Where `node` downloads from, when it is a download (`urlopen(u).read()`)."""
        if not isinstance(node, ast.Call) or not self._is_download(node):
            return None
        return self._dest(node) or self._dest(_inner_call(node)) or "the network"

    def _runs_fetched(self, line: int, text: str, src: Source | None = None) -> None:
        self._flow("download-exec", "critical", line, text, src)

    def _dest(self, call: ast.Call) -> str | None:
        for a in [*call.args, *(k.value for k in call.keywords if k.arg in ("url", "host", "address"))]:
            if isinstance(a, ast.Name) and a.id in self.requests:
                return self.requests[a.id]
            s = self.fold(a)
            head = a
            while s is None and isinstance(head, ast.BinOp) and isinstance(head.op, ast.Add):
                head = head.left  # `base + "/v1/" + key`: the host is in what the address starts with,
                s = self.fold(head)  # once it ends there (not `"http://127.0.0.1" + rest`)
                s = s if s is None or re.match(r"[\w+.-]+://[^/?#]*[/?#]", s) else None
            if s and ("://" in s or "." in s):
                return s
            if isinstance(a, ast.Tuple) and a.elts:
                h = self.fold(a.elts[0])
                if h:
                    return h
        return None

    def _call(self, call: ast.Call) -> None:
        f = self.qual(call.func) or ""
        for i, attr in self.kept.get(f, {}).items():
            # `_Loader(src)` whose `__init__` keeps it as `self.source`: its methods read that value
            given = (
                call.args[i]
                if isinstance(i, int) and i < len(call.args)
                else next((k.value for k in call.keywords if k.arg == i), None)
            )
            if given is not None and (src := self.source(given)) is not None:
                self.taint.setdefault(f"self.{attr}", src)
        short = f.rsplit(".", 1)[-1]
        line = call.lineno
        if self.sinks or self._local(f) is not None:
            self._call_sinks(call, f)
        if self.ready and self.log_dest and short in _LOG_CALLS and "." in f and len(self.logged) < 8:
            # `log.info("%s", secret)`, `extra={"k": secret}`: what is logged, the handler ships
            given = [*call.args, *(k.value for k in call.keywords)]
            given += [v for a in given if isinstance(a, ast.Dict) for v in a.values]
            if src := next((s for a in given if (s := self.source(a)) is not None), None):
                self.logged.append((line, src))
        if (
            self.ready
            and (fn := self.defs.get(f)) is not None
            and len(fn.body) <= 8
            and self._runs_commands(fn)
        ):
            self._runs_helper(call, fn)
        args = [*call.args, *(k.value for k in call.keywords)]
        if (
            short in _PACK_METHODS
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in self.archive_of
            and call.args
        ):
            self._packed(
                call.func.value.id, call.args[0], line, [*call.args[1:], *(k.value for k in call.keywords)]
            )
        if f == "os.dup2" and len(call.args) == 2 and self._socket_fd(call.args[0]):
            self.dup_lines.append(line)
        self._saved(call, f, short)
        first = _argv0(call, f)
        runs = f in _EXEC or f.startswith(_EXEC_PREFIX)
        if self.dl_files and runs and isinstance(first, ast.Name) and first.id in self.dl_files:
            url = self.dl_files[first.id]
            self._runs_fetched(
                line, f"downloads {url} to a file and runs that file", Source(f"downloads {url}", line, True)
            )
        if runs and (src := self._fetched_command(call, f)) is not None:
            self._runs_fetched(line, f"runs {src.what} as a command line", src)
        if self.received and (runs or f in _CODE) and self._runs_received(call, f):
            self._flow(
                "reverse-shell",
                "critical",
                line,
                "runs commands it receives from a network socket (a remote shell)",
                None,
            )
        # once a socket stands in for the standard streams, a shell handed to any call (one whose
        # name is hidden: `getattr(m, "fcnja")("/bin/sh")`) is the shell on it
        if self.dup_lines and not runs and call.args and _SHELL_NAMES.search(self.fold(call.args[0]) or ""):
            self.shell_lines.append(line)
        if runs and call.args:
            first = call.args[0]
            argv0 = (
                self.fold(first.elts[0]) if isinstance(first, ast.List | ast.Tuple) and first.elts else None
            )
            cmd = argv0 or self.fold(first) or ""
            word = cmd.split()[0] if cmd.split() else ""
            if _SHELL_NAMES.search(word):
                self.shell_lines.append(line)
                # Popen(["/bin/sh"], stdin=s, stdout=s): the socket is the shell's terminal
                if any(k.arg in ("stdin", "stdout") and self._socket_fd(k.value) for k in call.keywords):
                    self.dup_lines.append(line)
        # execution sinks
        if runs:
            # an argv list is a command, not data (also each list of `base + ["push", "-f"]`)
            self.argv_nodes.update(n for a in call.args[:1] for n in ast.walk(a) if isinstance(n, ast.List))
            self.argv_nodes.update(call.args)
            cmd = self.fold(call.args[0]) if call.args else None
            loose = False  # read with run-time items: for what the command does, not as a hidden one
            if (
                cmd is None
                and call.args
                and not any(isinstance(n, ast.Name) and n.id in self.taint for n in ast.walk(call.args[0]))
                and (argv := self._argv(call.args[0])) is not None
            ):  # (a secret in it is read with a stand-in, below)
                cmd, loose = " ".join(w if w == _RUNTIME else shlex.quote(w) for w in argv), True
            if cmd is None and len(call.args) > 1 and f.startswith(("os.exec", "os.spawn")):
                vals = [self.fold(a) for a in call.args[1:]]
                cmd = " ".join(v for v in vals if v) or None
            if cmd:
                cmd = shown(cmd)
                cwd = next((self.fold(k.value) for k in call.keywords if k.arg == "cwd"), None)
                self.facts.shell.append((line, f"cd {shlex.quote(cwd)} && {cmd}" if cwd else cmd))
                if not loose and not (isinstance(call.args[0], ast.Constant) and call.args[0].value == cmd):
                    self.facts.assembled.append((line, cmd))
            elif self.ready and call.args and (marked := self._stand_in(call.args[0])):
                self.facts.shell.append((line, marked))  # a secret put into a command it runs
            return
        if f in _UNPICKLE and call.args:
            src = self.source(call.args[0])
            if src and src.what.startswith(_FETCHED):
                self._runs_fetched(line, f"unpickles {src.what}, which runs code it carries", src)
            elif (dest := self._downloaded(_unwrap_attr(call.args[0]))) is not None:
                self._runs_fetched(line, f"downloads {dest} and unpickles it, which runs code it carries")
            return
        if f in _CODE and call.args:
            code = self.fold(call.args[0])
            if code and not isinstance(call.args[0], ast.Constant):
                self.facts.assembled.append((line, shown(code)))
                self._read_run(code, line)
            src = self.source(call.args[0])
            if src and src[0].startswith(_FETCHED):
                self._runs_fetched(line, f"runs {src[0]} as Python code", src)
            elif isinstance(call.args[0], ast.Call) and _unlocks(call.args[0]):
                self._runs_fetched(
                    line, "runs content unpacked from a password-protected archive as Python code"
                )
            elif (dest := self._downloaded(call.args[0])) is not None:
                self._runs_fetched(line, f"downloads {dest} and runs it as Python code")
            return
        if (
            short in _FILL_METHODS
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and (src := next((x for a in args if (x := self.source(a))), None))
        ):
            self.taint.setdefault(call.func.value.id, src)
        if (
            short in _SAVE_METHODS
            and isinstance(call.func, ast.Attribute)
            and call.args
            and isinstance(call.args[0], ast.Name)
            and (src := next((x for a in args[1:] if (x := self.source(a))), None))
        ):
            # img.save(path, exif=...), doc.save(path, metadata=...): the file at `path` now holds it
            how = f"saves {src.what} into the file {call.args[0].id}"
            self.taint.setdefault(call.args[0].id, Source(src.what, line, src.strong, src.steps(), how))
        if f in ("urllib.request.urlretrieve", "urlretrieve") and len(call.args) >= 2:
            url, out = self.fold(call.args[0]), self.fold(call.args[1])
            if out:
                # read with the commands this file runs: a download run by a later command
                self.facts.shell.append(
                    (line, shlex.join(["curl", "-o", shown(out), shown(url or "the network")]))
                )
        # s3.upload_file(path, bucket, key), sftp.put(path, remote): the file at `path` is sent
        if (
            short in _UPLOADS
            and isinstance(call.func, ast.Attribute)
            and call.args
            and (s := self._secret(call.args[0]))
        ):
            src = Source(s, line, True)
            sev, text = sent(src, "remote storage")
            self._flow("secret-network", sev, line, text, src)
            return
        # network sinks
        dns = f in _DNS
        net = dns or f in _NET or f.startswith(_NET_MODULES) or (short in _NET_METHODS and "." in f)
        if not net and short in _NET_METHODS and isinstance(call.func, ast.Attribute):
            # ftplib.FTP(host).storbinary(...), socket.create_connection(addr).sendall(...)
            opened = _unwrap_attr(call.func.value)
            net = opened is not None and (self.qual(opened.func) or "") in _NET | {
                "socket.socket",
                "requests.Session",
            }
        if net and args:
            self.sink_calls += 1
            for a in args:
                src = self.source(a)
                if not src:
                    continue
                if src.what.startswith(_FETCHED):
                    continue
                sev, text = sent(src, self.fold(a) if dns else (self._dest(call) or _receiver(f)), dns)
                self._flow("secret-network", sev, line, text, src)
                break
            return
        # writes: persistence, kernel knobs, every file found under the home directory
        if f in ("open", "io.open", "builtins.open") and call.args:
            if self._for_writing(call, 1):
                self._written(call.args[0], line, None)
            return
        if f == "os.open" and len(call.args) >= 2 and _OS_WRITE.search(ast.unparse(call.args[1])):
            self._written(call.args[0], line, None)
            return
        if isinstance(call.func, ast.Attribute) and (
            short in ("write_text", "write_bytes")
            or (short == "open" and f != "os.open" and self._for_writing(call, 0))
        ):
            body = None
            if short != "open" and call.args:
                body = self.fold(call.args[0])
                body = body if body is not None else ast.unparse(call.args[0])
                if isinstance(call.args[0], ast.Name) and call.args[0].id in self.pieces:
                    body += self.pieces[call.args[0].id]  # what it may hold besides
                self._stash(call.func.value, call.args[0])
            self._written(call.func.value, line, body)
            return
        if f in ("shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree") and len(call.args) >= 2:
            src_path, dst = self.fold(call.args[0]), self.fold(call.args[1])
            if (
                (s := self._secret(call.args[0]))
                and (to := dst or self._loose_path(call.args[1]))
                and len(self.copied) < 64
            ):
                self.copied.setdefault(to, Source(s, line, True, how=f"copies {s} to {shown(to)}"))
            if src_path and secret_path(src_path):
                # read with the commands this file runs: a copy into a repository that is pushed
                self.facts.shell.append((line, shlex.join(["cp", src_path, dst or "."])))
            return
        if f in _DELETE or (short in ("unlink", "rmdir") and isinstance(call.func, ast.Attribute)):
            target = (
                call.args[0]
                if call.args
                else (call.func.value if isinstance(call.func, ast.Attribute) else None)
            )
            p = self.fold(target) if target is not None else None
            if f in ("shutil.rmtree", "rmtree") and p and destroys(p):
                self._flow("destruction", "high", line, f"recursively deletes {p}", None)
            elif target is not None and self.home_walk:
                names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                hit = next((self.home_walk[n] for n in names if n in self.home_walk), None)
                if hit:
                    self._flow("destruction", "high", line, f"deletes every file it finds under {hit}", None)

    def _runs_commands(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether a function of this file may call something that runs a program."""
        end = fn.end_lineno or fn.lineno
        return any(fn.lineno <= n <= end for n in self.exec_lines)

    def _runs_helper(self, call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """`git("push", "--force", "--all")` with `def git(*args): run(["git", *args])`: the commands
        a short helper runs, with this call's constant arguments in its parameters' place, are
        commands this file runs (the shell reader reads them in order, as one script)."""
        a = fn.args
        # a value only known at run time (`for remote in ...`, `"_r:" + ref`) stays a variable
        vals = [
            v if (v := self.fold(x)) is not None else f"${x.id}" if isinstance(x, ast.Name) else "$VALUE"
            for x in call.args
        ]
        if (
            fn.name in self.folding
            or self.helper_runs >= 64
            or a.posonlyargs
            or len(vals) < len(a.args)
            or (len(vals) > len(a.args) and a.vararg is None)
        ):
            return
        self.helper_runs += 1
        saved_env, saved_lists = self.env, self.lists
        self.env, self.lists = dict(self.env), dict(self.lists)
        self.env.update((p.arg, v) for p, v in zip(a.args, vals, strict=False))
        # keyword arguments (`check=False`) fill their parameters when they fold
        self.env.update((k.arg, v) for k in call.keywords if k.arg and (v := self.fold(k.value)) is not None)
        if a.vararg is not None:
            self.lists[a.vararg.arg] = [v for v in vals[len(a.args) :] if v is not None]
        self.folding.add(fn.name)
        try:
            sub = self._body([n for n in ast.walk(fn) if n is not fn], {}, None)
        finally:
            self.env, self.lists = saved_env, saved_lists
            self.folding.discard(fn.name)
        self.facts.shell.extend((call.lineno, cmd) for _, cmd in sub.facts.shell)
        # `_set("/proc/sys/kernel/x", "0")` with `def _set(p, v): open(p, "w").write(v)`
        self.facts.flows.extend(
            Flow(fl.kind, fl.severity, call.lineno, fl.text, fl.steps)
            for fl in sub.facts.flows
            if fl.kind in ("kernel", "persistence", "destruction")
        )

    def _opened(self, name: str, call: ast.Call) -> None:
        """Remember what a name was opened as: an archive writer (and where it writes) or a socket."""
        f = self.qual(call.func) or ""
        if f in _SOCKETS or (
            isinstance(call.func, ast.Attribute) and call.func.attr in ("accept", "wrap_socket")
        ):
            self.sockets.add(name)
        elif (
            f in ("open", "io.open", "builtins.open")
            and len(call.args) >= 2
            and any(m in (self.fold(call.args[1]) or "") for m in "wax")
            and len(self.file_of) < 64
        ):
            self.file_of[name] = call.args[0]
        elif f in _ARCHIVES and len(self.archive_of) < 64:
            target = next((k.value for k in call.keywords if k.arg in ("fileobj", "file", "name")), None)
            if target is None and call.args:
                target = call.args[0]
            if target is not None:
                self.archive_of[name] = target

    def _packed(self, archive: str, member: ast.AST, line: int, extras: list[ast.AST]) -> None:
        """`tar.add(~/.kube/config)`: the archive, and the file or buffer it writes, hold the secret."""
        src = self.source(member)
        if src is None and (s := self._secret(member)):
            src = Source(s, line, True)
        for extra in extras:  # tar.addfile(info, fileobj=open(...)), zf.writestr(name, data)
            src = src or self.source(extra)
        if src is None or src.what.startswith((*_FETCHED, PARAM)):
            return
        target = self.archive_of[archive]
        packed = Source(src.what, line, src.strong, src.steps(), f"packs {src.what} into an archive")
        for n in (archive, target.id if isinstance(target, ast.Name) else None):
            if n and n not in self.taint:
                self.taint[n] = packed
                self.late = True
        if (p := self.fold(target)) and len(self.copied) < 64:
            self.copied.setdefault(p, packed)

    def _saved(self, call: ast.Call, f: str, short: str) -> None:
        """`urlretrieve(url, p)`, `open(p, "wb").write(requests.get(url).content)`: the path named
        `p` holds a download from then on."""
        if wrote := short == "write" and isinstance(call.func, ast.Attribute) and bool(call.args):
            self._stash(call.func.value, call.args[0])
        if len(self.dl_files) >= 64:
            return
        if f in ("urllib.request.urlretrieve", "urlretrieve") and len(call.args) >= 2:
            if isinstance(call.args[1], ast.Name):
                self.dl_files[call.args[1].id] = self.fold(call.args[0]) or "the network"
            return
        if not wrote:
            return
        if not (isinstance(call.func.value, ast.Name) and call.func.value.id in self.file_of):
            return
        data, target = call.args[0], self.file_of[call.func.value.id]
        # what is written decides how bad the write is (a fetch in a start-up file, a setting
        # that runs a program): reported when it weighs more than opening the file did
        if (p := self.fold(target)) and (fl := written(p, call.lineno, self.fold(data) or ast.unparse(data))):
            opened = written(p, call.lineno)
            if opened is None or SEVERITIES.index(fl.severity) > SEVERITIES.index(opened.severity):
                self.facts.flows.append(fl)
        got = data.value if isinstance(data, ast.Attribute) and data.attr in ("content", "text") else data
        if (downloaded := self._downloaded(got)) is not None:
            url = downloaded
        elif (src := self.source(data)) is not None and src.what.startswith(_FETCHED):
            url = src.what.removeprefix("content downloaded from ")
        else:
            return
        if isinstance(target, ast.Name):
            self.dl_files[target.id] = url

    def _fetched_command(self, call: ast.Call, f: str) -> Source | None:
        """What was downloaded, when it is the command line run (`os.system(body)`, `run(body,
        shell=True)`, `Popen(["sh", "-c", body])`), not one argument of a named program."""
        first = call.args[0] if call.args else None
        whole = f in ("os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput") or any(
            k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords
        )
        nodes = [first] if whole and first is not None else []
        if isinstance(first, ast.List | ast.Tuple):
            words = [self.fold(e) for e in first.elts[:8]]
            nodes += [first.elts[i + 1] for i, w in enumerate(words[:-1]) if w in ("-c", "/c", "-Command")]
        for n in nodes:
            if (src := self.source(n)) is not None and src.what.startswith(_FETCHED):
                return src
        return None

    def _runs_received(self, call: ast.Call, f: str) -> bool:
        """What a socket received is the program or command line run (`run(cmd, shell=True)`,
        `os.system(cmd)`, `exec(code)`, `run([cmd, ...])`), not one argument of a named program."""
        whole = (
            f in _CODE
            or f in ("os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput")
            or any(
                k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value
                for k in call.keywords
            )
        )
        node = call.args[0] if whole and call.args else _argv0(call, f)
        return node is not None and any(
            isinstance(n, ast.Name) and n.id in self.received for n in ast.walk(node)
        )

    def _socket_fd(self, node: ast.AST) -> bool:
        """`s.fileno()` or `s` for a name bound to a socket."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "fileno":
            node = node.func.value
        return isinstance(node, ast.Name) and node.id in self.sockets

    def _stand_in(self, node: ast.AST) -> str | None:
        """The command `node` folds to with each secret-holding name in it replaced by a stand-in
        variable (`["curl", "-d", tok, URL]` reads as `curl -d ${SY_SECRET_0} URL`)."""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.taint}
        if not names or len(self.facts.stand_ins) >= 32:
            return None
        marks = {}
        for n in sorted(names):
            src = self.taint[n]
            if src.what.startswith(PARAM) or src.what.startswith(_FETCHED):
                continue
            marks[n] = (len(self.facts.stand_ins) + len(marks), src)
        self.marking = {n: stand_in_marker(k) for n, (k, _) in marks.items()}
        try:
            cmd = self.fold(node) if marks else None
            if cmd is None and marks and (items := self._argv(node)) is not None:
                # an argument list with other items known only at run time (`"-d", str(out)`)
                cmd = " ".join(items) if any(m in " ".join(items) for m in self.marking.values()) else None
        finally:
            self.marking = {}
        if not cmd:
            return None
        for _n, (k, src) in marks.items():
            self.facts.stand_ins[f"{STAND_IN}{k}"] = src
        return stand_in_command(shown(cmd))

    def _for_writing(self, call: ast.Call, at: int) -> bool:
        """Whether an `open` call's mode (argument `at`, or `mode=`) writes or appends."""
        node = (
            call.args[at]
            if len(call.args) > at
            else next((k.value for k in call.keywords if k.arg == "mode"), None)
        )
        mode = self.fold(node) if node is not None else None
        return bool(mode) and ("w" in mode or "a" in mode)

    def _globbed(self, node: ast.AST) -> list[str] | None:
        """The patterns of the paths a glob yields (`sorted(glob.glob("/dev/sd?") + ...)`): a name
        bound by a loop over them stands for each pattern, as for a loop over constants."""
        if isinstance(node, ast.Name):
            return self.lists.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self._globbed(node.left), self._globbed(node.right)
            # `g = g + g` forty times would double the list forty times: at most MAX_ALTS patterns
            return [*(a or []), *(b or [])][:MAX_ALTS] if a or b else None
        if isinstance(node, ast.Call) and node.args:
            f = self.qual(node.func)
            if f in ("sorted", "list", "set", "tuple"):
                return self._globbed(node.args[0])
            if f in ("glob.glob", "glob.iglob") and (pattern := self.fold(node.args[0])):
                return [pattern]
        return None

    def _written(self, target: ast.AST, line: int, content: str | None) -> None:
        """A file this code writes: a path it can fold, or each file a walk of the home directory found."""
        if p := self.fold(target) or self._anywhere(target):
            self._write(p, line, content)
        elif self.home_walk and (hit := self._walked(target)):
            self._flow("destruction", "high", line, f"overwrites every file it finds under {hit}", None)

    def _anywhere(self, target: ast.AST) -> str | None:
        """A file Python runs at every start wherever its folder is (`sitecustomize.py` in a path
        built from `site.getsitepackages()`): its folder need not be known."""
        p = self._loose_path(target)
        return p if p and _STARTUP_MODULE.search(p) else None

    def _stash(self, target: ast.expr, data: ast.expr) -> None:
        """A file filled with a secret: another file of the skill may send or publish it. Text
        written to the standard streams is shown, not saved."""
        if _STD_STREAM.fullmatch(self.qual(target) or ""):
            return
        if len(self.facts.stashed) < 64 and (src := self.source(data)) is not None:
            if isinstance(target, ast.Name) and target.id in self.file_of:
                target = self.file_of[target.id]
            self.facts.stashed.setdefault(self.fold(target) or ast.unparse(target)[:80], src)

    def _write(self, path: str, line: int, content: str | None = None) -> None:
        """A write of `path`, or of any of the paths it may be (a loop over several)."""
        if fl := next((f for p in path.split(ALT) if (f := written(p, line, content))), None):
            self.facts.flows.append(fl)

    def _flow(self, kind: str, sev: str, line: int, text: str, src: Source | None) -> None:
        if src is not None and src.what.startswith(PARAM):
            # reading a function body: remember where this parameter goes, for its callers
            if self.param_sinks is not None:
                pos = int(src.what[len(PARAM) :])
                self.param_sinks.setdefault(pos, (kind, sev, line, text.replace(src.what, PARAM)))
            return
        self.facts.flows.append(flow(kind, sev, line, text, src))


#: The statements and expressions `_Reader.visit` reads; everything else it passes over.
_VISITED = (
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.With,
    ast.AsyncWith,
    ast.For,
    ast.comprehension,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.If,
)


#: Calls that take a function and its arguments and call it later (at exit, in a thread, on a
#: timer): name -> (position of the function, position of the arguments or None for *args after it).
_DEFER = {
    "atexit.register": (0, None),
    "threading.Thread": (None, None),
    "multiprocessing.Process": (None, None),
    "threading.Timer": (1, 2),
    "Timer": (1, 2),
    "submit": (0, None),
    "call_later": (1, None),
    "call_soon": (0, None),
    "run_in_executor": (1, None),
    "apply_async": (0, 1),
    "enter": (2, 3),
}


def _calls_inside(node: ast.Call) -> bool:
    """A call among a call's arguments, other than a string's own method (`"{}".format(x)`)."""
    inner = [*node.args, *(k.value for k in node.keywords)]
    return any(
        isinstance(x, ast.Call)
        and not (isinstance(x.func, ast.Attribute) and isinstance(x.func.value, ast.Constant))
        for a in inner
        for x in ast.walk(a)
    )


def _deferred(call: ast.Call, f: str) -> ast.Call | None:
    """`atexit.register(shutil.rmtree, home)`, `Thread(target=f, args=(x,))`: the call made later,
    as if written out (`shutil.rmtree(home)`)."""
    spec = _DEFER.get(f) or (_DEFER.get(f.rsplit(".", 1)[-1]) if "." in f else None)
    if spec is None:
        return None
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    fpos, apos = spec
    fn = kw.get("target") or kw.get("function") or kw.get("action")
    if fn is None and fpos is not None and len(call.args) > fpos:
        fn = call.args[fpos]
    if fn is None or not isinstance(fn, ast.Name | ast.Attribute):
        return None
    packed = kw.get("args") or kw.get("argument")
    if packed is None and apos is not None and len(call.args) > apos:
        packed = call.args[apos]
    if packed is not None:
        args = list(packed.elts) if isinstance(packed, ast.Tuple | ast.List) else []
    else:
        args = list(call.args[fpos + 1 :]) if fpos is not None else []
    return ast.copy_location(ast.Call(func=fn, args=args, keywords=[]), call)


#: Values that are code from outside the skill's readable files: running them is download-and-execute.
_FETCHED = ("content downloaded", "content unpacked")


#: A DNS lookup program, and its argument asking for TXT records (`TXT`, `-type=txt`, `-t txt`).
_TXT_LOOKUP = re.compile(r"(?:\S*/)?(?:dig|nslookup|drill|kdig|host)(?:\.exe)?$", re.I)
_TXT_TYPE = re.compile(r"^(?:-(?:q?type|t)=?)?txt$", re.I)


def _unlocks(call: ast.Call) -> bool:
    """A read of an archive member with a password (`z.read(n, pwd=...)`, `SevenZipFile(p,
    password=...).readall()`)."""
    return any(
        isinstance(c, ast.Call) and any(k.arg in ("pwd", "password") for k in c.keywords)
        for c in ast.walk(call)
    ) or (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in ("read", "open")
        and len(call.args) == 2
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, bytes)
    )


def _SLASH(p: list[str]) -> str:
    return p[0].rstrip("/") + "/" + p[1]


def _path_join(parts: list[str]) -> str:
    out = ""
    for v in parts:
        out = v if v.startswith("/") or not out else out.rstrip("/") + "/" + v
    return climb(out)


def _spellings(arg: ast.expr, folded: str | None) -> Iterator[str]:
    """A request's address as folded, as written with its literal pieces joined (`b + "iam/" +
    role`, `f"{base}iam/security-credentials/"`), and each literal in it."""
    if folded:
        yield folded
    one_line = arg.end_lineno == arg.lineno and (arg.end_col_offset or 0) - arg.col_offset < 400
    if isinstance(arg, ast.BinOp | ast.JoinedStr) and one_line:
        yield re.sub(r"""['"]\s*\+\s*['"]""", "", ast.unparse(arg))
    yield from (a.value for a in ast.walk(arg) if isinstance(a, ast.Constant) and isinstance(a.value, str))


#: Calls that write or delete the file or folder they are given.
_WRITE_NAMES = frozenset({"open", "write_text", "write_bytes", "rmtree", "unlink", "remove"})


def _may_run(call: ast.Call) -> bool:
    """Whether a call's name is one that runs a program (`run`, `os.system`, `os.spawnl` ...), or
    writes or deletes a file (what a helper does with the path its caller gives it)."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in _EXEC_NAMES or name.startswith(("exec", "spawn")) or name in _WRITE_NAMES


def _argv0(call: ast.Call, f: str) -> ast.AST | None:
    """The program a run call `f` starts: `run([exe, ...])`, `run(exe)`, `os.spawnl(mode, exe, ...)`."""
    args = call.args[1:] if f.startswith("os.spawn") else call.args
    if not args:
        return None
    first = args[0]
    if isinstance(first, ast.List | ast.Tuple):
        return first.elts[0] if first.elts else None
    return first


def _unwrap_attr(node: ast.AST) -> ast.Call | None:
    """The call under `requests.get(u).content` (or the call itself)."""
    while isinstance(node, ast.Attribute) and node.attr in ("content", "text", "raw", "data"):
        node = node.value
    return node if isinstance(node, ast.Call) else None


def _inner_call(node: ast.Call) -> ast.Call:
    while isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
        node = node.func.value
    return node


def _receiver(f: str) -> str | None:
    return f"a {f.split('.')[0]} connection" if "." in f else None


#: logging's handlers that send records over the network, and the argument or key naming the host.
_NET_HANDLER = re.compile(r"(?:^|\.)(HTTPHandler|SocketHandler|DatagramHandler|SMTPHandler|SysLogHandler)$")
_HANDLER_HOST = {"HTTPHandler": "host", "SocketHandler": "host", "DatagramHandler": "host"}
_HANDLER_HOST |= {"SMTPHandler": "mailhost", "SysLogHandler": "address"}


def _log_shipping(nodes: list[ast.AST]) -> tuple[int, str] | None:
    """(line, host) of a logging handler that ships records over the network, built by a call
    (`logging.handlers.HTTPHandler("logs.example", "/in")`) or configured by name in a
    `dictConfig` (`{"class": "logging.handlers.HTTPHandler", "host": …}`); a host only known at
    run time is "a host chosen at run time". A syslog handler to the local socket ships nothing."""

    def host(node: ast.AST | None) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant):
            return str(node.elts[0].value)
        return "a host chosen at run time"

    for node in nodes:
        kind = None
        if isinstance(node, ast.Call) and (m := _NET_HANDLER.search(ast.unparse(node.func))):
            kind = m[1]
            key = _HANDLER_HOST[kind]
            given = next(
                (k.value for k in node.keywords if k.arg == key), node.args[0] if node.args else None
            )
        elif isinstance(node, ast.Dict):
            pairs = {
                k.value: v
                for k, v in zip(node.keys, node.values, strict=False)
                if isinstance(k, ast.Constant)
            }
            cls = pairs.get("class")
            if (
                isinstance(cls, ast.Constant)
                and isinstance(cls.value, str)
                and (m := _NET_HANDLER.search(cls.value))
            ):
                kind = m[1]
                given = pairs.get(_HANDLER_HOST[kind])
        if kind is None or (kind == "SysLogHandler" and given is None):
            continue
        where = host(given)
        if not LOOPBACK.match(where) and not where.startswith("/"):
            return node.lineno, where
    return None


_LOG_CALLS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})


def _record_names(nodes: list[ast.AST]) -> frozenset[str]:
    """The names log records go by in this file: the parameter of every `filter`, `format`,
    `emit` or `handle` method (`def filter(self, record)`), whatever it is called."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.FunctionDef) and node.name in ("filter", "format", "emit", "handle"):
            params = [a.arg for a in node.args.args]
            if len(params) == 2 and params[0] == "self" and len(names) < 32:
                names.add(params[1])
    return frozenset(names)


def _pieces(nodes: list[ast.AST]) -> dict[str, str]:
    """name -> the string literals assigned to it anywhere in the file, joined: the text put into a
    value step by step (`t += "[global]\\n"`, `t = t.replace("[x]", "[x]\\nkey = v")`), which is what
    a write of it may hold when it does not fold."""
    out: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Assign | ast.AugAssign) and len(out) < 256:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            lits = [
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
            for t in targets:
                if isinstance(t, ast.Name) and lits:
                    out[t.id] = (out.get(t.id, "") + "\n" + "\n".join(lits))[-8192:]
    return out


def analyse(
    text: str, project: Project | None = None, rel: str = "", export: bool = False, depth: int = 0
) -> CodeFacts | None:
    """Facts for one Python source; None when it does not parse (the regex rules still run).

    With `project`, names imported from the skill's other files bring their constants, secrets
    and helper functions along (`rel` is this file's path in the skill). `export`: every function
    is read, for the files that import this one."""
    try:
        nodes = list(ast.walk(ast.parse(text)))  # every node in walk order, listed once for all readers
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    reader = _Reader(project, rel)
    reader.depth = depth
    reader.pieces = _pieces(nodes)
    reader.log_dest = _log_shipping(nodes)
    reader.records = _record_names(nodes) if reader.log_dest else frozenset()
    try:
        return reader.run(nodes, eager=export)
    except RecursionError:
        return None


#: A cloud SDK's listing of everything of a kind in the account (`s3.list_buckets()`,
#: `ec2.describe_instances()`, `resource_groups.list()`, `s3.buckets.all()`).
_LISTING = re.compile(r"(?:list|describe)_\w+|list")
_LISTED_KINDS = re.compile(
    r"buckets|instances|volumes|snapshots|images|functions|tables|queues|topics|clusters|db_instances"
    r"|stacks|vpcs|resource_groups|projects|databases|repositories|secrets|keys"
)
#: What picks some of a listing out: a filter or a name prefix handed to the listing call.
_NARROWS = re.compile(r"filter|prefix|tag|match|query|name|label", re.I)
#: A cloud SDK call that destroys what it is handed (`delete_bucket`, `terminate_instances`,
#: `Bucket(n).delete()`, `begin_delete(rg)`, `bucket.delete(force=True)`).
_DESTROYS = re.compile(r"(?:delete|terminate|destroy|purge|begin_delete)(?:_\w+)?")


#: Calls that start a process or thread: what they return is that, not the value handed to them.
_STARTS_PROCESS = frozenset(
    "Popen run call check_call check_output Process Thread spawn create_subprocess_exec "
    "create_subprocess_shell system popen Pool".split()
)


#: Cloud SDKs a file imports to reach an account's resources.
_CLOUD_SDKS = frozenset(
    "boto3 botocore aioboto3 ibm_boto3 google azure oci digitalocean hcloud linode_api4 openstack "
    "scaleway vultr alibabacloud aliyunsdkcore tencentcloud huaweicloudsdkcore kubernetes".split()
)


#: Calls that run a function on each item of what they are handed.
_MAPS = frozenset("map imap imap_unordered map_async starmap".split())


def _name_of(f: ast.AST) -> str:
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _empty(node: ast.AST) -> bool:
    """`None`, `""`, `[]`, `{}`: a filter or a name that picks nothing out."""
    if isinstance(node, ast.Constant):
        return not node.value
    return (
        isinstance(node, ast.List | ast.Tuple | ast.Set)
        and not node.elts
        or (isinstance(node, ast.Dict) and not node.keys)
    )


def _target_names(loop: ast.comprehension) -> set[str]:
    return {x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name)}


def _account_listing(node: ast.AST) -> bool:
    """Whether `node` holds a listing of everything of a kind an account has, not narrowed."""
    for x in ast.walk(node):
        if not isinstance(x, ast.Call) or not isinstance(f := x.func, ast.Attribute):
            continue
        every = _LISTING.fullmatch(f.attr) and (
            f.attr != "list" or isinstance(f.value, ast.Attribute) and _LISTED_KINDS.fullmatch(f.value.attr)
        )
        every = every or (
            f.attr == "all" and isinstance(f.value, ast.Attribute) and _LISTED_KINDS.fullmatch(f.value.attr)
        )
        # a filter or a name prefix handed to it, or a constant naming what to list, picks some out
        if (
            every
            and not any(k.arg and _NARROWS.search(k.arg) and not _empty(k.value) for k in x.keywords)
            and not any(isinstance(a, ast.Constant) and not _empty(a) for a in x.args)
        ):
            return True
    return False


def _account_wipe(nodes: list[ast.AST], defs: dict[str, ast.AST]) -> tuple[int, str] | None:
    """A destroying call of a cloud SDK run on each thing a listing of the whole account names
    (`for b in s3.list_buckets()["Buckets"]: s3.delete_bucket(Bucket=b["Name"])`, also through a
    name the listing was put in, a value made from one, and a function of the file handed one), with
    no test on the item deciding which ones: every bucket, instance or resource group it can reach."""
    calls = [n for n in nodes if isinstance(n, ast.Call)]
    if not any(isinstance(c.func, ast.Attribute) and _DESTROYS.fullmatch(c.func.attr) for c in calls):
        return None
    parents: dict[ast.AST, ast.AST] = {}
    assigns: list[tuple[list[str], ast.AST]] = []
    loops: list[ast.For | ast.comprehension] = []
    for n in nodes:
        for c in ast.iter_child_nodes(n):
            parents[c] = n
        if isinstance(n, ast.Assign):
            assigns.append(([t.id for t in n.targets if isinstance(t, ast.Name)], n.value))
        elif isinstance(n, ast.For | ast.comprehension):
            loops.append(n)
    if not any(
        (m.split(".")[0] if m else "") in _CLOUD_SDKS
        for n in nodes
        for m in (
            [a.name for a in n.names]
            if isinstance(n, ast.Import)
            else [n.module or ""]
            if isinstance(n, ast.ImportFrom)
            else [n.value]  # `__import__("boto3")`, `import_module("boto3")`
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            else []
        )
    ):
        return None  # an account's resources are reached through its cloud's SDK
    listed: set[str] = set()

    def holds(node: ast.AST) -> bool:
        return any(isinstance(x, ast.Name) and x.id in listed for x in ast.walk(node))

    def vacuous(test: ast.AST, names: set[str]) -> bool:
        """A test that picks nothing out: a constant (`while True`), an item's own truth (`if ids:`,
        `if b["Name"]`), or an `or` holding one."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            return any(vacuous(v, names) for v in test.values)
        while isinstance(test, ast.Subscript | ast.Attribute):
            test = test.value
        return isinstance(test, ast.Constant) or isinstance(test, ast.Name) and test.id in names

    def picks(node: ast.AST) -> bool:
        """`[b for b in listing if b["Name"] in doomed]`: a comprehension whose test picks items out."""
        return any(
            isinstance(x, ast.comprehension) and not all(vacuous(t, _target_names(x) | listed) for t in x.ifs)
            for x in ast.walk(node)
        )

    def chosen(node: ast.AST) -> bool:
        """A test decides whether `node` runs (`if age > 30`, `if args.yes`; not a vacuous one, nor
        `if __name__ == "__main__"`)."""
        up = parents.get(node)
        while up is not None and not isinstance(up, ast.Module):
            if isinstance(up, ast.If | ast.IfExp | ast.While) and not (
                vacuous(up.test, listed)
                or any(isinstance(x, ast.Name) and x.id == "__name__" for x in ast.walk(up.test))
            ):
                return True
            up = parents.get(up)
        return False

    for _ in range(4):
        before = len(listed)
        for loop in loops:
            picked = isinstance(loop, ast.comprehension) and not all(
                vacuous(t, _target_names(loop) | listed) for t in loop.ifs
            )
            if not picked and (_account_listing(loop.iter) or holds(loop.iter)):
                listed.update(x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name))
        for names, value in assigns:
            if picks(value):
                continue
            if isinstance(value, ast.Call) and _name_of(value.func) in _STARTS_PROCESS:
                continue  # `proc = Popen(cmd)`: a process of its own, not the item it was handed
            if _account_listing(value) or holds(value):
                listed.update(names)
        for c in calls:  # `reclaim(name)`: the function's parameter holds the item
            fn = defs.get(c.func.id) if isinstance(c.func, ast.Name) else None
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and not chosen(c):
                for p, a in zip(fn.args.args, c.args, strict=False):
                    if holds(a):
                        listed.add(p.arg)
            # `map(kill, listing)`, `pool.map(lambda b: …, listing)`: the function takes each item
            f = c.args[0] if _name_of(c.func) in _MAPS and len(c.args) > 1 and not chosen(c) else None
            fn = defs.get(f.id) if isinstance(f, ast.Name) else f
            if isinstance(fn, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef) and any(
                (holds(a) or _account_listing(a)) and not picks(a) for a in c.args[1:]
            ):
                listed.update(p.arg for p in fn.args.args[:1])
        if len(listed) == before:
            break
    for c in calls:
        f = c.func
        if not (isinstance(f, ast.Attribute) and _DESTROYS.fullmatch(f.attr)):
            continue
        if isinstance(f.value, ast.Name) and f.value.id in ("os", "shutil", "self"):
            continue
        if not (
            holds(f.value)
            or any(holds(a) for a in c.args)
            or any(holds(k.value) for k in c.keywords)
            or _account_listing(f.value)  # `ec2.instances.all().terminate()`: a batch action on all
        ):
            continue
        if not chosen(c):
            return c.lineno, f"runs {f.attr} on everything a listing of the cloud account names"
    return None
