"""A git source on a remote-looking host never leads git to this machine's services.

Each case runs in a child process with its own network and mount namespaces: only loopback exists
there, `192.0.2.10` (a documentation address) is added to it to stand for a remote server, and
/etc/hosts is replaced so that `git.remote.example` resolves where the case needs. Nothing leaves
the namespace; the local "service" is a listener that counts the connections it was offered.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from install_support import GIT_ENV, needs_git
from namespaces import unshare_prefix

SRC = Path(__file__).resolve().parents[1] / "src"
REMOTE = "192.0.2.10"
NAME = "git.remote.example"
#: the second remote host a redirect may lead to
REMOTE2, NAME2 = "192.0.2.11", "git2.remote.example"

CHILD = r"""
import http.server, json, os, socket, ssl, subprocess, sys, threading
from pathlib import Path
from skillyard.install.errors import SourceError
from skillyard.install.sources import SourceSpec, fetch_git

mode, repos, cert, key, out = sys.argv[1:6]
local_hits = []
local = socket.create_server(("127.0.0.1", 0))
local.settimeout(0.2)
stop = threading.Event()

def count():
    while not stop.is_set():
        try:
            conn, _ = local.accept()
        except TimeoutError:
            continue
        local_hits.append(1)
        conn.close()

threading.Thread(target=count, daemon=True).start()

def redirect(handler, to):
    handler.send_response(301)
    handler.send_header("Location", to)
    handler.send_header("Content-Length", "0")
    handler.end_headers()

class Git(http.server.BaseHTTPRequestHandler):
    def handle_any(self):
        path, _, query = self.path.partition("?")
        host = self.server.server_address[0]
        if mode == "redirect-local":
            return redirect(self, f"https://127.0.0.1:{local.getsockname()[1]}{self.path}")
        if mode == "redirect-remote" and host == "192.0.2.10":  # the repository lives on the other host
            return redirect(self, f"https://git2.remote.example:{servers[1].server_port}{self.path}")
        if mode == "suffix" and path.startswith("/team/repo/"):  # as GitLab: to the `.git` name
            return redirect(self, f"/team/repo.git/{path[len('/team/repo/'):]}?{query}")
        if mode == "late-redirect" and self.command == "POST":
            return redirect(self, f"https://127.0.0.1:{local.getsockname()[1]}{self.path}")
        if path.startswith("/team/repo.git/"):
            path = "/team/repo/" + path[len("/team/repo.git/"):]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        env = {"PATH": os.environ["PATH"], "GIT_PROJECT_ROOT": repos, "GIT_HTTP_EXPORT_ALL": "1",
               "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body))}
        cp = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
        head, _, rest = cp.stdout.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    do_GET = do_POST = handle_any

    def log_message(self, *a):
        pass

result = {}
if mode == "loopback":
    port = local.getsockname()[1]
else:
    servers = []
    for address in ("192.0.2.10", "192.0.2.11"):
        srv = http.server.ThreadingHTTPServer((address, 0), Git)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
    port = servers[0].server_port
os.environ["GIT_SSL_CAINFO"] = cert
url = f"https://git.remote.example:{port}/team/repo"
dest = Path(out) / "checkout"
try:
    result["sha"] = fetch_git(SourceSpec("git", "git+" + url, url), dest, timeout=30)
    result["files"] = sorted(p.name for p in dest.iterdir())
except SourceError as e:
    result["refused"] = e.details.get("reason")
stop.set()
result["local_hits"] = len(local_hits)
print(json.dumps(result))
"""


PREFIX = unshare_prefix("mn") if shutil.which("ip") else None
pytestmark = [
    needs_git,
    pytest.mark.skipif(
        PREFIX is None, reason="needs `unshare -mn` and `ip` (private network and mount namespaces)"
    ),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a test certificate"),
]


def _run(mode: str, resolves_to: str | None, tmp_path: Path) -> dict:
    import json

    repo = tmp_path / "repos" / "team" / "repo"
    repo.mkdir(parents=True)
    (repo / "SKILL.md").write_text(
        "---\nname: repo\ndescription: A remote skill.\n---\nHi.\n", encoding="utf-8"
    )
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        + ["-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", f"/CN={NAME}"]
        + ["-addext", f"subjectAltName=DNS:{NAME},DNS:{NAME2},IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    hosts = tmp_path / "hosts"
    alias = f"{resolves_to} {NAME}\n{REMOTE2} {NAME2}\n" if resolves_to else ""
    hosts.write_text(f"127.0.0.1 localhost\n{alias}", encoding="utf-8")
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    shell = (
        f"ip link set lo up && ip addr add {REMOTE}/32 dev lo && ip addr add {REMOTE2}/32 dev lo && "
        'mount --bind "$1" /etc/hosts && shift && exec "$@"'
    )
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONPATH"] = str(SRC)
    assert PREFIX is not None
    argv = [sys.executable, str(script), mode, str(tmp_path / "repos"), str(cert), str(key), str(out)]
    cp = subprocess.run(
        [*PREFIX, "sh", "-c", shell, "sh", str(hosts), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert cp.returncode == 0, cp.stderr
    return json.loads(cp.stdout.strip().splitlines()[-1])


def test_a_remote_git_source_still_installs_through_the_pinned_address(tmp_path: Path) -> None:
    res = _run("serve", REMOTE, tmp_path)
    assert "sha" in res, res
    assert "SKILL.md" in res["files"]


def test_a_name_resolving_to_this_machine_is_never_fetched_from(tmp_path: Path) -> None:
    res = _run("loopback", "127.0.0.1", tmp_path)
    assert "resolves to this machine" in (res.get("refused") or ""), res
    assert res["local_hits"] == 0


def test_a_redirect_to_a_local_service_is_not_followed(tmp_path: Path) -> None:
    res = _run("redirect-local", REMOTE, tmp_path)
    assert "refusing redirect to https://127.0.0.1" in (res.get("refused") or ""), res
    assert res["local_hits"] == 0


def test_a_redirect_after_the_first_answer_is_not_followed(tmp_path: Path) -> None:
    res = _run("late-redirect", REMOTE, tmp_path)
    assert "redirected git elsewhere after its first answer" in (res.get("refused") or ""), res
    assert res["local_hits"] == 0


@pytest.mark.parametrize("mode", ["suffix", "redirect-remote"])
def test_a_forge_that_redirects_to_where_the_repository_lives_still_installs(
    tmp_path: Path, mode: str
) -> None:
    # GitLab answers `/org/repo` with a redirect to `/org/repo.git`; other forges send git to another host
    res = _run(mode, REMOTE, tmp_path)
    assert "sha" in res, res
    assert "SKILL.md" in res["files"]


def test_a_name_that_does_not_resolve_is_reported_by_git(tmp_path: Path) -> None:
    res = _run("serve", None, tmp_path)
    assert (res.get("refused") or "").startswith("git fetch failed:"), res
    assert res["local_hits"] == 0
