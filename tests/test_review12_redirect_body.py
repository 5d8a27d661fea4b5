"""A redirect's body is never read: an endless one would fill memory before the download's deadline."""

from __future__ import annotations

import socket
import threading

from skillyard.install.sources import http_get

TOTAL = 256 * 1024 * 1024


def test_a_huge_redirect_body_is_not_read() -> None:
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    sent = [0]

    def serve() -> None:
        conn, _ = srv.accept()
        with conn:
            conn.recv(65536)
            head = f"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{port}/b\r\ncontent-length: {TOTAL}\r\n\r\n"
            conn.sendall(head.encode())
            chunk = b"x" * 65536
            try:
                while sent[0] < TOTAL:
                    conn.sendall(chunk)
                    sent[0] += len(chunk)
            except OSError:
                pass
        conn, _ = srv.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        assert http_get(f"http://127.0.0.1:{port}/a", 1024, timeout=120) == b"ok"
    finally:
        t.join(60)
        srv.close()
    assert sent[0] < TOTAL
