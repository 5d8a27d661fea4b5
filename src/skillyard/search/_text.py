"""Text normalisation shared by skills and queries: words, stop words, stems, synonyms.

The same steps run on both sides, so a word in a request and the same word in
a SKILL.md always meet: casefold, split on non-alphanumerics and camelCase,
drop function words, strip common suffixes, and map a word to the words people
use for the same task (the synonym groups below).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable

MAX_FIELD_CHARS = 8192

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
    ("duplicate", "dedupe", "deduplicate", "dupe", "duplicates"),
    ("clean", "tidy", "cleanup", "normalise", "normalize"),
    ("speech", "voiceover", "narrator", "aloud"),
    ("invitation", "invite", "rsvp"),
    ("accessibility", "blind", "colorblind", "colourblind", "impaired"),
    ("distance", "far", "route", "directions"),
    ("sentiment", "feel", "feeling", "opinion", "mood", "emotion"),
    ("twitter", "tweet", "tweets"),
    ("correlation", "correlated", "relationship"),
    ("apology", "apologise", "apologize", "sorry"),
    ("customer", "client", "user"),
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
