"""Search against hostile queries and a hostile skill: memory per call stays bounded.

No timing is asserted (the machine is shared); each call's peak of traced allocations is, since it
is deterministic. Figures measured with /usr/bin/time and process_time are in docs/search.md.
"""

from __future__ import annotations

import random
import string
import tracemalloc

import pytest

from skillyard.registry import Registry
from skillyard.search import _spelling

WORDS = "image resize pdf extract text table chart git commit review deploy docker sql query email".split()
#: what one search may allocate at its peak, whatever the query (a plain one takes well under 1 MB)
PEAK_BYTES = 8 * 1024 * 1024


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    root = tmp_path_factory.mktemp("skills")
    rng = random.Random(7)
    for i in range(60):
        d = root / f"s{i:02d}"
        d.mkdir()
        desc = " ".join(rng.choice(WORDS) for _ in range(12))
        body = " ".join(rng.choice(WORDS) for _ in range(200))
        (d / "SKILL.md").write_text(f"---\nname: s{i:02d}\ndescription: {desc}\n---\n{body}\n")
    d = root / "hostile"  # megabytes of one token, a description of one repeated word
    d.mkdir()
    (d / "SKILL.md").write_text(
        "---\nname: hostile\ndescription: " + "zzzzz " * 1300 + "\n---\n" + "y" * 3_000_000 + "\n"
    )
    reg = Registry.from_roots([root])
    _spelling.load(wait=True)  # the English word list too, when installed: its corrections run as well
    reg.search("resize an image", 5)
    return reg


def _peak(reg: Registry, query: str) -> int:
    tracemalloc.start()
    try:
        reg.search(query, 5)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))


@pytest.mark.parametrize("length", [60, 300, 999])
def test_one_long_unknown_word_costs_little(registry: Registry, length: int) -> None:
    """Spelling correction generated every one-edit variant of an unknown word (54 per letter, each
    as long as the word): a 999-letter word made 54,000 strings of 1 KB, 57 MB and 0.3 s per search."""
    rng = random.Random(length)
    for _ in range(3):  # fresh words: nothing cached from an earlier call
        assert _peak(registry, _letters(rng, length)) < PEAK_BYTES


@pytest.mark.parametrize(
    "query",
    [
        "a" * 100_000,
        "\ufdfa" * 1000,  # one character NFKC-expands to 18
        " ".join(["imgae", "resiez", "pfd", "extrct", "tabel"] * 1000),
        "y" * 999,  # the hostile skill's token
        "zzzzz " * 500,
        "".join(chr(c) for c in range(0x100, 0x100 + 3000)),
    ],
)
def test_hostile_queries_stay_bounded(registry: Registry, query: str) -> None:
    assert _peak(registry, query) < PEAK_BYTES
    assert registry.search("resize an image", 5)  # still answers normally afterwards
