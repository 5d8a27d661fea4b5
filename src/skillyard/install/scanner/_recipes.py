"""Shell commands embedded in other files: Makefile recipes, CI workflow `run:` steps, Dockerfile `RUN`
(and `CMD`, `ENTRYPOINT`, `HEALTHCHECK CMD`).

Each is turned into a shell script with the same line numbers as the file it came from (lines
that hold no command are left blank), so the shell reader's flows point at the right line.
Only the text is rewritten; nothing here runs or parses shell itself.
"""

from __future__ import annotations

import json
import re
import shlex

from skillyard.install.scanner._flows import SECRET_ENV

_MAKE_VAR = re.compile(r"^([A-Za-z_][\w.-]*)\s*(?::{1,3}=|\?=|\+=|=)\s*(.*)$")
_MAKE_REF = re.compile(r"\$\(([A-Za-z_][\w.-]*)\)|\$\{([A-Za-z_][\w.-]*)\}")
_MAKE_AUTO = re.compile(r"\$[@<^?*|+]|\$\((?:[@<^*?][DF]?)\)")
#: `$(shell CMD)` runs CMD when make reads the line: the shell's `$(CMD)`.
_MAKE_SHELL = re.compile(r"\$\(shell\s+")
#: Make names that hold the shell environment's value when the Makefile does not set them.
#: `include FILE`, `-include FILE`, `sinclude FILE`.
_MAKE_INCLUDE = re.compile(r"^\s*(?:-|s)?include\s+(.+)$")
_FROM_ENV = ("HOME", "USER", "PWD", "PATH", "TMPDIR", "SHELL")


#: Keys whose value is a command line in YAML, JSON and INI configuration (CI jobs, task runners,
#: container and dev-container settings, agent hooks, MCP servers, pre-commit hooks, tox).
_COMMAND_KEYS = frozenset(
    "run script scripts before_script after_script cmds cmd command commands entrypoint entry exec "
    "postCreateCommand postStartCommand postAttachCommand initializeCommand onCreateCommand "
    "updateContentCommand commands_pre commands_post".split()
)
_YAML_KEY = re.compile(r"^(\s*)(?:-\s+)?([A-Za-z_][\w-]*):\s*(.*)$")


def kind(rel: str, text: str) -> str | None:
    """The kind of file `rel` is when it holds commands in another syntax, else None."""
    low = rel.rsplit("/", 1)[-1].lower()
    if low in ("makefile", "gnumakefile") or low.endswith(".mk") or low.startswith("makefile."):
        return "make"
    if low in ("justfile", ".justfile") or low.endswith(".just"):
        return "just"
    if low in ("dockerfile", "containerfile") or low.startswith("dockerfile.") or low.endswith(".dockerfile"):
        return "docker"
    if low.endswith(".envrc"):
        return "shell"
    if low == "procfile":
        return "procfile"
    if low == "jenkinsfile" or low.endswith(".groovy"):
        return "jenkins"
    if low.endswith((".yml", ".yaml")):
        return "yaml"
    if low.endswith((".json", ".jsonc")) and low != "package.json":
        return "json"
    if low.endswith((".ini", ".cfg")):
        return "ini"
    return None


def to_shell(rel: str, text: str) -> str | None:
    """The commands `rel` holds, as a shell script line for line with it; None if it holds none."""
    k = kind(rel, text)
    if k is None:
        return None
    lines = text.split("\n")
    if k == "make":
        out = _make(lines)
    elif k == "just":
        out = _just(lines)
    elif k == "docker":
        out = _docker(lines)
    elif k == "shell":
        out = lines
    elif k == "procfile":
        out = [re.sub(r"^[\w.-]+:\s*", "", ln) if re.match(r"^[\w.-]+:", ln) else "" for ln in lines]
    elif k == "jenkins":
        out = [_jenkins(ln) for ln in lines]
    elif k == "yaml":
        if not _YAML_COMMANDS.search(text) and not _PUBLISHES.search(text):
            return None
        out = _workflow(lines)
    elif k == "json":
        if not any(f'"{key}"' in text for key in _COMMAND_KEYS):
            return None
        out = _json(text, lines)
    else:
        out = _ini(lines)
    return "\n".join(out) if any(s.strip() for s in out) else None


#: A CI file that publishes files as a job's artifacts (GitHub's upload-artifact, GitLab's `artifacts:`).
_PUBLISHES = re.compile(r"(?m)actions/upload-(?:pages-)?artifact@|^\s*artifacts:\s*$")
#: An artifact path that is the whole working tree: a GitLab checkout keeps the job's token in
#: the remote URL of its `.git/config`, which goes along.
_WHOLE_TREE = re.compile(r"^(?:\.|\./|\*|\./\*|\*\*|\$\{?CI_PROJECT_DIR\}?/?)$")
_YAML_COMMANDS = re.compile(r"(?m)^\s*(?:-\s+)?(?:" + "|".join(sorted(_COMMAND_KEYS)) + r"):")


# ---------------------------------------------------------------- make


def _make(lines: list[str]) -> list[str]:
    defs: dict[str, str] = {}
    for ln in lines:
        if not ln.startswith("\t") and (m := _MAKE_VAR.match(ln.strip())):
            name, value = m.group(1), m.group(2).split(" #", 1)[0].strip()
            if ln.strip()[len(name) :].lstrip().startswith("+="):
                value = f"{defs.get(name, '')} {value}".strip()
            defs[name] = value

    def expand(s: str, depth: int = 0) -> str:
        def one(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            if name in defs and depth < 4:
                return expand(defs[name], depth + 1)
            return "${" + name + "}" if name in _FROM_ENV or name not in defs else m.group(0)

        s = _MAKE_AUTO.sub("target", s)
        s = _MAKE_REF.sub(one, s)
        return _MAKE_SHELL.sub("$(", s).replace("$$", "$")

    # make remakes a makefile it includes when a rule has it as its target, then reads it: what that
    # rule's recipe writes runs as make (its `$(shell ...)`, its recipes) on every `make`.
    included = {w for ln in lines if (m := _MAKE_INCLUDE.match(ln)) for w in expand(m.group(1)).split()}
    out: list[str] = []
    in_recipe = False
    continued = False
    target = ""
    last = -1
    for ln in lines:
        if ln.startswith("\t") or (continued and in_recipe):
            body = ln[1:] if ln.startswith("\t") else ln
            if not continued:
                body = body.lstrip().lstrip("@-+").lstrip()
            if target:
                body = re.sub(r"\$@|\$\(@\)", target, body)
            out.append(expand(body))
            last = len(out) - 1
            in_recipe = True
            continued = ln.rstrip().endswith("\\")
            continue
        continued = False
        stripped = ln.strip()
        if stripped and not stripped.startswith("#"):
            if target in included and last >= 0:
                out[last] += f"; . {target}"
            in_recipe = ":" in stripped and not _MAKE_VAR.match(stripped)
            head = stripped.split(":", 1)[0].split() if in_recipe else []
            target = head[0] if len(head) == 1 and "%" not in head[0] else ""
            target = expand(target) if "$" in target else target
            last = -1
        out.append("")
    if target in included and last >= 0:
        out[last] += f"; . {target}"
    return out


# ---------------------------------------------------------------- Dockerfile


def _docker(lines: list[str]) -> list[str]:
    out: list[str] = []
    continued = False
    for ln in lines:
        s = ln.strip()
        if continued:
            out.append(ln)
            continued = s.endswith("\\")
            continue
        # `RUN` at build time; `CMD`, `ENTRYPOINT` and `HEALTHCHECK ... CMD` in every container run;
        # `ONBUILD` ones in the build of every image made `FROM` this one
        m = re.match(
            r"(?i)^\s*(?:ONBUILD\s+)?(?:RUN|CMD|ENTRYPOINT|HEALTHCHECK(?:\s+--\S+)*\s+CMD)\s+(?:--\S+\s+)*(.*)$",
            ln,
        )
        if m and not m.group(1).startswith("["):
            out.append(m.group(1))
            continued = s.endswith("\\")
        elif m:
            out.append(_exec_form(m.group(1)))
        elif add := re.match(r"(?i)^\s*(?:ONBUILD\s+)?ADD\s+(?:--\S+\s+)*(https?://\S+)\s+(\S+)\s*$", ln):
            out.append(f"curl -o {add.group(2)} {add.group(1)}")  # ADD fetches a URL into the image
        else:
            out.append("")
    return out


def _exec_form(s: str) -> str:
    """`RUN ["sh", "-c", "..."]` as the command line it stands for."""
    try:
        argv = json.loads(s)
    except ValueError:
        return ""
    return _argv(argv) if isinstance(argv, list) and all(isinstance(a, str) for a in argv) else ""


# ---------------------------------------------------------------- CI workflows

#: `${{ ... }}` expressions, rewritten as the shell values they become at run time.
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _exprs(s: str) -> str:
    """`s` with its `${{ ... }}` expressions put in as their run-time values. The runner puts them in
    before the shell reads the line, so one inside single quotes (`echo '${{ toJSON(secrets) }}'`) is
    still its value: the quotes are closed around it."""
    out: list[str] = []
    quote = ""
    i = 0
    for m in _EXPR.finditer(s):
        for ch in s[i : m.start()]:
            if ch in "'\"" and (not quote or quote == ch):
                quote = "" if quote else ch
        v = _value(m.group(1))
        out.append(s[i : m.start()] + (f"'\"{v}\"'" if quote == "'" else v))
        i = m.end()
    return "".join(out) + s[i:]


def _value(e: str) -> str:
    if "||" in e:  # `secrets.PAT || github.token`: the first side that is a secret, as it is at run time
        return next((v for x in e.split("||") if (v := _value(x.strip())) != "VALUE"), "VALUE")
    if re.fullmatch(r"(?i)toJSON\(\s*secrets\s*\)", e):
        return "$(env)"  # every secret of the repository at once
    if s := re.fullmatch(r"secrets\.([A-Za-z_][\w]*)|secrets\[['\"]([\w-]+)['\"]\]", e):
        name = (s.group(1) or s.group(2) or "").upper().replace("-", "_")
        # named as the repository names it; a name that does not say "secret" gets a suffix that does
        return "${" + (name if SECRET_ENV.match(name) else name + "_SECRET") + "}"
    if re.fullmatch(r"github\.token|env\.GITHUB_TOKEN", e):
        return "${GITHUB_TOKEN}"
    if v := re.fullmatch(r"env\.([A-Za-z_]\w*)", e):
        return "${" + v.group(1) + "}"
    return "VALUE"


def _workflow(lines: list[str]) -> list[str]:
    """`env:` entries become assignments; `run:`, `script:`, `cmds:`, `command:`... (a scalar, a
    block, or a list of items) become their commands, each at its own line."""
    out = [""] * len(lines)
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = _YAML_KEY.match(ln)
        if not m or (m.group(2) not in _COMMAND_KEYS and m.group(2) != "env"):
            i += 1
            continue
        indent = m.start(2)  # the key's column (`- env:` starts a step: its entries are deeper)
        key, rest = m.group(2), m.group(3).strip()
        j = i + 1
        block: list[tuple[int, str]] = []
        if not rest or rest.startswith(("|", ">")):
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
            ):
                block.append((j, lines[j]))
                j += 1
        if key == "env":
            for n, b in block:
                if e := re.match(r"^\s*([A-Za-z_]\w*):\s*(.*)$", b):
                    value = _exprs(e.group(2).strip().strip("'\""))
                    out[n] = f'{e.group(1)}="{value}"'
        elif rest and not rest.startswith(("|", ">")):
            out[i] = _exprs(_scalar(rest))
        elif block and all(not b.strip() or b.lstrip().startswith("- ") for _, b in block):
            for n, b in block:  # a list of commands (`script:`, `cmds:`)
                item = b.lstrip()[2:].strip()
                if c := re.match(r"^cmd:\s*(.+)$", item):
                    out[n] = _exprs(_scalar(c.group(1)))
                elif item and not re.match(r"^[\w-]+:(?:\s|$)", item):
                    out[n] = _exprs(_scalar(item))
        else:
            body = [b for _, b in block if b.strip()]
            cut = min((len(b) - len(b.lstrip()) for b in body), default=0)
            for n, b in block:
                out[n] = _exprs(b[cut:])
        i = max(j, i + 1) if key == "env" or not block else j
    for n, ln in enumerate(lines):
        # `uses: actions/upload-artifact` with `path:`: what the paths hold is uploaded to GitHub,
        # where whoever can read the run downloads it (anyone, on a public repository)
        if re.match(r"^\s*(?:-\s+)?uses:\s*[\"']?actions/upload-(?:pages-)?artifact@", ln) and not out[n]:
            indent = len(ln) - len(ln.lstrip(" -"))
            paths: list[str] = []
            k = n + 1
            while k < len(lines) and (
                not lines[k].strip() or len(lines[k]) - len(lines[k].lstrip()) >= indent
            ):
                if (m := re.match(r"^\s*path:\s*(.*)$", lines[k])) is not None:
                    first = m.group(1).strip()
                    if first and first[0] not in "|>":
                        paths.append(_scalar(first))
                    else:
                        depth = len(lines[k]) - len(lines[k].lstrip())
                        k += 1
                        while k < len(lines) and len(lines[k]) - len(lines[k].lstrip()) > depth:
                            paths.append(lines[k].strip())
                            k += 1
                        continue
                k += 1
            paths = [x for x in paths if x and not x.startswith(("!", "#"))]
            if paths:
                out[n] = "gh release upload artifact " + " ".join(shlex.quote(_exprs(x)) for x in paths)
        # GitLab's `artifacts:` `paths:` list: uploaded to the instance, downloadable from the job
        elif re.match(r"^\s*artifacts:\s*$", ln) and not out[n]:
            indent = len(ln) - len(ln.lstrip())
            k, paths, inside = n + 1, [], False
            while k < len(lines) and (
                not lines[k].strip() or len(lines[k]) - len(lines[k].lstrip()) > indent
            ):
                item = lines[k].strip()
                if re.match(r"^[\w-]+:", item):
                    inside = item.startswith("paths:")
                elif inside and item.startswith("- "):
                    paths.append(_scalar(item[2:].strip()))
                k += 1
            paths = [p for x in paths if x for p in ([x, "./.git/config"] if _WHOLE_TREE.match(x) else [x])]
            if paths:
                out[n] = "glab release upload artifact " + " ".join(shlex.quote(_exprs(x)) for x in paths)
    return out


def _scalar(v: str) -> str:
    """A YAML scalar or flow list as the command line it holds."""
    v = v.strip()
    if v.startswith("[") and v.endswith("]"):
        try:
            items = json.loads(v)
        except ValueError:
            items = [x.strip().strip("'\"") for x in v[1:-1].split(",")]
        if isinstance(items, list) and all(isinstance(x, str) for x in items):
            return _argv(items)
        return shlex.join(str(x) for x in items) if isinstance(items, list) else v
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def _argv(items: list[str]) -> str:
    """`["sh", "-c", "SCRIPT"]` is SCRIPT; any other argv is its command line."""
    if len(items) >= 3 and re.fullmatch(r"(?:.*/)?(?:ba|z|da)?sh", items[0]) and items[1] == "-c":
        return items[2]
    return shlex.join(items)


# ---------------------------------------------------------------- JSON, INI, Jenkins, just


def _json(text: str, lines: list[str]) -> list[str]:
    """Command values of a JSON file (dev containers, editor tasks, agent hooks, MCP servers),
    each at the line of its key."""
    out = [""] * len(lines)
    try:
        data = json.loads(text)
    except ValueError:
        return out
    found: list[tuple[str, str]] = []

    def walk(node: object, depth: int) -> None:
        if depth > 12 or len(found) > 256:
            return
        if isinstance(node, dict):
            args = node.get("args")
            for k, v in node.items():
                if (
                    k == "command"
                    and isinstance(v, str)
                    and isinstance(args, list)
                    and all(isinstance(a, str) for a in args)
                ):
                    found.append((k, _argv([v, *args])))
                    continue
                if k in _COMMAND_KEYS:
                    vals = v.values() if isinstance(v, dict) else [v]
                    for x in vals:
                        if isinstance(x, str):
                            found.append((k, x))
                        elif isinstance(x, list) and x and all(isinstance(a, str) for a in x):
                            found.append((k, _argv(x)))
                walk(v, depth + 1)
        elif isinstance(node, list):
            for x in node:
                walk(x, depth + 1)

    walk(data, 0)
    start = 0
    for key, cmd in found:
        at = next((n for n in range(start, len(lines)) if f'"{key}"' in lines[n]), None)
        if at is None:
            at = next((n for n in range(len(lines)) if f'"{key}"' in lines[n]), 0)
        else:
            start = at + 1
        cmd = cmd.replace("\n", "; ")
        out[at] = f"{out[at]}; {cmd}" if out[at] else cmd
    return out


def _ini(lines: list[str]) -> list[str]:
    """`commands =` (tox) and `command =` values, with their continuation lines."""
    out = [""] * len(lines)
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*(commands(?:_pre|_post)?|command|entry)\s*[=:]\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        if m.group(2).strip():
            out[i] = m.group(2).strip()
        i += 1
        while i < len(lines) and lines[i][:1] in (" ", "\t") and lines[i].strip():
            out[i] = lines[i].strip()
            i += 1
    return out


def _jenkins(line: str) -> str:
    """`sh '...'` / `sh "..."` steps of a Jenkinsfile."""
    m = re.search(r"\b(?:sh|bat|powershell)\s*\(?\s*(?:script:\s*)?(['\"])(.*?)\1", line)
    return m.group(2) if m else ""


def _just(lines: list[str]) -> list[str]:
    """justfile recipes: indented lines after a `name:` header (`@` quiets a line)."""
    out: list[str] = []
    in_recipe = False
    for ln in lines:
        if ln[:1] in (" ", "\t") and ln.strip() and in_recipe:
            out.append(re.sub(r"\{\{[^}]*\}\}", "VALUE", ln.strip().lstrip("@-")))
            continue
        s = ln.strip()
        if s and not s.startswith("#"):
            in_recipe = bool(re.match(r"^@?[\w-]+(?:\s+[^:=]*)?:(?!=)", s))
        out.append("")
    return out
