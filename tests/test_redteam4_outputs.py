"""Execution outputs against a hostile command: secrets at the edges, odd files, odd names.

Every test runs a real command through the local executor (and, for the file kinds, the
sandbox when bubblewrap works here) and looks only at what the run returns to the model.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import FilesystemArtifactStore, RunRequest, SkillRunner
from skillyard.model import Skill

#: A secret-named variable's value (exact-value rule) and a provider-format token (pattern rule).
SECRET = "Zq8vR2mK7xW4pL9sT3nB6cY1dF5gH0jE"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _skill(root: Path) -> Skill:
    d = root / "demo"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: demo\ndescription: test skill\n---\nRun it.\n", encoding="utf-8")
    return Skill(name="demo", description="test skill", path=d / "SKILL.md")


@pytest.fixture
def runner(tmp_path: Path) -> Any:
    r = SkillRunner(
        executor="local",
        workspace_root=tmp_path / "ws",
        artifact_store=FilesystemArtifactStore(tmp_path / "artifacts"),
        timeout=30,
    )
    yield r
    r.close()


def _run(runner: SkillRunner, tmp_path: Path, **args: Any) -> dict[str, Any]:
    skill = _skill(tmp_path / "skills")
    req = RunRequest.from_arguments({"skill": "demo", "env": {"API_TOKEN": SECRET}, **args})
    return runner.run(skill, req, session_id="s").to_dict()


def _leaks(text: str) -> list[str]:
    """Any 8-character piece of either secret found in `text` (a prefix cut at a limit counts)."""
    return [s[i : i + 8] for s in (SECRET, TOKEN) for i in range(len(s) - 7) if s[i : i + 8] in text]


@pytest.mark.parametrize("cut", [4, 12, 20, 30])
@pytest.mark.parametrize("secret", [SECRET, TOKEN])
def test_a_secret_cut_by_the_output_file_limit_is_not_half_shown(
    runner: SkillRunner, tmp_path: Path, cut: int, secret: str
) -> None:
    """An output file larger than max_file_bytes is read up to the limit and then scrubbed, so a
    secret that straddled the limit came back as its first `cut` characters, which no rule knows."""
    cap = 1000
    pad = cap - cut
    cmd = f"head -c {pad} /dev/zero | tr '\\0' x > $OUTPUT_DIR/r.txt; printf ' %s tail\\n' '{secret}' >> $OUTPUT_DIR/r.txt"
    res = _run(
        runner,
        tmp_path,
        command=cmd,
        outputs={"globs": ["$OUTPUT_DIR/*.txt"], "inline": True, "max_file_bytes": cap},
    )
    (entry,) = res["output_files"]
    assert entry["truncated"] is True and entry["size_bytes"] > cap
    assert len(entry["content"].encode()) <= cap
    assert entry["content"].startswith("x" * 100)
    assert _leaks(entry["content"]) == [], entry["content"][-60:]


@pytest.mark.parametrize("stream", ["1", "2"])
def test_a_secret_at_the_stdout_or_stderr_limit_is_not_half_shown(tmp_path: Path, stream: str) -> None:
    cap = 1000
    with SkillRunner(
        executor="local", workspace_root=tmp_path / "ws", stdout_bytes=cap, stderr_bytes=cap
    ) as r:
        for cut in (4, 16, 28):
            cmd = f"{{ head -c {cap - cut} /dev/zero | tr '\\0' x; printf ' %s\\n' '{SECRET}' '{TOKEN}'; }} >&{stream}"
            res = _run(r, tmp_path / str(cut), command=cmd)
            text = res["stdout" if stream == "1" else "stderr"]
            assert text.startswith("xxxx") and len(text.encode()) <= cap
            assert _leaks(text) == []
            assert _leaks(json.dumps(res)) == []


def test_output_file_names_reach_the_terminal_spelled_out(tmp_path: Path, make_skill: Any) -> None:
    """`skillyard chat` printed each output file's name as it is: a command (or the model through
    skill_run) naming a file with escape sequences set the window title and cleared the screen, and a
    newline in the name printed a fake `[output]` line. `skillyard run` kept the newline as well."""
    pytest.importorskip("openai", reason="skillyard chat needs the openai package (the chat extra)")
    from openai_server import ChatServer, Reply, scripted
    from test_chat import run_chat

    make_skill(tmp_path / "skills", "wordcount", "Counts the words of a text")
    (tmp_path / "skillyard.toml").write_text('[execution]\nexecutor = "local"\ntimeout = 20\n')
    command = "printf x > \"out/$(printf 'a\\033]0;pwned\\033\\\\\\033[2J\\n[output] fake.txt (1 bytes)')\""
    run_args = json.dumps({"skill": "wordcount", "command": command, "output_files": ["out/*"]})
    turn = [Reply(tool_calls=[("skill_run", run_args)]), Reply(content="done")]
    with ChatServer(scripted(turn)) as server:
        proc = run_chat(tmp_path, server.url, "--once", "go", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "pwned" in proc.stderr  # the name is shown...
    assert "\x1b" not in proc.stderr  # ...with its escapes spelled out
    assert "\n[output] fake.txt" not in proc.stderr  # and its newline too

    skills = tmp_path / "skills"
    env = {**os.environ, "SKILLYARD_PATH": str(skills)}
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "skillyard",
            "run",
            "--executor",
            "local",
            "--output",
            "out/*",
            "wordcount",
            "--",
            "bash",
            "-c",
            command,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=skills,
    )
    assert cli.returncode == 0, cli.stderr
    assert "pwned" in cli.stderr and "\x1b" not in cli.stderr
    assert "\n[output] fake.txt" not in cli.stderr


@pytest.mark.parametrize("executor", ["local", "sandbox"])
def test_odd_output_files_are_refused_or_capped(
    tmp_path: Path, executor: str, request: pytest.FixtureRequest
) -> None:
    """A FIFO (reading it would block), links to a device and to a host file, a second hard link
    and a 200 MB sparse file among the outputs: the run returns, each odd one is left out with a
    warning or not matched, and the sparse file comes back capped."""
    import tempfile

    from skillyard.execution import SandboxExecutor

    if executor == "sandbox" and (reason := SandboxExecutor().probe()) is not None:
        pytest.skip(f"sandbox unavailable: {reason}")
    ws = Path(tempfile.mkdtemp(prefix="skillyard-rt4-"))  # the sandbox's uid must reach it
    os.chmod(ws, 0o711)
    cmd = (
        "cd $OUTPUT_DIR; mkfifo fifo; ln -s /dev/zero zero; ln -s /etc/passwd passwd; printf x > one; "
        "ln one two; truncate -s 200M sparse.txt; printf ok"
    )
    with SkillRunner(executor=executor, workspace_root=ws) as r:
        request.addfinalizer(lambda: shutil.rmtree(ws, ignore_errors=True))
        res = _run(
            r,
            tmp_path,
            command=cmd,
            outputs={"globs": ["$OUTPUT_DIR/*"], "inline": True, "max_file_bytes": 4096},
        )
    assert res["stdout"] == "ok", res
    got = {f["name"]: f for f in res["output_files"]}
    assert set(got) == {"out/sparse.txt"}, (got.keys(), res["warnings"])
    assert got["out/sparse.txt"]["truncated"] and got["out/sparse.txt"]["size_bytes"] == 200 * 2**20
    assert len(got["out/sparse.txt"]["content"]) <= 4096
    skipped = " ".join(w for w in res["warnings"] if w.startswith("output file skipped"))
    for name in ("zero", "passwd", "one", "two"):
        assert f"out/{name}" in skipped, res["warnings"]
