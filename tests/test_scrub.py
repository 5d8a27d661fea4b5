"""Credential scrubbing: provider formats, exact values and their encodings, generic key/value, negatives."""

from __future__ import annotations

import base64
import gzip
import json
import re
import string
import time
import urllib.parse
import zlib

import pytest
from hypothesis import assume, given, settings
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


# --- more encodings of a configured secret -----------------------------------------------------------

SECRET_CHARS = string.ascii_letters + string.digits + string.punctuation
secrets_st = st.text(alphabet=SECRET_CHARS, min_size=8, max_size=40).filter(lambda s: len(set(s)) >= 5)
around_st = st.text(alphabet=string.printable, max_size=120)
B64_RUN = re.compile(r"[A-Za-z0-9+/=_-]+")
B32_RUN = re.compile(r"[A-Za-z2-7=]+")
MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


B64_ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"
B32_ALPHABET = string.ascii_uppercase + "234567"


def _at_all_offsets(run: str, alphabet: str, width: int) -> list[bytes]:
    """Bytes of `run` read as `width`-bit letters, starting at every bit offset (so any alignment)."""
    bits = "".join(format(alphabet.index(c), f"0{width}b") for c in run if c in alphabet)
    out = []
    for o in range(min(8, len(bits))):
        n = (len(bits) - o) // 8
        out.append(int(bits[o : o + n * 8] or "0", 2).to_bytes(n, "big"))
    return out


def _b64_at_offsets(run: str) -> list[bytes]:
    return _at_all_offsets(run.replace("-", "+").replace("_", "/"), B64_ALPHABET, 6)


def _b32_at_offsets(run: str) -> list[bytes]:
    return _at_all_offsets(run.upper(), B32_ALPHABET, 5)


def _unpacked(data: bytes) -> bytes:
    try:
        return zlib.decompressobj(47).decompress(data, 1 << 20)
    except zlib.error:
        return b""


def recoverable(out: str, secret: str) -> bool:
    """True when `secret` can be read back from `out` in any form these tests produce (independent of scrub)."""
    out = MARKER.sub("\x01", out)  # a value such as `SECRET-V` would be read back from the markers
    raw = secret.encode()
    utf16 = secret.encode("utf-16-le")[:-1]
    if secret.lower() in "".join(out.lower().split()):
        return True
    if utf16.decode("latin-1").lower() in out.lower() or raw.hex() in out.lower():
        return True
    for run in B64_RUN.findall(out.replace("\n", "")):  # base64 and gzip streams wrapped over lines
        if any(raw in data or raw in _unpacked(data) for data in _b64_at_offsets(run)):
            return True
    for line in out.splitlines():
        for run in B64_RUN.findall(line):
            for data in _b64_at_offsets(run):
                if raw in data or utf16 in data or raw in _unpacked(data):
                    return True
        for run in B32_RUN.findall(line):
            if any(raw in data for data in _b32_at_offsets(run)):
                return True
    return False


def _wrap(s: str, width: int) -> str:
    return "\n".join(s[i : i + width] for i in range(0, len(s), width))


FORMS = {
    "upper": lambda s, pre, post, k: s.upper(),
    "lower": lambda s, pre, post, k: s.lower(),
    "swapcase": lambda s, pre, post, k: s.swapcase(),
    "groups": lambda s, pre, post, k: " ".join(s[i : i + k] for i in range(0, len(s), k)),
    "fold": lambda s, pre, post, k: _wrap(s, k),
    "tabs-and-newlines": lambda s, pre, post, k: "\t\n ".join(s[i : i + k] for i in range(0, len(s), k)),
    "base32": lambda s, pre, post, k: base64.b32encode((pre + s + post).encode()).decode(),
    "base32-lower-unpadded": lambda s, pre, post, k: (
        base64.b32encode((pre + s + post).encode()).decode().lower().rstrip("=")
    ),
    "utf16-le": lambda s, pre, post, k: (pre + s + post).encode("utf-16-le").decode("latin-1"),
    "utf16-be": lambda s, pre, post, k: (pre + s + post).encode("utf-16-be").decode("latin-1"),
    "utf16-le-base64": lambda s, pre, post, k: base64.b64encode(
        (pre + s + post).encode("utf-16-le")
    ).decode(),
    "utf16-be-base64": lambda s, pre, post, k: base64.b64encode(
        (pre + s + post).encode("utf-16-be")
    ).decode(),
    "gzip-base64": lambda s, pre, post, k: base64.b64encode(
        gzip.compress((pre + s + post).encode())
    ).decode(),
    "gzip-base64-wrapped": lambda s, pre, post, k: _wrap(
        base64.b64encode(gzip.compress((pre + s + post).encode())).decode(), 76
    ),
    "zlib-base64": lambda s, pre, post, k: base64.b64encode(
        zlib.compress((pre + s + post).encode())
    ).decode(),
    "base64-anywhere": lambda s, pre, post, k: base64.b64encode((pre + s + post).encode()).decode(),
    "base64-wrapped": lambda s, pre, post, k: _wrap(base64.b64encode((pre + s + post).encode()).decode(), 76),
    "hex-upper": lambda s, pre, post, k: (pre + s + post).encode().hex().upper(),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@settings(max_examples=40, deadline=None)
@given(
    secret=secrets_st,
    before=around_st,
    after=around_st,
    pre=st.text(alphabet=string.printable, max_size=20),
    post=st.text(alphabet=string.printable, max_size=20),
    k=st.integers(1, 8),
)
def test_secret_never_survives_in_any_form(
    form: str, secret: str, before: str, after: str, pre: str, post: str, k: int
) -> None:
    assume(not recoverable(before + " " + after, secret))
    encoded = FORMS[form](secret, pre, post, k)
    assert recoverable(encoded, secret)  # the form itself is one the checker can read
    out = scrub(f"{before} {encoded} {after}", [secret])
    assert not recoverable(out, secret), (form, out)
    assert "[REDACTED:secret-value" in out


@settings(max_examples=150, deadline=None)
@given(secret=secrets_st, text=st.text(max_size=3000))
def test_text_without_the_secret_is_left_alone(secret: str, text: str) -> None:
    assume(not recoverable(text, secret))
    assert "[REDACTED:secret-value" not in scrub(text, [secret])


@settings(max_examples=60, deadline=None)
@given(
    secret=secrets_st, text=st.text(alphabet=string.ascii_letters + string.digits + "+/=\n ", max_size=3000)
)
def test_base64_looking_text_without_the_secret_is_left_alone(secret: str, text: str) -> None:
    assume(not recoverable(text, secret))
    assert "[REDACTED:secret-value" not in scrub(text, [secret])


@pytest.mark.parametrize(
    ("shown", "rule"),
    [
        ("Hq7pL2xN9vK4mT8w", "secret-value"),
        ("HQ7PL2XN9VK4MT8W", "secret-value-case"),
        ("hq7pl2xn9vk4mt8w", "secret-value-case"),
        ("Hq7p L2xN 9vK4 mT8w", "secret-value-split"),
        ("Hq7pL2xN\n9vK4mT8w", "secret-value-split"),
        (base64.b32encode(b"Hq7pL2xN9vK4mT8w").decode(), "secret-value-base32"),
        (b"Hq7pL2xN9vK4mT8w".hex().upper(), "secret-value-hex"),
        (base64.b64encode(b"Hq7pL2xN9vK4mT8w").decode(), "secret-value-base64"),
        ("Hq7pL2xN9vK4mT8w".encode("utf-16-le").decode("latin-1"), "secret-value-utf16"),
        (
            base64.b64encode("$t = 'Hq7pL2xN9vK4mT8w'".encode("utf-16-le")).decode(),
            "secret-value-utf16-base64",
        ),
        (
            base64.b64encode(gzip.compress(b"user=me\npass=Hq7pL2xN9vK4mT8w\n")).decode(),
            "secret-value-gzip-base64",
        ),
        (base64.b64encode(b"cfg: " + b"Hq7pL2xN9vK4mT8w".hex().encode()).decode(), "secret-value-in-base64"),
    ],
)
def test_rule_names(shown: str, rule: str) -> None:
    out = scrub(f"value: {shown} end", ["Hq7pL2xN9vK4mT8w"])
    assert f"[REDACTED:{rule}]" in out, out
    assert not recoverable(out, "Hq7pL2xN9vK4mT8w")


def test_rule_names_of_escaped_forms() -> None:
    secret = 'Zq8!vR2#m"K5$w\\T9&'
    url = scrub("q=" + urllib.parse.quote(secret, safe=""), [secret])
    assert url == "q=[REDACTED:secret-value-url]"
    js = scrub('{"v": ' + json.dumps(secret) + "}", [secret])
    assert js == '{"v": "[REDACTED:secret-value-json]"}'


def test_split_secret_redacts_the_whole_span_only() -> None:
    out = scrub("key is\nHq7p L2xN\n9vK4 mT8w\nnext line", ["Hq7pL2xN9vK4mT8w"])
    assert out == "key is\n[REDACTED:secret-value-split]\nnext line"


@pytest.mark.parametrize(
    "secret", ["pässwört-Ωmega42", "Straße-geheim-99", "İstanbul-secret-7", "ключ-доступа-2024"]
)
def test_non_ascii_secrets_in_other_cases(secret: str) -> None:
    for shown in (secret, secret.upper(), secret.lower(), " ".join(secret)):
        out = scrub(f"[{shown}]", [secret])
        assert "[REDACTED:secret-value" in out, (shown, out)
        assert shown not in out


def test_encoded_cores_leave_no_partial_letters() -> None:
    secret = "Zq8!vR2#mK5$wT9&"
    for offset in range(5):
        enc = base64.b32encode(b"x" * offset + secret.encode()).decode()
        out = scrub(f"<{enc}>", [secret])
        prefix = enc[: offset * 8 // 5]
        assert out == f"<{prefix}[REDACTED:secret-value-base32]>", (offset, out)


# --- hostile input stays bounded -------------------------------------------------------------------


def _timed(text: str, secrets: list[str]) -> tuple[str, float]:
    t = time.perf_counter()
    out = scrub(text, secrets)
    return out, time.perf_counter() - t


SECRETS5 = [
    "Zq8vR2mK5wT9xLp3",
    "hunter2-but-longer-0042",
    "a8F3kL0qP2mZ7xW1e9Rt",
    "correct horse staple",
    "S3cr3t_DB!",
]


@pytest.mark.parametrize(
    "text",
    [
        "a" * 2_000_000,
        "QUJD" * 500_000,
        "\n".join(["abcdefghijklmnopqrstuvwxyz0123"] * 60_000),
        " \t\n" * 600_000,
        "H4sI" * 400_000,
        "H4sIAAAAAAAA " * 100_000,
        "eJzz" * 400_000 + "=",
        "\0A" * 800_000,
        "ZQ8VR2MK5WT9XLP" * 100_000,
        "Zq8v R2mK 5wT9 xLp " * 80_000,
        "aeJ" * 600_000,
        "aeJ " * 500_000,
    ],
    ids=[
        "letters",
        "base64",
        "wrapped-lines",
        "whitespace",
        "gzip-magic",
        "gzip-headers",
        "zlib",
        "nul",
        "near",
        "split-near",
        "zlib-mid-run",
        "zlib-decoys",
    ],
)
def test_hostile_text_without_secrets_is_fast(text: str) -> None:
    out, took = _timed(text, SECRETS5)
    assert "[REDACTED:secret-value" not in out
    assert took < 5.0, took


def test_gzip_bomb_is_bounded() -> None:
    bomb = gzip.compress(b"\0" * (50 << 20) + b"Zq8vR2mK5wT9xLp3")
    text = "x " + base64.b64encode(bomb).decode() + " y"
    out, took = _timed(text, SECRETS5)
    assert took < 5.0, took
    # The value lies beyond the decompression bound: the run stays (documented limit), nothing blows up.
    assert out.startswith("x ") and out.endswith(" y")


def test_many_gzip_runs_are_bounded_and_a_secret_in_one_is_found() -> None:
    blobs = [base64.b64encode(gzip.compress(f"line {i}\n".encode() * 50)).decode() for i in range(2000)]
    leak = base64.b64encode(gzip.compress(b"Zq8vR2mK5wT9xLp3")).decode()
    out, took = _timed("\n".join([leak, *blobs]), SECRETS5)
    assert took < 5.0, took
    assert out.startswith("[REDACTED:secret-value-gzip-base64]\n")


def test_huge_base64_run_with_gzip_inside() -> None:
    payload = gzip.compress(b"header\n" + b"Zq8vR2mK5wT9xLp3" + b"\n" + bytes(range(256)) * 40_000)
    text = "data:" + base64.b64encode(payload).decode()
    out, took = _timed(text, SECRETS5)
    assert took < 5.0, took
    assert out == "data:[REDACTED:secret-value-gzip-base64]"


def test_gzip_after_a_flood_of_plain_base64_is_still_found() -> None:
    flood = [base64.b64encode(f"plain text line number {i}".encode()).decode() for i in range(5000)]
    leak = base64.b64encode(gzip.compress(b"token Zq8vR2mK5wT9xLp3")).decode()
    out = scrub(" ".join([*flood, leak]), SECRETS5)
    assert out.endswith(" [REDACTED:secret-value-gzip-base64]")


@pytest.mark.parametrize("shift", range(-24, 8))
def test_offsets_map_back_across_4k_chunks(shift: int) -> None:
    secret = "Hq7pL2xN9vK4mT8w"
    shown = "Hq7p  L2xN\n\t9vK4 mT8w"
    head = ("word " * 1000)[: 4096 + shift] + "  \n"
    text = head + shown + " \n tail " + "x " * 3000 + shown.upper() + " end"
    out = scrub(text, [secret])
    expected = (
        head + "[REDACTED:secret-value-split] \n tail " + "x " * 3000 + "[REDACTED:secret-value-split] end"
    )
    assert out == expected


def test_base64_of_non_ascii_text_holding_a_secret_in_another_case() -> None:
    secret = "ключ-доступа-2024"
    blob = base64.b64encode(f"пароль: {secret.upper()}\n".encode()).decode()
    assert scrub(f"cfg {blob} ok", [secret]) == "cfg [REDACTED:secret-value-in-base64] ok"


def _folded(s: str) -> str:
    # folded as the scrubber folds (U+0130 to one "i", not str.lower's two code points): a value
    # must keep 8 characters other than whitespace to be matched split or case-changed
    return "".join(s.replace("\u0130", "i").lower().split())


@settings(max_examples=100, deadline=None)
@given(
    secret=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=8, max_size=30),
    before=st.text(max_size=50),
    after=st.text(max_size=50),
    k=st.integers(1, 5),
    how=st.sampled_from(["plain", "upper", "lower", "split"]),
)
def test_any_unicode_secret_in_any_case_or_split(
    secret: str, before: str, after: str, k: int, how: str
) -> None:
    assume(len(_folded(secret)) >= 8 and len(set(_folded(secret))) >= 4)
    assume(_folded(secret) not in _folded(before + " " + after))
    shown = {
        "plain": secret,
        "upper": secret.upper(),
        "lower": secret.lower(),
        "split": " ".join(secret[i : i + k] for i in range(0, len(secret), k)),
    }[how]
    out = scrub(f"{before} {shown} {after}", [secret])
    assert "[REDACTED:secret-value" in out, (shown, out)
    assert _folded(shown) not in _folded(MARKER.sub("\x01", out)), out
