"""Install failures as data: every refusal carries the JSON shape the `skills` tool and `skillyard install --json` report."""

from __future__ import annotations

from typing import Any


class InstallError(Exception):
    """A refused or failed install step; `to_dict()` is the `{"installed": false, ...}` answer."""

    def __init__(self, error: str, **details: Any) -> None:
        super().__init__(error if not details.get("reason") else f"{error}: {details['reason']}")
        self.error = error
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"installed": False, "error": self.error}
        out.update({k: v for k, v in self.details.items() if v is not None})
        return out


class SourceError(InstallError):
    """The source string cannot be understood or fetched."""


class HygieneError(InstallError):
    """The package breaks a packaging rule (escaping path, link, device file, limit...)."""

    def __init__(self, reason: str, path: str | None = None) -> None:
        super().__init__("package rejected", reason=reason, path=path)
        self.reason = reason
        self.path = path
