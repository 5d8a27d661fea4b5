"""`skillyard serve --transport http` with authentication: a real server on 127.0.0.1, real tokens.

Static tokens from a private file and OAuth access tokens (RS256 JWTs signed
here, keys served as a JWKS by a real HTTP server on 127.0.0.1). The official
client talks to the server with a bearer header; plain HTTP requests check
every refusal: 401 (and no `error=` without credentials), 403 for a missing
scope, nothing of the token echoed back, never a 500.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jwt.algorithms import RSAAlgorithm
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from test_mcp_support import (
    INIT,
    POST_HEADERS,
    PYTHON,
    free_port,
    make_tree,
    serve_cmd,
    serving,
    subprocess_env,
)

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]
FULL = "full-access-token-0123456789abcdef"
READER = "read-only-token-0123456789abcdef"
NOREAD = "run-but-not-read-0123456789abcdef"
AUDIENCE = "https://skills.example/mcp"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "skills")


def token_file(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    p = tmp_path / "tokens"
    p.write_text(text, encoding="utf-8")
    p.chmod(mode)
    return p


def refused(tree: Path, tmp_path: Path, *args: str, config: Path | None = None) -> str:
    """Run serve expecting a refusal before binding: exit 2, nothing on stdout; returns stderr."""
    proc = subprocess.run(
        serve_cmd(tree, "--port", str(free_port()), *args, config=config),
        env=subprocess_env(tmp_path / "home"),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == b""
    return proc.stderr.decode()


def client(url: str, token: str, mode: str) -> tuple[Client, httpx2.AsyncClient]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode), http


def post(url: str, headers: dict[str, str] | None = None, body: Any = INIT) -> httpx2.Response:
    return httpx2.post(url, headers={**POST_HEADERS, **(headers or {})}, json=body, timeout=30)


def assert_401(resp: httpx2.Response, *, error: bool, secret: str = "") -> None:
    assert resp.status_code == 401, (resp.status_code, resp.text)
    challenge = resp.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert ('error="invalid_token"' in challenge) is error, challenge
    if not error:
        assert "error=" not in challenge
    assert json.loads(resp.text)["error"] in ("invalid_token", "unauthorized")
    if secret:
        assert secret[:12] not in resp.text and secret[:12] not in challenge


# ------------------------------------------------------------------ static tokens


@pytest.fixture
def static_url(tree: Path, tmp_path: Path) -> Iterator[str]:
    f = token_file(
        tmp_path,
        f"# team tokens\n{FULL} skills:read skills:run skills:install\n\n{READER} skills:read\n"
        f"{NOREAD} skills:run\n",
    )
    with serving(tree, tmp_path, "--auth-token-file", str(f)) as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
async def test_static_token_client(static_url: str, mode: str) -> None:
    c, http = client(static_url, FULL, mode)
    with anyio.fail_after(60):
        async with http, c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"skills", "skill_load", "read_skill", "skill_run", "say_hi"} <= names
            res = await c.call_tool("skills", {"action": "list"})
            assert not res.is_error
            res = await c.call_tool("read_skill", {"skill_name": "alpha"})
            assert res.content[0].text == "Do the thing."
            res = await c.call_tool("say_hi", {})
            assert "lacks the scope" not in res.content[0].text


@pytest.mark.parametrize("mode", MODES)
async def test_read_only_token_gets_error_results(static_url: str, mode: str) -> None:
    c, http = client(static_url, READER, mode)
    with anyio.fail_after(60):
        async with http, c:
            res = await c.call_tool("skill_load", {"skill": "alpha"})
            assert not res.is_error, res.content
            res = await c.call_tool("skill_run", {"skill": "alpha", "command": "true"})
            assert res.is_error and "skills:run" in res.content[0].text
            res = await c.call_tool("say_hi", {})  # a SKILL.toml tool runs a command
            assert res.is_error and "skills:run" in res.content[0].text
            res = await c.call_tool("skills", {"action": "install", "skill": "local:/tmp/x"})
            assert res.is_error and "skills:install" in res.content[0].text
            res = await c.call_tool("skills", {"action": "disable", "skill": "alpha"})
            assert res.is_error and "skills:install" in res.content[0].text
            res = await c.call_tool("skills", {"action": "list"})
            assert not res.is_error


def test_static_refusals_over_http(static_url: str) -> None:
    assert_401(post(static_url), error=False)
    assert_401(post(static_url, {"Authorization": "Bearer wrong-token-0123456789abcdef"}), error=True)
    assert_401(post(static_url, {"Authorization": "Basic dXNlcjpwYXNz"}), error=True)
    assert_401(post(static_url, {"Authorization": "Bearer"}), error=True)
    assert_401(post(static_url, {"Authorization": f"Bearer {FULL} extra"}), error=True, secret=FULL)
    assert_401(post(static_url, {"Authorization": f"Bearer {FULL}x"}), error=True, secret=FULL)
    assert_401(post(static_url, {"Authorization": f"Bearer {FULL[:-1]}"}), error=True, secret=FULL)
    assert_401(post(static_url, {"Authorization": "Bearer " + "A" * 9000}), error=True)
    huge = httpx2.post(
        static_url, headers={**POST_HEADERS, "Authorization": "Bearer " + "A" * 70000}, json=INIT
    )
    assert huge.status_code in (400, 401, 431), huge.status_code  # refused by the HTTP parser or the gate
    # the token must be in the header: a query parameter counts for nothing
    assert_401(post(static_url + f"?access_token={FULL}"), error=False)
    forbidden = post(static_url, {"Authorization": f"Bearer {NOREAD}"})
    assert forbidden.status_code == 403
    challenge = forbidden.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="skills:read"' in challenge
    ok = post(static_url, {"Authorization": f"Bearer {FULL}"})
    assert ok.status_code == 200, ok.text
    # the Host check still applies to authenticated requests
    foreign = post(static_url, {"Authorization": f"Bearer {FULL}", "Host": "evil.example"})
    assert foreign.status_code in (400, 421), foreign.status_code
    # static tokens have no authorization server: no metadata is served or named
    assert "resource_metadata" not in post(static_url).headers["www-authenticate"]


HEADER_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0x7E)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    value=st.one_of(
        st.text(HEADER_CHARS, max_size=200),
        st.text(HEADER_CHARS, max_size=200).map(lambda s: "Bearer " + s),
        st.text(HEADER_CHARS, max_size=60).map(lambda s: "bEaReR  " + s + " "),
        st.binary(max_size=100).map(lambda b: "Bearer " + b.decode("latin-1").strip("\r\n\0")),
    )
)
def test_hostile_authorization_headers(static_url: str, value: str) -> None:
    """Whatever the Authorization header holds, a request without a valid token gets 401, never a 500."""
    value = "".join(ch for ch in value if ch not in "\r\n\0").strip()
    if not value:
        value = "x"
    try:
        resp = httpx2.post(
            static_url,
            headers={**POST_HEADERS, "Authorization": value.encode("latin-1")},  # type: ignore[dict-item]
            json=INIT,
            timeout=30,
        )
    except httpx2.LocalProtocolError:
        return  # the client library itself refuses to send it
    if any(ord(ch) < 0x20 and ch != "\t" or ch == "\x7f" for ch in value):
        # Not a valid HTTP field value (RFC 9110 5.5): a strict HTTP parser (httptools, the serve
        # extra) refuses the request itself, before any application code sees it.
        assert resp.status_code in (400, 401), (value, resp.status_code, resp.text)
        return
    assert resp.status_code == 401, (value, resp.status_code, resp.text)


def test_token_file_refusals(tree: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-file"
    assert "does not exist" in refused(tree, tmp_path, "--auth-token-file", str(missing))
    open_file = token_file(tmp_path, FULL + "\n", mode=0o644)
    err = refused(tree, tmp_path, "--auth-token-file", str(open_file))
    assert "group or others" in err and "chmod 600" in err
    assert FULL not in err
    empty = token_file(tmp_path, "# nothing yet\n\n")
    assert "holds no token" in refused(tree, tmp_path, "--auth-token-file", str(empty))
    short = token_file(tmp_path, "hunter2\n")
    assert "shorter than 16" in refused(tree, tmp_path, "--auth-token-file", str(short))
    typo = token_file(tmp_path, FULL + " skills:write\n")
    assert "unknown scope 'skills:write'" in refused(tree, tmp_path, "--auth-token-file", str(typo))


def test_non_loopback_needs_auth(tree: Path, tmp_path: Path) -> None:
    err = refused(tree, tmp_path, "--host", "0.0.0.0")
    assert "without authentication" in err
    assert "without authentication" in refused(tree, tmp_path, "--host", "::")
    assert "without authentication" in refused(tree, tmp_path, "--host", "192.0.2.10")
    # with tokens but no Host name for a wildcard bind: refused before binding as well
    f = token_file(tmp_path, FULL + "\n")
    assert "--allowed-host" in refused(tree, tmp_path, "--host", "0.0.0.0", "--auth-token-file", str(f))


def test_other_loopback_address(tree: Path, tmp_path: Path) -> None:
    """127.0.0.2 is loopback too: served, and its own Host header is accepted."""
    import socket

    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("127.0.0.2 is not usable here")
    f = token_file(tmp_path, FULL + "\n")
    port = free_port()
    proc = subprocess.Popen(
        serve_cmd(tree, "--host", "127.0.0.2", "--port", str(port), "--auth-token-file", str(f)),
        env=subprocess_env(tmp_path / "home"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.2:{port}/mcp"
        deadline = time.monotonic() + 60
        while True:
            try:
                resp = post(url, {"Authorization": f"Bearer {FULL}"})
                break
            except httpx2.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert resp.status_code == 200, resp.text
        assert_401(post(url), error=False)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_stdio_refuses_http_options(tree: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "skillyard", "--root", str(tree), "serve", "--stateless"],
        env=subprocess_env(tmp_path / "home"),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2 and b"--transport http" in proc.stderr


# ------------------------------------------------------------------ OAuth (JWT) tokens


class Issuer:
    """A real authorization server's public face on 127.0.0.1: metadata and JWKS. Keys made here."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update(kid="k1", use="sig", alg="RS256")
        self.jwks = {"keys": [jwk]}
        self.fetches = 0
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path == "/jwks.json":
                    issuer.fetches += 1
                    body = json.dumps(issuer.jwks).encode()
                elif self.path == "/.well-known/oauth-authorization-server":
                    body = json.dumps({"issuer": issuer.url, "jwks_uri": issuer.url + "/jwks.json"}).encode()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def token(self, *, key: Any = None, headers: dict[str, Any] | None = None, **overrides: Any) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.url,
            "aud": AUDIENCE,
            "sub": "user-1",
            "client_id": "client-1",
            "iat": now,
            "exp": now + 600,
            "scope": "skills:read skills:run",
        }
        claims.update(overrides)
        claims = {k: v for k, v in claims.items() if v is not None}
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers=headers or {"kid": "k1"})

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    i = Issuer()
    try:
        yield i
    finally:
        i.close()


def oauth_config(tmp_path: Path, issuer: Issuer, *, jwks: bool = True) -> Path:
    cfg = tmp_path / "skillyard.toml"
    lines = ["[serve.auth]", f'issuer = "{issuer.url}"', f'audience = "{AUDIENCE}"']
    if jwks:
        lines.append(f'jwks_uri = "{issuer.url}/jwks.json"')
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cfg


@pytest.fixture
def oauth_url(tree: Path, tmp_path: Path, issuer: Issuer) -> Iterator[str]:
    with serving(tree, tmp_path, config=oauth_config(tmp_path, issuer, jwks=False)) as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
async def test_oauth_client(oauth_url: str, issuer: Issuer, mode: str) -> None:
    c, http = client(oauth_url, issuer.token(), mode)
    with anyio.fail_after(60):
        async with http, c:
            assert "skills" in {t.name for t in (await c.list_tools()).tools}
            res = await c.call_tool("read_skill", {"skill_name": "alpha"})
            assert res.content[0].text == "Do the thing."
            res = await c.call_tool("skills", {"action": "install", "skill": "local:/tmp/x"})
            assert res.is_error and "skills:install" in res.content[0].text


def test_oauth_refusals(oauth_url: str, issuer: Issuer) -> None:
    base = oauth_url.removesuffix("/mcp")
    metadata_url = base + "/.well-known/oauth-protected-resource/mcp"
    resp = post(oauth_url)
    assert_401(resp, error=False)
    assert resp.headers["www-authenticate"] == (
        f'Bearer scope="skills:read skills:run", resource_metadata="{metadata_url}"'
    )
    now = int(time.time())
    bad = {
        "expired": issuer.token(exp=now - 3600, iat=now - 7200),
        "wrong audience": issuer.token(aud="https://other.example/mcp"),
        "wrong issuer": issuer.token(iss="https://evil.example"),
        "no exp": issuer.token(exp=None),
        "no aud": issuer.token(aud=None),
        "not yet valid": issuer.token(nbf=now + 3600),
        "bad signature": issuer.token(key=issuer.other),
        "unknown kid": issuer.token(headers={"kid": "k9"}),
        "malformed": "not.a.jwt",
        "alg none": jwt.encode({"iss": issuer.url, "aud": AUDIENCE, "exp": now + 60}, None, algorithm="none"),
    }
    # HS256 with the issuer's public key as the secret: the classic algorithm confusion
    from cryptography.hazmat.primitives import serialization

    pem = issuer.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    import hashlib
    import hmac as hmac_mod

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "k1"}).encode())
    body = b64(
        json.dumps({"iss": issuer.url, "aud": AUDIENCE, "exp": now + 60, "scope": "skills:read"}).encode()
    )
    sig = b64(hmac_mod.new(pem, f"{head}.{body}".encode(), hashlib.sha256).digest())
    bad["alg confusion"] = f"{head}.{body}.{sig}"
    for why, token in bad.items():
        resp = post(oauth_url, {"Authorization": f"Bearer {token}"})
        assert resp.status_code == 401, (why, resp.status_code, resp.text)
        assert 'error="invalid_token"' in resp.headers["www-authenticate"], why
        assert token[-16:] not in resp.text and "Traceback" not in resp.text, why
    no_scope = post(oauth_url, {"Authorization": f"Bearer {issuer.token(scope='profile')}"})
    assert no_scope.status_code == 403
    assert no_scope.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", scope="skills:read", resource_metadata="{metadata_url}"'
    )
    ok = post(oauth_url, {"Authorization": f"Bearer {issuer.token()}"})
    assert ok.status_code == 200, ok.text
    # unknown kids do not make the server fetch the key set on every request
    before = issuer.fetches
    for _ in range(5):
        assert (
            post(oauth_url, {"Authorization": f"Bearer {issuer.token(headers={'kid': 'k-x'})}"}).status_code
            == 401
        )
    assert issuer.fetches - before <= 1


def test_protected_resource_metadata(oauth_url: str, issuer: Issuer) -> None:
    base = oauth_url.removesuffix("/mcp")
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        resp = httpx2.get(base + path, timeout=30)
        assert resp.status_code == 200, path
        doc = resp.json()
        assert doc["resource"] == oauth_url
        assert doc["authorization_servers"] == [issuer.url]
        assert doc["scopes_supported"] == ["skills:read", "skills:run", "skills:install"]
        assert doc["bearer_methods_supported"] == ["header"]
    assert httpx2.post(base + "/.well-known/oauth-protected-resource", timeout=30).status_code == 405


def test_oauth_config_refusals(tree: Path, tmp_path: Path, issuer: Issuer) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('[serve.auth]\nissuer = "http://auth.example"\naudience = "x"\n', encoding="utf-8")
    assert "https" in refused(tree, tmp_path, config=cfg)
    cfg.write_text(f'[serve.auth]\nissuer = "{issuer.url}"\n', encoding="utf-8")
    assert "issuer and audience go together" in refused(tree, tmp_path, config=cfg)
    cfg.write_text(
        f'[serve.auth]\nissuer = "{issuer.url}"\naudience = "x"\nalgorithms = ["HS256"]\n', encoding="utf-8"
    )
    assert "serve.auth.algorithms" in refused(tree, tmp_path, config=cfg)
    cfg.write_text('[serve]\nallowed_host = ["x"]\n', encoding="utf-8")
    assert "serve.allowed_host" in refused(tree, tmp_path, config=cfg)


def test_private_token_file_is_read_once(tmp_path: Path) -> None:
    """Only digests stay in memory: the verifier holds no token text."""
    from skillyard.mcp.auth import load_token_file

    f = token_file(tmp_path, f"{FULL} skills:read\n")
    verifier = load_token_file(f)
    assert FULL not in repr(vars(verifier)) and FULL.encode() not in repr(verifier._entries).encode()
    got = verifier.lookup(FULL)
    assert got is not None and got.scopes == ["skills:read"] and FULL not in got.token
    assert verifier.lookup(FULL + "x") is None
    os.chmod(f, 0o640)
    from skillyard.mcp.auth import AuthSetupError

    with pytest.raises(AuthSetupError):
        load_token_file(f)


def test_session_belongs_to_its_token(static_url: str) -> None:
    """A 2025-11-25 session opened with one token cannot be used with another (answered as if unknown)."""
    opened = post(static_url, {"Authorization": f"Bearer {FULL}"})
    assert opened.status_code == 200
    sid = opened.headers["mcp-session-id"]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    proto = {"mcp-protocol-version": "2025-11-25", "mcp-session-id": sid}
    stolen = post(static_url, {"Authorization": f"Bearer {READER}", **proto}, body=listing)
    assert stolen.status_code == 404, stolen.text
    own = post(static_url, {"Authorization": f"Bearer {FULL}", **proto}, body=listing)
    assert own.status_code in (200, 202), own.text


def test_two_stateless_replicas(tree: Path, tmp_path: Path) -> None:
    """Behind a round-robin balancer: a 2025-11-25 client opens on one replica and goes on on the other."""
    f = token_file(tmp_path, FULL + "\n")
    with (
        serving(tree, tmp_path, "--stateless", "--auth-token-file", str(f)) as a,
        serving(tree, tmp_path, "--stateless", "--auth-token-file", str(f)) as b,
    ):
        auth = {"Authorization": f"Bearer {FULL}"}
        opened = post(a, auth)
        assert opened.status_code == 200 and "mcp-session-id" not in opened.headers
        proto = {**auth, "mcp-protocol-version": "2025-11-25"}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "skills", "arguments": {"action": "list"}},
        }
        for url in (b, a, b):
            resp = post(url, proto, body=call)
            assert resp.status_code == 200, resp.text
            assert "pdf-tools" in resp.text
        assert_401(post(b), error=False)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    token=st.one_of(
        st.text(max_size=300),
        st.lists(
            st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", max_size=60),
            min_size=1,
            max_size=4,
        ).map(".".join),
        st.dictionaries(
            st.sampled_from(["alg", "kid", "typ", "crit", "jku"]),
            st.one_of(st.text(max_size=10), st.integers(), st.none()),
            max_size=4,
        ).map(
            lambda h: (
                __import__("base64").urlsafe_b64encode(json.dumps(h).encode()).rstrip(b"=").decode()
                + ".e30.c2ln"
            )
        ),
    )
)
def test_jwt_verifier_never_raises(issuer: Issuer, token: str) -> None:
    """Whatever arrives as a token, the OAuth verifier answers None (refused), never an exception."""
    from skillyard.mcp.auth import JwtVerifier

    verifier = JwtVerifier(issuer=issuer.url, audience=AUDIENCE, jwks_uri=issuer.url + "/jwks.json")
    assert verifier.verify_sync(token) is None
    assert verifier.verify_sync(issuer.token()) is not None


def test_event_stream_ends_with_its_token(oauth_url: str, issuer: Issuer) -> None:
    """A 2025-11-25 client's GET event stream ends when the token it was opened with expires; the
    client then opens a new one with a fresh token on the same session."""
    short = issuer.token(exp=int(time.time()) + 4)
    opened = post(oauth_url, {"Authorization": f"Bearer {short}"})
    assert opened.status_code == 200, opened.text
    session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(oauth_url, {"Authorization": f"Bearer {short}", **session}, body=ready).status_code == 202
    listen = {"accept": "text/event-stream", **session}
    began = time.monotonic()
    # before the token expires the stream is silent; a read timeout longer than the token's life
    # (and shorter than the server's keep-alive pings) fails a stream that outlives it
    timeout = httpx2.Timeout(30, read=12)
    with httpx2.stream(
        "GET", oauth_url, headers={"Authorization": f"Bearer {short}", **listen}, timeout=timeout
    ) as s:
        assert s.status_code == 200
        try:
            for _ in s.iter_raw():
                pass
        except httpx2.RemoteProtocolError:
            pass  # the server closed the connection mid-stream: ended all the same
    assert time.monotonic() - began < 25, "the stream outlived its token"
    fresh = {"Authorization": f"Bearer {issuer.token()}", **listen}
    with httpx2.stream("GET", oauth_url, headers=fresh, timeout=timeout) as again:
        assert again.status_code == 200  # not 409: the expired stream released the session's slot


def test_metadata_never_names_a_host_the_server_refuses(oauth_url: str) -> None:
    """Without a configured `resource`, the resource URL comes from the Host header: only a Host the
    DNS-rebinding check serves may appear in the metadata or in a challenge."""
    base = oauth_url.removesuffix("/mcp")
    prm = base + "/.well-known/oauth-protected-resource/mcp"
    resp = httpx2.get(prm, headers={"Host": "attacker.example"}, timeout=30)
    assert resp.status_code == 400 and "attacker" not in resp.text
    challenge = post(oauth_url, {"Host": "attacker.example"})
    assert challenge.status_code == 401
    assert "attacker" not in challenge.headers["www-authenticate"]
    port = oauth_url.rsplit(":", 1)[1].split("/")[0]
    ok = httpx2.get(prm, headers={"Host": f"localhost:{port}"}, timeout=30)
    assert ok.status_code == 200 and ok.json()["resource"] == f"http://localhost:{port}/mcp"


def test_issuer_metadata_nested_past_the_decoder_is_no_jwks_uri() -> None:
    """Metadata of `[` a hundred thousand deep made the JSON decoder raise RecursionError, which
    no caller expected; it is metadata without a usable `jwks_uri`, like any other bad answer."""
    from skillyard.mcp.auth import AuthSetupError, discover_jwks_uri

    class Deep(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            body = b"[" * 100_000
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Deep)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with pytest.raises(AuthSetupError, match="no usable jwks_uri"):
            discover_jwks_uri(f"http://127.0.0.1:{httpd.server_address[1]}")
    finally:
        httpd.shutdown()
        httpd.server_close()
