"""Where a match sits decides how much it weighs: an instruction to the model, code, or a mention.

A threat-model table, a quoted phrase in a prompt-injection defence guide or a deny-list string
is not an instruction to run anything. These lower a finding's severity (and say why in its
title); they never remove it. Instructions addressed to the model (SKILL.md prose that says run,
fenced blocks, `!` commands) and executable code keep their full weight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skillyard.install.scanner._flows import REGISTRIES

_MD_EXT = (".md", ".markdown", ".mdx", ".txt", ".rst")
#: Reference folders, and web pages a skill saved in its downloads (a copy of a page, read by people)
_REFERENCE_DIRS = re.compile(
    r"(?:^|/)(?:references?|docs?|examples?|reference-docs|guides?)/|(?:^|/)downloads/(?:[^/]+/)*[^/]+\.html?$",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+.#-]*)")
_TABLE = re.compile(r"^\s*\|.*\|\s*$")
_QUOTE = re.compile(r"^\s*>")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
#: `` !`cmd` `` lines, and command lines written as inline code with a pipe, `$(...)`, `&&` or a
#: redirect after a word (`` `tar czf - ~/.ssh | curl -T - URL` ``, not `<vault>/CLAUDE.md`), or that
#: publish a package (`` `npm publish ./pkg` ``: what other files put into it goes along): all are
#: read as shell, like a fenced block
_BANG = re.compile(
    r"!`([^`\n]+)`|`([^`\n]*(?:\||\$\(|&&|\s\d?>)[^`\n]*"
    rf"|(?:{'|'.join(REGISTRIES)})\s+(?:publish|upload|push)\b[^`\n]*)`"
)
INLINE_CODE = re.compile(r"`[^`\n]*`")
#: `[//]: # (text)` and `[comment]: <> (text)`: Markdown link definitions used as hidden comments.
_MD_COMMENT = re.compile(r"^\s{0,3}\[(?://|comment|_)\]:\s*(?:#|<>)")
_EXAMPLE_MARK = re.compile(
    r"\b(?:malicious|attack(?:er|s)?|exploit\w*|vulnerab\w*|insecure|dangerous|bad|wrong|never\s+run|do\s+not\s+run|"
    r"don'?t\s+run|avoid|anti-?pattern|payloads?|red\s+flags?|detect\w*|example\s+of|injection|phishing|"
    r"suspicious|compromised?|incident|indicators?)\b|❌|⚠",
    re.IGNORECASE,
)
_MENTION = re.compile(
    r"\b(?:never|don'?t|do\s+not|avoid|must\s+not|should\s+not|watch\s+(?:out\s+)?for|detect\w*|flag\w*|e\.g\.|"
    r"example|such\s+as|like|phrases?|patterns?|attacks?|attackers?|injection|malicious|recogni[sz]e|spot|"
    r"warning\s+signs?|red\s+flags?|suspicious|beware|claim\w*|pretend\w*|posing\s+as|phishing|scam\w*|lures?|"
    r"social\s+engineering|asks?\s+(?:you|the\s+user|them)\s+to|an?\s+(?:e-?mail|message|chat|page|site|post|ticket)\s+"
    r"(?:says|asks|tells|claims|contains))\b",
    re.IGNORECASE,
)
#: What may stand before a command on a line that is itself a command (not prose about one).
_COMMAND_LINE = re.compile(r"^\s*(?:[-*+]|\d+[.)]|\$|#|RUN|sudo)?\s*(?:\w+=\S*\s+)*\S*$")
#: A line that starts with a command is a command, whatever follows it.
_COMMAND_START = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+|\$\s+)?(?:sudo\s+)?(?:\w+=\S*\s+)*(?:[./~(:]|(?:echo|printf|curl|wget|cat|rm|cp|mv|"
    r"chmod|chown|bash|sh|zsh|python[0-9.]*|node|perl|ruby|php|crontab|tee|eval|exec|nc|ncat|socat|ssh|scp|dd|mkfs\S*|"
    r"base64|find|export|source|launchctl|systemctl|security|sed|tar|unzip|7z|iwr|irm|powershell|pip[0-9.]*|npm|npx|"
    r"docker|kubectl|xattr|osascript|env|printenv|schtasks|reg|sysctl|mkfifo|openssl|xxd|shred|diskutil|git|"
    r"Remove-Item|Invoke-\w+|Start-Process|if|for|while|then|do)\b"
    r"(?!\s+(?:\w+(?<!ss)s|is|are|can|will|would|should|must|may|lets?|and|or|to)\b))"
)
COMMANDISH = frozenset(
    "download-and-execute obfuscated-execution reverse-shell persistence destructive "
    "credential-exfiltration privilege-escalation cryptomining exfiltration-endpoint "
    "agent-config-tampering misleading-file-type insecure-transport dynamic-execution network".split()
)
SPEECH = frozenset({"prompt-injection", "fake-prerequisite"})
#: A heading over a list of things to recognise ("What to flag", "Red flags", "Signs of an attack").
_WATCH_HEADING = re.compile(
    r"\b(?:flag\w*|detect\w*|look(?:ing)?\s+for|watch(?:ing)?\s+(?:out\s+)?for|red\s+flags?|warning\s+signs?|"
    r"indicators?|signs?\s+of|what\s+to\s+(?:check|catch|report|recogni[sz]e)|recogni[sz]\w*|suspicious|"
    r"attack\s+patterns?|attacks|threats?|anti-?patterns?|(?:prompt\s+)?injections?|malicious|phishing|scams?)\b",
    re.IGNORECASE,
)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
#: A step the model shows the user rather than runs ("tell the user how to load it", "the user adds
#: it with crontab -e", "do not run that yourself").
_FOR_USER = re.compile(
    # "tell them the `launchctl` command", "show the user how to", not "then tell the user it is done"
    r"\b(?:tell|show|remind|explain\s+to)\s+(?:the\s+user|them)\s+(?:how|to|the|which|what|where|`)|\bthe\s+user\s+(?:adds?|runs?|can|may|loads?|"
    r"installs?|pastes?|copies|enables?|reviews?)\b|\b(?:do\s+not|don'?t|never)\s+run\s+(?:this|that|it|them)"
    r"\s+yourself\b|\bfor\s+(?:the\s+user|them)\s+to\s+(?:run|review|add|install|load|paste)\b"
    # "show it to the user; they load it themselves", "never load it for them"
    r"|\b(?:show|give|hand|print)\s+(?:it|this|that|them|the\s+\w+)\s+to\s+the\s+user\b"
    # "give the user the commands to run" (not "give the user a summary")
    r"|\b(?:give|hand)\s+the\s+user\s+(?:the\s+)?(?:commands?|lines?|steps?|instructions?)\b"
    r"|\b(?:load|install|run|enable|add|paste)\w*\s+(?:it|this|that|them)\s+themselves\b"
    # "let the user run it", "ask the user to paste this into their terminal"
    r"|\b(?:let|have|ask|get)\s+the\s+user\s+(?:to\s+)?(?:run|paste|install|load|add|enable|copy|type)\b"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:load|install|run|enable|add)\s+(?:it|this|that|them)\s+for\s+(?:them|the\s+user)\b",
    re.IGNORECASE,
)
#: A URL in a command: scheme, host, path.
_URL = re.compile(r"\b([a-z][a-z0-9+.-]*)://([^/\s'\"`)|]+)([^\s'\"`)|]*)", re.IGNORECASE)
#: Hosts a download-and-execute lure uses: address literals, paste, file-drop, tunnel and
#: link-shortening services (anyone can publish there under any name).
_DROP_HOST = re.compile(
    r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]|localhost)(?::\d+)?$|(?:^|\.)(?:glot\.io|pastebin\.com|paste\.ee|"
    r"hastebin\.com|rentry\.(?:co|org)|termbin\.com|ix\.io|0x0\.st|dpaste\.(?:com|org)|transfer\.sh|"
    r"gist\.githubusercontent\.com|gist\.github\.com|ngrok(?:-free)?\.(?:io|app)|bore\.pub|serveo\.net|loca\.lt|"
    r"trycloudflare\.com|localhost\.run|pinggy\.io|webhook\.site|bit\.ly|tinyurl\.com|goo\.gl|t\.co|is\.gd|"
    r"cutt\.ly|rb\.gy|discord(?:app)?\.com|cdn\.discordapp\.com|dropbox\.com|mega\.nz|anonfiles\.com|"
    r"files\.catbox\.moe|duckdns\.org|no-ip\.\w+|ddns\.net)(?::\d+)?$",
    re.IGNORECASE,
)
#: Decoding or assembling in the same command hides what is fetched.
_HIDDEN = re.compile(r"base64|frombase64|atob\b|xxd|\\x[0-9a-f]{2}", re.IGNORECASE)
_CODE_HOSTS = ("github.com", "raw.githubusercontent.com", "gitlab.com", "codeberg.org", "bitbucket.org")
#: "To deposit 5 UCT, send tokens to the server": tokens as a currency, not as credentials.
_CURRENCY = re.compile(
    r"\b(?:deposit\w*|withdraw\w*|wallets?|swap\w*|stak\w+|airdrop\w*|mint\w*|balances?|amount|coins?|"
    r"crypto\w*|on-?chain|blockchain|faucet)\b"
)
#: `scan_input("Ignore previous instructions")`, `python scan.py "..."`: a phrase passed to a
#: program that checks for it.
_CHECKED_SAMPLE = re.compile(
    r"\b\w*(?:scan|check|detect|classif|guard|filter|validat|saniti[sz]|analy[sz]|inspect|protect|intercept)\w*"
    r"(?:\.(?:py|js|ts|sh))?(?:\s*\(\s*|\s+(?:--?[\w-]+[\s=]+)*)[rbfu]?[\"'][^\"'\n]{0,30}$",
    re.IGNORECASE,
)
_TEST_FILE = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec)/|(?:^|/)test_[^/]*$|[._-](?:test|spec)\.\w+$", re.IGNORECASE
)
_CODE_COMMENT = re.compile(r"^\s*#(?!!)")
#: Code, then a `#` comment after a space: whatever stands after the `#` is not run. The strings
#: before it must close, so a `#` inside one (`system("x  # y; rm -rf ~")`) starts nothing.
_TRAILING_COMMENT = re.compile(r"""^(?:[^"'#\n]|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')*?\s#\s""")
#: Fence languages whose comments start with `#`.
_HASH_LANGS = frozenset({"perl", "pl", "ruby", "rb"})
_COMMENTED_EXT = (".sh", ".bash", ".zsh", ".py", ".rb", ".pl", ".ps1", ".yaml", ".yml", ".toml", ".conf")
#: `r"ignore previous instructions|do not tell the user|"`: a phrase a pattern looks for.
_ALTERNATIVE = re.compile(r"\|\s*$")
#: Keychain items by service name: stored (`security add-generic-password -s NAME`, `secret-tool
#: store ... service NAME`) and read back (`security find-generic-password -s NAME`).
#: (an item's whole service name: not the `gh` of `-s gh:github.com` or the `Docker` of `-s "Docker X"`)
_KEYCHAIN_STORE = re.compile(
    r"\bsecurity\s+add-generic-password\b[^\n]*?\s-s\s+([\"']?)([\w.-]+)\1(?![^\s;|&)`])"
    r"|\bsecret-tool\s+store\b[^\n]*?\sservice\s+([\"']?)([\w.-]+)\3(?![^\s;|&)`])"
)
KEYCHAIN_READ = re.compile(
    r"security\s+find-generic-password\b[^\n]*?\s-s\s+([\"']?)([\w.-]+)\1(?![^\s;|&)`])"
)
#: A message in code: `echo "Install it: ..."`, `{"error": "grype not found. Install: ..."}`.
_MESSAGE = re.compile(
    r"""(?:\b(?:echo|printf)\s+(?:-\w+\s+)*|["'](?:error|message|hint|help)["']\s*:\s*)["'][^"'\n]*$"""
)


def _in_string(text: str, start: int) -> bool:
    """Whether `start` falls inside a quoted string of the code line `text` (not in the calls around
    the line's strings: `print("n:", b64encode(b64encode(blob)))`)."""
    quote = ""
    for ch in text[:start]:
        if ch in "'\"`" and (not quote or ch == quote):
            quote = "" if quote else ch
    return bool(quote) or text[start : start + 1] in ("'", '"', "`")


def _shown(text: str, start: int) -> bool:
    """The match sits in a message string, nothing in the line substitutes a command's output
    (`echo "$(curl … | sh)"` runs it while printing) and nothing after the string pipes, writes or runs it."""
    tail = text[max(text.rfind('"'), text.rfind("'")) + 1 :]
    return (
        bool(_MESSAGE.search(text[:start]))
        and not re.search(r"[|>]", tail)
        and not re.search(r"`|\$\(", text)
    )


#: `sudo systemctl enable --now chrony auditd`: system services by name (a unit file path links it)
_ENABLE_INSTALLED = re.compile(r"systemctl\s+enable\s+--now(?:\s+[\w@.-]+)+\s*(?:$|[;&|#)`])", re.MULTILINE)
#: A unit file written or linked anywhere in the file makes `enable` the second half of installing it
#: (`systemctl is-enabled x.timer 2>/dev/null` writes nothing).
_UNIT_WRITTEN = re.compile(
    r"systemd/(?:system|user)\b|\.(?:service|timer)\b[^\n]*(?:<<|(?<![\d&])>(?!\s*/dev/null\b))"
    r"|>\s*[\"']?[^\s;|&>]*\.(?:service|timer)\b|systemctl\s+[^\n]*\blink\b"
)
#: Stores of other programs: storing a fake item there first does not make reading it the skill's own.
_FOREIGN_ITEM = re.compile(
    r"safe.?storage|chrom|brave|edge|opera|vivaldi|firefox|wallet|airport|icloud", re.IGNORECASE
)
#: A tunnel or request-capture host (not a paste host: pasted code to fetch and run is a lure's shape).
_RECEIVER_HOST = re.compile(
    r"(?:webhook\.site|requestbin\.|pipedream\.net|beeceptor\.com|hookbin\.com|ngrok|loca\.lt|localtunnel\.me"
    r"|trycloudflare\.com|localhost\.run|pinggy\.io|bore\.pub|serveo\.net)",
    re.IGNORECASE,
)
#: Something sent on the line: data that is not written out (a file, a variable, a command's output,
#: standard input), a credential in a header, a pipe into a network tool, a client call that posts,
#: or prose telling to send.
_SENDS = re.compile(
    r"\b(?:x-api-key|authorization|bearer|api[_-]?key|token|cookie)\b|(?:\s-d|--data(?:-\w+)?|\s-F|--form|\s-T|--upload-file|--post-file)[=\s]+[\"']?[@$<`]|\|\s*(?:curl|wget|nc|ncat)\b"
    r"|\$\(|\b(?:nc|ncat|netcat|socat|scp|rsync)\s|\b(?:post|put|send\w*|upload\w*|request)\s*\([^)\n]*[,(]\s*"
    r"(?:data|json|body|files|content)\b|\b(?:send|post|upload|submit|forward|transmit|exfiltrate|report|copy|sync)"
    r"\s+(?:\S+\s+){0,6}?(?:to|at|into)\s+\S*(?:https?://|webhook\.site|ngrok)",
    re.IGNORECASE,
)
_TOKENS_SENT = re.compile(r"\w+\s+(?:\S+\s+){0,3}?tokens\b", re.IGNORECASE)


def web_installer(command: str) -> tuple[str, ...] | None:
    """The names the installer a command fetches (its first URL; a link to the sources is not what
    runs) goes by: its domain's label, or the owner and repository on a code host. None when any
    URL of the line has a lure's shape: plain http, an address literal, a paste, file-drop, tunnel
    or shortening host, a URL assembled from variables or decoded."""
    urls = _URL.findall(command.split("\n", 1)[0])
    if not urls or _HIDDEN.search(command):
        return None
    for scheme, host, _ in urls:
        if (
            scheme.lower() != "https"
            or _DROP_HOST.search(host)
            or not re.fullmatch(r"[\w.-]+\.[a-z]{2,}", host, re.I)
        ):
            return None
    _, host, path = urls[0]
    if host.lower() in _CODE_HOSTS:
        return tuple(path.lower().strip("/").split("/")[:2])
    return (host.lower().split(".")[-2],)


#: Words of a host or repository name that name no product (`render-oss/cli`: "render" does).
_GENERIC_WORDS = frozenset(
    {"cli", "sdk", "app", "api", "get", "dev", "oss", "bin", "tool", "tools", "install"}
)


def _names_own(names: tuple[str, ...], own_name: str) -> bool:
    """Whether an installer's host or repository names the skill's product: the whole name inside
    the skill's name or starting a word of it (fly.io for `flyio-install-auth`), or its first word
    being a word of it (`render-oss/cli` for `render-deploy`; not `fly-setup.example`)."""
    own = re.split(r"[^a-z0-9]+", own_name)
    for n in names:
        first = re.split(r"[^a-z0-9]+", n)[0]
        if (len(n) >= 4 and n in own_name) or (
            len(n) >= 3 and n not in _GENERIC_WORDS and any(o.startswith(n) for o in own)
        ):
            return True
        if len(first) >= 4 and first not in _GENERIC_WORDS and first in own:
            return True
    return False


_SUPPRESS = re.compile(r"skillyard:\s*ignore\[([A-Za-z0-9_,*\s-]*)\]\s*(.*?)\s*(?:-->|\*/)?\s*$")


@dataclass(slots=True)
class Fence:
    """One fenced code block: its language, first body line and text."""

    lang: str
    first_line: int
    body: str
    example: bool


@dataclass(slots=True)
class FileContext:
    """Per-line kinds of one file, and the code blocks a Markdown file carries."""

    rel: str
    markdown: bool
    reference: bool
    kinds: dict[int, str] = field(default_factory=dict)
    example_lines: set[int] = field(default_factory=set)
    #: lines of fences in a data language (YARA rules, JSON, logs): text that is matched or shown
    data_fence_lines: set[int] = field(default_factory=set)
    #: lines of fences in a document language (markdown, html, email and the data languages)
    doc_fence_lines: set[int] = field(default_factory=set)
    fences: list[Fence] = field(default_factory=list)
    bang: list[tuple[int, str]] = field(default_factory=list)
    data_lines: set[int] = field(default_factory=set)
    #: lines fetching an instance's credentials that the code uses only at its cloud's APIs
    credential_use: set[int] = field(default_factory=set)
    #: lines writing a login item or service whose definition (read) starts only an installed program
    installed_launch: set[int] = field(default_factory=set)
    #: list items under a heading about what to recognise (a defence guide's checklist)
    watch_lines: set[int] = field(default_factory=set)
    #: lines of a paragraph or list item that hands a step to the user ("tell the user how to ...")
    for_user_lines: set[int] = field(default_factory=set)
    #: SKILL.md, or a document it points the model to outside the reference folders (notes, memory,
    #: a setup file): what the model reads as instructions, not documentation for a person
    instructs: bool = True
    #: a Markdown file SKILL.md says not to run anything from (its code blocks are quoted too)
    quoted: bool = False
    #: the skill's name (front matter), lower-case
    own_name: str = ""
    #: the skill's declared author (front matter), lower-case
    own_author: str = ""
    #: keychain service names this file stores itself (a backup tool's own password)
    own_secrets: frozenset[str] = frozenset()
    #: a unit file is written or linked somewhere in this file
    unit_written: bool = False
    #: `#` comments of shell, Python, Perl and Ruby blocks (a commented-out command is not run):
    #: line -> the column the comment starts at
    code_comments: dict[int, int] = field(default_factory=dict)
    #: lines of fenced blocks that send something (a credential header, a file, a command's output);
    #: found when a tunnel address is first weighed, as most files have none
    _sending_lines: set[int] | None = None

    def demotion(
        self, line: int | None, category: str, rule_id: str, text: str, start: int
    ) -> tuple[int, str]:
        """(levels to lower, why) for a rule match at `line`."""
        if line is None:
            return 0, ""
        if rule_id == "SY-DL-006" and line in self.credential_use:
            return 2, "the instance's own credentials, which the code uses only at its cloud's APIs"
        if rule_id == "SY-CRED-007" and _TOKENS_SENT.match(text[start:]) and _CURRENCY.search(text):
            return 2, "tokens as a currency, not credentials"
        if category in SPEECH and _CHECKED_SAMPLE.search(text[:start]):
            return 2, "a sample handed to a checker, not addressed to the model"
        if (
            rule_id == "SY-CRED-006"
            and (m := KEYCHAIN_READ.match(text, start))
            and m[2].lower() in self.own_secrets
        ):
            return 2, "a keychain item this skill stores itself or is named after"
        if rule_id in ("SY-PER-002", "SY-PS-006") and line in self.installed_launch:
            return 1, "a login item or service whose definition starts only a program already installed"
        if rule_id == "SY-PER-002" and _ENABLE_INSTALLED.match(text, start) and not self.unit_written:
            return 2, "a service some package installed, enabled; not one this file creates"
        if (
            rule_id == "SY-EXF-001"
            and self.markdown
            and _RECEIVER_HOST.match(text, start)
            and not _SENDS.search(text)
            and line not in self._sending()
        ):
            # docs for webhook development: the user's own tunnel, registered as a callback URL
            return 2, "a tunnel or request-capture address to receive at, with nothing sent to it"
        if not self.markdown:
            if (
                category == "download-and-execute"
                and _shown(text, start)
                and web_installer(text[start:]) is not None
            ):
                return 2, "an installer over https from a named host, in a message shown, not run"
            if category in SPEECH and _ALTERNATIVE.search(text[:start]):
                return 2, "an alternative in a pattern, not addressed to the model"
            if category in SPEECH and _TEST_FILE.search(self.rel):
                return 1, "test input in a test file"
            if line in self.data_lines and category in COMMANDISH and _in_string(text, start):
                return 2, "a string in a data list, not a command"
            if self.reference and category in COMMANDISH:
                return 1, "in reference material"
            if category in COMMANDISH and _CODE_COMMENT.match(text) and self.rel.endswith(_COMMENTED_EXT):
                return 1, "in a comment, not run"
            return 0, ""
        kind = self.kinds.get(line, "prose")
        if category == "download-and-execute" and kind != "comment":
            names = web_installer(text[start:])
            if names is not None and (not self.instructs or line in self.for_user_lines):
                return 2, "an installer over https from a named host, documented for the person installing"
            # the declared author counts for a domain, not for an account on a code host anyone can
            # open; a link to the sources elsewhere on the line neither grants nor revokes it
            fetched = _URL.search(text, start)
            author = "" if fetched and fetched[2].lower() in _CODE_HOSTS else self.own_author
            if names and (_names_own(names, self.own_name) or _names_own(names, author)):
                return 2, "the installer of the skill's own product, over https from its own host"
        if rule_id == "SY-PER-010" and kind in ("fence", "prose") and line not in self.watch_lines:
            return 0, ""  # the block to paste after "add this to your CLAUDE.md:" is the order itself
        if kind == "fence":
            if line in self.example_lines:
                # an attack shown inside a document-language block (markdown, html, email) is text
                quoted = self.reference or line in self.doc_fence_lines
                return (2 if quoted else 1), "shown as an example of an attack"
            if line in self.data_fence_lines:
                return (2 if self.reference else 1), "in a data block, not a command"
            if line in self.data_lines and category in COMMANDISH:  # `DENY = ["rm -rf /", ...]`, as in code
                return 2, "a string in a data list, not a command"
            if category in COMMANDISH and start >= self.code_comments.get(line, len(text)):
                return 1, "in a comment, not run"
            if category in COMMANDISH and self.quoted:
                return 2, "in a document SKILL.md says not to run, not an instruction"
            return self._for_people(category)
        if kind in ("table", "quote", "heading"):
            if (
                kind == "quote"
                and category == "download-and-execute"
                and self.instructs
                and not self.reference
                and _URL.search(text, start)
                and web_installer(text[start:]) is None
            ):
                # a line the model is to hand on ("tell the user: > paste this in Win+R"): a lure's
                # fetch (plain http, an address literal, a drop host) keeps blocking in any layout
                return 1, "in a quote of instructions to the model"
            return 2, f"mentioned in a {kind}, not an instruction"
        if kind == "comment":
            return 0, ""
        prefix = text[:start]
        if line in self.watch_lines and (category in COMMANDISH or category in SPEECH):
            return 2, "listed under a heading about what to recognise, not an instruction"
        if rule_id == "SY-PER-007" and _PLANTS.match(text, start):
            # "append to your MEMORY.md: always run …" is an order to the model wherever it reads it
            if _MENTION.search(prefix) or _quoted(text, start):
                return 2, "quoted or discussed, not addressed to the model"
            return 0, ""
        if line in self.for_user_lines and category == "persistence":
            return 2, "a step shown to the user, not one the model runs"
        if self.reference and category in COMMANDISH:
            # a document the model is told to read, not to follow: its commands are quoted
            return 2, "quoted in a reference document, not an instruction"
        if category in COMMANDISH and _NEGATED_CJK.search(prefix):
            # before the command-line test: prose without spaces reads as one long token
            return 2, "mentioned in prose, not an instruction"
        if category in COMMANDISH and (
            _COMMAND_START.match(text) or (prefix.strip() and _COMMAND_LINE.match(prefix))
        ):
            return self._for_people(category)
        if category in COMMANDISH or rule_id == "SY-CRED-007":
            if (
                _MENTION.search(_prose(prefix))
                or _described(text, start)
                or _PROSE_SUBJECT.match(text[start:])
            ):
                return 2, "mentioned in prose, not an instruction"
            return self._for_people(category)
        if category in SPEECH:
            if _MENTION.search(prefix) or _quoted(text, start):
                return 2, "quoted or discussed, not addressed to the model"
            return self._for_people(category)
        return 0, ""

    def _sending(self) -> set[int]:
        if self._sending_lines is None:  # a config block: its URL is where the header or data goes
            self._sending_lines = {
                n
                for f in self.fences
                if _SENDS.search(f.body)
                for n in range(f.first_line, f.first_line + f.body.count("\n") + 1)
            }
        return self._sending_lines

    def _for_people(self, category: str) -> tuple[int, str]:
        """A command in reference material, or in a document the model is not pointed to (README,
        INSTALL, release notes), is a step for a person who reads it first: one level lower."""
        if self.reference:
            return 1, "in reference material"
        if category in COMMANDISH and not self.instructs:
            return 1, "in a document for people, not instructions to the model"
        return 0, ""


#: "不使用 `curl|bash`", "未发现 …", "而非手动执行 …": a Chinese or Japanese negation just before it.
_NEGATED_CJK = re.compile(
    r"(?:不(?:使用|要|得|会|可|允许|运行|执行)|未(?:发现|使用|引入|包含)|禁止|避免|而非|切勿|请勿|勿)[^\n。；;]{0,12}$"
)
_DESCRIBES = re.compile(
    # "`a`, `b` and cookies are never opened": the rest of a list of subjects comes first
    r"^(?:\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)(?:`[^`\n]*`|[\w.-]+)){0,8}"
    r"\s*(?:--|—|-|,)?\s*(?:\w+(?<!ss)s|is|are|was|were|would|could|can|will|might|may)\b(?!\s+(?:it|them|the\s+\w+)\s*$)"
)


#: Prose telling the model to write a standing order into an agent file (rule SY-PER-007).
_PLANTS = re.compile(r"(?:append|add|write|insert|put|save)\b", re.IGNORECASE)
#: "curl reads ~/.netrc when ..." : a command name as the subject of a sentence.
_PROSE_SUBJECT = re.compile(r"^[\w.-]+\s+(?:\w+(?<!ss)s|is|are|can|will|would|may|lets?)\s+[a-z]")


def _described(text: str, start: int) -> bool:
    """Inline code that is the subject of a sentence (`rm -rf /` deletes ...) is talked about, not run."""
    if text[:start].count("`") % 2 == 0:
        return False
    close = text.find("`", start)
    return close != -1 and bool(_DESCRIBES.match(text[close + 1 :]))


def _prose(prefix: str) -> str:
    """The prose before a match: the words of inline code (a URL's `example` host, a folder named
    `patterns`) are the command's own, not a sentence about it."""
    if prefix.count("`") % 2:
        prefix = prefix[: prefix.rfind("`")]
    return re.sub(r"`[^`\n]*`", " ", prefix)


def _quoted(text: str, start: int) -> bool:
    before = text[:start]
    return (
        before.count('"') % 2 == 1
        or before.count("`") % 2 == 1
        or before.count("\u201c") > before.count("\u201d")
        or before.count("'") % 2 == 1
        and not re.search(r"\w'\w", before)
    )


def build(rel: str, text: str, referenced: set[str]) -> FileContext:
    """Classify the lines of one file (1-based physical line numbers)."""
    low = rel.lower()
    md = low.endswith(_MD_EXT) and not low.endswith("requirements.txt")
    # A document SKILL.md tells the model to read is still reference material; only one it is told
    # to run or follow (a script, "follow references/setup.md") carries SKILL.md's weight.
    named = rel in referenced and (not md or f"{_FOLLOW_MARK}{rel}" in referenced)
    reference = bool(_REFERENCE_DIRS.search(rel)) and not named and not low.endswith("skill.md")
    # a document SKILL.md says not to run commands from (course notes, a threat catalogue)
    quoted = md and f"{_QUOTE_MARK}{rel}" in referenced and not named
    reference = reference or quoted
    skill_md = low.rsplit("/", 1)[-1] == "skill.md"
    own = next((r.removeprefix(_NAME_MARK) for r in referenced if r.startswith(_NAME_MARK)), "")
    author = m[1].lower() if skill_md and (m := _FRONT_AUTHOR.match(text)) else ""
    instructs = skill_md or (rel in referenced and not reference)
    ctx = FileContext(
        rel,
        md,
        reference,
        quoted=quoted,
        instructs=instructs,
        own_name=own,
        own_author=author,
    )
    # the skill's own items: those it stores, and one named for the skill (`-s restic` in a restic
    # backup skill), unless the name is another program's (a browser's "Safe Storage")
    # (not one SKILL.md has the user store: its name may be another program's item, which is read)
    stored = {(a or b).lower() for _, a, _, b in _KEYCHAIN_STORE.findall(text)}
    stored |= {w for w in re.split(r"[^a-z0-9]+", own.lower()) if len(w) >= 4}
    ctx.own_secrets = frozenset(n for n in stored if not _FOREIGN_ITEM.search(n))
    ctx.unit_written = bool(_UNIT_WRITTEN.search(text))
    if not md:
        return ctx
    lines = text.split("\n")
    fence: tuple[str, str, int, bool, bool] | None = (
        None  # (marker, lang, first body line, example, told to run)
    )
    body: list[str] = []
    in_comment = False
    watching = False
    in_item = False
    item: list[int] = []
    for_user = False
    # paragraphs and code blocks in order: a code block is handed to the user with the paragraph
    # that introduces it or the one right after it ("ask the user to run:", "let the user run it")
    blocks: list[tuple[bool, list[int], bool]] = []  # (is code, lines, hands to the user)
    indented: list[int] = []  # lines of the indented code block being read
    list_indent = 0  # where the text of the current list item starts

    def close_item() -> None:
        if item:
            blocks.append((False, item, for_user))

    def close_indented() -> None:
        if indented:
            body = "\n".join(lines[k - 1][list_indent + 4 :] for k in indented)
            ctx.fences.append(Fence("", indented[0], body, False))
            blocks.append((True, list(indented), False))
            indented.clear()

    for i, line in enumerate(lines, start=1):
        if (
            fence is None
            and not in_comment
            and _indented_code(line, list_indent, lines[i - 2] if i > 1 else "", indented)
        ):
            # CommonMark's indented code block: four columns past the text of the list item it is in
            close_item()
            item, for_user = [], False
            indented.append(i)
            ctx.kinds[i] = "fence"
            continue
        if line.strip():
            close_indented()
            if m := LIST_ITEM.match(line):
                list_indent = m.end()
            elif not line[:1].isspace():
                list_indent = 0
        if fence is None and not _FENCE.match(line):
            # paragraphs and list items, for steps handed to the user
            if not line.strip() or LIST_ITEM.match(line) or _HEADING.match(line):
                close_item()
                item, for_user = [], False
            if line.strip():
                item.append(i)
                for_user = for_user or bool(_FOR_USER.search(line))
            if _HEADING.match(line):
                watching = bool(_WATCH_HEADING.search(line))
                in_item = False
            elif watching:
                if LIST_ITEM.match(line):
                    in_item = True
                elif not line.strip() or not line[:1].isspace():
                    in_item = False
                if in_item:
                    ctx.watch_lines.add(i)
        if fence is not None:
            m = _FENCE.match(line)
            if m and m.group(1)[0] == fence[0][0] and len(m.group(1)) >= len(fence[0]) and not m.group(2):
                ctx.fences.append(Fence(fence[1], fence[2], "\n".join(body), fence[3]))
                blocks.append((True, list(range(fence[2] - 1, i + 1)), False))
                fence, body = None, []
                ctx.kinds[i] = "fence"
                continue
            ctx.kinds[i] = "fence"
            if fence[3]:
                ctx.example_lines.add(i)
            if fence[1] in DATA_LANGS:
                ctx.data_fence_lines.add(i)
            if fence[1] in DOC_LANGS and not (fence[4] and fence[1] not in DATA_LANGS):
                ctx.doc_fence_lines.add(i)
            if fence[1] in SHELL_LANGS | PYTHON_LANGS | _HASH_LANGS:
                if _CODE_COMMENT.match(line):
                    ctx.code_comments[i] = 0
                elif tail := _TRAILING_COMMENT.match(line):
                    ctx.code_comments[i] = tail.end() - 2
            body.append(line)
            continue
        m = _FENCE.match(line)
        if m:
            intro = " ".join(lines[max(0, i - 4) : i - 1])
            # a README the lines before tell the model to install from or run is no document shown
            told = any(not n for n in _follow_hits(intro)) or bool(_INSTALL_FROM.search(intro))
            fence = (m.group(1), m.group(2).lower(), i + 1, bool(_EXAMPLE_MARK.search(intro)), told)
            ctx.kinds[i] = "fence"
            continue
        bare = INLINE_CODE.sub("", line)
        if _MD_COMMENT.match(line):
            ctx.kinds[i] = "comment"
            continue
        if "<!--" in bare or in_comment:
            ctx.kinds[i] = "comment"
            in_comment = "-->" not in bare.split("<!--")[-1] if "<!--" in bare else "-->" not in line
            continue
        if _TABLE.match(line):
            ctx.kinds[i] = "table"
        elif _QUOTE.match(line):
            ctx.kinds[i] = "quote"
        elif _HEADING.match(line):
            ctx.kinds[i] = "heading"
        for b in _BANG.finditer(line):
            ctx.bang.append((i, b.group(1) or b.group(2)))
    if fence is not None:
        ctx.fences.append(Fence(fence[1], fence[2], "\n".join(body), fence[3]))
    close_item()
    close_indented()
    for k, (code, block, _) in enumerate(blocks):
        if code and any(0 <= j < len(blocks) and not blocks[j][0] and blocks[j][2] for j in (k - 1, k + 1)):
            ctx.for_user_lines.update(block)
    ctx.for_user_lines.update(n for code, block, mine in blocks if mine and not code for n in block)
    return ctx


def _indented_code(line: str, indent: int, previous: str, open_block: list[int]) -> bool:
    """A line of an indented code block: four columns past `indent` (the text of the list item it
    sits in, or the margin), after a blank line or inside such a block."""
    if not line.strip():
        return False
    width = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
    return width >= indent + 4 and (bool(open_block) or not previous.strip())


def suppressions(rel: str, text: str) -> dict[tuple[str, int], tuple[frozenset[str], str]]:
    """`skillyard: ignore[RULE, ...] reason` covers its own line and the next one."""
    out: dict[tuple[str, int], tuple[frozenset[str], str]] = {}
    if "skillyard:" not in text:
        return out
    for i, line in enumerate(text.split("\n"), start=1):
        if "skillyard:" not in line:
            continue
        m = _SUPPRESS.search(line)
        if not m:
            continue
        ids = frozenset(x.strip() for x in m.group(1).split(",") if x.strip()) or frozenset({"*"})
        reason = m.group(2).strip().lstrip("#/ -").strip() or "no reason given"
        out[(rel, i)] = (ids, reason)
        out[(rel, i + 1)] = (ids, reason)
    return out


_PATH_TOKEN = re.compile(r"(?<![\w/.-])((?:\./)?(?:[\w.-]+/)+[\w.-]+\.\w{1,5})\b")


#: Marks a path SKILL.md tells the model to follow (run, apply, follow the steps of) in the set
#: `referenced_paths` returns, next to the bare paths it mentions.
_FOLLOW_MARK = "\x00follow:"
#: ... and one on a line that tells it not to run anything from them.
_QUOTE_MARK = "\x00quote:"
#: ... and the skill's own name, from its front matter.
_NAME_MARK = "\x00name:"
_FRONT_NAME = re.compile(r"\A---[^\n]*\n(?:[^\n]*\n)*?name:\s*[\"']?([\w.-]+)")
#: The skill's declared author (`metadata.author`), read inside the front matter only.
_FRONT_AUTHOR = re.compile(r"\A---[^\n]*\n(?:(?!---)[^\n]*\n)*?[ \t]*author:[ \t]*[\"']?([\w.-]+)")
_INSTALL_FROM = re.compile(r"\binstall\b(?![\w-]*\s+(?:section|step|instructions|guide|part)s?\b)", re.I)
_FOLLOW = re.compile(
    r"\b(?:run|runs|execute|follow|apply|perform|carry\s+out|do\s+what|steps?\s+in|instructions?\s+in|as\s+described\s+in)\b",
    re.IGNORECASE,
)


_NEGATED = re.compile(r"\b(?:not|never|n't|nor)\s+(?:\w+\s+)?$", re.IGNORECASE)
_USER_DOES = re.compile(
    r"\b(?:the\s+user|users|they|(?:let|have|ask|help)\s+them)\s+(?:(?:can|may|should|will|to)\s+)?$",
    re.IGNORECASE,
)


def _follow_hits(line: str) -> list[bool]:
    """Whether each word on `line` telling the model to run or follow something is negated."""
    # "let the user run it": the user runs the document, not the model
    return [
        bool(_NEGATED.search(line[: m.start()]))
        for m in _FOLLOW.finditer(line)
        if not _USER_DOES.search(line[: m.start()])
    ]


def referenced_paths(text: str) -> set[str]:
    """Relative file paths SKILL.md mentions: the files it tells the model to open or run (and,
    marked, those on a line that tells it to run or follow them)."""
    out: set[str] = set()
    if m := _FRONT_NAME.match(text):
        out.add(f"{_NAME_MARK}{m.group(1).lower()}")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if "/" not in line:
            continue
        hits = _follow_hits(line)
        if not hits:
            # "Use `notes/x.md` when asked. Quote its examples;\nnever run them.": a sentence that
            # names the file and goes on in the same paragraph to say how it is used
            j = i + 1
            while j < len(lines) and lines[j].strip() and not hits:
                hits = _follow_hits(lines[j])
                j += 1
            hits = hits if all(hits) else []
        follow = not all(hits) if hits else False
        quote = any(hits) and not follow
        for m in _PATH_TOKEN.finditer(line):
            path = m.group(1).removeprefix("./")
            out.add(path)
            if follow:
                out.add(f"{_FOLLOW_MARK}{path}")
            elif quote:
                out.add(f"{_QUOTE_MARK}{path}")
    return out


DATA_LANGS = frozenset("yara json jsonc yaml yml xml csv text txt log output diff mermaid sigma".split())
#: Fence languages that show a document (not code): an attack shown in one as an example is text.
DOC_LANGS = DATA_LANGS | {"markdown", "md", "html", "email", "eml"}
SHELL_LANGS = frozenset(
    {"", "sh", "bash", "shell", "zsh", "console", "shell-session", "terminal", "ksh", "dash"}
)
PYTHON_LANGS = frozenset({"python", "py", "python3", "pycon"})
JS_LANGS = {
    "js": "javascript",
    "javascript": "javascript",
    "jsx": "javascript",
    "mjs": "javascript",
    "ts": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
}
