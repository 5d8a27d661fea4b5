"""`skillyard serve --transport http` on loopback, reached by another local user.

On loopback the server asks for no token, so every account of a shared machine (a CI runner, a
university server) could connect and use the person's skills, their configured secrets and
`skill_run`. The server now serves only connections whose other end belongs to the user who
started it (or root), as the kernel reports it. The other user is uid 47212, a real process
switched with `setpriv`; as a non-root user there is no second user to be, so those cases skip.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_mcp_support import INIT as RAW_INIT
from test_mcp_support import POST_HEADERS

SRC = Path(__file__).resolve().parents[1] / "src"
OTHER = 47212
INIT = json.dumps(RAW_INIT)
HEADERS = POST_HEADERS


def free_port(family: socket.AddressFamily, host: str) -> int:
    with socket.socket(family) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.fixture(params=["127.0.0.1", "::1"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    host = request.param
    if host == "::1" and not ipv6_loopback():
        pytest.skip("no IPv6 loopback here")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    port = free_port(family, host)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skillyard",
            "serve",
            "--transport",
            "http",
            "--host",
            host,
            "--port",
            str(port),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection((host, port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        f"the server did not start: {proc.stderr.read().decode() if proc.stderr else ''}"
                    )
                time.sleep(0.1)
        yield f"http://{'[::1]' if host == '::1' else host}:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def post(url: str) -> tuple[int, str]:
    req = urllib.request.Request(url, data=INIT.encode(), headers=HEADERS, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_user_who_started_it_is_served(server: str) -> None:
    status, body = post(server)
    assert status == 200 and '"serverInfo"' in body


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can start a process as another user")
def test_another_local_user_is_refused_before_any_request_is_read(server: str) -> None:
    curl, setpriv = shutil.which("curl"), shutil.which("setpriv")
    if curl is None or setpriv is None:
        pytest.skip("needs curl and setpriv")
    args = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", server, "-d", INIT]
    for k, v in HEADERS.items():
        args += ["-H", f"{k}: {v}"]
    as_other = [setpriv, f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups", curl, *args]
    r = subprocess.run(as_other, capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    body, _, code = r.stdout.rpartition("\n")
    assert code == "403", r
    assert "serverInfo" not in body and "another user's skillyard server" in body
    # root, as every account's owner, still is
    r = subprocess.run([curl, *args], capture_output=True, text=True, timeout=60)
    assert r.stdout.endswith("\n200") and "serverInfo" in r.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make files owned by another user")
def test_a_token_file_another_user_owns_is_refused(tmp_path: Path) -> None:
    """Private to its owner is not private to the server's user: the owner knows and can change the tokens."""
    tokens = tmp_path / "tokens"
    tokens.write_text("k" * 40 + "\n")
    tokens.chmod(0o600)
    os.chown(tokens, OTHER, OTHER)
    r = subprocess.run(
        [sys.executable, "-m", "skillyard", "serve", "--transport", "http", "--auth-token-file", str(tokens)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert f"token file {tokens} belongs to another user (uid {OTHER})" in r.stderr
