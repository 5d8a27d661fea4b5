"""HTTP downloads against servers on 127.0.0.1 that trickle, stop early, or redirect to local services."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import tarfile
import threading
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillyard.install import Installer, TrustPolicy
from skillyard.install.errors import SourceError
from skillyard.install.sources import _SafeRedirect, http_get


class Server:
    """Answers a GET with `routes[path]` or else `body` (announcing `length` bytes, `pause` s between bytes)."""

    def __init__(
        self,
        body: bytes,
        length: int | None = None,
        pause: float = 0.0,
        routes: dict[str, bytes] | None = None,
    ) -> None:
        default = body

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = (routes or {}).get(self.path, default)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body) if length is None or routes else length))
                self.end_headers()
                step = 1 if pause else len(body) or 1
                try:
                    for i in range(0, len(body), step):
                        self.wfile.write(body[i : i + step])
                        self.wfile.flush()
                        time.sleep(pause)
                except OSError:  # the client gave up: that is what some tests expect
                    pass

            def log_message(self, *a: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/skill.tar"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


@pytest.fixture
def serve() -> Iterator[list[Server]]:
    servers: list[Server] = []
    yield servers
    for s in servers:
        s.close()


def test_a_trickling_body_is_cut_off_at_the_timeout(serve: list[Server]) -> None:
    """40 bytes, one every 0.1 s: each read returns in time, so only a deadline for the whole
    download stops a server that keeps sending a byte now and then."""
    serve.append(s := Server(b"x" * 40, pause=0.1))
    with pytest.raises(SourceError) as e:
        http_get(s.url, 1000, timeout=1.0)
    assert "took over 1s" in e.value.details["reason"]


def tar_of(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_a_body_shorter_than_announced_is_not_installed(tmp_path: Path, serve: list[Server]) -> None:
    """A plain tar cut at a member boundary is a valid, smaller tar: a dropped connection must not
    install a skill without the files that did not arrive."""
    skill = b"---\nname: cut\ndescription: The cut skill.\n---\nRun scripts/check.sh first.\n"
    whole = tar_of({"SKILL.md": skill, "scripts/check.sh": b"echo checked\n" * 50})
    cut = tar_of({"SKILL.md": skill})[:1024]  # the first member only, ending on a block boundary
    assert whole.startswith(cut)
    serve.append(s := Server(cut, length=len(whole)))
    inst = Installer(tmp_path / "root", TrustPolicy(("127.0.0.1:*/**",)))
    data = inst.install(s.url.replace("skill.tar", "skill.tar.gz")).to_dict()
    assert data["installed"] is False and "ended after 1024 of" in data["reason"], data
    assert not (tmp_path / "root" / "cut").exists()


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1:2375/containers/json",
        "http://localhost:8080/admin",
        "https://127.0.0.1/",
        "http://[::1]/",
    ],
)
def test_a_remote_server_cannot_redirect_to_a_local_service(target: str) -> None:
    req = urllib.request.Request("https://skills.example/pkg.zip")
    with pytest.raises(SourceError) as e:
        _SafeRedirect().redirect_request(req, None, 302, "Found", {}, target)
    assert "refusing redirect" in e.value.details["reason"]


def test_redirects_that_stay_allowed() -> None:
    handler = _SafeRedirect()
    for origin, target in (
        ("http://127.0.0.1:9/a.zip", "http://127.0.0.1:10/b.zip"),  # loopback to loopback (tests, mirrors)
        ("https://skills.example/a.zip", "https://cdn.example/b.zip"),  # a release to its CDN
    ):
        assert handler.redirect_request(urllib.request.Request(origin), None, 302, "Found", {}, target)


@pytest.mark.parametrize("odd", ["1.\u00b2", "1." + "9" * 5000])
def test_odd_hub_version_strings_do_not_break_the_install(
    tmp_path: Path, serve: list[Server], odd: str
) -> None:
    """Without `latest`, the highest version is picked: a superscript digit or a 5,000-digit part
    made the ordering raise ValueError out of `install`, which never raises."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("SKILL.md", "---\nname: demo\ndescription: The demo skill.\n---\nHi.\n")
    pkg = buf.getvalue()
    entry = {"url": "/demo.zip", "sha256": hashlib.sha256(pkg).hexdigest()}
    index = {"skills": {"demo": {"versions": {"1.0": entry, odd: entry}}}}
    serve.append(s := Server(b"", routes={"/index.json": json.dumps(index).encode(), "/demo.zip": pkg}))
    inst = Installer(tmp_path / "root", TrustPolicy(hub_index=s.url.replace("skill.tar", "index.json")))
    data = inst.install("hub:demo").to_dict()
    assert data["installed"] is True and data["revision"] == odd, data


def test_a_malformed_hub_url_is_a_clear_error(tmp_path: Path, serve: list[Server]) -> None:
    entry = {"url": "http://[x/demo.zip", "sha256": "0" * 64}
    index = {"skills": {"demo": {"latest": "1.0", "versions": {"1.0": entry}}}}
    serve.append(s := Server(b"", routes={"/index.json": json.dumps(index).encode()}))
    inst = Installer(tmp_path / "root", TrustPolicy(hub_index=s.url.replace("skill.tar", "index.json")))
    data = inst.install("hub:demo").to_dict()
    assert data["error"] == "fetch failed" and "malformed url" in data["reason"], data


@pytest.mark.parametrize("index", [b"[" * 100_000, b'{"skills": ' + b"1" * 5000 + b"}"])
def test_a_deeply_nested_hub_index_is_a_clear_error(
    tmp_path: Path, serve: list[Server], index: bytes
) -> None:
    """Nested past the decoder's depth, or an integer past int()'s digit limit: not valid JSON."""
    serve.append(s := Server(b"", routes={"/index.json": index}))
    inst = Installer(tmp_path / "root", TrustPolicy(hub_index=s.url.replace("skill.tar", "index.json")))
    data = inst.install("hub:demo").to_dict()
    assert data["error"] == "fetch failed" and "not valid JSON" in data["reason"], data


@pytest.mark.parametrize("announced", [b"1\xb2", b"1" * 5000])
def test_an_unreadable_content_length_is_no_length(announced: bytes) -> None:
    """`1²` passes str.isdigit() and 5,000 digits pass int()'s check only past its digit limit:
    both raised ValueError out of the download. A length that is not a number is no length."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Length: " + announced + b"\r\nConnection: close\r\n\r\nbody"
            )

    t = threading.Thread(target=answer, daemon=True)
    t.start()
    try:
        assert http_get(f"http://127.0.0.1:{listener.getsockname()[1]}/x", 1000) == b"body"
    finally:
        t.join(10)
        listener.close()
