"""What the model has loaded in one conversation, and the system-message text built from it.

Progressive disclosure has three layers: the catalog (always), the bodies of
loaded skills (`[Loaded] <name>`), and the docs selected for them
(`[Doc] <path>`). A session records names and doc choices, and keeps each body it
read for as long as the registry serves the same skill: a reload that picks up an
edit gives a new skill, whose body is read again. Sessions share the text they read
(the same string object): many sessions of one server cost one copy of a body. Docs
are read at every render. Sessions serialise to JSON (names and doc choices) so a CLI or a stateless host can
carry them between calls.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
import uuid
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillyard._shown import shown
from skillyard.fsread import read_regular_file
from skillyard.parsing import load_body
from skillyard.skill_files import doc_ids, list_docs, read_doc

if TYPE_CHECKING:
    from skillyard.model import Skill
    from skillyard.registry import Registry

__all__ = ["Session", "SessionError"]

ALL_DOCS = "*"
SESSION_FORMAT = 1
#: Per-doc cap when rendering, so one enormous doc cannot swamp the context.
MAX_DOC_CHARS = 256 * 1024
#: All the docs of one skill shown at once stop here: many docs must not swamp the context either.
MAX_DOCS_CHARS = 4 * MAX_DOC_CHARS
MAX_SESSION_BYTES = 8 * 1024 * 1024
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
#: The bodies read lately, by skill object, shared by every session: an MCP server's thousands of
#: sessions that loaded one skill hold its text once, not once each.
SHARED_BODIES = 64
_SHARED: OrderedDict[Skill, str] = OrderedDict()
_SHARED_LOCK = threading.Lock()


class SessionError(ValueError):
    """A session file or value that cannot be used, with the reason."""


def catalog_offset(session_id: str) -> int:
    """Where a session's window of described skills starts in a catalog that cannot describe them all:
    the same for one session on every surface (its system message, the MCP prompt it echoes its id to)."""
    return zlib.crc32(session_id.encode("utf-8", "replace"))


def _check_id(value: Any) -> str:
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise SessionError(
            "session_id must be 1-128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


def order_docs(available: Sequence[str], chosen: Iterable[str]) -> list[str]:
    """`chosen` in the skill's own doc order (stable, whatever order the model asked in)."""
    wanted = set(chosen)
    return [d for d in available if d in wanted]


def cap_doc(text: str, unread: int = 0) -> str:
    """A doc's text, cut at MAX_DOC_CHARS with a note saying how much was left out.

    `unread` is how many bytes of the file were never read (reads stop at MAX_DOC_BYTES).
    """
    text = shown(text)  # the author's words, hidden characters spelled out as in the catalog
    if len(text) <= MAX_DOC_CHARS and not unread:
        return text
    more = f"{max(len(text) - MAX_DOC_CHARS, 0)} more characters"
    if unread:
        more += f" and {unread} more bytes not read"
    return text[:MAX_DOC_CHARS] + f"\n[truncated: {more}]"


def read_docs(skill: Skill, docs: Sequence[str]) -> list[tuple[str, str]]:
    """(doc, capped text) for each doc, against one listing, until MAX_DOCS_CHARS are shown (a note
    stands for each doc after that); raises KeyError or OSError."""
    listed, out, total = doc_ids(skill), [], 0
    for doc in docs:
        text = cap_doc(*read_doc(skill, doc, listed)) if total < MAX_DOCS_CHARS else _not_shown(total)
        total += len(text) if total < MAX_DOCS_CHARS else 0
        out.append((doc, text))
    return out


def _not_shown(total: int) -> str:
    return f"(not shown: the docs before it fill {total} characters; select fewer docs to read it)"


@dataclass(slots=True)
class Session:
    """Loaded skills (in load order) and their doc selection (`"*"` = all docs)."""

    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    loaded: dict[str, list[str] | str] = field(default_factory=dict)
    #: name -> (the skill object read, its body); not part of the saved session
    _bodies: dict[str, tuple[Skill, str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_id(self.session_id)

    # ------------------------------------------------------------ state

    def is_loaded(self, name: str) -> bool:
        return name in self.loaded

    def load_skill(self, name: str, docs: Sequence[str] | None = None, *, all_docs: bool = False) -> None:
        """Mark `name` loaded; `docs`/`all_docs` replace its selection, neither keeps the previous one."""
        if all_docs:
            self.loaded[name] = ALL_DOCS
        elif docs is not None:
            self.loaded[name] = list(docs)
        else:
            self.loaded.setdefault(name, [])

    def unload(self, name: str) -> bool:
        self._bodies.pop(name, None)
        return self.loaded.pop(name, None) is not None

    def selection(self, name: str) -> list[str] | str:
        sel = self.loaded.get(name, [])
        return sel if sel == ALL_DOCS else list(sel)

    def selected_docs(self, skill: Skill) -> list[str]:
        """The docs to show for `skill`, in its doc order; names no longer present are dropped."""
        sel = self.loaded.get(skill.name)
        if not sel:
            return []
        available = list_docs(skill)
        return available if sel == ALL_DOCS else order_docs(available, sel)

    def clear(self) -> None:
        self.loaded.clear()
        self._bodies.clear()

    def body(self, skill: Skill) -> str:
        """`skill`'s instructions, read once per skill object; raises OSError when unreadable."""
        kept = self._bodies.get(skill.name)
        if kept is not None and kept[0] is skill:
            return kept[1]
        with _SHARED_LOCK:
            text = _SHARED.get(skill)
        if text is None:
            # the author's words, hidden characters spelled out as in the catalog
            text = shown(load_body(skill))
            with _SHARED_LOCK:
                text = _SHARED.setdefault(skill, text)
                while len(_SHARED) > SHARED_BODIES:
                    _SHARED.popitem(last=False)
        self._bodies[skill.name] = (skill, text)
        return text

    def render_skill(self, skill: Skill) -> str:
        """Layers 2 and 3 for one skill: `[Loaded] <name>`, the body, then the selected docs."""
        docs = self.selected_docs(skill)
        names = {d: shown(d, one_line=True) for d in docs}  # file names are the author's words too
        parts = [f"[Loaded] {shown(skill.name, one_line=True)}", "", self.body(skill).strip("\n"), ""]
        parts.append("Docs loaded: " + (", ".join(names.values()) if docs else "none"))
        listed, total = doc_ids(skill) if docs else {}, 0
        for doc in docs:
            try:
                content = (
                    cap_doc(*read_doc(skill, doc, listed)) if total < MAX_DOCS_CHARS else _not_shown(total)
                )
                total += len(content) if total < MAX_DOCS_CHARS else 0
            except KeyError:
                content = f"(could not read {names[doc]}: KeyError)"
            except OSError as e:
                content = f"(could not read {names[doc]}: {e.strerror or type(e).__name__})"
            parts += ["", f"[Doc] {names[doc]}", "", content.strip("\n")]
        return "\n".join(parts)

    # ------------------------------------------------------------ rendering

    def render(
        self,
        registry: Registry,
        *,
        tool_names: Iterable[str] = (),
        catalog_format: str = "xml",
        budget: int | None = None,
        include_loaded: bool = True,
        query: str | None = None,
    ) -> str:
        """The whole system-message text: tool guidance, catalog, loaded bodies, selected docs.

        With `query` (the user's request), the skills most relevant to it lead the catalog.
        """
        from skillyard import telemetry
        from skillyard.prompt import relevant_names, render_catalog, tool_guidance

        rendered = render_catalog(
            registry.eligible_skills(),
            catalog_format,
            budget,
            relevant=relevant_names(registry, query),
            offset=catalog_offset(self.session_id),
        )
        telemetry.record("offered", rendered.names)
        sections = [text for text in (tool_guidance(list(tool_names)), rendered.text) if text]
        if include_loaded:
            for name in self.loaded:
                skill = registry.get(name)
                if skill is None or not registry.eligibility(skill).eligible:
                    continue
                try:
                    sections.append(self.render_skill(skill))
                except OSError as e:
                    sections.append(f"[Loaded] {name}\n\n(could not read the skill: {type(e).__name__}: {e})")
        return "\n\n".join(sections)

    # ------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SESSION_FORMAT,
            "session_id": self.session_id,
            "loaded": [{"skill": name, "docs": sel} for name, sel in self.loaded.items()],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    @classmethod
    def from_dict(cls, data: Any) -> Session:
        if not isinstance(data, dict):
            raise SessionError("a session must be a JSON object")
        fmt = data.get("format", SESSION_FORMAT)
        if fmt != SESSION_FORMAT:
            raise SessionError(f"unsupported session format: {fmt!r} (expected {SESSION_FORMAT})")
        unknown = set(data) - {"format", "session_id", "loaded"}
        if unknown:
            raise SessionError(f"unknown session key: {sorted(unknown)[0]}")
        sid = _check_id(data.get("session_id", uuid.uuid4().hex))
        loaded_raw = data.get("loaded", [])
        if not isinstance(loaded_raw, list):
            raise SessionError("session 'loaded' must be a list")
        loaded: dict[str, list[str] | str] = {}
        for i, item in enumerate(loaded_raw):
            if not isinstance(item, dict) or not isinstance(item.get("skill"), str) or not item["skill"]:
                raise SessionError(f"session 'loaded[{i}]' must be an object with a non-empty 'skill' string")
            docs = item.get("docs", [])
            if docs != ALL_DOCS and not (isinstance(docs, list) and all(isinstance(d, str) for d in docs)):
                raise SessionError(f"session 'loaded[{i}].docs' must be \"*\" or a list of strings")
            loaded[item["skill"]] = docs if docs == ALL_DOCS else list(docs)
        return cls(session_id=sid, loaded=loaded)

    @classmethod
    def from_json(cls, text: str | bytes) -> Session:
        if not isinstance(text, str | bytes | bytearray):
            raise SessionError("session JSON must be text")
        if len(text) > MAX_SESSION_BYTES:
            raise SessionError("session file is too large")
        if not isinstance(text, str):
            text = bytes(text).decode("utf-8", errors="replace")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:  # also an integer past int()'s digit limit
            raise SessionError(f"session is not valid JSON: {e}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Session:
        """Read a session file; a missing or empty file starts a new session."""
        p = Path(path)
        try:
            raw = read_regular_file(p, MAX_SESSION_BYTES, owned=True)  # its id names the workspace
        except FileNotFoundError:
            return cls()
        except IsADirectoryError:
            raise SessionError(f"session path is a directory: {p}") from None
        except OSError as e:
            raise SessionError(f"cannot read session file {p}: {e.strerror or e}") from None
        if not raw.strip():
            return cls()
        try:
            return cls.from_json(raw)
        except SessionError as e:  # say which file: a user may keep several
            raise SessionError(f"{p}: {e}") from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically (temp file + rename) so a crash never leaves half a session."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".session-", dir=p.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_json() + "\n")
            os.replace(tmp, p)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
