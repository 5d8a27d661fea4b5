"""Shared helpers for the MCP tests: client-side request models for the Skills extension and a skill tree.

Holds no tests itself; the test_mcp_* files import it.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types
from mcp import Client
from mcp_types import BlobResourceContents, PaginatedRequestParams, RequestParams

SRC = Path(__file__).resolve().parents[1] / "src"


class ListSkillsParams(PaginatedRequestParams):
    pass


class UriParams(RequestParams):
    uri: str


class DirParams(PaginatedRequestParams):
    uri: str


class ListSkillsRequest(mcp_types.Request[ListSkillsParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class GetSkillRequest(mcp_types.Request[UriParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


class DirRequest(mcp_types.Request[DirParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"


class ListSkillsResult(mcp_types.PaginatedResult, mcp_types.CacheableResult):
    skills: list[dict[str, Any]]


class GetSkillResult(mcp_types.CacheableResult):
    skill: dict[str, Any]


class DirResult(mcp_types.PaginatedResult):
    resources: list[dict[str, Any]]


async def list_skills(client: Client, cursor: str | None = None) -> ListSkillsResult:
    return await client.session.send_request(
        ListSkillsRequest(params=ListSkillsParams(cursor=cursor)), ListSkillsResult
    )


async def list_all_skills(client: Client) -> tuple[list[dict[str, Any]], int]:
    """Every entry over all pages, and the number of pages."""
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await list_skills(client, cursor)
        pages += 1
        out.extend(page.skills)
        cursor = page.next_cursor
        if cursor is None:
            return out, pages
        assert pages < 10_000


async def get_skill(client: Client, uri: str) -> GetSkillResult:
    return await client.session.send_request(GetSkillRequest(params=UriParams(uri=uri)), GetSkillResult)


async def read_dir(client: Client, uri: str, cursor: str | None = None) -> DirResult:
    return await client.session.send_request(DirRequest(params=DirParams(uri=uri, cursor=cursor)), DirResult)


async def read_bytes(client: Client, uri: str) -> bytes:
    """The exact bytes of a resource: a blob is base64-decoded, text is UTF-8 encoded."""
    res = await client.read_resource(uri)
    assert len(res.contents) == 1
    c = res.contents[0]
    if isinstance(c, BlobResourceContents):
        return base64.b64decode(c.blob)
    return c.text.encode("utf-8")


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write_skill(
    root: Path,
    name: str,
    *,
    extra: str = "",
    body: str = "Do the thing.\n",
    files: dict[str, bytes | str] | None = None,
) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    fm = f"---\nname: {name}\ndescription: Skill {name} does a useful thing for tests.\n{extra}---\n\n"
    (d / "SKILL.md").write_text(fm + body, encoding="utf-8")
    for rel, data in (files or {}).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            p.write_text(data, encoding="utf-8")
        else:
            p.write_bytes(data)
    return d


def make_tree(root: Path) -> Path:
    """A root with the cases the extension must handle."""
    root.mkdir(parents=True, exist_ok=True)
    write_skill(
        root,
        "pdf-tools",
        extra="license: MIT\nmetadata:\n  author: someone\n  tags: [pdf, docs]\n",
        body="Use $ARGUMENTS on the PDF. First: $0. Dir: ${CLAUDE_SKILL_DIR}. Literal \\$1.\n",
        files={
            "scripts/extract.py": "print('hi')\n",
            "references/api.md": "# API\n",
            "references/deep/more.md": "deeper\n",
            "assets/logo.bin": bytes(range(256)) * 3,
            "crlf.txt": b"\xef\xbb\xbfline one\r\nline two\r\n",
            "empty-dir/.keep": b"",
        },
    )
    write_skill(root, "alpha", files={"notes.txt": "alpha notes\n"})
    write_skill(
        root,
        "needs-bin",
        extra="metadata:\n  openclaw:\n    requires:\n      bins: [definitely-not-a-real-binary-xyz]\n",
    )
    write_skill(root, "no-prompt", extra="user-invocable: false\n")
    toml = root / "toml-only"
    toml.mkdir()
    (toml / "SKILL.toml").write_text(
        '[skill]\nname = "toml-only"\ndescription = "Shell tools from a SKILL.toml for tests."\n\n'
        '[[tools]]\nname = "say_hi"\ndescription = "Print hi"\nkind = "shell"\ncommand = "echo hi"\n',
        encoding="utf-8",
    )
    # a symlink inside a skill must be neither listed nor readable
    secret = root.parent / "secret.txt"
    secret.write_text("top secret\n", encoding="utf-8")
    try:
        os.symlink(secret, root / "alpha" / "leak.txt")
    except OSError:
        pass
    return root


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def subprocess_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLYARD")}
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_DATA_HOME"] = str(home / ".local/share")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


PYTHON = sys.executable


def serve_cmd(tree: Path | Sequence[Path], *args: str, config: Path | None = None) -> list[str]:
    cfg = ["--config", str(config)] if config else []
    flags = [f for r in _roots(tree) for f in ("--root", str(r))]
    return [PYTHON, "-m", "skillyard", *flags, *cfg, "serve", "--transport", "http", *args]


def _roots(tree: Path | Sequence[Path]) -> list[Path]:
    return [tree] if isinstance(tree, Path) else list(tree)


@contextmanager
def serving(
    tree: Path | Sequence[Path], tmp_path: Path, *args: str, config: Path | None = None
) -> Iterator[str]:
    """The real server as a subprocess on 127.0.0.1 over one root or several; yields its /mcp URL."""
    port = free_port()
    cmd = serve_cmd(tree, "--port", str(port), *args, config=config)
    with http_process(cmd, port, tmp_path, cwd=_roots(tree)[0].parent) as url:
        yield url


@contextmanager
def http_process(cmd: list[str], port: int, tmp_path: Path, *, cwd: Path) -> Iterator[str]:
    """`cmd` (an MCP server listening on `port`) as a subprocess; yields its /mcp URL once it accepts
    connections, and stops it afterwards. Its output goes to a log shown if it exits early."""
    import socket

    log_path = tmp_path / f"server-{port}.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        cmd, env=subprocess_env(tmp_path / "home"), cwd=str(cwd), stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError(log_path.read_text(errors="replace"))
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


#: A raw 2025-era `initialize` request and the headers a streamable-HTTP POST carries.
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
POST_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class Seen:
    """Every notification a client received (its `message_handler`), by method."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(getattr(message, "method", None), str):
            self.messages.append(message)

    def methods(self) -> list[str]:
        return [m.method for m in self.messages]

    def count(self, method: str) -> int:
        return sum(1 for m in self.messages if m.method == method)

    async def wait_for(
        self, method: str, after: int = 0, *, uri: str | None = None, timeout: float = 30
    ) -> Any:
        """The first notification of `method` (for `uri`, if given) after the first `after` of them."""
        with anyio.fail_after(timeout):
            while True:
                hits = [
                    m
                    for m in self.messages
                    if m.method == method and (uri is None or getattr(m.params, "uri", None) == uri)
                ]
                if len(hits) > after:
                    return hits[after]
                await anyio.sleep(0.02)
