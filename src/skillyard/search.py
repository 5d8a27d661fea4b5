"""Ranked skill search: BM25F over metadata and the start of each skill's body.

Why this shape (details and figures in docs/search.md):

* Fields are scored BM25F-style: each field's term frequency is length-normalised
  and weighted (name > description, tags > when_to_use > body headings > body
  text) and the weighted sum is saturated once, so a word repeated across fields
  does not count twice as much as one strong match.
* Normalisation is light and symmetric (the same for skills and queries):
  casefold, split on non-alphanumerics and camelCase, drop function words, a
  conservative suffix stripper, and a small synonym table for common paraphrases
  ("picture" ~ "image", "mail" ~ "email"). A synonym counts half as much as the
  word itself, and each query word scores through its best variant only.
* "No good match" is decided by coverage: the share of the query's IDF mass that
  the best skill explains. Queries of stop words or words no skill uses return [].
* Metadata is indexed eagerly (it is already in memory). The body is read lazily,
  on the first search, and only its first ``body_chars`` characters (4 KiB by
  default; headings and the opening instructions live there), so building the
  index over 10,000 skills stays cheap and a huge SKILL.md costs no more than a
  small one.
* `update()` removes and adds single skills in place (postings, document
  frequencies, field length sums); nothing is rebuilt.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skillyard.model import Skill

K1 = 1.2
#: field -> (weight, length-normalisation b)
FIELDS: dict[str, tuple[float, float]] = {
    "name": (3.0, 0.3),
    "description": (2.0, 0.75),
    "tags": (2.0, 0.3),
    "when_to_use": (1.5, 0.75),
    "headings": (1.0, 0.5),
    "body": (0.35, 0.75),
}
_FIELD_NAMES = tuple(FIELDS)
#: A synonym matches with this fraction of the word's own weight.
SYNONYM_WEIGHT = 0.5
#: Results need at least this share of the query's IDF mass explained.
MIN_COVERAGE = 0.34
#: ...and a raw score above this floor.
MIN_SCORE = 0.0
#: In the coverage mass, a word no skill uses (and with no synonym any skill uses) counts this much:
#: such words are often names, places and dates ("in London", "on Thursday") rather than the task.
UNKNOWN_WEIGHT = 0.4
#: A word matched only in the body explains this much of itself (body text mentions many things).
BODY_ONLY_WEIGHT = 0.5
#: A synonym explains this much of the word it stands for.
SYNONYM_COVERAGE = 0.8
#: Characters of body text read per skill.
BODY_CHARS = 4096
MAX_QUERY_CHARS = 1000
MAX_QUERY_TERMS = 32
MAX_FIELD_CHARS = 8192
MAX_LIMIT = 1000
#: Per-document entries the per-word score caches may hold: about 40 bytes each (measured at 10,000
#: skills whose words are in nearly every skill), so at most ~100 MB. Below the working set of such a
#: catalog the caches would be dropped over and over and every query would run cold.
MAX_CACHED_ENTRIES = 2_500_000

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below between
    both but by can could did do does doing done down during each either else etc few for from further had has have
    having he her here hers him his how i if in into is it its itself just let lets like may me might mine more most
    much must my myself need needs no nor not now of off ok okay on once only or other our ours out over own per
    please same shall she should so some such than thank thanks that the their theirs them then there these they
    this those through thus to too under until up upon us very via was we were what when whenever where which while
    who whom whose why will with within without would yes yet you your yours yourself hey hi hello
    skill skills use used uses using want wants wanna gonna help helps something someone thing things stuff really
    able way ways kind sort lot bit one
    """.split()
)

#: Groups of words people use interchangeably for the same task.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("image", "picture", "photo", "pic", "img", "photograph", "jpeg", "jpg", "png"),
    ("email", "mail", "inbox", "e-mail", "gmail", "imap"),
    ("pdf", "document"),
    ("doc", "document", "docx", "word"),
    ("spreadsheet", "excel", "xlsx", "sheet", "workbook"),
    ("csv", "tabular", "table"),
    ("slide", "presentation", "powerpoint", "pptx", "deck", "keynote"),
    ("chart", "graph", "plot", "visualization", "visualise", "visualize"),
    ("database", "db", "sql", "postgres", "mysql", "sqlite"),
    ("test", "unittest", "pytest", "spec"),
    ("bug", "error", "crash", "failure", "exception", "traceback", "defect"),
    ("debug", "troubleshoot", "diagnose"),
    ("fix", "repair", "resolve"),
    ("summarize", "summarise", "summary", "recap", "digest", "tldr", "condense"),
    ("video", "movie", "clip", "film", "footage", "mp4"),
    ("audio", "sound", "recording", "podcast", "mp3", "voice"),
    ("transcribe", "transcript", "transcription", "dictation"),
    ("speech", "voice", "narrate", "narration", "tts"),
    ("subtitle", "caption"),
    ("translate", "translation", "localize", "localise", "i18n"),
    ("convert", "transform", "conversion", "export"),
    ("deploy", "deployment", "rollout", "release", "ship"),
    ("container", "docker", "dockerfile", "containerize", "containerise", "podman"),
    ("kubernetes", "k8s", "cluster", "helm", "kubectl"),
    ("calendar", "schedule", "meeting", "appointment", "event", "invite"),
    ("find", "search", "lookup", "locate"),
    ("remove", "delete", "erase", "strip", "drop"),
    ("website", "site", "webpage", "page", "web"),
    ("scrape", "crawl", "scraper", "crawler", "harvest"),
    ("review", "critique", "feedback"),
    ("compress", "zip", "archive", "tarball", "tar", "unzip", "extract"),
    ("money", "finance", "expense", "spending", "spend", "budget", "cost"),
    ("invoice", "bill", "billing", "receipt"),
    ("note", "notes", "memo", "minutes"),
    ("api", "endpoint", "rest", "http", "graphql"),
    ("chat", "slack", "channel", "teams", "discord"),
    ("message", "notify", "notification", "ping", "alert"),
    ("login", "auth", "authentication", "signin", "oauth"),
    ("password", "secret", "credential", "token", "key"),
    ("diagram", "flowchart", "uml", "mermaid"),
    ("font", "typography", "typeface"),
    ("color", "colour", "palette"),
    ("log", "logs", "logging", "syslog"),
    ("resize", "shrink", "scale", "downscale", "thumbnail", "smaller"),
    ("crop", "trim", "cut"),
    ("resume", "cv"),
    ("recipe", "cook", "cooking", "meal", "dinner", "lunch"),
    ("weather", "forecast", "rain", "temperature"),
    ("trip", "travel", "itinerary", "vacation", "holiday"),
    ("stock", "share", "ticker", "equity"),
    ("commit", "git"),
    ("readme", "documentation", "docs"),
    ("vulnerability", "cve", "security", "exploit"),
    ("dependency", "package", "library", "npm", "pip"),
    ("upgrade", "update", "bump"),
    ("ticket", "issue", "jira", "story"),
    ("regex", "regexp", "pattern"),
    ("yaml", "yml"),
    ("json", "jsonl"),
    ("icon", "svg", "vector"),
    ("ui", "frontend", "interface", "component"),
    ("write", "draft", "compose"),
    ("create", "generate", "build", "make"),
    ("analyze", "analyse", "analysis", "insight"),
    ("outage", "incident", "downtime"),
    ("infra", "infrastructure", "terraform", "provision"),
    ("accessibility", "a11y", "wcag"),
    ("seo", "ranking", "google"),
    ("ocr", "scan", "scanned", "screenshot"),
    ("metadata", "exif"),
    ("migration", "migrate", "schema"),
    ("brand", "branding"),
)

#: The last character before a camelCase boundary ("parseSkill", "HTMLParser").
_CAMEL = re.compile(r"[a-z0-9](?=[A-Z])|[A-Z](?=[A-Z][a-z]{2})")
_WORD = re.compile(r"[^\W_]+")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_VOWEL = re.compile(r"[aeiouy]")


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A conservative suffix stripper: plural `s`/`ies`, `ing`, `ed`, final `e`; the same rules for docs and queries."""
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) >= 4:
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) >= len(suffix) + 3:
            base = w[: -len(suffix)]
            if _VOWEL.search(base):
                if (
                    len(base) >= 4
                    and base[-1] == base[-2]
                    and base[-1] not in "lsz"
                    and base[-1] not in "aeiou"
                ):
                    base = base[:-1]
                w = base
            break
    if len(w) >= 4 and w.endswith("e") and not w.endswith("ee"):
        w = w[:-1]
    return w


def _raw_words(text: str, camel: bool = True) -> list[str]:
    """Casefolded words with camelCase split ("parseSkillFile", "HTMLParser"); regex passes only, no word loop.

    `camel=False` skips the split (a second full regex pass): used for body text, where camelCase
    words are mostly code identifiers and the pass would be almost half the cost of indexing a body.
    """
    if camel:
        text = _CAMEL.sub(r"\g<0> ", text)
    return _WORD.findall(text.casefold())


_STEMS: dict[str, str] = {}


def _stems_for(words: Iterable[str]) -> dict[str, str]:
    """Fill the word -> term cache ("" for dropped words) for any word not seen before."""
    stems = _STEMS
    missing = [w for w in words if w not in stems]
    if missing:
        if len(stems) > 500_000:
            stems.clear()
        for w in missing:
            stems[w] = "" if len(w) < 2 or w in STOP_WORDS else stem(w)
    return stems


def tokenize(text: str) -> list[str]:
    """Index terms of a text, in order: casefolded, camelCase/kebab split, stop words dropped, stemmed."""
    if not isinstance(text, str) or not text:
        return []
    words = _raw_words(text)
    stems = _stems_for(set(words))
    return [t for t in map(stems.__getitem__, words) if t]


def term_counts(text: str, camel: bool = True) -> tuple[dict[str, int], int]:
    """Term frequencies and the number of terms; counts words first so each distinct word is stemmed once."""
    if not isinstance(text, str) or not text:
        return {}, 0
    words = Counter(_raw_words(text, camel))
    stems = _stems_for(words)
    counts: dict[str, int] = {}
    n = 0
    for w, c in words.items():
        t = stems[w]
        if t:
            counts[t] = counts.get(t, 0) + c
            n += c
    return counts, n


def _build_synonyms() -> dict[str, frozenset[str]]:
    """Word -> its synonyms, as index terms; phrases that are several words ("speech-to-text") are skipped."""
    table: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        terms: set[str] = set()
        for phrase in group:
            toks = tokenize(phrase)
            if len(toks) == 1:
                terms.add(toks[0])
        for t in terms:
            table.setdefault(t, set()).update(terms)
    return {t: frozenset(s - {t}) for t, s in table.items()}


SYNONYMS = _build_synonyms()


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked result."""

    name: str
    score: float
    description: str


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value[:MAX_FIELD_CHARS]
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value if isinstance(v, str | int | float))[:MAX_FIELD_CHARS]
    return ""


def _tags(skill: Skill) -> str:
    tags: list[str] = [t for t in skill.tags if isinstance(t, str)]
    meta = skill.metadata if isinstance(skill.metadata, dict) else {}
    for key in ("tags", "keywords", "category"):
        v = meta.get(key)
        if isinstance(v, str):
            tags.append(v)
        elif isinstance(v, list):
            tags.extend(x for x in v if isinstance(x, str))
    return " ".join(tags)[:MAX_FIELD_CHARS]


def _body_head(skill: Skill, limit: int) -> str:
    """The first `limit` characters of the body, without reading (or caching) a whole large file."""
    if limit <= 0:
        return ""
    cached = skill._body
    if isinstance(cached, str):
        return cached[:limit]
    if skill.format != "md":
        return " ".join(p for p in skill.prompts if isinstance(p, str))[:limit]
    try:
        # Universal newlines and a stripped BOM: the same text body_offset counts in.
        with open(skill.path, encoding="utf-8-sig", errors="replace") as f:
            text = f.read(max(skill.body_offset, 0) + limit)
    except (OSError, ValueError, TypeError):
        return ""
    return text[max(skill.body_offset, 0) :]


def _body_fields(skill: Skill, limit: int) -> tuple[str, str]:
    """(headings, body text) of the start of the body, plus the skill's declared tools as headings."""
    head = _body_head(skill, limit)
    headings = [m.group(1) for m in _HEADING.finditer(head)]
    for tool in skill.tools:
        headings.append(f"{tool.name} {tool.description}")
    return " ".join(headings)[:MAX_FIELD_CHARS], head


#: One matched variant of a query word: score per document, documents matching outside the body,
#: and the IDF mass a match explains.
_Variant = tuple[dict[int, float], frozenset[int], float]


def _explained(doc: int, infos: list[tuple[_Variant, ...]]) -> float:
    """The query IDF mass a document explains: per word, its best variant match (body-only counts less)."""
    total = 0.0
    for variants in infos:
        best = 0.0
        for per_doc, strong, cov_w in variants:
            if doc in per_doc:
                x = cov_w if doc in strong else cov_w * BODY_ONLY_WEIGHT
                if x > best:
                    best = x
        total += best
    return total


@functools.lru_cache(maxsize=4096)
def _round_floor(r: float) -> float:
    """The smallest float x with round(x, 4) >= r (r a 4-place value): scores at or above it round to r
    or more, so a rounded-score group is a range of raw scores and needs no rounding to be found."""
    lo, hi = r - 1e-4, r  # round(lo, 4) < r <= round(hi, 4)
    while True:
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            return hi
        if round(mid, 4) >= r:
            hi = mid
        else:
            lo = mid


class SearchIndex:
    """An in-memory BM25F index over skills; cheap to build, updated in place on reload."""

    def __init__(self, skills: Sequence[Skill], *, body_chars: int = BODY_CHARS) -> None:
        if skills is None or isinstance(skills, str | bytes) or not isinstance(skills, Iterable):
            raise TypeError(f"skills must be a sequence of Skill objects, not {type(skills).__name__}")
        if isinstance(body_chars, bool) or not isinstance(body_chars, int):
            raise TypeError("body_chars must be an integer")
        self.body_chars = max(body_chars, 0)
        self._postings: dict[str, dict[str, dict[int, int]]] = {f: {} for f in _FIELD_NAMES}
        self._lens: dict[str, list[int]] = {f: [] for f in _FIELD_NAMES}
        self._len_sum: dict[str, int] = dict.fromkeys(_FIELD_NAMES, 0)
        self._doc_terms: list[dict[str, tuple[str, ...]] | None] = []
        self._skills: list[Skill | None] = []
        self._by_name: dict[str, int] = {}
        self._df: dict[str, int] = {}
        self._free: list[int] = []
        self._pending_body: set[int] = set()
        self._norms: dict[str, list[float]] | None = None
        self._term_cache: dict[str, tuple[dict[int, float], frozenset[int]]] = {}
        self._qterm_cache: dict[str, tuple[dict[int, float], tuple[_Variant, ...], float]] = {}
        #: query word -> (its score dict, the same scores as a list indexed by document)
        self._dense_cache: dict[str, tuple[dict[int, float], list[float]]] = {}
        self._cached_entries = 0  #: per-document entries held by both caches (bounds their memory)
        #: document -> position in name order, and live documents in name order (ties break by name)
        self._name_rank: list[int] | None = None
        self._by_rank: list[int] = []
        for s in skills:
            self._add(s)

    # ------------------------------------------------------------ maintenance

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def update(self, added: Sequence[Skill], removed: Sequence[str]) -> None:
        """Remove skills by name, then add (or replace) skills; only the touched skills are (re)indexed."""
        for arg, what in ((added, "added"), (removed, "removed")):
            if arg is None or isinstance(arg, str | bytes) or not isinstance(arg, Iterable):
                raise TypeError(f"{what} must be a sequence, not {type(arg).__name__}")
        for name in removed:
            if isinstance(name, str):
                self._remove(name)
        for s in added:
            if isinstance(s, Skill):
                self._add(s)

    def _add(self, skill: Skill) -> None:
        if not isinstance(skill, Skill) or not isinstance(skill.name, str):
            return
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

    def _index_field(self, doc: int, field: str, text: str) -> None:
        counts, length = term_counts(text, camel=field != "body")
        if not counts:
            return
        postings = self._postings[field]
        doc_terms = self._doc_terms[doc]
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

    def _remove(self, name: str) -> None:
        doc = self._by_name.pop(name, None)
        if doc is None:
            return
        doc_terms = self._doc_terms[doc] or {}
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

    def _ensure_bodies(self) -> None:
        if not self._pending_body:
            return
        for doc in sorted(self._pending_body):
            skill = self._skills[doc]
            if skill is None:
                continue
            try:
                headings, body = _body_fields(skill, self.body_chars)
            except Exception:  # a skill whose body cannot be read is still found by its metadata
                headings, body = "", ""
            self._index_field(doc, "headings", headings)
            self._index_field(doc, "body", body)
        self._pending_body.clear()
        self._invalidate()

    def clear_cache(self) -> None:
        """Forget cached per-term scores (they are rebuilt on demand); used to measure cold queries."""
        self._term_cache = {}
        self._qterm_cache = {}
        self._dense_cache = {}
        self._cached_entries = 0

    def _remember(self) -> None:
        """Drop both caches when they hold too many entries (a long-running server sees endless words)."""
        if self._cached_entries > MAX_CACHED_ENTRIES:
            self.clear_cache()

    def _invalidate(self) -> None:
        self._norms = None
        self._name_rank = None
        self._term_cache = {}
        self._qterm_cache = {}
        self._dense_cache = {}
        self._cached_entries = 0

    def _field_norms(self) -> dict[str, list[float]]:
        """Per field and document: weight / (1 - b + b * len / avglen), recomputed only after a change."""
        if self._norms is None:
            n = max(len(self._by_name), 1)
            norms: dict[str, list[float]] = {}
            for f, (w, b) in FIELDS.items():
                avg = self._len_sum[f] / n or 1.0
                norms[f] = [w / (1.0 - b + b * ln / avg) for ln in self._lens[f]]
            self._norms = norms
        return self._norms

    # ------------------------------------------------------------ query

    def _idf(self, term: str) -> float:
        n = len(self._by_name)
        df = self._df.get(term, 0)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _term_scores(self, term: str) -> tuple[dict[int, float], frozenset[int]]:
        """Saturated BM25F score per document, and the documents matching outside the body.

        Cached per term until the index changes, so a popular word costs one pass over its postings.
        """
        cached = self._term_cache.get(term)
        if cached is not None:
            return cached
        norms = self._field_norms()
        acc: dict[int, float] = {}
        strong: set[int] = set()
        for f in _FIELD_NAMES:
            p = self._postings[f].get(term)
            if not p:
                continue
            nf = norms[f]
            get = acc.get
            for doc, tf in p.items():
                acc[doc] = get(doc, 0.0) + tf * nf[doc]
            if f != "body":
                strong.update(p)
        idf = self._idf(term)
        k = K1
        scale = idf * (k + 1.0)
        result = ({d: scale * x / (k + x) for d, x in acc.items()}, frozenset(strong))
        self._remember()
        self._cached_entries += 2 * len(result[0])
        self._term_cache[term] = result
        return result

    @staticmethod
    def query_terms(query: str) -> list[str]:
        """Distinct normalised query terms, in order, capped (hostile queries cost a bounded amount)."""
        if not isinstance(query, str):
            return []
        terms: list[str] = []
        for t in tokenize(query[:MAX_QUERY_CHARS]):
            if t not in terms:
                terms.append(t)
            if len(terms) >= MAX_QUERY_TERMS:
                break
        return terms

    def _prepare(self, query: str, limit: int) -> tuple[list[str], int] | None:
        """Checked limit and query terms shared by both rankers; None when the answer is []."""
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise ValueError(f"limit must be an integer, not {type(limit).__name__}")
        if limit <= 0 or not self._by_name:
            return None
        terms = self.query_terms(query)
        return (terms, min(limit, MAX_LIMIT)) if terms else None

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        """Skills ranked for `query`, best first; [] when nothing is a good match."""
        prepared = self._prepare(query, limit)
        if prepared is None:
            return []
        terms, limit = prepared
        hits = self._top(terms, limit)
        return [SearchHit(name, score, _as_text(s.description)) for score, name, s in hits]

    def search_exhaustive(self, query: str, limit: int = 5) -> list[SearchHit]:
        """`search` by scoring every matching skill and sorting them all: the reference the pruned
        top-k walk of `search` must agree with (kept for tests and `explain`-style debugging)."""
        prepared = self._prepare(query, limit)
        if prepared is None:
            return []
        terms, limit = prepared
        scores, infos, mass = self._rank(terms)
        if not scores or mass <= 0:
            return []
        need = MIN_COVERAGE * mass
        hits: list[tuple[float, str, Skill]] = []
        for doc in scores:
            sc = round(scores[doc], 4)
            skill = self._skills[doc]
            if skill is None or sc <= MIN_SCORE or _explained(doc, infos) < need:
                continue
            hits.append((sc, skill.name, skill))
        hits.sort(key=lambda h: (-h[0], h[1]))
        return [SearchHit(name, score, _as_text(s.description)) for score, name, s in hits[:limit]]

    def _top(self, terms: list[str], limit: int) -> list[tuple[float, str, Skill]]:
        """The best `limit` accepted skills as (rounded score, name, skill), without sorting every match.

        Each query word's scores are also kept as a dense per-document list (cached with the word), so
        the query's scores are a few element-wise additions done by `map` rather than a Python loop per
        posting; the additions happen in the same order as `_rank`'s, so the sums are identical.

        The order is `search_exhaustive`'s: rounded score down, then name. Only documents whose rounded
        score is at least that of the `pool`-th best raw score are looked at. Those rounding strictly
        higher are fewer than `pool`, so they are rounded and sorted outright; the last group (the
        pool-th score's own rounded value) may hold thousands of ties, so its members are taken in name
        order from a precomputed name ranking and only as many are checked for coverage as it takes to
        fill `limit`. Group bounds are exact (`_round_floor`), so no score is rounded to find them. The
        pool grows when coverage turns too many away; a query no skill could explain enough (the
        coverage upper bound is below the threshold) is answered [] without looking at any skill.
        """
        self._ensure_bodies()
        words = [self._query_term(t) for t in terms]
        mass = 0.0
        for _best, _variants, weight_t in words:
            mass += weight_t
        if mass <= 0:
            return []
        infos = [variants for _best, variants, _w in words]
        need = MIN_COVERAGE * mass
        # Whatever variants a skill matches, it explains at most each word's strongest variant weight
        # (summed in `_explained`'s order, so the float bound is exact).
        most = 0.0
        for variants in infos:
            most += max((cov_w for _p, _s, cov_w in variants), default=0.0)
        if most < need:
            return []
        vecs = [self._dense(t, best) for t, (best, _v, _w) in zip(terms, words, strict=True) if best]
        if not vecs:
            return []
        total = vecs[0]
        for v in vecs[1:]:
            total = list(map(operator.add, total, v))
        # The smallest rounded score that is a result (rounded scores <= MIN_SCORE never are).
        least_r = round(math.floor(MIN_SCORE * 10_000 + 1e-6) / 10_000 + 1e-4, 4)
        matched = len(total) - total.count(0.0)
        pool = max(4 * limit, 32)
        while True:
            if pool < matched:
                r_floor = max(round(heapq.nlargest(pool, total)[-1], 4), least_r)
            else:
                r_floor = least_r
            complete = r_floor == least_r
            hits = self._collect(total, r_floor, limit, infos, need)
            if len(hits) >= limit or complete:
                return hits
            pool = min(pool * 4, matched)

    def _collect(
        self, total: list[float], r_floor: float, limit: int, infos: list[tuple[_Variant, ...]], need: float
    ) -> list[tuple[float, str, Skill]]:
        """Accepted documents whose rounded score is at least `r_floor`, in result order, up to `limit`."""
        skills = self._skills
        lo = _round_floor(r_floor)
        hi = _round_floor(round(r_floor + 1e-4, 4))
        ge, rep = operator.ge, itertools.repeat
        cands = list(itertools.compress(range(len(total)), map(ge, total, rep(lo))))
        high = list(map(ge, map(total.__getitem__, cands), rep(hi)))
        above = list(itertools.compress(cands, high))
        rank = self._name_ranks()
        above.sort(key=rank.__getitem__)
        rounded = dict(zip(above, map(round, map(total.__getitem__, above), rep(4)), strict=True))
        above.sort(key=rounded.__getitem__, reverse=True)  # stable: by name within a rounded score
        hits: list[tuple[float, str, Skill]] = []
        for d in above:
            skill = skills[d]
            if skill is not None and _explained(d, infos) >= need:
                hits.append((rounded[d], skill.name, skill))
                if len(hits) >= limit:
                    return hits
        # The group rounding to exactly r_floor: every document scoring in [lo, hi).
        group = list(itertools.compress(cands, map(operator.not_, high)))
        if not group:
            return hits
        if len(group) * 8 < len(total):
            members: Iterable[int] = sorted(group, key=rank.__getitem__)
        else:  # massive ties: walk the name order lazily, stopping once `limit` are accepted
            inside = set(group)
            members = itertools.compress(self._by_rank, map(inside.__contains__, self._by_rank))
        for d in members:
            skill = skills[d]
            if skill is not None and _explained(d, infos) >= need:
                hits.append((r_floor, skill.name, skill))
                if len(hits) >= limit:
                    break
        return hits

    def _name_ranks(self) -> list[int]:
        """Each document's position in name order (live documents only), rebuilt after a change."""
        if self._name_rank is None:
            live = [d for d, s in enumerate(self._skills) if s is not None]
            live.sort(key=self._name_of)
            rank = [len(live)] * len(self._skills)
            for i, d in enumerate(live):
                rank[d] = i
            self._by_rank = live
            self._name_rank = rank
        return self._name_rank

    def _dense(self, term: str, best: dict[int, float]) -> list[float]:
        """A query word's scores as a list indexed by document (0.0 where it does not match); cached."""
        cached = self._dense_cache.get(term)
        if cached is not None and cached[0] is best:
            return cached[1]
        vec = list(map(best.get, range(len(self._skills)), itertools.repeat(0.0)))
        self._remember()
        self._cached_entries += len(vec) // 8  # mostly shared 0.0 objects: about a pointer each
        self._dense_cache[term] = (best, vec)
        return vec

    def _rank(self, terms: list[str]) -> tuple[dict[int, float], list[tuple[_Variant, ...]], float]:
        """Score per document, each query word's variants (for coverage), and the query's total mass."""
        self._ensure_bodies()
        scores: dict[int, float] = {}
        infos: list[tuple[_Variant, ...]] = []
        mass = 0.0
        for t in terms:
            per_doc, variants, weight_t = self._query_term(t)
            mass += weight_t
            infos.append(variants)
            if not scores:
                scores = dict(per_doc)
                continue
            get = scores.get
            for doc, sc in per_doc.items():
                scores[doc] = get(doc, 0.0) + sc
        return scores, infos, mass

    def _query_term(self, term: str) -> tuple[dict[int, float], tuple[_Variant, ...], float]:
        """For one query word: score per document through its best variant (the word or a synonym),
        the variants that matched (to work out coverage later), and the word's weight in the query's mass.

        Cached until the index changes, like the per-term postings pass.
        """
        cached = self._qterm_cache.get(term)
        if cached is not None:
            return cached
        variants: list[tuple[str, float]] = [(term, 1.0)]
        variants.extend((v, SYNONYM_WEIGHT) for v in sorted(SYNONYMS.get(term, ())))
        known = [(v, w) for v, w in variants if v in self._df]
        idf_t = self._idf(term)  # a word no skill uses has the highest IDF
        weight_t = idf_t if known else idf_t * UNKNOWN_WEIGHT
        best: dict[int, float] = {}
        shared = False  #: `best` is the word's own cached score dict (not copied until it must change)
        matched: list[_Variant] = []
        for v, w in known:
            per_doc, strong = self._term_scores(v)
            matched.append((per_doc, strong, weight_t * (1.0 if w == 1.0 else SYNONYM_COVERAGE)))
            if not matched[:-1]:
                if w == 1.0:
                    best, shared = per_doc, True
                else:
                    best = {d: sc * w for d, sc in per_doc.items()}
                continue
            if shared:
                best, shared = dict(best), False
            get = best.get
            for doc, sc in per_doc.items():
                sc *= w
                if sc > get(doc, 0.0):
                    best[doc] = sc
        result = (best, tuple(matched), weight_t)
        self._remember()
        if not shared:
            self._cached_entries += len(best)
        self._qterm_cache[term] = result
        return result

    def explain(self, query: str, limit: int = 10) -> dict[str, object]:
        """How a query was read and scored, including candidates the threshold rejected (for debugging)."""
        terms = self.query_terms(query)
        if terms:
            self._ensure_bodies()
        out: dict[str, object] = {
            "terms": terms,
            "variants": {t: sorted(SYNONYMS.get(t, ())) for t in terms},
            "idf": {t: round(self._idf(t), 4) for t in terms},
            "min_coverage": MIN_COVERAGE,
            "candidates": [],
        }
        if not terms or not self._by_name or isinstance(limit, bool) or not isinstance(limit, int):
            return out
        scores, infos, mass = self._rank(terms)
        ranked = sorted(scores, key=lambda d: (-round(scores[d], 4), self._name_of(d)))[
            : max(min(limit, MAX_LIMIT), 0)
        ]
        out["candidates"] = [
            {
                "name": self._name_of(d),
                "score": round(scores[d], 4),
                "coverage": round(_explained(d, infos) / mass, 4) if mass else 0.0,
                "accepted": mass > 0
                and _explained(d, infos) >= MIN_COVERAGE * mass
                and scores[d] > MIN_SCORE,
            }
            for d in ranked
            if self._skills[d] is not None
        ]
        return out

    def _name_of(self, doc: int) -> str:
        s = self._skills[doc]
        return s.name if s is not None else ""


def build_index(skills: Iterable[Skill]) -> SearchIndex:
    """Convenience for callers holding an iterable."""
    return SearchIndex(list(skills))
