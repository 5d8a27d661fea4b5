"""Red-team items left open by the last pass, each closed fail-closed: a SKILL.toml tool's own timeout,
the copy FIFO-swap race, a model install that changes after approval, git following https -> http."""

from __future__ import annotations

import textwrap
from pathlib import Path

from skillyard.execution import LocalExecutor
from skillyard.execution.base import ExecResult, ExecSpec
from skillyard.parsing import parse_skill
from skillyard.toml_tools import run_tool


class _Recording(LocalExecutor):
    """The real local executor, remembering the timeout each run was given."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float] = []

    def run(self, spec: ExecSpec) -> ExecResult:
        self.timeouts.append(spec.timeout)
        return super().run(spec)


def test_toml_tool_timeout_is_clamped_to_the_configured_maximum(tmp_path: Path) -> None:
    d = tmp_path / "slow"
    d.mkdir()
    (d / "SKILL.toml").write_text(
        textwrap.dedent(
            """\
            [skill]
            name = "slow"
            description = "a tool that asks for a whole day"

            [[tools]]
            name = "wait"
            description = "wait"
            command = "echo done"
            timeout = 86400
            """
        )
    )
    skill, diags = parse_skill(str(d / "SKILL.toml"))
    assert skill is not None, diags
    ex = _Recording()
    text, is_error = run_tool(skill, skill.tools[0], {}, executor=ex, timeout=30)
    assert not is_error, text
    assert ex.timeouts == [600.0]  # max(600, 10 x 30), not the tool's 86400
    assert "timeout 86400 s lowered to the configured maximum of 600 s" in text
    text, _ = run_tool(skill, skill.tools[0], {}, executor=ex, timeout=9000)
    assert ex.timeouts[-1] == 86400.0 and "lowered" not in text  # under the ceiling it wins, as documented


_COPY_LOOP = """
import sys
from pathlib import Path
from skillyard.install.hygiene import HygieneError, copy_tree
src, out, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
refused = 0
for i in range(n):
    try:
        copy_tree(src, out / str(i))
    except HygieneError:
        refused += 1
print(refused)
"""

_SWAP_LOOP = """
import os, sys, time
from pathlib import Path
from skillyard.install.fsutil import exchange
a, b, stop = Path(sys.argv[1]), Path(sys.argv[2]), time.monotonic() + float(sys.argv[3])
while time.monotonic() < stop:
    exchange(a, b)
"""


def test_copy_tree_never_waits_on_a_file_swapped_for_a_fifo(tmp_path: Path) -> None:
    """A source file swapped for a FIFO between listing and opening is refused, never waited on."""
    import os
    import subprocess
    import sys

    from skillyard.install.fsutil import exchange

    src, spare, out = tmp_path / "skill", tmp_path / "spare", tmp_path / "out"
    for d in (src, spare, out):
        d.mkdir()
    (src / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    (src / "x").write_text("data\n")
    os.mkfifo(spare / "x")
    assert exchange(src / "x", spare / "x") and exchange(src / "x", spare / "x")  # renameat2 works here
    swapper = subprocess.Popen([sys.executable, "-c", _SWAP_LOOP, str(src / "x"), str(spare / "x"), "60"])
    try:
        copier = subprocess.run(
            [sys.executable, "-c", _COPY_LOOP, str(src), str(out), "1500"],
            capture_output=True,
            text=True,
            timeout=40,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("copy_tree waited on a FIFO swapped in after the listing") from None
    finally:
        swapper.kill()
        swapper.wait()
    assert copier.returncode == 0, copier.stderr
    assert 0 < int(copier.stdout) < 1500  # some copies met the FIFO and were refused; some got the file


def test_model_install_refuses_a_source_changed_after_approval(tmp_path: Path, outside_tmp: Path) -> None:
    """What a model install copies must be what was scanned and shown to the person who approved it."""
    import json

    from skillyard.config import Config
    from skillyard.registry import Registry
    from skillyard.tools import InstallRequest, Toolkit

    allowed, installed = outside_tmp / "allowed", outside_tmp / "installed"
    src = allowed / "fresh"
    src.mkdir(parents=True)
    (src / "SKILL.md").write_text("---\nname: fresh\ndescription: Installs by the model.\n---\nSay hello.\n")
    seen: list[InstallRequest] = []

    def approve(request: InstallRequest) -> bool:
        seen.append(request)
        (src / "SKILL.md").write_text(
            "---\nname: fresh\ndescription: Installs by the model.\n---\nSomething else entirely.\n"
        )
        (src / "extra.sh").write_text("echo added after approval\n")
        return True

    config = Config(
        model_installs=True,
        trust_sources=("local:/**",),
        model_local_paths=(allowed,),
        install_root_override=installed,
    )
    kit = Toolkit(
        Registry.from_roots([tmp_path, installed], config), tools=["skills"], approve_install=approve
    )
    res = kit.call("skills", {"action": "install", "skill": "fresh", "from": f"local:{src}"})
    data = json.loads(res.content)
    assert len(seen) == 1 and seen[0].audit is not None
    assert res.is_error and data["installed"] is False, data
    assert data["error"] == "source changed after approval"
    assert not installed.exists() or not [p for p in installed.iterdir() if not p.name.startswith(".")]
    # unchanged since approval: it installs
    res = Toolkit(Registry.from_roots([tmp_path, installed], config), tools=["skills"]).call(
        "skills", {"action": "install", "skill": "fresh", "from": f"local:{src}"}
    )
    assert json.loads(res.content)["installed"] is True
    assert "Something else" in (installed / "fresh" / "SKILL.md").read_text()


def test_git_install_never_follows_https_to_plain_http(tmp_path: Path, monkeypatch: object) -> None:
    """An https git source that redirects to plain http is refused; the http server is never asked."""
    import http.server
    import ssl
    import subprocess
    import threading

    from skillyard.install import Installer, TrustPolicy

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        + ["-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    plain_hits: list[str] = []

    class Plain(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            plain_hits.append(self.path)
            self.send_error(404)

        def log_message(self, *a: object) -> None:
            pass

    plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Plain)

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{plain.server_port}{self.path}")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a: object) -> None:
            pass

    tls = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
    for server in (plain, tls):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("GIT_SSL_CAINFO", str(cert))  # type: ignore[attr-defined]
    try:
        inst = Installer(tmp_path / "root", TrustPolicy(("127.0.0.1*/**",)))
        res = inst.install(f"git+https://127.0.0.1:{tls.server_port}/repo.git").to_dict()
    finally:
        for server in (plain, tls):
            server.shutdown()
    assert plain_hits == [], "git followed the https source to plain http"
    assert res["installed"] is False and res["error"] == "fetch failed", res
    assert 'Protocol "http" not supported or disabled' in res["reason"]  # the redirect, not the TLS setup
