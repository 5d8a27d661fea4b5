"""Credential scrubbing: provider formats, exact values and their encodings, generic key/value, negatives."""

from __future__ import annotations

import base64
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.execution.scrub import looks_secret_name, scrub

# Fake keys are assembled at runtime so secret scanners do not flag this file.
A36 = "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4hJ6"
FAKES = {
    "anthropic-api-key": "sk-ant-api03-" + ("Xy7_Qw-" * 14)[:93] + "AA",
    "openai-api-key": "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7" + "T3BlbkFJ" + "Op8Qr9St0Uv1Wx2Yz3",
    "github-token": "ghp_" + A36,
    "gitlab-token": "glpat-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm",
    "npm-token": "npm_" + A36,
    "pypi-token": "pypi-AgEIcHlwaS5vcmc" + "Q" * 60,
    "huggingface-token": "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "aws-access-key": "AKIA" + "QWERTYUIOPASDFGH",
    "google-api-key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "slack-token": "xoxb-" + "1234567890123-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    "stripe-key": "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9"
    + "."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    + "."
    + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("rule", sorted(FAKES))
def test_provider_formats_are_replaced_whole(rule: str) -> None:
    secret = FAKES[rule]
    out = scrub(f"before {secret} after")
    assert secret not in out
    assert f"[REDACTED:{rule}]" in out
    assert out.startswith("before ") and out.endswith(" after")
    # No prefix of the secret survives next to the marker.
    assert secret[:6] not in out


def test_pem_private_key_multiline_and_truncated() -> None:
    body = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" + str(i) for i in range(6)])
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    out = scrub(f"key:\n{pem}\ndone")
    assert "MIIEvQ" not in out and "[REDACTED:private-key]" in out and out.endswith("done")
    cut = f"-----BEGIN PRIVATE KEY-----\n{body}"  # a capture cut before the END line
    assert "MIIEvQ" not in scrub(cut)


def test_url_userinfo() -> None:
    out = scrub("clone https://alice:s3cr3tP4ss@git.example.com/repo.git now")
    assert "s3cr3tP4ss" not in out and "alice" not in out
    assert "https://[REDACTED:url-credentials]@git.example.com/repo.git" in out


def test_exact_env_values_and_encodings(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "Zq8!vR2#mK5$wT9&"
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    for offset in range(3):
        enc = base64.b64encode(b"x" * offset + secret.encode() + b"tail").decode()
        out = scrub(f"blob {enc} end")
        core_start = -(-offset * 8 // 6)
        core = base64.b64encode(b"\0" * offset + secret.encode()).decode()[core_start : core_start + 12]
        assert core not in out, (offset, out)
    assert secret not in scrub(f"value={secret}")
    assert urllib.parse.quote(secret, safe="") not in scrub("q=" + urllib.parse.quote(secret, safe=""))
    assert secret.encode().hex() not in scrub("hex " + secret.encode().hex())


def test_extra_secrets_and_short_values_skipped() -> None:
    assert (
        scrub("the value is opensesame42 ok", ["opensesame42"]) == "the value is [REDACTED:secret-value] ok"
    )
    assert scrub("the value is abc ok", ["abc"]) == "the value is abc ok"


def test_generic_key_value() -> None:
    out = scrub('DB_PASSWORD=Xk29dLq0Zp and "api_key": "a8F3kL0qP2mZ7xW1" done')
    assert "Xk29dLq0Zp" not in out and "a8F3kL0qP2mZ7xW1" not in out
    assert "DB_PASSWORD=[REDACTED:generic-secret]" in out
    assert '"api_key": "[REDACTED:generic-secret]"' in out
    assert "Bearer [REDACTED:bearer-token]" in scrub("Authorization: Bearer Qm9vYXJGb29CYXIxMjM0NTY3ODk")


@pytest.mark.parametrize(
    "text",
    [
        "tokens: 12345678 were used",
        "secretary=Margaret Smith",
        "password: <your-password-here>",
        "api_key=${OPENAI_API_KEY}",
        "token=xxxxxxxxxxxx",
        "PATH=/usr/local/bin:/usr/bin",
        "PWD=/workspace/skills/demo",
        "The secret to good bread is patience.",
        "sk-this-is-not-a-key",
        "passwords must be at least 12 characters",
    ],
)
def test_prose_and_placeholders_survive(text: str) -> None:
    assert scrub(text) == text


def test_secret_env_names() -> None:
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "MY_APIKEY"):
        assert looks_secret_name(name), name
    for name in ("PATH", "HOME", "PWD", "KEYBOARD_LAYOUT", "LANG", "TOKEN_FILE"):
        assert not looks_secret_name(name), name


def test_rejects_non_str() -> None:
    with pytest.raises(TypeError):
        scrub(b"bytes")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_known_secret_never_survives(prefix: str, suffix: str) -> None:
    secret = "Hq7pL2xN9vK4mT8w"
    out = scrub(prefix + secret + suffix, [secret])
    assert secret not in out


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=2000))
def test_never_crashes_and_is_stable(text: str) -> None:
    once = scrub(text)
    assert isinstance(once, str)
    assert scrub(once) == once
