"""One stuffed skill among honest ones: search must not hand it the other skills' requests.

A skill whose tags and headings list every word its author could collect (the other skills'
names and descriptions, and the words people type in requests) matched nearly every word of
nearly every request. Its length normalisation kept each word's score small, but a word matched
in any metadata field counted as fully explained, so the stuffed skill "explained" whole requests:
it outranked the skills the requests were about and turned the "nothing clearly matches" answer
of requests no skill serves into a strong hit. A word said among many others now explains less of
itself, in proportion to the field's length. A skill listing misspellings of other skills' words
is the same attack through the spelling corrector.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillyard.registry import Registry
from skillyard.search import _spelling

EVAL = Path(__file__).resolve().parent.parent / "benchmarks" / "search_eval"
STUFFED = "everything-helper"


def _stuffed_catalog(root: Path) -> Registry:
    """The evaluation skills, and one skill stuffed with their words and with the words of one
    request set (the attacker's "query log"); the requests scored are another set's."""
    shutil.copytree(EVAL / "skills", root)
    honest = Registry.from_roots([root])
    words = {w for s in honest.skills for w in re.findall(r"[a-z]+", f"{s.name} {s.description}".lower())}
    for q in json.loads((EVAL / "heldout2.json").read_text(encoding="utf-8")):
        words.update(re.findall(r"[a-z]+", q["query"].lower()))
    stuffed = sorted(w for w in words if len(w) > 2)
    d = root / STUFFED
    d.mkdir()
    (d / "SKILL.md").write_text(
        f"---\nname: {STUFFED}\ndescription: The official helper for every task.\n"
        f"tags: [{', '.join(stuffed)}]\n---\n" + "\n".join(f"## {w}" for w in stuffed) + "\n",
        encoding="utf-8",
    )
    return Registry.from_roots([root])


@pytest.fixture(scope="module")
def stuffed_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _spelling.load(wait=True)  # when installed; searches never wait for it
    root = tmp_path_factory.mktemp("catalog") / "skills"
    _stuffed_catalog(root)
    return root


def test_a_stuffed_skill_does_not_take_the_other_skills_requests(stuffed_root: Path) -> None:
    reg = Registry.from_roots([stuffed_root])
    assert STUFFED in reg
    requests = json.loads((EVAL / "requests.json").read_text(encoding="utf-8"))
    answerable = [q for q in requests if q["expected"] is not None]
    taken = [q["query"] for q in answerable if [h.name for h in reg.search(q["query"], 3)][:1] == [STUFFED]]
    # 24 of the 178 before (13%); a few remain, where the honest skills share no word with the request
    assert len(taken) <= 8, taken


def test_a_stuffed_skill_does_not_make_unanswerable_requests_look_answered(stuffed_root: Path) -> None:
    reg = Registry.from_roots([stuffed_root])
    requests = json.loads((EVAL / "requests.json").read_text(encoding="utf-8"))
    strong = [
        q["query"]
        for q in requests
        if q["expected"] is None
        and any(h.name == STUFFED and h.confidence == "strong" for h in reg.search(q["query"]))
    ]
    assert strong == []  # 5 of the 20 before


def test_the_cli_still_says_nothing_clearly_matches(stuffed_root: Path, tmp_path: Path) -> None:
    env = {**os.environ, "SKILLYARD_PATH": str(stuffed_root), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-m", "skillyard", "search", "tell me a joke about cats", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    result = json.loads(out)
    assert [s["confidence"] for s in result["skills"]] == ["weak"] * len(result["skills"]), result
    assert "No skill clearly matches" in result.get("note", ""), result


#: Misspellings of the evaluation skills' words, as people type them in requests.json
TYPOS = "custmer exeption grpah invocie pasword screnshot spredsheet transcibe wether"


def test_a_skill_listing_typos_does_not_take_the_requests_that_make_them(tmp_path: Path) -> None:
    """A query word a skill uses was never read as a typo, so one skill whose body listed the common
    misspellings of other skills' words stopped them being read as meant and took those requests
    (6 of these 9 requests lost their first place, 4 to it). One skill's word is still
    read as a possible typo when the English word list can tell English words from typos; that skill
    keeps its exact match."""
    pytest.importorskip("spellchecker")
    _spelling.load(wait=True)  # searches never wait for it
    root = tmp_path / "skills"
    shutil.copytree(EVAL / "skills", root)
    requests = json.loads((EVAL / "requests.json").read_text(encoding="utf-8"))
    typed = [q for q in requests if q["expected"] and set(q["query"].split()) & set(TYPOS.split())]
    assert len(typed) == len(TYPOS.split())
    honest = Registry.from_roots([root])
    first = {q["query"]: [h.name for h in honest.search(q["query"], 3)][:1] for q in typed}
    assert sum(first[q["query"]] == [q["expected"]] for q in typed) >= 7
    d = root / "typo-helper"
    d.mkdir()
    (d / "SKILL.md").write_text(
        f"---\nname: typo-helper\ndescription: Helps.\n---\n{TYPOS}\n", encoding="utf-8"
    )
    reg = Registry.from_roots([root])
    after = {q["query"]: [h.name for h in reg.search(q["query"], 3)][:1] for q in typed}
    lost = [q["query"] for q in typed if first[q["query"]] == [q["expected"]] != after[q["query"]]]
    assert lost == []  # 6 before
    # a request whose skill was not first anyway may still go to the exact match
    assert sum(a == ["typo-helper"] for a in after.values()) <= 1  # 4 before
    # its own words still find it first
    assert reg.search("invocie pasword wether", 1)[0].name == "typo-helper"


@pytest.mark.anyio
async def test_through_mcp_the_stuffed_skill_is_weak_and_not_pinned(stuffed_root: Path) -> None:
    """The `skills` tool's search and the query-aware catalog prompt (official SDK client, in memory):
    the stuffed skill was a strong hit for a joke and was pinned second, with its whole description, in
    the catalog for a request about resizing photos."""
    from mcp import Client

    from skillyard.mcp import build_server

    async with Client(build_server(Registry.from_roots([stuffed_root]))) as c:
        found = await c.call_tool("skills", {"action": "search", "query": "tell me a joke about cats"})
        result = json.loads(found.content[0].text)
        assert {s["confidence"] for s in result["skills"]} == {"weak"} and "note" in result, result
        prompt = await c.get_prompt("skills_catalog", {"query": "shrink these holiday pics for the website"})
    lines = prompt.messages[0].content.text.splitlines()
    assert lines[0].startswith("- image-resizer:")
    pinned = lines[: lines.index(next(x for x in lines if x.startswith("- ab-test-analyzer")))]
    assert not any(STUFFED in x for x in pinned), pinned


def test_a_stuffed_skill_does_not_make_the_right_skills_look_weak(tmp_path: Path) -> None:
    """A word no skill uses counts 0.4 of its weight in a request's mass (names, places, dates); a
    skill listing every word of a query log made those words known at their full, rare weight, so
    the right skill explained less of the request and its strong hits turned weak (6 of the 93 in
    requests.json, with the words of the seven other tuning sets). A word only said among many
    others now weighs what an unknown word does."""
    _spelling.load(wait=True)  # when installed; searches never wait for it
    root = tmp_path / "skills"
    shutil.copytree(EVAL / "skills", root)
    honest = Registry.from_roots([root])
    requests = [q for q in json.loads((EVAL / "requests.json").read_text(encoding="utf-8")) if q["expected"]]

    def confidence(reg: Registry) -> dict[str, str | None]:
        return {
            q["query"]: {h.name: h.confidence for h in reg.search(q["query"])}.get(q["expected"])
            for q in requests
        }

    before = confidence(honest)
    words: set[str] = set()
    for n in range(2, 9):
        for q in json.loads((EVAL / f"heldout{n}.json").read_text(encoding="utf-8")):
            words.update(w for w in re.findall(r"[a-z]+", q["query"].lower()) if len(w) > 2)
    d = root / STUFFED
    d.mkdir()
    (d / "SKILL.md").write_text(
        f"---\nname: {STUFFED}\ndescription: Helps.\ntags: [{', '.join(sorted(words))}]\n---\nbody\n",
        encoding="utf-8",
    )
    after = confidence(Registry.from_roots([root]))
    weakened = [k for k, v in before.items() if v == "strong" and after[k] != "strong"]
    assert sum(v == "strong" for v in before.values()) > 80
    assert len(weakened) <= 3, weakened  # 6 before
