"""The bearer-token gate guards every request target the HTTP server answers, whatever its spelling.

A real `skillyard serve --transport http` with a token file, on 127.0.0.1; the request line is written
byte for byte on a socket (an HTTP client would normalise it), with an MCP initialize body and no token.
Nothing but a 401 comes back: no spelling of the MCP path (a trailing slash, `//mcp`, percent-encoding,
case, dot segments, parameters, the absolute form) reaches the transport unauthenticated.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from test_mcp_auth import FULL, token_file
from test_mcp_support import INIT, make_tree, serving

TARGETS = [
    "/mcp",
    "/mcp/",
    "//mcp",
    "//mcp/",
    "/mcp//",
    "/%6dcp",
    "/%6Dcp",
    "/%2fmcp",
    "/MCP",
    "/Mcp/",
    "/./mcp",
    "/x/../mcp",
    "/mcp;x",
    "/mcp?x=1",
    "/mcp#x",
    "/mcp%00",
    "/mcp%20",
    "/.well-known/oauth-protected-resource/../../mcp",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
    "/",
    "*",
]


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    tmp = tmp_path_factory.mktemp("auth-paths")
    f = token_file(tmp, f"{FULL} skills:read skills:run skills:install\n")
    with serving(make_tree(tmp / "skills"), tmp, "--auth-token-file", str(f)) as url:
        yield int(url.split(":")[2].split("/")[0])


def raw(port: int, target: str, headers: str = "") -> tuple[int, bytes]:
    body = json.dumps(INIT).encode()
    request = (
        f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{headers}Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    reply = b"".join(chunks)
    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
    return status, reply


@pytest.mark.parametrize("target", [*TARGETS, "http://127.0.0.1:{port}/mcp"])
def test_no_spelling_of_the_path_is_served_without_a_token(port: int, target: str) -> None:
    status, reply = raw(port, target.format(port=port))
    assert status in (0, 400, 401), (target, reply[:300])  # 400/0: refused by the HTTP parser itself
    assert b"serverInfo" not in reply and b"protocolVersion" not in reply, target


def test_the_token_is_what_lets_a_request_through(port: int) -> None:
    """The check above can fail: the same request with the token is served."""
    status, reply = raw(port, "/mcp", f"Authorization: Bearer {FULL}\r\n")
    assert status == 200 and b"serverInfo" in reply, reply[:300]
