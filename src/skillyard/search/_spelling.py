"""English for requests: which words are English, and the likeliest English word one edit away.

The skills' own vocabulary is small: a request word it lacks is as often a
plain English word the skills never use ("launch", "worry", "lease") as a
typo, and one edit from such a word often reaches an unrelated skill word
("launch" -> "lunch"). An English word list with frequencies tells them
apart, and corrects typos to words the skills do not use but a synonym group
knows ("umbrela" -> "umbrella" -> weather), or that an embedder reads better
than the typo.

The word list comes from the optional `pyspellchecker` package (the
`spelling` extra; MIT, word frequencies shipped in the package, nothing
fetched at run time). Without it every function here answers "not known"
and search corrects against the skills' vocabulary alone. The list is loaded
in a background thread after the first search with a word the skills do not
know has answered (about 0.15 s, more under load); no search waits for it:
until it is loaded, searches correct against the skills' vocabulary alone,
and `generation()` changes once it is, so the search index drops what it
cached without it.
"""

from __future__ import annotations

import functools
import threading
import time
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
_loaded: list[Any] = []  #: the checker once loaded (None when unavailable), set once by _load
_loading = threading.RLock()
_started = False
_wanted = False


def set_enabled(on: bool) -> None:
    """Use the word list (the default, when installed) or not; bench_search.py compares both."""
    global _enabled
    _enabled = bool(on)


def _load() -> None:
    time.sleep(0)  # let the search that started this thread hand back its answer first
    try:
        from spellchecker import SpellChecker  # type: ignore[import-not-found, import-untyped, unused-ignore]

        checker: Any | None = SpellChecker(language="en", distance=1)
    except Exception:  # not installed, or a broken install: spelling is left to the skills' vocabulary
        checker = None
    with _loading:
        if not _loaded:
            _loaded.append(checker)


def load(wait: bool = False) -> None:
    """Start loading the word list in a background thread (once); with `wait`, load it now."""
    global _started
    with _loading:
        if _loaded or (_started and not wait):
            return
        if wait:
            _load()
            return
        _started = True
    threading.Thread(target=_load, name="skillyard-word-list", daemon=True).start()


def start() -> None:
    """Start loading the word list if a search asked for it; called after that search has answered, since
    decoding the list holds the interpreter lock for tens of milliseconds at a time."""
    if _wanted and not _loaded and not _started:
        load()


def _checker() -> Any | None:
    """The pyspellchecker English checker, or None when it is not installed, disabled, or not loaded yet
    (then the next `start()` loads it in the background)."""
    global _wanted
    if not _enabled:
        return None
    if not _loaded:
        _wanted = True
        return None
    return _loaded[0]


def generation() -> int:
    """Changes when the word list becomes available or is switched on or off: answers cached before
    are stale then."""
    return (2 if _loaded and _loaded[0] is not None else 1) if _enabled else 0


def available() -> bool:
    """Whether the English word list is loaded and in use (starts loading it when it is not yet)."""
    return _checker() is not None


def is_word(word: str) -> bool:
    """Whether `word` (casefolded) is a common enough English word not to be read as a typo."""
    if len(word) < MIN_LENGTH or not word.isascii() or not word.isalpha() or (checker := _checker()) is None:
        return False
    with _lock:
        return bool(checker.word_usage_frequency(word) >= MIN_FREQUENCY)


def stem_is_word(term: str) -> bool:
    """Whether index term `term` is the stem of a common English word ("scar" of "scared", "night")."""
    return _stem_is_word(term, generation())


@functools.lru_cache(maxsize=8192)
def _stem_is_word(term: str, _generation: int) -> bool:
    if len(term) < MIN_LENGTH - 1 or not term.isascii() or not term.isalpha() or not available():
        return False
    return any(is_word(w) and stem(w) == term for w in (term + e for e in _ENDINGS))


def corrections(word: str) -> tuple[str, ...]:
    """English words one edit from `word`, most frequent first, when `word` itself is not English; the
    caller prefers the ones its skills use ("invoce": invoke, invoice)."""
    return _corrections(word, generation())


@functools.lru_cache(maxsize=8192)
def _corrections(word: str, _generation: int) -> tuple[str, ...]:
    if len(word) < MIN_CORRECTED or not word.isascii() or not word.isalpha() or is_word(word):
        return ()
    checker = _checker()
    if checker is None:
        return ()
    with _lock:
        found = checker.candidates(word) or ()
        # any listed word is a fair reading; MIN_FREQUENCY only decides what is too common to be a typo
        ranked = sorted(
            ((checker.word_usage_frequency(c), c) for c in found if c != word), key=lambda x: (-x[0], x[1])
        )
    return tuple(c for f, c in ranked if f > 0.0)
