"""Input guards and output helpers shared by the CLI modules.

Command-line values arrive from anywhere: a NUL byte (possible through
`main(argv)`), an empty path, or a name that is not valid UTF-8 (decoded with
surrogateescape) must give a usage error or a printable answer, never a
traceback. Every command exits 0 on success, 1 when it ran and reports a
failure, 2 on a usage or configuration error.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rich.console import Console, ConsoleOptions
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class SafePath(click.Path):
    """click.Path that refuses empty values and NUL bytes as usage errors instead of crashing in os.stat."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        raw = os.fsdecode(value) if isinstance(value, bytes | os.PathLike) else value
        if isinstance(raw, str):
            if raw == "":
                self.fail("path is empty", param, ctx)
            if "\0" in raw:
                self.fail("path contains a NUL byte", param, ctx)
        try:
            return super().convert(value, param, ctx)
        except (OSError, ValueError) as e:  # ENAMETOOLONG, ELOOP... from the stat inside click.Path
            self.fail(f"unusable path: {e}", param, ctx)


def tolerant_streams() -> None:
    """Let stdout/stderr print names that are not valid UTF-8, as `\\udcff` escapes.

    Neither the default `strict` (a crash) nor `surrogateescape` (raw bytes: `--json` output that is
    not UTF-8) will do; the escape keeps JSON valid and shows the user which byte was odd.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors != "backslashreplace":
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to anyway
                pass


def dumps_json(data: Any) -> str:
    """Indented, with non-ASCII text as is, for a person at a terminal; compact and ASCII (`\\u`
    escapes: the C encoder's fastest path) for a program reading a pipe. The decoded content is the
    same either way. The commands print trees they have just built, which cannot hold a cycle, so
    the encoder does not track every container it enters to detect one. At a terminal, what hides or
    moves text (a bidi override in a skill's file name, a C1 control) is written as a `\\u` escape."""
    import json

    if sys.stdout.isatty():
        from skillyard._shown import shown_json

        return shown_json(json.dumps(data, indent=2, ensure_ascii=False))
    return json.dumps(data, separators=(",", ":"), check_circular=False)


def emit_json(data: Any) -> None:
    click.echo(dumps_json(data))


def console(*, stderr: bool = False) -> Console:
    """A rich console that does not break long lines (an error naming a long path stays whole)."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


class Hanging:
    """A table cell of a mark and a name: whole when it fits, else folded at any character (the name
    starts beside its mark) with each line after the first two cells in, so no part of an author's
    name starts a line in the mark's column (where `✓ pdf-official` would read as another skill,
    and a usable one)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        return Measurement.get(console, options, self.text)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        from rich.cells import chop_cells
        from rich.text import Text

        width, plain = options.max_width, self.text.plain
        if self.text.cell_len <= width or width < 4:
            yield self.text
            return
        cuts = [len(chop_cells(plain, width)[0])]
        for part in chop_cells(plain[cuts[0] :], width - 2):
            cuts.append(cuts[-1] + len(part))
        for i, line in enumerate(self.text.divide(cuts[:-1])):
            yield line if i == 0 else Text.assemble("  ", line)


def name_column(table: Table, names: list[Text], room: int) -> int:
    """Add the skill column of `list` and `search` to `table` and return its width: the widest mark
    and name (or the heading) in terminal cells (a CJK name is twice its length), or `room` when
    that is narrower. Then a longer name folds, hanging (`Hanging`), where the terminal would
    otherwise wrap a row wider than itself at whatever the name says. A set width: rich does not
    shrink the other columns to make room for a wider minimum."""
    width = min(max([len("skill"), *(n.cell_len for n in names)]), max(room, 8))
    table.add_column("skill", overflow="fold", width=width)
    return width


#: skillyard's own marks: a line's verdict, and only ever at its start
MARKS = frozenset("✓✔✗✘☑☒✅❌❎")
_MARKS_SPELLED = str.maketrans({c: f"\\u{ord(c):04x}" for c in MARKS})


def _one_mark(parts: tuple[str | tuple[str, str], ...]) -> tuple[str | tuple[str, str], ...]:
    """`parts` with every mark after the line's first visible character spelled out. A path or name
    holding `✓ Valid skill: pdf` would otherwise start a screen line with a verdict of its own where
    the terminal wraps the line (its width is the author's to aim at)."""
    out: list[str | tuple[str, str]] = []
    lead = True  # still in the line's leading blanks
    for p in parts:
        text = p if isinstance(p, str) else p[0]
        keep = 0
        if lead and (rest := text.lstrip()):
            keep, lead = len(text) - len(rest) + (rest[0] in MARKS), False
        elif lead:
            keep = len(text)
        text = text[:keep] + text[keep:].translate(_MARKS_SPELLED)
        out.append(text if isinstance(p, str) else (text, p[1]))
    return tuple(out)


def say(*parts: str | tuple[str, str], err: bool = False) -> None:
    """One line of human output from (text, style) parts: coloured through rich at a terminal,
    plain text otherwise (then rich is not even imported). Never read as rich markup, and what hides
    or moves text is spelled out as in the catalog, a line break too: the parts carry skill authors'
    words, which must not print a line of their own (a forged finding, verdict or command to copy),
    nor a mark of skillyard's past the line's start (see `_one_mark`)."""
    from skillyard._shown import shown

    parts = _one_mark(
        tuple(
            shown(p, one_line=True) if isinstance(p, str) else (shown(p[0], one_line=True), p[1])
            for p in parts
        )
    )
    if not (sys.stderr if err else sys.stdout).isatty():
        click.echo("".join(p if isinstance(p, str) else p[0] for p in parts), err=err)
        return
    from rich.text import Text

    console(stderr=err).print(Text.assemble(*parts))


def err(message: str, style: str = "red") -> None:
    """One line on stderr."""
    say((message, style), err=True)


def warn(message: str) -> None:
    err(message, "yellow")


def fail_usage(message: str) -> NoReturn:
    err(f"error: {message}")
    raise SystemExit(EXIT_USAGE)
