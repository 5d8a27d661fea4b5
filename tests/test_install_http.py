"""Archive and hub installs over a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillyard.install import Installer, Lockfile, TrustPolicy
from skillyard.install.sources import http_get


def skill_zip(name: str, body: str = "Hello.", prefix: str = "") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(f"{prefix}SKILL.md", f"---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n")
        zf.writestr(f"{prefix}docs/usage.md", "usage\n")
    return buf.getvalue()


class Server:
    """Serves an in-memory {path: (status, headers, body)} map on 127.0.0.1."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.hits: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                outer.hits.append(self.path)
                status, headers, body = outer.routes.get(self.path, (404, {}, b"not found"))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def add(self, path: str, body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> str:
        self.routes[path] = (status, headers or {}, body)
        return self.base + path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def trusting(server: Server, hub: str | None = None) -> TrustPolicy:
    return TrustPolicy((f"http://127.0.0.1:{server.httpd.server_address[1]}/**",), hub_index=hub)


def test_archive_url_install_records_sha256(tmp_path: Path, server: Server) -> None:
    data = skill_zip("pdf", prefix="pdf-1.0/")
    url = server.add("/dl/pdf-1.0.zip", data)
    res = Installer(tmp_path / "root", trusting(server)).install(url).to_dict()
    assert res["installed"] is True, res
    assert res["revision"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert (tmp_path / "root/pdf/docs/usage.md").is_file()
    assert Lockfile.load(tmp_path / "root").get("pdf").source == url


def test_untrusted_archive_is_refused_before_any_request(tmp_path: Path, server: Server) -> None:
    url = server.add("/dl/pdf.zip", skill_zip("pdf"))
    res = Installer(tmp_path / "root", TrustPolicy()).install(url).to_dict()
    assert res == {
        "installed": False,
        "error": "untrusted source",
        "source": url,
        "hint": res["hint"],
    }
    assert "trust add" in res["hint"]
    assert server.hits == []


def test_archive_http_errors_and_size_cap(tmp_path: Path, server: Server) -> None:
    inst = Installer(tmp_path / "root", trusting(server))
    missing = inst.install(server.base + "/nope.zip").to_dict()
    assert missing["error"] == "fetch failed" and "404" in missing["reason"]
    with pytest.raises(Exception) as exc:
        http_get(server.add("/big.bin", b"x" * 5000), max_bytes=1000)
    assert "larger than" in str(exc.value)


def test_redirect_to_plain_http_elsewhere_is_refused(tmp_path: Path, server: Server) -> None:
    url = server.add("/r.zip", b"", status=302, headers={"Location": "http://example.invalid/a.zip"})
    res = Installer(tmp_path / "root", trusting(server)).install(url).to_dict()
    assert res["installed"] is False and "redirect" in res["reason"]


def test_redirect_on_loopback_is_followed(tmp_path: Path, server: Server) -> None:
    server.add("/real.zip", skill_zip("moved"))
    url = server.add("/old.zip", b"", status=301, headers={"Location": "/real.zip"})
    res = Installer(tmp_path / "root", trusting(server)).install(url).to_dict()
    assert res["installed"] is True and res["name"] == "moved"


def hub(
    server: Server, versions: dict[str, bytes], name: str = "himalaya", corrupt: str | None = None
) -> str:
    entries = {}
    for v, data in versions.items():
        path = server.add(f"/files/{name}-{v}.zip", data)
        digest = hashlib.sha256(data).hexdigest()
        if v == corrupt:
            digest = "0" * 64
        entries[v] = {"url": path.replace(server.base, "") if v.endswith("0") else path, "sha256": digest}
    index = {"format": "skillyard-hub/1", "skills": {name: {"latest": max(versions), "versions": entries}}}
    return server.add("/index.json", json.dumps(index).encode())


def test_hub_install_latest_and_pinned(tmp_path: Path, server: Server) -> None:
    index = hub(server, {"1.0.0": skill_zip("himalaya", "v1"), "1.1.0": skill_zip("himalaya", "v1.1")})
    inst = Installer(tmp_path / "root", TrustPolicy(hub_index=index))
    res = inst.install("hub:himalaya").to_dict()
    assert res["installed"] is True and res["revision"] == "1.1.0" and res["source"] == "hub:himalaya"
    assert "v1.1" in (tmp_path / "root/himalaya/SKILL.md").read_text()
    pinned = inst.install("clawhub", name="himalaya", force=True)
    assert pinned.installed
    old = inst.install("hub:himalaya@1.0.0", force=True).to_dict()
    assert old["revision"] == "1.0.0" and "v1\n" in (tmp_path / "root/himalaya/SKILL.md").read_text()
    upd = inst.update("himalaya").to_dict()
    assert upd["revision"] == "1.1.0"


def test_hub_sha256_mismatch_is_refused(tmp_path: Path, server: Server) -> None:
    index = hub(server, {"2.0.0": skill_zip("himalaya")}, corrupt="2.0.0")
    res = Installer(tmp_path / "root", TrustPolicy(hub_index=index)).install("hub:himalaya").to_dict()
    assert res["installed"] is False and res["reason"] == "sha256 mismatch"
    assert not (tmp_path / "root/himalaya").exists()


@pytest.mark.parametrize(
    ("index_body", "error"),
    [
        (b"not json", "fetch failed"),
        (b"[]", "fetch failed"),
        (b'{"skills": {}}', "skill not found in hub"),
        (b'{"skills": {"himalaya": {"versions": {"1": {"url": "x.zip"}}}}}', "fetch failed"),
    ],
)
def test_bad_hub_indexes(tmp_path: Path, server: Server, index_body: bytes, error: str) -> None:
    index = server.add("/index.json", index_body)
    res = Installer(tmp_path / "root", TrustPolicy(hub_index=index)).install("hub:himalaya").to_dict()
    assert res["installed"] is False and res["error"] == error


def test_hub_without_index_configured(tmp_path: Path) -> None:
    res = Installer(tmp_path / "root").install("hub:x").to_dict()
    assert res["installed"] is False and "no hub index" in res["reason"]


def test_hub_version_not_found(tmp_path: Path, server: Server) -> None:
    index = hub(server, {"1.0.0": skill_zip("himalaya")})
    res = Installer(tmp_path / "root", TrustPolicy(hub_index=index)).install("hub:himalaya@9.9").to_dict()
    assert res["error"] == "version not found in hub" and res["available"] == ["1.0.0"]
