"""Source parsing and trust matching: pure functions, no network."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.install import InstallError, SourceError, TrustError, TrustPolicy, parse_source
from skillyard.install.trust import pattern_matches, validate_pattern


@pytest.mark.parametrize(
    ("raw", "kind", "location", "ref", "subdir"),
    [
        ("local:/srv/skills/x", "local", "/srv/skills/x", None, None),
        ("/srv/skills/x/", "local", "/srv/skills/x", None, None),
        (
            "git+https://example.invalid/org/repo.git",
            "git",
            "https://example.invalid/org/repo.git",
            None,
            None,
        ),
        (
            "git+https://example.invalid/org/repo@v1.2#skills/pdf",
            "git",
            "https://example.invalid/org/repo",
            "v1.2",
            "skills/pdf",
        ),
        ("git+file:///tmp/r@main", "git", "file:///tmp/r", "main", None),
        ("https://github.com/anthropics/skills", "git", "https://github.com/anthropics/skills", None, None),
        (
            "https://github.com/anthropics/skills.git",
            "git",
            "https://github.com/anthropics/skills",
            None,
            None,
        ),
        (
            "https://github.com/anthropics/skills/tree/main/document-skills/pdf",
            "git",
            "https://github.com/anthropics/skills",
            "main",
            "document-skills/pdf",
        ),
        (
            "https://example.invalid/dl/pdf-1.0.zip",
            "archive",
            "https://example.invalid/dl/pdf-1.0.zip",
            None,
            None,
        ),
        (
            "https://example.invalid/dl/pdf.tar.gz",
            "archive",
            "https://example.invalid/dl/pdf.tar.gz",
            None,
            None,
        ),
        (
            "https://example.invalid/dl/pdf.skill",
            "archive",
            "https://example.invalid/dl/pdf.skill",
            None,
            None,
        ),
        ("http://127.0.0.1:8000/a.tgz", "archive", "http://127.0.0.1:8000/a.tgz", None, None),
    ],
)
def test_parse_source(raw: str, kind: str, location: str, ref: str | None, subdir: str | None) -> None:
    spec = parse_source(raw)
    assert (spec.kind, spec.location, spec.ref, spec.subdir) == (kind, location, ref, subdir)


def test_hub_sources() -> None:
    s = parse_source("hub:himalaya@1.2.0")
    assert (s.kind, s.location, s.version) == ("hub", "himalaya", "1.2.0")
    assert parse_source("clawhub", name="himalaya").canonical() == "hub:himalaya"
    with pytest.raises(SourceError):
        parse_source("clawhub")


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "x" * 5000,
        "http://example.invalid/a.zip",  # plain http off loopback
        "ftp://example.invalid/a.zip",
        "ssh://git@example.invalid/r",
        "git@github.com:org/repo.git",
        "ext::sh -c touch% /tmp/pwned",
        "-uhelp",
        "git+https://example.invalid/r@--upload-pack=x",
        "git+https://example.invalid/r#../../etc",
        "git+https://example.invalid/r#/abs",
        "https://github.com/org/repo/tree/../x",
        "https://github.com/org/repo/issues/1",
        "https://example.invalid/page.html",
        "hub:../x",
        "hub:a b",
        "line\nbreak",
        "nul\x00byte",
        "https://exa mple.invalid/a.zip",
        "https://example.invalid:99999/a.zip",
        "not-a-path-or-url",
    ],
)
def test_bad_sources_raise_clear_errors(raw: str) -> None:
    with pytest.raises(SourceError) as exc:
        parse_source(raw)
    assert exc.value.to_dict()["error"] == "invalid source"
    assert exc.value.to_dict()["installed"] is False


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_parse_source_never_crashes(raw: str) -> None:
    try:
        spec = parse_source(raw)
    except InstallError as e:
        assert e.to_dict()["error"]
        return
    assert spec.kind in ("local", "git", "archive", "hub")


# ---------------------------------------------------------------- trust


def test_default_trust_is_local_and_hub_only() -> None:
    pol = TrustPolicy()
    assert pol.is_trusted(parse_source("local:/anything"))
    assert pol.is_trusted(parse_source("hub:x"))
    assert not pol.is_trusted(parse_source("https://github.com/anthropics/skills"))
    assert not pol.is_trusted(parse_source("https://example.invalid/a.zip"))


def test_patterns_match_segments_not_substrings() -> None:
    pol = TrustPolicy(("github.com/anthropics/*",))
    assert pol.is_trusted(parse_source("https://github.com/anthropics/skills"))
    assert pol.is_trusted(parse_source("https://github.com/Anthropics/skills/tree/main/pdf"))
    assert pol.is_trusted(parse_source("git+https://github.com/anthropics/skills.git@v1"))
    assert not pol.is_trusted(parse_source("https://github.com/anthropics-evil/skills"))
    assert not pol.is_trusted(parse_source("git+https://github.com.example.invalid/anthropics/skills"))
    assert not pol.is_trusted(parse_source("git+https://evil.invalid/github.com/anthropics/skills"))
    assert pattern_matches("example.invalid/**", "example.invalid/a/b/c.zip")
    assert not pattern_matches("example.invalid/*", "example.invalid/a/b.zip")


def test_hub_url_pattern() -> None:
    pol = TrustPolicy(
        ("https://hub.example.invalid/index.json",), hub_index="https://hub.example.invalid/index.json"
    )
    pol.defaults = ()
    assert pol.is_trusted(parse_source("hub:x"))
    pol.hub_index = "https://other.example.invalid/index.json"
    assert not pol.is_trusted(parse_source("hub:x"))


@pytest.mark.parametrize(
    "bad", ["", "*", "**", "**/**", "https://*", "*/x", "*.*/x", "a b", "x\n", "x" * 600]
)
def test_overbroad_or_malformed_patterns_refused(bad: str) -> None:
    with pytest.raises(TrustError):
        validate_pattern(bad)


def test_trust_add_remove_persists_to_config(tmp_path: Path) -> None:
    import tomllib

    cfg = tmp_path / "config.toml"
    cfg.write_text('[hub]\nindex = "https://hub.example.invalid/i.json"\n', "utf-8")
    pol = TrustPolicy(config_path=cfg)
    assert pol.add("github.com/anthropics/*") is True
    assert pol.add("github.com/anthropics/*") is False
    data = tomllib.loads(cfg.read_text("utf-8"))
    assert data["trust"]["sources"] == ["github.com/anthropics/*"]
    assert data["hub"]["index"] == "https://hub.example.invalid/i.json"
    assert pol.remove("github.com/anthropics/*") is True
    assert tomllib.loads(cfg.read_text("utf-8"))["trust"]["sources"] == []
    assert pol.remove("nope/*") is False
    with pytest.raises(TrustError):
        pol.remove("local:*")
    with pytest.raises(TrustError):
        TrustPolicy().add("github.com/x/*")  # no config file to write to
