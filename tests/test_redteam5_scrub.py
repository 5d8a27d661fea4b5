"""Hostile output against the provider-format rules of the scrubber: no rule may cost quadratic time.

A PEM header with no END line, or a run like `eyJ-eyJ-...` or `sk-sk-...`, used to make its rule
read the rest of the text again from every start: 64 KiB of such output (one stream at the default
cap) took seconds to scrub and a 4 MiB inlined output file hours. The sizes below make the old
rules take many minutes, so the generous bound cannot be met by chance.
"""

from __future__ import annotations

import time

import pytest

from skillyard.execution.scrub import scrub

MIB = 1 << 20


def _repeat(unit: str, size: int = MIB) -> str:
    return (unit * (size // len(unit) + 1))[:size]


@pytest.mark.parametrize(
    "unit",
    [
        "-----BEGIN PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY----- ",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw\n-----END CERTIFICATE-----\n",
        "eyJ-",
        "eyJhbGciOiJIUzI1NiJ9.eyJ-",
        "sk-",
        "sk-abcdefghijklmnopqrstT3BlbkFJ-",
    ],
    ids=[
        "pem-headers",
        "pem-headers-spaced",
        "pem-wrong-end",
        "jwt-dashes",
        "jwt-second-part",
        "sk",
        "sk-near",
    ],
)
def test_hostile_runs_are_scrubbed_in_linear_time(unit: str) -> None:
    text = _repeat(unit)
    start = time.process_time()
    out = scrub(text)
    took = time.process_time() - start
    assert isinstance(out, str)
    assert took < 10.0, took  # the quadratic rules needed 15 minutes and more for 1 MiB


FAKE_BODY = "\n".join("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + c for c in "abcdef")
FAKE_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
FAKE_OPENAI = "sk-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7" + "T3BlbkFJ" + "Op8Qr9St0Uv1Wx2Yz3"


@pytest.mark.parametrize(
    "text",
    [
        f"-----BEGIN PRIVATE KEY-----\n{FAKE_BODY}\n-----END PRIVATE KEY-----\n",
        f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{FAKE_BODY}\n-----END ENCRYPTED PRIVATE KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        f"-----BEGIN EC PRIVATE KEY-----\n{FAKE_BODY}\n-----END EC PRIVATE KEY-----",
        f"-----BEGIN PRIVATE KEY-----\n{FAKE_BODY}",  # cut before the END line
        f"-----BEGIN PRIVATE KEY-----\n-----BEGIN PRIVATE KEY-----\n{FAKE_BODY}\n-----END PRIVATE KEY-----",
    ],
)
def test_private_keys_are_still_redacted(text: str) -> None:
    out = scrub(f"key:\n{text}\n")
    assert "[REDACTED:private-key]" in out and "MIIEvQ" not in out and out.startswith("key:\n")


@pytest.mark.parametrize("before", ["", " ", "Bearer ", "token=", "\n", "(", '"', "/", "=", ":"])
def test_tokens_are_still_redacted_where_a_run_starts(before: str) -> None:
    for token in (FAKE_JWT, FAKE_OPENAI):
        out = scrub(f"{before}{token} after")
        assert token[:12] not in out, out
