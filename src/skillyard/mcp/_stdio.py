"""The stdio transport `skillyard serve` runs on: the SDK's stream pair, fed through skillyard's framing.

Lines are read in chunks off the wire, split and classified by
`skillyard.mcp._framing`; a valid message goes to the SDK's serving loop, a
malformed one is answered here. Error replies and the SDK's own messages go
through one writer task, so two messages never interleave on stdout.

While serving, fd 0 reads the null device and fd 1 writes to stderr: a skill
script or a stray print() inherits those, never the protocol wire. Both are
restored on exit.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import BinaryIO

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR, JSONRPCError, JSONRPCResponse

from skillyard.mcp._framing import (
    LineSplitter,
    Oversized,
    Rejection,
    classify,
    classify_oversized,
    error_reply,
)

log = logging.getLogger("skillyard.mcp")

#: bytes asked of the pipe per read; one thread hop per chunk, not per line
CHUNK_BYTES = 64 * 1024


def _private_dup(fd: int) -> int:
    """A close-on-exec duplicate of `fd` outside 0-2, so no child and no later dup2 can reach it."""
    try:
        import fcntl

        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except ImportError:  # Windows: os.dup is non-inheritable, and 0-2 are open
        return os.dup(fd)


@contextmanager
def claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The wire's two ends as binary files; meanwhile fd 0 reads /dev/null and fd 1 goes to stderr."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    wire_in = _private_dup(0)
    wire_out = _private_dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    # closefd=False, and wire_in is never closed: a read can still be blocked on it in a worker
    # thread after serving ends, and a recycled descriptor number would feed that read something else.
    reader = os.fdopen(wire_in, "rb", buffering=0, closefd=False)
    writer = os.fdopen(wire_out, "wb", closefd=False)
    try:
        yield reader, writer  # type: ignore[misc]
    finally:
        with suppress(OSError):
            writer.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_out)


def _encode(message: SessionMessage) -> bytes | None:
    """One message as one line; a reply that cannot be serialized becomes an internal error for its id.

    None for any other message that cannot be serialized: it is logged and
    skipped rather than ending the writer, and with it the connection.
    """
    msg = message.message
    try:
        return msg.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
    except Exception:
        if not isinstance(msg, JSONRPCResponse | JSONRPCError):
            log.exception("a %s could not be serialized; not sent", type(msg).__name__)
            return None
        log.exception("reply to %r could not be serialized", msg.id)
        fallback = error_reply(msg.id, INTERNAL_ERROR, "Internal error: reply could not be serialized")
        return fallback.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"


@asynccontextmanager
async def framed_streams(
    read_chunk: Callable[[int], bytes], write: Callable[[bytes], None]
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """The (read, write) stream pair the SDK's `Server.run` takes, over two blocking byte callables.

    `read_chunk(n)` returns up to n bytes, b"" at end of input; `write(data)`
    writes and flushes all of it. Both run in worker threads.
    """
    inbound_send, inbound_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outbound_send, outbound_receive = anyio.create_memory_object_stream[SessionMessage](0)
    replies = outbound_send.clone()
    reading = anyio.CancelScope()

    async def read() -> bytes:
        try:
            # abandon_on_cancel: a read blocked on the pipe must not hold the server open
            return await anyio.to_thread.run_sync(read_chunk, CHUNK_BYTES, abandon_on_cancel=True)
        except OSError as e:  # a broken stdin ends the input, as end of file does
            log.debug("stdin unreadable: %s", e)
            return b""

    async def reader() -> None:
        splitter = LineSplitter()
        with reading, suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            # The serving loop closing its end means it is done: stop reading, quietly.
            async with inbound_send, replies:
                while True:
                    chunk = await read()
                    for line in splitter.feed(chunk) if chunk else splitter.close():
                        outcome = classify_oversized(line) if isinstance(line, Oversized) else classify(line)
                        if isinstance(outcome, Rejection):
                            log.debug("rejected a message: %s", outcome.reason)
                            if outcome.reply is not None:
                                await replies.send(SessionMessage(outcome.reply))
                        else:
                            await inbound_send.send(SessionMessage(outcome))
                    if not chunk:
                        return

    async def writer() -> None:
        broken = False
        async with outbound_receive:
            async for message in outbound_receive:
                if broken:
                    continue  # the client is gone; drain so no sender blocks
                data = _encode(message)
                if data is None:
                    continue
                try:
                    await anyio.to_thread.run_sync(write, data)
                except OSError as e:
                    log.debug("stdout closed: %s", e)
                    broken = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield inbound_receive, outbound_send
        finally:
            await outbound_send.aclose()
            reading.cancel()


@asynccontextmanager
async def stdio_transport() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """`framed_streams` over the process's claimed stdin and stdout."""
    with claimed_stdio() as (wire_in, wire_out):

        def write(data: bytes) -> None:
            wire_out.write(data)
            wire_out.flush()

        async with framed_streams(wire_in.read, write) as streams:
            yield streams
