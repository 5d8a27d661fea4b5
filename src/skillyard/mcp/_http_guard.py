"""Malformed POST bodies on streamable HTTP: answered 400 with the JSON-RPC error the stdio wire gives.

The SDK already answers invalid JSON with -32700, but on the handshake-era
transport a request whose `id` is an object or null is taken for a
notification (202 Accepted, and the client waits for a reply that never
comes), and a batch, a scalar or `"params": "str"` get -32602 with id null and
pydantic's text; the 2026-07-28 entry says -32600 with id null for all of
them. This ASGI middleware classifies the body with `skillyard.mcp._framing`
and answers what it rejects; everything else reaches the SDK untouched (the
body is replayed, so the SDK's own checks and limits still apply).

Order is kept: a request the SDK's Accept, Host, Origin or Content-Type
checks would refuse, or a body over the SDK's size limit, is passed through
unread so the SDK refuses it as before.

Time is bounded too. uvicorn waits forever for a request head that never ends
(slowloris: a few bytes now and then hold a connection, and a file
descriptor, without any token), so `uvicorn_config` gives `serve` a protocol
that closes a connection with no request in flight for a whole
`HEAD_TIMEOUT_S`; and a body must arrive within `BODY_TIMEOUT_S`.
"""

from __future__ import annotations

import os
import socket
import struct
from collections import deque
from typing import Any, Final

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp_types import INVALID_REQUEST
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from skillyard.mcp._framing import MAX_LINE_BYTES, Rejection, classify, error_reply

BAD_REQUEST: Final = 400
REQUEST_TIMEOUT: Final = 408
#: seconds a connection may go with no request in flight (a request head that never ends)
HEAD_TIMEOUT_S: Final = 10.0
#: seconds a POST body may take to arrive
BODY_TIMEOUT_S: Final = 30.0


def peer_uid(sock: Any) -> int | None:
    """The uid owning the other end of a TCP connection from this host (Linux's /proc/net/tcp and tcp6
    list every socket of this network namespace with its owner); -1 when it is not there, None when
    this system cannot tell."""

    def key(addr: tuple[Any, ...], v4: bool = False) -> str:  # as those files print it: host-order words, hex
        ip, port = addr[0], addr[1]
        ip = ip.removeprefix("::ffff:") if v4 and "." in ip else ip  # an IPv4 client of a dual-stack socket
        packed = socket.inet_pton(socket.AF_INET6 if ":" in ip else socket.AF_INET, ip)
        words = struct.unpack(f"={len(packed) // 4}I", packed)
        return "".join(f"{w:08X}" for w in words) + f":{port:04X}"

    try:
        pairs = {(key(sock.getpeername(), v4), key(sock.getsockname(), v4)) for v4 in (False, True)}
    except (OSError, ValueError, IndexError):
        return -1
    found = False
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name, encoding="ascii", errors="replace") as f:
                found = True
                for line in f:
                    fields = line.split()
                    if len(fields) > 9 and (fields[1], fields[2]) in pairs:  # closed: uid 0, inode 0
                        return int(fields[7]) if fields[9] != "0" else -1
        except OSError:
            continue
    return -1 if found else None


_OTHER_USER = b"another user's skillyard server: only the user who started it (or root) may connect\n"


def uvicorn_config(app: ASGIApp, host: str, port: int, log_level: str, *, same_user: bool = False) -> Any:
    """The uvicorn settings `skillyard serve` runs with: its HTTP protocol, with a deadline per request head;
    with `same_user` (loopback without authentication), a connection from another local user is refused."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class DeadlineProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        """Every HEAD_TIMEOUT_S, a connection that started no new request since the last look is closed
        (a request being answered, a long stream included, is never cut)."""

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if same_user and peer_uid(transport.get_extra_info("socket")) not in (None, 0, os.geteuid()):
                head = f"HTTP/1.1 403 Forbidden\r\ncontent-length: {len(_OTHER_USER)}\r\nconnection: close\r\n\r\n"
                transport.write(head.encode() + _OTHER_USER)
                transport.close()
                return
            self.loop.call_later(HEAD_TIMEOUT_S, self._look, None)

        def _look(self, last: object) -> None:
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if (cycle is None or cycle.response_complete) and cycle is last:
                self.transport.close()
                return
            self.loop.call_later(HEAD_TIMEOUT_S, self._look, cycle)

    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, server_header=False, http=DeadlineProtocol
    )


class MalformedBodyGuard:
    """ASGI middleware: a POST to `path` whose body framing rejects gets 400 and its JSON-RPC error."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        path: str,
        security: TransportSecuritySettings | None = None,
        max_body_bytes: int = MAX_LINE_BYTES,
        json_response: bool = False,
    ) -> None:
        self.app = app
        self.json_response = json_response
        self.path = path
        self.security = TransportSecurityMiddleware(security)
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if not await self._sdk_would_read_body(request):
            await self.app(scope, receive, send)  # the SDK refuses it itself, as it always did
            return
        seen: deque[Message] = deque()
        body = bytearray()
        with anyio.move_on_after(BODY_TIMEOUT_S) as deadline:
            while True:
                message = await receive()
                seen.append(message)
                if message["type"] != "http.request":
                    break
                body += message.get("body", b"")
                if len(body) > self.max_body_bytes or not message.get("more_body", False):
                    break
        if deadline.cancelled_caught:
            await Response("request body not received in time", REQUEST_TIMEOUT)(scope, receive, send)
            return
        complete = bool(seen) and seen[-1]["type"] == "http.request" and not seen[-1].get("more_body", False)
        if complete and len(body) <= self.max_body_bytes:
            outcome = classify(bytes(body))
            if isinstance(outcome, Rejection):
                reply = outcome.reply or error_reply(
                    None, INVALID_REQUEST, f"Invalid Request: {outcome.reason}"
                )
                data = reply.model_dump_json(by_alias=True, exclude_unset=True)
                await Response(data, status_code=BAD_REQUEST, media_type="application/json")(
                    scope, receive, send
                )
                return

        async def replay() -> Message:
            return seen.popleft() if seen else await receive()

        await self.app(scope, replay, send)

    async def _sdk_would_read_body(self, request: Request) -> bool:
        """Whether the request passes the SDK's checks made before the body (Accept, Host, Origin, size)."""
        has_json, has_sse = check_accept_headers(request)
        if not has_json or not (has_sse or self.json_response):
            return False
        declared = request.headers.get("content-length", "")  # `1²` or 5,000 digits: no int() of it
        if (
            declared.isascii()
            and declared.isdigit()
            and (len(declared) > 18 or int(declared) > self.max_body_bytes)
        ):
            return False
        return await self.security.validate_request(request, is_post=True) is None
