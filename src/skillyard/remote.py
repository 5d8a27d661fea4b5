"""Skills from other MCP servers: `[[skills.remote]]`, fetched by `skillyard remote sync`.

A remote is an MCP server that serves skills as `skill://<name>/<path>`
resources (a `skillyard serve`, or any server of the MCP Skills extension).
When the server offers the Skills extension, syncing lists skills with
`skills/list` and checks every file it reads against the sha256 and size of
that manifest (a mismatch refuses the skill); otherwise, and for skills whose
files are "dynamic", it lists plain `resources/list` and reads `resources/read`,
so older servers work too. It writes each skill into the
remote's cache directory, which is a root of the default search path after the
install root: from then on the skills are found, checked for eligibility and
run like any other, and a local skill of the same name wins.

Configuring the remote is the trust decision; what it sends is still checked
before anything is written. Every path must be a plain relative path inside
its skill (the install hygiene rules: no `..`, no absolute paths, no
backslashes or control characters, no case-folding clashes), each skill must
have a SKILL.md naming it as its URI does and stay within the install size limits, and the install
scanner must not block it. A skill that fails is left out and reported; the
others are kept. The cache is replaced in one rename, so a failed sync leaves
the previous copy as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import mcp_types

from skillyard.config import RemoteSkills
from skillyard.fsread import pid_gone
from skillyard.install.fsutil import exchange
from skillyard.install.hygiene import HygieneError, Limits, Tracker, check_member_name, is_vcs

__all__ = ["RemoteError", "SyncReport", "store", "sync"]

SCHEME = "skill://"
#: The agentskills.io naming rule; a `skill://` URI's first segment must follow it.
_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?\Z")
#: Most skills one remote may bring.
MAX_SKILLS = 1000


class RemoteError(Exception):
    """The remote could not be reached or read; the message says which and why."""


@dataclass
class SyncReport:
    """What one sync did: skills written, skills refused (with the reason), and problems with the listing."""

    remote: str
    root: str
    skills: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)
    files: int = 0
    verified: int = 0  #: files checked against the digests of the server's `skills/list` manifests

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sync(remote: RemoteSkills, *, limits: Limits | None = None) -> SyncReport:
    """Fetch `remote`'s skills and replace its cache with them; RemoteError when the server fails."""
    import anyio

    limits = limits or Limits()
    fetched = anyio.run(_fetch, remote, limits)
    report = store(remote.name, fetched.files, remote.root, limits=limits, refused=fetched.refused)
    report.verified = fetched.verified
    return report


#: The MCP Skills extension: its `skills/list` manifests carry each file's sha256 and size.
EXTENSION = "io.modelcontextprotocol/skills"


@dataclass
class _Fetched:
    files: dict[str, bytes] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  #: skill -> why (before any file is written)
    verified: int = 0  #: files whose digest and size matched the server's manifest
    size: int = 0  #: bytes read so far

    def add(self, uri: str, data: bytes, limits: Limits) -> None:
        """Keep one file; RemoteError once the remote sent more than a checkout may hold, so a server
        that never stops listing or sending cannot fill memory before the per-skill limits apply."""
        self.files[uri] = data
        self.size += len(data)
        if len(self.files) > limits.max_checkout_files or self.size > limits.max_checkout_bytes:
            raise RemoteError(
                f"sent more than {limits.max_checkout_files} files or {limits.max_checkout_bytes} bytes"
            )


def _target(remote: RemoteSkills) -> Any:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    if remote.command:
        params = StdioServerParameters(command=remote.command[0], args=list(remote.command[1:]))
        return stdio_client(params, errlog=_server_log())
    if remote.headers:
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        http = create_mcp_http_client(headers=dict(remote.headers))
        return streamable_http_client(str(remote.url), http_client=http)
    return remote.url


def _server_log() -> Any:
    """Where a stdio remote's own messages go: this process's stderr when it is a file a child can
    write to (a terminal, a log), else nowhere (a notebook's or a test runner's stream has no
    descriptor, and handing it to the child made every sync fail)."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return subprocess.DEVNULL
    return sys.stderr


async def _fetch(remote: RemoteSkills, limits: Limits) -> _Fetched:
    """Every skill file the server offers: through the Skills extension (digests checked) when it
    has it, else every `skill://` resource of `resources/list`."""
    import anyio
    from mcp import Client

    out = _Fetched()
    try:
        with anyio.fail_after(remote.timeout):
            async with Client(_target(remote), read_timeout_seconds=remote.timeout) as client:
                extensions = getattr(client.server_capabilities, "extensions", None) or {}
                manifests = await _skills_list(client) if EXTENSION in extensions else {}
                for skill, files in manifests.items():
                    if files is None:
                        continue  # "dynamic": the server cannot list it; read it like any resource below
                    for uri, digest, size in files:
                        if size > limits.max_file_bytes:
                            out.refused[skill] = f"{uri[:200]} is larger than {limits.max_file_bytes} bytes"
                            break
                        data = await _read(client, uri)
                        if len(data) != size or digest != "sha256:" + hashlib.sha256(data).hexdigest():
                            out.refused[skill] = f"{uri[:200]} does not match the digest the server listed"
                            break
                        out.add(uri, data, limits)
                        out.verified += 1
                listed = {k for k, v in manifests.items() if v is not None}
                for uri in await _resource_uris(client, limits.max_checkout_files):
                    skill = uri[len(SCHEME) :].partition("/")[0]
                    if skill not in listed:
                        out.add(uri, await _read(client, uri), limits)
    except TimeoutError:
        raise RemoteError(f"remote '{remote.name}' did not answer within {remote.timeout:g} s") from None
    except Exception as e:  # the SDK and its transports raise their own kinds (MCPError, exception groups)
        while isinstance(e, ExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        if isinstance(e, RemoteError):  # ours, from inside the client's task group
            raise RemoteError(f"remote '{remote.name}' {e}") from None
        hint = ""
        if remote.url and str(e) == "Server returned an error response":  # the SDK's word for HTTP 4xx/5xx
            hint = " (an HTTP error: check its `url`, and its `headers` when the server needs a token)"
        raise RemoteError(f"remote '{remote.name}' failed: {type(e).__name__}: {e}{hint}") from None
    for skill in out.refused:
        for uri in [u for u in out.files if u.startswith(f"{SCHEME}{skill}/")]:
            del out.files[uri]
    return out


class _ListSkills(mcp_types.Request[mcp_types.PaginatedRequestParams, Literal["skills/list"]]):
    """The Skills extension's `skills/list` (the SDK has no model for it)."""

    method: Literal["skills/list"] = "skills/list"


class _ListSkillsResult(mcp_types.PaginatedResult):
    skills: list[dict[str, Any]]


async def _skills_list(client: Any) -> dict[str, list[tuple[str, str, int]] | None]:
    """`skills/list`, every page: skill name -> its files (URI, digest, size), None when dynamic."""
    out: dict[str, list[tuple[str, str, int]] | None] = {}
    cursor: str | None = None
    for _page in range(10_000):
        page = await client.session.send_request(
            _ListSkills(params=mcp_types.PaginatedRequestParams(cursor=cursor)), _ListSkillsResult
        )
        for entry in page.skills:
            uri = entry.get("uri") if isinstance(entry, dict) else None
            if not isinstance(uri, str) or not uri.startswith(SCHEME):
                continue
            name = uri[len(SCHEME) :].partition("/")[0]
            resources = entry.get("resources")
            if not isinstance(resources, list):
                out[name] = None
                continue
            out[name] = [
                (r["uri"], r["digest"], r["size"])
                for r in resources
                if isinstance(r, dict)
                and isinstance(r.get("uri"), str)
                and r["uri"].startswith(f"{SCHEME}{name}/")
                and isinstance(r.get("digest"), str)
                and isinstance(r.get("size"), int)
            ]
            if len(out) > MAX_SKILLS:
                raise RemoteError(f"offers more than {MAX_SKILLS} skills")
        cursor = page.next_cursor
        if not cursor:
            break
    return out


async def _resource_uris(client: Any, most: int) -> list[str]:
    """Every `skill://` URI of `resources/list`; RemoteError past `most`."""
    uris: list[str] = []
    cursor: str | None = None
    for _page in range(10_000):
        page = await client.list_resources(cursor=cursor)
        uris += [str(r.uri) for r in page.resources if str(r.uri).startswith(SCHEME)]
        if len(uris) > most:
            raise RemoteError(f"lists more than {most} files")
        cursor = page.next_cursor
        if not cursor:
            break
    return uris


async def _read(client: Any, uri: str) -> bytes:
    """The exact bytes of one resource: a blob base64-decoded, text UTF-8 encoded."""
    import base64

    result = await client.read_resource(uri)
    for content in result.contents:
        if getattr(content, "text", None) is not None:
            return content.text.encode("utf-8")
        if getattr(content, "blob", None) is not None:
            return base64.b64decode(content.blob)
    return b""


def store(
    name: str,
    files: Mapping[str, bytes],
    root: Path,
    *,
    limits: Limits | None = None,
    refused: Mapping[str, str] | None = None,
) -> SyncReport:
    """Check `files` (`skill://` URI -> bytes) skill by skill and make `root` hold exactly the good ones.

    `refused` names skills already turned down while fetching (a digest that did not match)."""
    from skillyard.install.scanner import scan_path

    limits = limits or Limits()
    report = SyncReport(name, str(root))
    report.refused += [{"skill": skill[:100], "reason": reason} for skill, reason in (refused or {}).items()]
    by_skill: dict[str, dict[PurePosixPath, bytes]] = {}
    bad: dict[str, str] = {}
    for uri, data in files.items():
        skill, _, rel = uri[len(SCHEME) :].partition("/")
        if not _NAME.fullmatch(skill):  # `$` alone would pass a final line break
            report.refused.append(
                {"skill": skill[:100], "reason": f"not a valid skill name in {uri[:200]!r}"}
            )
            continue
        if skill in bad:
            continue
        try:
            path = check_member_name(rel)
        except HygieneError as e:
            bad[skill] = f"{e} ({rel[:200]!r})"
            continue
        if any(is_vcs(p) for p in path.parts):  # as an install strips them: no live repository
            continue
        by_skill.setdefault(skill, {})[path] = data
    for skill, reason in bad.items():
        report.refused.append({"skill": skill, "reason": reason})
        by_skill.pop(skill, None)
    if len(by_skill) > MAX_SKILLS:
        raise RemoteError(f"remote '{name}' offers {len(by_skill)} skills (at most {MAX_SKILLS})")

    staging = root.parent / f".{root.name}.sync-{os.getpid()}"
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        _clear_leftovers(root)
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(mode=0o700)  # fetched with the person's credentials: theirs alone to read
        for skill in sorted(by_skill):
            problem = _check_skill(by_skill[skill], limits)
            if problem is None:
                _write(staging / skill, by_skill[skill])
                problem = _misnamed(staging / skill, skill)
            if problem is None:
                scan = scan_path(staging / skill, name=skill)
                if scan.blocked:
                    problem = f"blocked by the scanner ({scan.max_severity})"
            if problem is not None:
                shutil.rmtree(staging / skill, ignore_errors=True)
                report.refused.append({"skill": skill, "reason": problem})
                continue
            report.skills.append(skill)
            report.files += len(by_skill[skill])
        _replace(staging, root)
    except OSError as e:  # a full disk: the previous copy stays as it was
        raise RemoteError(
            f"cannot write the skills of remote '{name}' to {root}: {e.strerror or e}"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _clear_leftovers(root: Path) -> None:
    """Remove the copies syncs of `root` that were killed left beside it (named after their dead pid)."""
    for p in root.parent.iterdir():
        if p.name.rpartition("-")[0] in (f".{root.name}.sync", f".{root.name}.old") and pid_gone(p.name):
            shutil.rmtree(p, ignore_errors=True)


def _check_skill(files: Mapping[PurePosixPath, bytes], limits: Limits) -> str | None:
    """Why these files cannot be a skill here (the install hygiene limits), or None."""
    if PurePosixPath("SKILL.md") not in files and PurePosixPath("skill.md") not in files:
        return "no SKILL.md"
    tracker = Tracker(limits)
    try:
        for path, data in files.items():
            tracker.name(path)
            tracker.file(str(path))
            tracker.add_bytes(str(path), len(data), len(data))
            if any(parent in files for parent in path.parents):
                return f"{str(path)!r} is inside a file"
    except HygieneError as e:
        return f"{e.reason} ({(e.path or '')[:200]!r})"
    return None


def _misnamed(directory: Path, name: str) -> str | None:
    """Why the skill in `directory` would not be registered as `name` (the URI's checked name), or None.

    The registry goes by the name inside the skill file, so without this a remote could offer
    `Deploy` or a full-width `ｄｅｐｌｏｙ` beside a trusted local `deploy`."""
    from skillyard.parsing import find_skill_file, parse_skill

    path = find_skill_file(directory)
    skill = parse_skill(path, "remote")[0] if path is not None else None
    if skill is None or skill.name != name:
        return f"its skill file names it {(skill.name if skill else None)!r}, not {name!r}"[:300]
    return None


def _write(dest: Path, files: Mapping[PurePosixPath, bytes]) -> None:
    """Plain files only, never executable or writable by others; no path can leave `dest`."""
    for path, data in files.items():
        target = dest.joinpath(*path.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)


def _replace(staging: Path, root: Path) -> None:
    """Swap the new copy in, so readers see the old copy or the new one, never a mix: in one atomic
    exchange where the file system has it (the root is never missing), else with two renames."""
    if root.exists() and exchange(staging, root):
        shutil.rmtree(staging, ignore_errors=True)  # the old copy, now under the staging name
        return
    old = root.parent / f".{root.name}.old-{os.getpid()}"
    shutil.rmtree(old, ignore_errors=True)
    if root.exists():
        os.rename(root, old)
    os.rename(staging, root)
    shutil.rmtree(old, ignore_errors=True)
