"""peer_uid: a connection whose client end has already closed is nobody's, not root's."""

from __future__ import annotations

import os
import socket
import time

import pytest

from skillyard.mcp._http_guard import peer_uid

OTHER_UID = 47211

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="Linux's socket tables")
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another uid")


def _connect_as_other_and_close(port: int) -> None:
    pid = os.fork()
    if pid == 0:  # the other local user: sends a request and closes at once
        try:
            os.setgid(OTHER_UID)
            os.setuid(OTHER_UID)
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
            c.close()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


@root_only
def test_closed_client_of_another_user_is_not_taken_for_root() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        _connect_as_other_and_close(srv.getsockname()[1])
        time.sleep(0.2)  # the client's end reaches its closed-but-listed (time-wait) state
        conn, _ = srv.accept()
        with conn:
            assert conn.recv(4)  # the request is there to be served
            assert peer_uid(conn) not in (0, os.geteuid())


@root_only
def test_open_client_of_another_user_is_seen() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(w)
                os.setgid(OTHER_UID)
                os.setuid(OTHER_UID)
                c = socket.create_connection(("127.0.0.1", srv.getsockname()[1]))
                os.read(r, 1)
                c.close()
            finally:
                os._exit(0)
        os.close(r)
        conn, _ = srv.accept()
        with conn:
            assert peer_uid(conn) == OTHER_UID
        os.write(w, b"x")
        os.close(w)
        os.waitpid(pid, 0)


def test_dual_stack_ipv4_client_is_seen() -> None:
    with socket.socket(socket.AF_INET6) as srv:
        srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        srv.bind(("::", 0))
        srv.listen()
        with socket.create_connection(("127.0.0.1", srv.getsockname()[1])) as c:
            conn, _ = srv.accept()
            with conn:
                assert conn.getpeername()[0].startswith("::ffff:")
                assert peer_uid(conn) == os.geteuid()
            del c


def test_ipv6_client_to_a_mapped_address_is_seen() -> None:
    with socket.socket(socket.AF_INET6) as srv:
        srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        srv.bind(("::", 0))
        srv.listen()
        with socket.create_connection(("::ffff:127.0.0.1", srv.getsockname()[1])) as c:
            conn, _ = srv.accept()
            with conn:
                assert peer_uid(conn) == os.geteuid()
            del c
