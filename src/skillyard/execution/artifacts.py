"""Artifact stores: named, versioned blobs that outlive a workspace.

`ArtifactStore` is the small interface (save, load, versions, names); the
filesystem store keeps `<root>/<quoted name>/<version>.bin` plus a JSON sidecar.
Version numbers start at 1 and are allocated atomically with hard links, so
concurrent writers never overwrite each other.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import time
import urllib.parse
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from pathlib import Path

import platformdirs

#: Largest blob a store accepts by default.
MAX_ARTIFACT_BYTES = 256 * 1024 * 1024
_NAME = re.compile(r"^[A-Za-z0-9._@+=-][A-Za-z0-9._@+=/ -]{0,511}\Z")


class ArtifactError(ValueError):
    """A bad artifact name/version or a missing artifact; the message says which."""


@dataclass(frozen=True, slots=True)
class ArtifactInfo:
    name: str
    version: int
    size_bytes: int
    mime_type: str | None = None
    created_at: float = 0.0

    def ref(self) -> str:
        return f"artifact://{self.name}@{self.version}"


def validate_artifact_name(name: object) -> str:
    """The name if it is a safe artifact name (no traversal, no control characters), else ArtifactError."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ArtifactError(f"invalid artifact name: {name!r}")
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise ArtifactError(f"invalid artifact name: {name!r} (empty, '.' or '..' path segment)")
    return name


def parse_artifact_ref(ref: str) -> tuple[str, int | None]:
    """`name[@version]` → (name, version); only a trailing `@<digits>` is a version (names may hold '@')."""
    m = re.match(r"^(.*)@(\d{1,12})\Z", ref)
    if m:
        return validate_artifact_name(m.group(1)), int(m.group(2))
    return validate_artifact_name(ref), None


class ArtifactStore(ABC):
    """Where saved outputs go. Implement these four methods for another backend."""

    @abstractmethod
    def save(self, name: str, data: bytes, *, mime_type: str | None = None) -> ArtifactInfo:
        """Store a new version of `name` and return its info."""

    @abstractmethod
    def load(self, name: str, version: int | None = None) -> tuple[bytes, ArtifactInfo]:
        """The bytes of a version (latest when None); ArtifactError when missing."""

    @abstractmethod
    def versions(self, name: str) -> list[int]:
        """Existing versions of `name`, ascending (empty when unknown)."""

    @abstractmethod
    def names(self) -> list[str]:
        """Every stored artifact name, sorted."""


def default_artifact_root() -> Path:
    return Path(platformdirs.user_data_dir("skillyard")) / "artifacts"


class FilesystemArtifactStore(ArtifactStore):
    """Artifacts as files under a directory (default: the user data dir)."""

    def __init__(
        self, root: str | os.PathLike[str] | None = None, *, max_bytes: int = MAX_ARTIFACT_BYTES
    ) -> None:
        self.root = Path(root) if root is not None else default_artifact_root()
        self.max_bytes = max_bytes

    def _dir(self, name: str) -> Path:
        return self.root / urllib.parse.quote(validate_artifact_name(name), safe="")

    def versions(self, name: str) -> list[int]:
        d = self._dir(name)
        try:
            entries = os.listdir(d)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(int(e[:-4]) for e in entries if e.endswith(".bin") and e[:-4].isdigit())

    def names(self) -> list[str]:
        try:
            return sorted(urllib.parse.unquote(e) for e in os.listdir(self.root) if (self.root / e).is_dir())
        except FileNotFoundError:
            return []

    def save(self, name: str, data: bytes, *, mime_type: str | None = None) -> ArtifactInfo:
        if not isinstance(data, bytes | bytearray | memoryview):
            raise ArtifactError("artifact data must be bytes")
        if len(data) > self.max_bytes:
            raise ArtifactError(f"artifact {name!r} is too large ({len(data)} bytes > {self.max_bytes})")
        d = self._dir(name)
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            version = (self.versions(name) or [0])[-1] + 1
            while True:
                try:
                    os.link(tmp, d / f"{version}.bin")
                    break
                except FileExistsError:
                    version += 1
        finally:
            os.unlink(tmp)
        info = ArtifactInfo(name, version, len(data), mime_type, time.time())
        (d / f"{version}.json").write_text(json.dumps(asdict(info)), encoding="utf-8")
        return info

    def load(self, name: str, version: int | None = None) -> tuple[bytes, ArtifactInfo]:
        vs = self.versions(name)
        if not vs:
            raise ArtifactError(f"artifact not found: {name}")
        if version is None:
            version = vs[-1]
        if isinstance(version, bool) or not isinstance(version, int) or version not in vs:
            raise ArtifactError(f"artifact version not found: {name}@{version}")
        d = self._dir(name)
        data = (d / f"{version}.bin").read_bytes()
        mime = None
        created = 0.0
        with contextlib.suppress(OSError, ValueError):  # the sidecar is optional
            meta = json.loads((d / f"{version}.json").read_text(encoding="utf-8"))
            mime = meta.get("mime_type")
            created = float(meta.get("created_at", 0.0))
        return data, ArtifactInfo(name, version, len(data), mime, created)
