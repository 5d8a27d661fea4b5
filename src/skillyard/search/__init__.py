"""Skill search: a lexical ranker over the whole SKILL.md, optionally fused with embeddings.

`SearchIndex.search(query, limit)` is the one ranking path. The lexical half
(`_lexical`) always answers and returns every skill any query word (or its
synonym or spelling correction) matches, so a search is never empty while
some skill shares a word with the request. Each hit carries `confidence`:
"strong" when the skill explains most of the request, "weak" otherwise.

With an embedder (`_embed`), skills are embedded in a background thread, in
batches, through an on-disk cache keyed by content hash. A skill has several
vectors (its description, its description with the start of its body, and
sections of its body) and its cosine is the best of them. Until every skill has
its vectors, searches stay lexical (they never wait for embeddings); then the
lexical and semantic scores are blended, each scaled to its best candidate, the
lexical half by how much of the request its best hit explains.
Current figures: docs/search.md; the tuning rounds: benchmarks/search_eval/HISTORY.md.
"""

from __future__ import annotations

import hashlib
import os
import re
import textwrap
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard.fsread import pid_gone
from skillyard.model import Skill
from skillyard.search import _spelling
from skillyard.search._embed import (
    BATCH,
    EMBEDDER_KINDS,
    Embedder,
    EmbedderError,
    EmbeddingCache,
    make_embedder,
    parse_spec,
)
from skillyard.search._lexical import (
    BODY_CHARS,
    MAX_LIMIT,
    SNAPSHOT_VERSION,
    STRONG_COVERAGE,
    LexicalIndex,
    SearchHit,
    _as_text,
    body_head,
)
from skillyard.search._synonyms import SYNONYMS
from skillyard.search._text import STOP_WORDS, stem, tokenize

if TYPE_CHECKING:
    from skillyard.registry import Registry

__all__ = [
    "EMBEDDER_KINDS",
    "Embedder",
    "EmbedderError",
    "EmbeddingCache",
    "SearchHit",
    "KEEP_SNAPSHOTS",
    "SEMANTIC_STRONG",
    "SearchIndex",
    "embedder_spec",
    "embedding_text",
    "embedding_texts",
    "EMBED_BODY_CHARS",
    "EMBED_SECTIONS",
    "index_from_settings",
    "make_embedder",
    "parse_spec",
    "search_registry",
    "stem",
    "tokenize",
    "SYNONYMS",
]

#: Score blending: (1 - SEMANTIC_WEIGHT) * trust * lexical score / best lexical score
#: + SEMANTIC_WEIGHT * cosine / best cosine, where trust = min(1, coverage of the best lexical hit /
#: STRONG_COVERAGE): when the lexical ranker's own best hit explains little of the request, its order
#: says little too.
SEMANTIC_WEIGHT = 0.5
#: Semantic candidates considered per query (best cosine first).
SEMANTIC_DEPTH = 30
#: A semantic candidate below this cosine is not a candidate at all. Low, because cosines are scaled by the
#: best one: when every cosine is low (a terse or oddly worded request), the right skill may be at 0.15.
SEMANTIC_FLOOR = 0.1
#: A hit whose cosine reaches this is "strong" even when few of its words match.
SEMANTIC_STRONG = 0.5
#: A request with less than this share of its words known (English function words, words the skills or the
#: synonyms use, English words) is taken to be in another language, and not spelled for the embedder.
MIN_KNOWN_SHARE = 0.5
#: A word of a request, as the English spelling corrector reads it.
_ALPHA_WORD = re.compile(r"[^\W\d_]+")
#: Index snapshots kept in the cache folder (one per set of skills).
KEEP_SNAPSHOTS = 8
#: Characters of body text embedded with the name and description, and per body section.
EMBED_BODY_CHARS = 600
#: Body sections (of up to EMBED_BODY_CHARS each, from the start of the body) embedded per skill.
EMBED_SECTIONS = 2


def embedding_text(skill: Skill) -> str:
    """A skill's main embedded text: name, description and the start of its body."""
    head = " ".join(body_head(skill, EMBED_BODY_CHARS).split())
    return f"{skill.name}: {_as_text(skill.description)}\n{head}"


def embedding_texts(skill: Skill) -> list[str]:
    """Every text a skill is embedded as: the main text, the name and description alone, and the name
    with each section of the body. A request may match what a skill's description says or what one part
    of its body explains; one vector of everything blurs both, the best of several keeps each."""
    body = " ".join(body_head(skill, EMBED_BODY_CHARS * EMBED_SECTIONS).split())
    sections = textwrap.wrap(body, EMBED_BODY_CHARS, break_long_words=False, break_on_hyphens=False)
    texts = [embedding_text(skill), f"{skill.name}: {_as_text(skill.description)}"]
    texts.extend(f"{skill.name}: {section}" for section in sections)
    return list(dict.fromkeys(texts))


class SearchIndex:
    """Ranked search over skills: lexical always, hybrid once an embedder's vectors are ready."""

    def __init__(
        self,
        skills: Sequence[Skill],
        *,
        body_chars: int = BODY_CHARS,
        embedder: Embedder | None = None,
        cache: EmbeddingCache | None = None,
        snapshot_dir: str | Path | None = None,
    ) -> None:
        self._snapshot: Path | None = None
        lexical: LexicalIndex | None = None
        if snapshot_dir is not None:
            skills = list(skills)
            self._snapshot = Path(snapshot_dir) / _fingerprint(skills, body_chars)
            lexical = LexicalIndex.restore(skills, self._snapshot, body_chars=body_chars)
            if lexical is not None:
                self._snapshot = None  # already on disk
        self._lexical = lexical if lexical is not None else LexicalIndex(skills, body_chars=body_chars)
        self.embedder = embedder
        self._cache = cache if cache is not None else EmbeddingCache(None)
        self._lock = threading.Lock()
        self._vectors: dict[str, list[list[float]]] = {}  #: name -> unit vectors of its texts
        #: (names, first row of each name, numpy matrix of every vector), rebuilt after a change
        self._matrix: Any = None
        self._thread: threading.Thread | None = None
        self._queries: dict[str, list[float]] = {}
        #: why semantic search is off (an embedder that failed), or None
        self.semantic_error: str | None = None

    # ------------------------------------------------------------ maintenance

    def __len__(self) -> int:
        return len(self._lexical)

    def __contains__(self, name: object) -> bool:
        return name in self._lexical

    def update(self, added: Sequence[Skill], removed: Sequence[str]) -> None:
        """Remove skills by name, then add (or replace) skills; only the touched skills are re-indexed."""
        self._lexical.update(added, removed)
        with self._lock:
            for name in [*removed, *(s.name for s in added if isinstance(s, Skill))]:
                if isinstance(name, str):
                    self._vectors.pop(name, None)
            self._matrix = None

    def index_bodies(self, *, wait: bool = True) -> None:
        """Index pending bodies now (`wait`) or in the background; searches do the latter by themselves."""
        self._lexical.index_bodies(wait=wait)

    def bodies_pending(self) -> int:
        return self._lexical.bodies_pending()

    # ------------------------------------------------------------ semantic half

    def semantic_ready(self) -> bool:
        """True when every skill has a vector, so searches are hybrid."""
        return self.embedder is not None and self.semantic_error is None and not self._missing_vectors()

    def _missing_vectors(self) -> list[str]:
        return [n for n in self._lexical.names() if n not in self._vectors]

    def embed_skills(self, *, wait: bool = True) -> None:
        """Compute missing skill vectors (cache first, then the embedder in batches); in the background
        unless `wait`."""
        if self.embedder is None or self.semantic_error is not None:
            return
        if wait:
            thread = self._thread
            if thread is not None:
                thread.join()
            self._embed_missing()
            return
        with self._lock:
            if (self._thread is not None and self._thread.is_alive()) or not self._missing_vectors():
                return
            self._thread = threading.Thread(target=self._embed_missing, name="skillyard-embed", daemon=True)
            self._thread.start()

    def _embed_missing(self) -> None:
        embedder = self.embedder
        if embedder is None:
            return
        try:
            while True:
                todo: list[tuple[str, list[str]]] = []  #: (name, cache keys of its texts)
                texts: dict[str, str] = {}  #: cache key -> text
                for name in self._missing_vectors():
                    skill = self._lexical.skill(name)
                    if skill is not None:
                        keyed = {EmbeddingCache.key(embedder.model_id, t): t for t in embedding_texts(skill)}
                        texts.update(keyed)
                        todo.append((name, list(keyed)))
                if not todo:
                    return
                cached = self._cache.get_many(list(texts))
                fresh = [(k, t) for k, t in texts.items() if k not in cached]
                for i in range(0, len(fresh), BATCH):
                    batch = fresh[i : i + BATCH]
                    vecs = embedder.embed([t for _k, t in batch])
                    got = {k: _unit(v) for (k, _t), v in zip(batch, vecs, strict=True)}
                    self._cache.put_many(got)
                    cached.update(got)
                with self._lock:
                    for name, keys in todo:
                        if all(k in cached for k in keys) and self._lexical.skill(name) is not None:
                            self._vectors[name] = [cached[k] for k in keys]
                    self._matrix = None
        except Exception as e:  # a broken embedder leaves search lexical, and says why
            self.semantic_error = f"{type(e).__name__}: {e}"

    def _query_vector(self, query: str) -> list[float] | None:
        vec = self._queries.get(query)
        if vec is None and self.embedder is not None:
            try:
                vec = _unit(self.embedder.embed([query])[0])
            except Exception as e:
                self.semantic_error = f"{type(e).__name__}: {e}"
                return None
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[query] = vec
        return vec

    def semantic_rank(self, query: str) -> list[tuple[str, float]] | None:
        """(name, cosine) best first, a skill's cosine being the best of its texts', or None while vectors
        are missing (they are then computed in the background and this search stays lexical)."""
        if self.embedder is None or self.semantic_error is not None or not query.strip():
            return None
        if self._missing_vectors():
            self.embed_skills(wait=False)
            return None
        qv = self._query_vector(self.spelled(query[:2000]))
        if qv is None:
            return None
        import numpy as np  # a core dependency; only imported once an embedder is in use

        with self._lock:
            if self._matrix is None:
                names = [n for n in self._lexical.names() if self._vectors.get(n)]
                counts = [len(self._vectors[n]) for n in names]
                starts = np.cumsum([0, *counts[:-1]], dtype=np.intp)
                rows = [vec for n in names for vec in self._vectors[n]]
                # vectors of one length each (an embedder that changed its answer, or a planted cache
                # row, may give others): left to the lexical ranking rather than raised from matmul
                if any(len(row) != len(qv) for row in rows):
                    self.semantic_error = "the embedder's vectors are not all of one length"
                    return None
                self._matrix = (names, starts, np.asarray(rows, dtype=np.float32))
            names, starts, matrix = self._matrix
        if not names:
            return []
        if matrix.shape[1] != len(qv):
            self.semantic_error = "the embedder's vectors are not all of one length"
            return None
        # each skill's cosine is the best of its texts' (its rows are contiguous, from starts[i])
        sims = np.maximum.reduceat(matrix @ np.asarray(qv, dtype=np.float32), starts)
        keep = min(len(names), 2 * SEMANTIC_DEPTH)  # room for ties at the cut, broken by name below
        top = np.argpartition(-sims, keep - 1)[:keep]
        ranked = sorted(((names[i], float(sims[i])) for i in top.tolist()), key=lambda x: (-x[1], x[0]))
        return [(n, c) for n, c in ranked[:SEMANTIC_DEPTH] if c >= SEMANTIC_FLOOR]

    def spelled(self, query: str) -> str:
        """The request with each word that neither the skills, the synonym groups nor English know replaced
        by an English word one edit away ("umbrela" -> "umbrella"; the most frequent one the skills use, else
        the most frequent), for the embedder: its tokenizer cuts a typo into pieces that mean little. A
        request with less than MIN_KNOWN_SHARE of its words known is in another language ("contrato",
        "cláusula") and is left as written, which the embedder reads better than English words put in
        their place. Unchanged without the English word list (`_spelling`)."""
        if not _spelling.available():
            return query
        # the words that count: function words, and words long enough to be checked
        words = [
            w
            for w in map(str.casefold, _ALPHA_WORD.findall(query))
            if w in STOP_WORDS or len(w) >= _spelling.MIN_LENGTH
        ]
        unknown = [
            w
            for w in words
            if w not in STOP_WORDS and not self._lexical.knows(stem(w)) and not _spelling.is_word(w)
        ]
        if not unknown or len(words) - len(unknown) < MIN_KNOWN_SHARE * len(words):
            return query

        def fix(m: re.Match[str]) -> str:
            word = m.group(0).casefold()
            found = _spelling.corrections(word) if word in unknown else ()
            if not found:
                return m.group(0)
            # of the English readings, the most frequent one the skills use, else the most frequent
            return next((c for c in found if self._lexical.knows(stem(c))), found[0])

        return _ALPHA_WORD.sub(fix, query)

    # ------------------------------------------------------------ query

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        """Skills ranked for `query`, best first, each with its confidence; [] only when nothing matches."""
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise ValueError(f"limit must be an integer, not {type(limit).__name__}")
        if limit <= 0 or not isinstance(query, str):
            return []
        limit = min(limit, MAX_LIMIT)
        lexical = self._lexical.rank(
            query, max(limit, SEMANTIC_DEPTH) if self.embedder is not None else limit
        )
        if self._snapshot is not None and not self._lexical.bodies_pending():
            self._save_snapshot()
        semantic = self.semantic_rank(query) if lexical or self._lexical.query_terms(query) else None
        if semantic is None:
            return [self._hit(n, sc, cov >= STRONG_COVERAGE) for n, sc, cov in lexical[:limit]]
        return self._fuse(lexical, semantic, limit)

    def _fuse(
        self, lexical: list[tuple[str, float, float]], semantic: list[tuple[str, float]], limit: int
    ) -> list[SearchHit]:
        """Blend the two scores, each scaled to its best candidate (best = 1); the lexical half is scaled
        down when its best hit explains less than STRONG_COVERAGE of the request."""
        fused: dict[str, float] = {}
        strong: dict[str, bool] = {}
        top = lexical[0][1] if lexical and lexical[0][1] > 0 else 1.0
        trust = min(1.0, lexical[0][2] / STRONG_COVERAGE) if lexical else 0.0
        for name, sc, cov in lexical:
            fused[name] = (1.0 - SEMANTIC_WEIGHT) * trust * sc / top
            strong[name] = cov >= STRONG_COVERAGE
        hi = semantic[0][1] if semantic else 0.0
        for name, cos in semantic:
            fused[name] = fused.get(name, 0.0) + SEMANTIC_WEIGHT * (cos / hi if hi > 0 else 0.0)
            strong[name] = strong.get(name, False) or cos >= SEMANTIC_STRONG
        ranked = sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:limit]
        return [self._hit(n, round(s * 100, 4), strong[n]) for n, s in ranked]

    def _save_snapshot(self) -> None:
        """Write the fully built index once, so the next start answers its first search from disk."""
        path, self._snapshot = self._snapshot, None
        parts = self._lexical.snapshot() if path is not None else None
        if path is None or parts is None:
            return
        from skillyard.cache import make_our_place, write_new

        try:
            if not make_our_place(path.parent):
                return
            for left in path.parent.iterdir():  # what starts killed while writing a snapshot left
                if left.name.startswith("index-") and left.name.endswith(".tmp") and pid_gone(left.name):
                    left.unlink()
            for suffix, data in zip((".meta", ".body"), parts, strict=True):
                write_new(path.with_suffix(suffix), path.with_suffix(f"{suffix}.{os.getpid()}.tmp"), [data])
            _prune(path.parent)
        except OSError:
            pass  # an unwritable cache only costs the next start a rebuild

    def _hit(self, name: str, score: float, strong: bool) -> SearchHit:
        skill = self._lexical.skill(name)
        desc = _as_text(skill.description) if skill is not None else ""
        return SearchHit(name, score, desc, "strong" if strong else "weak")

    def explain(self, query: str, limit: int = 10) -> dict[str, object]:
        """How a query was read and scored (terms, synonyms, corrections, candidates) for debugging."""
        out = self._lexical.explain(query, limit)
        semantic = self.semantic_rank(query) if isinstance(query, str) else None
        if semantic is not None:
            out["semantic"] = [{"name": n, "cosine": round(c, 4)} for n, c in semantic[:limit]]
        if self.semantic_error:
            out["semantic_error"] = self.semantic_error
        return out


def _fingerprint(skills: Sequence[Skill], body_chars: int) -> str:
    """Names the snapshot of exactly these skills (paths, sizes and times, in order)."""
    text = "".join([f"\0{s.name}\0{s.path}\0{s.mtime_ns}\0{s.size}" for s in skills])
    data = f"{SNAPSHOT_VERSION}:{body_chars}{text}".encode("utf-8", "surrogatepass")
    return "index-" + hashlib.sha256(data).hexdigest()[:32]


def _prune(folder: Path) -> None:
    """Keep the most recent KEEP_SNAPSHOTS snapshots: each set of skills a user had makes one."""
    metas = sorted(folder.glob("index-*.meta"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in metas[KEEP_SNAPSHOTS:]:
        for suffix in (".meta", ".body"):
            old.with_suffix(suffix).unlink(missing_ok=True)


def _unit(vec: Sequence[float]) -> list[float]:
    norm = sum(x * x for x in vec) ** 0.5
    return [float(x) / norm for x in vec] if norm > 0 else [0.0 for _ in vec]


def embedder_spec(settings: Any = None) -> str:
    """The embedder in force: SKILLYARD_EMBEDDER, else `[search] embedder`, else "none"."""
    env = os.environ.get("SKILLYARD_EMBEDDER", "").strip()
    if env:
        return env
    spec = getattr(settings, "embedder", None)
    return spec if isinstance(spec, str) and spec.strip() else "none"


def index_from_settings(skills: Sequence[Skill], settings: Any = None) -> SearchIndex:
    """The index a registry uses: lexical, plus the configured embedder with the user's on-disk cache.

    An embedder that cannot be built (a missing package, a bad spec) leaves search lexical and is
    reported in `semantic_error`, so a search never fails because of it.
    """
    spec = embedder_spec(settings)
    embedder: Embedder | None = None
    error: str | None = None
    try:
        embedder = make_embedder(
            spec, base_url=getattr(settings, "base_url", None), api_key=getattr(settings, "api_key", None)
        )
    except (ValueError, EmbedderError) as e:
        error = str(e)
    import platformdirs

    cache_dir = Path(platformdirs.user_cache_dir("skillyard"))
    cache = EmbeddingCache(cache_dir / "embeddings.sqlite") if embedder is not None else None
    index = SearchIndex(skills, embedder=embedder, cache=cache, snapshot_dir=cache_dir / "search")
    index.semantic_error = error
    return index


# ---------------------------------------------------------------- a registry's index


@dataclass(slots=True)
class _Kept:
    """A registry's index and the skill objects it holds, as of one `registry.version`."""

    version: int
    index: SearchIndex
    skills: dict[str, Skill]
    lock: threading.Lock = field(default_factory=threading.Lock)


_KEPT: weakref.WeakKeyDictionary[Registry, _Kept] = weakref.WeakKeyDictionary()
_KEPT_LOCK = threading.Lock()


def semantic_problem(registry: Registry) -> str | None:
    """Why the registry's search is lexical only although an embedder is configured (None: it is not)."""
    kept = _KEPT.get(registry)
    return kept.index.semantic_error if kept is not None else None


def search_registry(registry: Registry, query: str, limit: int = 5) -> list[SearchHit]:
    """Ranked skills of a registry for a free-text query, each with its confidence ([] only when
    nothing matches). The index is built on the first search (`index_from_settings`); after a
    reload or an enable/disable (`registry.version` moved) only skills whose objects changed are
    indexed again."""
    with _KEPT_LOCK:
        kept = _KEPT.get(registry)
        if kept is None:
            skills = registry.skills
            index = index_from_settings(skills, registry.config.search)
            kept = _KEPT[registry] = _Kept(registry.version, index, {s.name: s for s in skills})
    with kept.lock:
        version = registry.version
        if kept.version != version:
            now = {s.name: s for s in registry.skills}
            before = kept.skills
            removed = [n for n, s in before.items() if now.get(n) is not s]
            added = [s for n, s in now.items() if before.get(n) is not s]
            if removed or added:
                kept.index.update(added, removed)
            kept.version, kept.skills = version, now
        return kept.index.search(query, limit=limit)
