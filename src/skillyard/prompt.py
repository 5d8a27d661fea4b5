"""The prompt catalog (layer 1 of progressive disclosure) and the tool guidance text.

A catalog lists the skills a model may use: name, description and, for the XML
formats, where the skill file is. Four formats are rendered:

* ``xml``: byte-identical to skills-ref ``to-prompt`` (every tag and value on its
  own line, ``html.escape`` on name and description, location unescaped);
* ``openclaw``: one intro line, then indented XML with everything escaped, the
  home directory shown as ``~/`` and skills sorted by name;
* ``markdown``: ``- name: description`` lines;
* ``queryclaw``: the ``read_skill`` line format.

A character budget first shortens descriptions to a common cap (water-filling,
so short descriptions stay whole and long ones give up the most), then drops
skills from the end of the input order (the caller passes skills by priority),
and whenever anything was shortened or dropped a final line says
``N of M skills shown``. The text never exceeds the budget unless the budget is
smaller than that notice line, in which case the notice alone is returned.
"""

from __future__ import annotations

import bisect
import html
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from skillyard._shown import shown
from skillyard.model import Skill

__all__ = ["FORMATS", "Catalog", "relevant_names", "render_catalog", "tool_guidance"]

FORMATS = ("xml", "openclaw", "markdown", "queryclaw")

#: Descriptions are not shortened below this many characters before skills start being dropped.
MIN_DESCRIPTION_CHARS = 50
ELLIPSIS = "…"

OPENCLAW_INTRO = (
    "The skills below carry specialised instructions for particular tasks: when a task matches a "
    "skill's description, read its SKILL.md at the listed location before acting, and resolve any "
    "relative path it mentions against that skill's directory."
)
QUERYCLAW_INTRO = "Call read_skill(skill_name='<name>') to load full workflow instructions when the user's request matches a skill."

#: Short guidance per tool name, in the order they are shown.
GUIDANCE: dict[str, str] = {
    "skill_load": (
        "- A skill's instructions are not in context until you load them: call skill_load with the skill's "
        "name before following it (you may pass docs or include_all_docs to load docs with it)."
    ),
    "skill_list_docs": "- Call skill_list_docs to see which docs a skill offers.",
    "skill_select_docs": (
        "- When the instructions are loaded but a doc you need is missing, call skill_select_docs "
        "(mode add, replace or clear) to change which docs are loaded; load only the docs the task needs."
    ),
    "skill_run": (
        "- Once the instructions and the docs you need are loaded, run the skill's scripts and commands with "
        "skill_run; files written under out/ come back as outputs."
    ),
    "read_skill": (
        "- When the user's request matches a skill, call read_skill(skill_name='<name>') first to load its "
        "workflow instructions, then follow them."
    ),
    "skill": (
        "- When the user's request matches a skill, call the skill tool with its name to load it, then "
        "follow the instructions it returns."
    ),
    "skills": (
        "- The skills tool lists, searches and checks skills (actions list, search, info, check) when the "
        "catalog does not show what you need."
    ),
}
GUIDANCE_HEADER = "Skill tool guidance:"


def tool_guidance(tool_names: Iterable[str]) -> str:
    """Guidance lines for the exposed skill tools only, so the model is never told about a missing tool."""
    names = [tool_names] if isinstance(tool_names, str) else tool_names
    exposed = {name for name in names if isinstance(name, str)}
    lines = [text for name, text in GUIDANCE.items() if name in exposed]
    return "\n".join([GUIDANCE_HEADER, *lines]) if lines else ""


@dataclass(frozen=True, slots=True)
class Catalog:
    """A rendered catalog and what it left out."""

    text: str
    shown: int  #: skills listed
    total: int  #: skills that could have been listed (after dropping disable-model-invocation ones)
    truncated: bool  #: True when a description was shortened or a skill dropped
    format: str
    names: tuple[str, ...] = ()  #: names listed, in priority order
    shortened: int = 0  #: descriptions shortened

    def __str__(self) -> str:
        return self.text


# ------------------------------------------------------------------ helpers

#: Characters escaping lengthens, by how much: html.escape (&amp; &lt; &gt; &quot; &#x27;) and the
#: OpenClaw entities (&amp; &lt; &gt; &quot; &apos;) happen to agree.
_ESCAPE_EXTRA = {"&": 4, "<": 3, ">": 3, '"': 5, "'": 5}
_SPECIAL = re.compile(r"[&<>\"']")
_location_cache: dict[str, str] = {}


def _xml_escape(s: str) -> str:
    """XML escaping with ``&apos;`` (the OpenClaw catalog's entity set)."""
    return html.escape(s).replace("&#x27;", "&apos;")


def _flat(s: str) -> str:
    """One line: line formats must not let a description start a new catalog line."""
    return " ".join(s.split())


def _location(path: object) -> str:
    """The resolved absolute path of the skill file (skills-ref resolves the skill directory)."""
    try:
        key = os.fspath(path)  # type: ignore[arg-type]
    except TypeError:
        return shown(_text(path), one_line=True)
    if isinstance(key, bytes):
        key = os.fsdecode(key)
    loc = _location_cache.get(key)
    if loc is None:
        directory, name = os.path.split(key)
        try:
            loc = os.path.join(os.path.realpath(directory or "."), name)
        except (OSError, ValueError):  # e.g. a NUL byte in a hand-built path
            loc = key
        loc = shown(loc, one_line=True)  # one line, whatever the directory is named
        if len(_location_cache) > 200_000:
            _location_cache.clear()
        _location_cache[key] = loc
    return loc


def _home_relative(loc: str, homes: Sequence[str]) -> str:
    for h in homes:
        if h and h != os.sep and loc.startswith(h + os.sep):
            return "~/" + loc[len(h) + 1 :]
    return loc


def _truncate(s: str, cap: int) -> str:
    """At most `cap` characters, ending with the ellipsis when cut."""
    if len(s) <= cap:
        return s
    if cap <= 1:
        return ELLIPSIS[:cap]
    return s[: cap - 1].rstrip() + ELLIPSIS


def _text(value: object) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


@dataclass(slots=True, eq=False)  # compared and hashed by identity: the budget keys its caps by entry
class _Entry:
    name: str  #: the skill's name as given
    display: str  #: the name as rendered in this format
    src: str  #: description source text (flattened for line formats), before escaping
    fixed: int  #: rendered entry length with an empty description
    full: int  #: rendered description length when not shortened
    extra_pos: list[int] | None  #: positions of characters escaping adds to (None: no such characters)
    extra_cum: list[int] | None  #: cumulative added length up to and including each such position
    location: str


@dataclass(frozen=True, slots=True)
class _Format:
    """How one format renders; budget arithmetic only needs the lengths this exposes."""

    header: str | None
    footer: str | None
    entry: Callable[[str, str, str], str]
    escape: Callable[[str], str] | None  #: lengthens the characters in _ESCAPE_EXTRA by that much
    notice: Callable[[int, int, bool], str]
    empty: str


def _notice_words(shown: int, total: int, shortened: bool) -> str:
    words = f"{shown} of {total} skills shown"
    if shortened:
        words += ", descriptions shortened"
    if shown < total:
        words += f" ({total - shown} not shown)"
    return f"{words}; {SEARCH_ROUTE}"


def _xml_entry(name: str, desc: str, loc: str) -> str:
    return f"<skill>\n<name>\n{name}\n</name>\n<description>\n{desc}\n</description>\n<location>\n{loc}\n</location>\n</skill>"


def _openclaw_entry(name: str, desc: str, loc: str) -> str:
    return (
        f"    <skill>\n      <name>{name}</name>\n      <description>{desc}</description>\n"
        f"      <location>{loc}</location>\n    </skill>"
    )


def _markdown_entry(name: str, desc: str, loc: str) -> str:
    return f"- {name}: {desc}" if desc else f"- {name}"


def _queryclaw_entry(name: str, desc: str, loc: str) -> str:
    return f"  - {name}: {desc} — call read_skill(skill_name='{name}') when relevant"


_FORMATS: dict[str, _Format] = {
    "xml": _Format(
        "<available_skills>",
        "</available_skills>",
        _xml_entry,
        html.escape,
        lambda n, m, s: f"<!-- {_notice_words(n, m, s)} -->",
        "<available_skills>\n</available_skills>",
    ),
    "openclaw": _Format(
        OPENCLAW_INTRO + "\n\n  <available_skills>",
        "  </available_skills>",
        _openclaw_entry,
        _xml_escape,
        lambda n, m, s: f"<!-- {_notice_words(n, m, s)} -->",
        "",
    ),
    "markdown": _Format(None, None, _markdown_entry, None, lambda n, m, s: _notice_words(n, m, s) + ".", ""),
    "queryclaw": _Format(
        QUERYCLAW_INTRO + "\n\nAvailable skills:",
        None,
        _queryclaw_entry,
        None,
        lambda n, m, s: _notice_words(n, m, s) + ".",
        "",
    ),
}


def _display_name(raw: str, fmt_name: str) -> str:
    if fmt_name == "xml":
        return html.escape(raw)
    if fmt_name == "openclaw":
        return _xml_escape(raw)
    flat = _flat(raw)
    # queryclaw quotes the name inside read_skill(skill_name='...'): a quote must not close it early.
    return flat.replace("\\", "\\\\").replace("'", "\\'") if fmt_name == "queryclaw" else flat


def _prepare(skill: Skill, fmt_name: str, fmt: _Format, homes: Sequence[str]) -> _Entry:
    raw_name = shown(_text(skill.name))
    raw_desc = shown(_text(skill.description))
    name = _display_name(raw_name, fmt_name)
    location = ""
    if fmt_name in ("xml", "openclaw"):
        src = raw_desc
        location = _location(skill.path)
        if fmt_name == "openclaw":
            location = _xml_escape(_home_relative(location, homes))
        else:  # skills-ref leaves it as is; a directory name must still not close the tag
            location = location.replace("<", "&lt;").replace(">", "&gt;")
    else:  # line formats; queryclaw falls back to the name
        src = _flat(raw_desc) or (_flat(raw_name) if fmt_name == "queryclaw" else "")
    fixed = len(fmt.entry(name, "", location))
    if fmt_name == "markdown" and src:
        fixed += 2  # "- name: desc" rather than "- name"
    extra_pos: list[int] | None = None
    extra_cum: list[int] | None = None
    full = len(src)
    if fmt.escape is not None and _SPECIAL.search(src):
        extra_pos, extra_cum = [], []
        acc = 0
        for m in _SPECIAL.finditer(src):
            acc += _ESCAPE_EXTRA[m.group()]
            extra_pos.append(m.start())
            extra_cum.append(acc)
        full += acc
    return _Entry(raw_name, name, src, fixed, full, extra_pos, extra_cum, location)


def _desc_len(e: _Entry, cap: int) -> int:
    """Upper bound of the rendered description length at `cap` (exact when not shortened)."""
    if len(e.src) <= cap:
        return e.full
    if e.extra_pos is None:
        return cap
    keep = max(cap - 1, 0)
    i = bisect.bisect_left(e.extra_pos, keep)
    return cap + (e.extra_cum[i - 1] if i and e.extra_cum else 0)


def _render_desc(e: _Entry, fmt: _Format, cap: int | None) -> str:
    s = e.src if cap is None else _truncate(e.src, cap)
    return fmt.escape(s) if fmt.escape is not None else s


def _assemble(fmt: _Format, entries: list[str], notice: str | None) -> str:
    return "\n".join(p for p in (fmt.header, *entries, fmt.footer, notice) if p is not None)


def _frame_len(fmt: _Format) -> tuple[int, int]:
    """Length of header+footer and how many frame parts there are (each part after the first costs a newline)."""
    frame = [p for p in (fmt.header, fmt.footer) if p is not None]
    return sum(map(len, frame)), len(frame)


def _fits_all(entries: list[_Entry], cap: int, avail: int) -> bool:
    total = 0
    for e in entries:
        total += e.fixed + 1 + _desc_len(e, cap)
        if total > avail:
            return False
    return True


def _best_cap(entries: list[_Entry], avail: int, low: int) -> int:
    """Largest common description cap in [low, longest] whose entries fit in `avail` (assumes `low` fits)."""
    hi = max((len(e.src) for e in entries), default=low)
    lo = low
    # Fast path over plain descriptions: sum(min(len, cap)) via sorted lengths and prefix sums.
    plain = sorted(len(e.src) for e in entries if e.extra_pos is None)
    prefix = [0]
    for n in plain:
        prefix.append(prefix[-1] + n)
    fixed = sum(e.fixed + 1 for e in entries)
    special = [e for e in entries if e.extra_pos is not None]

    def size(cap: int) -> int:
        j = bisect.bisect_right(plain, cap)
        total = fixed + prefix[j] + cap * (len(plain) - j)
        for e in special:
            total += _desc_len(e, cap)
        return total

    while lo < hi:
        mid = (lo + hi + 1) // 2
        if size(mid) <= avail:
            lo = mid
        else:
            hi = mid - 1
    return lo


#: Skills a request pins to the top of the catalog (search hits, strong or weak).
RELEVANT_SKILLS = 5
#: A weak hit is pinned only when it scores at least this share of the best hit.
RELEVANT_SHARE = 0.5


def relevant_names(registry: Any, query: str | None, limit: int = RELEVANT_SKILLS) -> list[str]:
    """Names of the skills most relevant to the user's request, best first ([] without a request)."""
    if not isinstance(query, str) or not query.strip():
        return []
    hits = registry.search(query, limit=limit)
    if not hits:
        return []
    # Strong hits, and weak ones close to the best: a long tail of weak hits would crowd the catalog.
    top = hits[0].score
    return [h.name for h in hits if h.confidence == "strong" or h.score >= RELEVANT_SHARE * top]


SEARCH_ROUTE = 'find the others with the skills tool: {"action": "search", "query": "<what the user wants>"}'


def _order_rest(rest: list[Any], offset: int) -> list[Any]:
    """Rotate the skills a catalog may drop so that a different window is shown per `offset`."""
    if not rest or not offset:
        return rest
    k = offset % len(rest)
    return rest[k:] + rest[:k]


def render_catalog(
    skills: Sequence[Skill],
    fmt: str = "xml",
    budget: int | None = None,
    *,
    home: str | None = None,
    relevant: Sequence[str] = (),
    offset: int = 0,
) -> Catalog:
    """Render the skills (already filtered to the eligible ones, by priority) as a prompt catalog.

    `budget` caps the length of the returned text in characters; `home` is the
    directory shown as ``~/`` in the openclaw format (default: the user's home).
    `relevant` names the skills most relevant to the user's request, best first:
    they come first with full descriptions. When the budget cannot hold every
    skill, the others are degraded in this order: every description shortened to
    a common cap (not below MIN_DESCRIPTION_CHARS), then descriptions dropped (names
    only), then names dropped; the skills that keep their descriptions, and then their
    names, start at `offset` in the priority order (pass e.g. a session number so that
    no skill stays hidden in every session). The last line then says how many skills are shown and how to
    search for the rest.
    """
    if not isinstance(fmt, str) or fmt not in _FORMATS:
        raise ValueError(f"unknown catalog format: {fmt!r} (expected one of: {', '.join(FORMATS)})")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
        raise ValueError(f"budget must be a non-negative integer or None, not {budget!r}")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise ValueError("offset must be an integer")
    if skills is None or isinstance(skills, str | bytes) or not isinstance(skills, Iterable):
        raise TypeError(f"skills must be a sequence of Skill objects, not {type(skills).__name__}")
    if relevant is None or isinstance(relevant, str | bytes) or not isinstance(relevant, Iterable):
        raise TypeError("relevant must be a sequence of skill names")
    spec = _FORMATS[fmt]
    listed = [s for s in skills if isinstance(s, Skill) and not s.disable_model_invocation]
    homes: list[str] = []
    if fmt == "openclaw":
        h = home if home is not None else os.path.expanduser("~")
        if h and h != "~":
            h = h.rstrip(os.sep) or h
            homes = list(dict.fromkeys((h, os.path.realpath(h))))  # as given, then resolved when it differs
    total = len(listed)
    if total == 0:
        text = spec.empty
        if budget is not None and len(text) > budget:
            text = ""
        return Catalog(text, 0, 0, False, fmt)

    rank: dict[str, int] = {}
    for n in relevant:
        if isinstance(n, str) and n not in rank:
            rank[n] = len(rank)
    pinned_skills = sorted((s for s in listed if s.name in rank), key=lambda s: rank[s.name])
    rest_skills = [s for s in listed if s.name not in rank]
    pinned = [_prepare(s, fmt, spec, homes) for s in pinned_skills]
    # The others are prepared in priority order only while every name could still fit: past that,
    # names are dropped and only the window that is shown is prepared (a small budget over 10,000
    # skills touches a few hundred).
    rest: list[_Entry] = []
    names_fit = True
    names_len = 0
    for s in rest_skills:
        e = _prepare(s, fmt, spec, homes)
        rest.append(e)
        if budget is not None:
            names_len += len(spec.entry(e.display, "", e.location)) + 1
            if names_len > budget:
                names_fit = False
                break
    #: per entry: None = full description, int = shortened to that cap, -1 = name only
    caps: dict[_Entry, int | None] = {}

    def render(chosen: list[_Entry], notice: str | None) -> str:
        if fmt == "openclaw":
            chosen = sorted(chosen, key=lambda e: (e.name.casefold(), e.name))
        parts = []
        for e in chosen:
            cap = caps.get(e)
            desc = "" if cap == -1 else _render_desc(e, spec, cap)
            parts.append(spec.entry(e.display, desc, e.location))
        return _assemble(spec, parts, notice)

    frame, frame_parts = _frame_len(spec)
    entries = pinned + rest
    full_len = frame + frame_parts - 1 + sum(e.fixed + e.full + 1 for e in entries)
    if budget is None or (names_fit and full_len <= budget):
        return Catalog(render(entries, None), total, total, False, fmt, tuple(e.name for e in entries))
    notice_len = len(spec.notice(total, total, True)) + len(f" ({total} not shown); {SEARCH_ROUTE}")
    avail = budget - frame - frame_parts - notice_len
    low = MIN_DESCRIPTION_CHARS

    def bare(e: _Entry) -> int:
        return len(spec.entry(e.display, "", e.location)) + 1

    chosen: list[_Entry] = []
    pinned_full = sum(e.fixed + 1 + e.full for e in pinned)
    if pinned and pinned_full > avail:
        # Even the relevant skills do not fit whole: shorten them, then keep as many as fit.
        fit: list[_Entry] = []
        used = 0
        for e in pinned:
            if used + e.fixed + 1 + _desc_len(e, low) > avail:
                break
            fit.append(e)
            used += e.fixed + 1 + _desc_len(e, low)
        if fit:
            cap = _best_cap(fit, avail, low)
            for e in fit:
                caps[e] = cap if len(e.src) > cap else None
        chosen = fit
    else:
        chosen = list(pinned)
        room = avail - pinned_full
        if names_fit and _fits_all(rest, low, room):
            cap = _best_cap(rest, room, low)
            for e in rest:
                caps[e] = cap if len(e.src) > cap else None
            chosen += rest
        elif names_fit and sum(bare(e) for e in rest) <= room:
            # Every name fits: descriptions at the floor for a window of skills starting at `offset`, as
            # dropped names do (folders named to sort first must not keep theirs in every session), names
            # only for the others.
            names_total = sum(bare(e) for e in rest)
            used = 0
            for e in _order_rest(rest, offset):
                extra = e.fixed + 1 + _desc_len(e, low) - bare(e)
                if names_total + used + extra > room:
                    break
                used += extra
                caps[e] = low if len(e.src) > low else None
            for e in rest:
                caps.setdefault(e, -1)
            chosen += rest
        else:
            used = 0
            for s in _order_rest(rest_skills, offset):
                e = _prepare(s, fmt, spec, homes)
                if used + bare(e) > room:
                    break
                caps[e] = -1
                chosen.append(e)
                used += bare(e)
    shortened = sum(1 for e in chosen if caps.get(e) is not None)
    notice = spec.notice(len(chosen), total, shortened > 0)
    if not chosen:
        framed = _assemble(spec, [], notice)
        if len(framed) <= budget:
            return Catalog(framed, 0, total, True, fmt)
        # The shortest notices still say how many are hidden; the search route goes first when it must.
        short = [
            notice,
            spec.notice(0, total, False).replace(SEARCH_ROUTE, 'use the skills tool\'s "search"'),
        ]
        bare = f"0 of {total} skills shown"
        short.append(f"<!-- {bare} -->" if spec.escape is not None else bare + ".")
        fitting = [n for n in short if len(n) <= budget]
        return Catalog(fitting[0] if fitting else short[-1], 0, total, True, fmt)
    text = render(chosen, notice)
    return Catalog(text, len(chosen), total, True, fmt, tuple(e.name for e in chosen), shortened)
