"""A download from a remote-looking name that resolves to this machine is refused before connecting.

The name is made to resolve to 127.0.0.1 the way a hostile DNS answer or an /etc/hosts alias would:
the download runs in a child process with its own mount namespace, where /etc/hosts is replaced.
Nothing leaves loopback; the listening socket counts the connections it was offered.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from namespaces import unshare_prefix

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = """
import sys
from skillyard.install.errors import SourceError
from skillyard.install.sources import http_get
try:
    http_get(sys.argv[1], 1 << 20, timeout=10)
except SourceError as e:
    print("refused:", e.details.get("reason"))
else:
    print("fetched")
"""


PREFIX = unshare_prefix("m")
pytestmark = pytest.mark.skipif(PREFIX is None, reason="needs `unshare -m` (a private mount namespace)")


def _fetch_as(name: str, url: str, tmp_path: Path) -> str:
    hosts = tmp_path / "hosts"
    hosts.write_text(f"127.0.0.1 localhost\n127.0.0.1 {name}\n", encoding="utf-8")
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    shell = 'mount --bind "$1" /etc/hosts && exec "$2" "$3" "$4"'
    assert PREFIX is not None
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(var, None)
    cp = subprocess.run(
        [*PREFIX, "sh", "-c", shell, "sh", str(hosts), sys.executable, str(script), url],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert cp.returncode == 0, cp.stderr
    return cp.stdout.strip()


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_name_resolving_to_this_machine_is_never_connected_to(tmp_path: Path, scheme: str) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    offered: list[tuple[str, int]] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = listener.accept()
            except TimeoutError:
                continue
            offered.append(peer)
            conn.close()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        out = _fetch_as("skills.remote.example", f"{scheme}://skills.remote.example:{port}/pkg.zip", tmp_path)
    finally:
        stop.set()
        t.join()
        listener.close()
    if scheme == "http":  # plain http to a remote-looking name is refused before any lookup
        assert out.startswith("refused:") and "plain http" in out, out
    else:
        assert out.startswith("refused:") and "resolves to this machine" in out, out
    assert offered == []


def test_a_loopback_name_as_written_still_downloads(tmp_path: Path) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b"archive bytes"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        out = _fetch_as("skills.remote.example", f"http://127.0.0.1:{server.server_port}/pkg.zip", tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    assert out == "fetched"
