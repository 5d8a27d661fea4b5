"""Which MCP clients can use which parts of `skillyard serve`: the tests behind docs/compat.md.

Each client talks to a real `skillyard serve` subprocess over stdio (one server per
client, except the Inspector CLI, which starts the server for each request it
sends) and every surface is checked the same way: tools (list, call `skills` and
`skill_load`), resources (list, read a `skill://` resource), prompts (list, get
with an argument) and the Skills extension (`skills/list`, `skills/get`). Each
cell's outcome is recorded; `test_compat_table_is_current` then renders the table
and compares it with docs/compat.md, so the committed table says what this run
found. `python scripts/compat_table.py` runs this file and rewrites the table;
SKILLYARD_COMPAT_JSON=<path> also writes the raw cells there as JSON.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from filelock import FileLock

from test_mcp_support import PYTHON, make_tree, subprocess_env

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "compat.md"
SURFACES = ("tools", "resources", "prompts", "skills")
LANGCHAIN_ADAPTERS = "langchain-mcp-adapters==0.3.2"
CACHE = Path(
    os.environ.get("SKILLYARD_TEST_PY_CACHE", Path(tempfile.gettempdir()) / "skillyard-test-py-cache")
)
WRITE_ENV = "SKILLYARD_COMPAT_WRITE"


def _load_renderer() -> Any:
    """The renderer lives in scripts/ so the table can be written without pytest's help."""
    spec = importlib.util.spec_from_file_location("compat_table", ROOT / "scripts" / "compat_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


compat_table = _load_renderer()
CLIENTS: list[str] = [c.key for c in compat_table.CLIENTS]
# Filled by the client tests, read by the table test at the end of the file.
RESULTS: dict[str, dict[str, str]] = {}


class Row:
    """One client's cells: each surface is run, and what happened is written down either way."""

    def __init__(self, client: str) -> None:
        self.client = client
        self.cells: dict[str, str] = {}

    @contextmanager
    def cell(self, surface: str, how: str) -> Iterator[None]:
        try:
            yield
        except Exception as exc:  # recorded, then failed in finish()
            self.cells[surface] = f"FAILED: {type(exc).__name__}: {exc}"[:400]
        else:
            self.cells[surface] = f"yes: {how}"

    def not_exposed(self, surface: str, why: str) -> None:
        """A surface the client gives no way to reach: an "n/a" cell with the reason, never a pass."""
        self.cells[surface] = f"n/a: {why}"

    def finish(self) -> None:
        assert set(self.cells) == set(SURFACES), self.cells
        RESULTS[self.client] = dict(self.cells)
        failed = {s: v for s, v in self.cells.items() if v.startswith("FAILED")}
        assert not failed, failed


def not_tested(client: str, why: str) -> None:
    """A client that cannot run here: its whole row says so, and the test skips with the reason."""
    RESULTS[client] = {s: f"not tested: {why}" for s in SURFACES}
    pytest.skip(why)


# --- the same expectations for every client -------------------------------------------------


def check_tools(names: list[str], skills_text: str, load_text: str) -> None:
    assert {"skills", "skill_load", "read_skill"} <= set(names), names
    listed = {s["name"] for s in json.loads(skills_text)["skills"]}
    assert {"alpha", "pdf-tools", "toml-only"} <= listed, listed
    assert load_text.startswith("[Loaded] alpha") and "Do the thing." in load_text, load_text


def check_resources(uris: list[str], text: str) -> None:
    assert {"skill://alpha/SKILL.md", "skill://pdf-tools/references/api.md"} <= set(uris), uris
    assert text.startswith("---\nname: alpha\n") and text.endswith("Do the thing.\n"), text


def check_prompts(names: list[str], text: str) -> None:
    assert {"alpha", "pdf-tools"} <= set(names) and "no-prompt" not in names, names
    assert text == "Do the thing.\n\nARGUMENTS: go", text


def check_skills(names: list[str], got: str) -> None:
    assert names == ["alpha", "no-prompt", "pdf-tools"], names
    assert got == "alpha"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tree(tmp_path_factory.mktemp("compat") / "skills")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("compat-home")


def server_args(tree: Path) -> list[str]:
    return ["-m", "skillyard", "--root", str(tree), "serve"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- MCP Inspector CLI ----------------------------------------------------------------------


@pytest.mark.timeout(600)  # the first run installs the Inspector from npm
def test_inspector_cli(tree: Path, home: Path) -> None:
    import test_mcp_inspector as insp

    row = Row("inspector")
    try:
        binary = insp.inspector_bin()
    except pytest.skip.Exception as skip:
        not_tested(row.client, str(skip.msg))

    def call(*args: str) -> dict[str, Any]:
        rc, out = insp.run(binary, tree, home, "--protocol-era", "modern", "--method", *args)
        assert rc == 0 and "result" in out[0], out
        return out[0]["result"]

    with row.cell("tools", "`--method tools/list`, `tools/call`"):
        names = [t["name"] for t in call("tools/list")["tools"]]
        listed = call("tools/call", "--tool-name", "skills", "--tool-arg", "action=list")
        loaded = call("tools/call", "--tool-name", "skill_load", "--tool-arg", "skill=alpha")
        check_tools(names, listed["content"][0]["text"], loaded["content"][0]["text"])
    with row.cell("resources", "`--method resources/list`, `resources/read`"):
        uris = [r["uri"] for r in call("resources/list")["resources"]]
        read = call("resources/read", "--uri", "skill://alpha/SKILL.md")
        check_resources(uris, read["contents"][0]["text"])
    with row.cell("prompts", "`--method prompts/list`, `prompts/get`"):
        names = [p["name"] for p in call("prompts/list")["prompts"]]
        got = call("prompts/get", "--prompt-name", "alpha", "--prompt-args", "arguments=go")
        check_prompts(names, got["messages"][0]["content"]["text"])
    with row.cell("skills", "`--method skills/list`, `skills/get` (and `--verify`)"):
        rc, reports = insp.run(
            binary, tree, home, "--protocol-era", "modern", "--method", "skills/list", "--verify"
        )
        assert rc == 0 and all(r["outcome"] == "verified" for r in reports), reports
        got = call("skills/get", "--uri", "skill://alpha/SKILL.md")
        check_skills(sorted(r["name"] for r in reports), got["skill"]["frontmatter"]["name"])
    row.finish()


# --- fastmcp --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_fastmcp_client(tree: Path, home: Path) -> None:
    row = Row("fastmcp")
    try:
        from fastmcp import Client
        from fastmcp.client.transports import StdioTransport
        from fastmcp.skills import SkillsClientExtension
    except ImportError as exc:
        not_tested(row.client, f"fastmcp is not installed ({exc})")
    transport = StdioTransport(
        command=PYTHON, args=server_args(tree), env=subprocess_env(home), cwd=str(tree.parent)
    )
    with anyio.fail_after(60):
        async with Client(transport, extensions=[SkillsClientExtension()]) as c:
            with row.cell("tools", "`Client.list_tools`, `call_tool`"):
                names = [t.name for t in await c.list_tools()]
                listed = await c.call_tool("skills", {"action": "list"})
                loaded = await c.call_tool("skill_load", {"skill": "alpha"})
                check_tools(names, listed.content[0].text, loaded.content[0].text)
            with row.cell("resources", "`list_resources`, `read_resource`"):
                uris = [str(r.uri) for r in await c.list_resources()]
                read = await c.read_resource("skill://alpha/SKILL.md")
                check_resources(uris, read[0].text)
            with row.cell("prompts", "`list_prompts`, `get_prompt`"):
                names = [p.name for p in await c.list_prompts()]
                got = await c.get_prompt("alpha", {"arguments": "go"})
                check_prompts(names, got.messages[0].content.text)
            with row.cell("skills", "`list_skills`, `get_skill` with `SkillsClientExtension()`"):
                skills = await c.list_skills()
                one = await c.get_skill("skill://alpha/SKILL.md")
                check_skills([s.frontmatter.root["name"] for s in skills], one.frontmatter.root["name"])
    row.finish()


# --- pydantic-ai ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_pydantic_ai_toolset(tree: Path, home: Path) -> None:
    """The tools go through an agent run (a scripted `FunctionModel`), as a pydantic-ai user would call them."""
    row = Row("pydantic-ai")
    try:
        from fastmcp import Client
        from fastmcp.client.transports import StdioTransport
        from fastmcp.skills import SkillsClientExtension
        from pydantic_ai import Agent
        from pydantic_ai.mcp import MCPToolset
        from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel
    except ImportError as exc:
        not_tested(row.client, f"pydantic-ai's MCP support is not installed ({exc})")
    seen_tools: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen_tools[:] = [t.name for t in info.function_tools]
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("skills", {"action": "list"})])
        if len(returns) == 1:
            return ModelResponse(parts=[ToolCallPart("skill_load", {"skill": "alpha"})])
        # a result with structuredContent reaches the model as that object, plain text as text
        texts = [r.content if isinstance(r.content, str) else json.dumps(r.content) for r in returns]
        return ModelResponse(parts=[TextPart(json.dumps(texts))])

    transport = StdioTransport(
        command=PYTHON, args=server_args(tree), env=subprocess_env(home), cwd=str(tree.parent)
    )
    toolset = MCPToolset(Client(transport, extensions=[SkillsClientExtension()]))
    agent = Agent(FunctionModel(script), toolsets=[toolset])
    with anyio.fail_after(60):
        async with toolset:
            with row.cell("tools", "`MCPToolset` in an `Agent` run"):
                result = await agent.run("Load the alpha skill.")
                listed, loaded = json.loads(result.output)
                check_tools(seen_tools, listed, loaded)
            with row.cell("resources", "`MCPToolset.list_resources`, `read_resource`"):
                uris = [r.uri for r in await toolset.list_resources()]
                read = await toolset.read_resource("skill://alpha/SKILL.md")
                assert isinstance(read, str), read
                check_resources(uris, read)
            with row.cell("prompts", "`MCPToolset.list_prompts`, `get_prompt`"):
                names = [p.name for p in await toolset.list_prompts()]
                got = await toolset.get_prompt("alpha", {"arguments": "go"})
                check_prompts(names, got.messages[0].content.content)
            with row.cell("skills", "through `MCPToolset.client`, the fastmcp `Client` it wraps"):
                skills = await toolset.client.list_skills()
                one = await toolset.client.get_skill("skill://alpha/SKILL.md")
                check_skills([s.frontmatter.root["name"] for s in skills], one.frontmatter.root["name"])
    row.finish()


# --- openai-agents --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_openai_agents_server(tree: Path, home: Path) -> None:
    from test_mcp_support import (
        GetSkillRequest,
        GetSkillResult,
        ListSkillsParams,
        ListSkillsRequest,
        ListSkillsResult,
        UriParams,
    )

    row = Row("openai-agents")
    try:
        from agents.mcp import MCPServerStdio
    except ImportError as exc:
        not_tested(row.client, f"openai-agents is not installed ({exc})")
    params = {
        "command": PYTHON,
        "args": server_args(tree),
        "env": subprocess_env(home),
        "cwd": str(tree.parent),
    }
    with anyio.fail_after(60):
        async with MCPServerStdio(params=params, client_session_timeout_seconds=30) as server:
            with row.cell("tools", "`MCPServerStdio.list_tools`, `call_tool`"):
                names = [t.name for t in await server.list_tools()]
                listed = await server.call_tool("skills", {"action": "list"})
                loaded = await server.call_tool("skill_load", {"skill": "alpha"})
                check_tools(names, listed.content[0].text, loaded.content[0].text)
            with row.cell("resources", "`list_resources`, `read_resource`"):
                uris = [str(r.uri) for r in (await server.list_resources()).resources]
                read = await server.read_resource("skill://alpha/SKILL.md")
                check_resources(uris, read.contents[0].text)
            with row.cell("prompts", "`list_prompts`, `get_prompt`"):
                names = [p.name for p in (await server.list_prompts()).prompts]
                got = await server.get_prompt("alpha", {"arguments": "go"})
                check_prompts(names, got.messages[0].content.text)
            with row.cell("skills", "through `MCPServerStdio.session`, the `mcp` SDK session it keeps"):
                assert server.session is not None
                skills = await server.session.send_request(
                    ListSkillsRequest(params=ListSkillsParams()), ListSkillsResult
                )
                one = await server.session.send_request(
                    GetSkillRequest(params=UriParams(uri="skill://alpha/SKILL.md")), GetSkillResult
                )
                check_skills(
                    [s["frontmatter"]["name"] for s in skills.skills], one.skill["frontmatter"]["name"]
                )
    row.finish()


# --- langchain-mcp-adapters -----------------------------------------------------------------


def langchain_python() -> Path:
    """A venv of its own with the adapters: their 0.3.x line needs the 1.x `mcp` SDK, skillyard 2.x."""
    venv = CACHE / "langchain-mcp-adapters-0.3.2"
    python = venv / "bin" / "python"
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(venv) + ".lock", timeout=600):
        if not (venv / ".installed").exists():
            try:
                subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=120)
                proc = subprocess.run(
                    [
                        str(python),
                        "-m",
                        "pip",
                        "install",
                        "-q",
                        "--disable-pip-version-check",
                        LANGCHAIN_ADAPTERS,
                    ],
                    capture_output=True,
                    timeout=420,
                )
            except (subprocess.SubprocessError, OSError) as exc:
                not_tested("langchain-mcp-adapters", f"creating its venv failed ({exc})")
            if proc.returncode != 0:
                tail = proc.stderr.decode(errors="replace")[-300:]
                not_tested(
                    "langchain-mcp-adapters", f"pip install {LANGCHAIN_ADAPTERS} failed (offline?): {tail}"
                )
            (venv / ".installed").touch()
    return python


@pytest.mark.timeout(600)  # the first run builds the adapters' venv
def test_langchain_mcp_adapters(tree: Path, home: Path) -> None:
    row = Row("langchain-mcp-adapters")
    python = langchain_python()
    env = subprocess_env(home)
    proc = subprocess.run(
        [
            str(python),
            str(Path(__file__).with_name("compat_langchain_driver.py")),
            PYTHON,
            str(tree),
            str(tree.parent),
            json.dumps(env),
        ],
        capture_output=True,
        timeout=120,
        cwd=str(tree.parent),
        env={k: v for k, v in env.items() if k != "PYTHONPATH"},
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    seen = json.loads(proc.stdout)

    def observed(surface: str) -> dict[str, Any]:
        if "error" in seen[surface]:
            raise AssertionError(seen[surface]["error"])
        return seen[surface]

    with row.cell("tools", "`load_mcp_tools` on `MultiServerMCPClient.session()`, `ainvoke`"):
        got = observed("tools")
        check_tools(got["names"], got["skills"], got["load"])
    with row.cell("resources", "`session.list_resources`, `load_mcp_resources`"):
        got = observed("resources")
        check_resources(got["uris"], got["text"])
    with row.cell("prompts", "`session.list_prompts`, `load_mcp_prompt`"):
        got = observed("prompts")
        check_prompts(got["names"], got["text"])
    with row.cell("skills", "through the `mcp` 1.x session: `session.send_request`"):
        got = observed("skills")
        check_skills(got["names"], got["got"])
    row.finish()


# --- the table ------------------------------------------------------------------------------


def test_compat_table_is_current() -> None:
    """Last in the file on purpose: it needs every client's row from this run."""
    missing = [c for c in CLIENTS if c not in RESULTS]
    if missing:
        pytest.skip(
            f"rows missing from this run ({', '.join(missing)}): run the whole of tests/test_compat.py"
        )
    table = compat_table.render(RESULTS)
    out = os.environ.get("SKILLYARD_COMPAT_JSON")
    if out:
        Path(out).write_text(json.dumps(RESULTS, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    failed = sorted(c for c, cells in RESULTS.items() if any(v.startswith("FAILED") for v in cells.values()))
    assert not failed, f"clients with failed cells, so the table is not written or compared: {failed}"
    if os.environ.get(WRITE_ENV) == "1":
        DOC.write_text(table, encoding="utf-8")
        return
    untested = sorted(
        c for c, cells in RESULTS.items() if any(v.startswith("not tested") for v in cells.values())
    )
    if untested:
        pytest.skip(
            f"not every client could run here ({', '.join(untested)}), so docs/compat.md is not compared"
        )
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    assert current == table, (
        "docs/compat.md does not match what tests/test_compat.py found in this run; "
        "regenerate it with `.venv/bin/python scripts/compat_table.py` and commit the result"
    )
