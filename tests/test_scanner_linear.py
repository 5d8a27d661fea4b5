"""The scanner's work grows with the size of what it reads, not faster.

A skill is hostile input: a file built so that a rule or a reader takes minutes would hold an
install or an audit until its time budget runs out. These tests check the shapes that made the
scanner quadratic or exponential, by their structure or by counting work, never by timing.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from skillyard.install import load_rules, scan_path

#: A pattern that starts with a repeated character class, or `.`: the regex engine tries it from
#: every position of a long run of such characters, so one 40 KB base64 token costs 40,000 passes
#: of up to 40,000 characters each.
_UNANCHORED_RUN = re.compile(r"^(?:\[(?:\\.|[^\]\\])+\]|\\[SsWwDd]|\.)(?:[*+]\??|\{(\d*),\d*\}\??)")


def _patterns() -> list[tuple[str, str]]:
    out = []
    for rule in load_rules():
        for kind in ("match_src", "unless_src", "also_src", "then_src"):
            out.extend((rule.id, p) for p in getattr(rule, kind))
    return out


@pytest.mark.parametrize(("rule_id", "pattern"), _patterns())
def test_no_rule_pattern_starts_with_an_unanchored_run(rule_id: str, pattern: str) -> None:
    m = _UNANCHORED_RUN.match(pattern)
    if m is None:
        return
    # a run that must be long to match at all (a long base64 blob) ends its search at its first
    # match and costs at most that length per position when there is none
    assert m.group(1) and int(m.group(1)) >= 16, (
        f"{rule_id}: {pattern[:60]!r} starts with a repeated character class; anchor it with a "
        "lookbehind such as (?<![^\\s]) so it is tried only where a token starts"
    )


def _skill(tmp: Path, name: str, text: str) -> Path:
    (tmp / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n", encoding="utf-8")
    (tmp / name).write_text(text, encoding="utf-8")
    return tmp


def test_a_long_token_near_an_agent_file_name_is_still_read(tmp_path: Path) -> None:
    # the anchored pattern still finds the write it is for, inside a long line
    blob = "A" * 5000
    text = f'x = "{blob}"; Path("docs/CLAUDE.md").write_text(x)\n'
    report = scan_path(_skill(tmp_path, "w.py", text))
    assert "SY-PER-007" in {f.rule_id for f in report.findings}


def _printed_calls(tmp: Path, monkeypatch: pytest.MonkeyPatch, depth: int) -> int:
    from skillyard.install.scanner import _shell

    calls = [0]
    real = _shell._Reader._printed

    def counted(self: object, node: object) -> str | None:
        calls[0] += 1
        return real(self, node)  # type: ignore[arg-type]

    monkeypatch.setattr(_shell._Reader, "_printed", counted)
    skill = tmp / str(depth)
    skill.mkdir()
    scan_path(_skill(skill, "f.sh", "x=" + "$(echo " * depth + "a" + ")" * depth + "\n"))
    return calls[0]


def test_nested_command_substitutions_are_read_once_per_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each level used to read every level inside it again, twice: 2.7 times the work per level
    small = _printed_calls(tmp_path, monkeypatch, 8)
    large = _printed_calls(tmp_path, monkeypatch, 16)
    assert small > 0 and large <= 6 * small, (small, large)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # each assignment's value holds every assignment after it: the JavaScript reader weighs
        # each value whole, so the work grows with the square of the nesting
        ("nested.js", 'x = "a" + ' * 4000 + '"b";\n'),
    ],
)
def test_a_reader_stops_at_the_scan_budget_and_the_skill_is_blocked(
    tmp_path: Path, name: str, text: str
) -> None:
    # the budget is the scanner's own: a reader that would run past it stops there, and the skill
    # is reported as not fully scanned (which blocks) instead of holding the install
    started = time.monotonic()
    report = scan_path(_skill(tmp_path, name, text), max_seconds=0.5)
    # not a speed target: the budget is honoured (this file alone takes a minute to read whole)
    assert time.monotonic() - started < 20
    timed_out = [f for f in report.findings if "time limit" in (f.snippet or "")]
    assert timed_out and timed_out[0].file == name and report.blocked


def test_a_long_array_assignment_is_searched_once_not_per_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # whether an assignment runs a command was asked again for every word of its value: an array of
    # 100,000 character codes searched its own 400 KB text 100,000 times (25 s to audit)
    from skillyard.install.scanner import _shell

    searches = [0]

    class Counted(str):
        def __contains__(self, part: object) -> bool:
            searches[0] += 1
            return super().__contains__(part)  # type: ignore[operator]

    real = _shell._Reader.text
    monkeypatch.setattr(_shell._Reader, "text", lambda self, node: Counted(real(self, node)))
    words = " ".join(str(32 + i % 90) for i in range(2000))
    scan_path(_skill(tmp_path, "codes.sh", f"x=({words})\necho done\n"))
    assert 0 < searches[0] < 100
