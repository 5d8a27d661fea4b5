"""Two `skillyard run` commands at once: neither sees, collects or deletes the other's workspace.

The first run is held at a known point by a FIFO while the second runs to completion; the first
then checks that its skill copy and its output are still where it left them.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"


def _run(env: dict[str, str], skills: Path, *command: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "skillyard",
        "--root",
        str(skills),
        "run",
        "demo",
        "--executor",
        "local",
        "--json",
        "--output",
        "out/*.txt",
        "--",
        *command,
    ]


def test_a_second_run_neither_removes_nor_collects_the_first_runs_files(
    tmp_path: Path, make_skill: Any
) -> None:
    skills = tmp_path / "skills"
    make_skill(skills, "demo")
    up, go = tmp_path / "up", tmp_path / "go"
    os.mkfifo(up)
    os.mkfifo(go)
    temp = tmp_path / "temp"
    temp.mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": str(SRC), "TMPDIR": str(temp)}
    first = (
        f'echo A > "$OUTPUT_DIR/a.txt"; echo up > {up}; read x < {go}; '
        'cat "$OUTPUT_DIR/a.txt" "$SKILL_DIR/SKILL.md" > /dev/null && echo intact'
    )
    a = subprocess.Popen(_run(env, skills, "sh", "-c", first), env=env, stdout=subprocess.PIPE, text=True)
    try:
        with open(up) as f:  # the first run is under way, its output written
            assert f.read().strip() == "up"
        b = subprocess.run(
            _run(env, skills, "sh", "-c", 'echo B > "$OUTPUT_DIR/b.txt"'),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert b.returncode == 0, b.stderr
        second = json.loads(b.stdout)
        assert [o["name"] for o in second["output_files"]] == ["out/b.txt"]  # not the first run's
    finally:
        with open(go, "w") as f:
            f.write("go\n")
    out, _ = a.communicate(timeout=120)
    first_result = json.loads(out)
    assert first_result["stdout"].strip() == "intact", first_result
    assert [o["name"] for o in first_result["output_files"]] == ["out/a.txt"]


# `skillyard call ... --session FILE`, held right before it writes the session back.
PAUSED_CALL = r"""
import sys
from skillyard.cli import main
from skillyard.session import Session
real = Session.save
def paused(self, path):
    print("saving", flush=True)
    sys.stdin.readline()
    real(self, path)
Session.save = paused
sys.argv = ["skillyard", *sys.argv[1:]]
main()
"""


def test_two_calls_on_one_session_file_both_land(tmp_path: Path, make_skill: Any) -> None:
    skills = tmp_path / "skills"
    make_skill(skills, "alpha")
    make_skill(skills, "beta")
    session = tmp_path / "s.json"
    env = {**os.environ, "PYTHONPATH": str(SRC)}

    def argv(name: str) -> list[str]:
        return [
            "--root",
            str(skills),
            "call",
            "skill_load",
            json.dumps({"skill": name}),
            "--session",
            str(session),
        ]

    a = subprocess.Popen(
        [sys.executable, "-c", PAUSED_CALL, *argv("alpha")],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert a.stdin is not None and a.stdout is not None
    assert a.stdout.readline().strip() == "saving"
    b = subprocess.Popen(
        [sys.executable, "-m", "skillyard", *argv("beta")], env=env, stdout=subprocess.PIPE, text=True
    )
    with contextlib.suppress(subprocess.TimeoutExpired):
        b.wait(timeout=5)  # done, or waiting its turn
    a.stdin.write("go\n")
    a.stdin.close()
    assert a.wait(timeout=120) == 0
    assert b.wait(timeout=120) == 0
    assert b.stdout is not None and a.stdout is not None
    b.stdout.close()
    a.stdout.close()
    loaded = [item["skill"] for item in json.loads(session.read_text())["loaded"]]
    assert sorted(loaded) == ["alpha", "beta"]


def test_closing_a_session_during_its_run_lets_the_run_finish_first(tmp_path: Path, make_skill: Any) -> None:
    import threading

    from skillyard.execution import RunRequest, SkillRunner, get_executor
    from skillyard.parsing import parse_skill

    skill, _ = parse_skill(make_skill(tmp_path / "skills", "demo") / "SKILL.md", source="user")
    assert skill is not None
    up, go = tmp_path / "up", tmp_path / "go"
    os.mkfifo(up)
    os.mkfifo(go)
    runner = SkillRunner(executor=get_executor("local"), workspace_root=tmp_path / "ws")
    command = f'echo A > "$OUTPUT_DIR/a.txt"; echo up > {up}; read x < {go}; echo done'
    req = RunRequest.from_arguments({"skill": "demo", "command": command, "output_files": ["out/*.txt"]})
    results: dict[str, Any] = {}
    run = threading.Thread(target=lambda: results.update(run=runner.run(skill, req, session_id="s1")))
    run.start()
    with open(up) as f:
        assert f.read().strip() == "up"
    close = threading.Thread(target=lambda: results.update(closed=runner.close_session("s1")))
    close.start()
    close.join(timeout=5)  # done, or waiting for the run
    with open(go, "w") as f:
        f.write("go\n")
    run.join(timeout=120)
    close.join(timeout=120)
    assert results["run"].stdout == "done\n"
    assert [o["name"] for o in results["run"].output_files] == ["out/a.txt"]
    assert results["closed"] is True
    assert list((tmp_path / "ws").iterdir()) == []  # and then the workspace went


def test_a_fifo_in_place_of_the_session_lock_is_an_error_not_a_hang(tmp_path: Path, make_skill: Any) -> None:
    skills = tmp_path / "skills"
    make_skill(skills, "alpha")
    os.mkfifo(tmp_path / ".s.json.lock")
    argv = [
        "--root",
        str(skills),
        "call",
        "skill_load",
        '{"skill": "alpha"}',
        "--session",
        str(tmp_path / "s.json"),
    ]
    cp = subprocess.run(
        [sys.executable, "-m", "skillyard", *argv],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cp.returncode == 2 and "cannot write session file" in cp.stderr, cp.stderr
