"""Hostile git and archive URLs against a real smart-HTTP git server (`git http-backend`) on 127.0.0.1.

- A trust pattern matches the URL path as written, but git (curl) and web servers resolve dot
  segments: `team/../other/repo` reached a repository the pattern `team/**` does not trust.
- A user name and password in a URL were written into skills.lock, the install answer and errors.
"""

from __future__ import annotations

import http.server
import io
import json
import os
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from install_support import GIT_ENV, needs_git
from skillyard.install import Installer, TrustPolicy

pytestmark = needs_git


def skill_text(name: str) -> str:
    return f"---\nname: {name}\ndescription: The {name} skill.\n---\nHello.\n"


def make_repo(path: Path, name: str) -> None:
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(skill_text(name), "utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run(["git", *args], cwd=path, env=GIT_ENV, check=True, capture_output=True)


class GitServer:
    """`git http-backend` (smart HTTP) for the repositories under `root`, and static files from `files`."""

    def __init__(self, root: Path) -> None:
        self.hits: list[str] = []
        self.files: dict[str, bytes] = {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def handle_any(self) -> None:
                outer.hits.append(self.path)
                path, _, query = self.path.partition("?")
                if path in outer.files:
                    self.reply(200, [], outer.files[path])
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                env = {
                    **GIT_ENV,
                    "GIT_PROJECT_ROOT": str(root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                }
                cp = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
                head, _, rest = cp.stdout.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.decode("latin-1").split("\r\n"):
                    key, _, value = line.partition(":")
                    if key.lower() == "status":
                        status = int(value.split()[0])
                    elif key:
                        headers.append((key, value.strip()))
                self.reply(status, headers, rest)

            def reply(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = handle_any  # noqa: N815

            def log_message(self, *a: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[GitServer]:
    make_repo(tmp_path / "srv" / "team" / "repo", "team-skill")
    make_repo(tmp_path / "srv" / "other" / "repo", "other-skill")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("SKILL.md", skill_text("zipped"))
    s = GitServer(tmp_path / "srv")
    s.files = {"/team/x.zip": buf.getvalue(), "/other/x.zip": buf.getvalue()}
    yield s
    s.close()


def team_installer(tmp_path: Path, server: GitServer) -> Installer:
    return Installer(tmp_path / "root", TrustPolicy((f"{server.host}/team/**",)))


def test_the_server_and_the_trust_pattern_work(tmp_path: Path, server: GitServer) -> None:
    inst = team_installer(tmp_path, server)
    assert inst.install(f"git+http://{server.host}/team/repo").installed
    assert inst.install(f"http://{server.host}/team/x.zip").installed
    refused = inst.install(f"git+http://{server.host}/other/repo").to_dict()
    assert refused["error"] == "untrusted source"


@pytest.mark.parametrize(
    "path",
    [
        "team/../other/repo",
        "team/%2e%2e/other/repo",
        "team/.%2E/other/repo",
        "team/..%2Fother%2Frepo",
        "team/./../other/repo",
    ],
)
def test_dot_segments_cannot_leave_a_trusted_path(tmp_path: Path, server: GitServer, path: str) -> None:
    inst = team_installer(tmp_path, server)
    for source in (
        f"git+http://{server.host}/{path}",
        f"http://{server.host}/{path.replace('repo', 'x.zip')}",
    ):
        data = inst.install(source).to_dict()
        assert data["installed"] is False and data["error"] in ("invalid source", "untrusted source"), data
    assert not [h for h in server.hits if h.startswith("/other")], server.hits
    assert not (tmp_path / "root" / "other-skill").exists()


def test_a_file_url_with_dot_segments_is_refused(tmp_path: Path, server: GitServer) -> None:
    repo = tmp_path / "srv" / "other" / "repo"
    data = Installer(tmp_path / "root", TrustPolicy((f"local:{tmp_path}/srv/team/**",), defaults=())).install(
        f"git+file://{tmp_path}/srv/team/../other/repo"
    )
    assert not data.installed and repo.is_dir(), data.to_dict()


def test_credentials_in_a_url_are_never_recorded_or_shown(tmp_path: Path, server: GitServer) -> None:
    inst = team_installer(tmp_path, server)
    res = inst.install(f"git+http://someone:s3cret@{server.host}/team/repo")
    data = res.to_dict()
    assert data["installed"] is True, data
    assert data["source"] == f"git+http://{server.host}/team/repo"
    lock = (tmp_path / "root" / "skills.lock").read_text("utf-8")
    assert "s3cret" not in lock and "someone" not in lock
    # update re-fetches from the recorded source, without the credentials
    assert inst.update("team-skill").installed
    for source in (
        f"git+http://someone:s3cret@{server.host}/other/repo",  # untrusted
        f"http://someone:s3cret@{server.host}/team/x.zip",  # urllib cannot use them: refused
        f"http://someone:s3cret@{server.host}/other/x.zip",
        "http://someone:s3cret@127.0.0.1/x.zip",  # urllib read `s3cret@127.0.0.1` as a port and raised
        f"git+http://someone:s3cret@{server.host}/team/nothing-here",
    ):
        data = inst.install(source, force=True).to_dict()
        assert data["installed"] is False and "s3cret" not in json.dumps(data), data


def test_a_failed_fetch_says_why(tmp_path: Path) -> None:
    """git ends with "Please make sure you have the correct access rights / and the repository
    exists."; the answer must carry the line before it that names the problem."""
    inst = Installer(tmp_path / "root", TrustPolicy())
    data = inst.install(f"git+file://{tmp_path}/no-such-repo").to_dict()
    assert "does not appear to be a git repository" in data["reason"], data


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand the repository to another user")
def test_a_repository_of_another_user_says_why(tmp_path: Path) -> None:
    """git refuses a repository owned by someone else (safe.directory), and skillyard gives git no
    user configuration where an exception could be added: the answer must say so."""
    repo = tmp_path / "theirs"
    make_repo(repo, "theirs")
    for p in [repo, *repo.rglob("*")]:
        os.lchown(p, 65534, 65534)
    data = Installer(tmp_path / "root", TrustPolicy()).install(f"git+file://{repo}").to_dict()
    assert data["installed"] is False and "dubious ownership" in data["reason"], data
