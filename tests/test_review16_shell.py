"""Shell functions handed a top folder (`purge "$HOME"`) are read again with it: that costs the total
of the calls read, counted over nested calls (never their product), and a call past what the reader
follows is a finding, not a silent stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner_support import blocked, skill_dir
from skillyard.install import scan_path


def _nested(width: int) -> str:
    out = ["f4() {", *(f'  rm -rf "$1/d{i}"' for i in range(width)), "}"]
    for k in (3, 2, 1):
        out += [f"f{k}() {{", *(f'  f{k + 1} "$1" x{i}' for i in range(width)), "}"]
    return "\n".join([*out, *(f'f1 "$HOME" y{i}' for i in range(width))]) + "\n"


def test_nested_calls_handed_home_cost_their_total_not_their_product(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillyard.install.scanner import _shell

    walks = [0]
    walk = _shell._Reader.walk

    def counted(self: _shell._Reader, node: object) -> None:
        walks[0] += 1
        walk(self, node)

    monkeypatch.setattr(_shell._Reader, "walk", counted)
    scan_path(skill_dir(tmp_path, {"clean.sh": _nested(24)}))  # 24^3 body reads without a bound
    assert walks[0] <= 4 * (_shell.MAX_CALLS_READ + 1)


def test_a_wipe_after_many_harmless_calls_handed_home_blocks(tmp_path: Path) -> None:
    sh = ["noop() {", '  ls "$1" >/dev/null', "}", "wipe() {", '  rm -rf "$1"', "}"]
    sh += [f'noop "$HOME" d{i}' for i in range(70)] + ['wipe "$HOME"']
    assert blocked(tmp_path, {"clean.sh": "\n".join(sh) + "\n"})


def test_a_wipe_handed_home_through_four_functions_blocks(tmp_path: Path) -> None:
    sh = 'a() { b "$1"; }\nb() { c "$1"; }\nc() { d "$1"; }\nd() { rm -rf "$1"; }\na "$HOME"\n'
    assert blocked(tmp_path, {"clean.sh": sh})


def test_a_function_listing_home_does_not_block(tmp_path: Path) -> None:
    sh = 'show() {\n  ls -la "$1"\n}\nshow "$HOME"\nshow "$HOME" again\n'
    assert blocked(tmp_path, {"list.sh": sh}) == set()


def test_a_script_of_many_writes_reads_its_text_once_for_the_programs_it_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillyard.install.scanner import _shell

    reads = [0]
    pattern = _shell._CHECKED

    class Counted:
        def findall(self, text: str) -> list[tuple[str, str]]:
            reads[0] += 1
            return pattern.findall(text)

    monkeypatch.setattr(_shell, "_CHECKED", Counted())
    sh = "command -v jq || exit 1\n" + "".join(f"echo {i} >> out/log{i}.txt\n" for i in range(500))
    scan_path(skill_dir(tmp_path, {"write.sh": sh}))
    assert reads[0] <= 2  # once per reader of the file, not once per write
