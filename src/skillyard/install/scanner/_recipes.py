"""Shell commands embedded in other files: Makefile recipes, CI workflow `run:` steps, Dockerfile `RUN`.

Each is turned into a shell script with the same line numbers as the file it came from (lines
that hold no command are left blank), so the shell reader's flows point at the right line.
Only the text is rewritten; nothing here runs or parses shell itself.
"""

from __future__ import annotations

import re

_MAKE_VAR = re.compile(r"^([A-Za-z_][\w.-]*)\s*(?::{1,3}=|\?=|\+=|=)\s*(.*)$")
_MAKE_REF = re.compile(r"\$\(([A-Za-z_][\w.-]*)\)|\$\{([A-Za-z_][\w.-]*)\}")
_MAKE_AUTO = re.compile(r"\$[@<^?*|+]|\$\((?:[@<^*?][DF]?)\)")
#: Make names that hold the shell environment's value when the Makefile does not set them.
_FROM_ENV = ("HOME", "USER", "PWD", "PATH", "TMPDIR", "SHELL")


def kind(rel: str, text: str) -> str | None:
    """`make`, `workflow` or `docker` when `rel` is a file of that kind, else None."""
    base = rel.rsplit("/", 1)[-1]
    low = base.lower()
    if low in ("makefile", "gnumakefile") or low.endswith(".mk") or low.startswith("makefile."):
        return "make"
    if (
        low == "dockerfile"
        or low.startswith("dockerfile.")
        or low.endswith(".dockerfile")
        or low == "containerfile"
    ):
        return "docker"
    if (
        low.endswith((".yml", ".yaml"))
        and re.search(r"(?m)^\s*(?:-\s+)?run:", text)
        and ("runs-on:" in text or "steps:" in text)
    ):
        return "workflow"
    return None


def to_shell(rel: str, text: str) -> str | None:
    """The commands `rel` holds, as a shell script line for line with it; None if it holds none."""
    k = kind(rel, text)
    lines = text.split("\n")
    if k == "make":
        out = _make(lines)
    elif k == "docker":
        out = _docker(lines)
    elif k == "workflow":
        out = _workflow(lines)
    else:
        return None
    return "\n".join(out) if any(s.strip() for s in out) else None


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
        return s.replace("$$", "$")

    out: list[str] = []
    in_recipe = False
    continued = False
    for ln in lines:
        if ln.startswith("\t") or (continued and in_recipe):
            body = ln[1:] if ln.startswith("\t") else ln
            if not continued:
                body = body.lstrip().lstrip("@-+").lstrip()
            out.append(expand(body))
            in_recipe = True
            continued = ln.rstrip().endswith("\\")
            continue
        continued = False
        stripped = ln.strip()
        if stripped and not stripped.startswith("#"):
            in_recipe = ":" in stripped and not _MAKE_VAR.match(stripped)
        out.append("")
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
        m = re.match(r"(?i)^\s*RUN\s+(?:--\S+\s+)*(.*)$", ln)
        if m and not m.group(1).startswith("["):
            out.append(m.group(1))
            continued = s.endswith("\\")
        elif m:
            out.append(_exec_form(m.group(1)))
        else:
            out.append("")
    return out


def _exec_form(s: str) -> str:
    """`RUN ["sh", "-c", "..."]` as the command line it stands for."""
    import json

    try:
        argv = json.loads(s)
    except ValueError:
        return ""
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return ""
    import shlex

    return shlex.join(argv)


# ---------------------------------------------------------------- CI workflows

#: `${{ ... }}` expressions, rewritten as the shell values they become at run time.
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _expr(m: re.Match[str]) -> str:
    e = m.group(1)
    if re.fullmatch(r"(?i)toJSON\(\s*secrets\s*\)", e):
        return "$(env)"  # every secret of the repository at once
    if s := re.fullmatch(r"secrets\.([A-Za-z_][\w]*)|secrets\[['\"]([\w-]+)['\"]\]", e):
        name = (s.group(1) or s.group(2) or "").upper().replace("-", "_")
        return "${SECRET_" + name + "}"
    if re.fullmatch(r"github\.token|env\.GITHUB_TOKEN", e):
        return "${GITHUB_TOKEN}"
    if v := re.fullmatch(r"env\.([A-Za-z_]\w*)", e):
        return "${" + v.group(1) + "}"
    return "VALUE"


def _workflow(lines: list[str]) -> list[str]:
    """`env:` entries become assignments and `run:` blocks their commands, at their own lines."""
    out = [""] * len(lines)
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = re.match(r"^(\s*)(?:-\s+)?(run|env):\s*(.*)$", ln)
        if not m:
            i += 1
            continue
        indent = len(m.group(1)) + (len(ln) - len(ln.lstrip()) - len(m.group(1)))
        key, rest = m.group(2), m.group(3).strip()
        block: list[tuple[int, str]] = []
        if rest and not rest.startswith(("|", ">")):
            block = [(i, rest.strip("'\"") if key == "run" else rest)]
            j = i + 1
        else:
            j = i + 1
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
            ):
                block.append((j, lines[j]))
                j += 1
        if key == "run":
            body = [b for _, b in block if b.strip()]
            cut = min((len(b) - len(b.lstrip()) for b in body), default=0)
            for n, b in block:
                out[n] = _EXPR.sub(_expr, b[cut:])
        else:
            for n, b in block:
                if e := re.match(r"^\s*([A-Za-z_]\w*):\s*(.*)$", b):
                    value = _EXPR.sub(_expr, e.group(2).strip().strip("'\""))
                    out[n] = f'{e.group(1)}="{value}"'
        i = j
    return out
