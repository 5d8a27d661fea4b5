"""The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against skillyard's real HTTP server.

The server runs in fixture mode (`tests/conformance_server.py`: `SkillyardServer` plus the suite's
fixture tools, resources and prompts) as a subprocess on 127.0.0.1; the suite runs through `npx`
under Node 22 (the npm package `node`, since the suite needs a newer Node than Debian's). Three
runs: the 2025-11-25 scenarios, the 2026-07-28 requirement set, and the Skills-extension
(SEP-2640) scenarios. docs/mcp.md has the table.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_mcp_support import free_port, http_process, subprocess_env

CONFORMANCE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE = "node@22"
HERE = Path(__file__).resolve().parent
SUMMARY_LINE = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed", re.M)
UNSCORED_LINE = re.compile(r"^\s+[✓✗] (\S+) \((extension|pending)\)", re.M)
SKILLS_EXTENSION = ("sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest")

pytestmark = pytest.mark.skipif(
    shutil.which("npx") is None, reason="npx is not installed (npm's CLI runs the suite)"
)


def conformance(*args: str, home: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    cmd = ["npx", "--yes", "-p", NODE, "-p", CONFORMANCE, "--", "conformance", *args]
    env = subprocess_env(home)
    env["NO_COLOR"] = "1"
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def suite_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An npm home with the pinned suite fetched; skipped when the npm registry cannot be reached."""
    home = tmp_path_factory.mktemp("npm-home")
    got = conformance("--version", home=home, timeout=600)
    if got.returncode != 0:
        pytest.skip(f"{CONFORMANCE} could not be fetched with npx: {(got.stderr or got.stdout)[-300:]}")
    return home


@pytest.fixture(scope="module")
def fixture_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("conformance-server")
    port = free_port()
    cmd = [sys.executable, str(HERE / "conformance_server.py"), "--port", str(port)]
    with http_process(cmd, port, tmp, cwd=tmp) as url:
        yield url


def failures(out_dir: Path) -> list[str]:
    """Every failed check the suite recorded under `out_dir`, with its message (for assertion output)."""
    import json

    found: list[str] = []
    for checks in sorted(out_dir.glob("*/checks.json")):
        for check in json.loads(checks.read_text(encoding="utf-8")):
            if check.get("status") == "FAILURE":
                found.append(f"{checks.parent.name}: {check.get('id')}: {check.get('errorMessage')}"[:600])
    return found


def timed_out_only(out_dir: Path) -> bool:
    """Whether every failed check under `out_dir` is the suite's scenario timeout (nothing answered wrongly)."""
    return all(": scenario-timeout: " in line for line in failures(out_dir))


def rerun_passes(suite_home: Path, url: str, scenario: str) -> bool:
    got = conformance("server", "--url", url, "--scenario", scenario, home=suite_home, timeout=300)
    return got.returncode == 0 and re.search(r"Passed: (\d+)/\1, 0 failed", got.stdout) is not None


def summary(out: str) -> dict[str, tuple[bool, int, int]]:
    """scenario -> (passed, checks passed, checks failed), from the suite's SUMMARY block."""
    block = out.rsplit("=== SUMMARY ===", 1)[-1]
    return {m[2]: (m[1] == "✓", int(m[3]), int(m[4])) for m in SUMMARY_LINE.finditer(block)}


def test_2025_11_25_suite(suite_home: Path, fixture_server: str, tmp_path: Path) -> None:
    args = ("--url", fixture_server, "--spec-version", "2025-11-25", "-o", str(tmp_path))
    got = conformance("server", *args, home=suite_home)
    results = summary(got.stdout)
    assert len(results) >= 30, got.stdout[-2000:] + got.stderr[-2000:]
    failed = {name for name, r in results.items() if not r[0]}
    # A scenario whose server-to-client request (sampling, elicitation) inside a call times out is run
    # once more on its own: that happens in about one full run in five (docs/mcp.md, "Conformance suite");
    # any wrong answer fails at once.
    assert not failed or timed_out_only(tmp_path), (failed, failures(tmp_path))
    assert all(rerun_passes(suite_home, fixture_server, name) for name in failed), (
        failed,
        failures(tmp_path),
    )


def test_2026_07_28_requirements(suite_home: Path, fixture_server: str, tmp_path: Path) -> None:
    args = ("--url", fixture_server, "--requirements", "2026-07-28", "-o", str(tmp_path))
    got = conformance("server", *args, home=suite_home)
    results = summary(got.stdout)
    assert len(results) >= 35, got.stdout[-2000:] + got.stderr[-2000:]
    unscored = {m[1] for m in UNSCORED_LINE.finditer(got.stdout)}
    # Only scenarios the 2026-07-28 requirements do not score (the tasks extension, pending drafts) may fail.
    failed = {name for name, r in results.items() if not r[0]}
    assert failed <= unscored, (failed - unscored, failures(tmp_path))
    for required in ("server-stateless", "completion-complete", "sep-2164-resource-not-found", "caching"):
        assert results[required][0], required
    assert got.returncode == 0


@pytest.mark.parametrize("scenario", SKILLS_EXTENSION)
def test_skills_extension_scenarios(suite_home: Path, fixture_server: str, scenario: str) -> None:
    got = conformance("server", "--url", fixture_server, "--scenario", scenario, home=suite_home, timeout=300)
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-1000:]
    assert re.search(r"Passed: (\d+)/\1, 0 failed", got.stdout), got.stdout[-3000:]
