"""`skillyard chat` against a hostile model and a hostile endpoint: what the person approves is what runs."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from openai_server import ChatServer, Reply, scripted

pytest.importorskip("openai", reason="skillyard chat needs the openai package (the chat extra)")


@pytest.fixture
def project(tmp_path: Path, make_skill: Any) -> Path:
    make_skill(tmp_path / "skills", "wordcount", "Counts the words of a text")
    (tmp_path / "skillyard.toml").write_text(
        '[execution]\nexecutor = "local"\ntimeout = 20\n', encoding="utf-8"
    )
    return tmp_path


def chat(
    project: Path, url: str, *args: str, stdin: Any = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "NO_COLOR": "1"}
    env.pop("OPENAI_BASE_URL", None)
    cmd = [sys.executable, "-m", "skillyard", "--root", str(project / "skills")]
    cmd += ["--config", str(project / "skillyard.toml"), "chat", "--base-url", url, "--model", "m", *args]
    return subprocess.run(
        cmd, cwd=project, env=env, stdin=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def ask_and_say_yes(project: Path, command: str) -> tuple[subprocess.CompletedProcess[str], ChatServer]:
    """The model asks to run `command`; the person at the terminal answers y to what they are shown."""
    args = json.dumps({"skill": "wordcount", "command": command})
    with ChatServer(scripted([Reply(tool_calls=[("skill_run", args)]), Reply(content="done")])) as server:
        primary, secondary = pty.openpty()
        try:
            os.write(primary, b"y\n")
            proc = chat(project, server.url, "--once", "go", stdin=secondary)
        finally:
            os.close(primary)
            os.close(secondary)
    return proc, server


def test_the_prompt_shows_the_whole_command(project: Path) -> None:
    """The prompt used to cut the command at 600 characters: `echo hi` + spaces + `; touch X` showed only
    `echo hi`, and a yes ran the part no one saw."""
    marker = project / "tail-ran"
    proc, _ = ask_and_say_yes(project, "echo hi" + " " * 700 + f"; touch {marker}")
    assert proc.returncode == 0, proc.stderr
    assert f"; touch {marker}? [y/N]" in proc.stderr and marker.exists()


def test_a_command_too_long_to_show_is_refused(project: Path) -> None:
    marker = project / "hidden-part-ran"
    proc, server = ask_and_say_yes(project, "echo hi" + " " * 5000 + f"; touch {marker}")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists() and "[y/N]" not in proc.stderr
    (answer,) = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "too long to show for approval" in answer and "too long to show" in proc.stderr


@pytest.mark.parametrize(
    ("trick", "spelled"),
    [
        ("\r\x1b[2K", "\\r\\x1b[2K"),  # back to the start of the line, erase it
        ("\x1b]52;c;ZWNobyBoaQ==\x07", "\\x1b]52;c;"),  # write the clipboard
        ("\u202e", "\\u202e"),  # right-to-left override
        ("\u200b" * 3, "\\u200b"),  # zero-width space
    ],
)
def test_the_prompt_shows_terminal_tricks_as_text(project: Path, trick: str, spelled: str) -> None:
    marker = project / "ran"
    proc, _ = ask_and_say_yes(project, f"touch {marker} #{trick}echo harmless")
    assert trick not in proc.stderr
    assert f"touch {marker} #{spelled}" in proc.stderr
    assert marker.exists()  # shown in full, so the yes counts


def test_model_text_cannot_drive_the_terminal(project: Path) -> None:
    text = "hello\x1b]52;c;ZWNobyBoaQ==\x07 \x1b[2J\x9b31m world\n"
    with ChatServer(scripted([Reply(content=text)])) as server:
        proc = chat(project, server.url, "--once", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x9b" not in proc.stdout and "\x07" not in proc.stdout
    assert proc.stdout.startswith("hello\\x1b]52;c;") and "world\n" in proc.stdout


def test_deeply_nested_run_arguments_are_asked_about_not_a_crash(project: Path) -> None:
    replies = [Reply(tool_calls=[("skill_run", "[" * 100_000)]), Reply(content="fine")]
    with ChatServer(scripted(replies)) as server:
        proc = chat(project, server.url, "--once", "go")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "refused (no terminal to ask on" in proc.stderr and proc.stdout.strip() == "fine"


def test_tool_names_cannot_drive_the_terminal(project: Path) -> None:
    name = "evil\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J"
    with ChatServer(scripted([Reply(tool_calls=[(name, "{}")]), Reply(content="ok")])) as server:
        proc = chat(project, server.url, "--once", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stderr and "[evil\\x1b]52;c;" in proc.stderr


class _HostileError(BaseHTTPRequestHandler):
    """An endpoint whose error message carries terminal escapes."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        raw = json.dumps({"error": {"message": "no\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J", "type": "x"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(raw)


def _serving(
    handler: type[BaseHTTPRequestHandler], project: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        return chat(project, f"http://127.0.0.1:{server.server_address[1]}/v1", *args)
    finally:
        server.shutdown()
        server.server_close()


def test_an_endpoint_error_cannot_drive_the_terminal(project: Path) -> None:
    proc = _serving(_HostileError, project, "--once", "hi")
    assert proc.returncode == 1 and "\x1b" not in proc.stderr, proc.stderr
    assert "no\\x1b]52;c;" in proc.stderr


class _Endless(BaseHTTPRequestHandler):
    """A Chat Completions stream that never ends: text chunks forever."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
        delta = {"choices": [{"index": 0, "delta": {"content": "x" * 4096}, "finish_reason": None}]}
        chunk = f"data: {json.dumps(base | delta)}\n\n".encode()
        try:
            while True:
                self.wfile.write(chunk)
        except OSError:
            pass


def test_an_endless_stream_ends_the_turn(project: Path) -> None:
    proc = _serving(_Endless, project, "--once", "hi", "--timeout", "10")
    assert proc.returncode == 1, proc.stderr[-500:]
    assert "the model endpoint sent more than" in proc.stderr
