"""Skill search: ranking, normalisation, the no-match threshold, incremental updates, hostile input."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.model import Skill, ToolSpec
from skillyard.parsing import parse_skill
from skillyard.search import BODY_CHARS, SearchHit, SearchIndex, stem, tokenize


def write_skill(root: Path, name: str, description: str, body: str = "", extra: str = "") -> Skill:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    p = d / "SKILL.md"
    desc = description.replace('"', '\\"')
    p.write_text(f'---\nname: {name}\ndescription: "{desc}"\n{extra}---\n\n{body}', encoding="utf-8")
    skill, diags = parse_skill(p)
    assert skill is not None, diags
    return skill


@pytest.fixture()
def catalog(tmp_path: Path) -> list[Skill]:
    return [
        write_skill(
            tmp_path,
            "image-resizer",
            "Resize, crop and convert images between PNG, JPEG and WebP.",
            "# Image resizing\n\n## Thumbnails\nBatch thumbnails for a folder.\n",
        ),
        write_skill(
            tmp_path,
            "pdf-tools",
            "Extract text and tables from PDF files, merge or split PDFs, fill PDF forms.",
            "# PDF\n\n## Forms\nList fields, then fill them.\n",
        ),
        write_skill(
            tmp_path,
            "email-drafter",
            "Draft professional emails and replies in the right tone.",
            "# Emails\n\n## Tone\nFormal for clients.\n",
        ),
        write_skill(
            tmp_path,
            "slide-builder",
            "Build presentation decks from an outline with speaker notes.",
            "# Slides\n\n## Layouts\nThe picture layout scales images into the placeholder.\n",
        ),
        write_skill(
            tmp_path,
            "weather-forecast",
            "Current weather and the seven-day forecast for a city.",
            "# Weather\n\n## Forecast\nChance of precipitation per day.\n",
            extra="when_to_use: When someone asks whether to take an umbrella.\ntags: [outdoors, climate]\n",
        ),
        write_skill(
            tmp_path,
            "log-analyzer",
            "Analyse server logs for errors and slow requests.",
            "# Logs\n\n## Kubernetes pods\nRead logs with kubectl logs.\n",
        ),
    ]


def names(hits: list[SearchHit]) -> list[str]:
    return [h.name for h in hits]


# ---------------------------------------------------------------- normalisation


def test_tokenize_splits_case_kebab_and_drops_stop_words() -> None:
    assert tokenize("parseSkillFile") == ["pars", "fil"]  # "skill" is a stop word
    assert tokenize("HTMLParser for PDFs") == ["html", "parser", "pdf"]
    assert tokenize("image-resizer_tool") == ["imag", "resizer", "tool"]
    assert tokenize("the and of to") == []
    assert tokenize("") == [] and tokenize(None) == []  # type: ignore[arg-type]


def test_stemming_is_conservative_and_symmetric() -> None:
    assert stem("images") == stem("image") == stem("imaging")
    assert stem("queries") == stem("query")
    assert stem("running") == stem("run")
    assert stem("processes") == stem("process") == stem("processing")
    assert stem("string") == "string"  # no vowel left after "ing": kept whole
    assert stem("pass") == "pass" and stem("status") == "status"
    assert stem("k8s") == "k8s"


# ---------------------------------------------------------------- ranking


def test_name_and_description_rank_above_body(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    hits = ix.search("resize images")
    assert names(hits)[0] == "image-resizer"
    # "picture" appears only in slide-builder's body; image-resizer matches via the synonym in its name
    # and description, which must still win.
    assert names(ix.search("shrink a picture"))[0] == "image-resizer"


def test_exact_name_query(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    assert names(ix.search("pdf-tools"))[0] == "pdf-tools"
    assert names(ix.search("pdfTools"))[0] == "pdf-tools"
    assert names(ix.search("PDF"))[0] == "pdf-tools"


def test_paraphrases_through_synonyms(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    assert names(ix.search("write a mail to a customer"))[0] == "email-drafter"
    assert names(ix.search("will it rain tomorrow"))[0] == "weather-forecast"
    assert names(ix.search("make a powerpoint from my notes"))[0] == "slide-builder"


def test_when_to_use_and_tags_are_searched(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    assert names(ix.search("umbrella"))[:1] == ["weather-forecast"]
    assert names(ix.search("climate outdoors"))[:1] == ["weather-forecast"]


def test_body_headings_are_searched_lazily(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    assert names(ix.search("kubernetes pods"))[:1] == ["log-analyzer"]


def test_scores_rounded_and_sorted_by_score_then_name(tmp_path: Path) -> None:
    a = write_skill(tmp_path, "beta-twin", "Convert audio files to text transcripts.")
    b = write_skill(tmp_path, "alpha-twin", "Convert audio files to text transcripts.")
    hits = SearchIndex([a, b]).search("convert audio to text", limit=5)
    assert names(hits) == ["alpha-twin", "beta-twin"]
    assert hits[0].score == hits[1].score
    for h in hits:
        assert h.score == round(h.score, 4) and h.score > 0
        assert h.description == "Convert audio files to text transcripts."


def test_limit(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    assert len(ix.search("images pdf email", limit=2)) <= 2
    assert ix.search("pdf", limit=0) == []
    assert ix.search("pdf", limit=-3) == []
    with pytest.raises(ValueError, match="limit"):
        ix.search("pdf", limit="5")  # type: ignore[arg-type]


def test_deterministic_and_order_independent(catalog: list[Skill]) -> None:
    a = SearchIndex(catalog)
    b = SearchIndex(list(reversed(catalog)))
    for q in ("resize images", "logs errors", "forecast", "pdf forms", "draft reply"):
        ha, hb = a.search(q), b.search(q)
        assert names(ha) == names(hb)
        assert all(math.isclose(x.score, y.score, abs_tol=1e-3) for x, y in zip(ha, hb, strict=True))
        assert a.search(q) == ha


# ---------------------------------------------------------------- no good match


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "the and of to",
        "what is the capital of australia",
        "tell me a joke",
        "🙂🙂",
        "?!?",
        "a b c d",
    ],
)
def test_no_good_match_returns_empty(catalog: list[Skill], query: str) -> None:
    assert SearchIndex(catalog).search(query) == []


def test_empty_index() -> None:
    assert SearchIndex([]).search("anything") == []


# ---------------------------------------------------------------- update


def test_update_adds_removes_and_replaces(catalog: list[Skill], tmp_path: Path) -> None:
    ix = SearchIndex(catalog)
    assert names(ix.search("invoice"))[:1] == []
    new = write_skill(tmp_path / "more", "invoice-maker", "Create invoices with tax and payment terms.")
    ix.update([new], [])
    assert names(ix.search("invoice"))[:1] == ["invoice-maker"]
    assert "invoice-maker" in ix and len(ix) == len(catalog) + 1

    ix.update([], ["pdf-tools"])
    assert "pdf-tools" not in names(ix.search("merge pdf files"))
    assert "pdf-tools" not in ix

    replaced = write_skill(tmp_path / "v2", "email-drafter", "Write cover letters for job applications.")
    ix.update([replaced], ["email-drafter"])
    assert names(ix.search("cover letter"))[:1] == ["email-drafter"]
    assert "email-drafter" not in names(ix.search("professional tone"))  # old description forgotten

    # Same name added without removal replaces too; unknown removals are ignored.
    again = write_skill(tmp_path / "v3", "email-drafter", "Draft professional emails and replies.")
    ix.update([again], ["no-such-skill", 42])  # type: ignore[list-item]
    assert names(ix.search("professional emails"))[:1] == ["email-drafter"]


def test_update_matches_a_fresh_index(catalog: list[Skill], tmp_path: Path) -> None:
    ix = SearchIndex(catalog)
    ix.search("warm up the body index")
    extra = [
        write_skill(tmp_path / "x", f"extra-{i}", f"Extra skill {i} for video editing and clips.")
        for i in range(3)
    ]
    ix.update(extra, ["image-resizer", "log-analyzer"])
    ix.update([], ["extra-1"])
    final = [s for s in catalog if s.name not in ("image-resizer", "log-analyzer")] + [extra[0], extra[2]]
    fresh = SearchIndex(final)
    for q in ("video clips", "pdf forms", "forecast", "email tone", "slides outline", "logs", "resize"):
        a, b = ix.search(q), fresh.search(q)
        assert names(a) == names(b), q
        assert all(math.isclose(x.score, y.score, abs_tol=1e-3) for x, y in zip(a, b, strict=True))


def test_update_does_not_reread_untouched_skills(catalog: list[Skill], tmp_path: Path) -> None:
    ix = SearchIndex(catalog)
    assert names(ix.search("kubernetes pods"))[:1] == ["log-analyzer"]  # bodies read now
    # If update() rebuilt everything, the body would be re-read from this now-empty file.
    (catalog[-1].path).write_text("---\nname: log-analyzer\ndescription: x\n---\n", encoding="utf-8")
    ix.update([write_skill(tmp_path / "y", "new-one", "Something about spreadsheets.")], [])
    assert names(ix.search("kubernetes pods"))[:1] == ["log-analyzer"]


# ---------------------------------------------------------------- bodies


def test_index_build_does_not_read_bodies(tmp_path: Path) -> None:
    ghost = Skill(
        name="ghost",
        description="Translate documents into other languages.",
        path=tmp_path / "no" / "SKILL.md",
    )
    ix = SearchIndex([ghost])  # the file does not exist: building must not care
    assert names(ix.search("translate a document")) == ["ghost"]


def test_body_is_capped(tmp_path: Path) -> None:
    early = "zebrafish " + "filler text here. " * 10
    late = "x" * (BODY_CHARS * 3) + " quokka"
    s = write_skill(tmp_path, "capped", "Handles animals.", body=f"# Animals\n\n{early}\n{late}\n")
    ix = SearchIndex([s, write_skill(tmp_path, "other", "Something unrelated about tax forms.")])
    assert names(ix.search("zebrafish")) == ["capped"]
    assert ix.search("quokka") == []
    assert s._body is None  # the search did not load (and keep) the whole body


def test_loaded_body_is_used(tmp_path: Path) -> None:
    s = Skill(
        name="inmem",
        description="Generic helper.",
        path=tmp_path / "nope" / "SKILL.md",
        _body="## Platypus care\n",
    )
    assert names(SearchIndex([s]).search("platypus")) == ["inmem"]


def test_toml_tools_are_searched(tmp_path: Path) -> None:
    s = Skill(
        name="ops",
        description="Operations helpers.",
        path=tmp_path / "ops" / "SKILL.toml",
        format="toml",
        tools=(
            ToolSpec(
                name="disk_usage", description="Report disk usage per directory", command="du -sh {path}"
            ),
        ),
    )
    assert names(SearchIndex([s]).search("disk usage")) == ["ops"]


def test_unreadable_body_does_not_break_search(tmp_path: Path) -> None:
    s = write_skill(tmp_path, "gone", "Compress folders into zip archives.", body="# Archives\n")
    s.path.unlink()
    assert names(SearchIndex([s]).search("zip a folder")) == ["gone"]


def test_hostile_skill_fields_are_tolerated(tmp_path: Path) -> None:
    odd = Skill(
        name="odd", description=None, path=tmp_path / "odd" / "SKILL.md", tags=("x", 3), when_to_use=7
    )  # type: ignore[arg-type]
    odd.metadata = {"tags": ["zip", None], "keywords": "archive"}
    ix = SearchIndex([odd, "not a skill"])  # type: ignore[list-item]
    assert names(ix.search("zip archive")) == ["odd"]
    assert ix.search("zip")[0].description == ""


# ---------------------------------------------------------------- hostile queries


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=300), limit=st.integers(min_value=-5, max_value=50))
def test_any_query_never_raises(catalog: list[Skill], query: str, limit: int) -> None:
    hits = SearchIndex(catalog).search(query, limit=limit)
    assert len(hits) <= max(limit, 0)
    assert all(isinstance(h, SearchHit) and math.isfinite(h.score) for h in hits)
    assert [(-h.score, h.name) for h in hits] == sorted((-h.score, h.name) for h in hits)


def test_huge_and_odd_queries(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    assert isinstance(ix.search("pdf " * 100_000), list)
    assert isinstance(ix.search("\x00\ud800 ../../etc/passwd <script>"), list)
    assert ix.search(None) == []  # type: ignore[arg-type]
    assert names(ix.search("a" * 500 + " pdf"))[:1] == ["pdf-tools"]
    assert ix.search("a" * 10_000 + " pdf") == []  # only the first MAX_QUERY_CHARS are read
    info = ix.explain("Resizing pictures")
    assert info["terms"] == ["resiz", "pictur"]


def test_registry_search_uses_the_index(tmp_path: Path) -> None:
    from skillyard.registry import Registry

    root = tmp_path / "skills"
    write_skill(root, "pdf-tools", "Extract text and tables from PDF files.")
    write_skill(root, "weather-forecast", "Weather forecast for a city.")
    reg = Registry.from_roots([root])
    hits = reg.search("pull tables out of a pdf")
    assert hits and hits[0].name == "pdf-tools"


def test_hostile_containers(catalog: list[Skill]) -> None:
    with pytest.raises(TypeError, match="sequence"):
        SearchIndex(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="body_chars"):
        SearchIndex([], body_chars="4k")  # type: ignore[arg-type]
    ix = SearchIndex(s for s in catalog)  # any iterable
    with pytest.raises(TypeError, match="added"):
        ix.update(None, [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="removed"):
        ix.update([], "pdf-tools")
    nul = Skill(name="nul-path", description="Bake sourdough bread.", path=Path("/tmp/x\x00y/SKILL.md"))
    ix.update([nul], [])
    assert names(ix.search("sourdough bread")) == ["nul-path"]


def test_body_offset_with_bom_and_crlf(tmp_path: Path) -> None:
    d = tmp_path / "crlf"
    d.mkdir()
    text = "---\r\nname: crlf\r\ndescription: Windows line endings.\r\nlicense: quokka-licence\r\n---\r\n# Zebra care\r\nfeed it\r\n"
    (d / "SKILL.md").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    skill, _ = parse_skill(d / "SKILL.md")
    assert skill is not None
    ix = SearchIndex(
        [skill, Skill(name="other", description="Unrelated tax forms.", path=tmp_path / "o" / "SKILL.md")]
    )
    assert names(ix.search("zebra")) == ["crlf"]  # the heading is seen as a heading
    assert ix.search("quokka licence") == []  # frontmatter is not read as body
    assert skill._body is None


def test_explain_shows_rejected_candidates(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    info = ix.explain("kubernetes lunch", limit=3)
    assert info["terms"] == ["kubernet", "lunch"]
    cands = info["candidates"]
    assert isinstance(cands, list) and cands[0]["name"] == "log-analyzer"
    assert all(set(c) == {"name", "score", "coverage", "accepted"} for c in cands)
    accepted = [c["name"] for c in cands if c["accepted"]]
    assert accepted == [h.name for h in ix.search("kubernetes lunch", limit=3)]
    assert ix.explain("")["candidates"] == []


def test_score_caches_stay_bounded(catalog: list[Skill], monkeypatch: pytest.MonkeyPatch) -> None:
    import skillyard.search as search_mod

    ix = SearchIndex(catalog)
    expected = {
        q: ix.search(q) for q in ("resize images", "pdf forms", "weather", "logs errors", "email tone")
    }
    monkeypatch.setattr(search_mod, "MAX_CACHED_ENTRIES", 8)
    ix.clear_cache()
    for _ in range(3):
        for q, hits in expected.items():
            assert ix.search(q) == hits
            assert ix._cached_entries <= 8 + 2 * 2 * len(catalog)  # bound plus the entry just added


_POOL_WORDS = ["pdf", "image", "email", "deploy", "chart", "invoice", "weather", "translate", "video", "logs"]


def _pool_skill(i: int, variant: int) -> Skill:
    w1, w2 = _POOL_WORDS[i % 10], _POOL_WORDS[(i * 3 + variant) % 10]
    return Skill(
        name=f"pool-{i}",
        description=f"Work with {w1} and {w2} files (version {variant}).",
        path=Path(f"/nonexistent/pool-{i}/SKILL.md"),
        _body=f"# {w2.title()} guide\n\nSteps for {w1}.\n",
    )


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 7), st.integers(0, 3)), max_size=25))
def test_any_update_sequence_matches_a_fresh_index(ops: list[tuple[bool, int, int]]) -> None:
    current = {i: _pool_skill(i, 0) for i in range(4)}
    ix = SearchIndex(list(current.values()))
    ix.search("warm")
    for add, i, variant in ops:
        if add:
            current[i] = _pool_skill(i, variant)
            ix.update([current[i]], [])
        else:
            current.pop(i, None)
            ix.update([], [f"pool-{i}"])
    fresh = SearchIndex(list(current.values()))
    assert len(ix) == len(current)
    for q in ("pdf image", "deploy logs", "weather chart", "translate video invoice", "email"):
        a, b = ix.search(q, limit=8), fresh.search(q, limit=8)
        assert [h.name for h in a] == [h.name for h in b], q
        assert all(math.isclose(x.score, y.score, abs_tol=1e-3) for x, y in zip(a, b, strict=True))


# ------------------------------------------------------------ pruned top-k versus scoring everything

_WORDS = ["image", "resize", "pdf", "merge", "email", "send", "deploy", "cluster", "chart", "data", "zzq"]


def _memory_skill(i: int, name_words: list[str], desc_words: list[str], body_words: list[str]) -> Skill:
    """A skill whose body is held in memory (`_body`), so no file is read."""
    s = Skill(
        name=f"s{i:03d}-{'-'.join(name_words) or 'x'}",
        description=" ".join(desc_words),
        path=Path(f"/nonexistent/s{i}/SKILL.md"),
    )
    s._body = "# " + " ".join(body_words[:3]) + "\n" + " ".join(body_words)
    return s


_docs = st.lists(
    st.tuples(
        st.lists(st.sampled_from(_WORDS), max_size=2),
        st.lists(st.sampled_from(_WORDS), max_size=6),
        st.lists(st.sampled_from(_WORDS), max_size=12),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=_docs,
    queries=st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4), min_size=1, max_size=4),
    limit=st.integers(min_value=1, max_value=12),
    duplicate=st.booleans(),
)
def test_pruned_search_equals_exhaustive(
    docs: list[tuple[list[str], list[str], list[str]]], queries: list[list[str]], limit: int, duplicate: bool
) -> None:
    """`search` (dense sums, candidate pool, score groups) returns exactly what scoring everything returns,
    including ties (duplicate skills differ only by name) and after in-place updates."""
    skills = [_memory_skill(i, *d) for i, d in enumerate(docs)]
    if duplicate:  # identical text under other names: every score is tied with its twin
        skills += [_memory_skill(i + 500, *d) for i, d in enumerate(docs)]
    ix = SearchIndex(skills)
    for words in queries:
        q = " ".join(words)
        assert ix.search(q, limit) == ix.search_exhaustive(q, limit)
    ix.update([_memory_skill(900, ["pdf"], ["merge", "pdf"], ["pdf"])], [skills[0].name])
    for words in queries:
        q = " ".join(words)
        assert ix.search(q, limit) == ix.search_exhaustive(q, limit)
        ix.clear_cache()
        assert ix.search(q, limit) == ix.search_exhaustive(q, limit)


def test_pruned_search_equals_exhaustive_on_catalog(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    queries = ["resize a picture", "pdf", "send mail", "deploy", "zzz nothing", "image pdf email chart", ""]
    for q in queries:
        for limit in (1, 2, 5, 50):
            assert ix.search(q, limit) == ix.search_exhaustive(q, limit)
    assert ix.search("pdf", 5), "the catalog has a pdf skill"


def test_many_tied_scores_break_ties_by_name() -> None:
    """300 identical skills: the answer is the first names, found without checking all of them in order."""
    skills = [_memory_skill(i, ["chart"], ["draw", "chart"], ["chart"]) for i in range(300)]
    ix = SearchIndex(skills)
    hits = ix.search("chart", 7)
    assert [h.name for h in hits] == sorted(s.name for s in skills)[:7]
    assert len({h.score for h in hits}) == 1
    assert hits == ix.search_exhaustive("chart", 7)


_FLAT = ["pdf", "invoice", "weather", "deploy", "cluster", "video", "audio", "release", "budget", "recipe"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    size=st.integers(min_value=20, max_value=160),
    queries=st.lists(
        st.lists(st.sampled_from([*_FLAT, "zzq", "git", "picture"]), min_size=1, max_size=3),
        min_size=1,
        max_size=3,
    ),
    limit=st.sampled_from([1, 3, 5, 17, 200]),
)
def test_flat_vocabulary_massive_ties_equal_exhaustive(
    seed: int, size: int, queries: list[list[str]], limit: int
) -> None:
    """Every body holds every word, so nearly every skill ties at 4 places with thousands of others
    (at scale); names are shuffled against document order, some words appear only in some descriptions
    (coverage then turns part of a tied group away), and skills are removed and re-added in place."""
    import random

    rnd = random.Random(seed)
    body = " ".join(_FLAT)
    ids = list(range(size))
    rnd.shuffle(ids)
    skills = []
    for k, i in enumerate(ids):
        desc = [w for w in _FLAT if rnd.random() < 0.3] if k % 3 else []
        s = Skill(name=f"flat-{i:04d}", description=" ".join(desc), path=Path(f"/nonexistent/f{i}/SKILL.md"))
        s._body = f"# {body}\n{body}\n"
        skills.append(s)
    ix = SearchIndex(skills)
    for words in queries:
        q = " ".join(words)
        assert ix.search(q, limit) == ix.search_exhaustive(q, limit), q
    removed = [s.name for s in rnd.sample(skills, min(5, size))]
    again = Skill(name="flat-aaaa", description="pdf invoice", path=Path("/nonexistent/a/SKILL.md"))
    again._body = body
    ix.update([again], removed)
    for words in queries:
        q = " ".join(words)
        assert ix.search(q, limit) == ix.search_exhaustive(q, limit), q


def test_thousands_of_ties_take_the_first_names_that_pass_coverage() -> None:
    """2,000 skills whose scores all round alike: the first names in order win, and a query that no
    skill could explain enough (a word nobody uses dominates its mass) is [] like the exhaustive answer."""
    body = " ".join(_FLAT)
    skills = []
    for i in range(2000):
        s = Skill(
            name=f"tie-{(i * 7919) % 2000:04d}", description="", path=Path(f"/nonexistent/t{i}/SKILL.md")
        )
        s._body = body
        skills.append(s)
    ix = SearchIndex(skills)
    hits = ix.search("pdf invoice", 5)
    assert [h.name for h in hits] == [f"tie-{i:04d}" for i in range(5)]
    assert hits == ix.search_exhaustive("pdf invoice", 5)
    assert len({h.score for h in ix.search("weather", 50)}) == 1
    assert ix.search("git changelog release", 5) == ix.search_exhaustive("git changelog release", 5) == []


@settings(max_examples=200, deadline=None)
@given(x=st.floats(min_value=0.0, max_value=1e4, allow_nan=False))
def test_round_floor_is_the_exact_group_bound(x: float) -> None:
    """Scores at or above `_round_floor(r)` round to r or more, and the float just below it rounds lower."""
    from skillyard.search import _round_floor

    r = round(x, 4)
    lo = _round_floor(r)
    assert lo <= x or round(x, 4) < r
    assert round(lo, 4) >= r
    assert round(math.nextafter(lo, -math.inf), 4) < r
