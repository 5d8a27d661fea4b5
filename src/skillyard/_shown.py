"""Text as a reader of it should see it: characters that hide or move text spelled out.

Every surface that shows a skill author's text to a person or a model (catalog, instructions,
terminal output, audit reports, JSON tool results) passes it through `shown` or `shown_json`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable

#: Printable to `str.isprintable`, yet invisible: the Unicode tag block and the variation
#: selectors supplement, both used to smuggle text past a reader; and blanks that are no space to
#: `str.split` (Hangul fillers, Khmer inherent vowels, the Braille blank), which pad a name or a
#: description to where the terminal wraps it, so its last words start a line of their own.
_HIDDEN_PRINTABLE = re.compile(
    "[\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_KEPT = {ord("\n"): "\n", ord("\t"): "\t", 0x200D: "\u200d"}  # the zero-width joiner joins emoji


class _Spelled(dict[int, str]):
    """A `str.translate` table: each character to itself, or to `escape` of it when it hides or
    moves text (a control, format or line-separator character, or one of `_HIDDEN_PRINTABLE`);
    filled once per distinct character, so a long text is translated in C."""

    def __init__(self, escape: Callable[[str], str]) -> None:
        super().__init__(_KEPT)
        self.escape = escape

    def __missing__(self, code: int) -> str:
        if len(self) > 65_536:  # a text of every character there is: the table stays small
            self.clear()
            self.update(_KEPT)
        c = chr(code)
        seen = (c.isprintable() or unicodedata.category(c) == "Zs") and not _HIDDEN_PRINTABLE.match(c)
        out = self[code] = c if seen else self.escape(c)
        return out


_SPELLED = _Spelled(lambda c: ascii(c)[1:-1])
#: JSON's own escapes (a surrogate pair above U+FFFF): a JSON reader gets the same text back.
_SPELLED_JSON = _Spelled(lambda c: json.dumps(c)[1:-1])


def shown(s: str, *, one_line: bool = False) -> str:
    """`s` with every character that hides or moves text spelled out as an escape: what a person
    reviewing a skill's text (catalog, instructions, docs) sees is what the model reads, and an
    author's text cannot move the cursor or rewrite the terminal that prints it. Newline and tab
    stay, unless `one_line`."""
    if s.isprintable() and (s.isascii() or not _HIDDEN_PRINTABLE.search(s)):  # checked in C: the usual text
        return s
    s = s.translate(_SPELLED)
    return s.replace("\n", "\\n").replace("\t", "\\t") if one_line else s


def shown_json(text: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) with what `shown` spells out written as
    `\\u` escapes: tool results decode to the same data, and hidden text is visible to whoever
    reads the raw result, the model included."""
    # JSON escapes every ASCII control character but DEL
    if (text.isascii() and "\x7f" not in text) or (text.isprintable() and not _HIDDEN_PRINTABLE.search(text)):
        return text
    return text.translate(_SPELLED_JSON)
