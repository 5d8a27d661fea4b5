"""A skill's frontmatter held packed until first read reads exactly as the parsed one."""

from __future__ import annotations

import threading
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from skillyard.discovery import Root
from skillyard.model import Skill
from skillyard.parsing import parse_skill
from skillyard.registry import Registry

META = 'metadata: {"openclaw": {"emoji": "🔧", "requires": {"bins": ["jq"]}}, "tags": ["a", "b"]}'


def _roots(tmp_path: Path, make_skill) -> Path:
    root = tmp_path / "r"
    make_skill(root, "plain")
    make_skill(root, "meta", extra=META + "\nlicense: MIT")
    make_skill(root, "string-meta", extra="metadata: '{\"k\": 1}'")
    (root / "tt").mkdir()
    (root / "tt" / "SKILL.toml").write_text(
        '[skill]\nname = "tt"\ndescription = "d"\n[metadata]\nx = [1, 2.5, true]\n', encoding="utf-8"
    )
    return root


def test_cached_and_cold_skills_read_the_same_frontmatter_as_a_fresh_parse(
    tmp_path: Path, make_skill
) -> None:
    root = _roots(tmp_path, make_skill)
    cache_file = tmp_path / "cache.marshal"
    Registry([Root(root, "custom")], cache=cache_file)  # cold: writes the cache
    for reg in (Registry([Root(root, "custom")], cache=cache_file), Registry([Root(root, "custom")])):
        for s in reg.skills:
            parsed, _ = parse_skill(s.path, "custom")
            assert parsed is not None
            assert s.frontmatter == parsed.frontmatter
            assert s.metadata == parsed.metadata
            assert s.frontmatter is s.frontmatter and s.metadata is s.metadata  # decoded once, kept


def test_metadata_given_as_a_mapping_stays_the_frontmatter_entry(tmp_path: Path, make_skill) -> None:
    root = _roots(tmp_path, make_skill)
    cache_file = tmp_path / "cache.marshal"
    Registry([Root(root, "custom")], cache=cache_file)
    s = Registry([Root(root, "custom")], cache=cache_file).get("meta")
    assert s is not None
    assert s.metadata is s.frontmatter["metadata"]
    assert s.metadata["tags"] == ["a", "b"]
    s.metadata["tags"].append("c")  # mutable, and the change stays
    assert s.frontmatter["metadata"]["tags"] == ["a", "b", "c"]
    string_meta = Registry([Root(root, "custom")], cache=cache_file).get("string-meta")
    assert string_meta is not None
    assert string_meta.metadata == {"k": 1} and string_meta.frontmatter["metadata"] == '{"k": 1}'


def _packed(frontmatter: dict, metadata: dict) -> Skill:
    s = Skill("a", "d", Path("/x/a/SKILL.md"), frontmatter=frontmatter, metadata=metadata)
    out = Skill("a", "d", Path("/x/a/SKILL.md"))
    out.defer_frontmatter(s.packed_frontmatter())
    return out


def test_a_field_assigned_before_the_first_read_wins_over_the_blob() -> None:
    s = _packed({"name": "a", "metadata": {"x": 1}}, {"x": 1})
    s.metadata = {"y": 2}
    assert s.frontmatter == {"name": "a", "metadata": {"x": 1}}
    assert s.metadata == {"y": 2}
    t = _packed({"name": "a"}, {})
    t.frontmatter = {"name": "b"}
    again = Skill("a", "d", Path("/x"))
    again.defer_frontmatter(t.packed_frontmatter())  # the assigned value is what gets packed
    assert again.frontmatter == {"name": "b"} and again.metadata == {}


def test_a_blob_that_is_not_two_mappings_reads_as_two_empty_ones() -> None:
    for blob in (b"", b"garbage", b"\xff" * 9):
        s = Skill("a", "d", Path("/x"))
        s.defer_frontmatter(blob)
        assert s.frontmatter == {} and s.metadata == {}


def test_other_missing_attributes_still_raise() -> None:
    s = _packed({"name": "a"}, {})
    assert not hasattr(s, "no_such_field")
    assert s.frontmatter == {"name": "a"}


def test_threads_reading_a_packed_skill_get_one_object() -> None:
    s = _packed({"name": "a", "metadata": {"k": [1]}}, {"k": [1]})
    seen: list[object] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait()
        seen.append(s.metadata)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(m) for m in seen}) == 1 and seen[0] == {"k": [1]}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(
    st.dictionaries(st.text(), json_values, max_size=6), st.dictionaries(st.text(), json_values, max_size=3)
)
def test_any_json_frontmatter_round_trips(frontmatter: dict, metadata: dict) -> None:
    s = _packed(frontmatter, metadata)
    assert s.frontmatter == frontmatter and s.metadata == metadata
    fm = {**frontmatter, "metadata": metadata}
    t = _packed(fm, fm["metadata"])
    assert t.frontmatter == fm and t.metadata is t.frontmatter["metadata"]


def test_metadata_view_reads_without_keeping_a_decoded_copy(tmp_path: Path, make_skill) -> None:
    """The search index reads every skill's tags once; a packed skill stays packed after it."""
    root = _roots(tmp_path, make_skill)
    cache_file = tmp_path / "cache.marshal"
    Registry([Root(root, "custom")], cache=cache_file)
    for reg in (Registry([Root(root, "custom")], cache=cache_file), Registry([Root(root, "custom")])):
        for s in reg.skills:
            parsed, _ = parse_skill(s.path, "custom")
            assert parsed is not None
            packed_before = s._packed is not None
            assert s.metadata_view() == parsed.metadata
            assert (s._packed is not None) == packed_before  # nothing decoded into the skill
            assert s.metadata_view() == s.metadata  # and the same after a real read
    packed = Skill("x", "d", tmp_path / "SKILL.md")
    packed.defer_frontmatter(b"not marshal")
    assert packed.metadata_view() == {} and packed.metadata == {}
