"""Credential scrubbing of anything a command prints before a model sees it.

Layers, applied in order:

1. exact values: secret-looking host environment variables plus `extra_secrets`,
   also in base64 (all three alignments, standard and URL-safe), URL-encoded,
   JSON-escaped and hex forms; values shorter than 8 characters are skipped;
2. provider formats (PEM private keys, Anthropic, OpenAI, GitHub, GitLab, AWS,
   Google, Slack, Stripe, npm, PyPI, Hugging Face, JWT, URL userinfo);
3. a generic `key=value` / `key: value` rule for secret-looking key names, with
   word boundaries, a minimum length, an entropy floor and placeholder exclusions.

Each match is replaced whole with `[REDACTED:<rule>]`: no prefix of the secret
survives. Callers scrub before truncating, so a cut can never expose a partial
secret that the rules would no longer recognise.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import re
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

#: Values shorter than this are never redacted by exact match (too many false hits).
MIN_SECRET_LEN = 8
#: Environment variable names whose values count as secrets.
SECRET_ENV_NAME = re.compile(
    r"(?i)(?:^|_)(?:KEY|APIKEY|SECRET|TOKEN|PASSWORD|PASSWD|PWD|PASS|CREDENTIALS?|AUTH|PRIVATE|SESSION|COOKIE|DSN)(?:_|$)"
    r"|API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD"
)
#: Not secrets even though the name matches (paths, toggles).
_ENV_NAME_EXCLUDED = re.compile(r"(?i)(?:_PATH|_FILE|_DIR|_URL_BASE|_ENABLED|_TYPE|_ID)$|^PWD$|^OLDPWD$")

_PROVIDER_RULES: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"|-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s]{16,}",
    ),
    ("anthropic-api-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    (
        "openai-api-key",
        r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
    ),
    ("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}"),
    ("gitlab-token", r"\bgl(?:pat|dt|ptt|rt|cbt|oas|soat|ft|imt|agent)-[\w-]{20,}(?:\.[\w-]+)?"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[\w-]{50,1000}"),
    ("huggingface-token", r"\bhf_[A-Za-z]{34}\b"),
    ("aws-access-key", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"),
    ("google-api-key", r"\bAIza[\w-]{35}(?![\w-])"),
    ("google-oauth-token", r"\bya29\.[\w-]{20,}"),
    ("slack-token", r"\bxox[abposer]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,}"),
)
#: Literal substrings one of which must occur for a rule to run (cheap `in` checks before any regex).
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "anthropic-api-key": ("sk-ant-",),
    "openai-api-key": ("sk-",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": (
        "glpat-",
        "gldt-",
        "glptt-",
        "glrt-",
        "glcbt-",
        "gloas-",
        "glsoat-",
        "glft-",
        "glimt-",
        "glagent-",
    ),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-AgEIcHlwaS5vcmc",),
    "huggingface-token": ("hf_",),
    "aws-access-key": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    "google-api-key": ("AIza",),
    "google-oauth-token": ("ya29.",),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "stripe-key": ("_test_", "_live_", "_prod_"),
    "jwt": ("eyJ",),
}
_PROVIDERS = [(name, re.compile(rx), _NEEDLES[name]) for name, rx in _PROVIDER_RULES]
#: Lower-case needles of the keyword rules.
_KEY_NEEDLES = (
    "token",
    "key",
    "secret",
    "passw",
    "passphrase",
    "authorization",
    "bearer",
    "cookie",
    "credential",
    "session",
)
_BEARER_NEEDLES = ("bearer", "basic", "token")
_ALL_NEEDLES = sorted(
    {n.lower() for ns in _NEEDLES.values() for n in ns} | set(_KEY_NEEDLES) | set(_BEARER_NEEDLES) | {"://"},
    key=lambda n: (-len(n), n),
)
#: One pass over the lower-cased text tells which rules can possibly match.
_GATE = re.compile("|".join(re.escape(n) for n in _ALL_NEEDLES))

# scheme://user:password@host → the userinfo part is replaced.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{1,20}://)([^\s:/@\"'<>]{1,256}:[^\s/@\"'<>]{1,256})@")

_KEYWORDS = (
    r"token|api[_-]?key|apikey|secret|client[_-]?secret|password|passwd|passphrase|authorization|auth[_-]?token"
    r"|bearer|cookie|credentials?|access[_-]?key|private[_-]?key|secret[_-]?key|session[_-]?id"
)
# A key name that ends in a keyword (MY_API_KEY, db.password, "secret"), then := and the value.
# Anchored on the keyword itself (a prefix such as `MY_` stays in the text untouched): no backtracking over names.
_GENERIC_RX = (
    r"(?<![A-Za-z0-9])(" + _KEYWORDS + r")(?![A-Za-z0-9])"
    r"(\"|')?(\s*(?::|=|=>|:=)\s*)"
    r"(?:\"([^\"\n]{1,1024})\"|'([^'\n]{1,1024})'|([^\s\"',;&<>{}()\[\]]{1,1024}))"
)
# Authorization headers and bare bearer tokens: `Bearer <token>`, `Basic <b64>`.
_BEARER_RX = r"\b(bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{16,})"
# Case-insensitive matching is slow in `re`; these run case-sensitively on the lower-cased text
# (same offsets), the `(?i)` forms only when lower-casing changes the length.
_GENERIC = re.compile(_GENERIC_RX)
_GENERIC_CI = re.compile("(?i)" + _GENERIC_RX)
_BEARER = re.compile(_BEARER_RX)
_BEARER_CI = re.compile("(?i)" + _BEARER_RX)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\[REDACTED|<[^>]*>$|\$\{?[A-Za-z_]|%\(?[A-Za-z_]|\{\{|x{4,}|\*{3,}|\.{3}|(?:your|my|example|sample|dummy|fake|test)"
    r"[_-]|changeme|placeholder|redacted|none$|null$|true$|false$|undefined$|required$|optional$|env\b)"
)


def _entropy(s: str) -> float:
    counts: dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_secret_name(name: str) -> bool:
    """True when an environment variable name suggests its value is a credential."""
    return bool(SECRET_ENV_NAME.search(name)) and not _ENV_NAME_EXCLUDED.search(name)


def secret_env_values(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of secret-looking variables in `env` (default: the host environment)."""
    env = os.environ if env is None else env
    return [
        v for k, v in env.items() if isinstance(v, str) and len(v) >= MIN_SECRET_LEN and looks_secret_name(k)
    ]


def _b64_cores(raw: bytes) -> set[str]:
    """Base64 substrings that appear whenever `raw` is encoded, whatever its offset in the stream."""
    out: set[str] = set()
    for offset in range(3):
        enc = base64.b64encode(b"\0" * offset + raw).decode()
        start = -(-offset * 8 // 6)  # first char made only of secret bits
        end = ((offset + len(raw)) * 8) // 6  # last char made only of secret bits
        core = enc[start:end]
        if len(core) >= MIN_SECRET_LEN:
            out.add(core)
            out.add(core.replace("+", "-").replace("/", "_"))
    return out


def _forms(secret: str) -> set[str]:
    forms = {secret}
    raw = secret.encode("utf-8")
    forms |= _b64_cores(raw)
    forms.add(urllib.parse.quote(secret, safe=""))
    forms.add(urllib.parse.quote_plus(secret, safe=""))
    forms.add(json.dumps(secret)[1:-1])
    forms.add(binascii.hexlify(raw).decode())
    return {f for f in forms if len(f) >= MIN_SECRET_LEN}


@lru_cache(maxsize=64)
def _exact_forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    forms: set[str] = set()
    for s in secrets:
        forms |= _forms(s)
    # Longest first so a value is never half-replaced by a shorter overlapping form.
    return tuple(sorted(forms, key=lambda f: (-len(f), f)))


def _group(m: re.Match[str], text: str, i: int) -> str | None:
    a, b = m.span(i)
    return None if a < 0 else text[a:b]


def _generic_sub(m: re.Match[str], text: str) -> str | None:
    value = _group(m, text, 4) or _group(m, text, 5) or _group(m, text, 6) or ""
    if len(value) < MIN_SECRET_LEN or _PLACEHOLDER.search(value) or _entropy(value) < 2.5:
        return None
    key, quote, sep = _group(m, text, 1) or "", _group(m, text, 2) or "", _group(m, text, 3) or ""
    vq = '"' if m.span(4)[0] >= 0 else ("'" if m.span(5)[0] >= 0 else "")
    return f"{key}{quote}{sep}{vq}[REDACTED:generic-secret]{vq}"


def _bearer_sub(m: re.Match[str], text: str) -> str | None:
    value = _group(m, text, 2) or ""
    if _PLACEHOLDER.search(value) or _entropy(value) < 3.0:
        return None
    return f"{_group(m, text, 1)} [REDACTED:bearer-token]"


def _sub_folded(
    fast: re.Pattern[str], slow: re.Pattern[str], text: str, fn: Callable[[re.Match[str], str], str | None]
) -> str:
    """Replace matches of a case-insensitive rule, matching on the lower-cased text when offsets agree."""
    lower = text.lower()
    matches = fast.finditer(lower) if len(lower) == len(text) else slow.finditer(text)
    out: list[str] = []
    pos = 0
    for m in matches:
        rep = fn(m, text)
        if rep is None:
            continue
        out.append(text[pos : m.start()])
        out.append(rep)
        pos = m.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def scrub(text: str, extra_secrets: Iterable[str] = ()) -> str:
    """Redact credentials in `text`; `extra_secrets` are exact values known to be secret."""
    if not isinstance(text, str):
        raise TypeError("scrub() expects a str")
    if not text:
        return text
    known = {s for s in extra_secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LEN}
    known.update(secret_env_values())
    if known:
        for form in _exact_forms(tuple(sorted(known))):
            if form in text:
                text = text.replace(form, "[REDACTED:secret-value]")
    hits = set(_GATE.findall(text.lower()))
    if not hits:
        return text
    for name, rx, needles in _PROVIDERS:
        if any(n.lower() in hits for n in needles) and any(n in text for n in needles):
            text = rx.sub(f"[REDACTED:{name}]", text)
    if "://" in hits:
        text = _URL_USERINFO.sub(lambda m: f"{m.group(1)}[REDACTED:url-credentials]@", text)
    if any(n in hits for n in _BEARER_NEEDLES):
        text = _sub_folded(_BEARER, _BEARER_CI, text, _bearer_sub)
    if any(n in hits for n in _KEY_NEEDLES):
        text = _sub_folded(_GENERIC, _GENERIC_CI, text, _generic_sub)
    return text
