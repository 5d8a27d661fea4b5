"""A rule's keywords only rule out lines the rule cannot match: any whitespace a pattern's `\\s`
takes (file separators, NEL) stands for the space a keyword holds."""

from __future__ import annotations

import dataclasses

import pytest

from skillyard.install import load_rules
from skillyard.install.scanner import scan_text

_RULES = load_rules()
_NO_KEYWORDS = tuple(dataclasses.replace(r, keywords=None) for r in _RULES)
#: whitespace to `str.split` and to `\s` in a pattern, which NFKC leaves as it is
_SPACES = ("\x1c", "\x1f", "\x85", "\t \t")


def _found(text: str, rel: str, rules: tuple) -> set[tuple[str, int]]:
    return {(f.rule_id, f.line) for f in scan_text(text, rel, rules=rules)}


def test_a_login_item_spaced_with_a_separator_is_still_found() -> None:
    text = 'osascript -e \'tell application "System Events" to make login\x1citem at end with properties {path:"/tmp/a.app"}\'\n'
    assert "SY-PER-002" in {f.rule_id for f in scan_text(text, "setup.sh")}


@pytest.mark.parametrize("space", _SPACES)
def test_keywords_change_no_finding_of_a_rule_example_however_it_is_spaced(space: str) -> None:
    missed = []
    for rule in _RULES:
        if rule.keywords is None:
            continue
        for ex in rule.positives:
            text = str(ex).replace(" ", space)
            with_keywords = _found(text, "run.sh", _RULES)
            without = _found(text, "run.sh", _NO_KEYWORDS)
            if with_keywords != without:
                missed.append((rule.id, text[:60], sorted(without - with_keywords)))
    assert missed == []
