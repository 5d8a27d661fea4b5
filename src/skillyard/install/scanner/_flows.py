"""What counts as a secret, a sink and an exfiltration-shaped destination: shared by the code readers.

The readers (`_python`, `_shell`) fold constants and follow values; this module only names
things, so the two languages agree on what "reads ~/.aws/credentials" means.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class ScanTimeout(Exception):
    """The scan's time budget ran out (hostile input built to be slow); the caller fails closed."""


#: when the running scan's budget ends (`time.monotonic()`), per thread; set by `scan_path`
_deadline = threading.local()


def check_deadline() -> None:
    """Raise ScanTimeout once the running scan's budget is spent. The readers call it every few
    hundred nodes, so no file shaped to make one of them slow outlives the budget."""
    d = getattr(_deadline, "at", None)
    if d is not None and time.monotonic() > d:
        raise ScanTimeout()


def popped(stack: list[Any]) -> Iterator[Any]:
    """Nodes popped off `stack` until it is empty (the caller pushes children as it goes), with
    the scan's time budget checked every 256 nodes."""
    visited = 0
    while stack:
        visited += 1
        if not visited & 255:
            check_deadline()
        yield stack.pop()


#: Paths whose content is a credential. Matched against folded paths (`~` for the home directory).
SECRET_PATH = re.compile(
    r"(?:^|[/~\s\"'=@])(?:"
    r"\.ssh/(?!authorized_keys|known_hosts|config\b)[^\s\"']*|\.ssh/?$|id_(?:rsa|ed25519|ecdsa|dsa)(?!\.pub)\b"
    r"|\.aws/(?:credentials|config)|\.aws/?$|\.config/gcloud\b[^\s\"']*|\.azure(?:/[^\s\"']*|$)|\.kube(?:/config|/?$)"
    r"|\.docker(?:/config\.json|/?$)|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.gnupg\b[^\s\"']*"
    r"|\.env(?:\.[\w.*-]+|\*)?$|\.env(?=[\s\"'])|/etc/shadow|wallet\.dat|\.electrum/wallets|Exodus/exodus\.wallet"
    r"|Login Data|Cookies|key4\.db|logins\.json|cookies\.sqlite|Library/Keychains[^\s\"']*|Local Extension Settings"
    r"|Local State|Web Data|\.pgpass|\.my\.cnf|\.cargo/credentials|\.gradle/gradle\.properties|\.m2/settings(?:-security)?\.xml"
    r"|\.(?:sbt|ivy2)/\.credentials|\.gem/credentials|\.terraform\.d/credentials|\.boto\b"
    r"|\.s3cfg|\.config/rclone/rclone\.conf|\.(?:config/)?composer/auth\.json|\.pulumi/credentials|\.password-store|\.local/share/keyrings"
    r"|\.config/gh(?:/hosts\.yml|/?$)|\.config/(?:openai|anthropic)[^\s\"']*|\.claude/\.credentials\.json|\.codex/auth\.json"
    # coding assistants' settings: MCP servers' keys in their environments, the assistant's own token
    r"|\.claude\.json$|\.cursor/mcp\.json|claude_desktop_config\.json|\.config/github-copilot/(?:hosts|apps)\.json"
    r"|\.gemini/oauth_creds\.json|\.codeium/"
    # a repository's settings: a CI checkout's token (an `extraheader`, a remote URL's user part)
    r"|(?<![\w.-])\.git/config$"
    r"|(?:access|api|auth|refresh)[_-]?tokens?(?:\.json|\.txt)?$|credentials\.json|token\.json|\.vault-token"
    # a private key kept in a file of its own (`storage/oauth-private.key`, `privkey.pem`)
    r"|(?<![\w.-])[\w.-]*priv(?:ate)?[_.-]?key(?:[\w.-]*\.(?:key|pem))?$|[\w.-]*private[\w.-]*\.(?:key|pem)$"
    # command and REPL histories (what was typed, passwords included); notebook servers' tokens
    r"|\.[\w-]+_history\b|\.local/share/fish/fish_history|\.ipython/[^\s\"']*history\.sqlite|jupyter/runtime\b"
    r"|PSReadLine/ConsoleHost_history\.txt"
    r"|Local Storage/leveldb|\.yarnrc(?:\.yml)?\b|\.config/hub\b|\.config/glab-cli\b"
    # chat and mail desktop apps' profile folders: their signed-in sessions' tokens and cookies
    r"|(?:\.config|Application Support|AppData[/\\]Roaming|\$APPDATA|%APPDATA%)[/\\](?:Slack|discord\w*|Signal|Element"
    r"|Microsoft[/\\]Teams|WhatsApp|Thunderbird)(?:[/\\]|$)"
    r"|\.config/solana/id\.json|(?:\.ethereum|Ethereum)/keystore|\.sui/sui_config/sui\.keystore|\.near-credentials\b"
    r"|\.foundry/keystores\b|\.aptos/config\.yaml|Telegram Desktop/tdata|\.config/op/|\.1password"
    # the token a Kubernetes pod is handed for the cluster's API (and the folder that holds it)
    r"|run/secrets/kubernetes\.io/serviceaccount\b[^\s\"']*"
    r")",
    re.IGNORECASE,
)

#: A program git or docker runs as a credential helper, by its name: it is handed the
#: credentials on its standard input.
CREDENTIAL_HELPER = re.compile(r"(?:^|/)(?:git|docker)-credential-[^/]+$")

#: Credential files that are often an application's own (a project's `.env`, its token cache):
#: weighed like an API token, not like a store in the home directory.
OWN_FILE = re.compile(
    r"(?:^|/)\.env\b|(?:^|/)(?<!serviceaccount/)(?!\.)[^/]*tokens?(?:\.json|\.txt)?$|credentials\.json$|token\.json$",
    re.I,
)

#: Environment variable names that hold credentials.
SECRET_ENV = re.compile(
    r"^[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|COOKIE|SESSION|PAT(?![A-Z])|AUTH)[A-Z0-9_]*$"
)

#: Destinations that look like somewhere to drop stolen data rather than a service's API.
EXFIL_HOST = re.compile(
    r"^(?:[a-z]+://)?(?:[^/@\s]*@)?(?:(?:\d{1,3}\.){3}\d{1,3}|[^/\s]*(?:webhook\.site|requestbin|pipedream\.net"
    r"|ngrok|bore\.pub|serveo\.net|interact\.sh|oast\.|burpcollaborator|trycloudflare\.com|pastebin\.com"
    r"|transfer\.sh|discord(?:app)?\.com/api/webhooks|api\.telegram\.org|paste\.ee|hastebin|dpaste\.|ghostbin"
    r"|termbin\.com|0x0\.st|file\.io|paste\.rs|rentry\.co|ix\.io|sprunge\.us|privatebin|controlc\.com"
    r"|(?<![\w-])paste(?:bin)?\.|hooks\.slack\.com|webhook\.office\.com|outlook\.office\.com/webhook))",
    re.IGNORECASE,
)

#: Start-up and exit files: of login and interactive shells (bash, zsh, csh, ksh, on logout too), and
#: of the interpreters, REPLs, editors and tools that run the code they hold each time they start
#: (`.irbrc`, `.Rprofile`, Julia's `startup.jl`, `.pythonrc`, `.psqlrc`, `.gdbinit`, PowerShell
#: profiles, `.vimrc`/`init.lua`, Emacs' `init.el`, `.tmux.conf`).
_RC = (
    r"(?:^|[/\\])\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv|bash_login|bash_logout|zlogin|zlogout|login"
    r"|logout|cshrc|tcshrc|kshrc|mkshrc|irbrc|pryrc|Rprofile|pythonrc(?:\.py)?|psqlrc|gdbinit|sqliterc|tmux\.conf"
    r"|vimrc|exrc|emacs|ghci|perldlrc)$|\.julia/config/startup\.jl$|(?:^|[/\\])(?:Microsoft\.\w+_)?profile\.ps1$"
    r"|(?:nvim|\.vim)/init\.(?:vim|lua)$|\.emacs\.d/(?:early-)?init\.el$|\.config/tmux/tmux\.conf$"
)

#: Persistence targets: writing here makes code run later, outside the skill's run (not the
#: settings of systemd's own daemons, `/etc/systemd/resolved.conf`: they name no program to start).
PERSIST_PATH = re.compile(
    r"(?:/etc/cron|/var/spool/cron|/etc/systemd/(?!(?:resolved|journald|timesyncd|logind|networkd|coredump|oomd)\.conf(?:\.d/[\w.-]+\.conf)?$)|\.config/systemd/|Library/Launch(?:Agents|Daemons)/|/etc/init\.d/"
    r"|/etc/rc\.local|\.config/autostart/|/etc/profile\.d/|/etc/(?:environment|bash\.bashrc|zsh/)|\.ssh/rc$"
    r"|(?:site|dist)-packages/[^/]*\.pth$|(?:site|user)customize\.py$|\.config/fish/config\.fish"
    # build tools' per-user start-up code, run by every build (Gradle init scripts, sbt's global
    # settings and plugins, Leiningen's user profile)
    r"|\.gradle/init\.d/|\.gradle/init\.gradle(?:\.kts)?$|\.sbt/[\d.]+/(?:[\w-]+\.sbt$|plugins/)|\.lein/profiles\.clj$"
    r"|"
    + _RC
    + r"|(?:^|/)authorized_keys\b|\.git/hooks/|(?<![\w.-])(?:CLAUDE|AGENTS|MEMORY|SOUL|GEMINI)\.md$|\.mcp\.json$"
    r"|\.claude/settings(?:\.local)?\.json|/etc/sudoers|/etc/ld\.so\.preload)",
)

#: Official installers of developer toolchains: fetched and run as their vendors document, a
#: download of one that is then run is weighed as rule SY-DL-002 weighs them (docs/scanner.md).
OFFICIAL_INSTALLER = re.compile(
    r"^https://(?:(?:sh\.rustup\.rs|install\.python-poetry\.org|get\.volta\.sh|sh\.vector\.dev|sdk\.cloud\.google\.com"
    r"|get\.docker\.com|mise\.run|foundry\.paradigm\.xyz)(?=[/:?#]|$)"
    r"|astral\.sh/(?:uv|ruff|ty)/|bun\.sh/install|deno\.land/install\.(?:sh|ps1)|get\.pnpm\.io/install\.(?:sh|ps1)"
    r"|raw\.githubusercontent\.com/(?:Homebrew/install|nvm-sh/nvm)/|ollama\.com/install\.(?:sh|ps1)|starship\.rs/install\.sh"
    r"|(?:deb|rpm)\.nodesource\.com/setup_|fluxcd\.io/install\.sh|run\.linkerd\.io/install|claude\.ai/install\.(?:sh|ps1|cmd)"
    r"|tailscale\.com/install\.sh|raw\.githubusercontent\.com/helm/helm/[^/\s]+/scripts/get-helm|cli\.moonrepo\.dev/install"
    r"|pixi\.sh/install\.(?:sh|ps1)|get\.jetify\.com/devbox|opencode\.ai/install)"
)

KERNEL_PATH = re.compile(r"^/proc/sys/")
#: Block devices that hold a disk (not /dev/null, /dev/zero or a loop device over an image file).
DEVICE = re.compile(r"^/dev/(?![a-z]*[A-Z])(?:[shv]d|xvd|nvme|mmcblk|r?disk|md|dm-|mapper/|root\b)")
#: Shell start-up files: users are told to append PATH lines to them, so a write alone is medium.
RC_FILE = re.compile(_RC + r"|config\.fish$")


#: What, written into a start-up file, makes it fetch, unpack or start hidden code each session
#: (not `eval "$(uv generate-shell-completion bash)"`: an installed tool's completion or shell set-up).
_FETCHES = re.compile(
    r"\b(?:curl|wget|nc|ncat|socat|base64\s+(?:-d|--decode)|nohup)\b|/dev/tcp/|\bI(?:EX|nvoke-Expression)\b"
    r"|\beval\b(?!\s+[\"']?\$\([\w-]+\s+(?:generate-shell-completion|(?:shell-)?completions?|init|hook|shellenv)"
    r"(?:\s+-?[\w-]+)?\s*\)[\"']?\s*[\"']?\s*(?:$|[;&|#>]))"
    # or starts a program kept in a temporary folder, or one left running in the background
    r"|(?:^|[\s;&|'\"])/(?:tmp|var/tmp|dev/shm)/|(?<![&|>])&(?![&>])\s*(?:$|[;)\"'])|\b(?:setsid|disown|Start-Process)\b"
)


def persistence_severity(
    path: str, content: str | None = None, checked: frozenset[str] | None = frozenset()
) -> str:
    """Writing a start-up file is medium (users are told to add PATH lines); writing one a command
    that fetches or decodes code there is critical; any other persistence target is high, but a
    login item or service whose definition is read and starts only an installed program is medium."""
    if content is not None and _FETCHES.search(content):
        return "critical"
    if content is not None and _HELPER_LINE.search(content):
        return "high"  # a start-up line that has another program run a helper of the user's folders
    return "medium" if RC_FILE.search(path) or launches_installed(path, content, checked) else "high"


#: A program outside the system's and package managers' folders (`~/…`, `$HOME/…`, `./…`, `/tmp/…`).
_USER_PROGRAM = r"""["']?\|?\s*(?!/(?:usr|bin|sbin|opt/homebrew|opt/local|snap|nix|Applications|Library|System)/)(?:~|\$\{?\w+\}?|\.{1,2})?/"""
#: Settings that have another program run a helper: `less`'s input preprocessor, Go's `-toolexec`,
#: the AWS CLI's `credential_process`, a kubeconfig's exec plugin `command:`.
_HELPER_LINE = re.compile(
    r"(?m)(?:\bLESS(?:OPEN|CLOSE)\s*=|-toolexec[= ]|^\s*credential_process\s*=|^\s*command:)\s*"
    + _USER_PROGRAM
)


#: Where login items and services are defined: the programs their `Exec` lines name start at
#: every login or boot.
_LAUNCHER = re.compile(r"\.config/autostart/|systemd/(?:user|system)/")
_EXEC_LINE = re.compile(
    r"(?m)^[ \t]*Exec(?:Start(?:Pre|Post)?|Stop(?:Post)?|Reload)?[ \t]*=[ \t]*[-@:+!]*(.*)$"
)
#: A command line that starts an installed program, from a system folder or by a name the code
#: first checks is installed, with options and plain words only: no shell or interpreter (which
#: would run a script or a string), no path.
_INSTALLED_PROGRAM = re.compile(
    r"^(/usr/(?:local/)?s?bin/|/s?bin/|/opt/homebrew/bin/|/usr/games/)?"
    r"(?!(?:ba|z|da|k|c|tc|fi)?sh$|python|perl|ruby|node|php|lua|env$|nohup$|setsid$|busybox$)[\w.+-]+"
    r"(?:[ \t]+(?:--?[\w-]+(?:=[\w.,:-]+)?|%[fFuUick]|[\w.,:-]+))*[ \t]*$"
)


def launches_installed(path: str, content: str | None, checked: frozenset[str] | None = frozenset()) -> bool:
    """Whether a login item or unit written to `path` with `content` starts only installed programs
    (`checked`: the names the code makes sure are installed, `command -v NAME`; None: the code
    puts programs of its own where programs are found, so no name or system path is vouched for)."""
    if content is None or checked is None or not _LAUNCHER.search(path):
        return False
    cmds = [_INSTALLED_PROGRAM.match(c.strip()) for c in _EXEC_LINE.findall(content)]
    return 0 < len(cmds) <= 8 and all(m and (m[1] or m[0].split()[0] in checked) for m in cmds)


#: Roots whose recursive removal destroys the user's data or the system.
DESTROY_TARGET = re.compile(
    r"^(?:/|~|~/|/\*|~/\*|\$HOME/?|/home/?|/etc/?|/usr/?|/var/?|/Users/?|/root/?|/boot/?)$"
)

#: The home directory and the folders in it that hold the user's own files.
HOME_DATA = re.compile(
    r"^(?:~|\$HOME|\$\{HOME\}|/home/[^/\s]+|/Users/[^/\s]+|/root)/+(?:Documents|Desktop|Downloads|Pictures|Photos"
    r"|Music|Movies|Videos|Library|Dropbox|OneDrive|iCloud\w*|projects?|src|code|work|repos|git|\*)/*\*?$"
    r"|^(?:/home/[^/\s]+|/Users/[^/\s]+)/?$"
    # every file, or every document, photo or key file, at any depth (`~/**/*.{docx,pdf,kdbx}`)
    r"|^(?:~|\$HOME|\$\{HOME\}|/home/[^/\s]+|/Users/[^/\s]+|/root)/+(?:\*\*/+)+\*(?:\.\*)?$"
    r"|^(?:~|\$HOME|\$\{HOME\}|/home/[^/\s]+|/Users/[^/\s]+|/root)/+(?:\*\*/+)+\*\.\{?(?:[\w,]*,)?"
    r"(?:docx?|xlsx?|pptx?|od[tsp]|pdf|jpe?g|png|heic|raw|kdbx|key|pem|sqlite|db)\b",
    re.IGNORECASE,
)


def destroys(path: str) -> bool:
    """Whether deleting everything under `path` destroys the system or the user's own files."""
    if not path:
        return False  # `rm -rf ""` (a variable still empty) deletes nothing
    return bool(DESTROY_TARGET.match(path.rstrip("/") or "/") or HOME_DATA.match(path))


def outside_tree(path: str) -> bool:
    """Whether a path (folded, or the expression that builds it) is known to be outside the skill's
    working tree: absolute or under home (a relative one, or one built from a variable, may be in it)."""
    return path.startswith(("/", "~", "$HOME", "${HOME}"))


#: Commands that publish a package: what the folder holds goes to a public registry.
REGISTRIES = (
    dict.fromkeys(("npm", "pnpm", "yarn"), "the npm registry")
    | dict.fromkeys(("twine", "uv", "poetry", "flit"), "PyPI")
    | {"gem": "RubyGems", "cargo": "crates.io"}
    | dict.fromkeys(("docker", "podman", "buildah", "nerdctl"), "a container registry")
)

SEVERITIES = ("info", "low", "medium", "high", "critical")

#: Separates the values a name may hold when it is bound by a loop over constants
#: (`for name in ("Cookies", "Login Data")`): folding combines every alternative.
ALT = "\x1f"
MAX_ALTS = 16


def combine(values: list[str], glue: Any) -> str:
    """`glue(values)`, once per combination of the alternatives the values hold (at most MAX_ALTS)."""
    if not any(ALT in v for v in values):
        return glue(values)
    combos: list[list[str]] = [[]]
    for v in values:
        combos = [c + [x] for c in combos for x in v.split(ALT)][:MAX_ALTS]
    return ALT.join(glue(c) for c in combos)


def unbase64(s: str, charset: str = "latin-1") -> str | None:
    """Base64 text as the characters it encodes (missing padding forgiven), or None."""
    try:
        return base64.b64decode(s + "=" * (-len(s) % 4)).decode(charset, "replace")
    except (binascii.Error, ValueError):
        return None


def unhex(s: str, charset: str = "latin-1") -> str | None:
    """Hex digits as the characters they encode, or None."""
    try:
        return bytes.fromhex(s).decode(charset, "replace")
    except ValueError:
        return None


def shown(value: str) -> str:
    """A folded value as text: alternatives one per line (as a shell reads a list of commands)."""
    return value.replace(ALT, "\n")


def secret_path(path: str) -> str | None:
    """`path` as the user would recognise it if it names a credential store, else None."""
    if not path or len(path) > 4096:
        return None
    if ALT in path:
        return next((s for p in path.split(ALT) if (s := secret_path(p))), None)
    p = path.replace("$HOME", "~").replace("${HOME}", "~")
    p = re.sub(r"^/(?:home|Users)/[^/]+", "~", p)
    p = re.sub(r"^/root(?=/)", "~", p)
    if p.endswith((".pub", ".example", ".sample", ".template")):
        return None
    return p if SECRET_PATH.search(p) else None


#: Commands whose output is a credential: tokens printed by cloud and forge CLIs, a kubeconfig with
#: its keys, a password from a keychain or password manager.
_CLI_SECRET = re.compile(
    r"^(?:"
    r"gh auth (?:token|status (?:-t|--show-token))"
    r"|kubectl config view\b.*--(?:raw|flatten)"
    r"|gcloud auth (?:application-default )?print-(?:access|identity)-token"
    r"|az account get-access-token"
    r"|aws (?:configure (?:get|export-credentials)|sts get-session-token|ecr get-login-password"
    r"|codeartifact get-authorization-token|secretsmanager get-secret-value)"
    r"|git credential (?:fill|get)"
    # the token a CI checkout keeps in the repository's settings (`http.<url>.extraheader`)
    r"|git config (?:--\S+ )*\S*extraheader"
    r"|docker-credential-\S+ (?:get|list)"
    r"|security (?:find-generic-password|find-internet-password|dump-keychain)"
    r"|op (?:read|item get)|bw (?:get (?:password|item|notes)|list items|export)|pass show|secret-tool (?:lookup|search)"
    r"|kwallet-query|lpass (?:show|export)|keepassxc-cli (?:show|export)"
    r"|vault (?:kv get|read|print token)|heroku auth:token"
    # the commands a user typed, passwords and tokens on their command lines among them
    r"|history|fc -l"
    r")\b"
)


def cli_secret(words: list[str]) -> str | None:
    """What credential a command prints (`gh auth token`: a GitHub token), if it prints one."""
    if not words:
        return None
    line = " ".join([words[0].rsplit("/", 1)[-1], *words[1:]])
    m = _CLI_SECRET.match(line)
    return f"the output of `{' '.join(line.split()[:4])}`" if m else None


def cli_source(what: str, line: int) -> Source:
    """A credential a command printed. A token a CLI prints for its own service (`gh auth token`) is
    weighed like an API token (it is mostly sent to that service); a store's content is strong."""
    return Source(what, line, _service(what) is None)


#: This machine: what is sent there does not leave it (a local bridge, a dev server). The whole
#: address, up to a port and a path: not `localhost:1@host`, a relay handed another address, a proxy.
LOOPBACK = re.compile(
    r"^(?:[a-z]+://)?(?:[^/@\s]*@)?(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1\])(?::\d{0,5})?"
    r"(?:[/?#](?![^\s]*(?:://|%3a%2f%2f))\S*)?$",
    re.I,
)


def climb(path: str) -> str:
    """A folded path with its `..` steps taken (`~/.npm/_cache/../..` is `~`), when it stays
    under the home folder or the root it starts from."""
    if "/.." not in path or not path.startswith(("~", "/")):
        return path
    out = posixpath.normpath(path)
    return out if out.startswith(("~", "/")) else path


def exfil_shaped(dest: str) -> bool:
    return any(EXFIL_HOST.search(d.strip()) and not LOOPBACK.match(d.strip()) for d in dest.split(ALT))


def sent(src: Source, dest: str | None, dns: bool = False) -> tuple[str, str]:
    """(severity, words) of `src` sent to `dest`. A DNS name that carries data is never an API
    call, so it is critical, as is a credential store or a drop-shaped destination; a token
    sent to an ordinary host is medium (that is mostly what tokens are for)."""
    if dns:
        return (
            "critical",
            f"reads {src.what} and sends it in a DNS lookup of {dest or 'a name built from it'}",
        )
    dest = dest or "the network"
    strong = src.strong and not named_for(src.what, dest) and not _issued_by(src.what, dest)
    # what is sent to this machine does not leave it (a local vault, agent or bridge)
    strong = strong and not all(LOOPBACK.match(d.strip()) for d in dest.split(ALT))
    # a CI run's own token sent to a named host that is not the forge's
    strong = strong or bool(_RUN_TOKEN.match(src.what)) and own_service(src.what, dest) is False
    return "critical" if strong or exfil_shaped(
        dest
    ) else "medium", f"reads {src.what} and sends it to {dest}"


#: Labels that name no service: the documentation domains, generic hosting words, and the words of
#: the well-known credential stores, which hold keys for many hosts (`_SERVICES` knows their own).
_NO_SERVICE = frozenset(
    {"example", "localhost", "local", "internal", "invalid", "test", "host", "server", "api"}
    | {"ssh", "kube", "kubeconfig", "docker", "git", "gnupg", "netrc", "npmrc", "pypirc", "aws", "gcloud"}
    | {"azure", "config", "credentials", "token", "tokens", "keychain", "keychains", "wallet", "wallets"}
)
#: Second-level labels under a country code that are not a name (`co.uk`, `com.au`).
_SECOND_LEVEL = frozenset({"co", "com", "net", "org", "gov", "edu", "ac"})


def named_for(what: str, dest: str) -> bool:
    """Whether `dest`'s registered name names the credential `what` (`~/.config/gandi/api_token`
    sent to api.gandi.net, `$CALCOM_API_KEY` to api.cal.com): a credential going to the service
    it is named after is weighed like an API token. Only the registered name counts, so
    `gandi.attacker.example` and `gandi-backup.example` name nothing."""
    host = host_of(dest.strip().strip("\"'"))
    labels = host.split(".")
    if len(labels) < 2 or not re.fullmatch(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+", host) or labels[-1].isdigit():
        return False
    i = -3 if len(labels) > 2 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2 else -2
    name = labels[i]
    words = set(re.findall(r"[a-z0-9]+", what.lower()))
    return name not in _NO_SERVICE and (
        (len(name) >= 4 and name in words) or name + labels[i + 1] in words  # cal.com -> calcom
    )


#: One step of a flow: (line, what happens there, file). File None: the file the flow is reported in.
Step = tuple[int, str, "str | None"]


class Source(NamedTuple):
    """Where secret material comes from: what it is, the line reading it, whether it is a credential
    store (strong), the steps in other files or functions before that line, and how this line gets
    it when it does not read it itself ("imports it from helpers")."""

    what: str
    line: int
    strong: bool
    via: tuple[Step, ...] = ()
    how: str = ""

    def steps(self) -> tuple[Step, ...]:
        first = self.how or (self.what if self.what.startswith("downloads") else f"reads {self.what}")
        return (*self.via, (self.line, first, None))

    def moved(self, file: str, line: int, how: str) -> Source:
        """This source as seen from another file that gets it at `line` (`how`: in words)."""
        via = tuple((n, s, f if f is not None else file) for n, s, f in self.steps())
        return Source(self.what, line, self.strong, via, how)


def shifted(f: Flow, by: int) -> Flow:
    """`f` found in text that starts `by` lines down the file it is reported in."""
    steps = tuple((n + by if fl is None else n, s, fl) for n, s, fl in f.steps)
    return Flow(f.kind, f.severity, f.line + by, f.text, steps)


@dataclass(frozen=True, slots=True)
class Flow:
    """A value followed from where it comes from to where it goes, in words and in steps."""

    kind: str  # secret-network | download-exec | persistence | destruction | kernel | secret-exec
    severity: str
    line: int
    text: str
    steps: tuple[Step, ...] = field(default=())


#: The services credentials are for: a store that holds one (matched in its path), the commands
#: that print one (`gh auth token`), and the service's hosts. Sending a credential to its own
#: service is what it is for (weighed as an API token); anywhere else is exfiltration.
#: The tokens a CI run is lent for the forge's own API (`${{ github.token }}`, the runtime and OIDC
#: request tokens): sent anywhere but the forge, they act as the repository.
_RUN_TOKEN = re.compile(
    r"^\$\{?(?:GITHUB_TOKEN|GH_TOKEN|ACTIONS_RUNTIME_TOKEN|ACTIONS_ID_TOKEN_REQUEST_TOKEN)\}?$"
)

_SERVICES = tuple(
    (re.compile(store), clis, re.compile(rf"(?:^|\.)(?:{hosts})$"))
    for store, clis, hosts in (
        (r"\.aws\b", ("aws ",), r"amazonaws\.com"),
        (r"gcloud", ("gcloud ",), r"googleapis\.com|google\.com"),
        (r"\.azure\b", ("az ",), r"azure\.(?:com|net)|microsoft(?:online)?\.com|windows\.net"),
        (
            r"\.docker/",
            ("docker-credential",),
            r"docker\.(?:io|com)|gcr\.io|ghcr\.io|quay\.io|azurecr\.io|amazonaws\.com",
        ),
        (r"\.npmrc", (), r"npmjs\.(?:org|com)"),
        (r"\.pypirc", (), r"pypi\.org"),
        (r"\.gem/", (), r"rubygems\.org"),
        (r"\.cargo/", (), r"crates\.io"),
        (r"gh/hosts", ("gh ",), r"github\.com|githubusercontent\.com"),
        (r"git-credentials", ("git credential",), r"github\.com|gitlab\.com|bitbucket\.org"),
        (r"(?!)", ("heroku ",), r"heroku\.com"),
        # an instance's own credentials, at its cloud's APIs (not the hosts anyone can run code or a
        # gateway under, `*.azurewebsites.net`, `execute-api.*.amazonaws.com`, which see the header)
        (
            r"metadata service",
            (),
            r"vault\.azure\.net|management\.azure\.com|graph\.microsoft\.com|(?:blob|queue|table|file)\.core\.windows\.net"
            r"|(?:database|storage)\.azure\.com|[\w-]+\.googleapis\.com"
            r"|(?:s3|sts|ec2|ssm|secretsmanager|kms|dynamodb|sqs|sns|logs|monitoring)(?:[.-][\w-]+)*\.amazonaws\.com",
        ),
        # the tokens a GitHub Actions run is lent (and the token gh reads)
        (_RUN_TOKEN.pattern, (), r"github\.com|githubusercontent\.com|ghe\.com"),
    )
)


#: The token endpoints of a credential store's issuer (host and path): the store's content is sent
#: there by design (a refresh token exchanged for an access token), never to the service's other
#: hosts, where anyone can own a bucket or a page, nor to its sign-in pages, whose `redirect_uri`
#: carries what they are sent to a host of the sender's choosing.
_ISSUERS = tuple(
    (re.compile(store), re.compile(rf"^(?:https://)?(?:{paths})/?(?:[?#]|$)", re.I))
    for store, paths in (
        (
            r"gcloud",
            r"oauth2\.googleapis\.com/token|sts\.googleapis\.com/v1(?:beta)?/token"
            r"|iamcredentials\.googleapis\.com/v1/projects/[^/?#\s]+/serviceAccounts/[^/?#\s]+"
            r":generate(?:Access|Id)Token|accounts\.google\.com/o/oauth2/token",
        ),
        (r"\.azure\b", r"login\.microsoftonline\.com/[\w.-]+/oauth2/(?:v2\.0/)?token"),
        # the instance's own credentials used at the service that handed them out (plain http there)
        (
            r"metadata service",
            r"(?:http://)?(?:169\.254\.169\.254|metadata\.google\.internal|\[fd00:ec2::254\])(?:/[^?#\s]*)?",
        ),
        # a pod's service-account token used at the cluster's own API server
        (
            r"kubernetes\.io/serviceaccount",
            r"kubernetes\.default(?:\.svc(?:\.cluster\.local)?)?(?::443)?(?:/[^?#\s]*)?",
        ),
    )
)
#: The paths of a cloud instance's metadata service that hand out the instance's credentials (AWS
#: IAM role, Google service account token, Azure managed identity token).
INSTANCE_CREDENTIALS = re.compile(
    r"iam/security-credentials|service-accounts/[^\s\"']*(?:token|identity)|identity/oauth2/token"
)


def _issued_by(what: str, dest: str) -> bool:
    """Whether `dest` is a token endpoint of the issuer of the store `what`."""
    url = dest.strip().strip("\"'")
    return any(store.search(what) and paths.match(url) for store, paths in _ISSUERS)


def exchanged(src: Source, dest: str, line: int) -> Source | None:
    """What a token endpoint answers for the store `src` sent to it: an access token for the same
    account, weighed like `gcloud auth print-access-token` (its own service, else critical)."""
    if not (src.strong and _issued_by(src.what, dest)):
        return None
    return Source(f"an access token exchanged for {src.what}", line, False, src.steps())


def _service(what: str) -> re.Pattern[str] | None:
    """The hosts of the service the credential `what` (a store, or a command's output) is for."""
    cmd = what.removeprefix("the output of `")
    for store, clis, hosts in _SERVICES:
        if cmd.startswith(clis) if cmd != what else store.search(what):
            return hosts
    return None


def host_of(dest: str) -> str:
    """The host of a URL or `host[:port][/path]`, lower-case (scheme, path and port dropped)."""
    return re.sub(r"^[a-z]+://", "", dest.strip(), flags=re.I).split("/", 1)[0].split(":", 1)[0].lower()


def own_service(what: str, dest: str) -> bool | None:
    """Whether `dest` (a URL or host) belongs to the service `what` is for; None when it names no host."""
    host = host_of(dest)
    hosts = _service(what)
    if hosts is None or not re.fullmatch(r"[\w-]+(?:\.[\w-]+)+", host):
        return None
    return bool(hosts.search(host))


def flow(kind: str, sev: str, line: int, text: str, src: Source | None) -> Flow:
    if (
        kind == "secret-network"
        and src is not None
        and src.what.startswith(("the output of `", "an access token"))
    ):
        dest = text.rsplit(" to ", 1)[-1] if " to " in text else ""
        if own_service(src.what, dest) is False:
            sev = "critical"  # `gh auth token` sent to a host that is not GitHub's
    return Flow(kind, sev, line, text, (*(src.steps() if src else ()), (line, text, None)))


def written(
    path: str, line: int, content: str | None = None, checked: frozenset[str] | None = frozenset()
) -> Flow | None:
    """What writing `path` does beyond the skill's own run (`content`: what is written, when known):
    sets a kernel knob (a crash handler that pipes to a program is critical; cache and swap tuning
    is ordinary advice), overwrites a disk, or leaves something that runs on every session."""
    if KERNEL_PATH.match(path):
        if path.endswith(("drop_caches", "swappiness")):
            return None
        handler = path.endswith(("core_pattern", "modprobe")) and (content is None or "|" in content)
        return flow(
            "kernel", "critical" if handler else "high", line, f"writes the kernel setting {path}", None
        )
    if DEVICE.match(path):
        return flow("destruction", "high", line, f"overwrites the disk device {path}", None)
    if PERSIST_PATH.search(path):
        text = f"writes {path}, which runs or is read on every session"
        return flow("persistence", persistence_severity(path, content, checked), line, text, None)
    for where, hook, sev in _HOOK_SETTINGS:
        if content is not None and where.search(path) and hook.search(content):
            sev = "critical" if _FETCHES.search(content) else sev
            if sev is not None:
                return flow(
                    "persistence",
                    sev,
                    line,
                    f"writes {path} with a setting that decides what it runs or installs",
                    None,
                )
    return None


#: Settings files of tools that run a program the setting names (npm's shell and preloads, git's
#: hooks, monitor and ssh command, ssh's proxy command): (file, setting, severity when what it
#: runs fetches nothing; None: a common, honest setting then).
_HOOK_SETTINGS = (
    (
        re.compile(r"\.npmrc$"),
        re.compile(r"\bscript-shell\b|\bnode-options\b[^\n]*--(?:require|import|loader)\b"),
        "high",
    ),
    (
        re.compile(r"\.gitconfig$|\.config/git/config$"),
        re.compile(r"\b(?:hooksPath|fsmonitor|sshCommand)\b"),
        "high",
    ),
    (re.compile(r"\.ssh/config$"), re.compile(r"\b(?:ProxyCommand|LocalCommand)\b"), None),
    (re.compile(r"\.aws/config$|\.kube/config$|(?:^|/)kubeconfig[\w.-]*$"), _HELPER_LINE, "high"),
    # package managers' own settings pointed at another index: every later install of the user's
    # resolves names there first (or also there), so whoever runs it chooses the code installed
    (
        re.compile(
            r"(?:^|/)(?:pip\.conf|pip\.ini|\.pydistutils\.cfg|uv\.toml|\.npmrc|\.yarnrc(?:\.yml)?|\.gemrc"
            r"|\.cargo/config(?:\.toml)?|\.condarc|\.?bunfig\.toml|\.m2/settings\.xml|NuGet\.Config)$",
            re.I,
        ),
        re.compile(
            r"(?:^|[\s\[{\"'])(?:extra-index-url|index-url|find-links|registry|npmRegistryServer|replace-with"
            r"|:?sources|channels|<mirror>|<packageSources>)\s*[=:>]\s*[^\n]*(?:https?://(?!(?:pypi\.org|files\.pythonhosted\.org"
            r"|registry\.npmjs\.org|registry\.yarnpkg\.com|rubygems\.org|index\.crates\.io|repo\.anaconda\.com"
            r"|conda\.anaconda\.org|repo1?\.maven\.org|api\.nuget\.org|localhost|127\.0\.0\.1)(?::\d+)?(?:[/\s\"']|$))|\[)"
        ),
        "high",
    ),
)


@dataclass(slots=True)
class Export:
    """What one file of the skill offers the others: constants, secrets, helper functions."""

    file: str
    #: name -> constant string (module constants, shell variables)
    consts: dict[str, str] = field(default_factory=dict)
    #: name -> secret material the name holds
    taint: dict[str, Source] = field(default_factory=dict)
    #: function -> secret material it returns
    returns: dict[str, Source] = field(default_factory=dict)
    #: function -> {parameter position: (kind, severity, line, text with PARAM where the value goes)}
    sinks: dict[str, dict[int, tuple[str, str, int, str]]] = field(default_factory=dict)
    #: function -> its parameter names (keyword arguments find their position by them)
    params: dict[str, list[str]] = field(default_factory=dict)
    #: shell functions: name -> (source bytes, body node, tree kept alive for the node)
    shell_funcs: dict[str, tuple[bytes, Any, Any]] = field(default_factory=dict)


JS_EXTS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")

#: A command that carries a secret is read with this shell variable in the secret's place.
STAND_IN = "SY_SECRET_"


def stand_in_marker(n: int) -> str:
    """The placeholder folded into a command where secret number `n` goes (plain word characters,
    so quoting leaves it alone); the shell reader sees it as `${SY_SECRET_n}`."""
    return f"SYSTANDIN{n}X"


def stand_in_command(cmd: str) -> str:
    # a secret spliced into single quotes (`-d '${k}'` in a JS template) is expanded all the same
    cmd = re.sub(r"'([^'\n]*SYSTANDIN\d+X[^'\n]*)'", r'"\1"', cmd)
    return re.sub(r"SYSTANDIN(\d+)X", lambda m: "${" + STAND_IN + m.group(1) + "}", cmd)


#: Stands for a function's parameter while its body is read; replaced by the caller's value.
PARAM = "\x00param"


@dataclass(slots=True)
class Project:
    """The skill's code files read once, so one file can follow values into another."""

    exports: dict[str, Export] = field(default_factory=dict)

    def get(self, path: str | None) -> Export | None:
        """What the skill's file at `path` (one of the `*_path` answers) offers, if it was read."""
        return self.exports.get(path) if path else None

    def python_module_path(self, rel: str, module: str | None, level: int = 0) -> str | None:
        """The skill's file an `import` in `rel` names, resolved as Python would from the script's
        directory (scripts run as `python scripts/x.py` import their siblings) or the skill root."""
        here = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if level:
            parts = here.split("/") if here else []
            parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
            bases = ["/".join(parts)]
        else:
            bases = [here, ""]
        tail = (module or "").replace(".", "/")
        for base in bases:
            stem = "/".join(p for p in (base, tail) if p)
            for cand in (f"{stem}.py", f"{stem}/__init__.py"):
                if cand in self.exports:
                    return cand
        return None

    def js_module_path(self, rel: str, spec: str) -> str | None:
        """The skill's file a relative `require`/`import` in `rel` names (`./read`, `../lib/x.js`)."""
        if not spec.startswith("."):
            return None
        parts = rel.split("/")[:-1]
        for p in spec.split("/"):
            if p in ("", "."):
                continue
            if p == "..":
                if not parts:
                    return None
                parts.pop()
                continue
            parts.append(p)
        stem = "/".join(parts)
        for cand in (stem, *(f"{stem}{ext}" for ext in JS_EXTS), *(f"{stem}/index{ext}" for ext in JS_EXTS)):
            if cand in self.exports:
                return cand
        return None

    def shell_file_path(self, rel: str, path: str) -> str | None:
        """The skill's file a `source`/`.` in `rel` reads; a path built at run time (`$DIR/x.sh`)
        is matched by its last part when exactly one shell file of the skill has that name."""
        here = rel.rsplit("/", 1)[0] if "/" in rel else ""
        clean = path.strip("\"'")
        if "$" not in clean and "`" not in clean:
            parts: list[str] = []
            for p in ([*here.split("/")] if here and not clean.startswith("/") else []) + clean.split("/"):
                if p in ("", "."):
                    continue
                if p == "..":
                    if parts:
                        parts.pop()
                    continue
                parts.append(p)
            for cand in ("/".join(parts), clean.lstrip("./")):
                if cand in self.exports:
                    return cand
        name = clean.rsplit("/", 1)[-1]
        same = [r for r in self.exports if r.rsplit("/", 1)[-1] == name]
        return same[0] if len(same) == 1 else None


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
    #: what this file offers the skill's other files (set by the readers that can tell)
    export: Export | None = None
    #: shell variables standing for secrets in `shell` commands (`curl -d "$SY_SECRET_0" ...`):
    #: a secret the code puts into a command it runs
    stand_ins: dict[str, Source] = field(default_factory=dict)
    #: files this code fills with secret material -> that secret (another file may send them)
    stashed: dict[str, Source] = field(default_factory=dict)
    #: (line, path, destination): files whose content this code sends, not known here to be secret
    sent_files: list[tuple[int, str, str]] = field(default_factory=list)
    #: why the reader stopped before the end of the code (a file padded past its limits), or ""
    unread: str = ""
    #: lines that ask a cloud instance's metadata service for its credentials, which the code then
    #: uses only at that cloud's own APIs
    credential_use: set[int] = field(default_factory=set)
    #: lines writing a login item or service whose definition starts only an installed program
    installed_launch: set[int] = field(default_factory=set)

    def extend(self, other: CodeFacts | None, line_offset: int = 0) -> None:
        """Take in what another reading found (None: nothing it could parse), `line_offset` lines down."""
        if other is None:
            return
        self.flows.extend(shifted(f, line_offset) for f in other.flows)
        self.assembled.extend((n + line_offset, s) for n, s in other.assembled)
        self.shell.extend((n + line_offset, s) for n, s in other.shell)
        self.data_lines.update(n + line_offset for n in other.data_lines)
        self.credential_use.update(n + line_offset for n in other.credential_use)
        self.installed_launch.update(n + line_offset for n in other.installed_launch)
        self.stashed.update(other.stashed)
        self.sent_files.extend((n + line_offset, p, d) for n, p, d in other.sent_files)
        self.unread = self.unread or other.unread
        for k, src in other.stand_ins.items():
            self.stand_ins[k] = src._replace(line=src.line + line_offset) if not src.via else src
