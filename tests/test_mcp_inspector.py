"""The MCP Inspector CLI (Node.js) as an outside client of `skillyard serve` over stdio.

The Inspector is installed from npm into a cache directory under the system
temp dir on first use. The standalone `@modelcontextprotocol/inspector-cli`
package (1.0.3) cannot run outside the Inspector's own tree (it imports a
module it does not ship), so the test installs `@modelcontextprotocol/inspector`
and uses its `--cli` mode, which includes the SEP-2640 `--verify` checks.
Without Node.js or npm, or when the install fails (offline), the test skips
and says why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from test_mcp_support import PYTHON, make_tree, subprocess_env

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
CACHE = Path(
    os.environ.get("SKILLYARD_TEST_NODE_CACHE", Path(tempfile.gettempdir()) / "skillyard-test-node-cache")
)


def inspector_bin() -> Path:
    """Install the Inspector once into the cache (or skip with the reason)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js/npm not installed")
    prefix = CACHE / "inspector-2.12.0"
    binary = prefix / "node_modules" / ".bin" / "mcp-inspector"
    prefix.mkdir(parents=True, exist_ok=True)
    with FileLock(str(prefix) + ".lock", timeout=600):
        if not binary.exists():
            try:
                proc = subprocess.run(
                    [
                        "npm",
                        "install",
                        "--prefix",
                        str(prefix),
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                        INSPECTOR,
                    ],
                    capture_output=True,
                    timeout=420,
                    env={**os.environ, "npm_config_update_notifier": "false"},
                )
            except subprocess.TimeoutExpired:
                pytest.skip("npm install of the MCP Inspector timed out (offline?)")
            if proc.returncode != 0 or not binary.exists():
                tail = proc.stderr.decode(errors="replace")[-300:]
                pytest.skip(f"npm install of the MCP Inspector failed (offline?): {tail}")
    return binary


@pytest.fixture(scope="module")
def inspector() -> Path:
    return inspector_bin()


def run(inspector: Path, tree: Path, home: Path, *args: str) -> tuple[int, Any]:
    cmd = [
        "node",
        str(inspector),
        "--cli",
        *args,
        "--format",
        "json",
        "-q",
        PYTHON,
        "-m",
        "skillyard",
        "--root",
        str(tree),
        "serve",
    ]
    proc = subprocess.run(
        cmd, capture_output=True, timeout=120, env=subprocess_env(home), cwd=str(tree.parent)
    )
    out = proc.stdout.decode()
    lines = [json.loads(line) for line in out.splitlines() if line.strip().startswith("{")]
    if not lines:
        lines = [json.loads(out)] if out.strip() else [proc.stderr.decode(errors="replace")]
    return proc.returncode, lines


def test_inspector_verifies_every_skill(inspector: Path, tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "skills")
    rc, reports = run(
        inspector, tree, tmp_path / "home", "--protocol-era", "modern", "--method", "skills/list", "--verify"
    )
    assert rc == 0, reports
    assert sorted(r["name"] for r in reports) == ["alpha", "no-prompt", "pdf-tools"]
    for r in reports:
        assert r["ok"] and r["outcome"] == "verified", r
        assert r["conformance"] == [] and r["frontmatter"] == []
        assert all(f["status"] == "verified" for f in r["files"])
    pdf = next(r for r in reports if r["name"] == "pdf-tools")
    assert len(pdf["files"]) == 7


def test_inspector_tools_prompts_and_directories(inspector: Path, tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "skills")
    home = tmp_path / "home"
    for era in ("legacy", "modern"):
        rc, out = run(inspector, tree, home, "--protocol-era", era, "--method", "tools/list")
        assert rc == 0, out
        names = {t["name"] for t in out[0]["result"]["tools"]}
        assert {"skills", "skill_load", "read_skill", "skill"} <= names
        rc, out = run(
            inspector, tree, home, "--protocol-era", era, "--method", "tools/call", "--tool-name", "read_skill",
            "--tool-arg", "skill_name=alpha",
        )  # fmt: skip
        assert rc == 0, out
        assert out[0]["result"]["content"][0]["text"] == "Do the thing."
        assert out[0]["result"]["isError"] is False
    rc, out = run(
        inspector, tree, home, "--protocol-era", "modern", "--method", "resources/directory/read",
        "--uri", "skill://pdf-tools/references",
    )  # fmt: skip
    assert rc == 0, out
    assert {r["uri"]: r["mimeType"] for r in out[0]["result"]["resources"]} == {
        "skill://pdf-tools/references/api.md": "text/markdown",
        "skill://pdf-tools/references/deep": "inode/directory",
    }
    rc, out = run(
        inspector,
        tree,
        home,
        "--protocol-era",
        "modern",
        "--method",
        "skills/get",
        "--uri",
        "skill://nope/SKILL.md",
    )
    assert rc != 0
    assert "No skill is served at skill://nope/SKILL.md" in json.dumps(out)
    rc, out = run(
        inspector, tree, home, "--protocol-era", "legacy", "--method", "prompts/get", "--prompt-name", "alpha",
        "--prompt-args", "arguments=hello",
    )  # fmt: skip
    assert rc == 0, out
    assert out[0]["result"]["messages"][0]["content"]["text"].endswith("ARGUMENTS: hello")
