"""Reads a model or an MCP client can point at: bounded in size, never through a link, never a FIFO.

Every file here is real: sparse files for size, real links and FIFOs for swaps. A
"swap after listing" is done between the listing (`Skill.doc_ids`) and the read
that is given that listing, which is what one tool call does inside itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.fsread import open_under, read_under
from skillyard.mcp.catalog import CatalogError, SkillCatalog
from skillyard.model import MAX_DOC_BYTES, SKIPPED_DIRS, Skill
from skillyard.parsing import load_body
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.skill_files import doc_ids, list_docs, read_doc
from skillyard.tools import Toolkit

CANARY = "CANARY-7d1f0c-outside-the-skill"
SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture
def world(tmp_path: Path, make_skill: Callable[..., Path]) -> tuple[Path, Path, Registry]:
    """A skill `demo` with docs, and a canary file outside every skill root."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.md").write_text(CANARY + "\n", encoding="utf-8")
    (outside / "api.md").write_text(CANARY + " api\n", encoding="utf-8")
    root = tmp_path / "skills"
    make_skill(
        root, "demo", "A demo skill", files={"USAGE.md": "usage text\n", "references/api.md": "api text\n"}
    )
    return root / "demo", outside, Registry.from_roots([root])


def _skill(reg: Registry) -> Skill:
    skill = reg.get("demo")
    assert skill is not None
    return skill


def _no_canary(*texts: Any) -> None:
    for t in texts:
        assert CANARY not in (t if isinstance(t, str) else json.dumps(t, default=str))


def _finishes(fn: Callable[[], Any], seconds: float = 10.0) -> Any:
    """Run `fn` in a thread; fail (instead of hanging the suite) if it has not returned in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # handed back to the test
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the read hung"
    if "error" in box:
        raise box["error"]
    return box.get("value")


# ------------------------------------------------------------ memory


_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from mcp import Client, MCPError
    from skillyard.mcp import build_server
    from skillyard.registry import Registry
    from skillyard.tools import Toolkit

    root = Path(sys.argv[1])
    reg = Registry.from_roots([root])
    out = {}
    kit = Toolkit(reg, load_mode="result")
    r = kit.call("skill_load", {"skill": "huge", "include_all_docs": True})
    out["load"] = [r.is_error, len(r.content), "[truncated:" in r.content]
    r = kit.call("skill_select_docs", {"skill": "huge", "docs": ["BIG.md"]})
    data = json.loads(r.content)
    out["select"] = [r.is_error, len(data["docs"][0]["content"]), "[truncated:" in data["docs"][0]["content"]]
    r = kit.call("skill", {"skill": "huge"})
    out["skill"] = [r.is_error, len(r.content), "[truncated:" in r.content]

    async def mcp_read():
        async with Client(build_server(reg)) as c:
            try:
                await c.read_resource("skill://huge/BIG.md")
                return "read"
            except MCPError as e:
                return e.error.message
    out["mcp"] = asyncio.run(mcp_read())
    status = Path("/proc/self/status").read_text()
    out["hwm_kib"] = int(next(l for l in status.splitlines() if l.startswith("VmHWM:")).split()[1])
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_a_600_mb_doc_and_skill_file_cost_no_more_memory_than_a_small_one(
    tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    root = tmp_path / "skills"
    # the skill file's first 64 KiB are text, so discovery (which reads only the head) accepts it
    body = "Huge body\n" + "filler line of text\n" * 4000
    d = make_skill(root, "huge", "Huge files", body=body, files={"BIG.md": "start of a big doc\n"})
    for name in ("BIG.md", "SKILL.md"):
        with open(d / name, "r+b") as f:  # sparse: 600 MB on paper, no disk used
            f.truncate(600 * 2**20)
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root)], capture_output=True, text=True, env=env, timeout=240
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["hwm_kib"] < 300 * 1024, out
    assert out["load"][0] is False and out["load"][2] is True
    assert out["select"][0] is False and out["select"][2] is True
    assert out["select"][1] < 300 * 1024
    assert out["skill"][0] is False and out["skill"][2] is True
    assert "exceeds" in out["mcp"]


# ------------------------------------------------------------ swaps after listing


def test_doc_swapped_for_a_link_after_listing_is_refused(world: tuple[Path, Path, Registry]) -> None:
    skill_dir, outside, reg = world
    skill = _skill(reg)
    listed = doc_ids(skill)
    os.unlink(skill_dir / "USAGE.md")
    os.symlink(outside / "canary.md", skill_dir / "USAGE.md")
    with pytest.raises(OSError) as err:
        read_doc(skill, "USAGE.md", listed)
    assert "symbolic link" in str(err.value)
    # the tools list afresh: a link is not a doc, so it is an unknown doc, and nothing leaks
    kit = Toolkit(reg, load_mode="result")
    res = kit.call("skill_load", {"skill": "demo", "docs": ["USAGE.md"]})
    assert res.is_error and "unknown doc" in res.content
    sel = kit.call("skill_select_docs", {"skill": "demo", "docs": ["USAGE.md"]})
    assert sel.is_error
    _no_canary(res.content, sel.content)
    with pytest.raises(CatalogError):
        SkillCatalog(reg).read("skill://demo/USAGE.md")


def test_selected_doc_swapped_for_a_link_never_reaches_the_system_message(
    world: tuple[Path, Path, Registry],
) -> None:
    skill_dir, outside, reg = world
    kit = Toolkit(reg)
    s = Session()
    assert not kit.call("skill_load", {"skill": "demo", "docs": ["USAGE.md"]}, session=s).is_error
    os.unlink(skill_dir / "USAGE.md")
    os.symlink(outside / "canary.md", skill_dir / "USAGE.md")
    _no_canary(kit.system_message(s))


def test_directory_swapped_for_a_link_after_listing_is_refused(world: tuple[Path, Path, Registry]) -> None:
    skill_dir, outside, reg = world
    skill = _skill(reg)
    listed = doc_ids(skill)
    assert "references/api.md" in listed
    os.rename(skill_dir / "references", skill_dir.parent / "moved-away")
    os.symlink(outside, skill_dir / "references")
    with pytest.raises(OSError) as err:
        read_doc(skill, "references/api.md", listed)
    assert "'references' is a symbolic link" in str(err.value)
    catalog = SkillCatalog(reg)
    with pytest.raises(CatalogError):
        catalog.read("skill://demo/references/api.md")
    with pytest.raises(CatalogError):
        catalog.directory("skill://demo/references")
    kit = Toolkit(reg, load_mode="result")
    res = kit.call("skill_select_docs", {"skill": "demo", "docs": ["references/api.md"]})
    assert res.is_error
    _no_canary(res.content)


def test_doc_replaced_by_another_file_after_listing_is_refused(world: tuple[Path, Path, Registry]) -> None:
    """Against a listing, a new inode under the listed name is refused; a new tool call lists
    afresh and so reads the new file (it is a regular file inside the skill)."""
    skill_dir, _, reg = world
    skill = _skill(reg)
    listed = doc_ids(skill)
    (skill_dir / "USAGE.new").write_text("replacement\n", encoding="utf-8")
    os.replace(skill_dir / "USAGE.new", skill_dir / "USAGE.md")
    with pytest.raises(OSError) as err:
        read_doc(skill, "USAGE.md", listed)
    assert "changed since" in str(err.value)
    res = Toolkit(reg, load_mode="result").call("skill_select_docs", {"skill": "demo", "docs": ["USAGE.md"]})
    assert not res.is_error and json.loads(res.content)["docs"][0]["content"] == "replacement\n"


def test_fifo_named_as_a_doc_is_an_error_without_hanging(world: tuple[Path, Path, Registry]) -> None:
    skill_dir, _, reg = world
    skill = _skill(reg)
    listed = doc_ids(skill)
    os.unlink(skill_dir / "USAGE.md")
    os.mkfifo(skill_dir / "USAGE.md")
    with pytest.raises(OSError) as err:
        _finishes(lambda: read_doc(skill, "USAGE.md", listed))
    assert "not a regular file" in str(err.value)
    with pytest.raises(OSError):
        _finishes(lambda: read_under(skill_dir, "USAGE.md", 100))
    with pytest.raises(CatalogError):
        _finishes(lambda: SkillCatalog(reg).read("skill://demo/USAGE.md"))
    kit = Toolkit(reg, load_mode="result")
    res = _finishes(lambda: kit.call("skill_load", {"skill": "demo", "docs": ["USAGE.md"]}))
    assert res.is_error


def test_skill_file_swapped_for_a_link_is_refused(world: tuple[Path, Path, Registry]) -> None:
    skill_dir, outside, reg = world
    skill = _skill(reg)
    os.unlink(skill_dir / "SKILL.md")
    os.symlink(outside / "canary.md", skill_dir / "SKILL.md")
    kit = Toolkit(reg, load_mode="result")
    for name, args in (
        ("read_skill", {"skill_name": "demo"}),
        ("skill", {"skill": "demo"}),
        ("skill_load", {"skill": "demo"}),
    ):
        res = kit.call(name, args)
        assert res.is_error, name
        _no_canary(res.content)
    with pytest.raises(OSError):
        load_body(skill)
    with pytest.raises(CatalogError):
        SkillCatalog(reg).read("skill://demo/SKILL.md")


def test_a_linked_skill_file_inside_the_roots_still_loads(
    tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    """Discovery accepts a skill file linked inside the skill roots; its body still reads."""
    root = tmp_path / "skills"
    d = make_skill(root, "linked", "Linked skill file", body="Linked body\n")
    store = root / ".store"
    store.mkdir()
    os.replace(d / "SKILL.md", store / "linked.md")
    os.symlink(store / "linked.md", d / "SKILL.md")
    reg = Registry.from_roots([root])
    skill = reg.get("linked")
    assert skill is not None and load_body(skill) == "Linked body\n"


def test_large_doc_read_stops_at_the_limit(world: tuple[Path, Path, Registry]) -> None:
    skill_dir, _, reg = world
    (skill_dir / "USAGE.md").write_bytes(b"y" * (MAX_DOC_BYTES + 5000))
    text, unread = read_doc(_skill(reg), "USAGE.md")
    assert len(text) == MAX_DOC_BYTES and unread == 5000
    res = Toolkit(reg, load_mode="result").call("skill_select_docs", {"skill": "demo", "docs": ["USAGE.md"]})
    assert "and 5000 more bytes not read]" in json.loads(res.content)["docs"][0]["content"]


def test_open_under_refuses_skipped_directories(world: tuple[Path, Path, Registry]) -> None:
    skill_dir, _, _ = world
    (skill_dir / "node_modules").mkdir()
    (skill_dir / "node_modules" / "x.md").write_text("x\n", encoding="utf-8")
    for rel, directory in (("node_modules/x.md", False), ("node_modules", True)):
        with pytest.raises(OSError):
            fd = open_under(skill_dir, rel, skip_dirs=SKIPPED_DIRS, directory=directory)
            os.close(fd)


# ------------------------------------------------------------ whatever names the model sends

_HOSTILE = st.one_of(
    st.sampled_from(
        [
            "../outside/canary.md",
            "../../outside/canary.md",
            "references/../../../outside/canary.md",
            "./USAGE.md",
            "USAGE.md/",
            "/etc/passwd",
            "//etc/passwd",
            "USAGE.md\x00",
            "\x00",
            "",
            ".",
            "..",
            "a" * 5000,
            ("b" * 300) + ".md",
            "\udcff.md",
            "références/api.md",
            "references//api.md",
        ]
    ),
    st.text(min_size=0, max_size=300),
    st.lists(st.sampled_from(["..", ".", "", "references", "api.md", "x\x00", "é", "/"]), max_size=8).map(
        "/".join
    ),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_HOSTILE)
def test_hostile_doc_names_are_clear_errors(world: tuple[Path, Path, Registry], name: str) -> None:
    skill_dir, _, reg = world
    skill = _skill(reg)
    listed = list_docs(skill)
    kit = Toolkit(reg, load_mode="result")
    load = kit.call("skill_load", {"skill": "demo", "docs": [name]})
    sel = kit.call("skill_select_docs", {"skill": "demo", "docs": [name]})
    _no_canary(load.content, sel.content)
    if name not in listed:
        assert load.is_error and sel.is_error
        assert "unknown doc" in load.content or "invalid arguments" in load.content
        with pytest.raises(KeyError):
            read_doc(skill, name)
    catalog = SkillCatalog(reg)
    try:
        data = catalog.read(f"skill://demo/{name}")[0]
    except CatalogError:
        pass
    else:
        _no_canary(data.decode("utf-8", "replace"))
    try:
        catalog.directory(f"skill://demo/{name}")
    except CatalogError:
        pass
    try:
        got = read_under(skill_dir, name, 1000, skip_dirs=SKIPPED_DIRS)
    except OSError as e:
        assert e.strerror
    else:
        _no_canary(got.data.decode("utf-8", "replace"))
