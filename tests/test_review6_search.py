"""An OpenAI-compatible embeddings endpoint (a real server on 127.0.0.1) that answers with an integer
JSON holds but no float does: the embedder raises its own error, which search reports, not an
OverflowError from the finiteness check."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from skillyard.search import EmbedderError, make_embedder


@pytest.fixture
def huge_integer_server() -> Iterator[str]:
    body = b'{"data": [{"index": 0, "embedding": [1' + b"0" * 400 + b", 1.0, 0.5]}]}"

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def test_an_integer_too_large_for_a_float_is_an_embedder_error(huge_integer_server: str) -> None:
    embedder = make_embedder("openai:text-embedding-3-small", base_url=huge_integer_server, api_key="k")
    with pytest.raises(EmbedderError, match="finite numbers"):
        embedder.embed(["a query"])
