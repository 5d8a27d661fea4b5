"""Discovery, precedence, shadowing, symlink containment and reload diffs, on real directories."""

from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

import pytest

from skillyard import discovery
from skillyard.config import parse_config
from skillyard.discovery import Root, default_roots, resolve_roots
from skillyard.eligibility import Host
from skillyard.parsing import load_body
from skillyard.registry import Registry
from skillyard.toml_tools import tool_plan


@pytest.fixture(autouse=True)
def settled_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files these tests write count as settled at once: without this, everything written in the
    last two seconds is read again at the next scan and never cached (the racy window, which has
    its own test: test_an_edit_within_the_racy_window_is_read_again)."""
    monkeypatch.setattr(discovery, "RACY_NS", 0)


def no_bins_host() -> Host:
    return Host(env={"PATH": ""}, os_name="linux", path="")


def test_finds_skills_and_does_not_search_inside_skill_dirs(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path, "alpha")
    make_skill(tmp_path / "team", "beta")  # nested one level: found
    make_skill(tmp_path / "alpha" / "sub", "inner")  # inside a skill dir: not a separate skill
    make_skill(tmp_path / ".hidden", "hidden")
    make_skill(tmp_path / "node_modules", "npm-thing")
    make_skill(tmp_path / "a" / "b" / "c" / "d" / "e" / "f" / "g", "too-deep")
    reg = Registry.from_roots([tmp_path])
    assert sorted(reg.names()) == ["alpha", "beta"]
    assert reg.get("alpha").source == "custom"
    assert reg.get("inner") is None and reg.get("hidden") is None


def test_lowercase_skill_md_and_toml(tmp_path: Path) -> None:
    (tmp_path / "low").mkdir()
    (tmp_path / "low" / "skill.md").write_text(
        "---\nname: low\ndescription: lower-case file name\n---\nbody\n"
    )
    (tmp_path / "tt").mkdir()
    (tmp_path / "tt" / "SKILL.toml").write_text('[skill]\nname = "tt"\ndescription = "toml skill"\n')
    reg = Registry.from_roots([tmp_path])
    assert sorted(reg.names()) == ["low", "tt"]
    assert reg.get("tt").format == "toml"


def test_precedence_and_shadowing(tmp_path: Path, make_skill) -> None:
    hi, lo = tmp_path / "hi", tmp_path / "lo"
    make_skill(hi, "same", "from the high root")
    make_skill(lo, "same", "from the low root")
    make_skill(lo, "only-low")
    reg = Registry.from_roots([hi, lo])
    assert reg.get("same").description == "from the high root"
    assert reg.names() == ["same", "only-low"]
    shadowed = [d for d in reg.diagnostics if d.code == "shadowed"]
    assert len(shadowed) == 1 and shadowed[0].path == str(lo / "same" / "SKILL.md")
    # reversed order flips the winner
    assert Registry.from_roots([lo, hi]).get("same").description == "from the low root"


def test_names_equal_but_for_case_or_unicode_form_are_one_name(tmp_path: Path, make_skill) -> None:
    """`PDF` or full-width `ｐｄｆ` beside `pdf` would read as the same skill in a catalog: the
    lower-priority one is shadowed like an exact copy, with a diagnostic naming the winner."""
    hi, lo = tmp_path / "hi", tmp_path / "lo"
    make_skill(hi, "pdf", "the trusted one")
    make_skill(lo, "PDF", "look-alike by case")
    make_skill(lo, "ｐｄｆ", "look-alike by width")
    make_skill(lo, "pdf-tools", "a different name")
    reg = Registry.from_roots([hi, lo])
    assert reg.names() == ["pdf", "pdf-tools"]
    assert reg.get("PDF") is None and reg.get("ｐｄｆ") is None
    shadowed = sorted(d.path for d in reg.diagnostics if d.code == "shadowed")
    assert shadowed == sorted([str(lo / "PDF" / "SKILL.md"), str(lo / "ｐｄｆ" / "SKILL.md")])
    assert all("its name 'pdf' reads the same" in d.message for d in reg.diagnostics if d.code == "shadowed")
    # priority decides, as for exact copies: the low root first makes its look-alike the one shown
    assert Registry.from_roots([lo, hi]).get("pdf") is None


def test_copies_lists_every_skill_of_a_name_winner_first(tmp_path: Path, make_skill) -> None:
    hi, lo = tmp_path / "hi", tmp_path / "lo"
    make_skill(hi, "same")
    make_skill(lo, "same")
    make_skill(lo, "Other")
    reg = Registry.from_roots([hi, lo])
    assert reg.copies("same") == [
        ("same", hi / "same" / "SKILL.md", "custom"),
        ("same", lo / "same" / "SKILL.md", "custom"),
    ]
    assert reg.copies("other") == [] and reg.copies("missing") == []
    assert reg.copies("other", fold=True) == [("Other", lo / "Other" / "SKILL.md", "custom")]
    assert reg.copies("ＯＴＨＥＲ", fold=True)[0][0] == "Other"  # NFKC: full-width letters


def test_broken_skill_does_not_stop_others(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path, "good")
    make_skill(tmp_path, "nodesc", description=None, body="# Only a heading\n")  # nothing to stand in
    (tmp_path / "binary").mkdir()
    (tmp_path / "binary" / "SKILL.md").write_bytes(b"\x00\xff\xfe" * 100)
    reg = Registry.from_roots([tmp_path])
    assert reg.names() == ["good"]
    paths = {d.path for d in reg.diagnostics if d.level == "error"}
    assert str(tmp_path / "nodesc" / "SKILL.md") in paths
    assert str(tmp_path / "binary" / "SKILL.md") in paths


def test_symlinks_followed_only_inside_roots(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    make_skill(outside, "escapee")
    make_skill(root / "real", "inside")
    root.mkdir(exist_ok=True)
    os.symlink(outside / "escapee", root / "escapee")
    os.symlink(root / "real", root / "alias")  # same target twice: loaded once
    os.symlink(root, root / "real" / "loop")  # a loop inside a skill dir is never walked
    reg = Registry.from_roots([root])
    assert reg.names() == ["inside"]
    assert any(d.code == "symlink-outside-root" for d in reg.diagnostics)
    # allowed when the target is itself a root
    reg2 = Registry.from_roots([root, outside])
    assert sorted(reg2.names()) == ["escapee", "inside"]


def test_root_that_is_itself_a_skill(tmp_path: Path, make_skill) -> None:
    d = make_skill(tmp_path, "solo")
    assert Registry.from_roots([d]).names() == ["solo"]


def test_missing_root_is_fine(tmp_path: Path) -> None:
    reg = Registry.from_roots([tmp_path / "nope"])
    assert reg.skills == [] and reg.diagnostics == []


def test_skillyard_path_and_explicit_roots_replace_defaults(tmp_path: Path) -> None:
    cfg = parse_config({})
    env = {"SKILLYARD_PATH": f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"}
    assert [r.path for r in resolve_roots(None, cfg, tmp_path, env)] == [tmp_path / "a", tmp_path / "b"]
    assert [r.path for r in resolve_roots([tmp_path / "c"], cfg, tmp_path, env)] == [tmp_path / "c"]
    cfg2 = parse_config({"skills": {"roots": [str(tmp_path / "d")]}})
    assert [r.path for r in resolve_roots(None, cfg2, tmp_path, {})] == [tmp_path / "d"]


def test_default_roots_order(tmp_path: Path) -> None:
    roots = default_roots(parse_config({}), cwd=tmp_path / "proj", home=tmp_path / "home")
    assert [r.source for r in roots] == [
        "project",
        "project",
        "project",
        "user",
        "user",
        "install",
        "bundled",
    ]
    assert roots[0].path == tmp_path / "proj" / ".agents" / "skills"
    assert roots[4].path == tmp_path / "home" / ".claude" / "skills"


def test_discover_uses_project_roots_and_bundled(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path / ".agents" / "skills", "json-toolkit", "project override of a bundled skill")
    reg = Registry.discover(cwd=tmp_path)
    assert reg.get("json-toolkit").description == "project override of a bundled skill"
    assert reg.get("skill-authoring").source == "bundled"
    assert any(d.code == "shadowed" and "bundled" not in d.message for d in reg.diagnostics)


def test_eligibility_through_registry_and_disable(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path, "needs-ffmpeg", extra='metadata: {"openclaw": {"requires": {"bins": ["ffmpeg"]}}}')
    make_skill(tmp_path, "plain")
    reg = Registry.from_roots([tmp_path], host=no_bins_host())
    assert not reg.is_eligible("needs-ffmpeg") and reg.is_eligible("plain")
    assert [s.name for s in reg.eligible_skills()] == ["plain"]
    reg.set_enabled("plain", False)
    assert reg.eligibility("plain").reasons == ("Disabled in config",)
    reg.set_enabled("plain", True)
    assert reg.is_eligible("plain")


def test_enable_disable_persisted(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path / "r", "plain")
    cfg_file = tmp_path / "skillyard.toml"
    from skillyard.config import load_config

    cfg_file.write_text("")
    reg = Registry.from_roots([tmp_path / "r"], load_config(cfg_file))
    reg.set_enabled("plain", False, persist=True)
    assert load_config(cfg_file).is_disabled("plain")
    with pytest.raises(KeyError):
        reg.set_enabled("nope", False)


def test_reload_diff_and_only_changed_files_reparsed(tmp_path: Path, make_skill, monkeypatch) -> None:
    make_skill(tmp_path, "a")
    make_skill(tmp_path, "b", extra='metadata: {"openclaw": {"requires": {"env": ["TOKEN_B"]}}}')
    host = Host(env={}, os_name="linux", path="")
    reg = Registry.from_roots([tmp_path], host=host)
    a_before = reg.get("a")
    assert reg.eligibility("b").reasons == ("Missing environment variable: TOKEN_B",)

    import skillyard.parsing as parsing_module

    calls: list[str] = []
    real = parsing_module.parse_skill_row  # what a scan parses each file with
    monkeypatch.setattr(
        parsing_module, "parse_skill_row", lambda p, s, **kw: (calls.append(str(p)), real(p, s, **kw))[1]
    )

    host.env = {"TOKEN_B": "x"}
    make_skill(tmp_path, "c")
    diff = reg.reload().to_dict()
    assert diff["reloaded"] is True
    assert diff["previous"] == {"eligible": 1, "total": 2}
    assert diff["current"] == {"eligible": 3, "total": 3}
    assert {"skill": "b", "was": "ineligible", "now": "eligible"} in diff["changes"]
    assert {"skill": "c", "was": "absent", "now": "eligible"} in diff["changes"]
    assert calls == [str(tmp_path / "c" / "SKILL.md")]  # a and b were not re-read
    assert reg.get("a") is a_before

    # touch one skill: only it is re-read and it shows up as updated
    calls.clear()
    p = tmp_path / "a" / "SKILL.md"
    p.write_text(p.read_text().replace("Do the thing.", "Do the other thing."))
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    diff = reg.reload().to_dict()
    assert calls == [str(p)] and diff["updated"] == ["a"] and diff["changes"] == []

    import shutil

    shutil.rmtree(tmp_path / "c")
    diff = reg.reload().to_dict()
    assert {"skill": "c", "was": "eligible", "now": "absent"} in diff["changes"]


def test_on_change_listener(tmp_path: Path, make_skill) -> None:
    reg = Registry.from_roots([tmp_path])
    seen = []
    reg.on_change(seen.append)
    make_skill(tmp_path, "new")
    reg.reload()
    assert seen and seen[0].current["total"] == 1


def test_suggestions(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path, "video-frames")
    make_skill(tmp_path, "json-toolkit")
    reg = Registry.from_roots([tmp_path])
    assert reg.suggest("video-frame") == ["video-frames"]
    assert reg.suggest("json") == ["json-toolkit"]
    assert reg.get("../etc/passwd") is None and reg.get(None) is None  # type: ignore[arg-type]


def test_roots_are_deduplicated(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path / "r", "x")
    os.symlink(tmp_path / "r", tmp_path / "r2")
    roots = resolve_roots([tmp_path / "r", tmp_path / "r2"], parse_config({}))
    assert roots == [Root(tmp_path / "r", "custom")]
    reg = Registry(roots)
    assert len(reg.roots) == 1 and reg.names() == ["x"]


def test_startup_cache_skips_parsing_unchanged_files(tmp_path: Path, make_skill, monkeypatch) -> None:
    root = tmp_path / "r"
    make_skill(
        root,
        "a",
        extra='metadata: {"openclaw": {"requires": {"bins": ["x"]}, "install": [{"kind": "brew", "formula": "x"}]}}',
    )
    make_skill(root, "b")
    (root / "t").mkdir()
    (root / "t" / "SKILL.toml").write_text(
        '[skill]\nname = "t"\ndescription = "toml"\n[[tools]]\nname = "echo"\ndescription = "e"\ncommand = "echo {x}"\n'
    )
    cache_file = tmp_path / "cache.marshal"
    first = Registry.from_roots([root]).skills
    Registry([Root(root, "custom")], cache=cache_file)
    assert cache_file.is_file()

    import skillyard.parsing as parsing_module

    calls: list[str] = []
    real = parsing_module.parse_skill_row  # what a scan parses each file with
    monkeypatch.setattr(
        parsing_module, "parse_skill_row", lambda p, s, **kw: (calls.append(str(p)), real(p, s, **kw))[1]
    )
    reg = Registry([Root(root, "custom")], cache=cache_file)
    assert calls == []
    for s1 in first:
        s2 = reg.get(s1.name)
        assert s2 is not None
        for f in (
            "name",
            "description",
            "path",
            "requires",
            "install",
            "tools",
            "frontmatter",
            "body_offset",
            "format",
        ):
            assert getattr(s1, f) == getattr(s2, f), f
    assert load_body(reg.get("b")) == load_body(first[1])

    p = root / "b" / "SKILL.md"
    p.write_text(p.read_text().replace("useful", "very useful"))
    reg = Registry([Root(root, "custom")], cache=cache_file)
    assert calls == [str(p)] and "very useful" in reg.get("b").description


def test_corrupt_cache_is_ignored(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path / "r", "a")
    cache_file = tmp_path / "cache.marshal"
    cache_file.write_bytes(b"\x00garbage")
    assert Registry([Root(tmp_path / "r", "custom")], cache=cache_file).names() == ["a"]


def test_targeted_reload_from_watcher_paths(tmp_path: Path, make_skill, monkeypatch) -> None:
    root = tmp_path / "r"
    make_skill(root, "a", files={"USAGE.md": "u"})
    make_skill(root, "b")
    reg = Registry.from_roots([root])

    import skillyard.discovery as discovery_module

    walks: list[str] = []
    real_walk = discovery_module.walk_root
    monkeypatch.setattr(
        discovery_module, "walk_root", lambda r, a: (walks.append(str(r.path)), real_walk(r, a))[1]
    )

    p = root / "a" / "SKILL.md"
    p.write_text(p.read_text().replace("useful", "handy"))
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    diff = reg.reload(changed=[p])
    assert walks == [] and diff.updated == ["a"] and "handy" in reg.get("a").description

    reg.reload(changed=[root / "a" / "USAGE.md"])  # a doc: nothing to re-walk
    assert walks == []

    make_skill(root, "c")  # a new skill dir: the root is walked again
    diff = reg.reload(changed=[root / "c" / "SKILL.md"])
    assert walks == [str(root)] and diff.current["total"] == 3

    (root / "b" / "SKILL.md").unlink()  # a vanished skill file: walked again
    diff = reg.reload(changed=[root / "b" / "SKILL.md"])
    assert {"skill": "b", "was": "eligible", "now": "absent"} in diff.changes
    assert discovery_module.SKILL_FILES[0] == "SKILL.md"


def test_toml_tool_names_are_planned_once_and_renames_reported(tmp_path: Path) -> None:
    for skill_name in ("one", "two"):
        (tmp_path / skill_name).mkdir()
        (tmp_path / skill_name / "SKILL.toml").write_text(
            f'[skill]\nname = "{skill_name}"\ndescription = "d"\n'
            '[[tools]]\nname = "lookup"\ndescription = "l"\ncommand = "echo {q}"\n'
            '[[tools]]\nname = "skills"\ndescription = "clashes with a built-in"\ncommand = "echo hi"\n'
        )
    reg = Registry.from_roots([tmp_path])
    plan, notes = tool_plan(reg)
    assert sorted(plan) == ["one__lookup", "one__skills", "two__lookup", "two__skills"]
    assert tool_plan(reg)[0] is plan  # cached for this registry version
    codes = {d.code for d in reg.diagnostics}
    assert notes and {d.code for d in notes} <= codes


def _cached_registry(tmp_path: Path, make_skill) -> tuple[Path, Path]:
    root = tmp_path / "r"
    make_skill(root, "a", extra='metadata: {"openclaw": {"requires": {"bins": ["definitely-not-a-bin"]}}}')
    make_skill(root, "b")
    make_skill(root / "team", "c")
    cache_file = tmp_path / "cache.marshal"
    Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    return root, cache_file


def test_second_start_builds_skills_only_on_access(tmp_path: Path, make_skill) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    cold = Registry([Root(root, "custom")], host=no_bins_host())
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    entries = reg.scan.files.values()
    assert not any(e.built for e in entries)  # names and order come from the cache alone
    assert reg.names() == cold.names() and len(reg) == 3 and "b" in reg
    assert not any(e.built for e in entries)
    b = reg.get("b")
    assert b is not None and b is reg.get("b")  # built once, then the same object
    assert sum(e.built for e in entries) == 1
    assert not reg.eligibility("a").eligible and reg.eligibility("b").eligible
    assert [s.name for s in reg.skills] == cold.names()
    assert [s.description for s in reg.skills] == [s.description for s in cold.skills]
    assert [s.requires for s in reg.skills] == [s.requires for s in cold.skills]
    assert reg._counts() == cold._counts()
    assert [d.code for d in reg.diagnostics] == [d.code for d in cold.diagnostics]


def test_second_start_shares_equal_immutable_values(tmp_path: Path, make_skill) -> None:
    req = 'metadata: {"openclaw": {"requires": {"bins": ["jq"]}, "install": [{"kind": "brew", "formula": "jq"}]}}'
    root = tmp_path / "r"
    for name in ("a", "b"):
        make_skill(root, name, extra=req + "\nallowed-tools: Read Grep")
    cache_file = tmp_path / "cache.marshal"
    cold = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    warm = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    a, b = warm.get("a"), warm.get("b")
    for field in ("requires", "install", "allowed_tools", "metadata"):
        assert getattr(a, field) == getattr(b, field) == getattr(cold.get("a"), field), field
    assert a.requires.bins == ("jq",) and a.allowed_tools == ("Read", "Grep")
    assert a.requires is b.requires and a.install is b.install and a.allowed_tools is b.allowed_tools
    assert a.metadata is not b.metadata  # mutable: each skill keeps its own


def test_second_start_sees_edits_made_while_stopped(tmp_path: Path, make_skill) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    p = root / "b" / "SKILL.md"
    p.write_text(p.read_text().replace("name: b", "name: b2"))
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert sorted(reg.names()) == ["a", "b2", "c"]
    assert reg.scan.parsed == [str(p)]  # re-parsed, not taken from the cache
    # the cache was rewritten: a third start takes the new name without parsing
    third = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert third.scan.parsed == [] and third.get("b2").description.startswith("A test skill")


def test_lazy_skills_follow_reloads(tmp_path: Path, make_skill) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    p = root / "a" / "SKILL.md"
    p.write_text(p.read_text().replace("A test skill", "An edited skill"))
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 5_000_000))
    diff = reg.reload(changed=[p])
    assert diff.updated == ["a"] and reg.get("a").description.startswith("An edited skill")
    p.unlink()
    diff = reg.reload()
    assert diff.changes == [{"skill": "a", "was": "ineligible", "now": "absent"}]
    assert sorted(reg.names()) == ["b", "c"]


def _read_cache(cache_file: Path) -> tuple[dict, bytes]:
    """The header columns and the packed rows of a cache file."""
    import marshal

    from skillyard import cache as cache_mod

    raw = cache_file.read_bytes()
    assert raw.startswith(cache_mod.MAGIC)
    size = int.from_bytes(raw[len(cache_mod.MAGIC) : len(cache_mod.MAGIC) + 8], "little")
    start = cache_mod._PREFIX  # then the header's and the rows' CRC-32s
    header = marshal.loads(raw[start : start + size])
    for column in ("stats", "offsets"):  # packed int64s; the loader also takes plain lists
        header[column] = list(memoryview(header[column]).cast("q"))
    return header, raw[start + size :]


def _write_cache(cache_file: Path, header: dict, rows: bytes) -> None:
    import marshal

    from skillyard import cache as cache_mod

    data = marshal.dumps(header)
    crcs = zlib.crc32(data).to_bytes(4, "little") + zlib.crc32(rows).to_bytes(4, "little")
    cache_file.write_bytes(cache_mod.MAGIC + len(data).to_bytes(8, "little") + crcs + data + rows)


def test_cache_rows_are_read_on_first_use_from_the_same_file_only(tmp_path: Path, make_skill) -> None:
    """A second start reads only the cache's header; the rows come later, and only from the file the
    header came from: a cache replaced in between (another start saved one) gives none, and the
    skills are parsed from their files instead."""
    from skillyard import cache as cache_mod

    root, cache_file = _cached_registry(tmp_path, make_skill)
    cold = [cache_mod.skill_to_row(s) for s in Registry([Root(root, "custom")], host=no_bins_host()).skills]
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    rows = next(iter(reg.scan.files.values()))._rows
    assert rows is not None and rows.rows_at is not None and not rows.data  # header only, so far
    (tmp_path / "other").write_bytes(cache_file.read_bytes())
    os.replace(tmp_path / "other", cache_file)  # the same bytes, but another file
    assert [cache_mod.skill_to_row(s) for s in reg.skills] == cold
    assert rows.rows_at is None and not rows.data  # nothing read from the other file: parsed
    assert not [d for d in reg.diagnostics if d.code == "cache-mismatch"]
    again = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    rows = next(iter(again.scan.files.values()))._rows
    assert [cache_mod.skill_to_row(s) for s in again.skills] == cold
    assert rows is not None and rows.data  # read from the file its header came from


def test_rows_that_could_not_be_read_are_not_saved_again(tmp_path: Path, make_skill) -> None:
    """A start that saves the cache after another start replaced it has no rows for the skills it
    never built: it leaves them out, and the start after it parses them instead."""
    from skillyard import cache as cache_mod

    root, cache_file = _cached_registry(tmp_path, make_skill)
    cached = cache_mod.load(cache_file)
    (tmp_path / "other").write_bytes(cache_file.read_bytes())
    os.replace(tmp_path / "other", cache_file)
    out = cache_mod.Cached()
    for i, path in enumerate(cached.paths):
        stat = (cached.stats[3 * i], cached.stats[3 * i + 1], cached.stats[3 * i + 2])
        summary = cached.summary(i)
        assert summary is not None and not cached.row(i)  # the rows are gone with the old file
        out.add(path, stat, cached.sources[i], cached.names[i], cached.row(i), [], summary)
    assert len(out) == 0
    cache_mod.save(cache_file, out)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert sorted(reg.names()) == ["a", "b", "c"] and sorted(reg.scan.parsed) == sorted(reg.scan.files)
    assert len(cache_mod.load(cache_file)) == 3  # saved again, with their rows


def test_cache_blob_that_does_not_match_is_not_trusted(tmp_path: Path, make_skill) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    header, rows = _read_cache(cache_file)
    offsets = header["offsets"]
    b, c = header["names"].index("b"), header["names"].index("c")
    row_b, row_c = rows[offsets[b] : offsets[b + 1]], rows[offsets[c] : offsets[c + 1]]
    rows = rows.replace(row_b, row_c)  # another skill's row under b's stat
    header["offsets"] = [0]
    for i in range(len(header["names"])):
        header["offsets"].append(
            header["offsets"][-1] + len(row_c if i == b else rows[offsets[i] : offsets[i + 1]])
        )
    _write_cache(cache_file, header, rows)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert not reg.scan.files[str(root / "b" / "SKILL.md")].built  # still a cached row...
    b_skill = reg.get("b")
    assert b_skill is not None and b_skill.name == "b" and b_skill.path == root / "b" / "SKILL.md"


def test_cache_rows_sliced_out_of_bounds_are_parsed_instead(tmp_path: Path, make_skill) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    header, rows = _read_cache(cache_file)
    header["offsets"] = [0, -5, 10**9, 3] + header["offsets"][4:]
    _write_cache(cache_file, header, rows)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    cold = Registry([Root(root, "custom")], host=no_bins_host())
    assert [s.description for s in reg.skills] == [s.description for s in cold.skills]


@pytest.mark.parametrize(
    "mangle",
    [
        lambda d: d.update(names=[1, 2, 3]),
        lambda d: d.update(stats=d["stats"][:-1]),
        lambda d: d.update(offsets="x"),
        lambda d: d.update(offsets=d["offsets"][:-1]),
        lambda d: d.update(format=5),
        lambda d: d.pop("diags"),
        lambda d: d.pop("walks"),
    ],
)
def test_malformed_cache_columns_mean_a_cold_start(tmp_path: Path, make_skill, mangle) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    header, rows = _read_cache(cache_file)
    mangle(header)
    _write_cache(cache_file, header, rows)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert sorted(reg.names()) == ["a", "b", "c"]
    assert sorted(reg.scan.parsed) == sorted(reg.scan.files)  # parsed, not cached


@pytest.mark.parametrize(
    "raw",
    [b"", b"skillyd\0", b"skillyd\0\xff\xff\xff\xff\xff\xff\xff\x7f", b"not a cache at all, just text"],
)
def test_truncated_or_foreign_cache_files_mean_a_cold_start(tmp_path: Path, make_skill, raw: bytes) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    cache_file.write_bytes(raw)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert sorted(reg.names()) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "walk",
    [
        ([1, None], [("x", 1, 2)]),
        (["/nonexistent/SKILL.md"], []),
        ([], [(None, None, None)]),
        ([[]], [[]]),
        "not a walk",
    ],
)
def test_malformed_saved_walks_mean_a_real_walk(tmp_path: Path, make_skill, walk) -> None:
    root, cache_file = _cached_registry(tmp_path, make_skill)
    header, rows = _read_cache(cache_file)
    header["walks"] = {k: walk for k in [*header["walks"], f"custom\0{root}"]}
    _write_cache(cache_file, header, rows)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    assert sorted(reg.names()) == ["a", "b", "c"]
    # that start saved the cache again with the real walk, and with every row for the next start
    from skillyard import cache as cache_mod

    saved = cache_mod.load(cache_file)
    assert sorted(cache_mod.skill_from_blob(saved.row(i)).name for i in range(len(saved))) == ["a", "b", "c"]


def _edit(p: Path, old: str, new: str) -> None:
    p.write_text(p.read_text().replace(old, new))
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 10_000_000))


def test_watcher_reload_edits_in_place_and_matches_a_full_scan(tmp_path: Path, make_skill) -> None:
    hi, lo = tmp_path / "hi", tmp_path / "lo"
    for name in ("a", "b", "c"):
        make_skill(lo, name)
    make_skill(hi, "b", description="The preferred b.")
    reg = Registry([Root(hi, "project"), Root(lo, "user")], host=no_bins_host())
    reg.search("useful")  # build the index so it has to follow the edit
    order = reg.names()
    version = reg.version

    p = lo / "a" / "SKILL.md"
    _edit(p, "name: a", 'name: a\nmetadata: {"openclaw": {"requires": {"bins": ["not-here"]}}}')
    diff = reg.reload(changed=[p])
    assert diff.changes == [{"skill": "a", "was": "eligible", "now": "ineligible"}]
    assert diff.previous == {"eligible": 3, "total": 3} and diff.current == {"eligible": 2, "total": 3}
    assert reg.names() == order and reg.version > version
    assert reg._counts() == Registry([Root(hi, "project"), Root(lo, "user")], host=no_bins_host())._counts()

    _edit(p, "A test skill", "A searchable zebra skill")
    diff = reg.reload(changed=[p])
    assert diff.updated == ["a"] and [h.name for h in reg.search("zebra")][:1] == ["a"]

    shadowed = lo / "b" / "SKILL.md"  # editing the shadowed copy changes nothing visible
    _edit(shadowed, "A test skill", "Another")
    diff = reg.reload(changed=[shadowed])
    assert diff.changes == [] and diff.updated == []
    assert reg.get("b").description == "The preferred b." and reg.get("b").source == "project"
    assert any(d.code == "shadowed" for d in reg.diagnostics)


def test_watcher_reload_falls_back_to_a_scan_when_names_or_diagnostics_change(
    tmp_path: Path, make_skill
) -> None:
    root = tmp_path / "r"
    for name in ("a", "b"):
        make_skill(root, name)
    reg = Registry.from_roots([root])
    p = root / "a" / "SKILL.md"
    _edit(p, "name: a", "name: renamed")
    diff = reg.reload(changed=[p])
    assert sorted(reg.names()) == ["b", "renamed"] and reg.get("a") is None
    assert {"skill": "a", "was": "eligible", "now": "absent"} in diff.changes
    assert any(d.code == "name-mismatch" for d in reg.diagnostics)

    _edit(p, "name: renamed", "name: a")
    reg.reload(changed=[p])
    assert sorted(reg.names()) == ["a", "b"] and not any(d.code == "name-mismatch" for d in reg.diagnostics)

    _edit(p, "description: A test skill that does something useful.", "description: ''")  # not loaded now
    diff = reg.reload(changed=[p])
    assert reg.names() == ["b"] and diff.current == {"eligible": 1, "total": 1}
    assert any(d.code == "missing-description" for d in reg.diagnostics)


def test_lazy_skill_is_built_once_across_threads(tmp_path: Path, make_skill) -> None:
    import threading

    root, cache_file = _cached_registry(tmp_path, make_skill)
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    seen: list[object] = []
    start = threading.Barrier(8)

    def grab() -> None:
        start.wait()
        seen.append(reg.get("c"))

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all(s is seen[0] for s in seen) and seen[0] is reg.skills[2]


def test_scans_restore_the_collector_and_respect_an_application_freeze(tmp_path: Path, make_skill) -> None:
    import gc

    make_skill(tmp_path, "a")
    assert gc.isenabled()
    before = gc.get_freeze_count()  # not 0 everywhere: CPython 3.12.1 starts with objects frozen
    Registry.from_roots([tmp_path])
    # promoted, not left frozen (objects an earlier test froze may be freed meanwhile: never more)
    assert gc.isenabled() and gc.get_freeze_count() <= before
    gc.disable()
    try:
        Registry.from_roots([tmp_path]).reload()
        assert not gc.isenabled()  # a caller's choice stays
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        Registry.from_roots([tmp_path]).reload()
        assert gc.get_freeze_count() >= frozen  # the application's frozen objects stay frozen
    finally:
        gc.unfreeze()


def test_toml_tools_that_cannot_run_are_not_offered_and_are_reported(tmp_path: Path) -> None:
    (tmp_path / "tt").mkdir()
    (tmp_path / "tt" / "SKILL.toml").write_text(
        '[skill]\nname = "tt"\ndescription = "d"\n'
        '[[tools]]\nname = "bad_url"\ndescription = "b"\ncommand = "curl https://host/{id}"\n'
        '[[tools]]\nname = "fine"\ndescription = "f"\ncommand = "echo {x}"\n'
    )
    reg = Registry.from_roots([tmp_path])
    plan, notes = tool_plan(reg)
    assert sorted(plan) == ["fine"]
    assert any(d.code == "tool-template" and d.level == "error" for d in reg.diagnostics)


def test_cache_int_columns_pack_and_fall_back_to_lists() -> None:
    from skillyard import cache as cache_mod

    packed = cache_mod._packed([1, -2, 2**62])
    assert isinstance(packed, bytes) and list(cache_mod._ints(packed)) == [1, -2, 2**62]
    huge = [1, 2**70]  # an inode number beyond int64 stays a plain list
    assert cache_mod._packed(huge) == huge and cache_mod._ints(huge) == huge
    assert (
        cache_mod._ints(b"1234567") is None
        and cache_mod._ints(["x"]) is None
        and cache_mod._ints(None) is None
    )


@pytest.mark.parametrize(
    "field, value",
    [
        ("requires", ((1,), (), (), (), ())),
        ("requires", (5, (), (), (), ())),
        ("install", (("brew",),)),
        ("tools", (("t", "d", "echo", "shell", ((1, 2),), None),)),
        ("allowed_tools", "Bash"),
        ("always", "yes"),
        ("frontmatter", ["not", "a", "mapping"]),
        ("format", "exe"),
    ],
)
def test_cache_rows_with_fields_of_the_wrong_shape_are_parsed_instead(
    tmp_path: Path, make_skill, field: str, value
) -> None:
    import marshal

    from skillyard import cache as cache_mod

    root, cache_file = _cached_registry(tmp_path, make_skill)
    header, rows = _read_cache(cache_file)
    offsets = header["offsets"]
    parts = [rows[offsets[i] : offsets[i + 1]] for i in range(len(header["names"]))]
    i = header["names"].index("a")
    row = list(marshal.loads(parts[i]))
    row[cache_mod._SKILL_FIELDS.index(field)] = value
    parts[i] = marshal.dumps(tuple(row))
    header["offsets"] = [0]
    for part in parts:
        header["offsets"].append(header["offsets"][-1] + len(part))
    _write_cache(cache_file, header, b"".join(parts))
    reg = Registry([Root(root, "custom")], cache=cache_file, host=no_bins_host())
    cold = Registry([Root(root, "custom")], host=no_bins_host())
    assert reg.reload().current == cold.reload().current  # eligibility of every skill, no exception
    assert [cache_mod.skill_to_row(s) for s in reg.skills] == [cache_mod.skill_to_row(s) for s in cold.skills]


def test_watcher_reload_of_a_sibling_skill_toml_reparses_its_skill_md(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    make_skill(root, "a")
    reg = Registry([Root(root, "custom")], host=no_bins_host())
    assert reg.get("a").tools == ()
    toml = root / "a" / "SKILL.toml"
    toml.write_text('[[tools]]\nname = "hello"\ndescription = "Say hello"\ncommand = "echo hello"\n')
    reg.reload(changed=[toml])  # added
    assert [t.name for t in reg.get("a").tools] == ["hello"]
    toml.write_text('[[tools]]\nname = "bye"\ndescription = "Say bye"\ncommand = "echo bye"\n')
    reg.reload(changed=[toml])  # edited
    assert [t.name for t in reg.get("a").tools] == ["bye"]
    toml.unlink()
    reg.reload(changed=[toml])  # removed
    assert reg.get("a").tools == ()


def test_an_edit_within_the_racy_window_is_read_again(tmp_path: Path, make_skill, monkeypatch) -> None:
    """Two edits in one timestamp tick can leave the same (mtime, size, inode): a file read while
    its mtime is that recent is read again at the next scan, and kept out of the start-up cache."""
    monkeypatch.setattr(discovery, "RACY_NS", 2_000_000_000)
    root = tmp_path / "r"
    make_skill(root, "a", description="Version one of this skill.")
    p = root / "a" / "SKILL.md"
    cache_file = tmp_path / "cache"
    reg = Registry([Root(root, "custom")], host=no_bins_host(), cache=cache_file)
    st = p.stat()
    p.write_text(p.read_text().replace("one", "two"))  # same size, and the same stat as before:
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # as if written within the same tick
    assert (p.stat().st_size, p.stat().st_mtime_ns, p.stat().st_ino) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
    )
    reg.reload()
    assert reg.get("a").description == "Version two of this skill."
    from skillyard import cache as cache_mod

    assert str(p) not in cache_mod.load(cache_file).paths  # a racy file is never cached


def test_listing_from_the_startup_cache_builds_no_skill_and_matches_a_cold_listing(
    tmp_path: Path, make_skill
) -> None:
    """`skillyard list` answers from the cache's summary rows; the answer equals one from full skills."""
    from skillyard import reports

    root = tmp_path / "r"
    make_skill(root, "plain", extra='metadata: {"openclaw": {"emoji": "🔧"}}')
    make_skill(root, "needs-ffmpeg", extra='metadata: {"openclaw": {"requires": {"bins": ["ffmpeg"]}}}')
    make_skill(root, "needs-token", extra='metadata: {"openclaw": {"requires": {"env": ["TOKEN"]}}}')
    make_skill(root, "token-too", extra='metadata: {"openclaw": {"requires": {"env": ["TOKEN"]}}}')
    make_skill(root, "on-mac", extra='metadata: {"openclaw": {"os": ["darwin"]}}')
    make_skill(
        root, "always", extra='metadata: {"openclaw": {"always": true, "requires": {"bins": ["nope"]}}}'
    )
    make_skill(root, "off")
    make_skill(  # the same requirements as "always", turned off by the `[skills] disabled` list
        root, "listed-off", extra='metadata: {"openclaw": {"always": true, "requires": {"bins": ["nope"]}}}'
    )
    make_skill(
        root,
        "with-tools",
        files={"SKILL.toml": '[[tools]]\nname = "hello"\ndescription = "Say hello."\ncommand = "echo hi"\n'},
    )
    config = parse_config(
        {
            "skills": {"disabled": ["listed-off"]},
            "skill": {"off": {"enabled": False}, "token-too": {"env": {"TOKEN": "x"}}},
        }
    )
    cache_file = tmp_path / "cache.marshal"
    cold = Registry([Root(root, "custom")], config, host=no_bins_host(), cache=cache_file)
    for f in reports.FILTERS:
        expected = [
            {"name": s.name, "emoji": s.emoji or "", "description": s.description, "eligible": e.eligible}
            for s in cold.skills
            if (e := cold.eligibility(s)) and (f == "all" or e.eligible is (f == "eligible"))
        ]
        warm = Registry([Root(root, "custom")], config, host=no_bins_host(), cache=cache_file)
        assert reports.list_report(warm, f) == {"count": len(expected), "skills": expected}
        assert reports.list_report(cold, f) == {"count": len(expected), "skills": expected}  # built ones too
        assert [d.to_dict() for d in warm.diagnostics] == [d.to_dict() for d in cold.diagnostics]
        built = {e.name for e in warm.scan.order if e.built}
        assert built <= {"with-tools"}  # only a skill offering tools is built (for the tool plan)
    assert reports.list_report(cold)["count"] == 9
    eligible = {i["name"] for i in reports.list_report(cold, "eligible")["skills"]}
    assert eligible == {"plain", "token-too", "always", "with-tools"}


def test_other_agents_folders_join_the_default_path_only_when_they_exist(tmp_path: Path, make_skill) -> None:
    proj, home = tmp_path / "proj", tmp_path / "home"
    bare = default_roots(parse_config({}), cwd=proj, home=home)
    for parts in discovery.VENDOR_PROJECT_DIRS:
        make_skill(proj.joinpath(*parts), "shared", f"from {'/'.join(parts)}")
    for parts in discovery.VENDOR_USER_DIRS:
        make_skill(home.joinpath(*parts), "shared", f"from ~/{'/'.join(parts)}")
    make_skill(proj / ".claude" / "skills", "shared", "from .claude/skills")
    make_skill(proj / "skills", "plain-project", "from ./skills")
    roots = default_roots(parse_config({}), cwd=proj, home=home)
    n_project = 3 + len(discovery.VENDOR_PROJECT_DIRS)
    assert len(roots) == len(bare) + len(discovery.VENDOR_PROJECT_DIRS) + len(discovery.VENDOR_USER_DIRS)
    assert [r.path for r in roots[2 : n_project - 1]] == [
        proj.joinpath(*p) for p in discovery.VENDOR_PROJECT_DIRS
    ]
    assert roots[n_project - 1].path == proj / "skills"
    user = [r for r in roots if r.source == "user"]
    assert [r.path for r in user[2:]] == [home.joinpath(*p) for p in discovery.VENDOR_USER_DIRS]
    # same precedence and shadowing as the other roots: `.claude/skills` wins, the rest are shadowed
    reg = Registry(roots, parse_config({}))
    assert reg.get("shared").description == "from .claude/skills"
    shadowed = [d for d in reg.diagnostics if d.code == "shadowed"]
    assert len(shadowed) == len(discovery.VENDOR_PROJECT_DIRS) + len(discovery.VENDOR_USER_DIRS)


def test_cached_summary_rows_of_the_wrong_shape_are_not_trusted() -> None:
    """Summary rows are data from a file: a bad one means "build that skill", the others stay usable."""
    import marshal

    from skillyard import cache as cache_mod

    good = ("🔧", "Does things.", False, (("git",), (), (), (), ()), False)
    bad_rows = [
        ("🔧", 42, False, ((), (), (), (), ()), False),  # description not text
        (None, "x", "yes", ((), (), (), (), ()), False),  # always not a bool
        (None, "x", False, ((1,), (), (), (), ()), False),  # a requirement that is not text
        (None, "x", False, ((), (), ()), False),  # too few requirement lists
        "not a tuple",
    ]
    rows = [good, *bad_rows, good]
    c = cache_mod.Cached(paths=[f"/p{i}" for i in range(len(rows))], summaries=marshal.dumps(rows))
    assert [c.summary(i) for i in range(len(rows))] == [good, *[None] * len(bad_rows), good]
    whole = cache_mod.Cached(paths=["/a", "/b"], summaries=marshal.dumps([good, good]))
    assert whole.summary(1) == good and whole.summary(2) is None
    short = cache_mod.Cached(paths=["/a", "/b"], summaries=marshal.dumps([good]))  # wrong length: none used
    assert short.summary(0) is None
    assert cache_mod.Cached(paths=["/a"], summaries=b"\x00junk").summary(0) is None


def test_a_big_scan_and_its_second_start_stay_in_this_process(tmp_path: Path) -> None:
    """Discovery never forks or starts a thread, however big the root: the host process is the
    embedder's, with its own signals, locks and descriptors."""
    import threading

    root = tmp_path / "big"
    for i in range(1200):
        d = root / f"s{i:04d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i:04d}\ndescription: Skill {i}.\n---\n", encoding="utf-8")
    forks: list[int] = []
    os.register_at_fork(before=lambda: forks.append(os.getpid()))
    threads = threading.active_count()
    cache_file = tmp_path / "cache.marshal"
    cold = Registry([Root(root, "custom")], cache=cache_file)
    warm = Registry([Root(root, "custom")], cache=cache_file)
    assert len(cold) == len(warm) == 1200 and warm.names() == cold.names()
    assert forks == [] and threading.active_count() == threads


def test_a_cold_scan_keeps_rows_and_builds_each_skill_as_the_parser_does(tmp_path: Path, make_skill) -> None:
    """A first start keeps each file's parsed row: a listing builds no `Skill`, a skill built later
    is the one `parse_skill` gives, and the rows saved as the start-up cache serve the next start."""
    from skillyard import cache as cache_mod
    from skillyard import reports
    from skillyard.model import skill_to_row
    from skillyard.parsing import parse_skill

    make_skill(tmp_path, "a", extra='metadata: {"openclaw": {"emoji": "🔧", "requires": {"env": ["TOK"]}}}')
    make_skill(tmp_path, "b", extra="license: MIT\nuser-invocable: no")
    (tmp_path / "b" / "SKILL.toml").write_text('[[tools]]\nname = "t"\ndescription = "d"\ncommand = "echo"\n')
    cache_file = tmp_path.parent / f"{tmp_path.name}.cache"
    reg = Registry([Root(tmp_path, "custom")], cache=cache_file, host=no_bins_host())
    assert sorted(reg.scan.parsed) == sorted(reg.scan.files)
    listed = reports.list_report(reg)
    assert [i["name"] for i in listed["skills"]] == ["a", "b"] and listed["skills"][0]["emoji"] == "🔧"
    assert not any(e.built for e in reg.scan.files.values())  # listed from the rows alone
    for s in reg.skills:
        parsed, _ = parse_skill(s.path, "custom")
        assert parsed is not None and skill_to_row(s) == skill_to_row(parsed)
    assert [t.name for t in reg.get("b").tools] == ["t"]
    warm = Registry([Root(tmp_path, "custom")], cache=cache_file, host=no_bins_host())
    assert warm.scan.parsed == [] and len(cache_mod.load(cache_file)) == 2
    assert [skill_to_row(s) for s in warm.skills] == [skill_to_row(s) for s in reg.skills]


def test_full_reloads_asked_at_once_share_one_rescan(tmp_path: Path, make_skill) -> None:
    """Clients asking for a reload while another is under way cost one more rescan, not one each;
    a reload asked for after one finished rescans again (it must see what changed since)."""
    import threading

    make_skill(tmp_path, "a")
    reg = Registry.from_roots([tmp_path])
    scans: list[object] = []
    reg.on_change(scans.append)
    diffs: list[dict] = []
    with reg._lock:  # a reload under way: every call below waits for it
        threads = [threading.Thread(target=lambda: diffs.append(reg.reload().to_dict())) for _ in range(12)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        make_skill(tmp_path, "b")
    for t in threads:
        t.join(30)
    assert len(diffs) == 12 and len(scans) == 1
    assert all(d["current"]["total"] == 2 for d in diffs)
    make_skill(tmp_path, "c")
    assert reg.reload().to_dict()["current"]["total"] == 3 and len(scans) == 2
