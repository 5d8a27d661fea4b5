"""Hostile output against the scrubber: no rule may cost quadratic time or memory, and nothing a run
returns (file names included) carries a secret.

A PEM header with no END line, or a run like `eyJ-eyJ-...` or `sk-sk-...`, used to make its rule
read the rest of the text again from every start: 64 KiB of such output (one stream at the default
cap) took seconds to scrub and a 4 MiB inlined output file hours. The sizes below make the old
rules take many minutes, so the generous bound cannot be met by chance.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

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


def test_a_long_run_of_a_repetitive_secret_is_one_span() -> None:
    """A configured value such as `xxxxxxxx` occurs at every offset of a run of `x`: the spans were
    mapped and kept one by one, close to a gigabyte for a 4 MiB output file. Overlapping occurrences
    now make one span (the same redaction)."""
    import tracemalloc

    text = "before " + "x" * 1_000_000 + " after"
    tracemalloc.start()
    try:
        out = scrub(text, ["xxxxxxxx"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out == "before [REDACTED:secret-value] after"
    assert peak < 40_000_000, peak  # the text and its folded copies; each span cost over 200 bytes


@pytest.mark.parametrize(
    ("text", "secret", "want"),
    [
        ("xaaaaaaaaay", "aaaaaaaa", "x[REDACTED:secret-value]y"),
        ("abcabcabcab!", "abcabcab", "[REDACTED:secret-value]!"),
        ("passwordpassword", "password", "[REDACTED:secret-value][REDACTED:secret-value]"),
        ("AAAAAAAAAA", "aaaaaaaa", "[REDACTED:secret-value-case]"),
        ("aaaa aaaa aaaa", "aaaaaaaa", "[REDACTED:secret-value-split]"),
    ],
)
def test_overlapping_occurrences_are_redacted_whole(text: str, secret: str, want: str) -> None:
    assert scrub(text, [secret]) == want


def test_output_file_names_and_warnings_are_scrubbed(tmp_path: Path) -> None:
    """What a run returns is scrubbed of the run's secrets: file names and the warnings that name
    files too, not only stdout, stderr and contents."""
    from skillyard.execution import FilesystemArtifactStore, RunRequest, SkillRunner
    from skillyard.model import Skill

    secret = "Zq8vR2mK7xW4pL9sT3nB6cY1dF5gH0jE"
    d = tmp_path / "skills" / "demo"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: demo\ndescription: test skill\n---\nRun it.\n")
    skill = Skill(name="demo", description="test skill", path=d / "SKILL.md")
    runner = SkillRunner(
        executor="local",
        workspace_root=tmp_path / "ws",
        artifact_store=FilesystemArtifactStore(tmp_path / "artifacts"),
        timeout=30,
    )
    try:
        req = RunRequest.from_arguments(
            {
                "skill": "demo",
                "env": {"API_TOKEN": secret},
                "command": 'echo hi > "$OUTPUT_DIR/$API_TOKEN.txt"; head -c 5000 /dev/zero > "$OUTPUT_DIR/big-$API_TOKEN"',
                "outputs": {"globs": ["$OUTPUT_DIR/*"], "inline": True, "max_file_bytes": 1000, "save": True},
            }
        )
        res = runner.run(skill, req, session_id="s").to_dict()
    finally:
        runner.close()
    text = json.dumps(res)
    assert secret not in text and secret[:12] not in text, text
    assert len(res["output_files"]) == 2 and any("[REDACTED:" in f["name"] for f in res["output_files"])
    assert any("[REDACTED:" in w for w in res["warnings"]), res["warnings"]
