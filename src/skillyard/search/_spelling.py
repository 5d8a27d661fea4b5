"""English spelling for requests: which words are English, and the likeliest English word one edit away.

The skills' own vocabulary is small: a request word it lacks is as often a
plain English word the skills never use ("night", "launch", "worry") as a
typo, and one edit from such a word often reaches an unrelated skill word
("night" -> "right"). An English word list with frequencies tells them
apart, and corrects typos to words the skills do not use but a synonym group
knows ("umbrela" -> "umbrella" -> weather), or that an embedder reads better
than the typo.

The word list comes from the optional `pyspellchecker` package (the
`spelling` extra; MIT, word frequencies shipped in the package, nothing
fetched at run time). Without it every function here answers "not known"
and search corrects against the skills' vocabulary alone. The list is loaded
on the first request with a word the skills do not know (about 0.15 s), never
at start-up.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from skillyard.search._text import stem

#: A word at least this frequent in English text is a word, not a typo. Rarer entries ("sever", 2e-6)
#: are more often a typo of a commoner word ("server") in a request to a tool.
MIN_FREQUENCY = 5e-6
#: Words shorter than this are not checked (one edit from them reaches too many words).
MIN_LENGTH = 4
#: Words shorter than this are not corrected: one edit from a four-letter typo reaches several common words,
#: and the most frequent is often not the one meant ("evry" -> "very", "wich" -> "with").
MIN_CORRECTED = 5
#: Endings tried when asking whether an index term (a stem) is the stem of an English word.
_ENDINGS = ("", "e", "s", "es", "ed", "d", "ing", "y")

_lock = threading.Lock()
_enabled = True


def set_enabled(on: bool) -> None:
    """Use the word list (the default, when installed) or not; bench_search.py compares both."""
    global _enabled
    _enabled = bool(on)
    stem_is_word.cache_clear()
    correction.cache_clear()


@functools.lru_cache(maxsize=1)
def _checker() -> Any | None:
    """The pyspellchecker English checker, or None when the package is not installed or fails to load."""
    try:
        from spellchecker import SpellChecker  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return None
    try:
        return SpellChecker(language="en", distance=1)
    except Exception:  # a broken install leaves spelling to the skills' vocabulary
        return None


def available() -> bool:
    """Whether the English word list is installed (and in use)."""
    return _enabled and _checker() is not None


def _frequency(word: str) -> float:
    checker = _checker() if _enabled else None
    if checker is None:
        return 0.0
    with _lock:
        return float(checker.word_usage_frequency(word))


def is_word(word: str) -> bool:
    """Whether `word` (casefolded) is a common enough English word not to be read as a typo."""
    return len(word) >= MIN_LENGTH and word.isascii() and word.isalpha() and _frequency(word) >= MIN_FREQUENCY


@functools.lru_cache(maxsize=8192)
def stem_is_word(term: str) -> bool:
    """Whether index term `term` is the stem of a common English word ("scar" of "scared", "night")."""
    if len(term) < MIN_LENGTH - 1 or not term.isascii() or not term.isalpha() or not available():
        return False
    return any(is_word(w) and stem(w) == term for w in (term + e for e in _ENDINGS))


@functools.lru_cache(maxsize=8192)
def correction(word: str) -> str | None:
    """The most frequent English word one edit from `word` when `word` itself is not English, else None."""
    if len(word) < MIN_CORRECTED or not word.isascii() or not word.isalpha() or is_word(word):
        return None
    checker = _checker() if _enabled else None
    if checker is None:
        return None
    with _lock:
        fixed = checker.correction(word)
    # any listed word is a fair reading; MIN_FREQUENCY only decides what is too common to be a typo
    if not isinstance(fixed, str) or fixed == word or _frequency(fixed) <= 0.0:
        return None
    return fixed
