"""Install sources: parse a source string, then fetch it into a staging directory.

Parsing never touches the network, so the trust policy can refuse a source before any
byte is fetched. Fetching uses the `git` binary (shallow) and the stdlib's urllib.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import ipaddress
import json
import os
import re
import resource
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from skillyard.install.errors import HygieneError, SourceError
from skillyard.install.hygiene import Limits, check_member_name

SourceKind = Literal["local", "git", "archive", "hub"]
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".skill")
MAX_SOURCE_LEN = 2048
MAX_INDEX_BYTES = 8 * 1024 * 1024
_REF_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]{0,199}\Z")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_HUB_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,127})(?:@([A-Za-z0-9][A-Za-z0-9.+_-]{0,63}))?\Z")
_HOST_RE = re.compile(r"^[A-Za-z0-9._:\[\]-]+\Z")
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str | None) -> bool:
    """A host that reaches this machine, in any spelling the resolver takes: `localhost.`, `0.0.0.0`,
    `::`, `::ffff:127.0.0.1`, and `127.1`, `2130706433` or `0x7f000001` (inet_aton's forms)."""
    host = (host or "").lower().rstrip(".")
    if host in LOOPBACK_HOSTS:
        return True
    try:
        ip: Any = ipaddress.ip_address(host)
    except ValueError:
        try:
            ip = ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, ValueError):
            return False
    ip = getattr(ip, "ipv4_mapped", None) or ip
    return bool(ip.is_loopback or ip.is_unspecified)


def redact(url: str) -> str:
    """`url` without its user name and password: they are used to fetch, never recorded or shown."""
    return re.sub(r"(?<=://)[^/?#]*@", "", url)


def valid_name(name: str) -> bool:
    """A skill name usable as one directory name: no separators, no dot-only names, and not the
    install root's `skills.lock` (a first install of a skill so named took the lockfile's place)."""
    return bool(_NAME_RE.fullmatch(name)) and name not in (".", "..") and name.casefold() != "skills.lock"


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A parsed source: what to fetch and the strings the trust policy matches."""

    kind: SourceKind
    raw: str
    location: str  #: absolute path, clone URL, archive URL, or hub skill name
    ref: str | None = None
    subdir: str | None = None
    version: str | None = None

    def canonical(self) -> str:
        """The form recorded in the lockfile and re-used by `update`."""
        if self.kind == "local":
            return f"local:{self.location}"
        if self.kind == "hub":
            return f"hub:{self.location}" + (f"@{self.version}" if self.version else "")
        if self.kind == "git":
            s = f"git+{redact(self.location)}" + (f"@{self.ref}" if self.ref else "")
            return s + (f"#{self.subdir}" if self.subdir else "")
        return redact(self.location)

    def trust_candidates(self, hub_index: str | None = None) -> list[str]:
        """Strings a trust pattern may match (host/path and full URL forms)."""
        if self.kind == "local":
            return [f"local:{self.location}"]
        if self.kind == "hub":
            return [f"hub:{self.location}", *(_url_forms(hub_index) if hub_index else ())]
        if self.location.startswith("file://"):
            path = urllib.parse.urlsplit(self.location).path
            return [self.location, f"local:{path}"]
        return _url_forms(self.location)


def _url_forms(url: str) -> list[str]:
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.port:
        host = f"{host}:{parts.port}"
    path = parts.path.rstrip("/")
    if path.endswith(".git"):
        path = path[:-4]
    return [f"{host}{path}", f"{parts.scheme}://{host}{path}"]


def _check_text(raw: str) -> str:
    if not isinstance(raw, str):
        raise SourceError("invalid source", reason="source must be a string")
    raw = raw.strip()
    if not raw:
        raise SourceError("invalid source", reason="empty source")
    if len(raw) > MAX_SOURCE_LEN:
        raise SourceError("invalid source", reason=f"source longer than {MAX_SOURCE_LEN} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise SourceError("invalid source", reason="control characters in source")
    return raw


def _check_ref(ref: str | None) -> str | None:
    if ref is None or ref == "":
        return None
    if not _REF_RE.match(ref) or ".." in ref or ref.endswith((".lock", "/")) or "@{" in ref:
        raise SourceError("invalid source", reason=f"invalid git ref: {ref!r}")
    return ref


def _check_subdir(subdir: str | None) -> str | None:
    if not subdir:
        return None
    try:
        return str(check_member_name(subdir.rstrip("/")))
    except HygieneError as e:
        raise SourceError("invalid source", reason=f"invalid subdirectory: {e.reason}") from None


def _check_url(url: str, schemes: tuple[str, ...]) -> urllib.parse.SplitResult:
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as e:
        raise SourceError("invalid source", reason=f"malformed URL: {e}") from None
    if parts.scheme not in schemes:
        raise SourceError("invalid source", reason=f"unsupported URL scheme {parts.scheme!r}")
    if parts.scheme != "file" and not parts.hostname:
        raise SourceError("invalid source", reason="URL has no host")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise SourceError("invalid source", reason="plain http is only allowed for loopback hosts; use https")
    if parts.hostname and (parts.hostname.startswith("-") or not _HOST_RE.match(parts.hostname)):
        raise SourceError("invalid source", reason="invalid host")
    if any(c.isspace() for c in url) or (parts.scheme != "file" and not url.isascii()):  # http sends ASCII
        raise SourceError(
            "invalid source", reason="whitespace or a non-ASCII character in URL (percent-encode it)"
        )
    # trust patterns match the path as written, the server or git would resolve `team/../other`
    # (Tomcat and Jetty also `team/..;x/other`: they drop a segment's `;` parameters)
    path = urllib.parse.unquote(parts.path)
    segments = {p.split(";")[0] for p in path.split("/")}
    if {".", ".."} & segments or "\\" in path or path.count("/") != parts.path.count("/"):
        raise SourceError(
            "invalid source", reason="'.' or '..' segment, backslash or encoded '/' in URL path"
        )
    return parts


def parse_source(raw: str, name: str | None = None) -> SourceSpec:
    """Understand a source string; raise SourceError ("invalid source") for anything else."""
    raw = _check_text(raw)
    if raw in ("clawhub", "hub"):
        if not name:
            raise SourceError("invalid source", reason="a hub source needs a skill name")
        raw = f"hub:{name}"
    if raw.startswith(("hub:", "clawhub:")):
        m = _HUB_RE.match(raw.split(":", 1)[1])
        if not m:
            raise SourceError("invalid source", reason="hub source must be hub:<name>[@version]")
        return SourceSpec("hub", raw, m.group(1), version=m.group(2))
    if raw.startswith("local:"):
        return _local(raw, raw[len("local:") :])
    if raw.startswith(("/", "./", "../", "~")) or raw in (".", ".."):
        return _local(raw, raw)
    if raw.startswith("git+"):
        return _git_plus(raw)
    if raw.startswith(("https://", "http://")):
        return _https(raw)
    if "://" in raw or raw.startswith(("git@", "ext::", "-")):
        raise SourceError("invalid source", reason="unsupported source scheme")
    if os.path.exists(raw):
        return _local(raw, raw)
    raise SourceError(
        "invalid source",
        reason="expected a path, local:/path, git+https://..., an https archive URL, or hub:<name>",
    )


def _local(raw: str, path: str) -> SourceSpec:
    if not path:
        raise SourceError("invalid source", reason="empty local path")
    p = Path(os.path.expanduser(path)).absolute()
    return SourceSpec("local", raw, os.path.normpath(str(p)))


def _git_plus(raw: str) -> SourceSpec:
    url = raw[len("git+") :]
    subdir = None
    if "#" in url:
        url, subdir = url.split("#", 1)
    parts = _check_url(url, ("https", "http", "file"))
    path, ref = parts.path, None
    if "@" in path:
        path, ref = path.rsplit("@", 1)
    if not path or path == "/":
        raise SourceError("invalid source", reason="git URL has no repository path")
    clone = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    return SourceSpec("git", raw, clone, ref=_check_ref(ref), subdir=_check_subdir(subdir))


def _https(raw: str) -> SourceSpec:
    parts = _check_url(raw, ("https", "http"))
    lower = parts.path.lower()
    if lower.endswith(ARCHIVE_SUFFIXES):
        return SourceSpec("archive", raw, urllib.parse.urlunsplit(parts._replace(fragment="")))
    host = (parts.hostname or "").lower()
    segs = [s for s in parts.path.split("/") if s]
    if host in ("github.com", "www.github.com", "gitlab.com", "codeberg.org") and len(segs) >= 2:
        repo = segs[1][:-4] if segs[1].endswith(".git") else segs[1]
        clone = f"https://{host}/{segs[0]}/{repo}"
        ref = subdir = None
        if len(segs) > 2:
            if segs[2] not in ("tree", "blob") or len(segs) < 4:
                raise SourceError(
                    "invalid source", reason="expected https://HOST/ORG/REPO[/tree/REF[/SUBDIR]]"
                )
            ref = segs[3]
            subdir = "/".join(segs[4:]) or None
            if subdir and segs[2] == "blob" and subdir.endswith(("SKILL.md", "skill.md", "SKILL.toml")):
                subdir = "/".join(segs[4:-1]) or None
        return SourceSpec("git", raw, clone, ref=_check_ref(ref), subdir=_check_subdir(subdir))
    if parts.path.endswith(".git"):
        return SourceSpec("git", raw, urllib.parse.urlunsplit(parts._replace(query="", fragment="")))
    raise SourceError(
        "invalid source",
        reason="URL is neither a known git host repository nor an archive (.zip, .tar.gz, .tgz, .skill)",
    )


# ---------------------------------------------------------------- fetching


#: Host variables git may see: the search path, the locale, certificates and proxies.
_GIT_HOST_ENV = frozenset(
    (
        "PATH LANG LC_ALL SSL_CERT_FILE SSL_CERT_DIR GIT_SSL_CAINFO "
        "HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy"
    ).split()
)


def _git_env(home: Path, protocol: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if k in _GIT_HOST_ENV},
        "HOME": str(home),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ALLOW_PROTOCOL": protocol,
        "GIT_LFS_SKIP_SMUDGE": "1",
    }


_GIT_SAFE = ["-c", "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never", "-c", "core.fsmonitor=false"]
_GIT_SAFE += ["-c", "fetch.unpackLimit=1"]  # a fetch writes one pack file, never loose objects


def _git(
    args: list[str],
    cwd: Path,
    home: Path,
    timeout: float,
    max_file: int | None = None,
    protocol: str = "file",
    env: dict[str, str] | None = None,
    config: Sequence[str] = (),
) -> str:
    """Run git; with `max_file`, no file it writes may grow past that many bytes (RLIMIT_FSIZE).

    `protocol` is the one scheme git may use, also for redirects: libcurl would otherwise follow
    an https source to plain http.
    """

    def cap_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file, max_file))

    try:
        cp = subprocess.run(
            ["git", *_GIT_SAFE, *config, *args],
            cwd=cwd,
            env={**_git_env(home, protocol), **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            preexec_fn=cap_files if max_file is not None else None,
        )
    except FileNotFoundError:
        raise SourceError("fetch failed", reason="the git binary is not installed") from None
    except subprocess.TimeoutExpired:
        raise SourceError("fetch failed", reason=f"git {args[0]} timed out after {timeout:g}s") from None
    if cp.returncode != 0:
        msg = (cp.stderr or cp.stdout).strip().splitlines() or [str(cp.returncode)]
        # the line naming the problem, not the closing "and the repository exists."
        why = next((m for m in msg if m.startswith(("fatal:", "error:"))), msg[-1])
        raise SourceError("fetch failed", reason=f"git {args[0]} failed: {redact(why)}")
    return cp.stdout


def _check_checkout(dest: Path, home: Path, limits: Limits) -> None:
    """Refuse a tree whose checkout would be too large, before git writes it.

    A blob stored once can be named any number of times, so a small pack may check out as
    gigabytes; `git ls-tree -r -l -z` tells the size of every file first. The listing is counted
    as it arrives: a pack of 2 MB can name a million files, 69 MB of listing held whole.
    """
    cmd = ["git", *_GIT_SAFE, "ls-tree", "-r", "-l", "-z", "FETCH_HEAD"]
    files = size = 0
    pipe, null = subprocess.PIPE, subprocess.DEVNULL
    with subprocess.Popen(
        cmd, cwd=dest, env=_git_env(home, "file"), stdin=null, stdout=pipe, stderr=null
    ) as proc:
        rest = b""
        while chunk := proc.stdout.read(1 << 16):  # type: ignore[union-attr]
            *entries, rest = (rest + chunk).split(b"\0")
            files += len(entries)
            size += sum(int(f) for e in entries if (f := e.split(b"\t", 1)[0].split()[-1]).isdigit())
            deep = max((e.count(b"/") + 1 for e in entries), default=0) > limits.max_checkout_depth
            if files > limits.max_checkout_files or size > limits.max_checkout_bytes or deep:
                proc.kill()  # nesting too: a tree 2,000 folders deep outgrew Python's recursion when removed
                why = (
                    f"a path over {limits.max_checkout_depth} folders deep"
                    if deep
                    else f"{files} files and {size} bytes"
                )
                raise HygieneError(
                    f"repository has {why}, over the limits of {limits.max_checkout_files} files, "
                    f"{limits.max_checkout_bytes} bytes or {limits.max_checkout_depth} folders; refused before checkout"
                )
    if proc.returncode:
        raise SourceError("fetch failed", reason=f"git ls-tree failed with exit code {proc.returncode}")


def _git_auth(parts: urllib.parse.SplitResult) -> dict[str, str]:
    """A user name and password of the URL, for git's environment: on its command line (that of
    git-remote-https for the whole fetch) any local user could read them. A credential helper
    scoped to the URL's own scheme, host and port hands them to git."""
    if parts.username is None:
        return {}
    user, password = urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or "")
    if any(ord(c) < 32 or c == "\x7f" for c in user + password):  # would forge credential-protocol lines
        raise SourceError("invalid source", reason="a control character in the URL's user name or password")
    say = '"username=$SKILLYARD_GIT_USER"' + (' "password=$SKILLYARD_GIT_PASSWORD"' if parts.password else "")
    site = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    return {
        "SKILLYARD_GIT_USER": user,
        "SKILLYARD_GIT_PASSWORD": password,
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"credential.{site}.helper",
        "GIT_CONFIG_VALUE_0": f'!f() {{ test "$1" = get && printf "%s\\n" {say}; }}; f',
    }


def _git_endpoint(url: str, timeout: float) -> str:
    """Where a remote smart-HTTP server sends git for `url`: its discovery request made here, with
    the checks of every download (redirects only to https, never to this machine, by name or by
    address), and no credentials. Forges redirect on purpose (GitLab to the `.git` name, others to
    the host that serves the repository); git then fetches from the end of that chain directly."""
    probe = redact(url).rstrip("/") + "/info/refs?service=git-upload-pack"
    socks: list[socket.socket] = []
    tls = ssl.create_default_context(cafile=os.environ.get("GIT_SSL_CAINFO") or None)  # as git would verify
    opener = urllib.request.build_opener(
        _SafeRedirect(), _HTTP(socks, True), _HTTPS(socks, True, context=tls)
    )
    req = urllib.request.Request(probe, headers={"User-Agent": "git/2 (skillyard-installer)"})
    timer = threading.Timer(min(timeout, 60.0), _shut, (socks,))  # answers sent a byte at a time end too
    timer.daemon = True
    timer.start()
    try:
        with opener.open(req, timeout=min(timeout, 60.0)) as resp:
            final = resp.geturl()
    except urllib.error.HTTPError as e:  # a private repository answers 401 where it lives
        final = e.geturl()
        e.close()
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError):
        return url  # unreachable: git says why
    finally:
        timer.cancel()
        _shut(socks)
    base, found, _ = final.partition("/info/refs")
    if not found or base == redact(url).rstrip("/"):
        return url
    if urllib.parse.urlsplit(base).scheme != "https":
        raise SourceError("fetch failed", reason="the repository redirects to plain http")
    return base


def _remote_git_options(parts: urllib.parse.SplitResult) -> list[str]:
    """Git options for an http(s) source on a remote host, which must not lead git to this machine's
    services (as `_remote_connection` keeps downloads off them): the name is resolved here and
    refused when it resolves to this machine, that answer is pinned for git (`http.curloptResolve`,
    so no second lookup can rebind it), and git follows no redirect (`_git_endpoint` has followed
    them, checked). A literal loopback source (`https://127.0.0.1:8443/...`) is the user's own choice."""
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host or is_loopback(host):
        return []
    options = ["-c", "http.followRedirects=false"]
    if _is_ip_literal(host):
        return options
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    except OSError:
        return options  # git reports the failed lookup (or a proxy resolves the name)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if local := next((a for a in addresses if is_loopback(a)), None):
        raise SourceError(
            "fetch failed",
            reason=f"{host} resolves to this machine ({local}); name a local server as localhost or 127.0.0.1",
        )
    pinned = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
    return [*options, "-c", f"http.curloptResolve={host}:{port}:{pinned}"]


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def fetch_git(spec: SourceSpec, dest: Path, timeout: float = 300.0, limits: Limits | None = None) -> str:
    """Shallow-fetch `spec` into `dest` (a new directory); return the resolved commit sha."""
    dest.mkdir(parents=True)
    home = dest.parent / "git-home"
    home.mkdir(exist_ok=True)
    _git(["init", "-q", "--", str(dest)], dest.parent, home, timeout)
    parts = urllib.parse.urlsplit(spec.location)
    location = spec.location
    if parts.scheme in ("http", "https") and not is_loopback(parts.hostname):
        location = _git_endpoint(location, timeout)
    _git(["remote", "add", "origin", "--", redact(location)], dest, home, timeout)
    ref = spec.ref or "HEAD"
    limits = limits or Limits()
    cap = limits.max_checkout_bytes
    remote_options = _remote_git_options(urllib.parse.urlsplit(location))
    try:  # one pack file (fetch.unpackLimit=1), so RLIMIT_FSIZE bounds the whole download as it arrives
        fetch = ["fetch", "-q", "--depth", "1", "--no-tags", "origin", ref]
        auth = _git_auth(parts)
        _git(fetch, dest, home, timeout, max_file=cap, protocol=parts.scheme, env=auth, config=remote_options)
    except SourceError as e:
        if remote_options and re.search(r"returned error: 30[12378]\b", str(e.details.get("reason", ""))):
            raise SourceError(
                "fetch failed",
                reason="the server redirected git elsewhere after its first answer; git sources on remote "
                "hosts are fetched without following redirects: install from the repository's current address",
            ) from None
        if any(p.stat().st_size >= cap for p in (dest / ".git" / "objects" / "pack").iterdir()):
            raise SourceError(
                "fetch failed", reason=f"the download passed the limit of {cap} bytes"
            ) from None
        raise
    _check_checkout(dest, home, limits)
    _git(["-c", "advice.detachedHead=false", "checkout", "-q", "FETCH_HEAD"], dest, home, timeout)
    sha = _git(["rev-parse", "HEAD"], dest, home, timeout).strip()
    if not re.fullmatch(r"[0-9a-f]{40,64}", sha):
        raise SourceError("fetch failed", reason="could not resolve the fetched commit")
    return sha


class _SafeRedirect(urllib.request.HTTPRedirectHandler):
    """Follow redirects only to https (or loopback http), never downgrade to plain http elsewhere,
    and to a loopback host only from one: a remote server may not send requests to local services."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        parts = urllib.parse.urlsplit(newurl)
        local = is_loopback(parts.hostname)
        if (parts.scheme != "https" and not (parts.scheme == "http" and local)) or (
            local and not is_loopback(urllib.parse.urlsplit(req.full_url).hostname)
        ):
            raise SourceError(
                "fetch failed", reason=f"refusing redirect to {parts.scheme}://{parts.hostname}"
            )
        if fp is not None:  # its body is never read (urllib would read all of it, however large, into memory)
            fp.close()
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _shut(socks: list[socket.socket]) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)


def _remote_connection(
    address: tuple[str, int], timeout: float | None = None, source_address: Any = None
) -> socket.socket:
    """`socket.create_connection` that refuses a name resolving to this machine: a download from a
    remote host (or a redirect to another name) must not reach local services through a DNS name
    or an /etc/hosts alias. Connects to the very address it checked (no second lookup to rebind)."""
    host, port = address
    infos = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    for *_, sockaddr in infos:
        if is_loopback(str(sockaddr[0])):
            raise SourceError(
                "fetch failed",
                reason=f"{host} resolves to this machine ({sockaddr[0]}); name a local server as "
                "localhost or 127.0.0.1",
            )
    error: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)  # `http_get` always gives one
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as e:
            sock.close()
            error = e
    raise error or OSError(f"cannot resolve {host}")


class _Sockets:
    """Opens connections as its base handler does, keeping each socket so a deadline can end a read;
    with `remote_only`, a direct connection to a name that resolves to this machine is refused (a
    proxy, when one is set, resolves the name itself)."""

    def __init__(self, socks: list[socket.socket], remote_only: bool, **kw: Any) -> None:
        super().__init__(**kw)
        self.socks = socks
        self.remote_only = remote_only

    def do_open(self, http_class: Any, req: Any, **kw: Any) -> Any:
        socks = self.socks
        # `req.host` is where the connection goes: the URL's own host, or a proxy
        checked = self.remote_only and req.host == urllib.parse.urlsplit(req.full_url).netloc

        class Conn(http_class):  # type: ignore[misc,valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                if checked:
                    self._create_connection = _remote_connection

            def connect(self) -> None:
                super().connect()
                socks.append(self.sock)

        return super().do_open(Conn, req, **kw)  # type: ignore[misc]


class _HTTP(_Sockets, urllib.request.HTTPHandler):
    pass


class _HTTPS(_Sockets, urllib.request.HTTPSHandler):
    pass


def http_get(url: str, max_bytes: int, timeout: float = 300.0, to_file: Path | None = None) -> bytes:
    """GET with a byte cap, counted while streaming, and `timeout` seconds for the whole download
    (a server sending a byte now and then would otherwise hold it forever); returns the body (or
    writes it to `to_file`)."""
    parts, shown = _check_url(url, ("https", "http")), redact(url)
    if "@" in parts.netloc:  # urllib would take `user:password@host` for a host and port
        raise SourceError(
            "fetch failed", reason="a user name or password in an HTTP URL is not supported", url=shown
        )
    socks: list[socket.socket] = []
    local = is_loopback(parts.hostname)
    handlers: list[Any] = [_SafeRedirect(), _HTTP(socks, not local), _HTTPS(socks, not local)]
    if local:
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    req = urllib.request.Request(url, headers={"User-Agent": "skillyard-installer"})
    chunks: list[bytes] = []
    total = 0
    end = time.monotonic() + timeout
    timer = threading.Timer(timeout, _shut, (socks,))  # headers sent a byte at a time: reads end too
    timer.daemon = True
    timer.start()
    try:
        with opener.open(req, timeout=min(timeout, 60.0)) as resp:
            raw = resp.headers.get("Content-Length", "")  # `1²` or 5,000 digits: no usable length
            length = int(raw) if raw.isdecimal() and len(raw) < 20 else None
            if length is not None and length > max_bytes:
                raise SourceError("fetch failed", reason=f"download larger than {max_bytes} bytes", url=shown)
            with open(to_file, "wb") if to_file else contextlib.nullcontext() as out:
                while chunk := resp.read1(256 * 1024):  # one read, never waits to fill the buffer
                    total += len(chunk)
                    if total > max_bytes:
                        raise SourceError(
                            "fetch failed", reason=f"download larger than {max_bytes} bytes", url=shown
                        )
                    if out:
                        out.write(chunk)
                    else:
                        chunks.append(chunk)
            if time.monotonic() > end:
                raise SourceError("fetch failed", reason=f"download took over {timeout:g}s", url=shown)
            if length is not None and total < length:  # the connection dropped early
                raise SourceError(
                    "fetch failed", reason=f"download ended after {total} of {length} bytes", url=shown
                )
    except urllib.error.HTTPError as e:
        raise SourceError("fetch failed", reason=f"HTTP {e.code}", url=shown) from None
    except (
        OSError,
        http.client.HTTPException,
    ) as e:  # URLError is an OSError; a bad status line or 101 headers
        if isinstance(e, SourceError):
            raise
        why = (
            f"cannot reach {parts.hostname}: {e.reason}"
            if isinstance(e, urllib.error.URLError)
            else f"download error: {e}"
        )
        late = time.monotonic() > end
        raise SourceError(
            "fetch failed", reason=f"download took over {timeout:g}s" if late else why, url=shown
        ) from None
    finally:
        timer.cancel()
    return b"".join(chunks)


def fetch_archive(url: str, dest_file: Path, limits: Limits, sha256: str | None = None) -> str:
    """Download an archive to `dest_file`; verify `sha256` when given; return the archive's sha256."""
    http_get(url, limits.max_download_bytes, to_file=dest_file)
    with open(dest_file, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    if sha256 is not None and digest != sha256.lower():
        raise SourceError(
            "fetch failed", reason="sha256 mismatch", expected=sha256.lower(), actual=digest, url=redact(url)
        )
    return digest


@dataclass(frozen=True, slots=True)
class HubRelease:
    name: str
    version: str
    url: str
    sha256: str


def resolve_hub(index_url: str | None, name: str, version: str | None) -> HubRelease:
    """Look a skill up in the hub index (format in docs/install.md)."""
    if not index_url:
        raise SourceError("invalid source", reason="no hub index configured ([hub] index in the config file)")
    raw = http_get(index_url, MAX_INDEX_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as e:  # `[[[...` nested deep, an integer past int()'s digit limit
        raise SourceError("fetch failed", reason=f"hub index is not valid JSON: {e}") from None
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        raise SourceError("fetch failed", reason="hub index has no 'skills' object")
    entry = skills.get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get("versions"), dict) or not entry["versions"]:
        raise SourceError("skill not found in hub", name=name)
    versions: dict[str, Any] = entry["versions"]
    if version is None:
        latest = entry.get("latest")
        version = (
            latest if isinstance(latest, str) and latest in versions else max(versions, key=_version_key)
        )
    rel = versions.get(version)
    if not isinstance(rel, dict):
        raise SourceError("version not found in hub", name=name, version=version, available=sorted(versions))
    url, digest = rel.get("url"), rel.get("sha256")
    if (
        not isinstance(url, str)
        or not isinstance(digest, str)
        or not re.fullmatch(r"[0-9a-fA-F]{64}", digest)
    ):
        raise SourceError(
            "fetch failed", reason=f"hub entry {name}@{version} needs 'url' and a 64-hex 'sha256'"
        )
    try:
        url = urllib.parse.urljoin(index_url, url)
    except ValueError as e:  # `http://[x/`: urljoin raises where urlsplit in _check_url would have
        raise SourceError("fetch failed", reason=f"hub entry {name}@{version}: malformed url: {e}") from None
    _check_url(url, ("https", "http"))
    return HubRelease(name, version, url, digest.lower())


def _version_key(v: str) -> tuple[Any, ...]:
    """`1.10` after `1.9`; `isdigit` took `²` for a number and int() refuses 4,300 digits: both raised."""
    return tuple(
        (0, int(p), "") if p.isdecimal() and len(p) < 100 else (1, 0, p) for p in re.split(r"[.+-]", v)
    )
