"""Timing helpers the benchmarks share: medians, measured alternately against a baseline.

Timings on a shared machine are noisy; ratios of alternated measurements are not.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(fn: Callable[[], object], runs: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples)


def paired_ms(
    fn: Callable[[], object], base: Callable[[], object], runs: int, warmup: int = 3
) -> tuple[float, float]:
    """Medians of `fn` and `base`, measured alternately so machine noise hits both alike."""
    for _ in range(warmup):
        fn()
        base()
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        t = time.perf_counter()
        base()
        b.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        fn()
        a.append((time.perf_counter() - t) * 1000)
    return statistics.median(a), statistics.median(b)
