"""Credential scrubbing of anything a command prints before a model sees it.

Layers, applied in order:

1. exact values: secret-looking host environment variables plus `extra_secrets`,
   also URL-encoded, JSON-escaped, hex, base64 (all three alignments, standard
   and URL-safe), base32 (all five alignments), UTF-16 (LE and BE, raw and in
   base64), in any letter case and with whitespace between any characters
   (grouped, wrapped); then base64 runs that decode, or gunzip/inflate, to text
   holding a value in any of those forms (bounded in count, size and depth);
   values shorter than 8 characters are skipped;
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
import bisect
import json
import math
import os
import re
import urllib.parse
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

#: Values shorter than this are never redacted by exact match (too many false hits).
MIN_SECRET_LEN = 8
#: Environment variable names whose values count as secrets.
SECRET_ENV_NAME = re.compile(
    r"(?i)(?:^|_)(?:KEY|APIKEY|SECRET|TOKEN|PASSWORD|PASSWD|PWD|PASS|CREDENTIALS?|AUTH|PRIVATE|SESSION|COOKIE|DSN)(?:_|$)"
    r"|API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD"
)
#: Not secrets even though the name matches (paths, toggles).
_ENV_NAME_EXCLUDED = re.compile(r"(?i)(?:_PATH|_FILE|_DIR|_URL_BASE|_ENABLED|_TYPE|_ID)\Z|^PWD\Z|^OLDPWD\Z")

_PROVIDER_RULES: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-(?!----(?:BEGIN|END))){16,}+"
        r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"|-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s]{16,}",
    ),
    ("anthropic-api-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    (
        "openai-api-key",
        r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|(?<![\w-])sk-[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
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
    # Rules whose token must be followed by a literal start only where a run of token letters starts (not
    # after `-`): starting anywhere in `eyJ-eyJ-...` would read the rest of the run again from each `eyJ`.
    ("jwt", r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,}"),
)
#: Literal substrings one of which must occur for a rule to run (cheap `in` checks before any regex).
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "anthropic-api-key": ("sk-ant-",),
    "openai-api-key": ("sk-",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": tuple("glpat- gldt- glptt- glrt- glcbt- gloas- glsoat- glft- glimt- glagent-".split()),
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
_KEY_NEEDLES = tuple(
    "token key secret passw passphrase authorization bearer cookie credential session".split()
)
_BEARER_NEEDLES = ("bearer", "basic", "token")
_ALL_NEEDLES = sorted(
    {n.lower() for ns in _NEEDLES.values() for n in ns} | set(_KEY_NEEDLES) | set(_BEARER_NEEDLES) | {"://"},
    key=lambda n: (-len(n), n),
)

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
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def looks_secret_name(name: str) -> bool:
    """True when an environment variable name suggests its value is a credential."""
    return bool(SECRET_ENV_NAME.search(name)) and not _ENV_NAME_EXCLUDED.search(name)


#: Encodings of an exact value, in the order that names a form matching several of them.
_KINDS = ("plain", "json", "url", "hex", "base64", "base32", "utf16", "utf16-base64")
#: Base64 runs (standard or URL-safe) of one line; `_b64_runs` joins the lines of a wrapped block.
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
#: How gzip (1f 8b 08) and zlib data (78 01, 78 5e, 78 9c, 78 da) start in base64.
_PACKED_PREFIXES = ("H4sI", "eA", "eF", "eJ", "eN")
_B64_TAIL = re.compile(r"[A-Za-z0-9+/_-]*")
_B64_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/_-]+={0,2}(?![A-Za-z0-9+/_=-])")
_B64_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
#: Letters of the encodings whose cores leave a partly secret letter on each side, and their padding.
_EDGE_LETTERS = {
    "base64": _B64_LETTERS,
    "utf16-base64": _B64_LETTERS,
    "base32": frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz234567"),
}
_WORDS = re.compile(r"\S+")
#: Bounds on decoding base64 runs, per `scrub` call: hostile output cannot make scrubbing slow or big.
_MAX_DEPTH = 2
_MAX_RUNS = 1024
_MAX_PACKED_RUNS = 256
_MAX_RUN_CHARS = 4 << 20
_MAX_DECODED = 1 << 20
_MAX_INFLATED = 1 << 20
_MAX_INFLATED_TOTAL = 4 << 20
#: Control bytes: a decoded run with many of them (besides NUL, UTF-16's high bytes) is binary.
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\0\t\n\r") + b"\x7f"


def _cores(raw: bytes, encode: Callable[[bytes], bytes], block: int, bits: int) -> list[str]:
    """Substrings of `encode(raw)` present whatever the offset of `raw` in the encoded stream.

    `block` is the input group size in bytes and `bits` the bits per output character (base64: 3 and 6,
    base32: 5 and 5); only characters made entirely of `raw`'s bits are kept.
    """
    out: list[str] = []
    for offset in range(block):
        enc = encode(b"\0" * offset + raw).decode()
        start = -(-offset * 8 // bits)
        end = ((offset + len(raw)) * 8) // bits
        out.append(enc[start:end])
    return out


def _utf16_raw(secret: str) -> bytes:
    """UTF-16 bytes common to the LE and BE encodings of an ASCII value (`s\\0e\\0...t`), else the LE bytes."""
    le = secret.encode("utf-16-le")
    be = secret.encode("utf-16-be")
    return le[:-1] if le[:-1] == be[1:] else le


def _forms(secret: str) -> list[tuple[str, str]]:
    """(form, kind) pairs for every encoding of `secret` matched by exact search."""
    raw = secret.encode("utf-8")
    u16 = _utf16_raw(secret)
    forms = [
        (secret, "plain"),
        (secret.upper(), "plain"),
        (secret.lower(), "plain"),
        (json.dumps(secret)[1:-1], "json"),
    ]
    forms += [(urllib.parse.quote(secret, safe=""), "url"), (urllib.parse.quote_plus(secret, safe=""), "url")]
    forms.append((binascii.hexlify(raw).decode(), "hex"))
    forms += [(c, "base64") for c in _cores(raw, base64.b64encode, 3, 6)]
    forms += [(c, "base32") for c in _cores(raw, base64.b32encode, 5, 5)]
    forms.append((u16.decode("latin-1"), "utf16"))
    forms += [(c, "utf16-base64") for c in _cores(u16, base64.b64encode, 3, 6)]
    return forms


def _fold(text: str) -> str:
    """Lower-cased `text` of the same length (`str.lower` lengthens only U+0130)."""
    return text.replace("\u0130", "i").lower()


def _compact(folded: str) -> str:
    """`folded` without whitespace, URL-safe base64 letters mapped to the standard ones."""
    return "".join(folded.split()).replace("-", "+").replace("_", "/")


class _Needles:
    """The exact values of one `scrub` call, precomputed once per set of secrets."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        kinds: dict[str, str] = {}
        short: dict[str, str] = {}
        plain: set[str] = set()
        for secret in secrets:
            plain.add(secret)
            for form, kind in _forms(secret):
                needle = _compact(_fold(form))
                if len(needle) >= MIN_SECRET_LEN:
                    if needle not in kinds or _KINDS.index(kind) < _KINDS.index(kinds[needle]):
                        kinds[needle] = kind
                elif len(form) >= MIN_SECRET_LEN:
                    short.setdefault(form, kind)
        order = sorted(kinds, key=lambda n: (-len(n), n))
        #: Searched in the folded, whitespace-free text (those with a NUL only when the text has one).
        self.needles = tuple((n, kinds[n]) for n in order if "\0" not in n)
        self.nul_needles = tuple((n, kinds[n]) for n in order if "\0" in n)
        #: Forms that are mostly whitespace: searched as they are.
        self.short = tuple(sorted(short.items(), key=lambda fk: (-len(fk[0]), fk[0])))
        self.plain = frozenset(plain)


#: Needles per set of secrets: the same env and config come back on every call.
_needles_for = lru_cache(maxsize=64)(_Needles)


def _hits(compact: str, nd: _Needles) -> list[tuple[str, str]]:
    """Needles present in `compact`; UTF-16 ones only when it has a NUL, which most output has not."""
    found = [(n, k) for n, k in nd.needles if n in compact]
    if "\0" in compact:
        found += [(n, k) for n, k in nd.nul_needles if n in compact]
    return found


def _rule(kind: str, span: str, nd: _Needles) -> str:
    """Marker name of a match, telling a reader which form of a value was printed."""
    if kind != "plain":
        return f"secret-value-{kind}"
    if span in nd.plain:
        return "secret-value"
    return "secret-value-split" if any(c.isspace() for c in span) else "secret-value-case"


class _OffsetMap:
    """Maps offsets of the whitespace-free text back to the original, mapping a 4 KiB chunk only when a hit
    falls in it: text with a few hits costs a little more than text with none, not a walk over every word."""

    CHUNK = 4096

    def __init__(self, folded: str) -> None:
        self.text = folded
        self.cum = [0]  # whitespace-free offset where each chunk starts
        for s in range(0, len(folded), self.CHUNK):
            self.cum.append(self.cum[-1] + len("".join(folded[s : s + self.CHUNK].split())))
        self.words: dict[int, tuple[list[int], list[int]]] = {}

    def orig(self, ci: int) -> int:
        k = bisect.bisect_right(self.cum, ci) - 1
        if k not in self.words:
            starts: list[int] = []
            offsets: list[int] = []
            n = 0
            for m in _WORDS.finditer(self.text, k * self.CHUNK, (k + 1) * self.CHUNK):
                starts.append(m.start())
                offsets.append(n)
                n += m.end() - m.start()
            self.words[k] = (starts, offsets)
        starts, offsets = self.words[k]
        j = bisect.bisect_right(offsets, ci - self.cum[k]) - 1
        return starts[j] + ci - self.cum[k] - offsets[j]


def _value_spans(text: str, nd: _Needles) -> list[tuple[int, int, str]]:
    """Spans of `text` holding an exact value in any of its forms, also case-changed or whitespace-split.

    All needles are searched in one folded, whitespace-free copy of the text with `str.__contains__`;
    offsets are mapped back to the original only when something was found, so clean text costs one
    lower-casing, one split/join and one substring search per needle.
    """
    spans: list[tuple[int, int, str]] = []
    for form, kind in nd.short:
        i = text.find(form)
        while i >= 0:
            spans.append((i, i + len(form), _rule(kind, form, nd)))
            i = text.find(form, i + 1)
    folded = _fold(text)
    compact = _compact(folded)
    found = _hits(compact, nd)
    if not found:
        return spans
    orig = _OffsetMap(folded).orig
    for needle, kind in found:
        n = len(needle)
        i = compact.find(needle)
        while i >= 0:
            # overlapping occurrences (`aaaaaaaaa` of a value `aaaaaaaa`) make one span: mapped once, not
            # once per letter of a long run
            end, nxt = i + n, compact.find(needle, i + 1)
            while 0 <= nxt < end:
                end, nxt = nxt + n, compact.find(needle, nxt + 1)
            a, first, b = orig(i), orig(i + n - 1) + 1, orig(end - 1) + 1
            rule = _rule(kind, text[a:first], nd)
            edge = _EDGE_LETTERS.get(kind)
            if edge:  # the letters next to a core still carry a few bits of the value
                a -= a > 0 and text[a - 1] in edge
                b += b < len(text) and text[b] in edge
                pad = b
                while b < len(text) and text[b] == "=" and b - pad < 6:
                    b += 1
                rule = _rule(kind, text[a:b], nd)
            spans.append((a, b, rule))
            i = nxt
    return spans


class _Budget:
    """What is left of the decoding bounds of one `scrub` call."""

    def __init__(self) -> None:
        self.runs = _MAX_RUNS
        self.packed_runs = _MAX_PACKED_RUNS
        self.decoded = _MAX_DECODED
        self.inflated = _MAX_INFLATED_TOTAL


def _inflate(data: bytes, budget: _Budget) -> bytes | None:
    """Decompressed gzip or zlib `data`, at most 1 MiB of it, or None when it is neither."""
    gzip_magic = data[:2] == b"\x1f\x8b"
    zlib_header = (
        len(data) >= 2 and data[0] & 0x0F == 8 and data[0] >> 4 <= 7 and (data[0] << 8 | data[1]) % 31 == 0
    )
    if not (gzip_magic or zlib_header) or budget.inflated <= 0:
        return None
    try:
        out = zlib.decompressobj(47).decompress(data, min(_MAX_INFLATED, budget.inflated))
    except zlib.error:
        return None
    budget.inflated -= len(out)
    return out


def _b64decode(chars: str) -> bytes:
    """Bytes of a base64 run, standard or URL-safe, wrapped or not, padded or not; never raises."""
    chars = "".join(chars.split()).rstrip("=").replace("-", "+").replace("_", "/")
    chars = chars[: len(chars) - len(chars) % 4] if len(chars) % 4 == 1 else chars + "=" * (-len(chars) % 4)
    try:
        return binascii.a2b_base64(chars)
    except binascii.Error:
        return b""


def _wrapped_end(text: str, start: int, end: int) -> int:
    """End of the base64 run `text[start:end]` carried on over the following lines when it is wrapped.

    Wrapped means what `base64` and MIME print: lines of one width (40+ letters, a multiple of 4), the first
    possibly after a prefix, and a last line no longer than the others.
    """
    first = end - start
    width = 0
    while text[end - 1] != "=" and text.startswith(("\n", "\r\n"), end):
        nxt = _B64_LINE.match(text, text.index("\n", end) + 1)
        if not nxt:
            break
        w = len(nxt.group().strip())
        if not width and w >= 40 and w % 4 == 0 and first <= w:
            width = w
        elif not width and first >= 40 and first % 4 == 0 and w < first:
            return nxt.end()
        elif not width or w > width:
            break
        end = nxt.end()
        if w < width:
            break
    return end


def _packed_runs(text: str, limit: int) -> list[tuple[int, int]]:
    """Spans of up to `limit` base64 runs that start like gzip (`H4sI`) or zlib data (`eJ`, `eN`, ...).

    Found with one `str.find` stream per prefix (faster than a regular expression over the whole text);
    streams skip past a run once it is taken, the zlib ones also past a run they are in the middle of, and
    at most `16 * limit` places are looked at.
    """
    nxt = {p: text.find(p) for p in _PACKED_PREFIXES}
    spans: list[tuple[int, int]] = []
    for _ in range(16 * limit):
        live = [(i, p) for p, i in nxt.items() if i >= 0]
        if not live or len(spans) >= limit:
            break
        i, prefix = min(live)
        if prefix != "H4sI" and i > 0 and text[i - 1] in _B64_LETTERS:  # zlib data starts a run
            skip, moved = _B64_TAIL.match(text, i).end(), [p for p in _PACKED_PREFIXES if p != "H4sI"]
        else:
            m = _B64_RUN.match(text, i)
            if m:
                spans.append((i, _wrapped_end(text, i, m.end())))
            skip, moved = (spans[-1][1] if m else i + 1), list(_PACKED_PREFIXES)
        for p in moved:
            if 0 <= nxt[p] < skip:
                nxt[p] = text.find(p, skip)
    return spans


def _plain_runs(text: str) -> Iterator[tuple[int, int]]:
    """Spans of all base64 runs of 20+ letters."""
    pos = 0
    while m := _B64_RUN.search(text, pos):
        start, end = m.span()
        end = _wrapped_end(text, start, end)
        yield start, end
        pos = end


def _decoded_runs(text: str, budget: _Budget) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, decoded text, rule) of the base64 runs of `text` that decode to text or compressed data.

    Runs that may be gzip or zlib are looked for first, with a budget of their own, so a flood of ordinary
    base64 ahead of them cannot use it up.
    """
    packed: set[int] = set()
    for start, end in _packed_runs(text, budget.packed_runs):
        budget.packed_runs -= 1
        inflated = _inflate(_b64decode(text[start : min(end, start + _MAX_RUN_CHARS)]), budget)
        if inflated is not None:
            packed.add(start)
            yield start, end, inflated.decode("utf-8", "replace"), "secret-value-gzip-base64"
    for start, end in _plain_runs(text):
        if budget.runs <= 0 or budget.decoded <= 0:
            return
        if start in packed:
            continue
        budget.runs -= 1
        data = _b64decode(text[start : min(end, start + budget.decoded * 4 // 3 + 4)])[: budget.decoded]
        budget.decoded -= len(data)
        if (
            len(data) >= MIN_SECRET_LEN
            and len(data) - len(data.translate(None, _CONTROL_BYTES)) <= len(data) // 10
        ):
            decoded = data.decode("utf-8", "replace")
            if decoded.count("\ufffd") <= len(decoded) // 10:  # text, in any script, not random bytes
                yield start, end, decoded, "secret-value-in-base64"


def _contains(text: str, nd: _Needles, budget: _Budget, depth: int) -> bool:
    """True when decoded `text` holds an exact value in any form, also inside nested base64 or gzip."""
    if any(form in text for form, _ in nd.short) or _hits(_compact(_fold(text)), nd):
        return True
    return depth > 0 and any(
        _contains(t, nd, budget, depth - 1) for _, _, t, _ in _decoded_runs(text, budget)
    )


def _replace_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    """`text` with each span, overlapping ones merged, replaced by its marker."""
    if not spans:
        return text
    spans.sort(key=lambda s: (s[0], -s[1]))
    out: list[str] = []
    pos = 0
    cur_a, cur_b, cur_rule = spans[0]
    for a, b, rule in spans[1:]:
        if a < cur_b:
            cur_b = max(cur_b, b)
            continue
        out += [text[pos:cur_a], f"[REDACTED:{cur_rule}]"]
        pos = cur_b
        cur_a, cur_b, cur_rule = a, b, rule
    out += [text[pos:cur_a], f"[REDACTED:{cur_rule}]", text[cur_b:]]
    return "".join(out)


def _scrub_values(text: str, secrets: tuple[str, ...]) -> str:
    """Layer 1: exact values in all their forms, then base64 runs that decode to text holding one."""
    nd = _needles_for(secrets)
    text = _replace_spans(text, _value_spans(text, nd))
    budget = _Budget()
    spans = [
        (a, b, rule)
        for a, b, decoded, rule in _decoded_runs(text, budget)
        if _contains(decoded, nd, budget, _MAX_DEPTH - 1)
    ]
    return _replace_spans(text, spans)


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
    host = (v for k, v in os.environ.items() if looks_secret_name(k))  # the host's secret-named variables
    known = {s for s in (*extra_secrets, *host) if isinstance(s, str) and len(s) >= MIN_SECRET_LEN}
    if known:
        text = _scrub_values(text, tuple(sorted(known)))
    # Which rules can possibly match: one substring search per needle beats one alternation pass.
    lowered = text.lower()
    hits = {n for n in _ALL_NEEDLES if n in lowered}
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
