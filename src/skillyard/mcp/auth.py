"""Authentication for `skillyard serve --transport http` beyond loopback.

Two kinds of bearer token, checked by one ASGI gate in front of the SDK's app:

- static tokens from a file (`--auth-token-file`): only their sha256 digests
  are kept, and a presented token is compared with every digest in constant
  time, so neither the file's tokens nor timing reveal anything;
- OAuth 2.1 access tokens (JWTs) from the `[serve.auth]` issuer, verified
  against its JWKS with PyJWT (the `skillyard[auth]` extra): signature with
  the configured algorithms only, `iss`, `aud` and `exp` all required.

The gate answers like the MCP authorization spec asks (RFC 6750 / RFC 9728):
401 with `WWW-Authenticate: Bearer resource_metadata="..."` and no `error`
when no credentials came, `error="invalid_token"` when they were wrong, 403
with `error="insufficient_scope", scope="..."` when a scope is missing. The
SDK's own RequireAuthMiddleware puts `error=` on every 401 and no `scope=`,
hence this gate. It still hands the SDK what its transports read: the
`AuthenticatedUser` in `scope["user"]` (sessions are bound to their principal)
and the access token in the SDK's auth context.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol
from urllib.parse import urlsplit, urlunsplit

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("skillyard.mcp.auth")

SCOPE_READ: Final = "skills:read"
SCOPE_RUN: Final = "skills:run"
SCOPE_INSTALL: Final = "skills:install"
ALL_SCOPES: Final = (SCOPE_READ, SCOPE_RUN, SCOPE_INSTALL)
#: what a token-file line without scopes grants: installing must be granted by name
DEFAULT_STATIC_SCOPES: Final = (SCOPE_READ, SCOPE_RUN)
#: the scopes named in a 401 challenge: what a client needs for the usual work
CHALLENGE_SCOPES: Final = (SCOPE_READ, SCOPE_RUN)
#: longer tokens are refused unread (a JWT with a few claims is well under 2 KiB)
MAX_TOKEN_CHARS: Final = 8192
#: static tokens shorter than this are refused at start (guessable)
MIN_STATIC_TOKEN_CHARS: Final = 16
#: the token file is small; a larger file is a mistaken path
MAX_TOKEN_FILE_BYTES: Final = 1024 * 1024
PRM_PATH: Final = "/.well-known/oauth-protected-resource"
#: RFC 6750 b64token
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_SAFE_HOST = re.compile(r"[A-Za-z0-9.\-:\[\]]{1,255}")


class AuthSetupError(Exception):
    """Authentication is configured in a way the server must not start with; the message says why."""


class TokenVerifier(Protocol):
    """The SDK's verifier protocol: a token in, an AccessToken (or None for "not valid") out."""

    async def verify_token(self, token: str) -> AccessToken | None: ...


# ------------------------------------------------------------------ static tokens


@dataclass(frozen=True, slots=True)
class _StaticEntry:
    digest: bytes
    scopes: tuple[str, ...]
    label: str


class StaticTokenVerifier:
    """Tokens from a file, held as sha256 digests and compared in constant time."""

    def __init__(self, entries: Sequence[_StaticEntry]) -> None:
        if not entries:
            raise AuthSetupError("no tokens")
        self._entries = tuple(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, token: str) -> AccessToken | None:
        digest = hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()
        found: _StaticEntry | None = None
        for entry in self._entries:  # no early exit: the time taken does not depend on which entry matched
            if hmac.compare_digest(digest, entry.digest) and found is None:
                found = entry
        if found is None:
            return None
        return AccessToken(token=found.label, client_id=found.label, scopes=list(found.scopes))

    async def verify_token(self, token: str) -> AccessToken | None:
        return self.lookup(token)


def load_token_file(path: str | os.PathLike[str]) -> StaticTokenVerifier:
    """Read `token [scope...]` lines; refuse a file others can read or write, or one with no usable token."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise AuthSetupError(f"token file {p} does not exist") from None
    except OSError as e:
        raise AuthSetupError(f"token file {p} cannot be opened: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AuthSetupError(f"token file {p} is not a regular file")
        if st.st_uid not in (0, os.geteuid()):  # whoever owns it knows, and can change, the tokens
            raise AuthSetupError(
                f"token file {p} belongs to another user (uid {st.st_uid}); it must be yours"
            )
        if st.st_mode & 0o077:
            raise AuthSetupError(
                f"token file {p} is accessible to group or others (mode {stat.S_IMODE(st.st_mode):04o}); "
                f"run: chmod 600 {p}"
            )
        if st.st_size > MAX_TOKEN_FILE_BYTES:
            raise AuthSetupError(f"token file {p} is larger than {MAX_TOKEN_FILE_BYTES} bytes")
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_TOKEN_FILE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise AuthSetupError(f"token file {p} is not UTF-8 text") from None
    return parse_tokens(text.splitlines(), where=str(p))


def parse_tokens(lines: Iterable[str], *, where: str = "<tokens>") -> StaticTokenVerifier:
    """`token scope1 scope2` per line; `#` comments and blank lines skipped; only digests are kept."""
    entries: list[_StaticEntry] = []
    seen: set[bytes] = set()
    for number, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        token, scopes = words[0], tuple(words[1:]) or DEFAULT_STATIC_SCOPES
        if len(token) < MIN_STATIC_TOKEN_CHARS:
            raise AuthSetupError(
                f"{where}:{number}: token shorter than {MIN_STATIC_TOKEN_CHARS} characters "
                "(generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
            )
        if len(token) > MAX_TOKEN_CHARS or not _B64TOKEN.fullmatch(token):
            raise AuthSetupError(
                f"{where}:{number}: a token may use only letters, digits and -._~+/ (then =), "
                f"up to {MAX_TOKEN_CHARS} characters"
            )
        unknown = [s for s in scopes if s not in ALL_SCOPES]
        if unknown:
            raise AuthSetupError(
                f"{where}:{number}: unknown scope {unknown[0]!r} (known: {', '.join(ALL_SCOPES)})"
            )
        digest = hashlib.sha256(token.encode("ascii")).digest()
        if digest in seen:
            raise AuthSetupError(f"{where}:{number}: the same token appears twice")
        seen.add(digest)
        entries.append(_StaticEntry(digest, tuple(dict.fromkeys(scopes)), f"static:{digest.hex()[:16]}"))
    if not entries:
        raise AuthSetupError(f"token file {where} holds no token")
    return StaticTokenVerifier(entries)


# ------------------------------------------------------------------ OAuth access tokens (JWT)

#: an unknown `kid` refreshes the JWKS at most this often (an attacker's random kids must not hammer the issuer)
JWKS_MIN_REFRESH_S: Final = 30.0
#: how long fetched keys are trusted before the JWKS is fetched again
JWKS_LIFESPAN_S: Final = 300
JWKS_TIMEOUT_S: Final = 10


class JwtVerifier:
    """Access tokens signed by the issuer's keys: signature, `iss`, `aud`, `exp` (and `nbf`) checked.

    The accepted algorithms come from the configuration, never from the token's header.
    """

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        jwks_uri: str | None = None,
        algorithms: Sequence[str] = ("RS256",),
        leeway: float = 30.0,
    ) -> None:
        try:
            from jwt.algorithms import has_crypto
        except ImportError:
            has_crypto = False
        # without it no RS/PS/ES/EdDSA token could ever verify: refuse now, not per request
        if not has_crypto:
            raise AuthSetupError("OAuth needs PyJWT with its crypto backend: pip install 'skillyard[auth]'")
        self.issuer = issuer
        self.audience = audience
        self.algorithms = tuple(algorithms)
        self.leeway = leeway
        self._jwks_uri = jwks_uri
        self._client: Any = None
        self._lock = threading.Lock()
        self._last_refresh = 0.0

    def _jwks_client(self) -> Any:
        from jwt import PyJWKClient

        with self._lock:
            if self._client is None:
                uri = self._jwks_uri or discover_jwks_uri(self.issuer)
                self._client = PyJWKClient(
                    uri, cache_jwk_set=True, lifespan=JWKS_LIFESPAN_S, timeout=JWKS_TIMEOUT_S
                )
            return self._client

    def _key_for(self, kid: str | None) -> Any:
        """The signing key for `kid`; an unknown kid refreshes the key set, but not more than every 30 s."""
        client = self._jwks_client()
        keys = client.get_signing_keys()
        match = [k for k in keys if kid is None or k.key_id == kid]
        if not match and time.monotonic() - self._last_refresh > JWKS_MIN_REFRESH_S:
            self._last_refresh = time.monotonic()
            keys = client.get_signing_keys(refresh=True)
            match = [k for k in keys if kid is None or k.key_id == kid]
        return match[0] if len(match) == 1 else None

    def verify_sync(self, token: str) -> AccessToken | None:
        """Blocking: may fetch the JWKS. None for every kind of invalid token (the reason is logged)."""
        import jwt
        from jwt import PyJWKClientError

        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") not in self.algorithms:
                log.info("token refused: algorithm %r is not configured", str(header.get("alg"))[:20])
                return None
            kid = header.get("kid")
            key = self._key_for(kid if isinstance(kid, str) else None)
            if key is None:
                log.info("token refused: no single signing key for its kid")
                return None
            claims = jwt.decode(
                token,
                key.key,
                algorithms=list(self.algorithms),
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        # ValueError, TypeError, KeyError: malformed pieces PyJWT did not wrap
        except (jwt.PyJWTError, PyJWKClientError, ValueError, TypeError, KeyError) as e:
            log.info("token refused: %s", type(e).__name__)
            return None
        return _access_token(claims)

    async def verify_token(self, token: str) -> AccessToken | None:
        return await anyio.to_thread.run_sync(self.verify_sync, token)


def _access_token(claims: dict[str, Any]) -> AccessToken:
    raw = claims.get("scope", claims.get("scp", ""))
    if isinstance(raw, str):
        scopes = raw.split()
    elif isinstance(raw, list):
        scopes = [s for s in raw if isinstance(s, str)]
    else:
        scopes = []
    sub = claims.get("sub")
    client = claims.get("client_id") or claims.get("azp") or sub or ""
    exp = claims.get("exp")
    aud = claims.get("aud")
    return AccessToken(
        token="jwt",
        client_id=str(client),
        scopes=scopes,
        expires_at=int(exp) if isinstance(exp, int | float) else None,
        resource=aud if isinstance(aud, str) else None,
        subject=str(sub) if sub is not None else None,
        claims={"iss": claims.get("iss")},
    )


def discover_jwks_uri(issuer: str) -> str:
    """The issuer's `jwks_uri` from its RFC 8414 (then OpenID) metadata; the metadata must name the same issuer."""
    import urllib.request

    from skillyard.config import _secure_url

    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    candidates = [
        urlunsplit((parts.scheme, parts.netloc, "/.well-known/oauth-authorization-server" + path, "", "")),
        urlunsplit((parts.scheme, parts.netloc, path + "/.well-known/openid-configuration", "", "")),
    ]
    for url in candidates:
        try:
            with urllib.request.urlopen(url, timeout=JWKS_TIMEOUT_S) as resp:  # noqa: S310 - https or loopback only
                meta = json.loads(resp.read(1024 * 1024))
        except (OSError, ValueError, RecursionError) as e:  # RecursionError: `[[[...` nested deep
            log.info("issuer metadata %s: %s", url, type(e).__name__)
            continue
        if not isinstance(meta, dict) or meta.get("issuer") != issuer:
            log.warning("issuer metadata %s names another issuer; ignored", url)
            continue
        uri = meta.get("jwks_uri")
        if isinstance(uri, str) and _secure_url(uri):
            return uri
    raise AuthSetupError(f"no usable jwks_uri in the metadata of issuer {issuer}; set [serve.auth] jwks_uri")


class AnyOfVerifiers:
    """Static tokens first (cheap, constant time), then the issuer's JWTs."""

    def __init__(self, verifiers: Sequence[TokenVerifier]) -> None:
        self.verifiers = tuple(verifiers)

    async def verify_token(self, token: str) -> AccessToken | None:
        for v in self.verifiers:
            got = await v.verify_token(token)
            if got is not None:
                return got
        return None


# ------------------------------------------------------------------ the gate


class AuthGate:
    """ASGI middleware: every request but Protected Resource Metadata needs a valid bearer token with skills:read."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        verifier: TokenVerifier,
        issuer: str | None = None,
        resource: str | None = None,
        allowed_hosts: Sequence[str] | None = None,
    ) -> None:
        self.app = app
        #: the Host values the transport serves (its DNS-rebinding check); None: any well-formed one
        self.allowed_hosts = allowed_hosts
        self.verifier = verifier
        self.mcp_path = "/mcp"  # where `SkillyardServer.http_app` serves
        self.issuer = issuer
        self.resource = resource.rstrip("/") if resource else None
        self.prm_paths = {PRM_PATH, PRM_PATH + self.mcp_path}
        if self.resource:
            self.prm_paths.add(PRM_PATH + (urlsplit(self.resource).path.rstrip("/")))

    # -------------------------------------------------------- resource metadata

    def _resource_url(self, scope: Scope) -> str | None:
        """The configured resource, else this request's scheme://host + the MCP path (a safe Host only)."""
        if self.resource:
            return self.resource
        host = _header(scope, b"host")
        if host is None or not _SAFE_HOST.fullmatch(host):
            return None
        if self.allowed_hosts is not None and not host_allowed(host, self.allowed_hosts):
            return None  # the transport would refuse this Host: never name it as the resource
        return f"{scope.get('scheme', 'http')}://{host.lower()}{self.mcp_path}"

    def _metadata_url(self, scope: Scope) -> str | None:
        if self.issuer is None:
            return None
        resource = self._resource_url(scope)
        if resource is None:
            return None
        parts = urlsplit(resource)
        return urlunsplit((parts.scheme, parts.netloc, PRM_PATH + parts.path.rstrip("/"), "", ""))

    async def _metadata(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, {"error": "method_not_allowed"}, [(b"allow", b"GET, HEAD")])
            return
        resource = self._resource_url(scope)
        if resource is None:
            await _respond(send, 400, {"error": "invalid_request", "error_description": "bad Host header"})
            return
        doc = {
            "resource": resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": list(ALL_SCOPES),
            "bearer_methods_supported": ["header"],
            "resource_name": "skillyard",
        }
        await _respond(send, 200, doc, [(b"cache-control", b"public, max-age=3600")])

    # -------------------------------------------------------- requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"].rstrip("/") or "/"
        if self.issuer is not None and path in self.prm_paths:
            await self._metadata(scope, receive, send)
            return
        values = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        if not values:
            await self._challenge(scope, send, 401, None)
            return
        token = _bearer_token(values)
        if token is None:
            await self._challenge(scope, send, 401, "invalid_token")
            return
        try:
            access = await self.verifier.verify_token(token)
        except Exception:  # a verifier bug must read as "not authenticated", never as a 500 with a trace
            log.exception("token verification failed")
            access = None
        if access is None or (access.expires_at is not None and access.expires_at < int(time.time())):
            await self._challenge(scope, send, 401, "invalid_token")
            return
        if SCOPE_READ not in access.scopes:
            await self._challenge(scope, send, 403, "insufficient_scope", (SCOPE_READ,))
            return
        user = AuthenticatedUser(access)
        scope["user"] = user
        scope["auth"] = AuthCredentials(list(access.scopes))
        reset = auth_context_var.set(user)
        try:
            if access.expires_at is None:
                await self.app(scope, receive, send)
            else:
                await self._until_expiry(access.expires_at, scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    async def _until_expiry(self, expires_at: int, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request no longer than its token is valid: an event stream opened with a token
        ends when the token does (the client reconnects with a fresh one), and a request still
        unanswered then gets the 401 an expired token gets."""
        started = False

        async def tracking_send(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        with anyio.move_on_after(max(0.0, expires_at - time.time())) as expiry:
            await self.app(scope, receive, tracking_send)
        if expiry.cancelled_caught:
            log.info("request ended: its token expired")
            if not started:
                await self._challenge(scope, send, 401, "invalid_token")

    async def _challenge(
        self,
        scope: Scope,
        send: Send,
        status: int,
        error: str | None,
        scopes: Sequence[str] = CHALLENGE_SCOPES,
    ) -> None:
        parts: list[str] = []
        if error is not None:
            parts.append(f'error="{error}"')
        parts.append(f'scope="{" ".join(scopes)}"')
        metadata = self._metadata_url(scope)
        if metadata is not None:
            parts.append(f'resource_metadata="{metadata}"')
        lacking = f"the token lacks the scope {' '.join(scopes)}"
        description = "a valid bearer token is required" if status == 401 else lacking
        body = {"error": error or "unauthorized", "error_description": description}
        await _respond(send, status, body, [(b"www-authenticate", ("Bearer " + ", ".join(parts)).encode())])


def host_allowed(host: str, patterns: Sequence[str]) -> bool:
    """The MCP SDK's Host rule: an exact entry, or `name:*` for `name` with any port."""
    return host in patterns or any(p.endswith(":*") and host.startswith(p[:-1]) for p in patterns)


def _bearer_token(values: Sequence[bytes]) -> str | None:
    """The token of the one `Authorization: Bearer <b64token>` header, or None for anything else."""
    if len(values) != 1 or len(values[0]) > MAX_TOKEN_CHARS + 16:
        return None
    try:
        text = values[0].decode("ascii")
    except UnicodeDecodeError:
        return None
    scheme, _, token = text.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or not _B64TOKEN.fullmatch(token):
        return None
    return token


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k.lower() == name:
            try:
                return v.decode("ascii")
            except UnicodeDecodeError:
                return None
    return None


async def _respond(
    send: Send, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    data = json.dumps(body).encode()
    out = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers]
    if not any(k == b"cache-control" for k, _ in headers):
        out.append((b"cache-control", b"no-store"))
    await send({"type": "http.response.start", "status": status, "headers": out})
    await send({"type": "http.response.body", "body": data})


# ------------------------------------------------------------------ scopes for tool calls


def _access(request_context: Any) -> AccessToken | None:
    """The token behind this request; None when it was not authenticated (stdio, loopback HTTP without auth)."""
    scope = getattr(getattr(request_context, "request", None), "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    if not isinstance(user, AuthenticatedUser):
        user = auth_context_var.get()
    return user.access_token if isinstance(user, AuthenticatedUser) else None


def granted_scopes(request_context: Any) -> frozenset[str] | None:
    """The scopes of the token behind this request; None (unrestricted) when not authenticated at all."""
    access = _access(request_context)
    return None if access is None else frozenset(access.scopes)


def principal(request_context: Any) -> str | None:
    """Who the request's token speaks for (client and subject); None when not authenticated."""
    access = _access(request_context)
    return None if access is None else f"{access.client_id}\0{access.subject or ''}"


#: `skills` tool actions that change what the server holds or serves
INSTALL_ACTIONS: Final = frozenset({"install", "enable", "disable"})


def skills_action(arguments: Any) -> str | None:
    """The `skills` tool's action when the arguments name one as a string (any other value is
    the tool's own argument error, and must not reach a set lookup here)."""
    action = arguments.get("action") if isinstance(arguments, dict) else None
    return action if isinstance(action, str) else None


def required_scope(tool: str, arguments: Any, builtin: Iterable[str]) -> str | None:
    """The scope a tool call needs beyond skills:read (None: reading is enough)."""
    if tool == "skill_run":
        return SCOPE_RUN
    if tool == "skills":
        return SCOPE_INSTALL if skills_action(arguments) in INSTALL_ACTIONS else None
    if tool not in set(builtin):  # a SKILL.toml tool runs a command
        return SCOPE_RUN
    return None
