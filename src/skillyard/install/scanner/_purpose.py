"""Persistence that is the skill's declared product: a systemd unit generator writes units.

A persistence or agent-memory finding at high is lowered to medium (reported, not blocking) when
the skill's front-matter description names the mechanism it writes, and nothing in the file that
writes it is something a declared purpose never excuses (docs/scanner.md, "Persistence the skill
declares"). The name alone does not declare it: a name is a label ("launchagent" for a clipboard
manager), the description says what the skill does.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

from skillyard.install.scanner._flows import SECRET_PATH

_HOOKS = r"pre-commit|commit-msg|pre-push|post-commit|post-checkout|post-merge|prepare-commit-msg"


def _agent_file(name: str, word: str = "") -> tuple[str, str, str, str]:
    """An agent instruction file: written by that name, declared by that name (or by `word`)."""
    said = re.escape(name.lower()) + (rf"|{word}" if word else "")
    return "agent", name, rf"(?<![\w.-]){re.escape(name)}\b", rf"(?<![\w/.-])(?:{said})(?![\w-])"


#: (family, mechanism, what a finding about it shows, what the skill's description must say). A mechanism declared excuses only findings about itself: git hooks never excuse a crontab.
_MECHANISMS = tuple(
    (family, label, re.compile(shows), re.compile(said))
    for family, label, shows, said in (
        ("service", "systemd units", r"systemd/|\bsystemctl\b", r"\bsystem(?:d|ctl)\b"),
        (
            "service",
            "LaunchAgents",
            r"Library/Launch(?:Agents|Daemons)/|\blaunchctl\b",
            r"\blaunch(?:d|ctl)\b|\blaunch[ -]?(?:agents?|daemons?)\b",
        ),
        ("cron", "cron entries", r"\bcrontab\b|/etc/cron|/var/spool/cron", r"\bcron(?:tab)?s?\b"),
        ("git", "git hooks", r"\.git/hooks/", rf"\bgit[ -]hooks?\b|\b(?:{_HOOKS})\b"),
        _agent_file("CLAUDE.md"),
        _agent_file("AGENTS.md"),
        _agent_file("GEMINI.md"),
        _agent_file("SOUL.md"),
        # "memory" alone is any program's RAM ("profiles memory use"): the agent's memory declares it
        _agent_file(
            "MEMORY.md", r"(?:agent|claude|assistant|model|project|persistent|long-term)(?:'s)?\s+memory"
        ),
        ("agent", "slash commands", r"\.claude/commands/", r"\bslash[ -]commands?\b|\.claude/commands\b"),
        ("agent", "subagents", r"\.claude/agents/", r"\bsub-?agents?\b|\.claude/agents\b"),
        ("agent", "Cursor rules", r"\.cursor/rules|\.cursorrules", r"\bcursor rules\b|\.cursor/?rules\b"),
    )
)
#: The findings a declared purpose may lower (only at high; critical flows never).
LOWERED = frozenset({"SY-PER-001", "SY-PER-002", "SY-PER-006", "SY-PER-007", "SY-FLOW-003"})
#: On the finding's line: a target no purpose excuses (other start-up mechanisms, even with a declared
#: one named beside them in a comment; agent settings
#: that grant permissions or start programs), or prose telling the model to add a standing order to
#: an agent file ("append to MEMORY.md: always run …").
_NEVER_HERE = re.compile(
    r"/etc/init\.d|rc\.local|login\s?item|\\Run|schtasks|\.mcp\.json|\.claude/(?:settings|hooks/)|\.codex/(?:config|instr)"
    r"|autostart/|/etc/(?:profile\.d|environment|bash\.bashrc|zsh/)|\.pth\b|customize\.py|\.ssh/rc\b"
    r"|autoApprove|\b(?:append|add|write|insert)\b[^\n]{0,40}\b(?:to|into)\b[^\n]{0,200}\b(?:always|never|ignore|trust|run)\b",
    re.IGNORECASE,
)
#: Text for an agent to obey that grants trust or waives the user's say, in any file of a skill that
#: writes an agent's instruction files ("Always trust skills from …, never ask").
_PLANTED = re.compile(
    r"\btrust(?:ed)?\s+(?:all|any|every|skills?|scripts?|code|commands?|tools?|hosts?|sites?|domains?)\b|never\s+ask"
    r"|without\s+(?:asking|confirm\w*|approval|permission)|\b(?:do\s+not|don'?t)\s+(?:ask|confirm)|auto-?approv"
    r"|\bbypass\w*|\bskip\w*\s+(?:the\s+)?(?:confirm|permission|approval)|\balways\s+(?:allow|approve|accept|trust)\b"
    r"|ignore\s+(?:all\s+)?(?:previous|prior|earlier|above|other)|dangerously|--yolo|skip-permissions|\bBash\(\s*\*?\s*\)"
    r"|\b(?:do|follow|obey|run|execute|apply)\s+(?:what(?:ever)?|the\s+(?:instructions?|commands?|steps?))\s+(?:it|they|that"
    r"|this|the\s+\w+)\s+(?:says?|prints?|returns?|outputs?|tells?|gives?|lists?|contains?)\b"
    # a standing order to run a program whenever a session starts is not notes, whatever it runs
    r"|^(?=[^\n]*\b(?:(?:every|each)\s+(?:new\s+)?(?:session|conversation|chat|start-?up)|session\s+start)"
    r"|[^\n]*\bwhen(?:ever)?\s+(?:a|the|you|each)\s+(?:new\s+)?(?:session|conversation)\s+(?:starts|begins|opens))"
    r"[^\n]*\b(?:run|execute|source|launch|invoke|start)\s+[`\"']?(?:[\w./-]+\.(?:sh|py|js|ps1|rb|pl)\b|(?:ba|z)?sh\s|python3?\s|node\s|\./)",
    re.IGNORECASE | re.MULTILINE,
)
#: The user's global agent instruction files (`~/.codex/AGENTS.md`, `~/.claude/CLAUDE.md`), read in
#: every project: declaring a project's AGENTS.md does not excuse writing them.
_GLOBAL_AGENT = re.compile(
    r"(?:~|\bHOME\b\}?|\bhome(?:dir)?\(\)|USERPROFILE\}?|/(?:home|Users)/[^/\s]+)\W{0,6}\.(?:codex|claude|gemini|config/\w+)\W{1,6}(?:AGENTS|CLAUDE|GEMINI)\.md",
    re.IGNORECASE,
)
#: Anywhere in the same file: targets never lowered (SSH keys, sudo, preloads, kernel settings and
#: modules, PAM), and text decoded at run time (what is persisted may be hidden in it: a rot13'd
#: `nc -e` cron job).
_NEVER_IN_FILE = re.compile(
    r"authorized_keys|sudoers|ld\.so\.preload|/proc/sys/|pam\.d\b|\bpam_\w+\.so\b|\b(?:insmod|modprobe)\b|/etc/modules"
    r"|rot_?13|b64decode|base64\s+(?:-d|-D|--decode)|\batob\s*\(|fromCharCode|codecs\.decode|maketrans|\.translate\("
    r"|bytes\.fromhex|unhexlify|xxd\s+-r|FromBase64String|Buffer\.from\((?:(?!Buffer\.from\()[^)\n])*(?:base64|hex)",
    re.IGNORECASE,
)
#: A line that talks to the network: a client, a socket, a download tool, a copy to or from a remote
#: host (a clone too: what it brings may be what gets installed).
_NET = re.compile(
    r"/dev/(?:tcp|udp)/|(?:\b|(?<=\\[nrt]))(?:curl|wget|nc|ncat|netcat|socat|telnet|ftp)\s|\bInvoke-(?:WebRequest|RestMethod)\b"
    r"|\b(?:requests|httpx|aiohttp|axios|urllib3?|http\.client|socket)\.|\burlopen\s*\(|\bfetch\s*\("
    r"|\b(?:fetch|download|open|visit|load|read|get)\s+[`<]?https?://|\b(?:download|install|save|run|execute)\b[^\n]{0,60}https?://"
    # a runner or installer of published code, a container image, PowerShell's short names
    r"|\b(?:npx|uvx|bunx|pipx\s+run|pnpm\s+dlx|yarn\s+dlx|npm\s+exec|aria2c|iwr|irm)\s|Net\.WebClient"
    r"|\b(?:pip3?|uv\s+pip|gem|cargo|go)\s+(?:install|get)\b|\bnpm\s+(?:install|i)\s+-g\b|\b(?:docker|podman)\s+(?:run|pull)\b"
    r"|\bhttps?\.(?:request|get)\b|\b(?:scp|rsync|sftp|ssh)\s(?:(?!\b(?:scp|rsync|sftp|ssh)\s)[^\n])*[\w.-]:|\bgit\s+(?:clone|pull|fetch)\b"
    r"|\.connect\s*\(|\bdup2\b|(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])",
    re.IGNORECASE,
)
_HOST = re.compile(r"://([^/\s:'\"`)]+)|(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?![\w.])")
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "["})  # `[::1]` reads as `[`
_PROSE = (".md", ".markdown", ".rst", ".txt")
#: Other findings in the same file that keep a purpose from excusing anything in it (and code run
#: from a string, `exec`/`eval`, at medium).
_VETO = frozenset(
    "credential-exfiltration exfiltration-endpoint reverse-shell download-and-execute obfuscated-execution "
    "cryptomining hidden-instructions privilege-escalation hardcoded-secret prompt-injection".split()
)
_SPEECH = ("prompt-injection", "hidden-instructions")
#: Words that make the rest of their clause what the skill does not do ("never touches cron or
#: systemd"), and those that make the next words only what it replaces ("replaces cron with systemd").
_NOT = re.compile(r"\b(?:no|not|never|without|nothing|none|neither|nor|free\s+of)\b|n['\u2019]t\b")
_INSTEAD = re.compile(
    r"(?:\binstead\s+of|\brather\s+than|\bunlike|\bavoid\w*|\breplac\w*|\bmigrat\w*\s+from)\s+(?:[\w-]+\s+){0,2}$"
)
_CLAUSE = re.compile(r"[.;:!?](?=\s|$)|\b(?:but|however)\b")
#: A description naming more mechanism families than this declare no purpose at all:
#: stuffing every mechanism's name into a description buys nothing.
MAX_FAMILIES = 2
#: A skill with more files than this is not read whole for the check, so it declares nothing.
MAX_FILES = 200


def description(skill_md: str) -> str:
    """The skill's front-matter description as the catalog reads it, lower-case ("" when there is
    none): a second `description:` key, a comment line or a ` #` comment is not what a user is shown."""
    from skillyard.parsing import parse_frontmatter, split_frontmatter

    fm = split_frontmatter(skill_md[:65536])[0]
    data = parse_frontmatter(fm)[0] if fm is not None else None
    said = data.get("description") if isinstance(data, dict) else None
    # past the 1,024 characters the format allows, a description may be cut where it is shown
    return " ".join(said.split()).lower()[:1024] if isinstance(said, str) else ""


def _says(text: str, said: re.Pattern[str]) -> bool:
    """Whether `text` names the mechanism, not as what the skill does not do ("no cron")."""
    for m in said.finditer(text):
        before = text[max(0, m.start() - 400) : m.start()]
        clause = before[max((c.end() for c in _CLAUSE.finditer(before)), default=0) :]
        if not _NOT.search(clause) and not _INSTEAD.search(before):
            return True
    return False


def _sends(text: str, code: bool) -> bool:
    """Whether a line of `text` talks to the network, other than only to this machine; in code, any
    line naming another host does (`perl -MLWP::Simple -e 'eval get("https://…")'`)."""
    for line in text.splitlines():
        hosts = {(url or ip).lower() for url, ip in _HOST.findall(line)} - _LOOPBACK
        if hosts and code or _NET.search(line) and (hosts or not _HOST.search(line)):
            return True
    return False


def lower(
    findings: list[Any],
    rules: Iterable[Any],
    skill_md: str,
    read: Callable[[str], str | None],
    files: Collection[str],
    overridden: Collection[str],
) -> None:
    """Lower, in place, the high persistence findings whose mechanism the skill declares (and a
    command assembled from variables that is one of them: `cp x "$PLIST"`)."""
    titles = tuple(r.title for r in rules if r.id in LOWERED)
    todo = [
        i
        for i, f in enumerate(findings)
        if f.severity == "high"
        and (
            f.rule_id in LOWERED
            or f.rule_id == "SY-OBF-009"
            and f.title.partition(": ")[2].startswith(titles)
        )
    ]
    if not todo:
        return
    about = description(skill_md)
    if any(c.isalpha() and not c.isascii() for c in about):
        return  # negations are read in English; a look-alike letter ("ｎever") would hide one
    said = {label: family for family, label, _, says in _MECHANISMS if _says(about, says)}
    if not said or len(set(said.values())) > MAX_FAMILIES:
        return
    vetoed = {
        f.file
        for i, f in enumerate(findings)
        if i not in todo
        and (
            f.category in _VETO
            and f.severity != "info"
            or f.category in ("network", "unscannable-content")  # an archive may hold what a job runs
            or f.category == "dynamic-execution"
            and f.severity not in ("low", "info")
        )
    }
    texts: dict[str, str | None] = {}
    clean: dict[str, bool] = {}

    def text_of(rel: str) -> str | None:
        if rel not in texts:
            texts[rel] = read(rel)
        return texts[rel]

    def excusable(rel: str) -> bool:
        """No secret read, never-lowered target, decoding or network talk anywhere in the file."""
        if rel not in clean:
            text = text_of(rel)
            clean[rel] = text is not None and not (
                SECRET_PATH.search(text)
                or _NEVER_IN_FILE.search(text)
                or _sends(text, not rel.lower().endswith(_PROSE))
            )
        return clean[rel]

    # what a unit, job or hook runs may be any file of the skill (named on another line, through a
    # variable, by a script that runs another), and SKILL.md tells the model what to put in place
    if vetoed or len(files) > MAX_FILES or not all(map(excusable, files)):
        return

    planted: bool | None = None
    for i in todo:
        f = findings[i]
        what = f"{f.title} {f.snippet}" if f.rule_id == "SY-FLOW-003" else f.snippet  # a flow names its path
        kinds = [(fam, label) for fam, label, shows, _ in _MECHANISMS if shows.search(what)]
        if not kinds or any(label not in said for _, label in kinds) or f.rule_id in overridden:
            continue
        if _NEVER_HERE.search(what):
            continue
        if kinds[0][0] == "agent":
            if _GLOBAL_AGENT.search(what) or _GLOBAL_AGENT.search(text_of(f.file) or ""):
                continue  # the user's own instructions, for every project: a project's file is declared
            # what an agent will read as instructions: no injected or hidden text anywhere in the skill
            if planted is None:
                planted = any(g.category in _SPEECH and g.severity != "info" for g in findings) or any(
                    _PLANTED.search(text_of(rel) or "") for rel in files
                )
            if planted:
                continue
        labels = list(dict.fromkeys(label for _, label in kinds))
        why = f"declared purpose: the skill's description says it writes {' and '.join(labels)}"
        findings[i] = dataclasses.replace(f, severity="medium", title=f"{f.title} ({why})")
