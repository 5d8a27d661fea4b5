"""What a terminal shows of the lines a program sends it: shared by the tests of wrapped output."""

from __future__ import annotations

from rich.cells import cell_len


def wrapped(lines: list[str], columns: int) -> list[str]:
    """The screen lines of `lines` on a terminal `columns` wide: a line longer than the terminal is
    continued on the next, as the terminal wraps it (wide characters counted in cells)."""
    screen: list[str] = []
    for line in lines:
        row = ""
        for ch in line:
            if cell_len(row + ch) > columns:
                screen.append(row)
                row = ""
            row += ch
        screen.append(row)
    return screen
