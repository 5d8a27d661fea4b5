"""Malformed messages to `skillyard serve` over stdio: each gets its JSON-RPC error and the server keeps serving.

A real server subprocess on real pipes; every test follows its malformed line
with a valid request on the same connection and checks that it is answered,
and that nothing else came back in between.
"""

from __future__ import annotations

import http.client
import itertools
import json
import queue
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.mcp._framing import (
    ID_PREFIX_BYTES,
    MAX_LINE_BYTES,
    LineSplitter,
    Oversized,
    Rejection,
    classify,
    leading_id,
)
from test_mcp_support import PYTHON, make_tree, subprocess_env

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}


class Wire:
    """A `skillyard serve` subprocess spoken to line by line; replies are read by a thread into a queue."""

    def __init__(self, tree: Path, home: Path) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "skillyard", "--root", str(tree), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=subprocess_env(home),
            cwd=str(tree.parent),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self._ids = itertools.count(1)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def next_id(self) -> int:
        return next(self._ids)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message).encode())

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        """The next message from the server that is not a notification."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line, f"server closed stdout (exit code {self.proc.poll()})"
            message = json.loads(line)
            if "id" in message:
                return message

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        rid = self.next_id()
        self.send_json(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": method,
                **({"params": params} if params is not None else {}),
            }
        )
        reply = self.recv()
        assert reply["id"] == rid, reply
        return reply

    def handshake(self) -> None:
        reply = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        assert "result" in reply, reply
        self.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def still_serving(self) -> None:
        """A valid request right after is answered, and is the very next reply."""
        reply = self.request("tools/list")
        assert "skills" in {t["name"] for t in reply["result"]["tools"]}
        assert self.proc.poll() is None

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    base = tmp_path_factory.mktemp("mcp-errors")
    w = Wire(make_tree(base / "skills"), base / "home")
    try:
        w.handshake()
        yield w
    finally:
        assert w.close() == 0


def expect_error(wire: Wire, line: bytes, code: int, rid: int | str | None) -> dict[str, Any]:
    wire.send(line)
    reply = wire.recv()
    assert reply["error"]["code"] == code, reply
    assert "id" in reply and reply["id"] == rid, reply
    assert reply["jsonrpc"] == "2.0" and "result" not in reply
    wire.still_serving()
    return reply


def line_of(**fields: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


# ---------------------------------------------------------------- -32700


def test_invalid_json_is_a_parse_error(wire: Wire) -> None:
    expect_error(wire, b'{"jsonrpc": "2.0", "id": 1, "method": ', PARSE_ERROR, None)


def test_invalid_utf8_is_a_parse_error(wire: Wire) -> None:
    rid = wire.next_id()
    line = b'{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{"x":"\xff\xfe"}}}' % rid
    expect_error(wire, line, PARSE_ERROR, None)


def test_deep_nesting_is_a_parse_error(wire: Wire) -> None:
    expect_error(wire, b"[" * 100_000, PARSE_ERROR, None)


def test_deep_nesting_inside_a_request_is_a_parse_error(wire: Wire) -> None:
    rid = wire.next_id()
    line = b'{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"x":%s}}' % (
        rid,
        b"[" * 5000 + b"]" * 5000,
    )
    expect_error(wire, line, PARSE_ERROR, None)


def test_nan_is_a_parse_error(wire: Wire) -> None:
    expect_error(wire, b'{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}', PARSE_ERROR, None)


# ---------------------------------------------------------------- -32600


def test_empty_batch_is_an_invalid_request(wire: Wire) -> None:
    expect_error(wire, b"[]", INVALID_REQUEST, None)


def test_batch_is_an_invalid_request_and_its_members_are_not_run(wire: Wire) -> None:
    rid = wire.next_id()
    reply = expect_error(wire, b"[" + line_of(id=rid, method="tools/list") + b"]", INVALID_REQUEST, None)
    assert "batch" in reply["error"]["message"]


@pytest.mark.parametrize("value", [b"42", b'"tools/list"', b"null", b"true"])
def test_a_scalar_is_an_invalid_request(wire: Wire, value: bytes) -> None:
    expect_error(wire, value, INVALID_REQUEST, None)


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], True, 1.5, None])
def test_an_id_that_is_not_a_string_or_integer_is_an_invalid_request(wire: Wire, bad_id: Any) -> None:
    expect_error(wire, line_of(id=bad_id, method="tools/list"), INVALID_REQUEST, None)


@pytest.mark.parametrize("version", ["1.0", 2.0, None])
def test_wrong_jsonrpc_version_is_an_invalid_request(wire: Wire, version: Any) -> None:
    rid = wire.next_id()
    line = json.dumps({"jsonrpc": version, "id": rid, "method": "tools/list"}).encode()
    expect_error(wire, line, INVALID_REQUEST, rid)


def test_missing_jsonrpc_is_an_invalid_request(wire: Wire) -> None:
    rid = wire.next_id()
    expect_error(wire, json.dumps({"id": rid, "method": "tools/list"}).encode(), INVALID_REQUEST, rid)


@pytest.mark.parametrize("method", [5, None, ["tools/list"]])
def test_method_that_is_not_a_string_is_an_invalid_request(wire: Wire, method: Any) -> None:
    rid = f"req-{wire.next_id()}"
    expect_error(wire, line_of(id=rid, method=method), INVALID_REQUEST, rid)


def test_an_id_without_a_method_is_an_invalid_request(wire: Wire) -> None:
    rid = wire.next_id()
    expect_error(wire, line_of(id=rid), INVALID_REQUEST, rid)


def test_oversized_line_is_rejected_with_its_id_and_not_buffered(wire: Wire) -> None:
    rid = wire.next_id()
    filler = "x" * (16 * MAX_LINE_BYTES)
    line = line_of(id=rid, method="tools/call", params={"name": "skills", "arguments": {"q": filler}})
    before = _peak_rss_kib(wire.proc.pid)
    reply = expect_error(wire, line, INVALID_REQUEST, rid)
    assert "exceeds" in reply["error"]["message"]
    grown = _peak_rss_kib(wire.proc.pid) - before
    assert grown * 1024 < 4 * MAX_LINE_BYTES, f"peak RSS grew by {grown} KiB for a {len(line)}-byte line"


def test_oversized_line_without_a_readable_id_gets_id_null(wire: Wire) -> None:
    expect_error(wire, b'{"params":' + b" " * (MAX_LINE_BYTES + 10) + b"{}}", INVALID_REQUEST, None)


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


# ---------------------------------------------------------------- -32602 and -32601


@pytest.mark.parametrize("params", ["str", [1, 2], 7, True])
def test_params_that_are_not_an_object_are_invalid_params(wire: Wire, params: Any) -> None:
    rid = wire.next_id()
    expect_error(wire, line_of(id=rid, method="tools/call", params=params), INVALID_PARAMS, rid)


def test_params_of_the_wrong_shape_inside_are_invalid_params(wire: Wire) -> None:
    rid = f"call-{wire.next_id()}"
    expect_error(wire, line_of(id=rid, method="tools/call", params={"name": 5}), INVALID_PARAMS, rid)


def test_unknown_method_is_method_not_found(wire: Wire) -> None:
    rid = wire.next_id()
    expect_error(wire, line_of(id=rid, method="skillyard/no-such-method"), METHOD_NOT_FOUND, rid)


# ---------------------------------------------------------------- no reply owed


@pytest.mark.parametrize(
    "line",
    [
        line_of(method="notifications/initialized", params="str"),
        json.dumps({"jsonrpc": "1.0", "method": "notifications/initialized"}).encode(),
        line_of(id=424242, result="not an object"),
        line_of(id={"a": 1}, error={"code": "x"}),
        line_of(error={"code": -1, "message": "no id"}),
        b"   ",
    ],
)
def test_malformed_notifications_and_responses_get_no_reply(wire: Wire, line: bytes) -> None:
    wire.send(line)
    wire.still_serving()  # its reply is the very next one: nothing was answered in between


def test_request_split_across_writes_is_answered(wire: Wire) -> None:
    rid = wire.next_id()
    line = line_of(id=rid, method="ping")
    assert wire.proc.stdin is not None
    for part in (line[:5], line[5:17], line[17:]):
        wire.proc.stdin.write(part)
        wire.proc.stdin.flush()
        time.sleep(0.05)
    wire.send(b"")
    assert wire.recv() == {"jsonrpc": "2.0", "id": rid, "result": {}}


def test_modern_connection_gets_the_same_errors(tmp_path: Path) -> None:
    """The framing sits before the SDK's era detection: a 2026-07-28 client gets the same replies."""
    w = Wire(make_tree(tmp_path / "skills"), tmp_path / "home")
    try:
        w.send(b"{oops")  # before any request: must not decide or disturb the era
        assert w.recv()["error"]["code"] == PARSE_ERROR
        rid = w.next_id()
        w.send(line_of(id=rid, method="tools/list", params={"_meta": MODERN_META}))
        assert "tools" in w.recv()["result"]
        w.send(line_of(id="m1", method="tools/call", params="str"))
        assert w.recv() == {
            "jsonrpc": "2.0",
            "id": "m1",
            "error": {"code": INVALID_PARAMS, "message": "Invalid params: params must be an object"},
        }
        w.send(b"[]")
        assert w.recv()["error"]["code"] == INVALID_REQUEST
        w.send(line_of(id="m2", method="tools/list", params={"_meta": MODERN_META}))
        reply = w.recv()
        assert reply["id"] == "m2" and "tools" in reply["result"], reply
    finally:
        assert w.close() == 0


def test_last_line_without_newline_is_answered_before_exit(tmp_path: Path) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "skillyard", "--root", str(make_tree(tmp_path / "skills")), "serve"],
        input=b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":%s}}\n[]\n{"jsonrpc":"2.0","id":2'
        % json.dumps(MODERN_META).encode(),
        capture_output=True,
        env=subprocess_env(tmp_path / "home"),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted((r["id"] is None, r.get("error", {}).get("code")) for r in replies) == [
        (False, None),
        (True, PARSE_ERROR),
        (True, INVALID_REQUEST),
    ]


# ---------------------------------------------------------------- the framing on its own


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\n", b"")), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=12),
    limit=st.integers(min_value=1, max_value=400),
)
def test_splitter_gives_the_same_lines_however_the_bytes_arrive(
    lines: list[bytes], cuts: list[int], limit: int
) -> None:
    data = b"".join(line + b"\n" for line in lines)
    splitter = LineSplitter(limit)
    got: list[bytes | Oversized] = []
    at = 0
    for cut in sorted(c for c in cuts if c < len(data)):
        got += splitter.feed(data[at:cut])
        at = cut
    got += splitter.feed(data[at:])
    got += splitter.close()
    want = [
        Oversized(line[:ID_PREFIX_BYTES]) if len(line) > limit else line for line in lines if line.strip()
    ]
    assert [g.prefix[:limit] if isinstance(g, Oversized) else g for g in got] == [
        w.prefix[:limit] if isinstance(w, Oversized) else w for w in want
    ]


def test_leading_id_reads_the_id_before_a_truncated_value() -> None:
    assert leading_id(b'{"jsonrpc": "2.0", "id": 17, "method": "x", "params": {"q": "xxxx') == 17
    assert leading_id(b'{"id":"a\\"b","params":[') == 'a"b'
    assert leading_id('{"jsonrpc":"2.0","id":"é'.encode()[:-1]) is None  # the id itself is cut
    assert leading_id(b'{"params": {"id": 3}, "id') is None  # a nested id is not the request's
    assert leading_id(b'{"id": true, "method": "x"') is None
    assert leading_id(b'["id", 1]') is None


def test_classify_rejections_carry_no_reply_for_responses() -> None:
    for line in (b'{"jsonrpc":"2.0","id":1,"result":[]}', b'{"id":{},"error":5}'):
        outcome = classify(line)
        assert isinstance(outcome, Rejection) and outcome.reply is None


# ---------------------------------------------------------------- property: every id is answered once

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_METHODS = st.sampled_from(
    ["ping", "tools/list", "tools/call", "resources/read", "prompts/get", "skills/list", "no/such", ""]
)
_ID_KIND = st.sampled_from(["int", "str", "none", "null", "object", "bool", "float"])


@st.composite
def _object_message(draw: st.DrawFn) -> dict[str, Any]:
    """A message-like object; a valid id is a placeholder the test replaces with a unique one."""
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]))
    kind = draw(_ID_KIND)
    out["id"] = {
        "int": "<int>",
        "str": "<str>",
        "null": None,
        "object": {"a": 1},
        "bool": False,
        "float": 0.5,
    }.get(kind)
    if kind == "none":
        del out["id"]
    if draw(st.integers(0, 5)):
        out["method"] = draw(_METHODS | _JSON)
    if draw(st.booleans()):
        out["params"] = draw(_JSON | st.just({"name": "skills", "arguments": {"action": "list"}}))
    if draw(st.integers(0, 9)) == 0:
        out[draw(st.sampled_from(["result", "error"]))] = draw(_JSON)
    for key, value in draw(st.dictionaries(st.text(max_size=6), _JSON, max_size=2)).items():
        out.setdefault(key, value)
    return out


_LINE = st.one_of(
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b"")),
    _JSON.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 100_000).map(lambda n: b"[" * n),
    st.integers(150, 3000).map(
        lambda n: b'{"jsonrpc":"2.0","id":"<str>","method":"ping","params":' + b"[" * n
    ),
    _object_message(),
)


def test_every_request_with_a_valid_id_is_answered_exactly_once(tmp_path: Path) -> None:
    w = Wire(make_tree(tmp_path / "skills"), tmp_path / "home")
    unique = itertools.count(10_000_000)
    stray: list[dict[str, Any]] = []
    try:
        w.handshake()

        @settings(
            max_examples=100,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(st.lists(_LINE, min_size=1, max_size=6))
        def check(batch: list[bytes | dict[str, Any]]) -> None:
            owed: set[int | str] = set()
            for item in batch:
                if isinstance(item, dict):
                    item = dict(item)
                    if item.get("id") in ("<int>", "<str>"):
                        item["id"] = next(unique) if item["id"] == "<int>" else f"s{next(unique)}"
                        try:  # NaN or Infinity anywhere makes the line invalid JSON: -32700 with id null
                            json.dumps(item, allow_nan=False)
                            valid = True
                        except ValueError:
                            valid = False
                        if valid and ("method" in item or not ({"result", "error"} & item.keys())):
                            owed.add(item["id"])
                    item = json.dumps(item).encode()
                else:
                    item = item.replace(b'"<str>"', b'"%d"' % next(unique))  # never valid JSON: no reply owed
                w.send(item)
            final = f"final-{next(unique)}"
            w.send(line_of(id=final, method="ping"))
            owed.add(final)
            answered: list[int | str | None] = []
            deadline = time.monotonic() + 20
            while not owed <= set(answered):
                reply = w.recv(timeout=max(0.1, deadline - time.monotonic()))
                if reply["id"] is not None and reply["id"] not in owed:
                    stray.append(reply)
                answered.append(reply["id"])
            counted = [a for a in answered if a is not None]
            assert len(counted) == len(set(counted)), f"an id was answered twice: {answered}"
            assert not stray, stray
            assert w.proc.poll() is None

        check()
        w.still_serving()
        time.sleep(0.2)
        while not w.lines.empty():  # nothing late, nothing twice
            late = json.loads(w.lines.get())
            assert "id" not in late, late
    finally:
        assert w.close() == 0


# ---------------------------------------------------------------- streamable HTTP


class HttpWire:
    """`skillyard serve --transport http` on loopback, spoken to with raw POSTs."""

    def __init__(self, tree: Path, home: Path, log: Path) -> None:
        from test_mcp_support import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._log = open(log, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "skillyard",
                "--root",
                str(tree),
                "serve",
                "--transport",
                "http",
                "--port",
                str(self.port),
            ],
            env=subprocess_env(home),
            cwd=str(tree.parent),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, log.read_text(errors="replace")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)

    def post(self, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        """(status, content type, body) of one POST."""
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        h.update(headers or {})
        req = urllib.request.Request(self.url, data=body, headers=h, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers.get("content-type", ""), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("content-type", ""), e.read()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._log.close()


@pytest.fixture(scope="module")
def http_wire(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[HttpWire, dict[str, dict[str, str]]]]:
    """The server, and the headers of each protocol era (a handshake-era session is opened here)."""
    base = tmp_path_factory.mktemp("mcp-errors-http")
    w = HttpWire(make_tree(base / "skills"), base / "home", base / "server.log")
    try:
        init = line_of(
            id=0,
            method="initialize",
            params={
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        req = urllib.request.Request(
            w.url,
            data=init,
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            session = r.headers["mcp-session-id"]
            r.read()
        legacy = {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        assert w.post(line_of(method="notifications/initialized"), legacy)[0] == 202
        modern = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
        yield w, {"legacy": legacy, "modern": modern}
    finally:
        w.close()


HTTP_CASES = [
    (b"{oops", PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":3,"method":"tools/list","x":"\xff"}', PARSE_ERROR, None),
    (b"[" * 100_000, PARSE_ERROR, None),
    (b"[]", INVALID_REQUEST, None),
    (b"[" + line_of(id=4, method="tools/list") + b"]", INVALID_REQUEST, None),
    (b"42", INVALID_REQUEST, None),
    (line_of(id={"a": 1}, method="tools/list"), INVALID_REQUEST, None),
    (line_of(id=None, method="tools/list"), INVALID_REQUEST, None),
    (json.dumps({"jsonrpc": "1.0", "id": 5, "method": "tools/list"}).encode(), INVALID_REQUEST, 5),
    (line_of(id="m", method=5), INVALID_REQUEST, "m"),
    (line_of(id=6, method="tools/call", params="str"), INVALID_PARAMS, 6),
    (line_of(method="notifications/initialized", params="str"), INVALID_REQUEST, None),
]


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize(("body", "code", "rid"), HTTP_CASES)
def test_http_malformed_body_is_a_400_with_its_jsonrpc_error(
    http_wire: tuple[HttpWire, dict[str, dict[str, str]]],
    era: str,
    body: bytes,
    code: int,
    rid: int | str | None,
) -> None:
    w, headers = http_wire
    status, content_type, data = w.post(body, headers[era])
    assert status == 400 and content_type.startswith("application/json"), (status, data)
    reply = json.loads(data)
    assert reply["error"]["code"] == code and "id" in reply and reply["id"] == rid, reply
    params = {"_meta": MODERN_META} if era == "modern" else None
    status, _, data = w.post(line_of(id=77, method="tools/list", params=params), headers[era])
    assert status == 200 and b'"id":77' in data and b'"tools"' in data, (status, data[:300])


def test_http_sdk_checks_still_come_first(http_wire: tuple[HttpWire, dict[str, dict[str, str]]]) -> None:
    """A foreign Origin or an unacceptable Accept is refused before the body is looked at; a huge body gets 413."""
    w, headers = http_wire
    assert w.post(b"{oops", {**headers["legacy"], "Origin": "http://evil.example"})[0] == 403
    assert w.post(b"{oops", {**headers["legacy"], "Content-Type": "text/plain"})[0] == 400
    assert w.post(b"{oops", {**headers["legacy"], "Accept": "text/html"})[0] == 406
    assert w.post(b"{oops", {**headers["modern"], "Accept": "text/html"})[0] == 406
    conn = http.client.HTTPConnection("127.0.0.1", w.port, timeout=30)
    try:  # headers only: the SDK answers from Content-Length, before a byte of the body is read
        conn.putrequest("POST", "/mcp")
        for key, value in {**headers["legacy"], "Content-Type": "application/json"}.items():
            conn.putheader(key, value)
        conn.putheader("Accept", "application/json, text/event-stream")
        conn.putheader("Content-Length", str(MAX_LINE_BYTES + 1))
        conn.endheaders()
        assert conn.getresponse().status == 413
    finally:
        conn.close()
