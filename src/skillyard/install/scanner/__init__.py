"""Static scanner for skill packages: a cheap pre-install gate, not a security boundary.

Rules live in `rules/rules.yaml` (regex rules, two-stage "then" rules and engine-implemented
checks). Text is normalised before matching (invisible characters made visible and flagged,
NFKC, shell line continuations joined) and whole files are scanned: a file too large to scan
is itself a finding rather than being truncated, because padding past a scanner's horizon is
a known evasion.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import codecs
import errno
import fnmatch
import hashlib
import io
import itertools
import json
import mimetypes
import os
import re
import stat
import time
import unicodedata
import urllib.parse
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import yaml

from skillyard.fsread import Bounded, open_under, read_fd_bounded
from skillyard.install.scanner import _archive, _bytecode, _context, _flows
from skillyard.install.scanner._flows import (
    JS_EXTS,
    CodeFacts,
    Project,
    ScanTimeout,
    _deadline,
    check_deadline,
)

SEVERITIES = ("info", "low", "medium", "high", "critical")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
RULES_PATH = Path(__file__).resolve().parent.parent / "rules" / "rules.yaml"
MAX_SNIPPET = 160
#: A text file above this size is reported as unscannable instead of being truncated.
MAX_SCAN_BYTES = 5 * 1024 * 1024
MAX_SCAN_FILES = 2000
#: Wall-clock budget for one scan_path call (hostile input can be built to be slow to match).
MAX_SCAN_SECONDS = 120.0
#: Long lines are matched in overlapping windows so one hostile line cannot stall a regex.
WINDOW = 8192
OVERLAP = 1024
MAX_DECODE_DEPTH = 2


class RuleError(ValueError):
    """The rules file is malformed (a bug in skillyard or a user-supplied rules file)."""


# ---------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    """One detection rule as loaded from the rules file.

    Regexes are compiled on first use: compiling all of them costs a one-skill `skillyard audit`
    more than scanning, and most rules never pass their keyword test on a given skill.
    """

    id: str
    category: str
    severity: str
    title: str
    remediation: str
    match_src: tuple[str, ...] = ()
    unless_src: tuple[str, ...] = ()
    then_src: tuple[str, ...] = ()
    #: a second pattern that must also be found in the same line or paragraph, before or after
    also_src: tuple[str, ...] = ()
    #: in Markdown prose, also matched across the lines of one paragraph or list item (sentences wrap)
    paragraph: bool = False
    flags: int = re.IGNORECASE
    within: int = 0
    #: with `then`: `match` is also read across this many lines either side of a keyword's line,
    #: joined (a query written over several lines of a string, a heredoc or a template)
    span: int = 0
    builtin: str | None = None
    files: tuple[str, ...] = ()
    positives: tuple[Any, ...] = ()
    negatives: tuple[Any, ...] = ()
    #: lower-case strings one of which every match contains: a line with none skips the rule
    keywords: frozenset[str] | None = None

    @cached_property
    def match(self) -> tuple[re.Pattern[str], ...]:
        return _compile_all(self.id, "match", self.match_src, self.flags)

    @cached_property
    def unless(self) -> tuple[re.Pattern[str], ...]:
        return _compile_all(self.id, "unless", self.unless_src, self.flags)

    @cached_property
    def then(self) -> tuple[re.Pattern[str], ...]:
        return _compile_all(self.id, "then", self.then_src, self.flags)

    @cached_property
    def also(self) -> tuple[re.Pattern[str], ...]:
        return _compile_all(self.id, "also", self.also_src, self.flags)

    def applies_to(self, rel: str) -> bool:
        if not self.files:
            return True
        base = rel.rsplit("/", 1)[-1]
        return any(fnmatch.fnmatch(base.lower(), g) for g in self.files)


BUILTINS = frozenset(
    "unicode-tag bidi-control zero-width variation-selector invalid-utf8 binary-executable "
    "nested-archive unknown-binary misleading-file-type oversized-file padding-blank-lines "
    "padding-long-whitespace encoded-payload special-file flow-secret-network flow-download-exec "
    "flow-persistence flow-destruction flow-kernel flow-reverse-shell assembled-command "
    "encrypted-archive".split()
)


def _sources(rid: str, key: str, raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise RuleError(f"rule {rid}: {key} must be a regex or a list of regexes")
    return tuple(raw)


def _compile_all(rid: str, key: str, raw: tuple[str, ...], flags: int) -> tuple[re.Pattern[str], ...]:
    out = []
    for pat in raw:
        try:
            out.append(re.compile(pat, flags))
        except re.error as e:
            raise RuleError(f"rule {rid}: bad regex in {key}: {e}") from None
    return tuple(out)


def parse_rules(data: Any, *, compile_now: bool = True) -> tuple[Rule, ...]:
    """Validate a rules document (the `rules.yaml` shape); `compile_now` also compiles every regex,
    so a bad one is reported at load (the bundled file, checked by the test suite, compiles each
    rule's regexes when a scan first needs them)."""
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise RuleError("rules file must be a mapping with a 'rules' list")
    seen: set[str] = set()
    rules = []
    for i, r in enumerate(data["rules"]):
        if not isinstance(r, dict):
            raise RuleError(f"rule #{i} is not a mapping")
        rid = r.get("id")
        if not isinstance(rid, str) or not re.fullmatch(r"SY-[A-Z0-9-]+", rid):
            raise RuleError(f"rule #{i}: id must look like SY-XXX-000")
        if rid in seen:
            raise RuleError(f"duplicate rule id {rid}")
        seen.add(rid)
        for k in ("category", "title", "remediation"):
            if not isinstance(r.get(k), str) or not r[k].strip():
                raise RuleError(f"rule {rid}: {k} is required")
        sev = r.get("severity")
        if sev not in SEVERITY_RANK:
            raise RuleError(f"rule {rid}: severity must be one of {', '.join(SEVERITIES)}")
        flags = 0 if r.get("case_sensitive") else re.IGNORECASE
        builtin = r.get("builtin")
        if builtin is not None and builtin not in BUILTINS:
            raise RuleError(f"rule {rid}: unknown builtin {builtin!r}")
        match = _sources(rid, "match", r.get("match"))
        if not match and builtin is None:
            raise RuleError(f"rule {rid}: needs 'match' or 'builtin'")
        ex = r.get("examples") or {}
        if not isinstance(ex, dict) or not ex.get("match") or not ex.get("clean"):
            raise RuleError(f"rule {rid}: needs examples.match and examples.clean")
        files = r.get("files") or ()
        if isinstance(files, str):
            files = (files,)
        within = r.get("within", 0)
        if not isinstance(within, int) or within < 0:
            raise RuleError(f"rule {rid}: within must be a non-negative integer")
        span = r.get("span", 0)
        if not isinstance(span, int) or not 0 <= span <= 8:
            raise RuleError(f"rule {rid}: span must be an integer from 0 to 8")
        rules.append(
            Rule(
                id=rid,
                category=r["category"],
                severity=sev,
                title=r["title"].strip(),
                remediation=" ".join(r["remediation"].split()),
                match_src=match,
                unless_src=_sources(rid, "unless", r.get("unless")),
                then_src=_sources(rid, "then", r.get("then")),
                also_src=_sources(rid, "also", r.get("also")),
                paragraph=bool(r.get("paragraph", False)),
                flags=flags,
                within=within,
                span=span,
                builtin=builtin,
                files=tuple(str(f).lower() for f in files),
                positives=tuple(ex["match"]),
                negatives=tuple(ex["clean"]),
                keywords=_keywords(rid, r.get("keywords")),
            )
        )
        if compile_now:
            rules[-1].match, rules[-1].unless, rules[-1].then, rules[-1].also  # noqa: B018 - compiles, raising RuleError
    return tuple(rules)


def _keywords(rid: str, raw: Any) -> frozenset[str] | None:
    if raw is None:
        return None
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(k, str) and k and k == _fold(k) for k in raw)
    ):
        raise RuleError(f"rule {rid}: keywords must be a non-empty list of lower-case strings")
    return frozenset(raw)


@lru_cache(maxsize=8)
def load_rules(path: str | None = None) -> tuple[Rule, ...]:
    """The rule set (cached); `path` lets a user run a custom rules file."""
    p = Path(path) if path else RULES_PATH
    try:
        data = yaml.load(p.read_text("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as e:
        raise RuleError(f"{p}: cannot load rules: {e}") from None
    return parse_rules(data, compile_now=path is not None)


# ---------------------------------------------------------------- findings and reports


@dataclass(frozen=True, slots=True)
class Finding:
    rule_id: str
    category: str
    severity: str
    title: str
    file: str
    line: int | None
    snippet: str
    remediation: str
    #: (line, step, file) from where a value comes from to where it goes, for flow findings;
    #: a step may be in another file of the skill (a helper module, a sourced script)
    flow: tuple[tuple[int, str, str], ...] = ()
    #: the author's reason when a `skillyard: ignore[RULE]` comment covers this finding
    suppressed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule_id": self.rule_id,
            "category": self.category,
            "severity": self.severity,
            "title": self.title,
            "file": self.file,
            "line": self.line,
            "snippet": self.snippet,
            "remediation": self.remediation,
        }
        if self.flow:
            out["flow"] = [{"file": f, "line": n, "step": s} for n, s, f in self.flow]
        if self.suppressed is not None:
            out["suppressed"] = self.suppressed
        return out


@dataclass(frozen=True, slots=True)
class ScanPolicy:
    """What blocks an install: severity threshold, disabled rules, overrides, reviewed exceptions."""

    block_at: str = "high"
    disabled_rules: frozenset[str] = frozenset()
    severity_overrides: tuple[tuple[str, str], ...] = ()
    #: rules a user reviewed for this package: still reported, never blocking
    allowed_rules: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.block_at not in SEVERITY_RANK and self.block_at != "none":
            raise ValueError(f"block_at must be one of {', '.join(SEVERITIES)} or none")
        for _, sev in self.severity_overrides:
            if sev not in SEVERITY_RANK:
                raise ValueError(f"severity override must be one of {', '.join(SEVERITIES)}")

    def severity_for(self, rule_id: str, default: str) -> str:
        return dict(self.severity_overrides).get(rule_id, default)

    def blocks(self, f: Finding) -> bool:
        if self.block_at == "none" or f.rule_id in self.allowed_rules:
            return False
        if f.suppressed is not None and f.severity != "critical":
            return False  # an author's suppression never lowers a critical finding
        return SEVERITY_RANK[f.severity] >= SEVERITY_RANK[self.block_at]

    def fingerprint(self) -> str:
        raw = repr(
            (
                self.block_at,
                sorted(self.disabled_rules),
                sorted(self.severity_overrides),
                sorted(self.allowed_rules),
            )
        )
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


@dataclass(slots=True)
class ScanReport:
    """Findings for one skill (directory or single file) under a policy."""

    path: str
    name: str | None
    findings: list[Finding] = field(default_factory=list)
    policy: ScanPolicy = field(default_factory=ScanPolicy)
    files_scanned: int = 0

    @property
    def max_severity(self) -> str:
        if not self.findings:
            return "none"
        return max((f.severity for f in self.findings), key=SEVERITY_RANK.__getitem__)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if self.policy.blocks(f)]

    @property
    def blocked(self) -> bool:
        return bool(self.blocking)

    @property
    def verdict(self) -> str:
        if self.blocked:
            return "malicious" if any(f.severity == "critical" for f in self.blocking) else "suspicious"
        return (
            "suspicious" if self.findings and self.max_severity in ("medium", "high", "critical") else "clean"
        )

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(reversed(SEVERITIES), 0)
        for f in self.findings:
            out[f.severity] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """DESIGN section 10 audit shape."""
        return {
            "path": self.path,
            "name": self.name,
            "max_severity": self.max_severity,
            "blocked": self.blocked,
            "findings": [f.to_dict() for f in self.findings],
        }

    def summary(self) -> dict[str, Any]:
        """Compact form recorded in the lockfile and returned with an install."""
        return {
            "max_severity": self.max_severity,
            "blocked": self.blocked,
            "verdict": self.verdict,
            "counts": {k: v for k, v in self.counts().items() if v},
            "findings": len(self.findings),
            "files": self.files_scanned,
            "policy": self.policy.fingerprint(),
        }


# ---------------------------------------------------------------- normalisation

#: Left-to-right, right-to-left and Arabic letter marks (U+200E, U+200F, U+061C) only give a
#: neutral character a direction; they cannot reorder code as embeddings, overrides and isolates
#: can, so they count as invisible characters, not as bidi controls.
_ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E, 0x00AD, 0x200E, 0x200F, 0x061C}
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
_SEPARATORS = {0x2028, 0x2029}


def _is_symbolic(ch: str) -> bool:
    """Emoji and symbols legitimately carry ZWJ and VS16."""
    return ord(ch) >= 0x2000 and unicodedata.category(ch) in ("So", "Sk", "Sm", "Mn", "Cf")


@dataclass(slots=True)
class Line:
    """A logical line: continuations joined, invisibles removed (for matching) and shown (for snippets)."""

    number: int
    text: str
    display: str


@dataclass(slots=True)
class Invisible:
    kind: str  # unicode-tag | bidi-control | zero-width | variation-selector
    line: int
    count: int
    display: str


#: U+1F3F4 WAVING BLACK FLAG + tag letters/digits + U+E007F CANCEL TAG: a subdivision flag (🏴 England).
_FLAG_SEQ = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f")


def _reveal_line(raw: str, number: int, inv: list[Invisible]) -> tuple[str, str]:
    """(clean text for matching, display text) for one physical line, recording invisible characters."""
    if raw.isascii():
        return raw, raw
    if "\U0001f3f4" in raw:
        flags = _FLAG_SEQ.findall(raw)
        if flags:
            stripped = _FLAG_SEQ.sub("\U0001f3f4", raw)
            clean, display = _reveal_line(stripped, number, inv)
            for f in flags:
                display = display.replace("\U0001f3f4", "\x00" + f, 1)
            return clean, display.replace("\x00", "")
    clean: list[str] = []
    shown: list[str] = []
    hidden: list[str] = []
    counts: dict[str, int] = {}
    prev = ""
    for ch in raw:
        cp = ord(ch)
        kind = None
        if 0xE0000 <= cp <= 0xE007F:  # a tag character
            kind = "unicode-tag"
            if 0xE0020 <= cp <= 0xE007E:
                hidden.append(chr(cp - 0xE0000))
            continue_tag = True
        else:
            continue_tag = False
            if hidden:
                shown.append("⟦hidden: " + "".join(hidden) + "⟧")
                clean.append(" " + "".join(hidden) + " ")
                hidden = []
        if kind is None and cp in _BIDI:
            kind = "bidi-control"
        elif kind is None and cp in _ZERO_WIDTH:
            if cp == 0x200D and prev and _is_symbolic(prev):
                clean.append(ch)
                shown.append(ch)
                prev = ch
                continue
            kind = "zero-width"
        elif kind is None and (0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF):  # a variation selector
            if cp == 0xFE0F or (cp == 0xFE0E and prev and not prev.isascii()):
                prev = ch
                shown.append(ch)
                continue
            kind = "variation-selector"
        elif kind is None and cp in _SEPARATORS:
            kind = "zero-width"
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
            if not continue_tag:
                shown.append(f"<U+{cp:04X}>")
            continue
        clean.append(ch)
        shown.append(ch)
        prev = ch
    if hidden:
        shown.append("⟦hidden: " + "".join(hidden) + "⟧")
        clean.append(" " + "".join(hidden) + " ")
    display = "".join(shown)
    for kind, n in counts.items():
        inv.append(Invisible(kind, number, n, display))
    return unicodedata.normalize("NFKC", "".join(clean)), display


#: Any run of whitespace is one space (a keyword's space, and a pattern's, stand for all of them).
_WS = re.compile(r"\s+")


def normalise(text: str) -> tuple[list[Line], list[Invisible]]:
    """Split into logical lines: invisibles revealed, NFKC applied, `\\`-newline continuations joined."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    inv: list[Invisible] = []
    out: list[Line] = []
    pending: Line | None = None
    for i, raw in enumerate(text.split("\n"), start=1):
        clean, display = _reveal_line(raw, i, inv)
        if pending is not None:
            pending.text += clean
            pending.display += display
        else:
            pending = Line(i, clean, display)
        stripped = pending.text.rstrip(" \t")
        trailing = len(stripped) - len(stripped.rstrip("\\"))
        if trailing % 2 == 1:
            pending.text = stripped[:-1]
            pending.display = pending.display.rstrip(" \t")[:-1]
            continue
        pending.text = _WS.sub(" ", pending.text)
        out.append(pending)
        pending = None
    if pending is not None:
        pending.text = _WS.sub(" ", pending.text)
        out.append(pending)
    return out, inv


# ---------------------------------------------------------------- redaction and snippets

#: A value that is an expression (`os.getenv(`, `config["db"]`, `self.token`) is code, not a secret.
_NOT_CODE = r"(?![A-Za-z_][\w.]*\s*[(\[])(?!(?:self|os|process|env|config|settings|args|cls)\.)"

_SECRET_PATTERNS = [
    re.compile(r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}"),
    re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"),
    re.compile(r"\bsk-[A-Za-z0-9]{20,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\bxox[abposre]-[0-9A-Za-z-]{10,}"),
    re.compile(r"\b[sr]k_(?:test|live|prod)_[0-9A-Za-z]{10,}"),
    re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
    re.compile(r"\bhf_[A-Za-z]{30,}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]*"),
    re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),
    re.compile(r"(?i)(?<=password)([\"']?\s*[:=]\s*[\"']?)(?![\"'$<{])" + _NOT_CODE + r"[^\s\"']{8,}"),
    re.compile(r"(?i)(?<=passwd)([\"']?\s*[:=]\s*[\"']?)(?![\"'$<{])" + _NOT_CODE + r"[^\s\"']{8,}"),
    re.compile(r"(?i)(?<=secret)([\"']?\s*[:=]\s*[\"']?)(?![\"'$<{])" + _NOT_CODE + r"[^\s\"']{8,}"),
    re.compile(r"(?i)(?<=token)([\"']?\s*[:=]\s*[\"']?)(?![\"'$<{])" + _NOT_CODE + r"[^\s\"']{8,}"),
    re.compile(r"(?i)(?<=api_key)([\"']?\s*[:=]\s*[\"']?)(?![\"'$<{])" + _NOT_CODE + r"[^\s\"']{8,}"),
    re.compile(r"(?i)(?<=apikey)([\"']?\s*[:=]\s*[\"']?)(?![\"'$<{])" + _NOT_CODE + r"[^\s\"']{8,}"),
]


def redact(text: str) -> str:
    """Replace anything shaped like a credential with `[REDACTED]`."""
    for pat in _SECRET_PATTERNS:
        text = pat.sub(lambda m: (m.group(1) if m.groups() else "") + "[REDACTED]", text)
    return text


def snippet(display: str, start: int = 0, end: int | None = None) -> str:
    """At most 160 characters around the match, secrets redacted."""
    s = display.strip()
    offset = len(display) - len(display.lstrip())
    start = max(0, start - offset)
    end = len(s) if end is None else max(start, end - offset)
    if len(s) > MAX_SNIPPET:
        lo = max(0, min(start - 40, len(s) - MAX_SNIPPET))
        s = s[lo : lo + MAX_SNIPPET]
    s = redact(s)
    if len(s) > MAX_SNIPPET:
        s = s[: MAX_SNIPPET - 1] + "…"
    return s


# ---------------------------------------------------------------- matching


def _windows(text: str) -> Iterator[tuple[int, str]]:
    if len(text) <= WINDOW:
        yield 0, text
        return
    pos = 0
    while pos < len(text):
        yield pos, text[pos : pos + WINDOW]
        if pos + WINDOW >= len(text):
            break
        pos += WINDOW - OVERLAP


def _search(rule_pats: tuple[re.Pattern[str], ...], rule: Rule, text: str) -> tuple[int, int] | None:
    """(start, end) of the first match not excused by one of `rule`'s `unless` patterns (checked
    per match; compiled only once a match needs them) and, for a rule with `also` patterns, in a
    text where one of those is found too."""
    for off, chunk in _windows(text):
        if len(text) > WINDOW:
            check_deadline()
        for pat in rule_pats:
            for m in pat.finditer(chunk):
                if rule.unless_src and any(u.search(m.group(0)) for u in rule.unless):
                    continue
                if rule.also_src and rule_pats is rule.match and not any(a.search(text) for a in rule.also):
                    return None
                return off + m.start(), off + m.end()
    return None


def _fold(text: str) -> str:
    """Lower-case for keyword tests; dotted capital and dotless i fold to i as under re.IGNORECASE
    (`"\u0130".lower()` is an i followed by a combining dot, which no keyword holds)."""
    return text.lower().replace("i\u0307", "i").replace("\u0131", "i")


@dataclass(slots=True)
class _Ctx:
    rules: tuple[Rule, ...]
    policy: ScanPolicy
    findings: list[Finding]
    #: (rule, file, line) -> index of its finding
    seen: dict[tuple[str, str, int | None], int]
    #: (file, line) -> (rule ids or {"*"}, reason) from `skillyard: ignore[...]` comments
    suppress: dict[tuple[str, int], tuple[frozenset[str], str]] = field(default_factory=dict)
    #: files SKILL.md names (they inherit its instructions: never weighed as reference material)
    referenced: set[str] = field(default_factory=set)
    #: the skill's code files read once, so flows are followed from one file into another
    project: Project | None = None
    #: encrypted zips an archive skill keeps as small test fixtures -> their member names
    fixtures: dict[str, str] = field(default_factory=dict)
    #: passwords SKILL.md gives (`password: x`, `unzip -P x`), tried on the skill's encrypted zips;
    #: and the zips they open (every member then read and scanned) -> their member names
    passwords: tuple[bytes, ...] = ()
    opened: dict[str, str] = field(default_factory=dict)
    #: files the skill's code fills with a secret -> (the file that does it, the secret); and
    #: (file, line, path, destination) of files the code sends
    stashed: dict[str, tuple[str, Any]] = field(default_factory=dict)
    sent_files: list[tuple[str, int, str, str]] = field(default_factory=list)
    #: (file, line, what) of credential stores code files read, and of their sends to a drop
    #: (`_lexical.loose_ends`), paired across the skill when no value ties them
    loose_sources: list[tuple[str, int, str]] = field(default_factory=list)
    loose_sinks: list[tuple[str, int, str]] = field(default_factory=list)
    #: test sample texts whose bidi controls were reported lower (checked for a file running them)
    samples: set[str] = field(default_factory=set)
    #: the `scripts` of the skill's root `package.json` (name -> command line)
    package_scripts: dict[str, str] = field(default_factory=dict)
    #: whether another file of the skill names the one given (set by `scan_path`)
    named_elsewhere: Callable[[str], bool] | None = None
    #: builtin check -> the rule that reports it (a custom rule set may leave some out)
    builtins: dict[str | None, Rule] = field(init=False)

    def __post_init__(self) -> None:
        self.builtins = {r.builtin: r for r in self.rules if r.builtin}

    def flag(self, builtin: str, rel: str, line: int | None, snip: str, tail: str = "", **kw: Any) -> None:
        """Report a builtin check's finding when the rule set has that check; `tail` extends the
        rule's title with what this finding is."""
        if (r := self.builtins.get(builtin)) is not None:
            self.add(r, rel, line, snip, f"{r.title}{tail}" if tail else None, **kw)

    def add(
        self,
        rule: Rule,
        rel: str,
        line: int | None,
        snip: str,
        title: str | None = None,
        *,
        severity: str | None = None,
        demote: tuple[int, str] = (0, ""),
        flow: tuple[tuple[int, str, str], ...] = (),
    ) -> None:
        if rule.id in self.policy.disabled_rules:
            return
        key = (rule.id, rel, line)
        sev = self.policy.severity_for(rule.id, severity or rule.severity)
        title = title or rule.title
        steps, why = demote
        if steps and not any(r == rule.id for r, _ in self.policy.severity_overrides):
            sev = SEVERITIES[max(0, SEVERITY_RANK[sev] - steps)]
            title = f"{title} ({why})"
        suppressed = None
        if line is not None and (hit := self.suppress.get((rel, line))) is not None:
            ids, reason = hit
            if rule.id in ids or "*" in ids:
                suppressed = reason
        found = Finding(
            rule.id, rule.category, sev, title, rel, line, snip, rule.remediation, flow, suppressed
        )
        # one finding per rule and line: the heaviest (a token flow and a whole-environment flow
        # on one `curl` line are both SY-FLOW-001)
        if (i := self.seen.get(key)) is None:
            self.seen[key] = len(self.findings)
            self.findings.append(found)
        elif SEVERITY_RANK[sev] > SEVERITY_RANK[self.findings[i].severity]:
            self.findings[i] = found


_B64_RE = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=])")
_HEX_ESC_RE = re.compile(r"(?:\\x[0-9a-fA-F]{2}){12,}")
_CHAR_CODES = re.compile(r"(?<![\w.])(?:(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])\s*,\s*){11,}\d{2,3}(?![\w.])")
_HEX_INT = re.compile(r"(?<![\w.])0[xX]((?:[0-9a-fA-F]){16,})(?![\w.])")
_HEX_RE = re.compile(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){24,}(?![0-9a-fA-F])")


def _decoded_candidates(text: str) -> Iterator[str]:
    """Decode base64 / hex literals that look like text; obfuscation is only interesting if it decodes."""
    for m in _B64_RE.finditer(text):
        tok = m.group(0)
        if tok.isalpha() or tok.isdigit():
            continue
        try:
            raw = base64.b64decode(tok + "=" * (-len(tok) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        if s := _printable(raw):
            yield s
    for m in _HEX_ESC_RE.finditer(text):
        raw = bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-fA-F]{2})", m.group(0)))
        if s := _printable(raw):
            yield s
    for m in _HEX_RE.finditer(text):
        try:
            raw = bytes.fromhex(m.group(0))
        except ValueError:
            continue
        if s := _printable(raw):
            yield s
    for m in _CHAR_CODES.finditer(text):
        # text spelled as decimal character codes (`split("99,117,…")` printed with `%c`)
        codes = [int(c) for c in re.findall(r"\d+", m.group(0))]
        if all(31 < c < 127 or c in (9, 10) for c in codes):
            yield "".join(map(chr, codes))
    for m in _HEX_INT.finditer(text):
        # text held as one big number (`0x6375726c…` turned back with `to_bytes`)
        raw = bytes.fromhex(m.group(1) if len(m.group(1)) % 2 == 0 else "0" + m.group(1))
        if s := _printable(raw):
            yield s


def _printable(raw: bytes) -> str | None:
    if len(raw) < 8:
        return None
    if len(raw) % 2 == 0 and raw[1::2].count(0) >= len(raw) // 2 * 0.9:
        # UTF-16LE, as PowerShell's -EncodedCommand is written
        raw = raw.decode("utf-16-le", "replace").encode("utf-8")
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    good = sum(1 for c in s if c.isprintable() or c in "\n\t\r")
    return s if good / len(s) >= 0.9 else None


def scan_text(
    text: str,
    rel: str = "SKILL.md",
    *,
    rules: tuple[Rule, ...] | None = None,
    policy: ScanPolicy | None = None,
    _ctx: _Ctx | None = None,
    _depth: int = 0,
    _line_base: int | None = None,
) -> list[Finding]:
    """Scan one text; returns its findings (also used by the rule-example tests)."""
    rules = rules if rules is not None else load_rules()
    ctx = _ctx or _Ctx(rules, policy or ScanPolicy(), [], {})
    lines, invisibles = normalise(text)
    fctx: _context.FileContext | None = None
    facts: CodeFacts | None = None
    if _depth == 0 and _line_base is None:
        ctx.suppress.update(_context.suppressions(rel, text))
        if rel.lower() == "skill.md":
            ctx.referenced |= _context.referenced_paths(text)
        fctx = _context.build(rel, text, ctx.referenced)
        facts = _read_code(rel, text, fctx, ctx.project)
        if facts is not None:
            fctx.data_lines = facts.data_lines
            if (
                facts.data_lines
                and _ext(rel) in _JS_DATA
                and ctx.named_elsewhere
                and ctx.named_elsewhere(rel)
            ):
                fctx.data_lines = set()  # strings another file (or SKILL.md) may load and evaluate
            fctx.credential_use = facts.credential_use
            fctx.installed_launch = facts.installed_launch
            if facts.unread:
                ctx.flag("oversized-file", rel, None, snippet(facts.unread))

    leads: dict[int, str] | None = None

    def weigh(rule: Rule, n: int, line_text: str, start: int) -> tuple[int, str]:
        nonlocal leads
        if rule.id == "SY-DL-007" and ctx.fixtures and _names_fixture(line_text, ctx.fixtures, rel):
            return 2, "the password of the skill's own small test fixture, not an instruction to unpack"
        if rule.id == "SY-DL-007" and ctx.opened and _names_fixture(line_text, ctx.opened, rel):
            return 2, "the password of the skill's own archive, which it opens: its members were scanned"
        if (
            rule.id == "SY-PER-009"
            and rel.endswith("tasks.json")
            and _build_on_open(text, ctx.package_scripts)
        ):
            return 1, "a folder-open task that runs one program of the project's package scripts on its files"
        if fctx is None:
            return 0, ""
        if fctx.markdown and rule.category in _context.SPEECH:
            # prose wraps: the quote that opens, or the "attackers write ..." that introduces, a
            # phrase may sit on an earlier line of the same paragraph
            if leads is None:
                leads = _paragraph_leads(lines, fctx)
            if (before := leads.get(n)) is not None:
                return fctx.demotion(
                    n, rule.category, rule.id, f"{before} {line_text}", start + len(before) + 1
                )
        return fctx.demotion(n, rule.category, rule.id, line_text, start)

    def where(n: int) -> int:
        return _line_base if _line_base is not None else n

    def hit(r: Rule, ln: Line, m: tuple[int, int], shown: str | None = None, at: int | None = None) -> None:
        """Report rule `r` matched at `m` of line `ln` (of `shown`, a paragraph, when given)."""
        demote = weigh(r, ln.number, ln.text, m[0] if at is None else at)
        ctx.add(r, rel, where(ln.number), snippet(shown or ln.text, m[0], m[1]), demote=demote)

    sample = _FIXTURE_DIR.search(rel) is not None and _ext(rel) in _SAMPLE_EXTS
    for inv in invisibles:
        note = f"{inv.count} invisible character(s) revealed: " if inv.kind != "unicode-tag" else ""
        # bidi controls reorder what a reviewer sees of code; in a test's sample text that nothing
        # runs (a linter's known-bad input) they are what the tests look for
        lower = inv.kind == "bidi-control" and sample
        if lower:
            ctx.samples.add(rel)
        ctx.flag(
            inv.kind,
            rel,
            where(inv.line),
            snippet(note + inv.display),
            " (in a test's sample text, which no file runs)" if lower else "",
            severity="medium" if lower else None,
        )

    regex_rules = [r for r in rules if r.match_src and r.applies_to(rel)]
    single = [r for r in regex_rules if not r.then_src]
    on_lines = _keyword_lines(lines)
    for r in single:
        for n, i in enumerate(on_lines(r)):
            if n % 256 == 0:
                check_deadline()
            if (m := _search(r.match, r, lines[i].text)) is not None:
                hit(r, lines[i], m)
    for r in regex_rules:
        if not r.then_src:
            continue
        check_deadline()
        starts = [
            i
            for i in on_lines(r)
            if _search(r.match, r, lines[i].text)
            or (
                r.span
                and _search(
                    r.match,
                    r,
                    " ".join(x.text.strip() for x in lines[max(0, i - r.span) : i + r.span + 1]),
                )
            )
        ]
        for i in starts:
            for j in range(i, min(len(lines), i + r.within + 1)):
                if (m := _search(r.then, r, lines[j].text)) is not None:
                    hit(r, lines[j], m)
                    break
    if fctx is not None and fctx.markdown and (wrapped := [r for r in single if r.paragraph]):
        for para in _paragraphs(lines, fctx):
            check_deadline()
            joined = " ".join(ln.text.strip() for ln in para)
            low = _fold(joined)
            for r in wrapped:
                if r.keywords is not None and not any(k in low for k in r.keywords):
                    continue
                m = _search(r.match, r, joined)
                if m is None:
                    continue
                pos = 0
                for ln in para:
                    body = ln.text.strip()
                    if m[0] < pos + len(body) + 1:
                        break
                    pos += len(body) + 1
                lead = len(ln.text) - len(ln.text.lstrip())
                hit(r, ln, m, joined, max(0, m[0] - pos) + lead)
    _padding(lines, rel, ctx, where)
    if facts is not None and fctx is not None:
        _report_code(facts, fctx, text, rel, ctx, _depth)
        for path, src in facts.stashed.items():
            ctx.stashed.setdefault(path, (rel, src))
        ctx.sent_files += [(rel, *sent) for sent in facts.sent_files]
        if not fctx.markdown and _depth == 0:
            from skillyard.install.scanner._lexical import loose_ends

            source, sink = loose_ends(text)
            ctx.loose_sources += [(rel, *source)] if source else []
            ctx.loose_sinks += [(rel, *sink)] if sink else []

    if "encoded-payload" in ctx.builtins and _depth < MAX_DECODE_DEPTH:
        for ln in lines:
            if len(ln.text) < 24:
                continue
            for decoded in _decoded_candidates(ln.text):
                if worst := _rescan(decoded, rel, ctx, _depth, where(ln.number)):
                    ctx.flag(
                        "encoded-payload",
                        rel,
                        where(ln.number),
                        snippet(f"decodes to: {decoded}"),
                        f": {worst.title}",
                    )
    return ctx.findings


#: At most this much of a paragraph before a line is read for what introduces a phrase on it.
MAX_LEAD = 400


#: Above this many characters a text's distinct tokens are listed to rule keywords out.
_TOKENS_PAY = 32_768


def _keyword_lines(lines: list[Line]) -> Callable[[Rule], list[int]]:
    """The indices of the lines a rule can match: the non-blank lines holding one of its keywords
    (keywords never span lines), every non-blank line for a rule without keywords. Each keyword is
    looked for once in the whole folded text, not once in every line."""
    folded = [_fold(ln.text) for ln in lines]
    whole = "\n".join(folded)
    starts = [0]
    for f in folded:
        starts.append(starts[-1] + len(f) + 1)
    found: dict[str, list[int]] = {}
    # a long text's distinct whitespace-separated tokens, one per line: each whitespace-free piece of
    # a keyword lies inside one token, and they are a fraction of the text, so most keywords are
    # ruled out there rather than by a search of the whole text
    tokens = "\n".join(set(whole.split())) if len(whole) > _TOKENS_PAY else None

    def holding(key: str) -> list[int]:
        if (got := found.get(key)) is None:
            got = found[key] = []
            held = "\n" not in key and (tokens is None or all(map(tokens.__contains__, key.split())))
            pos = whole.find(key) if held else -1
            while pos != -1:
                i = bisect.bisect_right(starts, pos) - 1
                if folded[i].strip():
                    got.append(i)
                pos = whole.find(key, starts[i + 1])
        return got

    nonblank: list[int] | None = None

    def on_lines(rule: Rule) -> list[int]:
        nonlocal nonblank
        if rule.keywords is None:
            if nonblank is None:
                nonblank = [i for i, ln in enumerate(lines) if ln.text.strip()]
            return nonblank
        if len(rule.keywords) == 1:
            return holding(next(iter(rule.keywords)))
        return sorted(set().union(*map(holding, rule.keywords)))

    return on_lines


def _paragraph_leads(lines: list[Line], fctx: _context.FileContext) -> dict[int, str]:
    """Line number -> the prose of its paragraph before it (the last MAX_LEAD characters). Inline
    code is left out: a command or host name in it (`verify.example.invalid`) introduces nothing."""
    out: dict[int, str] = {}
    for para in _paragraphs(lines, fctx):
        before = ""
        for ln in para:
            if before:
                out[ln.number] = before[-MAX_LEAD:]
            before = f"{before} {_context.INLINE_CODE.sub('', ln.text.strip())}".strip()
    return out


def _paragraphs(lines: list[Line], fctx: _context.FileContext) -> list[list[Line]]:
    """Runs of two or more prose lines of one paragraph or list item (a list item starts a new one).
    An HTML comment's lines are a paragraph of their own: the model reads them, the user does not."""
    out: list[list[Line]] = []
    cur: list[Line] = []
    for ln in lines:
        kind = fctx.kinds.get(ln.number, "prose")
        prose = kind in ("prose", "comment") and bool(ln.text.strip())
        if (
            not prose
            or _context.LIST_ITEM.match(ln.text)
            or cur
            and fctx.kinds.get(cur[0].number, "prose") != kind
        ):
            if len(cur) > 1:
                out.append(cur)
            cur = [ln] if prose else []
            continue
        cur.append(ln)
    if len(cur) > 1:
        out.append(cur)
    return out


_FLOW_BUILTIN = {
    "secret-network": "flow-secret-network",
    "download-exec": "flow-download-exec",
    "persistence": "flow-persistence",
    "destruction": "flow-destruction",
    "kernel": "flow-kernel",
    "reverse-shell": "flow-reverse-shell",
}
#: Assembled strings longer than this are not rescanned (the regex pass saw their pieces).
MAX_ASSEMBLED = 64 * 1024
_SHEBANG = re.compile(r"^#!\s*(?:/usr/bin/env\s+(?:-S\s+)?)?\S*?(python[0-9.]*|(?:ba|z|da|k)?sh)\b")


def _language(rel: str, text: str) -> str | None:
    ext = _ext(rel)
    if ext in ("py", "pyw"):
        return "python"
    if ext in ("sh", "bash", "zsh", "ksh", "command"):
        return "shell"
    if ext in ("js", "mjs", "cjs", "jsx"):
        return "javascript"
    if ext in ("ts", "mts", "cts"):
        return "typescript"
    if ext == "tsx":
        return "tsx"
    if re.search(r"(?:^|/)\.?python(?:rc|startup)$", rel, re.I):
        return "python"  # the file PYTHONSTARTUP names, run by every interactive interpreter
    if ext in ("", "txt") and (m := _SHEBANG.match(text)):  # a script without an extension
        return "python" if m.group(1).startswith("python") else "shell"
    return None


def _read_code(
    rel: str, text: str, fctx: _context.FileContext, project: Project | None = None
) -> CodeFacts | None:
    """Parse the code in one file (or in a Markdown file's blocks) and follow its values; with
    `project`, values that come from or go to the skill's other files are followed there."""
    lang = _language(rel, text)
    facts = CodeFacts()
    if lang is not None:
        facts.extend(_read_file(lang, text, project, rel, False))
    elif fctx.markdown:
        for fence in fctx.fences:
            body, lang = fence.body, _context.JS_LANGS.get(fence.lang)
            if fence.lang in _context.SHELL_LANGS:
                if fence.lang in ("console", "shell-session", "terminal") or re.search(r"(?m)^\s*\$ ", body):
                    body = re.sub(r"(?m)^(\s*)\$ ", r"\1", body)
                facts.extend(_read_file("shell", body, project, rel, False), fence.first_line - 1)
                continue
            lang = "python" if fence.lang in _context.PYTHON_LANGS else lang
            if lang is not None:
                facts.extend(_read_file(lang, body, None, "", False), fence.first_line - 1)
        for line, cmd in fctx.bang:
            facts.extend(_read_file("shell", cmd, project, rel, False), line - 1)
    elif rel.rsplit("/", 1)[-1] == "package.json":
        _package_scripts(text, facts, project, rel)
    elif (script := _embedded_shell(rel, text)) is not None:
        # Makefile recipes, CI steps, Dockerfile RUN lines, commands in configuration are shell
        facts.extend(_read_file("shell", script, project, rel, False))
    elif _ext(rel) in _OTHER_CODE or _RUBY_BY_NAME.search(rel):
        from skillyard.install.scanner import _lexical

        facts.extend(_lexical.analyse(rel, text))
    else:
        return None
    if "#!" in text and not fctx.markdown:
        # a shell script the code keeps in a string (to write it out as a hook or a helper that
        # another program runs later) is read as the script it is
        for at, script in _scripts_in_strings(text, lang == "shell"):
            got = _read_file("shell", script, project, rel, False)
            facts.flows += [_flows.shifted(fl, at - 1) for fl in got.flows] if got is not None else []
    if facts.shell:
        # Commands code hands to a shell are read together: a download in one call and its
        # execution in the next is one flow.
        from skillyard.install.scanner import _shell

        origin = [n for n, _ in facts.shell]
        got = _shell.analyse("\n".join(c.replace("\n", " ") for _, c in facts.shell), depth=1)
        if got is not None:
            for fl in got.flows:
                at = origin[min(len(origin), fl.line) - 1]
                steps = tuple(
                    (origin[min(len(origin), k) - 1] if f is None else k, s, f) for k, s, f in fl.steps
                )
                fl = type(fl)(fl.kind, fl.severity, at, fl.text, steps)
                facts.flows.append(_with_stand_ins(fl, facts.stand_ins) if facts.stand_ins else fl)
            # a package the code publishes takes along what the skill wrote into it
            facts.sent_files += [(origin[min(len(origin), k) - 1], p, d) for k, p, d in got.sent_files]
    return facts


_SH_LINE = r"#!\s*/(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:ba|z|da|k)?sh\b"
#: A string that opens with a shell's `#!` line: in a block literal (a triple-quoted, backquoted or
#: template string), or as the first of a run of one-line literals (`printf '%s\n' '#!/bin/sh' 'cmd'`,
#: `["#!/bin/sh", "cmd"]`), which are then the script's lines.
_SCRIPT_BLOCK = re.compile(r'("""|\'\'\'|`)\\?\n?(' + _SH_LINE + r")")
_SCRIPT_LINES = re.compile(
    r"""(["'])(""" + _SH_LINE + r"""[^"'\n]*)\1((?:[\s,\\]*(["'])(?:(?!\4)[^\\\n]|\\.)*\4){1,200})"""
)
_SCRIPT_HEREDOC = re.compile(r"""<<<?[~-]?\s*(["']?)([A-Za-z_]\w*)\1[^\n]*\n[ \t]*(""" + _SH_LINE + ")")
_ITEM = re.compile(r"""(["'])((?:(?!\1)[^\\\n]|\\.)*)\1""")
_ESCAPES = {"\\": "\\", "n": "\n", "t": "\t", '"': '"', "'": "'", "`": "`"}


def _unescaped(s: str) -> str:
    return re.sub(r"\\([\\nt\"'`])", lambda m: _ESCAPES[m.group(1)], s)


def _scripts_in_strings(text: str, shell: bool) -> list[tuple[int, str]]:
    """(line, script) for each shell script a string literal of `text` holds (see `_SCRIPT_BLOCK`);
    in a shell file only the run of one-line literals (its heredocs are read by the shell reader)."""
    out: list[tuple[int, str]] = []
    for m in itertools.islice(_SCRIPT_LINES.finditer(text), 8):
        items = [m.group(2)] + [_unescaped(i.group(2)) for i in _ITEM.finditer(m.group(3))]
        out.append((text.count("\n", 0, m.start()) + 1, "\n".join(items)))
    for m in () if shell else itertools.islice(_SCRIPT_BLOCK.finditer(text), 8):
        end = text.find(m.group(1), m.end(), m.end() + 65536)
        if end > 0:
            body = text[m.start(2) : end]
            raw = m.group(1) == "`" or "r" in text[max(0, m.start() - 2) : m.start()].lower()  # r"""…"""
            out.append((text.count("\n", 0, m.start(2)) + 1, body if raw else _unescaped(body)))
    for m in () if shell else itertools.islice(_SCRIPT_HEREDOC.finditer(text), 8):
        # a here-document of Ruby, PHP or Perl, up to the line that holds its tag
        end = re.compile(rf"^[ \t]*{m.group(2)}\b", re.M).search(text, m.end(), m.end() + 65536)
        if end is not None:
            out.append((text.count("\n", 0, m.start(3)) + 1, text[m.start(3) : end.start()]))
    return out


def _read_file(lang: str, text: str, project: Project | None, rel: str, export: bool) -> CodeFacts | None:
    """One file of a language with a parser, read by its reader (`export`: also what it offers the
    skill's other files)."""
    if lang == "python":
        from skillyard.install.scanner import _python

        return _python.analyse(text, project, rel, export=export)
    if lang == "shell":
        from skillyard.install.scanner import _shell

        return _shell.analyse(text, 0, project, rel)
    from skillyard.install.scanner import _js

    return _js.analyse(text, lang, project, rel, export=export)


#: Code in languages without a parser, read lightly by `_lexical` (its EXTS, kept here so a skill
#: without such files never imports it).
_OTHER_CODE = frozenset(
    "go rb ps1 psm1 psd1 pl pm php rs java kt kts swift lua cs fs vb vbs r jl groovy gradle sbt scala ex exs "
    "dart c cc cpp cxx h hpp m mm nim cr zig clj hs ml tcl bat cmd el".split()
)
#: Files known by their name that their tools load and run: Ruby's (`rake`, `bundle`, `gem build`, `pod`).
_RUBY_BY_NAME = re.compile(
    r"(?:^|/)(?:(?:rake|gem|vagrant|guard|pod|fast|brew|cap|danger|berks)file|[^/]*\.(?:gemspec|rake|ru)"
    # interpreters' start-up files, run by every console the user opens (irb, pry, R, the Perl debugger)
    r"|\.?(?:irb|pry)rc|\.?Rprofile(?:\.site)?|\.?perldb)$",
    re.I,
)
#: Names and extensions of files that may hold shell commands in another syntax (`_recipes.kind`).
_EMBEDDING = re.compile(
    r"(?:^|/)(?:(?:gnu)?makefile(?:\.[^/]*)?|[^/]*\.mk|\.?justfile|[^/]*\.just|dockerfile(?:\.[^/]*)?|[^/]*\.dockerfile"
    r"|containerfile|[^/]*\.envrc|procfile|jenkinsfile|[^/]*\.groovy|[^/]*\.ya?ml|[^/]*\.jsonc?|[^/]*\.ini|[^/]*\.cfg)$",
    re.IGNORECASE,
)


def _ext(rel: str) -> str:
    base = rel.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[-1].lower() if "." in base else ""


def _embedded_shell(rel: str, text: str) -> str | None:
    if not _EMBEDDING.search(rel):
        return None
    from skillyard.install.scanner import _recipes

    return _recipes.to_shell(rel, text)


def _own_item(fl: Any, fctx: _context.FileContext, code_at: Callable[[int], str]) -> Any:
    """A secret sent from one keychain item the skill stores itself or has the user store (by its
    service name, not another program's item), weighed as the skill's own API token is."""
    said = "reads the macOS keychain and sends it to "
    if (
        fl.kind != "secret-network"
        or not fl.steps
        or fl.steps[0][2] is not None
        or not fl.text.startswith(said)
    ):
        return fl
    m = _context.KEYCHAIN_READ.search(code_at(fl.steps[0][0]))
    if m is None or m[2].lower() not in fctx.own_secrets:
        return fl
    item = _flows.Source(f"the keychain item {m[2]} (this skill's own)", fl.steps[0][0], False)
    sev, text = _flows.sent(item, fl.text[len(said) :])
    return _flows.Flow(fl.kind, sev, fl.line, text, (*fl.steps[:-1], (fl.line, text, None)))


def _with_stand_ins(fl: Any, stand_ins: dict[str, Any]) -> Any:
    """A flow the shell reader found in a command the code runs, told with the secret the code put
    into it (`reads $SY_SECRET_0 and sends it to ...` is `reads ~/.netrc and sends it to ...`)."""
    for var, src in stand_ins.items():
        ref = "$" + var
        if ref not in fl.text and "${" + var + "}" not in fl.text:
            continue
        text = fl.text.replace("${" + var + "}", ref).replace("reads " + ref, "reads " + src.what, 1)
        text = text.replace(ref, "DATA")
        sev = fl.severity
        dest = text.rsplit(" ", 1)[-1]
        if fl.kind == "secret-network" and _flows.sent(src, dest)[0] == "critical":
            sev = "critical"  # weighed as any secret sent
        return _flows.Flow(fl.kind, sev, fl.line, text, (*src.steps(), (fl.line, text, None)))
    return fl


#: npm runs these scripts by itself on `npm install` / `npm ci`, `npm version`, `npm publish`,
#: `npm pack` and `npm uninstall`, without the user naming them; and `preX`/`postX` around any X run.
_NPM_LIFECYCLE = (
    "preinstall install postinstall prepare preprepare postprepare preversion version postversion "
    "prepublishOnly prepublish publish postpublish prepack postpack preuninstall uninstall postuninstall "
    "dependencies"
).split()
_NPM_COMMANDS = frozenset("test start stop restart".split())


#: Commands of the system and of the tools that hold credentials, which a package must not replace.
_SYSTEM_COMMAND = re.compile(
    r"git|ssh|scp|sftp|ssh-add|ssh-agent|sudo|su|doas|passwd|login|gpg2?|curl|wget|ls|cat|cd|cp|mv|rm|env|bash|sh|zsh"
    r"|python3?|pip3?|node|npm|npx|yarn|pnpm|docker|kubectl|helm|aws|gcloud|az|gh|glab|op|vault|terraform|psql|mysql"
)


def _package_scripts(text: str, facts: CodeFacts, project: Project | None, rel: str) -> None:
    """package.json install hooks are shell commands that run on install: read them as shell."""
    try:
        data = json.loads(text)
    except ValueError:
        return
    lines = text.split("\n")
    bins = data.get("bin") if isinstance(data, dict) else None
    if isinstance(bins, str) and isinstance(data.get("name"), str):
        bins = {data["name"].rsplit("/", 1)[-1]: bins}
    for cmd in bins if isinstance(bins, dict) else ():
        if isinstance(cmd, str) and _SYSTEM_COMMAND.fullmatch(cmd):
            # `npm install -g` puts this command before the system's own on PATH: every later use of
            # it (and what it is handed: credentials, commits, passwords) goes through the package
            at = next((i for i, ln in enumerate(lines, 1) if f'"{cmd}"' in ln), 1)
            said = f"installs a command named {cmd} that runs instead of the system's own"
            facts.flows.append(_flows.flow("persistence", "high", at, said, None))
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return
    around = [
        k
        for k in scripts
        if (m := re.match(r"(?:pre|post)(.+)$", k)) and (m.group(1) in scripts or m.group(1) in _NPM_COMMANDS)
    ]
    for key in dict.fromkeys([*_NPM_LIFECYCLE, *around]):
        cmd = scripts.get(key)
        if not isinstance(cmd, str) or not cmd.strip():
            continue
        at = next((i for i, ln in enumerate(lines, 1) if f'"{key}"' in ln), 1)
        facts.extend(_read_file("shell", cmd, project, rel, False), at - 1)


def _report_code(
    facts: CodeFacts,
    fctx: _context.FileContext,
    text: str,
    rel: str,
    ctx: _Ctx,
    depth: int,
) -> None:
    physical = text.split("\n")

    def code_at(n: int) -> str:
        return physical[n - 1] if 0 < n <= len(physical) else ""

    for fl in facts.flows:
        fl = _own_item(fl, fctx, code_at)
        r = ctx.builtins.get(_FLOW_BUILTIN[fl.kind])
        if r is None:
            continue
        # in Markdown, a command in a sentence is weighed by the words before it, as rules are
        said = code_at(fl.line) if fctx.markdown else ""
        ctx.add(
            r,
            rel,
            fl.line,
            snippet(code_at(fl.line) or fl.text),
            title=f"{r.title}: {fl.text}",
            severity=fl.severity,
            demote=fctx.demotion(fl.line, r.category, r.id, said, max(said.find("`"), 0)),
            flow=tuple((n, step, rel if f is None else f) for n, step, f in fl.steps),
        )
    asm = ctx.builtins.get("assembled-command")
    if asm is None or depth >= MAX_DECODE_DEPTH:
        return
    done: set[tuple[int, str]] = set()
    for line, code in facts.assembled:
        if len(code) > MAX_ASSEMBLED or (line, code) in done or code.strip() in code_at(line):
            continue
        done.add((line, code))
        here = {f.rule_id for f in ctx.findings if f.file == rel and f.line == line}
        if worst := _rescan(code, rel, ctx, depth, line, here):
            ctx.add(
                asm,
                rel,
                line,
                snippet(f"assembles to: {code}"),
                title=f"{asm.title}: {worst.title}",
                severity=worst.severity,
                demote=fctx.demotion(line, asm.category, asm.id, "", 0),
            )


def _rescan(
    text: str, rel: str, ctx: _Ctx, depth: int, line: int, known: frozenset[str] | set[str] = frozenset()
) -> Finding | None:
    """The worst high or critical finding in `text` (decoded or assembled from the line `line`),
    scanned again as if it stood there; rules already reported at that line (`known`) are left out."""
    inner = _Ctx(ctx.rules, ctx.policy, [], {})
    scan_text(text, rel, rules=ctx.rules, _ctx=inner, _depth=depth + 1, _line_base=line)
    high = SEVERITY_RANK["high"]
    bad = [f for f in inner.findings if SEVERITY_RANK[f.severity] >= high and f.rule_id not in known]
    return max(bad, key=lambda f: SEVERITY_RANK[f.severity], default=None)


def _padding(lines: list[Line], rel: str, ctx: _Ctx, where: Any) -> None:
    run = 0
    run_start = 0
    for ln in lines:
        if not ln.text.strip():
            if run == 0:
                run_start = ln.number
            run += 1
            continue
        if run >= 200:
            text = f"{run} blank lines (from line {run_start}) before: {ln.display}"
            ctx.flag("padding-blank-lines", rel, where(ln.number), snippet(text))
        run = 0
    for ln in lines:
        if len(ln.display) >= 1000 and (m := re.search(r"[ \t\u00a0]{1000,}", ln.display)):
            tail = ln.display[m.end() :].strip() or "(end of line)"
            text = f"{m.end() - m.start()} spaces hide: {tail}"
            ctx.flag("padding-long-whitespace", rel, where(ln.number), snippet(text))


# ---------------------------------------------------------------- files

_MEDIA_EXT = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "bmp": "image/bmp",
    "ico": "image/x-icon",
    "pdf": "application/pdf",
    "woff": "application/font-woff",
    "woff2": "application/font-woff",
    "ttf": "application/font-sfnt",
    "otf": "application/font-sfnt",
    "mp3": "audio/mpeg",
    "wav": "audio/x-wav",
    "ogg": "audio/ogg",
    "mp4": "video/mp4",
    "webm": "video/webm",
}
# package formats that are zip files by definition (Python wheels and eggs, Java, Android and
# iOS apps, browser and editor extensions, NuGet, packaged skills), whatever the platform's type table says
_ZIP_PACKAGES = {"whl", "egg", "jar", "war", "ear", "aar", "apk", "ipa", "xpi", "vsix", "nupkg", "skill"}
_TEXTISH_EXT = {"md", "txt", "json", "yaml", "yml", "toml", "csv", "svg", "html", "xml", "ini", "cfg"}
_ARCHIVE_MIME = set(
    "application/zip application/gzip application/x-tar application/x-7z-compressed "
    "application/x-rar-compressed application/x-bzip2 application/x-xz application/zstd".split()
)
_EXEC_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
    b"MZ",
)


#: Text standing in for a media file: a Git LFS pointer (the real file lives in LFS), the path a
#: symbolic link checked out as a file holds, a test fixture's one-line placeholder.
_STAND_IN = re.compile(
    rb"version https://git-lfs\.github\.com/spec/v1\noid sha256:[0-9a-f]{64}\nsize \d+\n?|[\w .,()/-]{1,200}\n?"
)
#: A magic number without even the fields that name its machine and format version (24 bytes of
#: ELF; Mach-O's header is 28, a PE header follows a 64-byte DOS stub) is no program.
_MIN_EXEC = 24


def _mime(head: bytes) -> str | None:
    import filetype

    try:
        kind = filetype.guess(head)
    except Exception:
        return None
    return kind.mime if kind is not None else None


def _read_for_scan(full: Path, rel: str, root: Path | None) -> Bounded:
    """At most MAX_SCAN_BYTES of a regular file, never through a link (below `root` when given)
    and never from a FIFO, so a file swapped after the walk cannot lead the scan elsewhere.
    A file already too large when opened is not read at all."""
    if root is not None:
        fd = open_under(root, rel)
    else:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(full))
        if st.st_size > MAX_SCAN_BYTES:
            return Bounded(b"", True, st.st_size, st.st_mtime_ns)
        data, more = read_fd_bounded(fd, MAX_SCAN_BYTES)
        return Bounded(data, more, max(st.st_size, len(data) + more), st.st_mtime_ns)
    finally:
        os.close(fd)


def _scan_file(full: Path, rel: str, ctx: _Ctx, root: Path | None = None) -> None:
    """Scan one regular file, read bounded and never through a link."""
    got = _read_for_scan(full, rel, root)
    if got.truncated:
        ctx.flag("oversized-file", rel, None, snippet(f"{got.size} bytes (scan limit {MAX_SCAN_BYTES})"))
    elif rel.endswith(".pyc") and (source := _bytecode.cache_of_source(root, rel, full, got.data)):
        ctx.flag(
            "binary-executable",
            rel,
            None,
            snippet(f"compiled bytecode ({len(got.data)} bytes)"),
            f" (Python's cache of {source}: the same bytes as compiling it, which is scanned)",
            severity="low",
        )
    else:
        _scan_bytes(got.data, rel, ctx, 0)


def _scan_archive(data: bytes, rel: str, ctx: _Ctx, nesting: int) -> None:
    """List an archive: encrypted is a finding by itself; members of a readable one are scanned."""
    listing = _archive.inspect(data, passwords=ctx.passwords)
    if listing.encrypted and listing.opened:
        # the skill gives the password: nothing is hidden from the scan, every member is read below
        ctx.flag(
            "encrypted-archive",
            rel,
            None,
            snippet(f"{listing.kind} archive with password-protected content ({len(data)} bytes)"),
            " (opened with the password the skill gives; its members are scanned)",
            severity="low",
        )
    elif listing.encrypted:
        fixture = ctx.fixtures.get(rel) if nesting == 0 else None
        ctx.flag(
            "encrypted-archive",
            rel,
            None,
            snippet(f"{listing.kind} archive with password-protected content ({len(data)} bytes)"),
            f" (a small test fixture of an archive skill, holding {fixture})" if fixture else "",
            severity="medium" if fixture else None,
        )
    if listing.unreadable or nesting >= _archive.MAX_NESTING:
        why = listing.unreadable or "archive nested too deeply"
        text = f"{listing.kind} archive ({len(data)} bytes) cannot be scanned: {why}"
        ctx.flag("nested-archive", rel, None, snippet(text))
        if nesting >= _archive.MAX_NESTING:
            return
    else:
        text = f"{listing.kind} archive: {len(listing.members)} member(s) listed and scanned"
        ctx.flag("nested-archive", rel, None, snippet(text), severity="low")
    for name, body in listing.members:
        check_deadline()
        _scan_bytes(body, f"{rel}!/{name}", ctx, nesting + 1)


#: extensions that say only "bytes", no kind of content
_UNTYPED_EXT = frozenset({"bin", "dat", "data", "raw", "blob"})


def _scan_bytes(data: bytes, rel: str, ctx: _Ctx, nesting: int) -> None:
    """Scan one file's content (a file of the skill or an archive member)."""
    ext = _ext(rel)
    size = len(data)
    if size > MAX_SCAN_BYTES:
        ctx.flag("oversized-file", rel, None, snippet(f"{size} bytes (scan limit {MAX_SCAN_BYTES})"))
        return
    head = data[:8192]
    mime = _mime(head)
    is_exec = size >= _MIN_EXEC and (
        head.startswith(_EXEC_MAGIC[:-1]) or (head.startswith(b"MZ") and b"PE\x00\x00" in head[:1024])
    )
    if ext in ("pyc", "pyo") or is_exec or mime in ("application/x-executable", "application/x-mach-binary"):
        what = "compiled bytecode" if ext in ("pyc", "pyo") else "native executable"
        ctx.flag("binary-executable", rel, None, snippet(f"{what} ({size} bytes)"))
        if ext in _MEDIA_EXT or ext in _TEXTISH_EXT:
            ctx.flag("misleading-file-type", rel, None, snippet(f".{ext} file is actually an executable"))
        return
    if (
        mime in _ARCHIVE_MIME
        or _archive.kind_of(head) in ("zip", "7z", "rar", "tar")
        or _archive.zip_after(data)
    ):
        # a zip behind a prefix is a zip too: Python runs a zipapp (`#!` line, then the zip), shells
        # unpack self-extracting scripts, and a picture with a zip appended opens in any unzip tool
        _scan_archive(data, rel, ctx, nesting)
        own = mimetypes.guess_type(rel)[0]  # an office document or a Java archive is a zip by design
        if mime == "application/zip" and ext in _ZIP_PACKAGES:
            own = mime
        if mime and mime != own and ext not in ("zip", "gz", "tgz", "tar", "7z", "rar", "bz2", "xz", "zst"):
            text = f".{ext or '(no extension)'} file is actually {mime}"
            ctx.flag("misleading-file-type", rel, None, snippet(text))
        return
    if ext in _MEDIA_EXT:
        expected = _MEDIA_EXT[ext]
        if mime != expected and not (mime and mime.split("/")[0] == expected.split("/")[0]):
            what = mime or ("text" if b"\x00" not in head else "unknown binary data")
            if what != "text" or not _STAND_IN.fullmatch(data):
                ctx.flag("misleading-file-type", rel, None, snippet(f".{ext} file contains {what}"))
            if b"\x00" not in head:
                _scan_decoded(data, rel, ctx)
        return
    if mime and mime.split("/")[0] in ("image", "audio", "video", "font"):
        if ext not in _MEDIA_EXT and ext != "svg":
            text = f".{ext or '(no extension)'} file is actually {mime}"
            # `.bin`, `.dat`: an extension that claims no type hides nothing when the bytes are a picture
            ctx.flag(
                "misleading-file-type",
                rel,
                None,
                snippet(text),
                severity="low" if ext in _UNTYPED_EXT else None,
            )
        return
    if b"\x00" in head:
        text = f"binary data ({mime or 'unknown type'}, {size} bytes)"
        ctx.flag("unknown-binary", rel, None, snippet(text))
        return
    if (mapped := _source_map(rel, data)) is not None:
        # a JavaScript source map holds each source it maps on one JSON line: each is read on its
        # own lines, as code of the mapped file's language, and the rest of the map as it is
        _scan_decoded(mapped[0], rel, ctx)
        for i, (name, body) in enumerate(mapped[1][:MAX_MAP_SOURCES]):
            check_deadline()
            _scan_bytes(body, f"{rel}!/sourcesContent[{i}].{name}", ctx, nesting + 1)
        rest: dict[str, list[bytes]] = {}
        for name, body in mapped[1][MAX_MAP_SOURCES:]:
            rest.setdefault(name, []).append(body)
        for name, bodies in rest.items():  # (past that many, the sources of each language as one file)
            check_deadline()
            joined = b"\n".join(bodies)
            _scan_bytes(joined, f"{rel}!/sourcesContent[{MAX_MAP_SOURCES}:].{name}", ctx, nesting + 1)
        return
    _scan_decoded(data, rel, ctx)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key repeats (a parser keeping the last would hide the first)."""
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("a key repeats")
    return dict(pairs)


#: At most this many sources of a source map are read each as a file of its own.
MAX_MAP_SOURCES = 256


def _source_map(rel: str, data: bytes) -> tuple[bytes, list[tuple[str, bytes]]] | None:
    """A `.js.map`'s text without its `sourcesContent`, and each source with the extension it is
    read under (its own when it names JavaScript or TypeScript, else the mapped file's)."""
    base = rel.rsplit("/", 1)[-1].lower()
    mapped = base[:-4].rsplit(".", 1)[-1] if base.endswith(".map") and "." in base[:-4] else ""
    if f".{mapped}" not in JS_EXTS or data.lstrip()[:1] != b"{":
        return None
    try:
        doc = json.loads(data, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or not isinstance(bodies := doc.pop("sourcesContent", None), list):
        return None
    names = doc.get("sources") if isinstance(doc.get("sources"), list) else []
    out = []
    for i, body in enumerate(bodies):
        if body is None:
            continue
        if not isinstance(body, str):
            return None
        own = _ext(names[i]) if i < len(names) and isinstance(names[i], str) else ""
        out.append((own if f".{own}" in JS_EXTS else mapped, body.encode("utf-8", "backslashreplace")))
    return json.dumps(doc, ensure_ascii=False).encode("utf-8", "backslashreplace"), out


def _scan_decoded(data: bytes, rel: str, ctx: _Ctx) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        ctx.flag("invalid-utf8", rel, line, snippet(f"invalid UTF-8 at byte {e.start}"))
        text = data.decode("utf-8", errors="replace")
    declared = _declared_source(data)
    if declared is not None and _NON_ASCII.sub("", declared) != _NON_ASCII.sub("", text):
        # Python reads the file in the encoding its first lines name (`# coding: utf-7`): other code
        ctx.flag(
            "invalid-utf8", rel, 1, snippet("a declared source encoding reads other code than the bytes show")
        )
        text = declared
    scan_text(text, rel, rules=ctx.rules, _ctx=ctx)


#: PEP 263: the encoding a comment on a source file's first or second line declares.
_CODING = re.compile(rb"^[ \t\f]*#[^\r\n]*?coding[:=][ \t]*([-\w.]+)")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _declared_source(data: bytes) -> str | None:
    """The text Python reads from `data` in the encoding it declares, None without one (or UTF-8)."""
    for line in re.split(rb"\r\n?|\n", data, maxsplit=2)[:2]:
        if m := _CODING.match(line):
            try:
                return None if codecs.lookup(m[1].decode()).name == "utf-8" else data.decode(m[1].decode())
            except Exception:  # an unknown or non-text codec, bytes it cannot decode: Python refuses it too
                return None
        if line.strip(b" \t\f\xef\xbb\xbf")[:1] not in (b"", b"#"):
            return None  # a second line's declaration counts only after a comment or a blank line
    return None


def _iter_files(root: Path) -> Iterator[tuple[str, Path, os.stat_result]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            full = Path(dirpath) / name
            rel = name if rel_dir == "." else f"{rel_dir.replace(os.sep, '/')}/{name}"
            try:
                st = os.lstat(full)
            except OSError:
                continue
            yield rel, full, st


#: A front matter `name:` YAML reads as that very string (no quotes, tags, anchors, numbers, booleans).
_PLAIN_NAME = re.compile(r"^name:[ \t]*([A-Za-z0-9][A-Za-z0-9._ -]{0,63}?)[ \t]*$")
_NOT_STR = re.compile(r"(?i)(?:true|false|yes|no|on|off|null|y|n|[-+]?[\d._]+(?:e[-+]?\d+)?)")
#: One front matter line YAML reads as a plain `key: text` (or a nested one, or a list item) with no
#: syntax in the text that could make the block invalid: then the parser would accept the block.
_SIMPLE_LINE = re.compile(
    r"""^(?:[ ]{2,}(?:-[ ]+)?)?(?:[A-Za-z_][\w-]*:(?:[ ]+(?:"[^"\\\n]*"|'[^'\n]*'"""
    r"""|\[(?:[ ]*[A-Za-z0-9_][\w .()/*-]*(?:,[ ]*[A-Za-z0-9_][\w .()/*-]*)*)?[ ]*\]|"""
    r"""[^\s'"|>\[\]{}&*!%@`#,?:-](?:(?!:[ ]|[ ]\#)[^\n])*?(?<!:)))?|-[ ]+[^\s'"|>\[\]{}&*!%@`#?:-][^:\n#]*)[ ]*$"""
)


def _front_matter_name(p: Path) -> str | None:
    """The `name` of a SKILL.md whose front matter is plain `key: text` lines with a plain name and
    a description, read without the YAML parser (importing the skill parser costs an `audit`
    process more than scanning a small skill). Anything else is left to the parser."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(16384).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    head = head.removeprefix("\ufeff").replace("\r\n", "\n")
    if not head.startswith("---\n"):
        return None
    end = head.find("\n---\n", 3)
    if end == -1:
        return None
    lines = head[4:end].split("\n")
    if not all(_SIMPLE_LINE.match(ln) or not ln.strip() for ln in lines):
        return None
    filled = [ln for ln in lines if ln.strip()]
    if any(a.startswith("name:") and b[:1].isspace() for a, b in zip(filled, filled[1:], strict=False)):
        return None  # an indented line continues the name (`name: X` then `  - item` is "X - item")
    names = [m.group(1) for ln in lines if (m := _PLAIN_NAME.match(ln))]
    keys = [ln.split(":", 1)[0] for ln in lines if ln[:1].isalpha() or ln[:1] == "_"]
    desc = [ln.split(":", 1)[1].strip().strip("'\"") for ln in lines if ln.startswith("description:")]
    if (
        len(names) != 1
        or keys.count("name") != 1
        or len(keys) != len(set(keys))
        or _NOT_STR.fullmatch(names[0])
    ):
        return None
    if len(desc) != 1 or not desc[0] or _NOT_STR.fullmatch(desc[0]):
        return None
    return names[0]


def _skill_name(root: Path) -> str | None:
    for fname in ("SKILL.md", "skill.md", "SKILL.toml"):
        p = root / fname
        if p.is_file():
            if fname != "SKILL.toml" and (quick := _front_matter_name(p)) is not None:
                return quick
            try:
                from skillyard.parsing import parse_skill

                skill, _ = parse_skill(p)
                if skill is not None:
                    return skill.name
            except Exception:
                pass
            return root.name
    return root.name if root.is_dir() else None


def scan_path(
    path: str | os.PathLike[str],
    *,
    policy: ScanPolicy | None = None,
    rules: tuple[Rule, ...] | None = None,
    name: str | None = None,
    max_seconds: float | None = MAX_SCAN_SECONDS,
) -> ScanReport:
    """Scan a skill directory (every file, SKILL.md first) or a single file.

    Input crafted to be slow to match runs into `max_seconds`; what was not scanned by then is
    reported as a critical finding, so such a package is refused rather than waved through.
    """
    previous = getattr(_deadline, "at", None)
    _deadline.at = time.monotonic() + max_seconds if max_seconds else None
    try:
        return _scan_path(path, policy=policy, rules=rules, name=name)
    finally:
        _deadline.at = previous


def _scan_path(
    path: str | os.PathLike[str],
    *,
    policy: ScanPolicy | None,
    rules: tuple[Rule, ...] | None,
    name: str | None,
) -> ScanReport:
    root = Path(path)
    rules = rules if rules is not None else load_rules()
    policy = policy or ScanPolicy()
    ctx = _Ctx(rules, policy, [], {})
    report = ScanReport(str(root), name, ctx.findings, policy)
    if root.is_file() and not root.is_symlink():
        report.name = name or root.parent.name
        try:
            _scan_file(root, root.name, ctx)
        except ScanTimeout:
            _timed_out(ctx, root.name)
        except Exception as e:
            _failed(ctx, root.name, e)
        report.files_scanned = 1
        return _finish(report)
    if not root.is_dir():
        raise FileNotFoundError(f"no such skill directory or file: {root}")
    report.name = name or _skill_name(root)
    entries = list(_iter_files(root))
    entries.sort(key=lambda e: (e[0].lower() not in ("skill.md", "skill.toml"), e[0]))
    ctx.project = _project(root, entries)
    ctx.fixtures = _protected_fixtures(root, entries)
    ctx.named_elsewhere = lambda rel: _named_by_another(root, entries, rel)
    ctx.passwords, ctx.opened = _given_passwords(root, entries)
    ctx.package_scripts = _root_scripts(root, entries)
    for rel, full, st in entries[:MAX_SCAN_FILES]:
        if stat.S_ISLNK(st.st_mode):
            continue  # hygiene decides about links; their targets are scanned as the files they are
        if not stat.S_ISREG(st.st_mode):
            ctx.flag("special-file", rel, None, snippet("device, FIFO or socket"))
            continue
        try:
            _scan_file(full, rel, ctx, root)
        except ScanTimeout:
            _timed_out(ctx, rel)
            break
        except OSError as e:
            ctx.flag("unknown-binary", rel, None, snippet(f"unreadable: {e.strerror}"))
            continue
        except Exception as e:
            _failed(ctx, rel, e)
            continue
        report.files_scanned += 1
    _sent_stashes(ctx)
    bidi = ctx.builtins.get("bidi-control")
    if (
        bidi is not None
        and ctx.samples
        and _runs_a_member(root, entries, sorted(ctx.samples), set(ctx.samples), samples=True)
    ):
        # a sample text some file of the skill runs is code: its bidi controls weigh in full
        sev = policy.severity_for(bidi.id, bidi.severity)
        ctx.findings[:] = [
            replace(f, severity=sev, title=bidi.title)
            if f.rule_id == bidi.id and f.file in ctx.samples
            else f
            for f in ctx.findings
        ]
    if any(
        f.category in ("persistence", "agent-config-tampering", "obfuscated-execution") for f in ctx.findings
    ):
        from skillyard.install.scanner import _purpose  # only a skill that persists something pays for it

        overridden = {r for r, _ in policy.severity_overrides}
        skill_md = _text(root, "SKILL.md") or ""
        files = [rel for rel, _, st in entries if not stat.S_ISDIR(st.st_mode)]  # a link is never excused
        lowered = list(ctx.findings)
        try:
            _purpose.lower(lowered, rules, skill_md, lambda rel: _text(root, rel), files, overridden)
        except Exception as e:  # a fault here keeps every finding as found (fail closed), and says so
            _failed(ctx, "SKILL.md", e)
        else:
            ctx.findings[:] = lowered
    if len(entries) > MAX_SCAN_FILES:
        ctx.flag("oversized-file", ".", None, snippet(f"{len(entries)} files (scan limit {MAX_SCAN_FILES})"))
    return _finish(report)


def _text(root: Path, rel: str) -> str | None:
    """A file of the skill as text, read as the scan reads it (None when it cannot be)."""
    try:
        got = _read_for_scan(root / rel, rel, root)
    except (OSError, ValueError):
        return None
    return None if got.truncated else got.data.decode("utf-8", "replace")


#: A skill whose name or description is about archives: its tests may need a protected one.
_ARCHIVE_SKILL = re.compile(
    r"\b(?:zip|unzip|archives?|tarballs?|tar|7z|7-zip|rar|compress\w*|decompress\w*|extract\w*|unpack\w*)\b",
    re.I,
)
#: Files under a test folder with these extensions are sample text, never run or imported.
_SAMPLE_EXTS = frozenset("txt csv tsv json snap golden expected out log".split())
_FIXTURE_DIR = re.compile(r"(?:^|/)(?:tests?|testdata|test_data|fixtures|__fixtures__)/")
#: Member names a protected fixture may hold: data, never code, programs or other archives.
_DATA_MEMBER = re.compile(
    r"^[\w .-]+(?:/[\w .-]+)*\.(?:txt|md|json|csv|tsv|xml|ya?ml|log|dat|png|jpe?g|gif|pdf)$", re.I
)
MAX_FIXTURE_BYTES = 64 * 1024
#: General unpackers given a password on the same line: the "unpack with password X" lure.
_UNPACKS = re.compile(r"\bunzip\b|\b7z[a-z]?\s+[xe]\b|\bbsdtar\b|\btar\s+-?\w*x", re.I)
#: Words that run a file named next to them.
#: Calls that run text as code (a sample read into a name and evaluated lines later).
_EVALS = re.compile(
    r"(?<![\w.])(?:exec|eval|compile|execfile)\s*\(|\b(?:run_path|runInThisContext|runInNewContext)\s*\("
    r"|\bnew\s+Function\s*\("
)
_RUNS_FILE = (
    r"\b(?:sh|bash|zsh|source|python[\d.]*|node|perl|ruby|pwsh|powershell|exec|execfile|run_path|runpy"
    r"|subprocess|system|spawn|chmod|eval|import_module|Popen|check_call|check_output)\b"
)


def _protected_fixtures(root: Path, entries: list[tuple[str, Path, os.stat_result]]) -> dict[str, str]:
    """Encrypted zips that an archive skill keeps as test fixtures: small, under a test or fixtures
    folder, and holding only data files by name (zip lists names even when it encrypts content).
    Those are reported at medium instead of high (docs/scanner.md says why)."""
    found = [
        (rel, full)
        for rel, full, st in entries
        if stat.S_ISREG(st.st_mode) and 0 < st.st_size <= MAX_FIXTURE_BYTES and _FIXTURE_DIR.search(rel)
    ]
    if not found:
        return {}
    try:
        head = _read_for_scan(root / "SKILL.md", "SKILL.md", root).data[:8192].decode("utf-8", "replace")
    except OSError:
        return {}
    front = head.split("---", 2)[1] if head.startswith("---") and head.count("---") >= 2 else ""
    about = " ".join(ln for ln in front.split("\n") if ln.strip().startswith(("name:", "description:")))
    if not _ARCHIVE_SKILL.search(about):
        return {}

    out: dict[str, str] = {}
    for rel, full in found:
        try:
            data = _read_for_scan(full, rel, root).data
            if _archive.kind_of(data) != "zip":
                continue
            names = [i.filename for i in zipfile.ZipFile(io.BytesIO(data)).infolist() if not i.is_dir()]
        except (OSError, zipfile.BadZipFile, ValueError, EOFError):
            continue
        if names and len(names) <= 16 and all(_DATA_MEMBER.match(n) and ".." not in n for n in names):
            out[rel] = ", ".join(names)
    if out and _runs_a_member(root, entries, [n for v in out.values() for n in v.split(", ")], set(out)):
        return {}
    return out


def _runs_a_member(
    root: Path,
    entries: list[tuple[str, Path, os.stat_result]],
    names: list[str],
    skip: set[str],
    samples: bool = False,
) -> bool:
    """Whether any text file of the skill (its tests too) runs a file named like a fixture's
    member (`sh /tmp/x/notes.txt` after unpacking it): then the fixture is a payload, whatever
    it is called. `samples`: test sample texts, also run when a line names one before what runs
    it (`cat x.txt | sh`, copied to `x.py`), or when a file naming one or its folder (a glob)
    evaluates text anywhere (`code = open(p).read()` … `exec(code)`)."""
    bases = {n.rsplit("/", 1)[-1] for n in names}
    name = rf"(?<![\w.-])(?:{'|'.join(re.escape(b) for b in bases)})(?![\w-])"
    pat = re.compile(rf"{_RUNS_FILE}[^\n]{{0,120}}{name}", re.I)
    folders = {n.rsplit("/", 1)[0] for n in names if "/" in n}
    named = re.compile(rf"(?<![\w.-])(?:{'|'.join(re.escape(x) for x in sorted(bases | folders))})(?![\w-])")
    for rel, full, st in entries[:MAX_PROJECT_FILES]:
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PROJECT_BYTES or rel in skip:
            continue
        try:
            data = _read_for_scan(full, rel, root).data
        except OSError:
            continue
        text = data.decode("utf-8", "replace")
        if b"\x00" in data[:8192]:
            continue
        if _runs_sample(text, re.compile(name.lower()), named) if samples else pat.search(text):
            return True
    return False


#: JavaScript files, whose arrays of strings are data only while no other file names them.
_JS_DATA = frozenset({"js", "mjs", "cjs", "ts", "mts", "cts"})


def _named_by_another(root: Path, entries: list[tuple[str, Path, os.stat_result]], rel: str) -> bool:
    """Whether a text file of the skill other than `rel` names it (`samples.js`, `./lib/samples`)."""
    base = rel.rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0]
    pat = re.compile(rf"(?<![\w.-]){re.escape(base)}(?![\w-])|/{re.escape(stem)}[\"'`)]")
    for other, full, st in entries[:MAX_PROJECT_FILES]:
        if other == rel or not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PROJECT_BYTES:
            continue
        try:
            data = _read_for_scan(full, other, root).data
        except OSError:
            continue
        if b"\x00" not in data[:8192] and pat.search(data.decode("utf-8", "replace")):
            return True
    return False


_COPIES = re.compile(r"\b(?:cp|mv|copy\w*|move|rename)\b")
_CODE_NAME = re.compile(r"[\w-]\.(?:py|sh|bash|js|mjs|cjs|rb|pl|php|ps1)\b")
_RUNS_LOWER = re.compile(_RUNS_FILE.lower())


def _runs_sample(text: str, name: re.Pattern[str], named: re.Pattern[str]) -> bool:
    """A sample named after or before what runs it on its line (`sh x.txt`, `cat x.txt | sh`),
    copied to a program (`cp x.txt x.py`), or named (or its folder) in a file that evaluates text
    anywhere. Positions are found once (in lower case, without case-folding matches) and paired
    by distance, so the cost stays linear on long lines."""
    if _EVALS.search(text) and named.search(text):
        return True
    low = text.lower()
    spots = [(m.start(), m.end()) for m in name.finditer(low)]
    if not spots:
        return False
    hits = [m.span() for m in _RUNS_LOWER.finditer(low)]
    runs, ran = [a for a, _ in hits], [b for _, b in hits]
    copies = [m.end() for m in _COPIES.finditer(low)]
    codes = [m.end() for m in _CODE_NAME.finditer(low)]

    def near(a: int, b: int) -> bool:
        return 0 <= b - a <= 120 and "\n" not in low[a:b]

    for start, end in spots:
        k = bisect.bisect_left(runs, end)
        if k < len(runs) and near(end, runs[k]):
            return True
        k = bisect.bisect_right(ran, start) - 1
        if k >= 0 and near(ran[k], start):
            return True
        i, j = bisect.bisect_right(copies, start) - 1, bisect.bisect_right(codes, end)
        if i >= 0 and j < len(codes) and near(copies[i], start) and near(end, codes[j]):
            return True
    return False


#: A password SKILL.md gives: `password: x`, `(password `x`)`, `unzip -P x`, `7z x -px`.
_GIVEN_PASSWORD = re.compile(
    r"""\bpassword\b\s*(?:is\s*)?[:=]?\s*[`'"]([^\s`'"]{1,64})[`'"]|\bunzip\s+(?:-\S+\s+)*-P\s*([^\s`'"]{1,64})"""
    r"""|\b7z[a-z]?\s+x\b[^\n`]*\s-p([^\s`'"]{1,64})""",
    re.I,
)


def _given_passwords(
    root: Path, entries: list[tuple[str, Path, os.stat_result]]
) -> tuple[tuple[bytes, ...], dict[str, str]]:
    """The passwords SKILL.md gives, and the skill's encrypted zips they open whole (-> their
    member names). A password a skill prints next to its archive hides nothing from the scan."""
    try:
        text = _read_for_scan(root / "SKILL.md", "SKILL.md", root).data[:65536].decode("utf-8", "replace")
    except OSError:
        return (), {}
    pwds = tuple(
        dict.fromkeys(next(g for g in m.groups() if g).encode() for m in _GIVEN_PASSWORD.finditer(text))
    )[:8]
    if not pwds:
        return (), {}
    out: dict[str, str] = {}
    for rel, full, st in entries:
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FIXTURE_BYTES * 16 or len(out) >= 8:
            continue
        try:
            data = _read_for_scan(full, rel, root).data
        except OSError:
            continue
        if _archive.kind_of(data) != "zip" or re.search(rf"://\S*/{re.escape(Path(rel).name)}\b", text):
            continue  # (one of that name downloaded is another archive, which the password opens)
        listing = _archive.inspect(data, passwords=pwds)
        # every member read as text or media: an opaque one (a blob, an archive inside) was not read
        if listing.opened and not listing.unreadable and not any(_opaque(b) for _, b in listing.members):
            out[rel] = ", ".join(n for n, _ in listing.members)
    return pwds, out


def _root_scripts(root: Path, entries: list[tuple[str, Path, os.stat_result]]) -> dict[str, str]:
    """The `scripts` of the skill's root `package.json`, or nothing when it does not parse."""
    if not any(rel == "package.json" and stat.S_ISREG(st.st_mode) for rel, _, st in entries):
        return {}
    try:
        doc = json.loads(_read_for_scan(root / "package.json", "package.json", root).data[:262144])
    except (OSError, ValueError, RecursionError):
        return {}
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    return {k: v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {}


#: A command line that runs one program with plain arguments: no shell syntax, no expansion.
_PLAIN_RUN = re.compile(r"[\w@/.-]+(?:\s+[\w@/.,:=+-]+)*")
#: Build and watch programs of web projects (compilers of styles, scripts and pages, bundlers): a
#: folder-open task running one of these on the project's files is a build, anything else is not.
_BUILDERS = frozenset(
    "sass node-sass lessc stylus tailwindcss postcss tsc esbuild vite webpack rollup parcel eleventy "
    "astro next nuxt svelte-kit vue-cli-service ng react-scripts gatsby docusaurus hugo".split()
)


def _build_on_open(text: str, scripts: dict[str, str]) -> bool:
    """Whether every task of a VS Code `tasks.json` set to run when the folder opens is an npm task of
    the skill's own `package.json` whose script runs one known build program by its bare name, with
    plain arguments (`tailwindcss -i src/in.css --watch`), and depends on no other task. Anything
    else, or a file that does not parse as JSON, is not."""
    if not scripts:
        return False
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return False
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if not isinstance(tasks, list):
        return False
    found = False
    for t in tasks:
        if not isinstance(t, dict):
            return False
        opts = t.get("runOptions")
        if not (isinstance(opts, dict) and opts.get("runOn") == "folderOpen"):
            continue
        cmd = (
            scripts.get(t.get("script"))
            if t.get("type") == "npm" and isinstance(t.get("script"), str)
            else None
        )
        if cmd is None or "dependsOn" in t or not _PLAIN_RUN.fullmatch(cmd.strip()):
            return False
        if cmd.split()[0] not in _BUILDERS:
            return False
        found = True
    return found


def _opaque(data: bytes) -> bool:
    """Bytes the scan cannot read through: binary that is not a picture, sound, video or font."""
    mime = _mime(data[:8192]) or ""
    return b"\x00" in data[:8192] and mime.split("/")[0] not in ("image", "audio", "video", "font")


def _names_fixture(line: str, fixtures: dict[str, str], rel: str = "") -> bool:
    """A line that gives a protected fixture's password without unpacking anything, or a line of
    the skill's own tests that unpacks the fixture (its members are data by name, and no file of
    the skill runs one, else there would be no fixtures)."""
    named = any(f in line or f.rsplit("/", 1)[-1] in line for f in fixtures)
    return named and (not _UNPACKS.search(line) or bool(_FIXTURE_DIR.search(rel)))


#: Code files looked at ahead so one file can follow values into another (beyond these, files
#: are still scanned on their own).
MAX_PROJECT_FILES = 200
MAX_PROJECT_BYTES = 512 * 1024


_PY_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w., \t]*)|import[ \t]+([\w., \t]+))", re.M
)
_SH_SOURCE = re.compile(r"(?:^|[;&|({][ \t]*)(?:source|\.)[ \t]+([^\n;&|]+)", re.M)
_JS_IMPORT = re.compile(r"""(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s+)["'](\.{1,2}/[^"'\n]+)["']""")
#: Extensions of the files that can import or `source` one another ("": a script with a shebang).
_IMPORTING_EXT = frozenset({"py", "sh", "bash", "zsh", "ksh", "", *(e.lstrip(".") for e in JS_EXTS)})


def _project(root: Path, entries: list[tuple[str, Path, os.stat_result]]) -> Project | None:
    """What the Python and shell files of the skill that others import or `source` offer them.

    Only files another file names are read ahead (found by a line-level look at imports and
    `source`), so a skill whose scripts stand alone pays nothing for cross-file flows."""
    texts: dict[str, str] = {}
    for rel, _full, st in entries:
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PROJECT_BYTES or len(texts) >= MAX_PROJECT_FILES:
            continue
        if _ext(rel) not in _IMPORTING_EXT:
            continue
        try:
            got = _read_for_scan(root / rel, rel, root)
        except OSError:
            continue
        if not got.truncated and b"\x00" not in got.data[:8192]:
            texts[rel] = got.data.decode("utf-8", "replace")
    langs = {rel: lang for rel, text in texts.items() if (lang := _language(rel, text)) is not None}
    if len(langs) < 2:
        return None
    index = Project(dict.fromkeys(langs, None))  # type: ignore[arg-type]
    wanted: set[str] = set()
    deps: dict[str, set[str]] = {}
    for rel, lang in langs.items():
        found: set[str] = set()
        if lang == "python":
            for m in _PY_IMPORT.finditer(texts[rel]):
                if m.group(1) is not None:
                    level = len(m.group(1)) - len(m.group(1).lstrip("."))
                    mod = m.group(1).lstrip(".")
                    hits = [index.python_module_path(rel, mod or None, level)]
                    # `from . import settings`, `from lib import loader`: modules of the skill
                    hits += [
                        index.python_module_path(rel, f"{mod}.{n.split()[0]}" if mod else n.split()[0], level)
                        for n in m.group(2).split(",")
                        if n.split()
                    ]
                else:
                    hits = [
                        index.python_module_path(rel, n.split()[0])
                        for n in m.group(3).split(",")
                        if n.split()
                    ]
                found = {h for h in hits if h and h != rel}
        elif lang in ("javascript", "typescript", "tsx"):
            found = {
                hit
                for m in _JS_IMPORT.finditer(texts[rel])
                if (hit := index.js_module_path(rel, m.group(1))) and hit != rel
            }
        else:
            found = {
                hit
                for m in _SH_SOURCE.finditer(texts[rel])
                for token in re.findall(r"[^\s\"'`$()]+", m.group(1))
                if (hit := index.shell_file_path(rel, token)) and hit != rel
            }
        wanted |= found
        deps[rel] = found
    if not wanted:
        return None
    project = Project()
    for rel in sorted(wanted):
        _export(project, rel, langs[rel], texts[rel], None)
    # A helper that imports another helper (read here, packed there, sent from a third file) is
    # read once more with the first reading of the files it imports: two hops in all.
    first = Project(dict(project.exports))
    for rel in sorted(wanted):
        if deps.get(rel, set()) & set(first.exports):
            _export(project, rel, langs[rel], texts[rel], first)
    return project if project.exports else None


def _export(project: Project, rel: str, lang: str, text: str, seen: Project | None) -> None:
    """Read one imported file for what it offers the others (`seen`: what its own imports offer)."""
    facts = _read_file(lang, text, seen, rel, True)
    if facts is not None and facts.export is not None:
        project.exports[rel] = facts.export


def _sent_stashes(ctx: _Ctx) -> None:
    """One file of the skill fills a file with a secret (`cat ~/.git-credentials >> /tmp/.c/i`) and
    another sends that file (`req.end(fs.readFileSync("/tmp/.c/i"))`): together they send the secret."""
    for rel, line, path, dest in ctx.sent_files:
        where, src = ctx.stashed.get(path, (rel, None))
        if path.endswith("/"):
            # a folder published whole (`npm publish ./pkg`): a file under it or at a place not known may be in it
            inside = [
                (w, s) for p, (w, s) in ctx.stashed.items() if not _flows.outside_tree(p.removeprefix(path))
            ]
            where, src = next(((w, s) for w, s in inside if s.strong), (rel, None))
        elif where == rel:
            continue
        if src is None:
            continue
        src = src.moved(where, line, f"reads {path}, which {where} filled")
        sev, text = _flows.sent(src, dest)
        fl = _flows.flow("secret-network", sev, line, text, src)
        steps = tuple((n, step, rel if f is None else f) for n, step, f in fl.steps)
        ctx.flag("flow-secret-network", rel, line, snippet(text), f": {text}", severity=sev, flow=steps)
    _paired_loose_ends(ctx)


def _paired_loose_ends(ctx: _Ctx) -> None:
    """A credential store read in one code file and a send to a drop (a public raw address, a
    paste site, a webhook, a hidden host) in any code file of the same skill: the value between
    them may pass where no reader follows it (a module imported by a built name, a file on disk,
    a collection of paths), so the pair is reported as high unless a flow already was."""
    if not ctx.loose_sources or not ctx.loose_sinks:
        return
    if any(
        f.category == "credential-exfiltration" or f.rule_id.startswith("SY-FLOW")
        for f in ctx.findings
        if SEVERITY_RANK[f.severity] >= SEVERITY_RANK["high"]
    ):
        return
    (frel, fline, what), (rel, line, dest) = ctx.loose_sources[0], ctx.loose_sinks[0]
    text = f"reads {what} ({frel}:{fline}); {rel} sends data to {dest}"
    steps = ((fline, f"reads {what}", frel), (line, f"sends data to {dest}", rel))
    ctx.flag("flow-secret-network", rel, line, snippet(text), f": {text}", severity="high", flow=steps)


def _timed_out(ctx: _Ctx, rel: str) -> None:
    text = "scan time limit reached here; this and later files were not fully scanned"
    ctx.flag("oversized-file", rel, None, snippet(text))


def _failed(ctx: _Ctx, rel: str, error: Exception) -> None:
    """A fault in the scanner's own reading of a file: the install is refused (what was not read
    may be what an attack hides), and the rest of the skill is still scanned."""
    text = f"not fully scanned: the scanner failed on this file ({type(error).__name__}: {error})"
    ctx.flag("oversized-file", rel, None, snippet(text))


def _finish(report: ScanReport) -> ScanReport:
    report.findings.sort(key=lambda f: (-SEVERITY_RANK[f.severity], f.file, f.line or 0, f.rule_id))
    return report


# ---------------------------------------------------------------- output formats

_SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "1.0"}


def to_sarif(
    reports: ScanReport | Iterable[ScanReport], rules: tuple[Rule, ...] | None = None
) -> dict[str, Any]:
    """SARIF 2.1.0 log: one run per report, rules described in the driver."""
    rules = rules if rules is not None else load_rules()
    index = {r.id: i for i, r in enumerate(rules)}
    driver_rules = [
        {
            "id": r.id,
            "name": re.sub(r"[^A-Za-z0-9]+", "", r.title.title()) or r.id,
            "shortDescription": {"text": r.title},
            "fullDescription": {"text": f"{r.title} ({r.category})"},
            "help": {"text": r.remediation},
            "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
            "properties": {
                "category": r.category,
                "severity": r.severity,
                "security-severity": _SECURITY_SEVERITY[r.severity],
                "tags": ["security", r.category],
            },
        }
        for r in rules
    ]
    runs = []
    for rep in [reports] if isinstance(reports, ScanReport) else list(reports):
        base = Path(rep.path)
        base_dir = base if base.is_dir() else base.parent
        results = []
        for f in rep.findings:
            region: dict[str, Any] = {"snippet": {"text": f.snippet}}
            if f.line:
                region["startLine"] = f.line
            res: dict[str, Any] = {
                "ruleId": f.rule_id,
                "level": _SARIF_LEVEL[f.severity],
                "message": {"text": f"{f.title}. {f.remediation}"},
                "locations": [_location(f.file, region)],
                "properties": {
                    "severity": f.severity,
                    "category": f.category,
                    "blocking": rep.policy.blocks(f),
                },
            }
            if f.rule_id in index:
                res["ruleIndex"] = index[f.rule_id]
            if f.flow:
                res["codeFlows"] = [
                    {
                        "message": {"text": f.title},
                        "threadFlows": [
                            {
                                "locations": [
                                    {
                                        "location": {
                                            **_location(at, {"startLine": n}),
                                            "message": {"text": step},
                                        }
                                    }
                                    for n, step, at in f.flow
                                ]
                            }
                        ],
                    }
                ]
            if f.suppressed is not None:
                res["suppressions"] = [
                    {
                        "kind": "inSource",
                        "justification": f.suppressed,
                        "status": "rejected" if f.severity == "critical" else "accepted",
                    }
                ]
            results.append(res)
        runs.append(
            {
                "tool": {
                    "driver": {
                        "name": "skillyard",
                        "informationUri": "https://github.com/skillyard/skillyard",
                        "semanticVersion": _version(),
                        "rules": driver_rules,
                    }
                },
                "originalUriBaseIds": {"SKILLROOT": {"uri": base_dir.resolve().as_uri() + "/"}},
                "results": results,
                "properties": {"name": rep.name, "blocked": rep.blocked, "max_severity": rep.max_severity},
            }
        )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": runs,
    }


def _location(path: str, region: dict[str, Any]) -> dict[str, Any]:
    # a URI reference: a file named `a#b`, `x:y` or `%2e%2e` must not read as a fragment, a scheme or `..`
    # An archive member named `../SKILL.md` (`pack.zip!/../SKILL.md`) must not resolve to another file,
    # in the skill or outside it: a path with a `.` or `..` segment (only a member's can have one) is
    # one segment, its slashes escaped too (WHATWG URL parsers read `%2e%2e` as `..`, not `%2F`)
    dots = not {".", ".."}.isdisjoint(path.split("/"))
    uri = urllib.parse.quote(path, safe="" if dots else "/", errors="surrogateescape")
    return {
        "physicalLocation": {"artifactLocation": {"uri": uri, "uriBaseId": "SKILLROOT"}, "region": region}
    }


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("skillyard")
    except Exception:
        return "0.0.0"


_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "cyan", "info": "dim"}


def _shown(text: str) -> str:
    """One line of a skill's words (file names, titles built from its text) as the catalog shows them:
    a newline cannot start a forged finding, an escape sequence cannot reach the terminal."""
    from skillyard._shown import shown

    return shown(text, one_line=True)


def _verdict(report: ScanReport) -> str:
    # the verdict first: a name (the author's, up to a folder name's 255 characters) cannot push it
    # off the line, nor read as one (`x: ok (max severity none, 0 finding(s))` then spaces)
    verdict = "BLOCKED" if report.blocked else "ok"
    return (
        f"{verdict}: {_shown(report.name or report.path)} (max severity {report.max_severity}, "
        f"{len(report.findings)} finding(s), {report.files_scanned} file(s) scanned)"
    )


def _flow_lines(f: Finding) -> list[str]:
    """The steps of a finding's flow, its own line left out (the title already names it)."""
    last = len(f.flow) - 1
    return [
        _shown(f"line {n}: {step}" if at == f.file else f"{at}:{n}: {step}")
        for i, (n, step, at) in enumerate(f.flow)
        if not (i == last and (at, n) == (f.file, f.line))
    ]


def _suppression(f: Finding) -> str:
    honoured = "not honoured for critical findings" if f.severity == "critical" else "not blocking"
    return _shown(f"ignored by the author ({honoured}): {f.suppressed}")


def _loc(f: Finding) -> str:
    return _shown(f"{f.file}:{f.line}" if f.line else f.file)


def render_plain(report: ScanReport) -> str:
    """The report as plain lines, for a pipe or a file: what `render_human` shows, one finding per
    block, easy to grep (`rich` is not imported)."""
    lines = [_verdict(report)]
    for f in report.findings:
        lines.append(f"  {f.severity}  {f.rule_id}  {_loc(f)}  {_shown(f.title)}")
        lines.extend(f"      {_shown(part)}" for part in f.snippet.splitlines())
        lines.extend(f"      {step}" for step in _flow_lines(f))
        if f.suppressed is not None:
            lines.append(f"      {_suppression(f)}")
        lines.append(f"      → {f.remediation}")
    return "\n".join(lines)


def render_human(report: ScanReport, console: Any = None) -> None:
    """Readable table of findings (colour when a terminal is attached)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    con = console or Console(highlight=False)
    head = Text(_verdict(report))
    head.stylize(
        "bold red" if report.blocked else "bold green", 0, len("BLOCKED" if report.blocked else "ok")
    )
    con.print(head)
    if not report.findings:
        return
    table = Table(show_header=True, header_style="bold", expand=False)
    for col in ("severity", "rule", "location", "finding"):
        table.add_column(col, overflow="fold")
    for f in report.findings:
        body = Text(_shown(f.title), style="bold")
        body.append("".join(f"\n{_shown(part)}" for part in f.snippet.splitlines()), style="dim")
        for step in _flow_lines(f):
            body.append(f"\n  {step}")
        if f.suppressed is not None:
            body.append(f"\n{_suppression(f)}", style="italic")
        body.append(f"\n→ {f.remediation}")
        table.add_row(Text(f.severity, style=_STYLE[f.severity]), Text(f.rule_id), Text(_loc(f)), body)
    con.print(table)


# ---------------------------------------------------------------- rule examples


def example_findings(example: Any, rules: tuple[Rule, ...] | None = None) -> list[Finding]:
    """Scan one rules-file example: a string (as SKILL.md) or a mapping describing a file.

    Mapping keys: `file` (relative name), and `text` / `base64` / (`prefix`, `repeat`, `times`,
    `suffix`) for the content; `{special: fifo}` makes a FIFO. Used by the test suite and the docs.
    """
    import tempfile

    rules = rules if rules is not None else load_rules()
    if isinstance(example, str):
        return scan_text(example, "SKILL.md", rules=rules)
    if not isinstance(example, dict):
        raise RuleError(f"example must be a string or mapping, got {type(example).__name__}")
    with tempfile.TemporaryDirectory(prefix="skillyard-example-") as tmp:
        root = Path(tmp) / "example-skill"
        root.mkdir()
        if example.get("special") == "fifo":
            os.mkfifo(root / "pipe")
        else:
            rel = str(example.get("file", "SKILL.md"))
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if "base64" in example:
                data = base64.b64decode(example["base64"])
            elif "text" in example:
                data = str(example["text"]).encode("utf-8")
            else:
                body = str(example.get("repeat", "")) * int(example.get("times", 1))
                data = (str(example.get("prefix", "")) + body + str(example.get("suffix", ""))).encode(
                    "utf-8"
                )
            target.write_bytes(data)
        return scan_path(root, rules=rules).findings
