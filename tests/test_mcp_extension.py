"""The MCP Skills extension (SEP-2640) in-process with the official SDK client, modern and legacy modes."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, MCPError

from skillyard.mcp import build_server
from skillyard.mcp.catalog import MAX_RESOURCES, SkillCatalog
from skillyard.registry import Registry
from test_mcp_support import (
    get_skill,
    list_all_skills,
    list_skills,
    make_tree,
    read_bytes,
    read_dir,
    sha,
    write_skill,
)

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]
NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "skills")


@pytest.fixture
def registry(tree: Path) -> Registry:
    return Registry.from_roots([tree])


@pytest.mark.parametrize("mode", MODES)
async def test_capability_and_entries(registry: Registry, tree: Path, mode: str) -> None:
    server = build_server(registry)
    async with Client(server, mode=mode) as c:
        if mode == "auto":
            assert c.protocol_version == "2026-07-28"
            assert c.server_capabilities.extensions == {
                "io.modelcontextprotocol/skills": {"directoryRead": True}
            }
            assert c.server_capabilities.resources is not None
        else:
            assert c.server_capabilities.extensions is None  # handshake-era clients never see extensions
        entries, _ = await list_all_skills(c)
        names = [e["frontmatter"]["name"] for e in entries]
        # only eligible SKILL.md skills; the toml-only and the ineligible one are not served
        assert names == ["alpha", "no-prompt", "pdf-tools"]
        for e in entries:
            name = e["frontmatter"]["name"]
            assert NAME_RE.match(name)
            assert e["uri"] == f"skill://{name}/SKILL.md"
            assert e["frontmatter"] == registry.get(name).frontmatter
            assert isinstance(e["resources"], list)
            uris = [r["uri"] for r in e["resources"]]
            assert len(uris) == len(set(uris))
            assert f"skill://{name}/SKILL.md" in uris
            for r in e["resources"]:
                assert r["uri"].startswith(f"skill://{name}/")
                assert re.fullmatch(r"sha256:[0-9a-f]{64}", r["digest"])
                data = await read_bytes(c, r["uri"])
                assert len(data) == r["size"], r["uri"]
                assert sha(data) == r["digest"], r["uri"]
                rel = r["uri"].removeprefix(f"skill://{name}/")
                assert data == (tree / name / rel).read_bytes()
        pdf = next(e for e in entries if e["frontmatter"]["name"] == "pdf-tools")
        rels = sorted(r["uri"].removeprefix("skill://pdf-tools/") for r in pdf["resources"])
        assert rels == sorted(
            [
                "SKILL.md",
                "assets/logo.bin",
                "crlf.txt",
                "empty-dir/.keep",
                "references/api.md",
                "references/deep/more.md",
                "scripts/extract.py",
            ]
        )
        assert pdf["frontmatter"]["metadata"] == {"author": "someone", "tags": ["pdf", "docs"]}
        alpha = next(e for e in entries if e["frontmatter"]["name"] == "alpha")
        assert "skill://alpha/leak.txt" not in [r["uri"] for r in alpha["resources"]]


@pytest.mark.parametrize("mode", MODES)
async def test_list_result_shape_and_pagination(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "many"
    for i in range(23):
        write_skill(root, f"skill-{i:03d}")
    server = build_server(Registry.from_roots([root]), page_size=5)
    async with Client(server, mode=mode) as c:
        first = await list_skills(c)
        assert len(first.skills) == 5
        assert first.next_cursor
        assert first.ttl_ms == 0 and first.cache_scope == "private"
        entries, pages = await list_all_skills(c)
        assert pages == 5
        assert [e["frontmatter"]["name"] for e in entries] == [f"skill-{i:03d}" for i in range(23)]
        with pytest.raises(MCPError) as err:
            await list_skills(c, "not-a-cursor!!")
        assert err.value.error.code == -32602
        deep = base64.urlsafe_b64encode(b"[" * 1500).decode()  # JSON nested past the decoder's depth
        with pytest.raises(MCPError) as err:
            await list_skills(c, deep)
        assert (err.value.error.code, err.value.error.message) == (-32602, "Invalid cursor")
        with pytest.raises(MCPError) as err:
            await read_dir(c, "skill://skill-000", cursor="bogus")
        assert err.value.error.code == -32602


async def test_pagination_is_stable_across_a_reload(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for i in range(10):
        write_skill(root, f"s-{i:02d}")
    registry = Registry.from_roots([root])
    async with Client(build_server(registry, page_size=4)) as c:
        page = await list_skills(c)
        seen = [e["frontmatter"]["name"] for e in page.skills]
        write_skill(root, "s-00a")  # sorts inside the page already seen
        write_skill(root, "s-99")  # sorts after
        registry.reload()
        cursor = page.next_cursor
        while cursor:
            page = await list_skills(c, cursor)
            seen += [e["frontmatter"]["name"] for e in page.skills]
            cursor = page.next_cursor
        assert seen == [f"s-{i:02d}" for i in range(10)] + ["s-99"]


@pytest.mark.parametrize("mode", MODES)
async def test_get_known_unknown_and_unlisted(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        got = await get_skill(c, "skill://pdf-tools/SKILL.md")  # never listed on this client
        assert got.skill["uri"] == "skill://pdf-tools/SKILL.md"
        assert got.ttl_ms == 0 and got.cache_scope == "private"
        dumped = got.model_dump(by_alias=True)
        assert "nextCursor" not in dumped or dumped["nextCursor"] is None
        page = await list_skills(c)
        assert got.skill == next(e for e in page.skills if e["uri"] == got.skill["uri"])
        for uri in [
            "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md",
            "skill://needs-bin/SKILL.md",  # ineligible
            "skill://toml-only/SKILL.md",  # no SKILL.md
            "skill://pdf-tools/scripts/extract.py",  # not a SKILL.md URI
            "skill://pdf-tools",
            "skill://pdf-tools/../alpha/SKILL.md",
            "file:///etc/passwd",
            "skill://PDF-TOOLS/SKILL.md",
            "",
        ]:
            with pytest.raises(MCPError) as err:
                await get_skill(c, uri)
            assert err.value.error.code == -32602, uri
        with pytest.raises(MCPError) as err:
            await get_skill(c, "skill://acme/billing/chargebacks/SKILL.md")
        assert err.value.error.code == -32602
        assert "No skill is served at skill://acme/billing/chargebacks/SKILL.md" in err.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_directory_read(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        root = await read_dir(c, "skill://pdf-tools")
        by_uri = {r["uri"]: r for r in root.resources}
        assert set(by_uri) == {
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/assets",
            "skill://pdf-tools/crlf.txt",
            "skill://pdf-tools/empty-dir",
            "skill://pdf-tools/references",
            "skill://pdf-tools/scripts",
        }
        assert by_uri["skill://pdf-tools/references"]["mimeType"] == "inode/directory"
        assert by_uri["skill://pdf-tools/SKILL.md"]["mimeType"] == "text/markdown"
        refs = await read_dir(c, "skill://pdf-tools/references")
        assert {r["uri"]: r["mimeType"] for r in refs.resources} == {
            "skill://pdf-tools/references/api.md": "text/markdown",
            "skill://pdf-tools/references/deep": "inode/directory",
        }
        deep = await read_dir(c, "skill://pdf-tools/references/deep")
        assert [r["uri"] for r in deep.resources] == ["skill://pdf-tools/references/deep/more.md"]
        # a trailing slash names the same directory
        assert (await read_dir(c, "skill://pdf-tools/references/")).resources == refs.resources
        alpha = await read_dir(c, "skill://alpha")
        assert "skill://alpha/leak.txt" not in [r["uri"] for r in alpha.resources]
        for uri in [
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/nope",
            "skill://pdf-tools/../alpha",
            "skill://pdf-tools/references/../scripts",
            "skill://needs-bin",
            "skill://unknown-skill",
            "skill://alpha/leak.txt",
            "http://pdf-tools/",
        ]:
            with pytest.raises(MCPError) as err:
                await read_dir(c, uri)
            assert err.value.error.code == -32602, uri
        with pytest.raises(MCPError) as err:
            await read_dir(c, "skill://pdf-tools/SKILL.md")
        assert err.value.error.message == "skill://pdf-tools/SKILL.md is not a directory resource"


async def test_directory_read_pagination(tmp_path: Path) -> None:
    root = tmp_path / "r"
    write_skill(root, "big-dir", files={f"data/f{i:04d}.txt": str(i) for i in range(450)})
    async with Client(build_server(Registry.from_roots([root]))) as c:
        uris: list[str] = []
        cursor = None
        pages = 0
        while True:
            page = await read_dir(c, "skill://big-dir/data", cursor)
            pages += 1
            uris += [r["uri"] for r in page.resources]
            cursor = page.next_cursor
            if not cursor:
                break
        assert pages == 3
        assert uris == [f"skill://big-dir/data/f{i:04d}.txt" for i in range(450)]


@pytest.mark.parametrize("mode", MODES)
async def test_resource_reads_refuse_what_is_not_served(registry: Registry, mode: str) -> None:
    async with Client(build_server(registry), mode=mode) as c:
        for uri in [
            "skill://alpha/leak.txt",  # symlink
            "skill://alpha/../pdf-tools/SKILL.md",
            "skill://alpha/%2e%2e/secret.txt",
            "skill://needs-bin/SKILL.md",
            "skill://toml-only/SKILL.toml",
            "skill://alpha/nope.txt",
            "skill://alpha/",
            "skill://pdf-tools/references",
            "skill://alpha//etc/passwd",
        ]:
            with pytest.raises(MCPError) as err:
                await c.read_resource(uri)
            assert err.value.error.code == -32602, uri


@pytest.mark.parametrize("mode", MODES)
async def test_resources_list_paginates_every_file(
    registry: Registry, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("skillyard.mcp.server.RESOURCE_PAGE_SIZE", 3)
    async with Client(build_server(registry), mode=mode) as c:
        uris: list[str] = []
        cursor = None
        while True:
            page = await c.list_resources(cursor=cursor)
            assert len(page.resources) <= 3
            uris += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if not cursor:
                break
        entries, _ = await list_all_skills(c)
        expected = sorted(r["uri"] for e in entries for r in e["resources"])
        assert sorted(uris) == expected
        assert len(uris) == len(set(uris))
        main = next(r for r in (await c.list_resources()).resources if str(r.uri) == "skill://alpha/SKILL.md")
        assert main.mime_type == "text/markdown" and main.name == "alpha" and main.description


async def test_over_the_limits_is_dynamic(tmp_path: Path) -> None:
    root = tmp_path / "r"
    write_skill(
        root, "many-files", files={f"f/{i:04d}.txt": "x" for i in range(MAX_RESOURCES)}
    )  # +SKILL.md = 513
    write_skill(root, "exactly-512", files={f"f/{i:04d}.txt": "x" for i in range(MAX_RESOURCES - 1)})
    big = root / "too-big"
    write_skill(root, "too-big")
    with open(big / "blob.bin", "wb") as f:
        f.truncate(16 * 1024 * 1024)
    async with Client(build_server(Registry.from_roots([root]))) as c:
        page = await list_skills(c)
        by_name = {e["frontmatter"]["name"]: e for e in page.skills}
        assert by_name["many-files"]["resources"] == "dynamic"
        assert by_name["too-big"]["resources"] == "dynamic"
        assert isinstance(by_name["exactly-512"]["resources"], list)
        assert len(by_name["exactly-512"]["resources"]) == MAX_RESOURCES
        reasons = {d["name"] for d in page.meta["io.skillyard/dynamic"]}
        assert reasons == {"many-files", "too-big"}
        # dynamic skills stay readable
        assert await read_bytes(c, "skill://many-files/f/0001.txt") == b"x"


async def test_skill_md_lowercase_is_served_as_skill_md(tmp_path: Path) -> None:
    root = tmp_path / "r"
    d = root / "lower"
    d.mkdir(parents=True)
    (d / "skill.md").write_text(
        "---\nname: lower\ndescription: Lower-case skill file for tests.\n---\nBody\n"
    )
    registry = Registry.from_roots([root])
    if registry.get("lower") is None:
        pytest.skip("parser does not load skill.md on this filesystem")
    async with Client(build_server(registry)) as c:
        got = await get_skill(c, "skill://lower/SKILL.md")
        assert [r["uri"] for r in got.skill["resources"]] == ["skill://lower/SKILL.md"]
        data = await read_bytes(c, "skill://lower/SKILL.md")
        assert sha(data) == got.skill["resources"][0]["digest"]


async def test_frontmatter_name_mismatch_is_not_served(tmp_path: Path) -> None:
    root = tmp_path / "r"
    d = root / "dir-name"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        "---\ndescription: No name field, so the entry could not be verbatim.\n---\nBody\n"
    )
    registry = Registry.from_roots([root])
    catalog = SkillCatalog(registry)
    skill = registry.get("dir-name")
    assert skill is not None
    assert "name" in (catalog.why_not_served(skill) or "")
    async with Client(build_server(registry)) as c:
        assert (await list_skills(c)).skills == []


async def test_digest_follows_file_changes(registry: Registry, tree: Path) -> None:
    async with Client(build_server(registry)) as c:
        before = (await get_skill(c, "skill://alpha/SKILL.md")).skill
        (tree / "alpha" / "notes.txt").write_text("changed, and longer than before\n")
        after = (await get_skill(c, "skill://alpha/SKILL.md")).skill
        old = {r["uri"]: r for r in before["resources"]}["skill://alpha/notes.txt"]
        new = {r["uri"]: r for r in after["resources"]}["skill://alpha/notes.txt"]
        assert old["digest"] != new["digest"] and new["size"] == 32
        data = await read_bytes(c, "skill://alpha/notes.txt")
        assert sha(data) == new["digest"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    uri=st.one_of(
        st.text(max_size=80),
        st.builds(lambda s: "skill://" + s, st.text(max_size=60)),
        st.builds(lambda s: "skill://alpha/" + s, st.text(max_size=60)),
    )
)
def test_hostile_uris_never_crash(registry: Registry, uri: str) -> None:
    """Any URI gets a result or a -32602/-32603 error from every method, never a crash."""
    import anyio

    async def run() -> None:
        async with Client(build_server(registry)) as c:
            for call in (get_skill, read_dir, read_bytes):
                try:
                    await call(c, uri)
                except MCPError as e:
                    assert e.error.code == -32602, (call.__name__, uri, e.error)

    anyio.run(run)
