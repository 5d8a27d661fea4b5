"""What counts as a secret, a sink and an exfiltration-shaped destination: shared by the code readers.

The readers (`_python`, `_shell`) fold constants and follow values; this module only names
things, so the two languages agree on what "reads ~/.aws/credentials" means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Paths whose content is a credential. Matched against folded paths (`~` for the home directory).
SECRET_PATH = re.compile(
    r"(?:^|[/~\s\"'=@])(?:"
    r"\.ssh/(?!authorized_keys|known_hosts|config\b)[^\s\"']*|\.ssh/?$|id_(?:rsa|ed25519|ecdsa|dsa)(?!\.pub)\b"
    r"|\.aws/(?:credentials|config)|\.aws/?$|\.config/gcloud\b[^\s\"']*|\.azure/[^\s\"']*|\.kube/config"
    r"|\.docker/config\.json|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.gnupg\b[^\s\"']*"
    r"|\.env(?:\.[\w.-]+)?$|\.env(?=[\s\"'])|/etc/shadow|wallet\.dat|\.electrum/wallets|Exodus/exodus\.wallet"
    r"|Login Data|Cookies|key4\.db|logins\.json|cookies\.sqlite|Library/Keychains[^\s\"']*|Local Extension Settings"
    r"|\.config/gh/hosts\.yml|\.config/(?:openai|anthropic)[^\s\"']*|\.claude/\.credentials\.json|\.codex/auth\.json"
    r"|(?:access|api|auth|refresh)[_-]?tokens?(?:\.json|\.txt)?$|credentials\.json|token\.json|\.vault-token"
    r")",
    re.IGNORECASE,
)

#: Environment variable names that hold credentials.
SECRET_ENV = re.compile(
    r"^[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|COOKIE|SESSION|PAT|AUTH)[A-Z0-9_]*$"
)

#: Destinations that look like somewhere to drop stolen data rather than a service's API.
EXFIL_HOST = re.compile(
    r"^(?:[a-z]+://)?(?:[^/@\s]*@)?(?:(?:\d{1,3}\.){3}\d{1,3}|[^/\s]*(?:webhook\.site|requestbin|pipedream\.net"
    r"|ngrok|bore\.pub|serveo\.net|interact\.sh|oast\.|burpcollaborator|trycloudflare\.com|pastebin\.com"
    r"|transfer\.sh|discord(?:app)?\.com/api/webhooks|api\.telegram\.org))",
    re.IGNORECASE,
)

#: Persistence targets: writing here makes code run later, outside the skill's run.
PERSIST_PATH = re.compile(
    r"(?:/etc/cron|/var/spool/cron|/etc/systemd/|\.config/systemd/|Library/Launch(?:Agents|Daemons)/|/etc/init\.d/"
    r"|/etc/rc\.local|\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv|bash_login)$|\.config/fish/config\.fish"
    r"|\.ssh/authorized_keys|\.git/hooks/|(?<![\w.-])(?:CLAUDE|AGENTS|MEMORY|SOUL|GEMINI)\.md$|\.mcp\.json$"
    r"|\.claude/settings(?:\.local)?\.json|/etc/sudoers|/etc/ld\.so\.preload)",
)

KERNEL_PATH = re.compile(r"^/proc/sys/")
#: Shell start-up files: users are told to append PATH lines to them, so a write alone is medium.
RC_FILE = re.compile(r"\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv|bash_login)$|config\.fish$")


def persistence_severity(path: str) -> str:
    return "medium" if RC_FILE.search(path) else "high"


#: Roots whose recursive removal destroys the user's data or the system.
DESTROY_TARGET = re.compile(
    r"^(?:/|~|~/|/\*|~/\*|\$HOME/?|/home/?|/etc/?|/usr/?|/var/?|/Users/?|/root/?|/boot/?)$"
)

SEVERITIES = ("info", "low", "medium", "high", "critical")


def secret_path(path: str) -> str | None:
    """`path` as the user would recognise it if it names a credential store, else None."""
    if not path or len(path) > 4096:
        return None
    p = path.replace("$HOME", "~").replace("${HOME}", "~")
    p = re.sub(r"^/(?:home|Users)/[^/]+", "~", p)
    p = re.sub(r"^/root(?=/)", "~", p)
    if p.endswith((".pub", ".example", ".sample", ".template")):
        return None
    return p if SECRET_PATH.search(p) else None


def exfil_shaped(dest: str) -> bool:
    return bool(EXFIL_HOST.search(dest.strip()))


@dataclass(frozen=True, slots=True)
class Flow:
    """A value followed from where it comes from to where it goes, in words and in steps."""

    kind: str  # secret-network | download-exec | persistence | destruction | kernel | secret-exec
    severity: str
    line: int
    text: str
    steps: tuple[tuple[int, str], ...] = field(default=())


@dataclass(slots=True)
class CodeFacts:
    """What one reader learned from one piece of code."""

    flows: list[Flow] = field(default_factory=list)
    #: (line, text): commands or code assembled from pieces (concatenation, variables, decoding)
    #: that the rule set should see as one string.
    assembled: list[tuple[int, str]] = field(default_factory=list)
    #: (line, code): commands the code hands to a shell, for the shell reader.
    shell: list[tuple[int, str]] = field(default_factory=list)
    #: lines whose string literals are data (deny-lists, fixtures), not commands.
    data_lines: set[int] = field(default_factory=set)

    def extend(self, other: CodeFacts, line_offset: int = 0) -> None:
        for f in other.flows:
            self.flows.append(
                Flow(
                    f.kind,
                    f.severity,
                    f.line + line_offset,
                    f.text,
                    tuple((n + line_offset, s) for n, s in f.steps),
                )
            )
        self.assembled.extend((n + line_offset, s) for n, s in other.assembled)
        self.shell.extend((n + line_offset, s) for n, s in other.shell)
        self.data_lines.update(n + line_offset for n in other.data_lines)
