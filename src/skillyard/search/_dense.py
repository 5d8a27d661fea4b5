"""Summing many postings at once with numpy, for requests whose words are in most skills.

The lexical ranker adds each query word's per-skill scores into one total per
skill. When the words are common (in thousands of bodies), that sum is most of
a search's cost, and numpy's `bincount` does it in C. The arithmetic is the same
as the plain loop, in the same order (word by word, then `score * (base +
coverage)`), so both give the same floats and the same ranking.

numpy is imported in a background thread after the first search that needed it
has answered, and used once that import has finished: no search waits for the
import, and a one-off command that never searches a large catalog never pays
for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

#: A request touching at least this many postings is summed with numpy (once it is imported).
DENSE_POSTINGS = 1024

_np: Any = None
_started = False
_lock = threading.Lock()


def _import() -> None:
    global _np
    time.sleep(0)  # let the search that started this thread hand back its answer first
    try:
        import numpy
    except ImportError:  # the plain loop stays in use
        return
    _np = numpy


def numpy_ready() -> Any:
    """The numpy module once its import has finished, else None."""
    return _np


def start_import() -> None:
    """Import numpy in a background thread, once (called after a search has answered, so that search
    never shares the interpreter with the import)."""
    global _started
    if _started:
        return
    with _lock:
        if not _started:
            _started = True
            threading.Thread(target=_import, name="skillyard-numpy-import", daemon=True).start()


def wait_for_numpy() -> Any:
    """Import numpy in this thread (for benchmarks and tests that compare both paths)."""
    global _started
    with _lock:
        _started = True
    if _np is None:
        _import()
    return _np


class Postings:
    """One query word's (document ids, scores, explained mass) as arrays, built once per cached word."""

    __slots__ = ("docs", "best", "explained")

    def __init__(self, np: Any, best: dict[int, float], explained: dict[int, float]) -> None:
        keys = list(explained)
        self.docs = np.fromiter(keys, dtype=np.intp, count=len(keys))
        self.best = np.fromiter((best.get(d, 0.0) for d in keys), dtype=np.float64, count=len(keys))
        self.explained = np.fromiter(explained.values(), dtype=np.float64, count=len(keys))


def top_docs(
    np: Any, words: Sequence[Postings], n_docs: int, inv_mass: float, base: float, limit: int | None
) -> list[tuple[int, float, float]]:
    """(document, unrounded score, coverage) for the documents that can be among the best `limit`
    once scores are rounded to 4 places (all matching documents when `limit` is None)."""
    docs = np.concatenate([w.docs for w in words])
    scores = np.bincount(docs, weights=np.concatenate([w.best for w in words]), minlength=n_docs)
    covered = np.bincount(docs, weights=np.concatenate([w.explained for w in words]), minlength=n_docs)
    idx = np.flatnonzero(scores > 0.0)
    cov = covered[idx] * inv_mass
    final = scores[idx] * (base + cov)
    if limit is not None and limit < len(idx):
        kth = np.partition(final, len(final) - limit)[len(final) - limit]
        keep = final >= kth - 1e-4  # anything that can round to the same 4 places as the limit-th score
        idx, cov, final = idx[keep], cov[keep], final[keep]
    return list(zip(idx.tolist(), final.tolist(), cov.tolist(), strict=True))
