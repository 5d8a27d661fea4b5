"""Two `skillyard run` commands at once: neither sees, collects or deletes the other's workspace.

The first run is held at a known point by a FIFO while the second runs to completion; the first
then checks that its skill copy and its output are still where it left them.
"""

from __future__ import annotations

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
