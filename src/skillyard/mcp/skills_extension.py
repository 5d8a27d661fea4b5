"""The MCP Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on the official SDK.

Declares `{"directoryRead": true}` and serves `skills/list` (opaque cursor,
`ttlMs`, `cacheScope`), `skills/get` (-32602 for anything not served, listed
or not) and `resources/directory/read`. File reads go through the server's
`resources/read` (see server.py), which reads the same bytes the digests were
computed over. What is served and why is described in catalog.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio.to_thread
from mcp import MCPError
from mcp.server.extension import Extension, MethodBinding
from mcp_types import INVALID_PARAMS, PaginatedRequestParams, RequestParams

from skillyard._shown import shown
from skillyard.mcp.catalog import (
    DIRECTORY_MIME,
    SKILL_FILE,
    CatalogError,
    SkillCatalog,
    decode_cursor,
    encode_cursor,
    mime_type,
    skill_uri,
)

IDENTIFIER = "io.modelcontextprotocol/skills"
#: skills per `skills/list` page; entries are atomic and never split across pages
DEFAULT_PAGE_SIZE = 50
#: children per `resources/directory/read` page
DIRECTORY_PAGE_SIZE = 200


class ListSkillsParams(PaginatedRequestParams):
    """`skills/list` params: only the optional cursor."""


class GetSkillParams(RequestParams):
    """`skills/get` params: the SKILL.md URI."""

    uri: str


class DirectoryReadParams(PaginatedRequestParams):
    """`resources/directory/read` params: a directory URI and an optional cursor."""

    uri: str


def invalid(message: str) -> MCPError:
    return MCPError(INVALID_PARAMS, message)


class SkillsExtension(Extension):
    """SEP-2640 over a SkillCatalog; the freshness hints are the same on every result."""

    identifier = IDENTIFIER

    def __init__(
        self,
        catalog: SkillCatalog,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.catalog = catalog
        self.page_size = page_size

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("skills/list", ListSkillsParams, self.list_skills),
            MethodBinding("skills/get", GetSkillParams, self.get_skill),
            MethodBinding("resources/directory/read", DirectoryReadParams, self.read_directory),
        )

    # ------------------------------------------------------------ sync cores (also used by benchmarks)

    def _result(self, **fields: Any) -> dict[str, Any]:
        """A complete result with the freshness hints every result of the extension carries: no time to
        live (a reload may change the catalog at any moment), and private (no shared cache keeps it)."""
        return {"resultType": "complete", **fields, "ttlMs": 0, "cacheScope": "private"}

    def list_page(self, cursor: str | None) -> dict[str, Any]:
        """One `skills/list` result; manifests are computed only for the skills on this page."""
        try:
            after = decode_cursor("skills", cursor)
        except CatalogError as e:
            raise invalid(str(e)) from None
        skills, next_after = self.catalog.page(after, self.page_size)
        entries: list[dict[str, Any]] = []
        dynamic: list[dict[str, str]] = []
        for skill in skills:
            entry, man = self.catalog.entry(skill)
            entries.append(entry)
            if man.files == "dynamic":
                dynamic.append({"name": skill.name, "reason": man.reason or ""})
        result = self._result(skills=entries)
        if next_after is not None:
            result["nextCursor"] = encode_cursor("skills", next_after)
        if dynamic:
            result["_meta"] = {"io.skillyard/dynamic": dynamic}
        return result

    def get(self, uri: str) -> dict[str, Any]:
        try:
            skill = self.catalog.skill_for_uri(uri)
        except CatalogError:
            raise invalid(f"No skill is served at {str(uri)[:200]}") from None
        return self._result(skill=self.catalog.entry(skill)[0])

    def directory(self, uri: str, cursor: str | None) -> dict[str, Any]:
        try:
            after = decode_cursor("dir", cursor)
            skill, _rel, children = self.catalog.directory(uri)
        except CatalogError as e:
            raise invalid(str(e)) from None
        if after is not None:
            children = [c for c in children if c[0] > after]
        page = children[:DIRECTORY_PAGE_SIZE]
        resources: list[dict[str, Any]] = []
        for rel, is_dir, size in page:
            name = rel.rsplit("/", 1)[-1]
            mime = DIRECTORY_MIME if is_dir else mime_type(rel)
            item: dict[str, Any] = {"uri": skill_uri(skill.name, rel), "name": name, "mimeType": mime}
            if size is not None:  # directories have none
                item["size"] = size
            if rel == SKILL_FILE and not is_dir:
                item["description"] = shown(skill.description)
            resources.append(item)
        # 2026-era clients validate the SEP-2549 freshness hints on this result too
        result = self._result(resources=resources)
        if len(children) > DIRECTORY_PAGE_SIZE:
            result["nextCursor"] = encode_cursor("dir", page[-1][0])
        return result

    # ------------------------------------------------------------ async handlers

    async def list_skills(self, ctx: Any, params: ListSkillsParams) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(self.list_page, params.cursor)

    async def get_skill(self, ctx: Any, params: GetSkillParams) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(self.get, params.uri)

    async def read_directory(self, ctx: Any, params: DirectoryReadParams) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(self.directory, params.uri, params.cursor)
