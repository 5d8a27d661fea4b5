"""A clipper: text tested for a wallet address's shape, then the clipboard rewritten. The test written
as `startswith("0x")`, `\\A0x` or `^(?:0x)`, and the clipboard written with `xclip -sel clip` or
`xsel -b`, are the same clipper."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner_support import blocked


@pytest.mark.parametrize(
    ("rel", "code"),
    [
        ("watch.py", "if text.startswith('0x') and len(text) == 42:\n    pyperclip.copy(MINE)\n"),
        (
            "watch.py",
            "ADDR = re.compile(r'\\A0x[0-9a-fA-F]{40}\\Z')\nif ADDR.match(t):\n    pyperclip.copy(MINE)\n",
        ),
        (
            "watch.js",
            "if (t.startsWith('bc1')) {\n  clipboardy.writeSync(MINE); navigator.clipboard.writeText(MINE)\n}\n",
        ),
        (
            "watch.sh",
            "t=$(xclip -o -sel clip)\n"
            "if echo \"$t\" | grep -Eq '^(0x)[0-9a-fA-F]{40}$'; then\n"
            '  printf %s "$MINE" | xclip -sel clip\nfi\n',
        ),
        (
            "watch.sh",
            'if echo "$t" | grep -Eq \'^0x[0-9a-fA-F]{40}$\'; then\n  printf %s "$MINE" | xsel -b\nfi\n',
        ),
    ],
)
def test_a_clipper_blocks(tmp_path: Path, rel: str, code: str) -> None:
    assert "SY-CRED-009" in blocked(tmp_path, {rel: code})


@pytest.mark.parametrize(
    ("rel", "code"),
    [
        ("check.py", "if addr.startswith('0x') and len(addr) == 42:\n    print('valid address')\n"),
        ("show.sh", "if echo \"$t\" | grep -Eq '^0x[0-9a-fA-F]{40}$'; then\n  xsel -b -o\nfi\n"),
    ],
)
def test_an_address_check_without_a_clipboard_write_does_not_block(
    tmp_path: Path, rel: str, code: str
) -> None:
    assert blocked(tmp_path, {rel: code}) == set()
