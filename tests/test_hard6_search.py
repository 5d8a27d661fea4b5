"""An OpenAI-compatible embeddings endpoint on 127.0.0.1 that answers a byte at a time, or too much:
the request has one deadline in all and a size cap, and search falls back to lexical and says why."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from skillyard.model import Skill
from skillyard.search import SearchIndex, _embed, make_embedder

#: How long the server keeps trickling when nobody hangs up (the client's deadline is 1 s).
TRICKLE_SECONDS = 6.0


class _Trickler:
    """Answers a batch of texts at once and a single text (a query) one byte every 0.2 s, in the
    status line and headers (`where="head"`) or in the body (`where="body"`); notes whether the
    client hung up before the trickle ended."""

    def __init__(self, where: str) -> None:
        self.hung_up = threading.Event()
        self.done = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                inputs = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["input"]
                answer = json.dumps(
                    {"data": [{"index": i, "embedding": [1.0, 0.5]} for i in range(len(inputs))]}
                ).encode()
                if len(inputs) > 1:
                    self._send(answer)
                    return
                if where == "head":
                    drip = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"x" * 1000
                else:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                    drip = b" " * 1000
                try:
                    end = time.monotonic() + TRICKLE_SECONDS
                    for byte in drip:
                        if time.monotonic() > end:
                            break
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.2)
                except OSError:
                    server.hung_up.set()
                finally:
                    server.done.set()
                    self.close_connection = True

            def _send(self, out: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def skills(tmp_path: Path) -> list[Skill]:
    out = []
    for name in ("alpha-tool", "beta-tool"):
        (tmp_path / name).mkdir()
        path = tmp_path / name / "SKILL.md"
        path.write_text(f"---\nname: {name}\ndescription: does {name} things\n---\nbody\n")
        out.append(Skill(name=name, description=f"does {name} things", path=path))
    return out


@pytest.fixture
def one_second(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_embed, "HTTP_TIMEOUT", 1.0)


@pytest.mark.parametrize("where", ["head", "body"])
def test_a_trickling_answer_is_cut_at_the_deadline_and_search_stays_lexical(
    skills: list[Skill], one_second: None, where: str
) -> None:
    server = _Trickler(where)
    try:
        ix = SearchIndex(skills, embedder=make_embedder("openai:toy", base_url=server.url, api_key="k"))
        ix.embed_skills()
        assert ix.semantic_ready(), ix.semantic_error
        assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]
        assert ix.semantic_error and "no complete answer within 1 seconds" in ix.semantic_error
        assert server.done.wait(TRICKLE_SECONDS + 5)
        assert server.hung_up.is_set()  # the client left before the trickle ended
    finally:
        server.httpd.shutdown()


def test_an_answer_over_the_size_cap_is_refused(skills: list[Skill], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_embed, "MAX_ANSWER_BYTES", 200)
    server = _Trickler("body")
    try:
        ix = SearchIndex(skills, embedder=make_embedder("openai:toy", base_url=server.url, api_key="k"))
        ix.embed_skills()  # eight texts: an answer of several hundred bytes
        assert ix.semantic_error and "longer than 200 bytes" in ix.semantic_error
        assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]
    finally:
        server.httpd.shutdown()


def test_a_plain_answer_still_embeds(skills: list[Skill], one_second: None) -> None:
    server = _Trickler("body")
    try:
        embedder = make_embedder("openai:toy", base_url=server.url, api_key="k")
        assert embedder is not None
        assert embedder.embed(["a", "b"]) == [[1.0, 0.5], [1.0, 0.5]]
    finally:
        server.httpd.shutdown()
