"""Words the request did not use never outweigh the words it did: shapes from a catalog of 8,500
public skills, where a rare synonym used often and two request words run together into a rare
technical term ranked unrelated skills first."""

from __future__ import annotations

from pathlib import Path

from skillyard.model import Skill
from skillyard.parsing import parse_skill
from skillyard.search import SearchIndex


def skill(root: Path, name: str, description: str, body: str = "") -> Skill:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f'---\nname: {name}\ndescription: "{description}"\n---\n\n{body}', "utf-8")
    found, diags = parse_skill(d / "SKILL.md")
    assert found is not None, diags
    return found


def top(index: SearchIndex, query: str, k: int = 1) -> list[str]:
    index.index_bodies()
    return [h.name for h in index.search(query, k)]


def filler(root: Path, n: int, words: str) -> list[Skill]:
    """Unrelated skills that use `words` in passing, so those words are common, as in a catalog."""
    topics = ["invoices", "calendars", "weather", "recipes", "photos", "chess", "poetry", "budgets"]
    return [
        skill(root, f"filler-{i}", f"Help with {topics[i % len(topics)]}.", f"Notes: {words}.")
        for i in range(n)
    ]


def test_a_rare_synonym_used_often_does_not_outrank_the_words_asked_for(tmp_path: Path) -> None:
    ipv6 = "Router advertisement spoofing: craft a rogue router advertisement. " * 12
    skills = [
        skill(tmp_path, "marketing-campaign", "End-to-end marketing campaign planning and execution."),
        skill(tmp_path, "ipv6-attacks", "Test IPv6 networks in an authorised lab.", ipv6),
        *filler(tmp_path, 60, "plan the marketing of a campaign"),
    ]
    assert top(SearchIndex(skills), "plan a marketing campaign") == ["marketing-campaign"]


def test_a_word_family_still_counts_in_full(tmp_path: Path) -> None:
    skills = [
        skill(tmp_path, "skill-creator", "Guide for a skill creator writing skills."),
        skill(tmp_path, "release-notes", "Create release notes for a new version."),
        *filler(tmp_path, 30, "create things"),
    ]
    # "creator" is a rarer form of "create", not another word: it keeps its weight
    assert "skill-creator" in top(SearchIndex(skills), "creator of skills", 1)


def test_two_request_words_run_together_weigh_what_the_two_words_weigh(tmp_path: Path) -> None:
    skills = [
        skill(tmp_path, "mocking-apis", "Generate mock API servers for testing with realistic responses."),
        skill(
            tmp_path,
            "k8s-admission",
            "Harden the kube-apiserver: admission control, pod security, apiserver audit for testing and staging.",
            "Configure the apiserver flags and create a test. " * 5,
        ),
        *filler(tmp_path, 60, "call the API of a server when testing"),
    ]
    index = SearchIndex(skills)
    assert top(index, "create a mock API server for testing") == ["mocking-apis"]
    # the run-together reading is still made: "apiserver" is what the second skill says
    assert "api+server" in index.explain("api server")["terms"]  # type: ignore[operator]
    assert top(index, "configure the api server flags") == ["k8s-admission"]


def test_a_brand_written_in_camel_case_is_also_the_word_itself(tmp_path: Path) -> None:
    skills = [
        skill(tmp_path, "clip-keeper", "Save videos from YouTube to disk."),
        skill(tmp_path, "a-saver", "Save videos from Vimeo to disk."),
        skill(tmp_path, "ship-beta", "Ship an iOS app to the store."),
        skill(tmp_path, "ship-alpha", "Ship a Tizen app to the store."),
        *filler(tmp_path, 20, "videos and apps"),
    ]
    index = SearchIndex(skills)
    # typed in lower case, as requests are: the split parts alone ("tube", "os") never meet them
    assert top(index, "youtube", 5) == ["clip-keeper"]
    assert top(index, "save youtube videos") == ["clip-keeper"]
    assert top(index, "ship my ios app") == ["ship-beta"]
