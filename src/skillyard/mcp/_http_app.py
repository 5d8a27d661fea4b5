"""The streamable-HTTP app skillyard serves: one SDK session manager per protocol era.

The SDK answers a 2026-07-28 request with one JSON body unless its handler
sends a notification first (then the answer becomes an SSE stream). Its
handshake-era path instead answers every POST with an SSE stream, which
costs a response task group, a disconnect listener, a writer task and memory
streams per call: the main reason 2025-era clients were slower than
2026-era ones (docs/mcp.md, "Measured"; `benchmarks/bench_http.py
--compare-sse`).

skillyard sends nothing request-scoped to a handshake-era client: its log
messages go on the connection's GET stream, and it asks the client nothing
(no sampling, no elicitation). So handshake-era requests go to a session
manager made with `json_response=True`, 2026-07-28 requests to one made
without it (their per-request log messages need the stream). Requests are
routed by the `MCP-Protocol-Version` header, the rule the SDK's own manager
routes eras by. `handshake_json=False` keeps the SSE answers for servers that
do send request-scoped messages to those clients.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

_VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower().encode("ascii")


def is_handshake_era(scope: Scope) -> bool:
    """A request without the version header, or naming a handshake version, belongs to the 2025 era."""
    for key, value in scope.get("headers", ()):
        if key == _VERSION_HEADER:
            return value.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS
    return True


class EraRouter:
    """ASGI: each request to the session manager of its protocol era."""

    def __init__(self, handshake: StreamableHTTPSessionManager, modern: StreamableHTTPSessionManager) -> None:
        self.handshake = StreamableHTTPASGIApp(handshake)
        self.modern = StreamableHTTPASGIApp(modern)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self.handshake if is_handshake_era(scope) else self.modern
        await app(scope, receive, send)


def era_app(
    server: Any,
    *,
    path: str = "/mcp",
    stateless: bool = False,
    security: TransportSecuritySettings | None = None,
    handshake_json: bool = True,
    modern_json: bool = False,
    on_shutdown: Callable[[], None] | None = None,
    **manager_options: Any,
) -> tuple[Starlette, StreamableHTTPSessionManager]:
    """The Starlette app for the low-level `server`, and the handshake-era manager (sessions live there);
    `on_shutdown` runs when the app's lifespan ends, however the ASGI server was stopped."""

    def manager(json_response: bool) -> StreamableHTTPSessionManager:
        return StreamableHTTPSessionManager(
            app=server,
            json_response=json_response,
            stateless=stateless,
            security_settings=security,
            **manager_options,
        )

    handshake, modern = manager(handshake_json), manager(modern_json)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            async with handshake.run(), modern.run():
                yield
        finally:
            if on_shutdown is not None:
                on_shutdown()

    app = Starlette(routes=[Route(path, endpoint=EraRouter(handshake, modern))], lifespan=lifespan)
    return app, handshake
