"""`skillyard chat` as a real subprocess against a scripted OpenAI-compatible endpoint on 127.0.0.1.

The model's side is played by `tests/openai_server.py` over real HTTP; the
client is the official `openai` SDK, streaming and not; the tools are the real
toolkit with the local executor (the sandbox is tested elsewhere).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openai_server import ChatServer, Reply, scripted

pytest.importorskip("openai", reason="skillyard chat needs the openai package (the chat extra)")

BODY = """# Word count

Count the words of a text with:

    printf '%s' "TEXT" | wc -w > out/count.txt; cat out/count.txt

The count is in out/count.txt.
"""


@pytest.fixture
def project(tmp_path: Path, make_skill: Any) -> Path:
    make_skill(tmp_path / "skills", "wordcount", "Counts the words of a text", body=BODY)
    make_skill(tmp_path / "skills", "weather", "Tells the weather")
    (tmp_path / "skillyard.toml").write_text(
        '[execution]\nexecutor = "local"\ntimeout = 20\n', encoding="utf-8"
    )
    return tmp_path


def run_chat(
    project: Path, url: str, *args: str, timeout: float = 60, stdin: Any = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "NO_COLOR": "1"}
    env.pop("OPENAI_BASE_URL", None)
    cmd = [
        sys.executable,
        "-m",
        "skillyard",
        "--root",
        str(project / "skills"),
        "--config",
        str(project / "skillyard.toml"),
        "chat",
        "--base-url",
        url,
        "--model",
        "scripted",
        "--transcript",
        str(project / "transcript.jsonl"),
        *args,
    ]
    return subprocess.run(
        cmd, cwd=project, env=env, stdin=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )


def transcript(project: Path) -> list[dict[str, Any]]:
    path = project / "transcript.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


RUN_ARGS = json.dumps(
    {
        "skill": "wordcount",
        "command": "printf '%s' 'the quick brown fox' | wc -w > out/count.txt; cat out/count.txt",
        "output_files": ["out/*.txt"],
    }
)
FULL_TURN = [
    Reply(tool_calls=[("skill_load", '{"skill": "wordcount"}')]),
    Reply(tool_calls=[("skill_run", RUN_ARGS)]),
    Reply(content="The text has 4 words (see out/count.txt)."),
]


@pytest.mark.parametrize("stream", [True, False], ids=["streaming", "whole"])
def test_a_full_turn(project: Path, stream: bool) -> None:
    with ChatServer(scripted(FULL_TURN)) as server:
        args = ["--once", "How many words in 'the quick brown fox'?", "--yes"]
        proc = run_chat(project, server.url, *args, *([] if stream else ["--no-stream"]))
    assert proc.returncode == 0, proc.stderr
    assert "The text has 4 words (see out/count.txt)." in proc.stdout
    assert "[output] out/count.txt" in proc.stderr

    first, second, third = server.requests
    assert all(r["stream"] is stream for r in server.requests)
    assert all(r["model"] == "scripted" for r in server.requests)
    tools = [t["function"]["name"] for t in first["tools"]]
    assert tools[:3] == ["skills", "skill_load", "skill_select_docs"] and "skill_run" in tools
    system = first["messages"][0]
    assert (
        system["role"] == "system" and "wordcount" in system["content"] and "skill_load" in system["content"]
    )
    assert "[Loaded] wordcount" not in system["content"]
    assert first["messages"][1] == {"role": "user", "content": "How many words in 'the quick brown fox'?"}
    # layer 2 arrives through the system message once the skill is loaded
    assert (
        "[Loaded] wordcount" in second["messages"][0]["content"]
        and "wc -w" in second["messages"][0]["content"]
    )
    assert tool_messages(second) == ["loaded: wordcount"]
    run = json.loads(tool_messages(third)[1])
    assert run["stdout"] == "4\n" and run["exit_code"] == 0
    assert [f["name"] for f in run["output_files"]] == ["out/count.txt"]
    assert run["output_files"][0]["content"] == "4\n"
    call = third["messages"][-2]["tool_calls"][0]
    assert (
        call["function"]["name"] == "skill_run"
        and json.loads(call["function"]["arguments"])["skill"] == "wordcount"
    )

    lines = transcript(project)
    assert [m["role"] for m in lines] == [
        "user",
        "system",
        "assistant",
        "tool",
        "system",
        "assistant",
        "tool",
        "assistant",
    ]
    assert lines[-1]["content"] == "The text has 4 words (see out/count.txt)."
    assert lines[3] == {"role": "tool", "tool_call_id": "call_0_0", "content": "loaded: wordcount"}
    assert json.loads(lines[6]["content"])["stdout"] == "4\n"


def test_strict_tools_and_strict_calls(project: Path) -> None:
    strict_run = {
        "skill": "wordcount",
        "command": "echo $WHO",
        "cwd": None,
        "env": [{"name": "WHO", "value": "strict"}],
        "output_files": None,
        "inputs": None,
        "outputs": None,
        "timeout": None,
        "save_as_artifacts": None,
        "omit_inline_content": None,
        "artifact_prefix": None,
    }
    replies = [Reply(tool_calls=[("skill_run", json.dumps(strict_run))]), Reply(content="ok")]
    with ChatServer(scripted(replies)) as server:
        proc = run_chat(project, server.url, "--once", "who", "--yes", "--strict")
    assert proc.returncode == 0, proc.stderr
    tools = server.requests[0]["tools"]
    assert all(t["function"]["strict"] is True for t in tools)
    assert json.loads(tool_messages(server.requests[1])[0])["stdout"] == "strict\n"


def test_unknown_tools_and_bad_json_go_back_to_the_model(project: Path) -> None:
    replies = [
        Reply(tool_calls=[("no_such_tool", "{}"), ("skill_load", '{"skill": "wordc'), ("skill_load", "[1]")]),
        Reply(content="Sorry, trying again later."),
    ]
    with ChatServer(scripted(replies)) as server:
        proc = run_chat(project, server.url, "--once", "hi", "--yes")
    assert proc.returncode == 0, proc.stderr
    unknown, bad_json, not_object = tool_messages(server.requests[1])
    assert unknown.startswith("Error: unknown tool: no_such_tool (available: skills, ")
    assert "invalid JSON arguments" in bad_json
    assert "arguments must be a JSON object, got array" in not_object
    assert "Sorry, trying again later." in proc.stdout


def test_a_runaway_model_meets_the_limit(project: Path) -> None:
    with ChatServer(scripted([Reply(tool_calls=[("skill_list_docs", '{"skill": "wordcount"}')])])) as server:
        proc = run_chat(project, server.url, "--once", "loop", "--max-tool-calls", "3")
    assert proc.returncode == 1
    assert "stopped after 3 tool calls in one turn" in proc.stderr
    assert len(server.requests) == 4
    tools = [m for m in transcript(project) if m["role"] == "tool"]
    assert [t["content"] for t in tools[:3]] == ["[]"] * 3
    assert tools[3]["content"].startswith("Error: not run: stopped after 3 tool calls")


def test_without_a_terminal_runs_are_refused_not_hung(project: Path) -> None:
    marker = project / "ran"
    args = json.dumps({"skill": "wordcount", "command": f"touch {marker}"})
    replies = [Reply(tool_calls=[("skill_run", args)]), Reply(content="I could not run it.")]
    with ChatServer(scripted(replies)) as server:
        proc = run_chat(project, server.url, "--once", "run it", timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    (refusal,) = tool_messages(server.requests[1])
    assert refusal.startswith("Error: not run: the user must approve runs and there is no terminal")
    assert "--yes" in refusal and "refused (no terminal to ask on; pass --yes" in proc.stderr


def test_ask_takes_an_answer_from_a_terminal(project: Path) -> None:
    """Under a pseudo-terminal the question is asked; 'n' declines, and the model hears so."""
    import pty

    args = json.dumps({"skill": "wordcount", "command": "echo ran"})
    replies = [Reply(tool_calls=[("skill_run", args)]), Reply(content="Declined, fine.")]
    with ChatServer(scripted(replies)) as server:
        primary, secondary = pty.openpty()
        try:
            os.write(primary, b"n\n")
            proc = run_chat(project, server.url, "--once", "run it", stdin=secondary, timeout=30)
        finally:
            os.close(primary)
            os.close(secondary)
    assert proc.returncode == 0, proc.stderr
    assert "run skill_run in wordcount: echo ran? [y/N]" in proc.stderr
    assert tool_messages(server.requests[1]) == ["Error: not run: the user declined this run"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_endpoint_down(project: Path) -> None:
    start = time.monotonic()
    proc = run_chat(project, f"http://127.0.0.1:{_closed_port()}/v1", "--once", "hello", "--timeout", "3")
    assert time.monotonic() - start < 30
    assert proc.returncode == 1
    assert "error: cannot reach the model endpoint at http://127.0.0.1:" in proc.stderr
    assert transcript(project)[0] == {"role": "user", "content": "hello"}


def test_endpoint_slow(project: Path) -> None:
    with ChatServer(scripted([Reply(content="late", delay=4)])) as server:
        start = time.monotonic()
        proc = run_chat(project, server.url, "--once", "hello", "--timeout", "1")
        elapsed = time.monotonic() - start
    assert proc.returncode == 1 and "did not answer in time" in proc.stderr
    assert elapsed < 15
    assert transcript(project)[0]["content"] == "hello"


def test_endpoint_stalls_mid_answer(project: Path) -> None:
    with ChatServer(scripted([Reply(content="a long answer", stall=6)])) as server:
        start = time.monotonic()
        proc = run_chat(project, server.url, "--once", "hello", "--timeout", "1")
        elapsed = time.monotonic() - start
    assert proc.returncode == 1 and "did not answer in time" in proc.stderr
    assert elapsed < 15


def test_endpoint_that_is_not_openai(project: Path) -> None:
    """A 200 answer without choices: a clear error, not a traceback."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            raw = b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        proc = run_chat(project, url, "--once", "hello", "--no-stream")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert proc.returncode == 1 and "could not be read: IndexError" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_endpoint_error_status(project: Path) -> None:
    with ChatServer(scripted([Reply(status=400)])) as server:
        proc = run_chat(project, server.url, "--once", "hello")
    assert proc.returncode == 1 and "refused the request (HTTP 400)" in proc.stderr


def test_ctrl_c_stops_the_run_and_keeps_the_transcript(project: Path) -> None:
    args = json.dumps({"skill": "wordcount", "command": "sleep 30"})
    with ChatServer(scripted([Reply(tool_calls=[("skill_run", args)]), Reply(content="never")])) as server:
        env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
        cmd = [sys.executable, "-m", "skillyard", "--root", str(project / "skills"), "--config"]
        cmd += [str(project / "skillyard.toml"), "chat", "--base-url", server.url, "--model", "m", "--yes"]
        cmd += ["--once", "sleep", "--transcript", str(project / "transcript.jsonl")]
        proc = subprocess.Popen(
            cmd,
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)  # the command is running now
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
        assert time.monotonic() - start < 10
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    tools = [m for m in transcript(project) if m["role"] == "tool"]
    assert tools == [
        {"role": "tool", "tool_call_id": "call_0_0", "content": "Error: interrupted by the user"}
    ]
    assert len(server.requests) == 1


def test_stdin_turns_without_once(project: Path) -> None:
    replies = [Reply(content="first answer"), Reply(content="second answer")]
    with ChatServer(scripted(replies)) as server:
        env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
        cmd = [sys.executable, "-m", "skillyard", "--root", str(project / "skills")]
        cmd += ["--config", str(project / "skillyard.toml"), "chat", "--base-url", server.url, "--model", "m"]
        proc = subprocess.run(
            cmd, cwd=project, env=env, input="one\n\ntwo\n", capture_output=True, text=True, timeout=30
        )
    assert proc.returncode == 0, proc.stderr
    assert "first answer" in proc.stdout and "second answer" in proc.stdout
    assert [m["content"] for m in server.requests[1]["messages"] if m["role"] == "user"] == ["one", "two"]


def test_usage_errors(project: Path) -> None:
    proc = run_chat(project, "http://127.0.0.1:9/v1", "--once", "x", "--yes", "--ask")
    assert proc.returncode == 2 and "--yes and --ask" in proc.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    cmd = [sys.executable, "-m", "skillyard", "--root", str(project / "skills"), "chat", "--once", "x"]
    proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2 and "OPENAI_API_KEY is not set" in proc.stderr


# ---------------------------------------------------------------- hostile model output never crashes the loop

_NAMES = [
    "skills",
    "skill_load",
    "skill_run",
    "skill_list_docs",
    "read_skill",
    "skill",
    "",
    "x" * 300,
    "../etc",
]
_ARGUMENTS = st.one_of(
    st.text(max_size=40),
    st.dictionaries(
        st.sampled_from(["skill", "docs", "command", "env", "action", "skill_name", "mode", "junk"]),
        st.one_of(
            st.none(), st.booleans(), st.integers(), st.text(max_size=10), st.lists(st.text(max_size=5))
        ),
        max_size=4,
    ).map(json.dumps),
)
_REPLIES = st.lists(
    st.builds(
        Reply,
        content=st.one_of(st.none(), st.text(max_size=30)),
        tool_calls=st.lists(st.tuples(st.sampled_from(_NAMES), _ARGUMENTS), max_size=3),
    ),
    min_size=1,
    max_size=3,
)


@pytest.fixture(scope="module")
def hostile_server() -> Any:
    state: dict[str, Any] = {"replies": [Reply(content="x")], "start": 0}

    def script(_body: dict[str, Any], index: int) -> Reply:
        replies = state["replies"]
        return replies[min(index - state["start"], len(replies) - 1)]

    with ChatServer(script) as server:
        yield server, state


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(replies=_REPLIES, stream=st.booleans())
def test_hostile_model_output_never_crashes(
    project: Path, hostile_server: Any, replies: list[Reply], stream: bool
) -> None:
    from skillyard.chat import Chat, make_client
    from skillyard.config import load_config
    from skillyard.registry import Registry
    from skillyard.tools import Toolkit

    server, state = hostile_server
    state["replies"], state["start"] = replies, len(server.requests)
    registry = Registry.from_roots([project / "skills"], load_config(project / "skillyard.toml"))
    with Toolkit(registry) as toolkit:
        chat = Chat(
            toolkit,
            make_client(server.url, "sk-test", timeout=10),
            "m",
            approve=lambda name, raw: "runs are off in this test",
            max_tool_calls=5,
            stream=stream,
        )
        result = chat.turn("hello")
    calls = sum(len(m.get("tool_calls") or []) for m in chat.messages if m["role"] == "assistant")
    answers = [m for m in chat.messages if m["role"] == "tool"]
    assert len(answers) == calls  # every call the model made got an answer
    assert all(isinstance(m["content"], str) for m in answers)
    assert result.stopped is not None or result.text == (chat.messages[-1]["content"] or "")
