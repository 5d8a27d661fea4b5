"""PowerShell, read as far as a scanner needs: strings folded, and the code handed to
`Invoke-Expression`, `[scriptblock]::Create` or `-EncodedCommand` assembled for the rules.

Folds: quoted strings (with known `$names` expanded in double quotes), `+` of folded terms,
`[char]N`, `-join` of char codes or of folded strings, `[Convert]::FromBase64String` decoded as
UTF-16LE / UTF-8 text, and names assigned any of those. Unknown terms stop a fold; nothing runs.
"""

from __future__ import annotations

import re

from skillyard.install.scanner._flows import CodeFacts, flow, unbase64

MAX_FOLD = 64 * 1024
_ASSIGN = re.compile(r"^\s*\$(?:script:|global:)?([A-Za-z_]\w*)\s*=\s*(.+?)\s*;?\s*$")
_TERM = re.compile(
    r"\s*(?:'((?:[^']|'')*)'|\"((?:[^\"`]|`.)*)\"|\$([A-Za-z_]\w*)|\(?\s*\[char\]\s*(0x[0-9a-f]+|\d+)\s*\)?)\s*",
    re.I,
)
_JOIN_CHARS = re.compile(
    r"^-join\s*\(?\s*(?:\[char\[\]\]\s*)?\(?\s*([\d,\s]+?)\s*\)?\s*\)?$|^\[char\[\]\]\s*\(([\d,\s]+)\)\s*-join\s*''$",
    re.I,
)
_B64 = re.compile(
    r"^\[(?:System\.)?Text\.Encoding\]::(Unicode|UTF8|ASCII)\.GetString\(\s*\[(?:System\.)?Convert\]::FromBase64String\((.+)\)\s*\)$",
    re.I,
)
#: Where a string becomes code: the rest of the line after one of these is folded.
_RUNS = re.compile(
    r"\b(?:iex|Invoke-Expression)\b\s*(?:-Command\s+)?\(?|\[scriptblock\]::Create\(|-(?:EncodedCommand|enc|ec|e)\s+(?=[$'\"])",
    re.I,
)


class _Reader:
    def __init__(self) -> None:
        self.env: dict[str, str] = {}

    def fold(self, expr: str) -> str | None:
        expr = expr.strip()
        while expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
            expr = expr[1:-1].strip()
        if m := _B64.match(expr):
            raw = self.fold(m.group(2))
            if raw is None:
                return None
            return unbase64(raw, "utf-16-le" if m.group(1).lower() == "unicode" else "utf-8")
        if m := _JOIN_CHARS.match(expr):
            try:
                return "".join(chr(int(c)) for c in (m.group(1) or m.group(2)).split(",") if c.strip())
            except (ValueError, OverflowError):
                return None
        out: list[str] = []
        pos = 0
        while pos < len(expr):
            m = _TERM.match(expr, pos)
            if m is None or m.end() == pos:
                return None
            single, double, name, code = m.groups()
            if single is not None:
                out.append(single.replace("''", "'"))
            elif double is not None:
                text = self.expand(double)
                if text is None:
                    return None
                out.append(text)
            elif name is not None:
                if name not in self.env:
                    return None
                out.append(self.env[name])
            else:
                try:
                    out.append(chr(int(code, 0)))
                except (ValueError, OverflowError):
                    return None
            pos = m.end()
            if pos < len(expr):
                if expr[pos] != "+":
                    return None
                pos += 1
        s = "".join(out)
        return s if len(s) <= MAX_FOLD else None

    def expand(self, text: str) -> str | None:
        """A double-quoted string with its `$names` (all known) put in."""

        def one(m: re.Match[str]) -> str:
            return self.env.get(m.group(1), "\x00")

        s = re.sub(r"\$\{?([A-Za-z_]\w*)\}?", one, text).replace("`", "")
        return None if "\x00" in s else s


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


#: The call operator (`& $tool args`, `& ('a' + 'b') args`, `. $script`): the program it runs.
_CALL = re.compile(r"^\s*[&.]\s*(\((?:[^()]|\([^()]*\))*\)|\$[A-Za-z_]\w*|'[^']*'|\"[^\"]*\")\s*(.*)$")


def _statements(line: str) -> list[str]:
    """The statements of one line, split at `;` outside quotes (one pass)."""
    out, start, quote = [], 0, ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ";" and len(out) < 64:
            out.append(line[start:i])
            start = i + 1
    return [*out, line[start:]]


def analyse(text: str) -> CodeFacts:
    """Code this PowerShell script assembles and hands to an evaluator or runs with the call
    operator, for the rules to see."""
    facts = CodeFacts()
    r = _Reader()
    saved: dict[str, int] = {}  # files downloads were saved to -> line
    checks = 0  # hashes looked for a comparison (each reads the whole script)
    listed: set[str] = set()  # names holding everything a cloud listing returned
    every: list[tuple[int, str, str]] = []  # open loops over such a listing: (depth, listing, variable)
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("#") or len(line) > 16384:
            continue
        _cloud_deletes(line, n, listed, every, facts)
        for stmt in _statements(line) if ";" in line else (line,):
            if m := _ASSIGN.match(stmt):
                if (at := saved.get(_plain(m.group(2)))) is not None and len(saved) < 64:
                    saved[_plain("$" + m.group(1))] = at  # `$g = $f`: the downloaded file under another name
                v = r.fold(m.group(2))
                if v is not None:
                    r.env[m.group(1)] = v
                else:
                    r.env.pop(m.group(1), None)
            elif (m := _CALL.match(stmt)) and (tool := r.fold(m.group(1))) and tool not in stmt:
                # `$v = 'vss' + 'admin'; & $v delete shadows`: the command line it runs
                facts.assembled.append((n, f"{tool} {m.group(2)}".strip()))
        for m in _RUNS.finditer(line):
            rest = line[m.end() :].split("|", 1)[0].split(";", 1)[0].strip()
            while rest.startswith("(") and not _balanced(rest):
                rest = rest[1:].strip()
            while rest.endswith(")") and not _balanced(rest):
                rest = rest[:-1].strip()
            encoded = m.group(0).lstrip().startswith("-")
            code = r.fold(rest.split(" -", 1)[0] if not encoded else rest.split()[0] if rest.split() else "")
            if code is None:
                continue
            if encoded and (code := unbase64(code, "utf-16-le")) is None:
                continue
            if code.strip() and code not in line:
                facts.assembled.append((n, code))
        # `$code | iex`: what is piped into the evaluator
        if pm := re.search(r"^\s*(.+?)\s*\|\s*(?:iex|Invoke-Expression)\b", line, re.I):
            code = r.fold(pm.group(1))
            if code and code not in line:
                facts.assembled.append((n, code))
        # a download saved to a file, and that file started: download and run
        if (d := _SAVED.search(line)) and len(saved) < 64:
            saved[_plain(d.group(1))] = n
        elif saved and (h := _HASHED.search(line)) and (checks := checks + 1) <= 16 and _compared(text, line):
            # its SHA-256 taken and checked against a digest pinned in the script: the file run is
            # the one pinned
            saved.pop(_plain(h.group(1)), None)
        elif saved and (st := _STARTS.search(line)) and (at := saved.get(_plain(st.group(1)))) is not None:
            said = f"downloads {st.group(1)} (line {at}) and runs it"
            facts.flows.append(flow("download-exec", "critical", n, said, None))
    facts.installed_launch.update(_tasks_start_installed(text, r))
    return facts


#: A task action kept in a name: `$a = New-ScheduledTaskAction -Execute 'defrag.exe' ...`.
_TASK_ACTION = re.compile(r"(?im)^\s*\$(\w+)\s*=\s*New-ScheduledTaskAction\b([^\n]*)$")
#: System maintenance programs that run no code they are handed (no script, command line, library,
#: response file or address); any other program, and any program the skill could bring, is not excused.
_SYSTEM_TOOLS = re.compile(r"^(?:robocopy|defrag|cleanmgr|chkdsk|sfc)(?:\.exe)?$", re.I)


#: A script that downloads, copies, unpacks or writes a file may be putting the program in place.
_BRINGS = re.compile(
    r"\b(?:Invoke-WebRequest|iwr|Invoke-RestMethod|irm|Start-BitsTransfer|WebClient|HttpClient|curl|wget"
    r"|Copy-Item|copy|cp|Move-Item|move|mv|Expand-Archive|Set-Content|Add-Content|Out-File|WriteAll\w*)\b",
    re.I,
)


def _tasks_start_installed(text: str, r: _Reader) -> set[int]:
    """The lines registering a scheduled task whose action (a name given a `New-ScheduledTaskAction`
    once, never changed after) starts a system maintenance program by its bare name, with arguments
    that name no address or share, from no working directory: the task runs that program, nothing
    the skill brings. Every action the script defines must be one, or no line is."""
    actions = {m.group(1).lower(): m.group(2) for m in _TASK_ACTION.finditer(text)}
    if (
        not actions
        or len(actions) > 8
        or len(_TASK_ACTION.findall(text)) != len(re.findall(r"New-ScheduledTaskAction\b", text, re.I))
        or _BRINGS.search(text)
    ):
        return set()
    for name, a in actions.items():
        m = re.search(r"-Execute\s+('[^']*'|\"[^\"]*\"|\S+)", a, re.I)
        prog = r.fold(m.group(1)) if m else None
        if not prog or not _SYSTEM_TOOLS.match(prog) or re.search(r"-WorkingDirectory\b|`\s*$", a, re.I):
            return set()
        # the name given once, its properties never set (`$a.Execute = 'cmd.exe'`)
        if len(re.findall(rf"(?i)\${name}\s*[+]?=(?!=)|\${name}\.\w+\s*=(?!=)", text)) != 1:
            return set()
        # the arguments, and the assignments of the names they use
        said = a + "".join(
            ln for v in re.findall(r"\$(\w+)", a) for ln in re.findall(rf"(?im)^\s*\${v}\s*=.*$", text)
        )
        if re.search(r"://|(?:\\\\|//)[^\\/\s`\"']+[\\/]", said, re.I):
            return set()
    return {
        n
        for n, line in enumerate(text.split("\n"), 1)
        if (m := re.search(r"\bRegister-ScheduledTask\b.*?-Action\s+\$(\w+)\b(?!\s*[,.\[])", line, re.I))
        and m.group(1).lower() in actions
        and not re.search(r"-(?:Xml|InputObject)\b", line, re.I)
        # one task on the line, with one action: a second one beside it is not excused with it
        and len(re.findall(r"Register-ScheduledTask\b|-Action\b", line, re.I)) == 2
    }


#: The cloud modules' cmdlets (Az, AzureRM, Microsoft Graph, AWS Tools, Google Cloud Tools).
_CLOUD = r"(?:Az|AzureRm|AzureAD|Mg|EC2|S3|RDS|IAM|LM|CFN|AWS|GCE|Gcs|GcSql|Gc)[A-Z]\w*"
#: An unfiltered listing of an account: `Get-AzResourceGroup`, not `Get-AzResourceGroup -Name x`
#: nor one piped through `Where-Object` before its items are used.
_LISTING = re.compile(
    r"\bGet-"
    + _CLOUD
    + r"\b(?![^|\n]*\s-(?:Name|Tag|Filter|ResourceGroupName|Id)\b)(?![^\n]*(?:\|\s*(?:Where-Object|where|\?)\b|\|\s*\?\s*\{))",
    re.I,
)
_REMOVE = re.compile(r"\bRemove-" + _CLOUD + r"\b(?=[^\n]*\s-Force\b)(?![^\n]*\s-WhatIf\b)", re.I)
_EACH = re.compile(
    r"\|\s*(?:ForEach-Object|foreach|%)\s*\{|^\s*foreach\s*\(\s*\$(\w+)\s+in\s+(.+)\)\s*\{", re.I
)


def _cloud_deletes(
    line: str, n: int, listed: set[str], every: list[tuple[int, str, str]], facts: CodeFacts
) -> None:
    """`Get-AzResourceGroup | ForEach-Object { Remove-AzResourceGroup -Name $_.ResourceGroupName
    -Force }`: a cloud delete, no prompt, run on each item of an account's whole listing."""
    got = _LISTING.search(line)
    if (m := _ASSIGN.match(line)) is not None:
        if got and "|" not in line.split("=", 1)[1].split(got[0], 1)[-1]:
            listed.add(m.group(1).lower())
        else:
            listed.discard(m.group(1).lower())
    loop = _EACH.search(line)
    what = got[0] if got else None
    if loop and loop.group(2) and what is None and (v := re.fullmatch(r"\$(\w+)", loop.group(2).strip())):
        what = f"${v[1]}" if v[1].lower() in listed else None
    if rm := _REMOVE.search(line):
        piped = what if what and "|" in line[line.find(what) : rm.start()] else None
        of = piped or next(
            (w for _, w, v in reversed(every) if re.search(rf"\${v}\b", line[rm.end() :], re.I)), None
        )
        if of:
            said = f"deletes everything `{of}` lists, without asking ({rm[0]} -Force)"
            facts.flows.append(flow("destruction", "high", n, said, None))
    depth = line.count("{") - line.count("}")
    every[:] = [(d + depth, w, v) for d, w, v in every if d + depth > 0]
    if loop and what:
        opened = line[loop.start() :].count("{") - line[loop.start() :].count("}")
        every.append((opened, what, loop.group(1) or "(?:_|PSItem)"))


#: `Invoke-WebRequest … -OutFile PATH` (and its aliases, `Start-BitsTransfer -Destination`)
_SAVED = re.compile(
    r"\b(?:Invoke-WebRequest|iwr|Invoke-RestMethod|irm|wget|curl|Start-BitsTransfer)\b[^\n;|]*?"
    r"\s-(?:OutFile|o|Destination)\s+(\"[^\"]+\"|'[^']+'|[^\s;|]+)",
    re.I,
)
#: a file started: `Start-Process PATH`, `& PATH`, `. PATH`, `Invoke-Item PATH`
_STARTS = re.compile(
    r"(?:^|[;{(|]|\s)(?:Start-Process|saps|start|Invoke-Item|ii|&|\.)\s+(?:-FilePath\s+)?(\"[^\"]+\"|'[^']+'|[^\s;|)]+)",
    re.I,
)


_HASHED = re.compile(r"\bGet-FileHash\b[^\n;|]*?\s(?!-)(\"[^\"]+\"|'[^']+'|\$[\w:]+)(?=[\s)|;]|$)", re.I)
_PINNED = r"[\"'](?:[0-9a-fA-F]{64}|[0-9a-fA-F]{128})[\"']"


def _compared(text: str, line: str) -> bool:
    """Whether the hash `line` takes (or the variable it keeps it in) is compared with a pinned digest
    (a literal, or a variable given one) where a mismatch stops the script (`-ne` with `throw`, `exit`,
    `return`; or `-eq`)."""
    pins = [_PINNED, *(rf"\${re.escape(v)}\b" for v in re.findall(rf"(?m)^\s*\$(\w+)\s*=\s*{_PINNED}", text))]
    pin = "(?:" + "|".join(pins) + ")"
    kept = re.match(r"\s*\$(\w+)\s*=", line)
    uses = [
        line,
        *(ln for ln in text.split("\n") if kept and re.search(rf"\${kept.group(1)}\b", ln) and ln != line),
    ]
    cmp = rf"(?i){pin}[\s)]*-[ci]?(?:ne|eq)\b|-[ci]?(?:ne|eq)\s+[(]?{pin}"
    return any(
        not ln.lstrip().startswith("#")
        and re.search(cmp, ln)
        and (re.search(r"(?i)-[ci]?eq\b|\b(?:throw|exit|return)\b", ln) is not None)
        for ln in uses
    )


def _plain(path: str) -> str:
    return path.strip("\"'").replace("/", "\\").lower()
