"""The lexical ranker: BM25F over a skill's metadata and its whole SKILL.md body.

* Fields are scored BM25F-style: each field's term frequency is length-normalised
  and weighted (name > description, tags > when_to_use > body headings and the
  body's opening prose > the rest of the body) and the weighted sum is saturated
  once, so a word repeated across fields does not count twice as much as one
  strong match.
* A query word matches through its best variant: the word itself, a word with
  the same root, a synonym (`_synonyms`), or, when no skill uses the word, a
  spelling correction (one edit away from a word the skills use; with the
  optional English word list (`_spelling`), never for an English word) or the
  two words it runs together. Vague words and numbers weigh less. Phrases of
  the synonym table and two query words the skills write as one are query
  terms of their own.
* Only the skills that can reach the requested top are scored in full (`_ranked`
  says why that gives exactly the ranking of scoring every matching skill), so
  words found in most skills do not cost a pass over every skill.
* Recall first: every skill matching any variant of any query word is a result.
  Coverage (the share of the query's IDF mass a skill explains) no longer hides
  results; it decides each hit's `confidence`.
* One ranking path: a skill's score is its words' scores summed, times (base +
  coverage); results are sorted by (score rounded to 4 places, name).
* Metadata is indexed when the index is built. Bodies are indexed on the first
  search: in the caller's thread for small catalogs, in a background thread for
  large ones (searches meanwhile rank on metadata), so the first search of a
  large catalog costs no more than the metadata path.
"""

from __future__ import annotations

import heapq
import marshal
import math
import os
import re
import threading
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import add, ge, mul, neg
from pathlib import Path
from typing import Any

from skillyard.model import Skill
from skillyard.search import _spelling
from skillyard.search._synonyms import MAX_PHRASE, PHRASES, SYNONYMS
from skillyard.search._text import MAX_FIELD_CHARS, VAGUE_WEIGHT, is_vague, stem, term_counts, tokenize

K1 = 1.2
#: field -> (weight, length-normalisation b)
FIELDS: dict[str, tuple[float, float]] = {
    "name": (3.0, 0.3),
    "description": (2.0, 0.75),
    "tags": (2.0, 0.3),
    "when_to_use": (1.5, 0.75),
    "headings": (1.0, 0.5),
    "lead": (1.0, 0.5),
    "body": (0.6, 0.75),
}
#: Fields read from the body, indexed on the first search.
_BODY_FIELDS = ("headings", "lead", "body")
#: Characters of prose at the start of the body (code blocks left out) that also form the "lead" field: the
#: overview a SKILL.md opens with says what the skill is for, its reference sections mention much else.
LEAD_CHARS = 1500
_FIELD_NAMES = tuple(FIELDS)
#: A synonym matches with this fraction of the word's own weight.
SYNONYM_WEIGHT = 0.7
#: A spelling correction matches with this fraction of the word's own weight.
CORRECTION_WEIGHT = 0.8
#: Scores are multiplied by (COVERAGE_BASE + coverage): a skill explaining more of the request ranks higher.
COVERAGE_BASE = 0.25
#: A hit is "strong" when it explains at least this share of the query's IDF mass.
STRONG_COVERAGE = 0.5
#: In the coverage mass, a word no skill uses (and with no synonym or correction any skill uses) counts
#: this much: such words are often names, places and dates ("in London", "on Thursday") rather than the task.
UNKNOWN_WEIGHT = 0.4
#: A word matched only in the body explains this much of itself (body text mentions many things).
BODY_ONLY_WEIGHT = 0.5
#: A word said in a longer field explains less of itself, in proportion: in a field of more than this many
#: words (a thousand tags say every word, and none of them), the body's lead included...
SAID_META = 64
#: ... in headings of more than this many (a long reference skill's headings run to a few hundred words:
#: 351 at the 99th percentile of the public collections, which a lower bound drove out of their own
#: requests' top 3)...
SAID_HEADINGS = 500
#: ... and in a body of more than this many (bodies are longer: 1,000 words is about the 90th percentile of
#: the public collections'). A word is explained by its best field: in a body of a usual length, half.
SAID_BODY = 1000
#: A synonym or a correction explains this much of the word it stands for.
VARIANT_COVERAGE = 0.8
#: Characters of body text indexed per skill.
BODY_CHARS = 32_768
#: Up to this many pending bodies are indexed in the searching thread; more go to a background thread.
SYNC_BODIES = 1500
#: Bodies indexed per locked merge step of the background thread.
BODY_BATCH = 256
MAX_QUERY_CHARS = 1000
#: Bumped whenever tokenisation or the snapshot layout changes, so old snapshots are ignored.
SNAPSHOT_VERSION = 6
MAX_QUERY_TERMS = 32
MAX_LIMIT = 1000
#: Query words whose per-skill scores are kept until the index changes.
MAX_CACHED_TERMS = 4096
#: Once every body is indexed, the query-word scores of the words in at least this many skills are built
#: ahead of any request (their posting walk is what a request's first frequent word costs)...
WARM_DF = 1000
#: ... most frequent first, until the skills those words are in add up to this many (a memory bound).
WARM_POSTINGS = 1_000_000
#: A body word stands as a spelling correction only when at least this many skills use it.
MIN_BODY_CORRECTION_DF = 2
#: Spelling correction only for words at least this long (shorter ones have too many neighbours).
MIN_CORRECTABLE = 4
#: ... and at most this long: a word's one-edit variants number 54 per letter, each as long as the
#: word, so a 999-letter one made 57 MB of them; no English word or skill term is near this long.
MAX_CORRECTABLE = 48
#: From this length a misspelt word keeps several equally likely corrections (one edit from a long word
#: rarely reaches another word by chance); a shorter one with several keeps none.
LONG_CORRECTABLE = 6
#: A word written as two run together ("slidedeck") matches each part with this fraction.
COMPOUND_WEIGHT = 0.8
#: Each part of a split compound has at least this many letters.
MIN_COMPOUND_PART = 3
#: A word sharing the query word's root ("correlated" ~ "correlation") matches with this fraction.
ROOT_WEIGHT = 0.6
#: Derivational suffixes dropped to find a word's root, longest first; a root keeps at least 5 letters.
ROOT_SUFFIXES = tuple(
    """
    ations ation ition ution ion ments ment ness less ful anc enc abl ibl ific ify ant ent ities ity
    ives ive ise ize ist ism ers er ors or als al ic ly is iz at y
    """.split()
)
MIN_ROOT = 5

#: Pasted fragments a request asks about without naming what they are ("what does 0 */6 * * 1-5 mean"),
#: recognised by their shape and read as the word that names them.
SHAPES = (
    (re.compile(r"(?<!\S)(?=[\d*/,\s-]*\*)(?:[\d*/,-]+\s+){4}[\d*/,-]+(?!\S)"), "cron"),
    (re.compile(r"\(\?[=!:<]|\\[dDwWsS]|\.[*+]|\.\{\d+,?\d*\}"), "regex"),
)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~).*?(?:^[ \t]{0,3}\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked result; `confidence` is "strong" when the skill explains most of the request."""

    name: str
    score: float
    description: str
    confidence: str = "strong"


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value[:MAX_FIELD_CHARS]
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value if isinstance(v, str | int | float))[:MAX_FIELD_CHARS]
    return ""


def _tags(skill: Skill) -> str:
    tags: list[str] = [t for t in skill.tags if isinstance(t, str)]
    meta = skill.metadata_view()
    for key in ("tags", "keywords", "category"):
        v = meta.get(key)
        if isinstance(v, str):
            tags.append(v)
        elif isinstance(v, list):
            tags.extend(x for x in v if isinstance(x, str))
    return " ".join(tags)[:MAX_FIELD_CHARS]


def body_head(skill: Skill, limit: int) -> str:
    """The first `limit` characters of the body, without reading (or caching) a whole large file."""
    if limit <= 0:
        return ""
    if skill.format != "md":
        return " ".join(p for p in skill.prompts if isinstance(p, str))[:limit]
    try:
        # Universal newlines and a stripped BOM: the same text body_offset counts in.
        with open(skill.path, encoding="utf-8-sig", errors="replace") as f:
            text = f.read(max(skill.body_offset, 0) + limit)
    except (OSError, ValueError, TypeError):
        return ""
    return text[max(skill.body_offset, 0) :]


def _body_fields(skill: Skill, limit: int) -> tuple[str, str, str]:
    """(headings, lead, body text) of the body; the skill's declared tools count as headings."""
    head = body_head(skill, limit)
    headings = [m.group(1) for m in _HEADING.finditer(head)]
    headings += [f"{tool.name} {tool.description}" for tool in skill.tools]
    lead = _FENCE.sub(" ", head[: LEAD_CHARS * 4])[:LEAD_CHARS]
    return " ".join(headings)[:MAX_FIELD_CHARS], lead, head


def root(term: str) -> str:
    """A stem's root for derivational matches: one derivational suffix dropped, if enough is left, and then
    a final "e", as the stemmer drops it from a word ("blaming" is `blam`, "blameless" `blame` + less)."""
    for suffix in ROOT_SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= MIN_ROOT:
            base = term[: -len(suffix)]
            return base[:-1] if base.endswith("e") and not base.endswith("ee") else base
    return term


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_META_FIELDS = ("name", "description", "tags", "when_to_use", "headings")
#: A match only in these fields explains BODY_ONLY_WEIGHT of a word (body text mentions many things).
_PROSE_FIELDS = ("lead", "body")


def _edits(term: str) -> set[str]:
    """Every string one insertion, deletion, substitution or adjacent swap away from `term`."""
    splits = [(term[:i], term[i:]) for i in range(len(term) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in _LETTERS)
    out.update(a + c + b for a, b in splits for c in _LETTERS)
    return out


@dataclass(slots=True)
class _Word:
    """One query word: its score per document, the IDF mass it explains per document, its weight in the
    query's mass, and (built when a ranking first needs it) its documents ordered by score."""

    best: dict[int, float]
    explained: dict[int, float]
    weight: float
    _order: tuple[list[int], list[float], float] | None = None

    def by_score(self) -> tuple[list[int], list[float], float]:
        """(documents best first, their scores, the most IDF mass the word explains in any document)."""
        if self._order is None:
            best = self.best
            docs = sorted(best, key=best.__getitem__, reverse=True)
            self._order = (docs, list(map(best.__getitem__, docs)), max(self.explained.values(), default=0.0))
        return self._order


def _keep_max(into: dict[int, float], values: dict[int, float]) -> dict[int, float]:
    """Each document's larger value, in a new dict (neither is changed: both may be cached); `values`
    itself when `into` is empty (values are positive)."""
    return into | {doc: x for doc, x in values.items() if x > into.get(doc, 0.0)} if into else values


def _rank_key(hit: tuple[str, float, float]) -> tuple[float, str]:
    return (-hit[1], hit[0])


def _sum(docs: list[int], per_doc: Iterable[dict[int, float]]) -> list[float]:
    """Each document's values added word by word in query order, as the exhaustive ranking adds them
    (a word the document lacks adds 0.0, which changes no float): the same floats whichever other
    documents are summed with it."""
    total = [0.0] * len(docs)
    for values in per_doc:
        total = list(map(add, total, map(values.get, docs, repeat(0.0))))
    return total


def _totals(
    docs: list[int], words: Sequence[_Word], bounds: list[float], cut: float
) -> tuple[list[int], list[float]]:
    """The documents whose summed word scores can still reach `cut`, and those sums (added as `_sum`
    adds them): after each word, a document whose sum so far plus the other words' best scores is under
    `cut` is dropped."""
    total = [0.0] * len(docs)
    rest = sum(bounds)
    for w, bound in zip(words, bounds, strict=True):
        total = list(map(add, total, map(w.best.get, docs, repeat(0.0))))
        rest -= bound
        if cut > rest:  # else nothing can be dropped yet
            keep = list(map(ge, total, repeat(cut - rest)))
            docs, total = list(compress(docs, keep)), list(compress(total, keep))
    return docs, total


def _level(bounds: list[float], budget: float) -> float:
    """The largest x with sum(min(b, x) for b in bounds) <= budget, for budget >= 0 (inf if any x is)."""
    below, rest = 0.0, len(bounds)
    for b in sorted(bounds):
        if below + rest * b > budget:
            return (budget - below) / rest
        below += b
        rest -= 1
    return math.inf


def _ranked(
    words: Sequence[_Word], inv_mass: float, limit: int | None, skills: Sequence[Skill | None]
) -> list[tuple[str, float, float]]:
    """The best `limit` matching skills (every one when `limit` is None) as (name, score rounded to 4
    places, coverage), best first, ties by name: exactly what scoring every matching skill gives.

    A score is S * (COVERAGE_BASE + C * inv_mass), S and C the sums of the document's word scores and
    explained masses, so it grows with each of them: word i scores at most U_i (its best), and C * inv_mass
    is at most E (each word's most explained mass, summed). With theta the limit-th best score among the
    documents scored so far (never above the final limit-th), only a document scoring at least
    theta - 1e-4 can be in the result (with rounding, one that close may tie the limit-th and win on its
    name); the checks below use theta - 2e-4, the extra 1e-4 dwarfing float error. A document whose
    every word scores at most x scores at most sum(min(U_i, x)) * (COVERAGE_BASE + E), so with x the
    largest level keeping that under the cut, every document that can make it scores above x in some
    word: it sits in that word's prefix of documents ordered by score. Each word's prefix is summed,
    deeper while theta is too low to rule the rest out, and a document is dropped as soon as its words
    can no longer lift S * (COVERAGE_BASE + E) to the cut. Without a limit every match is scored.
    """
    if limit is not None and limit <= 0:
        return []
    orders = [w.by_score() for w in words]
    bounds = [scores[0] if scores else 0.0 for _d, scores, _e in orders]
    factor_bound = COVERAGE_BASE + inv_mass * sum(most for _d, _s, most in orders)
    ends = [len(docs) if limit is None else limit for docs, _s, _e in orders]
    starts = [0] * len(orders)
    seen: set[int] = set()
    scored: list[int] = []
    finals: list[float] = []
    coverage: list[float] = []
    theta = 0.0
    while True:
        new = set().union(*(order[a:b] for (order, _s, _e), a, b in zip(orders, starts, ends, strict=True)))
        new -= seen
        seen |= new
        docs = [d for d in new if skills[d] is not None]
        docs, totals = _totals(docs, words, bounds, (theta - 2e-4) / factor_bound)
        cov = list(map(mul, _sum(docs, (w.explained for w in words)), repeat(inv_mass)))
        finals += map(mul, totals, map(add, repeat(COVERAGE_BASE), cov))
        coverage += cov
        scored += docs
        if limit is None:
            break
        if len(finals) >= limit:
            theta = heapq.nlargest(limit, finals)[-1]
        x = _level(bounds, max((theta - 2e-4) / factor_bound, 0.0))
        needs = [bisect_left(scores, -x, key=neg) for _d, scores, _e in orders]  # each word's scores above x
        if all(need <= end for need, end in zip(needs, ends, strict=True)):
            break
        starts, ends = ends, [max(end, min(need, 4 * end)) for need, end in zip(needs, ends, strict=True)]
    low = heapq.nlargest(limit, finals)[-1] - 1e-4 if limit is not None and limit < len(finals) else 0.0
    out = [
        (skill.name, round(f, 4), c)
        for d, f, c in zip(scored, finals, coverage, strict=True)
        if f > 0.0 and f >= low and (skill := skills[d]) is not None
    ]
    if limit is not None and limit < len(out):
        return heapq.nsmallest(limit, out, key=_rank_key)
    out.sort(key=_rank_key)
    return out


def _snapshot_part(file: Path, n: int) -> tuple[Any, ...] | None:
    """(version, postings, lengths, df) of a snapshot part written by this layout for `n` skills, else None.

    Read as the start-up cache is: never through a link, and only a file of this user's that no one else
    can write (its postings decide which skill a search ranks first); then checked to hold what this
    layout writes, so a damaged part is rebuilt instead of raising from a search."""
    from skillyard.cache import _open, _ours

    try:
        with _open(file) as f:
            parts = marshal.loads(f.read()) if _ours(os.fstat(f.fileno())) else None
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return parts if _part_ok(parts, n) else None


def _part_ok(parts: Any, n: int) -> bool:
    """The shape this layout writes, checked down to each field (a term-by-term check would cost the
    first search after a start tens of milliseconds; the file is this user's own, written whole)."""
    if type(parts) is not tuple or len(parts) != 4 or parts[0] != SNAPSHOT_VERSION:
        return False
    _v, postings, lens, df = parts
    return (
        type(postings) is type(lens) is type(df) is dict
        and postings.keys() == lens.keys() <= FIELDS.keys()
        and all(type(terms) is dict for terms in postings.values())
        and all(type(v) is list and len(v) == n for v in lens.values())
    )


class LexicalIndex:
    """An in-memory BM25F index over skills, updated in place on reload; safe to search from many threads."""

    def __init__(self, skills: Sequence[Skill], *, body_chars: int = BODY_CHARS) -> None:
        if skills is None or isinstance(skills, str | bytes) or not isinstance(skills, Iterable):
            raise TypeError(f"skills must be a sequence of Skill objects, not {type(skills).__name__}")
        if isinstance(body_chars, bool) or not isinstance(body_chars, int):
            raise TypeError("body_chars must be an integer")
        self.body_chars = max(body_chars, 0)
        self._lock = threading.RLock()
        self._postings: dict[str, dict[str, dict[int, int]]] = {f: {} for f in _FIELD_NAMES}
        self._lens: dict[str, list[int]] = {f: [] for f in _FIELD_NAMES}
        self._len_sum: dict[str, int] = dict.fromkeys(_FIELD_NAMES, 0)
        self._doc_terms: list[dict[str, tuple[str, ...]] | None] = []
        self._doc_terms_stale = False
        self._snapshot_body: Callable[[], tuple[Any, ...] | None] | None = None
        self._skills: list[Skill | None] = []
        self._by_name: dict[str, int] = {}
        self._df: dict[str, int] = {}
        self._free: list[int] = []
        self._pending_body: set[int] = set()
        self._body_thread: threading.Thread | None = None
        self._norms: dict[str, list[float]] = {}
        self._shares: dict[str, list[float]] = {}
        self._words: dict[str, _Word] = {}
        self._scores: dict[str, tuple[dict[int, float], dict[int, float]]] = {}
        self._spelling_generation = _spelling.generation()
        for s in skills:
            self._add(s)

    # ------------------------------------------------------------ maintenance

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def skill(self, name: str) -> Skill | None:
        doc = self._by_name.get(name)
        return None if doc is None else self._skills[doc]

    def names(self) -> list[str]:
        return list(self._by_name)

    def update(self, added: Sequence[Skill], removed: Sequence[str]) -> None:
        """Remove skills by name, then add (or replace) skills; only the touched skills are (re)indexed."""
        for arg, what in ((added, "added"), (removed, "removed")):
            if arg is None or isinstance(arg, str | bytes) or not isinstance(arg, Iterable):
                raise TypeError(f"{what} must be a sequence, not {type(arg).__name__}")
        with self._lock:
            for name in removed:
                if isinstance(name, str):
                    self._remove(name)
            for s in added:
                self._add(s)  # which skips anything but a Skill

    def _terms_of_docs(self) -> list[dict[str, tuple[str, ...]] | None]:
        """Each document's terms per field; rebuilt from the postings after a snapshot was loaded."""
        if self._doc_terms_stale:
            per: list[dict[str, list[str]] | None] = [{} if s is not None else None for s in self._skills]
            for f in _FIELD_NAMES:
                for t, p in self._postings[f].items():
                    for doc in p:
                        d = per[doc]
                        if d is not None:
                            d.setdefault(f, []).append(t)
            self._doc_terms = [None if d is None else {f: tuple(ts) for f, ts in d.items()} for d in per]
            self._doc_terms_stale = False
        return self._doc_terms

    def _add(self, skill: Skill) -> None:
        if not isinstance(skill, Skill) or not isinstance(skill.name, str):
            return
        self._terms_of_docs()
        if skill.name in self._by_name:
            self._remove(skill.name)
        if self._free:
            doc = self._free.pop()
            self._skills[doc] = skill
            self._doc_terms[doc] = {}
        else:
            doc = len(self._skills)
            self._skills.append(skill)
            self._doc_terms.append({})
            for f in _FIELD_NAMES:
                self._lens[f].append(0)
        self._by_name[skill.name] = doc
        name_text = skill.name.replace("-", " ").replace("_", " ")
        self._index_field(doc, "name", name_text)
        self._index_field(doc, "description", _as_text(skill.description))
        self._index_field(doc, "tags", _tags(skill))
        self._index_field(doc, "when_to_use", _as_text(skill.when_to_use))
        if self.body_chars:
            self._pending_body.add(doc)
        self._invalidate()

    def _index_counts(self, doc: int, field: str, counts: dict[str, int], length: int) -> None:
        if not counts:
            return
        postings = self._postings[field]
        doc_terms = self._terms_of_docs()[doc]
        assert doc_terms is not None
        for t, c in counts.items():
            p = postings.get(t)
            if p is None:
                postings[t] = {doc: c}
            else:
                p[doc] = c
        # document frequency counts a skill once, whichever fields the term is in
        new_terms = counts.keys() - set().union(*doc_terms.values()) if doc_terms else counts.keys()
        df = self._df
        for t in new_terms:
            df[t] = df.get(t, 0) + 1
        doc_terms[field] = tuple(counts)
        self._lens[field][doc] = length
        self._len_sum[field] += length

    def _index_field(self, doc: int, field: str, text: str) -> None:
        counts, length = term_counts(text, camel=field not in _PROSE_FIELDS)
        self._index_counts(doc, field, counts, length)

    def _remove(self, name: str) -> None:
        doc = self._by_name.pop(name, None)
        if doc is None:
            return
        doc_terms = self._terms_of_docs()[doc] or {}
        all_terms: set[str] = set()
        for field, terms in doc_terms.items():
            postings = self._postings[field]
            for t in terms:
                p = postings.get(t)
                if p is not None:
                    p.pop(doc, None)
                    if not p:
                        del postings[t]
            all_terms.update(terms)
            self._len_sum[field] -= self._lens[field][doc]
            self._lens[field][doc] = 0
        for t in all_terms:
            n = self._df.get(t, 0) - 1
            if n > 0:
                self._df[t] = n
            else:
                self._df.pop(t, None)
        self._skills[doc] = None
        self._doc_terms[doc] = None
        self._pending_body.discard(doc)
        self._free.append(doc)
        self._invalidate()

    def _invalidate(self) -> None:
        self._norms = {}
        self._shares = {}
        self._words = {}
        self._scores = {}

    # ------------------------------------------------------------ snapshots

    def snapshot(self) -> tuple[bytes, bytes] | None:
        """The index as (metadata part, body part) for `restore`; None while bodies are pending or
        documents were removed (a snapshot is only of a freshly built index)."""
        with self._lock:
            if self._pending_body or self._free or (self._body_thread and self._body_thread.is_alive()):
                return None
            meta_fields = [f for f in _FIELD_NAMES if f not in _BODY_FIELDS]
            per_doc = (
                {t for f in meta_fields for t in terms.get(f, ())} for terms in self._terms_of_docs() if terms
            )
            df_meta = dict(Counter(chain.from_iterable(per_doc)))
            return self._part(meta_fields, df_meta), self._part(_BODY_FIELDS, self._df)

    def _part(self, fields: Sequence[str], df: dict[str, int]) -> bytes:
        """A snapshot part: (version, postings, lengths, df) of `fields`, as `_snapshot_part` reads it."""
        postings = {f: self._postings[f] for f in fields}
        return marshal.dumps((SNAPSHOT_VERSION, postings, {f: self._lens[f] for f in fields}, df))

    @classmethod
    def restore(
        cls, skills: Sequence[Skill], path: Path, *, body_chars: int = BODY_CHARS
    ) -> LexicalIndex | None:
        """An index over `skills` (the same, in the same order, as when the snapshot was taken) from the
        snapshot at `path`: its metadata part (`.meta`) now, its body part (`.body`, read in the background)
        on the first search."""
        parts = _snapshot_part(path.with_suffix(".meta"), len(skills))
        if parts is None:
            return None
        _v, postings, lens, df = parts
        ix = cls([], body_chars=body_chars)
        ix._skills = list(skills)
        ix._by_name = {s.name: i for i, s in enumerate(skills)}
        if len(ix._by_name) != len(skills):
            return None
        ix._lens = {f: [0] * len(skills) for f in _FIELD_NAMES}
        ix._take(postings, lens, df)
        ix._pending_body = set(range(len(skills))) if body_chars else set()

        ix._snapshot_body = lambda: _snapshot_part(path.with_suffix(".body"), len(skills))
        return ix

    def _take(self, postings: dict[str, Any], lens: dict[str, list[int]], df: dict[str, int]) -> None:
        """Use the postings, field lengths and document frequencies of a snapshot part."""
        self._postings.update(postings)
        self._lens.update(lens)
        self._len_sum.update((f, sum(v)) for f, v in self._lens.items())
        self._df = df
        self._doc_terms_stale = True

    def _merge_snapshot_body(self) -> bool:
        """Take the bodies from the snapshot (in the background thread); False when it cannot be used."""
        loader, self._snapshot_body = self._snapshot_body, None
        parts = loader() if loader is not None else None
        if parts is None:
            return False
        _v, postings, lens, df = parts
        with self._lock:
            if self._free or self._pending_body != set(range(len(self._skills))):
                return False  # changed since: index the bodies the ordinary way
            self._take(postings, lens, df)
            self._pending_body.clear()
            self._invalidate()
        return True

    # ------------------------------------------------------------ bodies

    def bodies_pending(self) -> int:
        """How many skills' bodies are not indexed yet."""
        return len(self._pending_body)

    def index_bodies(self, *, wait: bool = True) -> None:
        """Index the pending bodies: now in this thread (`wait`), or start the background indexer."""
        if wait:
            thread = self._body_thread
            if thread is not None:
                thread.join()
            self._merge_snapshot_body()
            with self._lock:
                self._index_pending()
            return
        with self._lock:
            if not self._pending_body or (self._body_thread is not None and self._body_thread.is_alive()):
                return
            if len(self._pending_body) <= SYNC_BODIES and self._snapshot_body is None:
                self._index_pending()
                return
            self._body_thread = threading.Thread(
                target=self._index_in_background, name="skillyard-search-bodies", daemon=True
            )
            self._body_thread.start()

    def _read_body(self, skill: Skill) -> list[tuple[dict[str, int], int]]:
        """Term counts and lengths of the body fields, in `_BODY_FIELDS` order."""
        try:
            headings, lead, body = _body_fields(skill, self.body_chars)
        except Exception:  # a skill whose body cannot be read is still found by its metadata
            headings, lead, body = "", "", ""
        return [term_counts(headings), term_counts(lead, camel=False), term_counts(body, camel=False)]

    def _index_body(self, doc: int, parts: list[tuple[dict[str, int], int]]) -> None:
        for field, (counts, length) in zip(_BODY_FIELDS, parts, strict=True):
            self._index_counts(doc, field, counts, length)
        self._pending_body.discard(doc)

    def _index_pending(self) -> None:
        """Read and index every pending body (the caller holds the lock; a pending skill is never removed)."""
        pending = sorted(self._pending_body)
        for doc in pending:
            self._index_body(doc, self._read_body(self._skills[doc]))  # type: ignore[arg-type]
        if pending:
            self._invalidate()

    def _index_in_background(self) -> None:
        """Read bodies outside the lock, merge them in small locked steps; searches rank on what is merged."""
        time.sleep(0)  # let the search that started this thread hand back its answer first
        if self._snapshot_body is not None and self._merge_snapshot_body():
            return self._warm()
        while True:
            with self._lock:
                batch = sorted(self._pending_body)[:BODY_BATCH]
                snapshot = [(d, self._skills[d]) for d in batch]
            if not batch:
                return self._warm()
            read = [(d, s, self._read_body(s)) for d, s in snapshot]  # type: ignore[arg-type]
            with self._lock:
                for doc, skill, parts in read:
                    if self._skills[doc] is not skill or doc not in self._pending_body:
                        continue  # replaced or removed meanwhile: its own entry is pending
                    self._index_body(doc, parts)
                self._invalidate()

    def _warm(self) -> None:
        """Build the query-word entries of the words most skills use (see WARM_DF), one word per lock hold
        so searches meanwhile wait for one word at most; stops if the index changes or bodies are pending.
        Rare words are still built on first use."""
        with self._lock:
            frequent = sorted((t for t, df in self._df.items() if df >= WARM_DF), key=self._df.__getitem__)
            words, total = self._words, 0
        while frequent and total + self._df.get(frequent[-1], 0) <= WARM_POSTINGS:
            term = frequent.pop()
            with self._lock:
                if self._words is not words or self._pending_body:
                    return
                total += self._df.get(term, 0)
                self._word(term).by_score()

    # ------------------------------------------------------------ scoring

    def _field_norm(self, f: str) -> list[float]:
        """Per document of field `f`: weight / (1 - b + b * len / avglen), computed when a query first
        needs the field and again only after a change (a search on metadata alone computes no body norms)."""
        norm = self._norms.get(f)
        if norm is None:
            w, b = FIELDS[f]
            avg = self._len_sum[f] / max(len(self._by_name), 1) or 1.0
            norm = self._norms[f] = [w / (1.0 - b + b * ln / avg) for ln in self._lens[f]]
        return norm

    def _field_share(self, f: str) -> list[float]:
        """Per document of field `f`: the share of a word it explains by saying it in that field."""
        share = self._shares.get(f)
        if share is None:
            most = BODY_ONLY_WEIGHT if f in _PROSE_FIELDS else 1.0
            said = SAID_BODY if f == "body" else SAID_HEADINGS if f == "headings" else SAID_META
            share = self._shares[f] = [most * min(1.0, said / max(ln, 1)) for ln in self._lens[f]]
        return share

    def _idf(self, term: str) -> float:
        n = len(self._by_name)
        df = self._df.get(term, 0)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _query_idf(self, term: str) -> float:
        """The IDF of a query term; two query words run together weigh what the two words weigh."""
        return sum(map(self._idf, term.split("+"))) if "+" in term else self._idf(term)

    def _term_scores(self, term: str) -> tuple[dict[int, float], dict[int, float]]:
        """Saturated BM25F score per document, and the share of the word each document explains (its best
        field's: `_field_share`); kept until the index changes, as a word's root or synonym is often another
        query word, or a part of one."""
        cached = self._scores.get(term)
        if cached is not None:
            return cached
        acc: dict[int, float] = {}
        shares: dict[int, float] = {}
        for f in _FIELD_NAMES:
            p = self._postings[f].get(term)
            if not p:
                continue
            nf = self._field_norm(f)
            sf = self._field_share(f)
            get, got = acc.get, shares.get
            for doc, tf in p.items():
                acc[doc] = get(doc, 0.0) + tf * nf[doc]
                if sf[doc] > got(doc, 0.0):
                    shares[doc] = sf[doc]
        scale = self._idf(term) * (K1 + 1.0)
        if len(self._scores) >= MAX_CACHED_TERMS:
            self._scores = {}
        found = self._scores[term] = ({d: scale * x / (K1 + x) for d, x in acc.items()}, shares)
        return found

    def _in_metadata(self, term: str) -> bool:
        return any(term in self._postings[f] for f in _META_FIELDS)

    def corrections(self, term: str) -> list[str]:
        """Words of the skills' metadata (or of the synonym groups) one edit from `term`: a letter
        inserted, deleted, changed, or two neighbours swapped; failing those, words of the bodies used by
        at least MIN_BODY_CORRECTION_DF skills (a word one skill uses may be a typo of its own). Of several
        candidates only those most skills use are kept (the likeliest reading, as a spelling corrector
        ranks by frequency), and a short word with several is left alone: one edit from a four- or
        five-letter word reaches too many words to guess. Candidates are generated, not looked up in a
        prebuilt table, so nothing is built before the first misspelt request."""
        if not MIN_CORRECTABLE <= len(term) <= MAX_CORRECTABLE or not term.isascii() or not term.isalpha():
            return []
        edits = _edits(term)
        edits.discard(term)
        df = self._df
        found = {c for c in edits if c in SYNONYMS or self._in_metadata(c)}
        if not found:
            found = {c for c in edits if df.get(c, 0) >= MIN_BODY_CORRECTION_DF}
        if len(found) > 1:
            top = max(df.get(c, 0) for c in found)
            found = {c for c in found if df.get(c, 0) == top}
            if len(found) > 1 and len(term) < LONG_CORRECTABLE:
                return []
        return sorted(found)

    def relatives(self, term: str) -> list[str]:
        """Indexed words with the same root as `term` ("apologise" ~ "apology"), other than itself."""
        base = root(term)
        out = set()
        for suffix in ("", *ROOT_SUFFIXES, "e", "es", "s"):
            for c in (base + suffix, base + "e" + suffix):  # "blam" ~ "blameless"
                if c != term and c in self._df and root(c) == base:
                    out.add(c)
        return sorted(out)

    def split_compound(self, term: str) -> list[str]:
        """Two words of the skills' metadata that `term` is written as, run together ("slidedeck"), or []."""
        if len(term) < 2 * MIN_COMPOUND_PART or not term.isascii() or not term.isalpha():
            return []
        for i in range(MIN_COMPOUND_PART, len(term) - MIN_COMPOUND_PART + 1):
            parts = [stem(term[:i]), stem(term[i:])]
            if all(self._in_metadata(p) for p in parts):
                return parts
        return []

    def _variants(self, term: str) -> tuple[list[tuple[str, float]], list[str]]:
        """The index terms that stand for one query term, with the fraction of its weight each carries, and
        the two words it runs together when it is read as such (both must be in a skill for either to count)."""
        if " " in term:  # a phrase of the synonym table ("get rid of"): the words of its groups
            return [(v, SYNONYM_WEIGHT) for v in sorted(PHRASES.get(tuple(term.split()), ()))], []
        if "+" in term:  # two query words the skills write as one ("screen+shot"): that word
            return [(stem(term.replace("+", "")), 1.0)], []
        variants: list[tuple[str, float]] = [(term, 1.0)]
        variants.extend((v, ROOT_WEIGHT) for v in self.relatives(term))
        variants.extend((v, SYNONYM_WEIGHT) for v in sorted(SYNONYMS.get(term, ())))
        if self.settled(term):
            return variants, []
        fixes = self.spelling(term)
        for c in fixes:
            variants.append((c, CORRECTION_WEIGHT))
            variants.extend((v, SYNONYM_WEIGHT * CORRECTION_WEIGHT) for v in sorted(SYNONYMS.get(c, ())))
        parts = [] if fixes else self.split_compound(term)
        return variants + [(p, COMPOUND_WEIGHT) for p in parts], parts

    def spelling(self, term: str) -> list[str]:
        """What an unknown query term is read as when it is a typo: `corrections` against the skills'
        vocabulary, plus the most frequent English word one edit away that the skills or a synonym group
        use ("umbrela" -> umbrella). An unknown word's relatives do not rule out a typo; a vague word ("tell")
        and, with the English word list loaded, an English word the skills happen not to use ("launch",
        "worry") are never read as another word."""
        if self.settled(term) or is_vague(term) or _spelling.stem_is_word(term):
            return []
        found = self.corrections(term)
        # only the most frequent English reading the skills use
        english = next((fixed for w in _spelling.corrections(term) if self.knows(fixed := stem(w))), None)
        return found + [english] if english and english not in found else found

    def settled(self, term: str) -> bool:
        """Whether `term` is a word in its own right rather than a possible typo: a synonym group or two
        skills use it, or one does and the English word list, which tells an English word from a typo, is
        not loaded (this does not load it). With the list, one skill's word may be a typo: a skill listing
        the typos of other skills' words ("custmer", "invoce") would otherwise stop them being read as
        those words and take the requests."""
        df = self._df.get(term, 0)
        return df >= MIN_BODY_CORRECTION_DF or term in SYNONYMS or (df == 1 and _spelling.generation() != 2)

    def knows(self, term: str) -> bool:
        """Whether any skill or synonym group uses index term `term`."""
        return term in self._df or term in SYNONYMS

    def _word(self, term: str) -> _Word:
        """For one query word: score per document through its best variant (the word, a word with the same
        root, a synonym or a spelling correction), the IDF mass each document explains through its best
        variant, and the word's weight in the query's mass. Cached until the index changes."""
        cached = self._words.get(term)
        if cached is not None:
            return cached
        variants, parts = self._variants(term)
        known: dict[str, float] = {}  # each index term once, with the weight it first comes with
        for v, w in variants:
            if v in self._df:
                known.setdefault(v, w)
        own = self._query_idf(term) if term in self._df or "+" in term else None
        if own is not None:
            weight_t = own
            if "+" not in term:
                # a word no skill says but among many others (a stuffed field) weighs about what a word no
                # skill uses does: one skill listing every word must not make every request look unexplained
                said = max(self._term_scores(term)[1].values(), default=1.0)
                weight_t *= min(1.0, max(UNKNOWN_WEIGHT, said / BODY_ONLY_WEIGHT))
        elif known:  # a misspelt or paraphrased word weighs what its stand-ins weigh
            weight_t = max(map(self._idf, known))
        else:
            weight_t = self._idf(term) * UNKNOWN_WEIGHT
        scale = VAGUE_WEIGHT if is_vague(term) else 1.0
        weight_t *= scale
        best: dict[int, float] = {}
        explained: dict[int, float] = {}
        together: set[int] = set()  # a run-together word matches only where both its parts are
        if parts:  # ("bookshelf" is not about every skill that says "book")
            together = set(self._term_scores(parts[0])[0]).intersection(self._term_scores(parts[1])[0])
        for v, w in known.items():
            per_doc, shares = self._term_scores(v)
            if v in parts:
                per_doc = {d: sc for d, sc in per_doc.items() if d in together}
            cov_w = weight_t * (1.0 if w == 1.0 else VARIANT_COVERAGE)
            factor = w * scale
            if own is not None and (w == SYNONYM_WEIGHT or "+" in term):
                # another word never counts for more than the one asked for: a rare synonym used
                # often ("router advertisement" for "marketing") is not stronger evidence than the word
                factor *= min(1.0, own / self._idf(v))
            best = _keep_max(
                best, per_doc if factor == 1.0 else {d: sc * factor for d, sc in per_doc.items()}
            )
            covers = {d: cov_w * shares[d] for d in per_doc}
            explained = _keep_max(explained, covers)
        result = _Word(best, explained, weight_t)
        if len(self._words) >= MAX_CACHED_TERMS:
            self._words = {}
        self._words[term] = result
        return result

    def query_terms(self, query: str) -> list[str]:
        """Distinct normalised query terms, in order, then the synonym table's phrases the request contains
        ("get rid of" as one term), then two neighbouring words run together when the skills use them as one
        ("screen shot" -> "screenshot", "data base" -> "database"), capped (hostile queries cost a bounded
        amount)."""
        if not isinstance(query, str):
            return []
        tokens = tokenize(query[:MAX_QUERY_CHARS])
        shapes = [word for pattern, word in SHAPES if pattern.search(query[:MAX_QUERY_CHARS])]
        terms = list(dict.fromkeys(tokens + shapes))[:MAX_QUERY_TERMS]
        words = [t for t in terms if t not in shapes]
        phrases = [
            tuple(tokens[i : i + n]) for n in range(2, MAX_PHRASE + 1) for i in range(len(tokens) - n + 1)
        ]
        joined = [
            f"{a}+{b}" for a, b in zip(words, words[1:], strict=False) if self._in_metadata(stem(a + b))
        ]
        for term in [" ".join(p) for p in phrases if p in PHRASES] + joined:
            if len(terms) < MAX_QUERY_TERMS and term not in terms:
                terms.append(term)
        return terms

    def rank(self, query: str, limit: int | None = None) -> list[tuple[str, float, float]]:
        """Matching skills as (name, score, coverage), best first, ties by name; the best `limit` or all."""
        gen = _spelling.generation()
        if gen != self._spelling_generation:  # the English word list was loaded (or switched): re-read the
            with self._lock:  # words it can correct (not a word two skills use); in place, as `_warm` may
                for t in [t for t in self._words if self._df.get(t, 0) < MIN_BODY_CORRECTION_DF]:  # fill it
                    del self._words[t]
                self._spelling_generation = gen
        terms = self.query_terms(query)
        if not terms:
            return []
        if self._pending_body and len(self._pending_body) <= SYNC_BODIES:
            # a small catalog: cheap enough to index (or take from the snapshot) before answering, so a
            # warm start's first search ranks on the bodies as a cold start's does
            if self._snapshot_body is not None and self._body_thread is None:
                self._merge_snapshot_body()
            self.index_bodies(wait=False)
        try:
            with self._lock:
                if not self._by_name:
                    return []
                words = [self._word(t) for t in terms]
                mass = sum(w.weight for w in words)
                return _ranked(words, 1.0 / mass if mass > 0 else 0.0, limit, self._skills)
        finally:
            # Bodies are read after the first answer, so that answer never waits.
            self.index_bodies(wait=False)
            _spelling.start()  # likewise the word list, when this search wanted it

    def explain(self, query: str, limit: int = 10) -> dict[str, object]:
        """How a query was read and scored: terms, variants, corrections and the top candidates."""
        terms = self.query_terms(query)
        with self._lock:
            out: dict[str, object] = {
                "terms": terms,
                "synonyms": {
                    t: sorted(v for v, w in self._variants(t)[0] if w == SYNONYM_WEIGHT) for t in terms
                },
                "corrections": {t: self.spelling(t) for t in terms if t not in self._df and "+" not in t},
                "idf": {t: round(self._query_idf(t), 4) for t in terms},
                "strong_coverage": STRONG_COVERAGE,
            }
        n = max(min(limit, MAX_LIMIT), 0) if isinstance(limit, int) and not isinstance(limit, bool) else 10
        out["candidates"] = [
            {"name": name, "score": score, "coverage": round(cov, 4)}
            for name, score, cov in self.rank(query, n)
        ]
        return out
