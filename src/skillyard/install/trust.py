"""Trust policy: which sources may be installed from, persisted in the config file's `[trust] sources`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillyard.install.sources import SourceSpec

#: Always trusted: the local filesystem and the configured hub (docs/install.md: `local:*` and the hub).
DEFAULT_PATTERNS: tuple[str, ...] = ("local:*", "hub:*")
MAX_PATTERN_LEN = 512


class TrustError(ValueError):
    """A trust pattern that cannot be used (too broad, malformed)."""


def validate_pattern(pattern: str) -> str:
    """Return the cleaned pattern or raise TrustError; a pattern that trusts everything is refused."""
    if not isinstance(pattern, str):
        raise TrustError("trust pattern must be a string")
    if any(ord(c) < 32 or ord(c) == 127 for c in pattern):
        raise TrustError("trust pattern contains control characters")
    p = pattern.strip()
    if not p:
        raise TrustError("empty trust pattern")
    if len(p) > MAX_PATTERN_LEN:
        raise TrustError(f"trust pattern longer than {MAX_PATTERN_LEN} characters")
    if any(ord(c) < 33 or ord(c) == 127 for c in p):
        raise TrustError("trust pattern contains whitespace or control characters")
    if p.strip("*/:") == "" or re.fullmatch(r"[a-z+]+://\**", p):
        raise TrustError(f"trust pattern {p!r} would trust every source")
    bare = re.sub(r"^[a-z+]+://", "", p)
    if bare.startswith("*") and "/" not in bare.split("*", 1)[0]:
        first = bare.split("/", 1)[0]
        if first.strip("*.") == "":
            raise TrustError(f"trust pattern {p!r} would trust every host")
    return p


_WILDCARDS = {"**": ".*", "*": "[^/]*", "?": "[^/]"}


def _compile(pattern: str) -> re.Pattern[str]:
    """`*` matches within one path segment, `**` across segments; hosts compare case-insensitively."""
    parts = re.split(r"(\*\*|\*|\?)", pattern)
    regex = "".join(_WILDCARDS.get(p) or re.escape(p) for p in parts)
    return re.compile(regex, re.IGNORECASE | re.DOTALL)


def pattern_matches(pattern: str, candidate: str) -> bool:
    if pattern.startswith("local:"):
        # local patterns are path prefixes: `local:*` is every path, `local:/srv/skills/**` a subtree
        return bool(_compile(pattern.replace("local:*", "local:**", 1)).fullmatch(candidate))
    return bool(_compile(pattern).fullmatch(candidate))


@dataclass(slots=True)
class TrustPolicy:
    """Trusted source patterns (defaults + configured); decides before anything is fetched."""

    patterns: tuple[str, ...] = ()
    config_path: Path | None = None
    hub_index: str | None = None
    defaults: tuple[str, ...] = field(default=DEFAULT_PATTERNS)

    @classmethod
    def from_config(cls, config: Any) -> TrustPolicy:
        """Build from a `skillyard.config.Config` (or anything with the same attributes)."""
        return cls(
            tuple(getattr(config, "trust_sources", ()) or ()),
            getattr(config, "path", None),
            getattr(config, "hub_index", None),
        )

    def all_patterns(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.defaults, *self.patterns)))

    def matching_pattern(self, spec: SourceSpec) -> str | None:
        """The first pattern that trusts `spec`, or None."""
        cands = spec.trust_candidates(self.hub_index)
        return next((p for p in self.all_patterns() if any(pattern_matches(p, c) for c in cands)), None)

    def is_trusted(self, spec: SourceSpec) -> bool:
        return self.matching_pattern(spec) is not None

    def url_trusted(self, url: str) -> bool:
        """Whether any pattern trusts a URL that is not (yet) a usable source."""
        from skillyard.install.sources import _url_forms

        try:
            cands = _url_forms(url)
        except ValueError:
            return False
        return any(pattern_matches(p, c) for p in self.all_patterns() for c in cands)

    def suggest(self, spec: SourceSpec) -> str:
        """A pattern a user could add to trust this source's owner (host/org/*)."""
        c = spec.trust_candidates(self.hub_index)[0]
        segs = c.split("/")
        return "/".join(segs[:2]) + "/*" if len(segs) >= 3 else c

    # ------------------------------------------------------------ persistence

    def _update(self, change: Any) -> bool:
        """Apply `change(list) -> bool` to the file's current `[trust] sources` (not a stale copy)."""
        from skillyard.config import update_config_file

        if self.config_path is None:
            raise TrustError("no config file to record trust in (pass --config FILE)")
        result: dict[str, Any] = {}

        def mutate(data: dict[str, Any]) -> None:
            table = data.setdefault("trust", {})
            current = [x for x in table.get("sources", []) if isinstance(x, str)]
            result["changed"] = change(current)
            table["sources"] = current
            result["sources"] = tuple(current)

        update_config_file(Path(self.config_path), mutate)
        self.patterns = result["sources"]
        return bool(result["changed"])

    def add(self, pattern: str) -> bool:
        """Trust `pattern` and write it to the config file; False when it was already trusted."""
        p = validate_pattern(pattern)

        def change(current: list[str]) -> bool:
            if p in current:
                return False
            current.append(p)
            return True

        return self._update(change)

    def remove(self, pattern: str) -> bool:
        """Stop trusting `pattern`; defaults cannot be removed. False when it was not configured."""
        p = pattern.strip() if isinstance(pattern, str) else ""

        def change(current: list[str]) -> bool:
            if p not in current:
                if p in self.defaults:
                    raise TrustError(f"{p!r} is a built-in default and cannot be removed")
                return False
            current.remove(p)
            return True

        return self._update(change)
