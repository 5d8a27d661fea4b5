"""The data every surface shares: skills, their requirements, tools and diagnostics.

Everything here is plain data. Parsing builds it, the registry owns it, and the
surfaces (tools, CLI, MCP) only read it, so no surface ever re-parses a file.
"""

from __future__ import annotations

import marshal
import re
import shlex
import threading
import unicodedata
from dataclasses import dataclass, field, fields
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "Diagnostic",
    "Eligibility",
    "InstallOption",
    "Requirements",
    "Row",
    "Skill",
    "ToolArg",
    "ToolSpec",
    "install_rows",
    "pack_frontmatter",
    "skill_from_row",
    "skill_to_row",
    "summary_of_row",
    "tool_rows",
]

Level = Literal["error", "warning"]

#: Text files that count as a skill's docs (layer 3 of progressive disclosure).
DOC_SUFFIXES = (".md", ".txt")
#: The model-facing tools skillyard itself provides, in export order; SKILL.toml tools never take these names.
BUILTIN_TOOL_NAMES: tuple[str, ...] = (
    "skills",
    "skill_load",
    "skill_select_docs",
    "skill_list_docs",
    "skill_run",
    "read_skill",
    "skill",
)
#: The most of one doc ever read: room for 256K characters of any UTF-8 (what a doc is cut at).
MAX_DOC_BYTES = 1024 * 1024
#: The most of a skill file ever read for its instructions: far past what any model context
#: holds, small enough that a huge file (escaped into JSON, copied a few times) stays cheap.
MAX_BODY_BYTES = 4 * 1024 * 1024
#: Longer names are not names (the spec allows 64; validation reports anything over 64).
MAX_NAME_CHARS = 256


def usable_name(name: str) -> bool:
    """Whether `name` can name a skill: it is shown in prompts, tables and logs, where a line break
    or a control character would forge lines of its own, and a run of spaces (invisible) would place
    words of the name where the terminal wraps the line, at its start (`✓ pdf-official`)."""
    return 0 < len(name) <= MAX_NAME_CHARS and name.isprintable() and "  " not in name


#: Directories never walked when listing a skill's files.
SKIPPED_DIRS = frozenset(
    {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}
)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found while loading or validating; never an exception."""

    level: Level
    code: str
    message: str
    path: str
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
        }


@dataclass(frozen=True, slots=True)
class Requirements:
    """What a skill needs from the host (OpenClaw `requires` + `os`)."""

    bins: tuple[str, ...] = ()
    any_bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    config: tuple[str, ...] = ()
    os: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return not (self.bins or self.any_bins or self.env or self.config or self.os)

    def to_dict(self) -> dict[str, list[str]]:
        """The `skills` tool's shape (`bins`, `env`, `os`; docs/tools.md) plus `anyBins` and `config`."""
        return {
            "bins": list(self.bins),
            "anyBins": list(self.any_bins),
            "env": list(self.env),
            "config": list(self.config),
            "os": list(self.os),
        }


#: The field that names the package for each install kind.
INSTALL_KIND_FIELD = {
    "brew": "formula",
    "apt": "package",
    "cargo": "crate",
    "uv": "package",
    "node": "package",
    "go": "module",
    "download": "url",
}


@dataclass(frozen=True, slots=True)
class InstallOption:
    """One way to install a missing binary (`metadata.openclaw.install[]`)."""

    kind: str
    id: str = ""
    label: str = ""
    formula: str | None = None
    package: str | None = None
    crate: str | None = None
    module: str | None = None
    url: str | None = None
    bins: tuple[str, ...] = ()
    os: tuple[str, ...] = ()

    @property
    def target(self) -> str | None:
        """The package/formula/crate/module/url this option installs."""
        return getattr(self, INSTALL_KIND_FIELD.get(self.kind, "package"), None)

    def command(self) -> str | None:
        """The shell command a user would run; None when the target is missing or not a plausible name.

        The target comes from an untrusted skill and the command is shown to a model that may run it,
        so it must look like a package name of its kind and is shell-quoted besides.
        """
        t = self.target
        pattern = _TARGET_PATTERNS.get(self.kind)
        if (
            not t
            or pattern is None
            or not re.fullmatch(pattern, t)
            or (".." in t and self.kind != "download")
        ):
            return None
        t = shlex.quote(t)
        return {
            "brew": f"brew install {t}",
            "apt": f"apt install {t}",
            "cargo": f"cargo install {t}",
            "uv": f"uv tool install {t}",
            "node": f"npm install -g {t}",
            "go": f"go install {t}" if "@" in t else f"go install {t}@latest",
            "download": f"Download: {t}",
        }.get(self.kind)

    def to_dict(self) -> dict[str, Any]:
        """The `skills` tool's install option: id, kind, the kind's target field, label (+ bins/os when given)."""
        d: dict[str, Any] = {"id": self.id or self.kind, "kind": self.kind}
        for key in ("formula", "package", "crate", "module", "url"):
            v = getattr(self, key)
            if v:
                d[key] = v
        d["label"] = self.label or _default_label(self.kind)
        if self.bins:
            d["bins"] = list(self.bins)
        if self.os:
            d["os"] = list(self.os)
        return d


#: What a plausible target looks like per install kind (OpenClaw's rules, tightened; no whitespace or
#: shell syntax anywhere, no leading dash). Compiled by `re` when first used, not at every start.
_TARGET_PATTERNS = {
    "brew": r"[A-Za-z0-9][A-Za-z0-9@+._/-]{0,127}",
    "apt": r"[a-z0-9][a-z0-9+.-]{0,127}",
    "cargo": r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}",
    "uv": r"[A-Za-z0-9][A-Za-z0-9._\-\[\]=<>!~+,]{0,199}",
    "node": r"(@[a-z0-9~][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]{0,213}(@[A-Za-z0-9.^~<>=*+-]{1,64})?",
    "go": r"[A-Za-z0-9][A-Za-z0-9._~+/-]{0,199}(@[A-Za-z0-9._+-]{1,64})?",
    "download": r"https?://[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]{1,2000}",
}


def _default_label(kind: str) -> str:
    return {
        "brew": "Install via Homebrew",
        "apt": "Install via apt",
        "cargo": "Install via cargo",
        "uv": "Install via uv",
        "node": "Install via npm",
        "go": "Install via go install",
        "download": "Download",
    }.get(kind, f"Install via {kind}")


ArgType = Literal["string", "integer", "number", "boolean", "array"]


#: Letters of other scripts drawn like a Latin letter (after casefolding): "pdf-tооls" with Cyrillic "о" is
#: "pdf-tools" to anyone reading a catalog.
_LOOKALIKES = str.maketrans(
    "аеорсухѕіјһԁԛԝӏɡıοανικρυχϳϲօսհ",
    "aeopcyxsijhdqwlgioavikpuxjcouh",
)


def fold_name(name: str) -> str:
    """A skill name as lookalike checks compare it: "Ｐｄｆ", "pdf" and "рdf" (a Cyrillic "р") are one name."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKES)


@dataclass(frozen=True, slots=True)
class ToolArg:
    """One parameter of a SKILL.toml shell tool."""

    name: str
    description: str = ""
    type: ArgType = "string"
    required: bool = True
    default: Any = None
    enum: tuple[Any, ...] | None = None
    allow_dash: bool = False
    #: True when the type came from the description heuristics, not a declaration.
    inferred: bool = True


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One `[[tools]]` entry of a SKILL.toml."""

    name: str
    description: str
    command: str
    kind: str = "shell"
    args: tuple[ToolArg, ...] = ()
    timeout: float | None = None

    def arg(self, name: str) -> ToolArg | None:
        return next((a for a in self.args if a.name == name), None)


SkillFormat = Literal["md", "toml"]

#: The two fields that may be held packed (see `Skill.defer_frontmatter`).
_PACKED_FIELDS = ("frontmatter", "metadata")
_UNPACK_LOCK = threading.Lock()


@dataclass(slots=True, eq=False)
class Skill:
    """A skill as discovery found it: its metadata, and where its file is.

    The instructions stay in the file; `skillyard.parsing.load_body` reads them.

    `frontmatter` and `metadata` may be held as one packed blob until first read (every skill
    a registry's scan parses or rebuilds from the start-up cache): the author's nested dicts and
    lists are most of the objects a skill holds, and every one kept is one more for the host's
    cyclic garbage collector to walk. Reading either field returns the same values either way.
    """

    name: str
    description: str
    path: Path  #: the SKILL.md / SKILL.toml file (absolute)
    source: str = (
        "custom"  #: label of the root it came from (project, user, install, remote, bundled, custom)
    )
    format: SkillFormat = "md"
    frontmatter: dict[str, Any] = field(default_factory=dict)  #: the author's mapping, JSON-compatible
    metadata: dict[str, Any] = field(default_factory=dict)
    emoji: str | None = None
    homepage: str | None = None
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: tuple[str, ...] = ()
    requires: Requirements = field(default_factory=Requirements)
    install: tuple[InstallOption, ...] = ()
    always: bool = False
    disable_model_invocation: bool = False
    user_invocable: bool = True
    when_to_use: str | None = None
    argument_hint: str | None = None
    arguments: tuple[str, ...] = ()
    skill_key: str | None = None
    version: str | None = None
    author: str | None = None
    tags: tuple[str, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    prompts: tuple[str, ...] = ()
    #: character offset of the body in the decoded file text (after frontmatter)
    body_offset: int = 0
    mtime_ns: int = 0
    size: int = 0
    #: `frontmatter` and `metadata` as `packed_frontmatter` wrote them, while both fields are unset
    _packed: bytes | None = field(default=None, init=False, repr=False)

    def defer_frontmatter(self, packed: bytes) -> None:
        """Hold `frontmatter` and `metadata` as `packed` (from `packed_frontmatter`) until one is read.

        A blob that does not decode to two mappings reads as two empty ones (it is data from a
        cache file; the skill's other fields are checked where the row is decoded).
        """
        with _UNPACK_LOCK:
            for name in _PACKED_FIELDS:
                if _has_slot(self, name):
                    delattr(self, name)
            self._packed = packed

    def packed_frontmatter(self) -> bytes:
        """`frontmatter` and `metadata` as one marshal blob; a skill still holding its blob returns
        it unread. Equal values pack to equal bytes (marshal version 2 writes no back-references,
        which depend on reference counts), and a `metadata` equal to `frontmatter["metadata"]` is
        written once and read back as that same object."""
        packed = self._packed
        if packed is not None and not any(_has_slot(self, n) for n in _PACKED_FIELDS):
            return packed
        return pack_frontmatter(self.frontmatter, self.metadata)  # a field assigned since wins

    def metadata_view(self) -> dict[str, Any]:
        """`metadata` for a one-pass reader (the search index): a skill still holding its packed
        blob decodes it for this call only, so reading every skill's tags keeps no object alive."""
        packed = self._packed
        if packed is None or _has_slot(self, "metadata"):
            return self.metadata
        return _decode_packed(packed)[1]

    def __getattr__(self, name: str) -> Any:
        # reached only when normal lookup fails: a packed field is an unset slot until first read
        if name in _PACKED_FIELDS and self._unpack():
            return object.__getattribute__(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _unpack(self) -> bool:
        """Decode the packed pair into whichever of the two fields is still unset (one may have
        been assigned since); False when there is nothing to decode."""
        with _UNPACK_LOCK:  # two threads must not hand out two different dicts for one field
            packed = self._packed
            if packed is None:
                return all(_has_slot(self, n) for n in _PACKED_FIELDS)  # another thread decoded it
            for name, value in zip(_PACKED_FIELDS, _decode_packed(packed), strict=True):
                if not _has_slot(self, name):
                    object.__setattr__(self, name, value)
            self._packed = None
            return True

    @property
    def root(self) -> Path:
        """The skill directory."""
        return self.path.parent

    @property
    def key(self) -> str:
        """The config key (`skillKey`, default the name)."""
        return self.skill_key or self.name

    @property
    def runnable(self) -> bool:
        """Skills fetched from a remote are read, searched and loaded, but their scripts run only
        once installed through the trust rules (`skillyard install`)."""
        return self.source != "remote"


def pack_frontmatter(fm: dict[str, Any], meta: dict[str, Any]) -> bytes:
    """What `Skill.packed_frontmatter` returns for these two fields (see there)."""
    same = fm.get("metadata") if fm.__class__ is dict else None
    shared = meta.__class__ is dict and (meta is same or (meta and meta == same))
    return marshal.dumps((fm, None if shared else meta), 2)


def _decode_packed(packed: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """(frontmatter, metadata) from a `packed_frontmatter` blob; anything else reads as two empty ones."""
    try:
        fm, meta = marshal.loads(packed)
    except (ValueError, EOFError, TypeError):
        return {}, {}
    if meta is None and fm.__class__ is dict:
        meta = fm.get("metadata")
    if fm.__class__ is not dict or meta.__class__ is not dict:
        return {}, {}
    return fm, meta


def _has_slot(obj: object, name: str) -> bool:
    """Whether a slot is set, without going through `__getattr__`."""
    try:
        object.__getattribute__(obj, name)
    except AttributeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Eligibility:
    """Whether a skill is usable on this host, and if not, why and how to fix it."""

    eligible: bool
    missing: Requirements = field(default_factory=Requirements)
    reasons: tuple[str, ...] = ()
    fixes: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        return "eligible" if self.eligible else "ineligible"


# ---------------------------------------------------------------- rows

Row = tuple[Any, ...]

#: Every `Skill` field in declaration order: the layout of a row.
SKILL_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Skill) if not f.name.startswith("_"))
_INSTALL_FIELDS = tuple(f.name for f in fields(InstallOption))
_ARG_FIELDS = tuple(f.name for f in fields(ToolArg))
#: every field; the frontmatter pair's slots read `name` instead (reading them would unpack them)
_ALL_FIELDS = attrgetter(*("name" if n in _PACKED_FIELDS else n for n in SKILL_FIELDS))
_INSTALL_VALUES = attrgetter(*_INSTALL_FIELDS)
_ARG_VALUES = attrgetter(*_ARG_FIELDS)
ROW_PATH = SKILL_FIELDS.index("path")
ROW_FRONTMATTER = SKILL_FIELDS.index("frontmatter")
ROW_METADATA = SKILL_FIELDS.index("metadata")
ROW_REQUIRES = SKILL_FIELDS.index("requires")
ROW_INSTALL = SKILL_FIELDS.index("install")
ROW_TOOLS = SKILL_FIELDS.index("tools")
#: the fields that hold tuples of strings
ROW_STRINGS = tuple(SKILL_FIELDS.index(n) for n in ("allowed_tools", "arguments", "tags", "prompts"))
_ROW_EMOJI, _ROW_DESCRIPTION, _ROW_ALWAYS, _ROW_NO_MODEL = (
    SKILL_FIELDS.index(n) for n in ("emoji", "description", "always", "disable_model_invocation")
)


def skill_to_row(s: Skill) -> Row:
    """A skill as one tuple of plain data (what marshal writes): every field in declaration order,
    the path as a string, requirements, install options and tools as tuples of their values, and
    the author's `frontmatter` and `metadata` as one packed blob in the frontmatter slot."""
    v = list(_ALL_FIELDS(s))
    v[ROW_FRONTMATTER] = s.packed_frontmatter()  # read packed: a skill built from a row is not unpacked
    v[ROW_METADATA] = None
    v[ROW_PATH] = str(v[ROW_PATH])
    r = v[ROW_REQUIRES]
    v[ROW_REQUIRES] = (r.bins, r.any_bins, r.env, r.config, r.os)
    if v[ROW_INSTALL]:
        v[ROW_INSTALL] = install_rows(v[ROW_INSTALL])
    if v[ROW_TOOLS]:
        v[ROW_TOOLS] = tool_rows(v[ROW_TOOLS])
    return tuple(v)


def install_rows(options: tuple[InstallOption, ...]) -> tuple[Row, ...]:
    """Install options as a row holds them: each one's fields in declaration order."""
    return tuple(map(_INSTALL_VALUES, options))


def tool_rows(tools: tuple[ToolSpec, ...]) -> tuple[Row, ...]:
    """SKILL.toml tools as a row holds them."""
    return tuple(
        (t.name, t.description, t.command, t.kind, tuple(map(_ARG_VALUES, t.args)), t.timeout) for t in tools
    )


def skill_from_row(row: Row, shared: dict[Any, Any] | None = None) -> Skill:
    """The skill a row of `skill_to_row`'s shape stands for (a row read from a file is checked
    for that shape first, by its reader).

    Immutable values (requirements, install options, tuples of strings) equal to ones built
    before from the same `shared` map are that same object: skills of one catalog repeat a few
    of each, and every object kept is one more for the host's cyclic collector to walk.
    """
    memo = shared if shared is not None else {}
    get, keep = memo.get, memo.setdefault
    v = list(row)
    v[ROW_PATH] = Path(v[ROW_PATH])
    packed = v[ROW_FRONTMATTER]
    for i in ROW_STRINGS:
        if v[i]:
            v[i] = keep(v[i], v[i])
    key = (Requirements, v[ROW_REQUIRES])
    v[ROW_REQUIRES] = get(key) or keep(key, Requirements(*v[ROW_REQUIRES]))
    if v[ROW_INSTALL]:
        key = (InstallOption, v[ROW_INSTALL])
        v[ROW_INSTALL] = get(key) or keep(key, tuple(InstallOption(*o) for o in v[ROW_INSTALL]))
    if v[ROW_TOOLS]:
        v[ROW_TOOLS] = tuple(
            ToolSpec(n, d, c, k, tuple(ToolArg(*a) for a in args), t) for n, d, c, k, args, t in v[ROW_TOOLS]
        )
    skill = Skill(*v)
    skill.defer_frontmatter(packed)  # the author's dicts and lists are built when first read
    return skill


def summary_of_row(row: Row) -> Row:
    """What a listing and the eligibility check read of a skill: (emoji, description, always,
    (bins, anyBins, env, config, os), offers tools to the model)."""
    return (
        row[_ROW_EMOJI],
        row[_ROW_DESCRIPTION],
        row[_ROW_ALWAYS],
        row[ROW_REQUIRES],
        bool(row[ROW_TOOLS]) and not row[_ROW_NO_MODEL],
    )
