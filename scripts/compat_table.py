"""Render docs/compat.md from what tests/test_compat.py found, or rewrite it by running those tests.

    .venv/bin/python scripts/compat_table.py

runs tests/test_compat.py with SKILLYARD_COMPAT_WRITE=1, which makes its last test
write the table instead of comparing it with the committed one. The test file
imports `render` from here, so the table has one source of truth.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ClientInfo:
    key: str
    name: str
    tested_as: str


CLIENTS = (
    ClientInfo(
        "inspector", "MCP Inspector CLI", "npm `@modelcontextprotocol/inspector@2.12.0`, `--cli`, stdio"
    ),
    ClientInfo("fastmcp", "fastmcp `Client`", "`fastmcp>=4.2`, `StdioTransport`"),
    ClientInfo(
        "pydantic-ai", "pydantic-ai `MCPToolset`", "`pydantic-ai-slim[mcp]>=2.60`, stdio, `FunctionModel`"
    ),
    ClientInfo("openai-agents", "openai-agents `MCPServerStdio`", "`openai-agents>=0.20`, stdio"),
    ClientInfo(
        "langchain-mcp-adapters",
        "langchain-mcp-adapters `MultiServerMCPClient`",
        "`langchain-mcp-adapters==0.3.2` (with `mcp` 1.x, in a venv of its own), stdio",
    ),
)
SURFACES = (
    ("tools", "Tools"),
    ("resources", "Resources"),
    ("prompts", "Prompts"),
    ("skills", "Skills extension"),
)

HEADER = """\
# Compatibility with MCP clients

Which MCP clients can use which parts of `skillyard serve`. This page is
generated: `tests/test_compat.py` runs each client against a real
`skillyard serve` subprocess and fails when this page differs from what it
found; `.venv/bin/python scripts/compat_table.py` runs those tests and
rewrites it.

What each column checks, with the skill tree of `tests/test_mcp_support.py`:

- **Tools**: list the tools, call `skills` (`action: list`) and `skill_load`
  (the instructions come back in the result).
- **Resources**: list the resources, read `skill://alpha/SKILL.md`.
- **Prompts**: list the prompts (a skill with `user-invocable: false` has
  none), get `alpha` with `arguments: go`.
- **Skills extension**: `skills/list` and `skills/get`
  ([mcp.md](mcp.md#the-skills-extension-sep-2640)), through whatever the client
  offers for it; "n/a" says the client has no way to send them.

A cell says "yes" and the calls that were made, "n/a" and why the client
cannot do it, or "not tested" and why the client could not run.

"""


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def render(results: dict[str, dict[str, str]]) -> str:
    """The whole page for one run's results: {client key: {surface: cell text}}."""
    lines = [HEADER.rstrip("\n"), ""]
    lines.append("| client | " + " | ".join(title for _, title in SURFACES) + " |")
    lines.append("|---" * (len(SURFACES) + 1) + "|")
    for client in CLIENTS:
        cells = results.get(client.key, {})
        row = [_cell(cells.get(key, "missing from the run")) for key, _ in SURFACES]
        lines.append(f"| {client.name} | " + " | ".join(row) + " |")
    lines += ["", "## Tested as", ""]
    lines += [f"- {c.name}: {c.tested_as}" for c in CLIENTS]
    lines += [
        "",
        "The Inspector CLI sends one request per run and starts the server each",
        "time; every other client keeps one server process for all its checks.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    env = {**os.environ, "SKILLYARD_COMPAT_WRITE": "1"}
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(ROOT / "tests" / "test_compat.py")]
    rc = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    if rc == 0:
        print(f"wrote {ROOT / 'docs' / 'compat.md'}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
