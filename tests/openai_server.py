"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1, for driving real clients without a model.

It speaks the Chat Completions wire format over real HTTP, streamed (server-sent
events, text and tool-call arguments split across chunks) or whole, and plays
the model's side from a script: each request gets the next reply. Every request
body is kept, so a test can check what the client sent back (tool results,
system message, tools).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One model answer: text, tool calls `(name, arguments text)`, or an HTTP error; `delay` before it."""

    content: str | None = None
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    status: int = 200
    delay: float = 0.0
    #: seconds to stall after the first streamed chunk (a server that stops mid-answer)
    stall: float = 0.0


#: script(request body, request index) -> the reply
Script = Callable[[dict[str, Any], int], Reply]


def scripted(replies: list[Reply]) -> Script:
    """Replies in order; past the end, the last one again (a model that never stops)."""

    def script(_body: dict[str, Any], index: int) -> Reply:
        return replies[min(index, len(replies) - 1)]

    return script


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class ChatServer:
    """`with ChatServer(script) as server:` serves on `server.url` (…/v1) until the block ends."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send_json(404, {"error": {"message": "not found"}})
                    return
                with outer._lock:
                    index = len(outer.requests)
                    outer.requests.append(body)
                reply = outer.script(body, index)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send_json(
                        reply.status, {"error": {"message": "scripted failure", "type": "server_error"}}
                    )
                    return
                if body.get("stream"):
                    self._stream(body, reply, index)
                else:
                    self._send_json(200, _completion(body, reply, index))

            def _send_json(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                self.wfile.write(raw)

            def _stream(self, body: dict[str, Any], reply: Reply, index: int) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for i, chunk in enumerate(_chunks(body, reply, index)):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if i == 0 and reply.stall:
                        time.sleep(reply.stall)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # one request per connection, and closing waits for every handler: no thread outlives the server
        self._server.daemon_threads = False
        self._server.block_on_close = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def _calls(reply: Reply, index: int) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{index}_{i}", "type": "function", "function": {"name": name, "arguments": args}}
        for i, (name, args) in enumerate(reply.tool_calls)
    ]


def _completion(body: dict[str, Any], reply: Reply, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = _calls(reply, index)
    return {
        "id": f"chatcmpl-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "test"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _chunks(body: dict[str, Any], reply: Reply, index: int) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{index}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model", "test"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.content:
        out += [chunk({"content": piece}) for piece in _pieces(reply.content)]
    for i, call in enumerate(_calls(reply, index)):
        fn = call["function"]
        first = {
            "index": i,
            "id": call["id"],
            "type": "function",
            "function": {"name": fn["name"], "arguments": ""},
        }
        out.append(chunk({"tool_calls": [first]}))
        out += [
            chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
            for piece in _pieces(fn["arguments"])
        ]
    out.append(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
    return out
