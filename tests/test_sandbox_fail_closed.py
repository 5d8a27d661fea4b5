"""When the sandbox cannot run, nothing runs: one line with the reason and the fix, never a traceback.

A broken bubblewrap is a real one: a `bwrap` earlier on PATH that fails the way a
bwrap bind-mounted over by /bin/false, or refused by the kernel, does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skillyard.config import Config, ExecutionSettings
from skillyard.execution import LocalExecutor
from skillyard.registry import Registry
from skillyard.tools import Toolkit

CANARY_CMD = "touch {canary}; echo RAN"


@pytest.fixture
def broken_path(tmp_path: Path) -> str:
    """A PATH whose first `bwrap` exits 1 like a refused or replaced bubblewrap."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake = bindir / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    return f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}"


@pytest.fixture
def skills(tmp_path: Path, make_skill: Any) -> Path:
    r = tmp_path / "skills"
    make_skill(r, "echoer", "Echoes things")
    tool = r / "echoer" / "SKILL.toml"
    tool.write_text(
        '[skill]\nname = "echoer"\ndescription = "Echoes things"\n\n'
        '[[tools]]\nname = "touch_canary"\ndescription = "touches a file"\nkind = "shell"\n'
        f'command = "{CANARY_CMD.format(canary=tmp_path / "toml-canary")}"\n',
        encoding="utf-8",
    )
    return r


def _cli(root: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    return subprocess.run(
        [sys.executable, "-m", "skillyard", "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_cli_run_refuses_with_one_line_and_exit_2(skills: Path, tmp_path: Path, broken_path: str) -> None:
    canary = tmp_path / "cli-canary"
    r = _cli(skills, broken_path, "run", "echoer", "--", CANARY_CMD.format(canary=canary))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and not canary.exists() and "RAN" not in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert "sandbox unavailable" in lines[0] and "fix:" in lines[0] and 'executor = "local"' in lines[0]
    # --json: the same refusal as data.
    r = _cli(skills, broken_path, "run", "--json", "echoer", "--", CANARY_CMD.format(canary=canary))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "sandbox unavailable" in json.loads(r.stdout)["error"] and not canary.exists()


def test_explicit_local_still_runs_and_says_so(skills: Path, tmp_path: Path, broken_path: str) -> None:
    canary = tmp_path / "local-canary"
    r = _cli(skills, broken_path, "run", "--executor", "local", "--json", "echoer", "--", f"touch {canary}")
    assert r.returncode == 0, r.stderr
    assert canary.exists()
    assert LocalExecutor.WARNING in json.loads(r.stdout)["warnings"]


def _toolkit_in_child(skills: Path, path: str, code: str) -> dict[str, Any]:
    """The toolkit in a child process whose PATH finds the broken bwrap (probes are cached per process)."""
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from skillyard.config import Config, ExecutionSettings\n"
        "from skillyard.registry import Registry\n"
        "from skillyard.tools import Toolkit\n"
        f"root = Path({str(skills)!r})\n"
        "kit = Toolkit(Registry.from_roots([root], Config(execution=ExecutionSettings(timeout=30))))\n" + code
    )
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_model_gets_an_error_result_not_a_fallback(skills: Path, tmp_path: Path, broken_path: str) -> None:
    canary = tmp_path / "model-canary"
    out = _toolkit_in_child(
        skills,
        broken_path,
        f"res = kit.call('skill_run', {{'skill': 'echoer', 'command': {CANARY_CMD.format(canary=canary)!r}}})\n"
        "tool = kit.call('touch_canary', {})\n"
        "print(json.dumps({'run': [res.content, res.is_error], 'tool': [tool.content, tool.is_error]}))\n",
    )
    text, is_error = out["run"]
    assert is_error and "sandbox unavailable" in text and "fix:" in text and not canary.exists()
    text, is_error = out["tool"]
    assert is_error and "sandbox unavailable" in text and not (tmp_path / "toml-canary").exists()


def test_default_configuration_is_the_sandbox(skills: Path) -> None:
    kit = Toolkit(Registry.from_roots([skills], Config(execution=ExecutionSettings())))
    assert kit.registry.config.execution.executor == "sandbox"
