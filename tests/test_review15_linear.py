"""New readers cost work linear in what they read, counted, never timed: lists of character codes
over several lines are found by counting lines once through the text.
"""

from __future__ import annotations

from skillyard.install.scanner import _lexical


class _Counted(str):
    """A text that adds up how many characters `count` is asked to look at."""

    looked = 0

    def count(self, sub: str, start: int | None = 0, end: int | None = None) -> int:  # type: ignore[override]
        lo = start or 0
        hi = len(self) if end is None else min(end, len(self))
        _Counted.looked += max(0, hi - lo)
        return str.count(self, sub, start, end)


def test_many_lists_of_codes_over_several_lines_cost_linear_work() -> None:
    text = _Counted("x = [\n10, 11, 12,\n13, 14, 15]\n" * 4000)
    _Counted.looked = 0
    _lexical.analyse("table.rb", text)
    assert _Counted.looked <= 4 * len(text)
