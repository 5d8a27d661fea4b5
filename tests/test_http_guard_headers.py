"""The HTTP transport's body guard, called as the ASGI server calls it, with Content-Length values
that pass `str.isdigit` but are no length: answered by the app, never an exception (a 500)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from skillyard.mcp._http_guard import MalformedBodyGuard


@pytest.mark.parametrize("length", [b"1\xb2", b"9" * 5000, b"\xb9\xb2"])
def test_a_content_length_that_is_no_number_reaches_the_app(length: bytes) -> None:
    reached: list[dict[str, Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append(scope)

    guard = MalformedBodyGuard(app, path="/mcp")
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
            (b"content-length", length),
        ],
    }

    async def receive() -> dict[str, Any]:
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        pass

    anyio.run(guard, scope, receive, send)
    assert len(reached) == 1
