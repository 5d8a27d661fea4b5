"""JSON-RPC framing of the stdio wire: one line in, a message for the SDK or the error reply it is owed.

The SDK's stdio transport drops a line it cannot validate without a word, so a
client waiting on that id waits forever; it also decodes invalid UTF-8 with
replacement characters and buffers a line of any length. skillyard splits and
classifies lines itself, before the SDK sees them:

- invalid JSON, invalid UTF-8, nesting deeper than the SDK's parser allows,
  NaN/Infinity -> -32700 with `"id": null`;
- valid JSON that is not a request object (not an object, a batch array, the
  wrong `jsonrpc`, an `id` that is not a string or an integer, no string
  `method`) -> -32600, with the id when it is a valid one, else null;
- a request whose `params` is not an object -> -32602 with its id;
- a malformed notification, or anything shaped like a response, is dropped
  without a reply: answering a response could start two peers replying to each
  other's errors forever;
- a line over `MAX_LINE_BYTES` -> -32600, with the id when it can be read from
  the line's first bytes; the rest of the line is discarded as it streams by.

Each line is parsed once (pydantic-core's parser, the one the SDK uses, so
the nesting limit and the accepted JSON are the SDK's), and the envelope
checks are a few dictionary look-ups.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError
from pydantic_core import from_json

#: the longest line accepted, newline excluded: the cap the SDK puts on a streamable HTTP body
MAX_LINE_BYTES: Final[int] = DEFAULT_MAX_REQUEST_BODY_SIZE
#: how much of an oversized line is kept to find its id
ID_PREFIX_BYTES: Final = 4096

_DECODER: Final = json.JSONDecoder()
_WHITESPACE: Final = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Rejection:
    """A line the SDK must not see; `reply` is the error owed to the sender (None: nothing is owed)."""

    reply: JSONRPCError | None
    reason: str


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than the cap: only its first bytes are kept, to find the id it carried."""

    prefix: bytes


def error_reply(request_id: RequestId | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


def _reject(request_id: RequestId | None, code: int, message: str) -> Rejection:
    return Rejection(error_reply(request_id, code, message), message)


def is_request_id(value: Any) -> bool:
    """MCP ids are strings or integers; bool is an int subclass in Python but not in JSON."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def classify(line: bytes) -> JSONRPCMessage | Rejection:
    """The message a line carries, or why it is refused and what to answer."""
    try:
        value = from_json(line, allow_inf_nan=False)
    except ValueError as e:
        return _reject(None, PARSE_ERROR, f"Parse error: {e}")
    return classify_value(value)


def classify_value(value: Any) -> JSONRPCMessage | Rejection:
    """The envelope checks of `classify`, on an already decoded JSON value."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            return _reject(None, INVALID_REQUEST, "Invalid Request: batches are not supported")
        return _reject(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    if "method" not in value and ("result" in value or "error" in value):
        return _response(value)
    if "id" not in value:
        if isinstance(value.get("method"), str):
            return _notification(value)
        return _reject(None, INVALID_REQUEST, "Invalid Request: no method")
    request_id = value["id"]
    if not is_request_id(request_id):
        return _reject(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if value.get("jsonrpc") != "2.0":
        return _reject(request_id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
    if not isinstance(value.get("method"), str):
        return _reject(request_id, INVALID_REQUEST, "Invalid Request: method must be a string")
    params = value.get("params")
    if params is not None and not isinstance(params, dict):
        return _reject(request_id, INVALID_PARAMS, "Invalid params: params must be an object")
    try:
        return JSONRPCRequest.model_validate(value)
    except ValidationError:  # every field was checked above; kept so a future SDK field cannot hang a client
        return _reject(request_id, INVALID_REQUEST, "Invalid Request")


def _notification(value: dict[str, Any]) -> JSONRPCNotification | Rejection:
    params = value.get("params")
    if value.get("jsonrpc") != "2.0" or (params is not None and not isinstance(params, dict)):
        return Rejection(None, f"malformed notification {str(value['method'])[:100]!r}")
    try:
        return JSONRPCNotification.model_validate(value)
    except ValidationError:
        return Rejection(None, "malformed notification")


def _response(value: dict[str, Any]) -> JSONRPCResponse | JSONRPCError | Rejection:
    model = JSONRPCError if "error" in value else JSONRPCResponse
    try:
        return model.model_validate(value)
    except ValidationError:
        return Rejection(None, "malformed response")


def classify_oversized(line: Oversized) -> Rejection:
    """The -32600 an over-long line gets, addressed to its id when the line's first bytes name one."""
    why = f"Invalid Request: message exceeds {MAX_LINE_BYTES} bytes"
    return _reject(leading_id(line.prefix), INVALID_REQUEST, why)


def leading_id(prefix: bytes) -> RequestId | None:
    """The top-level `id` of a JSON object of which only `prefix` is known; None when it is not there.

    Clients write `jsonrpc` and `id` before `params`, so the id of a huge
    request is nearly always within its first bytes. Keys are read one by one,
    each value decoded whole, and the first value that does not fit ends the
    search.
    """
    try:
        text = prefix.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(prefix) - 3:  # invalid before the cut, not just a character split by it
            return None
        text = prefix[: e.start].decode("utf-8")
    i = _skip(text, 0)
    if not text.startswith("{", i):
        return None
    i += 1
    try:
        while True:
            i = _skip(text, i)
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)
            if not isinstance(key, str) or not text.startswith(":", i):
                return None
            found, i = _DECODER.raw_decode(text, _skip(text, i + 1))
            if key == "id":
                return found if is_request_id(found) else None
            i = _skip(text, i)
            if not text.startswith(",", i):
                return None
            i += 1
    except (ValueError, RecursionError):
        return None


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


class LineSplitter:
    """Newline-delimited lines out of arbitrary chunks, never holding more than `limit` bytes of one line.

    A line that grows past the limit comes out once as `Oversized` (its first
    bytes only) and the rest of it is skipped up to its newline. Blank lines
    are not messages and are skipped.
    """

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._skipping = False

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if self._skipping:
                self._skipping = False
            elif self._buf:
                self._buf += chunk[start:end]
                self._emit(bytes(self._buf), out)
                self._buf.clear()
            else:
                self._emit(chunk[start:end], out)
            start = end + 1
        if not self._skipping and start < len(chunk):
            if len(self._buf) + len(chunk) - start > self.limit:
                head = bytes(self._buf[:ID_PREFIX_BYTES]) + chunk[start : start + ID_PREFIX_BYTES]
                out.append(Oversized(head[:ID_PREFIX_BYTES]))
                self._buf.clear()
                self._skipping = True
            else:
                self._buf += chunk[start:]
        return out

    def close(self) -> list[bytes | Oversized]:
        """The last line when the stream ended without a newline."""
        out: list[bytes | Oversized] = []
        if self._buf and not self._skipping:
            self._emit(bytes(self._buf), out)
        self._buf.clear()
        self._skipping = False
        return out

    def _emit(self, line: bytes, out: list[bytes | Oversized]) -> None:
        if len(line) > self.limit:
            out.append(Oversized(line[:ID_PREFIX_BYTES]))
        elif line.strip():
            out.append(line)
