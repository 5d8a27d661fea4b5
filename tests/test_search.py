"""Skill search: ranking, normalisation, the no-match threshold, incremental updates, hostile input."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.model import Skill, ToolSpec
from skillyard.parsing import parse_skill
from skillyard.search import BODY_CHARS, SearchHit, SearchIndex, stem, tokenize
from skillyard.search._lexical import COVERAGE_BASE, LexicalIndex, _ranked, _Word


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
    # the parts of a camelCase word, then the word itself ("skill" is a stop word)
    assert tokenize("parseSkillFile") == ["pars", "fil", "parseskillfil"]
    assert tokenize("HTMLParser for PDFs") == ["html", "parser", "pdf", "htmlparser"]
    assert tokenize("YouTube and iOS") == ["tub", "os", "youtub", "ios"]
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
    assert "quokka" not in repr(s)  # the search kept nothing of the body on the skill


def test_body_heading_is_searched(tmp_path: Path) -> None:
    s = write_skill(tmp_path, "inmem", "Generic helper.", body="## Platypus care\n")
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
    assert "Zebra" not in repr(skill)


def test_explain_shows_terms_and_candidates(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    info = ix.explain("kubernetes lunch", limit=3)
    assert info["terms"] == ["kubernet", "lunch"]
    cands = info["candidates"]
    assert isinstance(cands, list) and cands[0]["name"] == "log-analyzer"
    assert all(set(c) == {"name", "score", "coverage"} for c in cands)
    assert [c["name"] for c in cands] == [h.name for h in ix.search("kubernetes lunch", limit=3)]
    assert ix.explain("")["candidates"] == []


_POOL_WORDS = ["pdf", "image", "email", "deploy", "chart", "invoice", "weather", "translate", "video", "logs"]


_POOL_DIR = tempfile.TemporaryDirectory(prefix="skillyard-search-pool-")


def _pool_skill(i: int, variant: int) -> Skill:
    w1, w2 = _POOL_WORDS[i % 10], _POOL_WORDS[(i * 3 + variant) % 10]
    path = Path(_POOL_DIR.name, f"pool-{i}-{variant}", "SKILL.md")  # the file holds the body alone
    if not path.exists():
        path.parent.mkdir()
        path.write_text(f"# {w2.title()} guide\n\nSteps for {w1}.\n", encoding="utf-8")
    return Skill(
        name=f"pool-{i}",
        description=f"Work with {w1} and {w2} files (version {variant}).",
        path=path,
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


# ---------------------------------------------------------------- recall first, confidence, tolerance


def test_hits_carry_confidence(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    top = ix.search("merge pdf files")[0]
    assert top.name == "pdf-tools" and top.confidence == "strong"
    # one word of three matches: still a result, but a weak one
    hits = ix.search("pdf quokka wombat platypus")
    assert names(hits)[:1] == ["pdf-tools"] and hits[0].confidence == "weak"


@pytest.mark.parametrize(
    ("query", "want"),
    [
        ("resize a screnshot", "image-resizer"),  # typo, synonym of image
        ("fill the pdf frms", "pdf-tools"),
        ("wether tomorrow", "weather-forecast"),
        ("analysing the server logs", "log-analyzer"),  # roots and stems
    ],
)
def test_spelling_and_word_forms(catalog: list[Skill], query: str, want: str) -> None:
    assert names(SearchIndex(catalog).search(query))[:1] == [want]


def test_never_empty_when_a_word_matches(catalog: list[Skill]) -> None:
    ix = SearchIndex(catalog)
    for word in ("thumbnails", "precipitation", "kubectl", "speaker"):  # body-only words
        assert ix.search(f"quokka {word} wombat"), word


def test_large_catalog_first_search_ranks_metadata_and_indexes_bodies_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillyard.search._lexical as lexical

    monkeypatch.setattr(lexical, "SYNC_BODIES", 0)
    skills = [
        write_skill(tmp_path, f"s{i}", f"Skill number {i} about charts.", f"# Guide\n\nword{i} zebra{i}\n")
        for i in range(20)
    ]
    ix = SearchIndex(skills)
    assert names(ix.search("charts", 3))  # metadata answers at once
    ix.index_bodies()  # waits for the background indexer
    assert ix.bodies_pending() == 0
    assert names(ix.search("zebra7")) == ["s7"]


def test_the_background_indexer_builds_the_frequent_words_and_rankings_stay_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillyard.search._lexical as lexical

    monkeypatch.setattr(lexical, "SYNC_BODIES", 0)
    skills = [_pool_skill(i, i % 3) for i in range(30)]
    queries = ["pdf guide", "deploy steps for a chart", "weather", "guide guide", "steps", "pdfs deployed"]
    cold = SearchIndex(skills)
    cold.index_bodies(wait=True)  # indexed in this thread: nothing is built ahead
    assert not cold._lexical._words
    expected = {q: cold.search(q, 5) for q in queries}

    monkeypatch.setattr(lexical, "WARM_DF", 10)
    warm = SearchIndex(skills)
    warm.search("pdf")  # starts the background indexer
    warm.index_bodies()  # waits for it
    built = warm._lexical._words
    frequent = {t for t, df in warm._lexical._df.items() if df >= 10}
    assert frequent and set(built) == frequent
    assert {q: warm.search(q, 5) for q in queries} == expected

    monkeypatch.setattr(lexical, "WARM_POSTINGS", 30)  # room for one word in every skill, not two
    capped = SearchIndex(skills)
    capped.search("pdf")
    capped.index_bodies()
    assert len(capped._lexical._words) == 1
    assert {q: capped.search(q, 5) for q in queries} == expected


def test_a_loaded_word_list_rereads_the_words_it_can_correct(tmp_path: Path) -> None:
    pytest.importorskip("spellchecker")
    from skillyard.search import _spelling

    _spelling.load(wait=True)
    _spelling.set_enabled(False)
    try:
        ix = SearchIndex(_typo_catalog(tmp_path))
        assert names(ix.search("launch")) == ["lunch-planner"]  # read as "lunch"
        assert names(ix.search("plan"))
    finally:
        _spelling.set_enabled(True)
    # "launch" is an English word: with the list it is not a typo; "plan", a word the skills use, is kept
    assert ix.search("launch") == SearchIndex(_typo_catalog(tmp_path)).search("launch") == []
    assert "plan" in ix._lexical._words


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(alphabet=st.characters(codec="utf-8"), max_size=2000))
def test_hostile_queries_are_bounded_in_time(catalog: list[Skill], query: str) -> None:
    import time

    ix = SearchIndex(catalog)
    t = time.perf_counter()
    hits = ix.search(query, 10)
    assert time.perf_counter() - t < 2.0
    assert all(h.confidence in ("strong", "weak") for h in hits)


# ---------------------------------------------------------------- hybrid search over a real HTTP embedder


class _Embeddings:
    """A tiny deterministic embedding model served as /v1/embeddings on 127.0.0.1: bag of concept ids."""

    CONCEPTS = {
        "picture": 0,
        "image": 0,
        "photo": 0,
        "snapshot": 0,
        "forecast": 1,
        "weather": 1,
        "umbrella": 1,
        "sunny": 1,
        "pdf": 2,
        "form": 2,
        "paperwork": 2,
        "email": 3,
        "letter": 3,
        "correspondence": 3,
    }

    def __init__(self) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.calls.append(len(body["input"]))
                model.auth.append(self.headers.get("Authorization"))
                data = [{"index": i, "embedding": model.vector(t)} for i, t in enumerate(body["input"])]
                out = json.dumps({"data": data, "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: object) -> None:
                pass

        self.calls: list[int] = []
        self.auth: list[str | None] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def vector(self, text: str) -> list[float]:
        v = [0.0] * 5
        for w in tokenize(text):
            for word, c in self.CONCEPTS.items():
                if w == stem(word):
                    v[c] += 1.0
        v[4] = 0.05
        return v


@pytest.fixture()
def embeddings() -> _Embeddings:
    server = _Embeddings()
    yield server
    server.server.shutdown()


def test_hybrid_search_over_an_openai_compatible_server(
    catalog: list[Skill], embeddings: _Embeddings, tmp_path: Path
) -> None:
    from skillyard.search import EmbeddingCache, make_embedder

    embedder = make_embedder("openai:toy", base_url=embeddings.url, api_key="k-test")
    cache = EmbeddingCache(tmp_path / "vectors.sqlite")
    ix = SearchIndex(catalog, embedder=embedder, cache=cache)
    # no vectors yet: the search is lexical and does not wait ("sunny" is in no skill)
    assert ix.search("is it sunny") == [] or not ix.semantic_ready()
    ix.embed_skills()
    assert ix.semantic_ready() and embeddings.auth[0] == "Bearer k-test"
    hits = ix.search("is it sunny")
    assert names(hits)[:1] == ["weather-forecast"]
    # a second index over the same skills takes every vector from the disk cache
    before = sum(embeddings.calls)
    again = SearchIndex(catalog, embedder=embedder, cache=EmbeddingCache(tmp_path / "vectors.sqlite"))
    again.embed_skills()
    assert sum(embeddings.calls) == before
    assert names(again.search("paperwork"))[:1] == ["pdf-tools"]


def test_a_failing_embedder_leaves_search_lexical(catalog: list[Skill]) -> None:
    from skillyard.search import make_embedder

    embedder = make_embedder("openai:toy", base_url="http://127.0.0.1:9/v1", api_key="")
    ix = SearchIndex(catalog, embedder=embedder)
    ix.embed_skills()
    assert ix.semantic_error and "failed" in ix.semantic_error
    assert names(ix.search("merge pdf"))[:1] == ["pdf-tools"]


@pytest.mark.parametrize("spec", ["", "nope", "openai:", "fastembed", "bogus:model"])
def test_bad_embedder_specs(spec: str) -> None:
    from skillyard.search import parse_spec

    with pytest.raises(ValueError):
        parse_spec(spec)


def test_search_config_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillyard.config import ConfigError, parse_config
    from skillyard.search import embedder_spec

    cfg = parse_config({"search": {"embedder": "openai:text-embedding-3-small", "base_url": "http://x/v1"}})
    assert cfg.search.embedder == "openai:text-embedding-3-small" and cfg.search.base_url == "http://x/v1"
    assert parse_config({}).search.embedder == "none"
    for bad in ({"embedder": "magic"}, {"embedder": 3}, {"model": "x"}):
        with pytest.raises(ConfigError, match="search"):
            parse_config({"search": bad})
    monkeypatch.setenv("SKILLYARD_EMBEDDER", "fastembed:BAAI/bge-small-en-v1.5")
    assert embedder_spec(cfg.search) == "fastembed:BAAI/bge-small-en-v1.5"


def test_snapshot_restores_the_same_index_and_ignores_a_changed_set(tmp_path: Path) -> None:
    from dataclasses import replace

    skills = [_pool_skill(i, 0) for i in range(12)]
    snap = tmp_path / "snap"
    first = SearchIndex(skills, snapshot_dir=snap)
    first.index_bodies()
    expected = {q: first.search(q, 8) for q in ("pdf guide", "deploy steps", "weather chart")}
    assert sorted(p.suffix for p in snap.iterdir()) == [".body", ".meta"]
    again = SearchIndex(skills, snapshot_dir=snap)
    again.index_bodies()
    assert {q: again.search(q, 8) for q in expected} == expected
    again.update([_pool_skill(3, 5)], [])  # a restored index still updates in place
    assert "pool-3" in again and len(again) == 12
    # another set of skills (a changed size) gets its own snapshot, never the old one
    changed = [replace(s, size=s.size + 1) if s.name == "pool-0" else s for s in skills]
    other = SearchIndex(changed, snapshot_dir=snap)
    other.index_bodies()
    other.search("pdf")
    assert len(list(snap.iterdir())) == 4


def test_a_small_catalog_restored_from_its_snapshot_ranks_its_first_search_on_the_bodies_too(
    tmp_path: Path,
) -> None:
    """A one-shot `skillyard search` is the first search of its process: a warm start must answer as the
    cold one did, words only the bodies hold included."""
    skills = [_pool_skill(i, 0) for i in range(12)]
    snap = tmp_path / "snap"
    first = SearchIndex(skills, snapshot_dir=snap)
    first.index_bodies()
    expected = {q: first.search(q, 8) for q in ("guide", "steps", "pdf guide")}
    assert expected["guide"] and expected["steps"]  # words of the bodies only
    assert sorted(p.suffix for p in snap.iterdir()) == [".body", ".meta"]
    for query, hits in expected.items():
        assert SearchIndex(skills, snapshot_dir=snap).search(query, 8) == hits


def test_old_snapshots_are_pruned(tmp_path: Path) -> None:
    import os

    from skillyard.search import KEEP_SNAPSHOTS

    snap = tmp_path / "snap"
    snap.mkdir()
    for i in range(KEEP_SNAPSHOTS + 3):
        for suffix in (".meta", ".body"):
            p = snap / f"index-old{i:02d}{suffix}"
            p.write_bytes(b"x")
            os.utime(p, (1000 + i, 1000 + i))
    ix = SearchIndex([_pool_skill(1, 0)], snapshot_dir=snap)
    ix.search("pdf")
    metas = sorted(p.name for p in snap.glob("*.meta"))
    assert len(metas) == KEEP_SNAPSHOTS and "index-old00.meta" not in metas
    assert len(list(snap.glob("*.body"))) == KEEP_SNAPSHOTS


_COMMON = "data file report image chart test build deploy query table email meeting budget".split()


_COMMON_DIR = tempfile.TemporaryDirectory(prefix="skillyard-search-common-")


def _common_catalog(n: int) -> list[Skill]:
    """Skills whose words are in most other skills: requests that match nearly every skill."""
    out = []
    for i in range(n):
        words = [_COMMON[(i * k + k) % len(_COMMON)] for k in range(1, 9)]
        path = Path(_COMMON_DIR.name, f"s{i:04d}", "SKILL.md")  # the file holds the body alone
        if not path.exists():
            path.parent.mkdir()
            path.write_text(
                " ".join(_COMMON[(i + k * k) % len(_COMMON)] for k in range(40)), encoding="utf-8"
            )
        out.append(Skill(name=f"s{i:04d}", description=" ".join(words), path=path))
    return out


_COMMON_INDEX = LexicalIndex(_common_catalog(600))
_COMMON_INDEX.index_bodies()


def _reference(
    words: list[_Word], skills: list[Skill | None], limit: int | None
) -> list[tuple[str, float, float]]:
    """The reference ranking: every word's score added into a total for every skill it matches, in query
    order, then all of them sorted by (score rounded to 4 places, name)."""
    mass = sum(w.weight for w in words)
    inv = 1.0 / mass if mass > 0 else 0.0
    scores: dict[int, float] = {}
    covered: dict[int, float] = {}
    for w in words:
        for doc, sc in w.best.items():
            scores[doc] = scores.get(doc, 0.0) + sc
        for doc, x in w.explained.items():
            covered[doc] = covered.get(doc, 0.0) + x
    out = []
    for doc, sc in scores.items():
        skill = skills[doc]
        if skill is not None and sc > 0.0:
            cov = covered.get(doc, 0.0) * inv
            out.append((skill.name, round(sc * (COVERAGE_BASE + cov), 4), cov))
    out.sort(key=lambda h: (-h[1], h[0]))
    return out if limit is None else out[: max(limit, 0)]


def _exhaustive(index: LexicalIndex, query: str, limit: int | None) -> list[tuple[str, float, float]]:
    return _reference([index._word(t) for t in index.query_terms(query)], index._skills, limit)


@st.composite
def _words(draw: st.DrawFn) -> tuple[list[_Word], list[Skill | None]]:
    """Query words over up to 40 documents, with scores on a coarse grid plus small offsets: many exact
    ties, and many near-ties that round to the same 4 places (decided by name)."""
    n = draw(st.integers(1, 40))
    skills: list[Skill | None] = [Skill(name=f"d{i:02d}", description="", path=Path("/x")) for i in range(n)]
    for gone in draw(st.sets(st.integers(0, n - 1), max_size=3)):
        skills[gone] = None
    words = []
    for _ in range(draw(st.integers(1, 4))):
        weight = draw(st.sampled_from([0.4, 1.0, 2.3]))
        docs = draw(st.sets(st.integers(0, n - 1), min_size=1))
        score = st.builds(
            lambda k, e: k * 0.1 + e, st.integers(1, 6), st.sampled_from([0, 2e-5, 6e-5, -4e-5])
        )
        best = {d: draw(score) for d in sorted(docs)}
        explained = {d: weight * draw(st.sampled_from([1.0, 0.5])) for d in sorted(docs)}
        words.append(_Word(best, explained, weight))
    return words, skills


@settings(max_examples=300, deadline=None)
@given(case=_words(), limit=st.sampled_from([None, 0, 1, 2, 3, 5, 8, 100]))
def test_top_k_equals_the_exhaustive_sum_for_any_scores(
    case: tuple[list[_Word], list[Skill | None]], limit: int | None
) -> None:
    words, skills = case
    mass = sum(w.weight for w in words)
    assert _ranked(words, 1.0 / mass, limit, skills) == _reference(words, skills, limit)


def test_a_skill_level_with_the_last_after_rounding_is_kept() -> None:
    # d01 scores 1.0000375 and d00 1.0000125: both round to 1.0, so the name puts d00 first, though
    # d01 is the better unrounded score and the only one among the first `limit` by score.
    skills: list[Skill | None] = [Skill(name=f"d0{i}", description="", path=Path("/x")) for i in range(3)]
    word = _Word({1: 0.80003, 0: 0.80001, 2: 0.5}, {0: 1.0, 1: 1.0, 2: 1.0}, 1.0)
    assert _ranked([word], 1.0, 1, skills) == [("d00", 1.0, 1.0)] == _reference([word], skills, 1)


_LIMITS = st.sampled_from([None, 0, 1, 2, 3, 5, 8, 30, 10_000])


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.sampled_from([*_COMMON, "unknown", "reprot", "charts"]), min_size=1, max_size=6),
    limit=_LIMITS,
)
def test_top_k_equals_the_exhaustive_ranking_where_every_skill_matches(
    words: list[str], limit: int | None
) -> None:
    index = _COMMON_INDEX
    query = " ".join(words)
    got = index.rank(query, limit)
    assert got == _exhaustive(index, query, limit)
    # every word but "unknown" matches, by itself, its root or a spelling correction
    assert bool(got) == (any(w != "unknown" for w in words) and limit != 0)


_VOCAB = ["pdf", "form", "chart", "sales", "report", "email", "draft", "image", "resize", "log"]


@settings(max_examples=80, deadline=None)
@given(
    docs=st.lists(
        st.tuples(
            st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=8),
            st.lists(st.sampled_from(_VOCAB), max_size=3),
        ),
        min_size=1,
        max_size=40,
    ),
    query=st.lists(st.sampled_from([*_VOCAB, "charts", "emial", "nothing"]), min_size=1, max_size=5),
    limit=_LIMITS,
)
def test_top_k_equals_the_exhaustive_ranking_on_random_catalogs(
    docs: list[tuple[list[str], list[str]]], query: list[str], limit: int | None
) -> None:
    # Descriptions drawn from a few words: many skills tie, and ties at the cut are decided by name.
    skills = [
        Skill(name=f"k{i:02d}", description=" ".join(desc), tags=tuple(tags), path=Path("/nonexistent"))
        for i, (desc, tags) in enumerate(docs)
    ]
    index = LexicalIndex(skills, body_chars=0)
    q = " ".join(query)
    assert index.rank(q, limit) == _exhaustive(index, q, limit)


def test_top_k_scores_only_the_skills_that_can_reach_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillyard.search import _lexical

    summed: list[int] = []
    real = _lexical._sum

    def counted(docs, per_doc):  # type: ignore[no-untyped-def]
        summed.append(len(docs))
        return real(docs, per_doc)

    query = "budget"  # in nearly every skill, in the description of a few
    matching = len(_COMMON_INDEX.rank(query, None))
    monkeypatch.setattr(_lexical, "_sum", counted)
    top = _COMMON_INDEX.rank(query, 5)
    assert top == _exhaustive(_COMMON_INDEX, query, 5)
    # scores and explained masses together touch fewer skills than summing either over every match
    assert matching > 500 and 5 <= sum(summed) < matching, summed


# ---------------------------------------------------------------- the synonym table


def test_synonym_table_stays_consistent() -> None:
    from skillyard.search._synonyms import MAX_PHRASE, PHRASES, SYNONYM_GROUPS, SYNONYMS
    from skillyard.search._text import STOP_WORDS

    seen_groups: list[frozenset[str]] = []
    for group in SYNONYM_GROUPS:
        assert len(group) >= 2, group
        assert len(set(group)) == len(group), f"repeated entry in {group}"
        words = set()
        entries = set()
        for entry in group:
            assert entry == entry.strip().casefold(), entry
            toks = tokenize(entry)
            # a one-word entry is one index term; a phrase keeps all its words (no stop word hides one)
            assert toks, f"{entry!r} in {group} is only stop words"
            if " " in entry:
                assert len(toks) == len(entry.split()) - sum(w in STOP_WORDS for w in entry.split()) >= 2, (
                    entry
                )
            else:
                assert len(toks) == 1 or "-" in entry or "/" in entry, entry
            assert entry.split()[0] not in STOP_WORDS or " " in entry, entry
            words.update(toks if len(toks) == 1 else [])
            entries.add(tuple(toks))
        assert words, f"{group} has no single-word entry for its phrases to stand for"
        frozen = frozenset(entries)
        assert all(not frozen < g and not g < frozen for g in seen_groups), f"{group} is inside another group"
        seen_groups.append(frozen)
    # symmetric: a word is a synonym of each of its synonyms, and never of itself
    for term, syns in SYNONYMS.items():
        assert term not in syns
        assert all(term in SYNONYMS[s] for s in syns), term
    assert all(2 <= len(p) <= MAX_PHRASE and syns for p, syns in PHRASES.items())


def test_phrases_and_run_together_words(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, "cleaner", "Delete stale branches and remove unused files."),
        write_skill(tmp_path, "shots", "Annotate a screenshot with arrows."),
        write_skill(tmp_path, "decks", "Build a slide deck from an outline."),
        write_skill(tmp_path, "other", "Plan a trip with an itinerary."),
    ]
    ix = SearchIndex(skills)
    assert names(ix.search("get rid of old stuff", 2))[:1] == ["cleaner"]  # the phrase stands for remove
    assert "get rid" in ix.explain("get rid of old stuff")["terms"]  # type: ignore[operator]
    assert names(ix.search("screen shot with arrows", 1)) == ["shots"]
    assert names(ix.search("slidedeck", 1)) == ["decks"]  # split into two words the skills use


def test_pasted_cron_and_regex_fragments_are_read_as_their_names(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, "cron-helper", "Write crontab entries and explain cron expressions."),
        write_skill(tmp_path, "regex-helper", "Write, explain and debug a regex for a pattern."),
        write_skill(tmp_path, "calendar", "Schedule meetings at 10 on weekdays."),
    ]
    ix = SearchIndex(skills)
    # the fragments are symbols, not words: without their shape the first request has no term at all
    assert names(ix.search("what does 0 */6 * * 1-5 mean", 1)) == ["cron-helper"]
    assert names(ix.search(r"wtf does ^(?=.*\d)(?=.*[a-z]).{8,}$ do", 1)) == ["regex-helper"]
    assert "regex" not in ix.explain("meet at 10 1 2 3 4 in file.txt")["terms"]  # type: ignore[operator]
    assert "cron" not in ix.explain("meet at 10 1 2 3 4 in file.txt")["terms"]  # type: ignore[operator]


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_shapes_never_fail_on_any_text(text: str) -> None:
    assert isinstance(LexicalIndex([], body_chars=0).query_terms(text), list)


def test_irregular_verb_forms_meet_their_base_form() -> None:
    assert stem("wrote") == stem("written") == stem("write") == stem("writing")
    assert stem("built") == stem("build") and stem("drawn") == stem("draw") and stem("paid") == stem("pay")


def test_derived_words_share_a_root(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, "extractor", "Extract tables from scanned files."),
        write_skill(tmp_path, "speedup", "Measure where a program spends its time and how it performs."),
        write_skill(tmp_path, "unrelated", "Plan a trip with an itinerary."),
    ]
    ix = SearchIndex(skills)
    assert names(ix.search("table extraction", 1)) == ["extractor"]
    assert names(ix.search("performance", 1)) == ["speedup"]  # "performanc" ~ "perform"


def test_the_opening_of_a_body_weighs_more_than_its_reference_sections(tmp_path: Path) -> None:
    filler = "\n".join(f"Step {i}: run the command and read its output carefully." for i in range(60))
    skills = [
        write_skill(
            tmp_path, "a-opening", "A helper.", "# Helper\n\nRotates signing keys for a service.\n\n" + filler
        ),
        write_skill(
            tmp_path,
            "b-deep",
            "A helper.",
            "# Helper\n\nRuns commands.\n\n"
            + filler
            + "\n\n## Appendix\nRotates signing keys for a service.\n",
        ),
    ]
    ix = SearchIndex(skills)
    assert names(ix.search("rotate signing keys", 2)) == ["a-opening", "b-deep"]
    # and a code block at the start is not part of the opening
    code = "```\nrotate signing keys\n```\n"
    skills.append(write_skill(tmp_path, "c-code", "A helper.", "# Helper\n\n" + code + filler))
    ix = SearchIndex(skills)
    assert names(ix.search("rotate signing keys", 1)) == ["a-opening"]


def test_a_misspelt_word_is_corrected_to_a_body_word_several_skills_use(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, f"s{i}", "A helper.", "# Helper\n\nCall it programmatically from a script.\n")
        for i in range(2)
    ] + [write_skill(tmp_path, "other", "Plan a trip.", "# Trip\n\nMaps.\n")]
    ix = SearchIndex(skills)
    assert set(names(ix.search("programatically", 5))) == {"s0", "s1"}
    assert ix.explain("programatically")["corrections"] == {"programatically": ["programmatically"]}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    blocks=st.lists(
        st.tuples(st.booleans(), st.sampled_from(["```", "~~~", "```python", "  ```"])), max_size=30
    )
)
def test_the_lead_is_the_prose_outside_code_blocks(blocks: list[tuple[bool, str]], tmp_path: Path) -> None:
    from skillyard.search._lexical import LEAD_CHARS, _body_fields

    parts = []
    for i, (is_code, fence) in enumerate(blocks):
        close = fence.strip()[:3]
        parts.append(f"{fence}\ncodeword{i}\n{close}" if is_code else f"proseword{i} é")
    body = "\n\n".join(parts) + "\n```\nunclosed block\n"  # an unclosed fence runs to the end
    path = tmp_path / "x" / "SKILL.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(body, encoding="utf-8")  # the file holds the body alone
    skill = Skill(name="x", description="d", path=path)
    _headings, lead, whole = _body_fields(skill, BODY_CHARS)
    assert whole == body and len(lead) <= LEAD_CHARS
    assert "codeword" not in lead and "unclosed" not in lead
    assert all(f"proseword{i} " in lead for i, (is_code, _f) in enumerate(blocks) if not is_code)


def test_a_skill_is_embedded_per_body_section_and_scored_by_its_best(
    tmp_path: Path, embeddings: _Embeddings
) -> None:
    from skillyard.search import (
        EMBED_BODY_CHARS,
        EMBED_SECTIONS,
        embedding_text,
        embedding_texts,
        make_embedder,
    )

    filler = " ".join(["notes"] * 150)  # 900 characters about nothing the toy model knows
    late = write_skill(
        tmp_path,
        "field-notes",
        "Keep field notes.",
        f"# Notes\n\n{filler}\n\n## Rain\numbrella umbrella forecast\n",
    )
    texts = embedding_texts(late)
    assert texts[0] == embedding_text(late) and texts[1] == "field-notes: Keep field notes."
    sections = texts[2:]
    assert 2 <= len(sections) <= EMBED_SECTIONS and len(set(texts)) == len(texts)
    assert all(len(s) <= len("field-notes: ") + EMBED_BODY_CHARS for s in sections)
    assert "umbrella" not in texts[0] and "umbrella" in sections[-1]
    other = write_skill(tmp_path, "photo-album", "Sort pictures into albums.")
    ix = SearchIndex([late, other], embedder=make_embedder("openai:toy", base_url=embeddings.url, api_key=""))
    ix.embed_skills()
    ranked = ix.semantic_rank("is it sunny")
    assert ranked is not None and ranked[0][0] == "field-notes" and ranked[0][1] > 0.9
    # an update drops the replaced skill's vectors; the next embedding pass gives it new ones
    ix.update([write_skill(tmp_path, "field-notes", "Keep field notes.", "Snapshots of birds.")], [])
    assert not ix.semantic_ready()
    ix.embed_skills()
    assert ix.semantic_ready()
    cosines = dict(ix.semantic_rank("is it sunny") or [])
    assert cosines.get("field-notes", 0.0) < 0.5


def test_british_and_american_spellings_meet(tmp_path: Path) -> None:
    for british, american in [
        ("analyse", "analyze"),
        ("analysing", "analyzing"),
        ("colour", "color"),
        ("behaviours", "behaviors"),
        ("catalogue", "catalog"),
        ("organisation", "organization"),
        ("summarise", "summarize"),
        ("centre", "center"),
    ]:
        assert stem(british) == stem(american), (british, american)
    from skillyard.search._text import american

    for short in ("hour", "four", "rise", "tours", "wise"):  # too short to be read as a British ending
        assert american(short) == short
    logs = write_skill(tmp_path, "log-analyzer", "Analyze server logs and summarize the errors.")
    other = write_skill(tmp_path, "colour-picker", "Pick a colour palette for a brand.")
    ix = SearchIndex([logs, other])
    assert names(ix.search("analyse these logs"))[:1] == ["log-analyzer"]
    assert names(ix.search("suggest a color scheme"))[:1] == ["colour-picker"]


def test_unit_abbreviations_read_as_the_units() -> None:
    from skillyard.search import SYNONYMS

    for short, unit in (("kg", "kilogram"), ("lbs", "pound"), ("km", "kilometer"), ("vid", "video")):
        assert stem(unit) in SYNONYMS[stem(short)], (short, unit)


def test_a_common_word_is_not_a_product_name_synonym() -> None:
    from skillyard.search._synonyms import PHRASES, SYNONYMS

    # "teams" (the chat app) stems to "team", which any request about people uses: only the phrase stands for it
    assert stem("slack") not in SYNONYMS.get(stem("team"), ())
    assert stem("slack") in PHRASES[tuple(tokenize("microsoft teams"))]


def test_contraction_fragments_and_indefinite_pronouns_are_stop_words() -> None:
    assert tokenize("I don't know, I'm sure it isn't anything") == ["know", stem("sure")]
    assert tokenize("pls fix it, nobody has touched it since") == ["fix", "touch"]


@given(st.text(max_size=40))
def test_accents_are_folded_alike_on_both_sides(text: str) -> None:
    from skillyard.search._text import fold_accents

    folded = fold_accents(text)
    assert fold_accents(folded) == folded
    assert tokenize(text) == tokenize(folded)


def test_a_request_typed_without_accents_meets_the_text(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, "resume", "Write a résumé and a cover letter."),
        write_skill(tmp_path, "other", "Plan a trip with an itinerary."),
    ]
    ix = SearchIndex(skills)
    assert names(ix.search("resume for a job", 1)) == ["resume"]
    assert tokenize("cláusula") == ["clausula"]


def test_vague_words_and_numbers_weigh_less_than_task_words(tmp_path: Path) -> None:
    from skillyard.search._text import is_vague

    assert is_vague(stem("turn")) and is_vague(stem("yesterday")) and is_vague("412")
    assert is_vague(stem("hours")) and is_vague(stem("working")) and is_vague(stem("found"))
    assert not is_vague(stem("invoice")) and not is_vague("k8s") and not is_vague("mp3")
    skills = [
        # each skill uses one word of the request, and no other skill uses either word
        write_skill(tmp_path, "turner", "Turn things around quickly."),
        write_skill(tmp_path, "invoicer", "Create an invoice for a customer."),
        write_skill(tmp_path, "other", "Plan a trip with an itinerary."),
    ]
    ix = SearchIndex(skills)
    # "turn" and "invoice" are equally rare here; the task word decides
    assert names(ix.search("turn this into an invoice", 2)) == ["invoicer", "turner"]
    assert names(ix.search("the 412 invoice", 1)) == ["invoicer"]
    assert names(ix.search("turn it", 5)) == ["turner"]  # a vague word still matches: recall first


def test_a_run_together_word_matches_only_where_all_its_parts_are(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, "booker", "Book a table, book a flight, book a room: booking for you."),
        write_skill(tmp_path, "librarian", "Put every book back on its shelf."),
        write_skill(tmp_path, "other", "Plan a trip with an itinerary."),
    ]
    ix = SearchIndex(skills)
    # "bookshelf" is read as "book" and "shelf": only a skill with both is about it
    assert ix._lexical.split_compound("bookshelf") == ["book", "shelf"]
    assert names(ix.search("bookshelf", 5)) == ["librarian"]


def test_a_correction_is_the_candidate_most_skills_use(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, f"chart{i}", f"Draw a chart of the numbers, variant {i}.") for i in range(3)
    ] + [
        write_skill(tmp_path, "chant", "Write a chant for a football club."),
        write_skill(tmp_path, "other", "Plan a trip with an itinerary."),
    ]
    ix = SearchIndex(skills)
    # "charnt" is one edit from "chart" (three skills) and from "chant" (one): the likelier reading wins
    assert ix.explain("charnt")["corrections"] == {"charnt": ["chart"]}
    # a short word one edit from several equally common words is left alone rather than guessed
    short = [write_skill(tmp_path, w, f"All about the {w}.") for w in ("scan", "scam", "scar")]
    ix = SearchIndex(short)
    assert ix.explain("scab")["corrections"] == {"scab": []}


def test_a_root_meets_its_words_whose_stem_lost_a_final_e(tmp_path: Path) -> None:
    skills = [
        write_skill(tmp_path, "postmortem", "Write a blameless review of an outage."),
        write_skill(tmp_path, "other", "Write a review of a book."),
    ]
    ix = SearchIndex(skills)
    assert stem("blaming") == "blam" and "blameless" in ix._lexical.relatives("blam")
    assert names(ix.search("a review without blaming anyone", 1)) == ["postmortem"]


def test_an_unknown_word_with_relatives_is_still_corrected(tmp_path: Path, without_word_list: None) -> None:
    skills = [
        write_skill(tmp_path, "dns-manager", "Point a domain at a server and manage DNS records."),
        write_skill(tmp_path, "reporter", "Several severity levels for a report."),
    ]
    ix = SearchIndex(skills)
    # "sever" shares a root with "several" and "severity", and is one letter from "server" (with the English
    # word list it is left alone: it is the stem of "severe")
    assert ix.explain("sever")["corrections"] == {"sever": ["server"]}
    assert names(ix.search("point www at the new sever", 1)) == ["dns-manager"]


@pytest.fixture()
def without_word_list() -> Iterator[None]:
    """Search as it runs when the optional English word list (pyspellchecker) is not installed."""
    from skillyard.search import _spelling

    _spelling.set_enabled(False)
    yield
    _spelling.set_enabled(True)


def _typo_catalog(root: Path) -> list[Skill]:
    return [
        write_skill(
            root, "support-reply", "Answer customers.", "# Replies\n\nWe answer politely and fast.\n"
        ),
        write_skill(root, "lunch-planner", "Plan a lunch for the team."),
        write_skill(root, "other", "Plan a trip with an itinerary."),
    ]


def test_the_english_word_list_tells_words_from_typos(tmp_path: Path) -> None:
    pytest.importorskip("spellchecker")
    from skillyard.search import _spelling

    _spelling.load(wait=True)
    ix = SearchIndex(_typo_catalog(tmp_path))
    # an English word no skill uses is not read as a skill word one edit away
    assert ix.explain("launch")["corrections"] == {"launch": []}
    # a typo is read as the English word, here one only a body uses
    assert ix.explain("politly")["corrections"] == {"politly": [stem("politely")]}
    assert names(ix.search("reply politly", 1)) == ["support-reply"]
    # the embedder gets the request with its typos corrected, and known words untouched
    assert ix.spelled("reply politly by tomorow, Answer") == "reply politely by tomorrow, Answer"
    assert ix.spelled("no typo in this one") == "no typo in this one"


def test_without_the_english_word_list_typos_are_corrected_against_the_skills(
    tmp_path: Path, without_word_list: None
) -> None:
    ix = SearchIndex(_typo_catalog(tmp_path))
    assert ix.explain("launch")["corrections"] == {"launch": ["lunch"]}  # the guess a word list prevents
    assert ix.explain("politly")["corrections"] == {"politly": []}  # a body word one skill uses: no
    assert ix.spelled("reply politly by tomorow") == "reply politly by tomorow"


@given(st.text(max_size=60))
def test_spelled_requests_never_raise_and_keep_non_words(query: str) -> None:
    from skillyard.search import _spelling

    ix = SearchIndex([])
    _spelling.load(wait=True)
    out = ix.spelled(query)
    assert isinstance(out, str)
    if not _spelling.available():
        assert out == query


def test_no_search_waits_for_the_word_list_and_answers_change_once_it_is_loaded(tmp_path: Path) -> None:
    pytest.importorskip("spellchecker")
    import subprocess
    import sys

    # a new process: the first search with an unknown word starts loading the list and answers without it
    code = (
        "import sys, time\n"
        "from skillyard.search import SearchIndex, _spelling\n"
        "from skillyard.parsing import parse_skill\n"
        "skills = [parse_skill(p)[0] for p in sys.argv[1:]]\n"
        "ix = SearchIndex(skills)\n"
        "first = ix.explain('launch')['corrections']\n"  # computed before the search that starts the load
        "started = _spelling._started\n"
        "_spelling.load(wait=True)\n"
        "print(first, started, ix.explain('launch')['corrections'])\n"
    )
    paths = [str(s.path) for s in _typo_catalog(tmp_path)]
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True)
    # answered without the list, which the search then started loading; with it loaded, the answer changes
    assert out.stdout.split() == ["{'launch':", "['lunch']}", "True", "{'launch':", "[]}"]
