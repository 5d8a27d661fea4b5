from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.config import SkillOverride, parse_config
from skillyard.eligibility import Host, evaluate, evaluate_plain, install_hints
from skillyard.model import InstallOption, Requirements, Skill


def fake_bin_dir(tmp_path: Path, *names: str) -> str:
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="bin", dir=tmp_path))
    for n in names:
        p = d / n
        p.write_text("#!/bin/sh\n")
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(d)


def skill(**kw: object) -> Skill:
    return Skill(name=str(kw.pop("name", "s")), description="d", path=Path("/x/s/SKILL.md"), **kw)  # type: ignore[arg-type]


def host(
    tmp_path: Path, bins: tuple[str, ...] = (), env: dict[str, str] | None = None, os_name: str = "linux"
) -> Host:
    return Host(env=env or {}, os_name=os_name, path=fake_bin_dir(tmp_path, *bins))


def test_no_requirements_is_eligible(tmp_path: Path) -> None:
    e = evaluate(skill(), host(tmp_path), parse_config({}))
    assert e.eligible and e.reasons == () and e.fixes == ()


def test_missing_binary_reasons_and_fixes_seed_style(tmp_path: Path) -> None:
    s = skill(
        name="video-frames",
        requires=Requirements(bins=("ffmpeg",)),
        install=(
            InstallOption(kind="apt", package="ffmpeg", bins=("ffmpeg",)),
            InstallOption(kind="brew", formula="ffmpeg", bins=("ffmpeg",)),
            InstallOption(kind="brew", formula="other", bins=("other",)),
        ),
    )
    e = evaluate(s, host(tmp_path), parse_config({}))
    assert not e.eligible
    assert e.reasons == ("Missing binary: ffmpeg",)
    assert e.fixes == ("apt install ffmpeg", "brew install ffmpeg")
    assert e.missing.bins == ("ffmpeg",)


def test_present_binary_and_env(tmp_path: Path) -> None:
    s = skill(requires=Requirements(bins=("gh",), env=("GITHUB_TOKEN",)))
    e = evaluate(s, host(tmp_path, ("gh",), {"GITHUB_TOKEN": "x"}), parse_config({}))
    assert e.eligible
    e2 = evaluate(s, host(tmp_path, ("gh",), {"GITHUB_TOKEN": ""}), parse_config({}))
    assert e2.reasons == ("Missing environment variable: GITHUB_TOKEN",)
    assert e2.fixes == ("export GITHUB_TOKEN=<value>",)


def test_per_skill_env_satisfies_requirement(tmp_path: Path) -> None:
    s = skill(name="api", requires=Requirements(env=("API_KEY",)))
    cfg = parse_config({"skill": {"api": {"env": {"API_KEY": "k"}}}})
    assert evaluate(s, host(tmp_path), cfg).eligible


def test_any_bins(tmp_path: Path) -> None:
    s = skill(requires=Requirements(any_bins=("rg", "ag")))
    assert evaluate(s, host(tmp_path, ("ag",)), parse_config({})).eligible
    e = evaluate(s, host(tmp_path), parse_config({}))
    assert e.reasons == ("Requires one of: rg, ag",)
    assert e.missing.any_bins == ("rg", "ag")


def test_os_mismatch_has_no_fixes(tmp_path: Path) -> None:
    s = skill(name="apple-notes", requires=Requirements(os=("macos",)))
    e = evaluate(s, host(tmp_path), parse_config({}))
    assert e.reasons == ("Requires macOS (current: linux)",) and e.fixes == ()
    assert e.missing.os == ("darwin",)
    assert evaluate(s, host(tmp_path, os_name="darwin"), parse_config({})).eligible


def test_config_requirement(tmp_path: Path) -> None:
    s = skill(requires=Requirements(config=("browser.enabled",)))
    assert evaluate(s, host(tmp_path), parse_config({})).reasons == ("Missing config: browser.enabled",)
    assert evaluate(s, host(tmp_path), parse_config({"config": {"browser": {"enabled": True}}})).eligible
    assert not evaluate(s, host(tmp_path), parse_config({"config": {"browser.enabled": "false"}})).eligible


def test_disabled_and_always(tmp_path: Path) -> None:
    s = skill(name="x", always=True, requires=Requirements(bins=("nope",), os=("linux",)))
    assert evaluate(s, host(tmp_path), parse_config({})).eligible  # always skips requires.*
    assert evaluate(s, host(tmp_path), parse_config({"skills": {"disabled": ["x"]}})).reasons == (
        "Disabled in config",
    )
    s_mac = skill(name="y", always=True, requires=Requirements(os=("darwin",)))
    assert not evaluate(s_mac, host(tmp_path), parse_config({})).eligible  # but not the OS


def test_install_options_filtered_by_os(tmp_path: Path) -> None:
    s = skill(
        requires=Requirements(bins=("himalaya",)),
        install=(
            InstallOption(kind="cargo", crate="himalaya"),
            InstallOption(kind="brew", formula="himalaya", os=("darwin",)),
            InstallOption(kind="go", module="example.com/x/cmd/x"),
            InstallOption(kind="uv", package="tool"),
            InstallOption(kind="node", package="pkg"),
            InstallOption(kind="download", url="https://example.invalid/x.tar.gz"),
        ),
    )
    e = evaluate(s, host(tmp_path), parse_config({}))
    assert e.fixes == (
        "cargo install himalaya",
        "go install example.com/x/cmd/x@latest",
        "uv tool install tool",
        "npm install -g pkg",
        "Download: https://example.invalid/x.tar.gz",
    )
    hints = install_hints(s, "darwin")
    assert {"kind": "brew", "command": "brew install himalaya"} in hints


def test_modified_since_install(tmp_path: Path) -> None:
    e = evaluate(skill(name="z"), host(tmp_path), parse_config({}), modified=True)
    assert e.reasons == ("Modified since install",) and e.fixes == ("skillyard trust accept z",)


def test_real_path_lookup_uses_host_env(tmp_path: Path) -> None:
    s = skill(requires=Requirements(bins=("sh",)))
    assert evaluate(s, Host(env={"PATH": os.defpath}), parse_config({})).eligible


# ------------------------------------------------------------ memoised answers equal the plain decision


_BINS = ["sh-present", "gone-a", "gone-b"]
_ENVS = ["TOKEN_A", "TOKEN_B"]


@settings(max_examples=80, deadline=None)
@given(
    bins=st.lists(st.sampled_from(_BINS), max_size=2, unique=True),
    any_bins=st.lists(st.sampled_from(_BINS), max_size=2, unique=True),
    env=st.lists(st.sampled_from(_ENVS), max_size=2, unique=True),
    cfg=st.lists(st.sampled_from(["a.b", "c"]), max_size=2, unique=True),
    os_list=st.lists(st.sampled_from(["linux", "macos", "windows"]), max_size=2, unique=True),
    always=st.booleans(),
    disabled=st.booleans(),
    host_env=st.dictionaries(st.sampled_from(_ENVS), st.sampled_from(["", "x"]), max_size=2),
    per_skill_env=st.dictionaries(st.sampled_from(_ENVS), st.sampled_from(["", "y"]), max_size=2),
    cfg_values=st.dictionaries(
        st.sampled_from(["a.b", "c"]), st.sampled_from(["", "no", "yes", 1]), max_size=2
    ),
    host_os=st.sampled_from(["linux", "darwin", "win32"]),
    name=st.text(min_size=1, max_size=8),
)
def test_memoised_evaluate_equals_plain(
    tmp_path_factory: pytest.TempPathFactory,
    bins: list[str],
    any_bins: list[str],
    env: list[str],
    cfg: list[str],
    os_list: list[str],
    always: bool,
    disabled: bool,
    host_env: dict[str, str],
    per_skill_env: dict[str, str],
    cfg_values: dict[str, object],
    host_os: str,
    name: str,
) -> None:
    """Two skills with other names but the same inputs share an answer; each equals the plain decision."""
    h = Host(
        env=host_env,
        os_name=host_os,
        path=_BIN_DIR.get() or fake_bin_dir(tmp_path_factory.mktemp("b"), "sh-present"),
    )
    _BIN_DIR.set(h.path)
    config = parse_config({})
    config = replace(
        config,
        values=dict(cfg_values),
        disabled=frozenset({name} if disabled else ()),
        skills={name: SkillOverride(env=dict(per_skill_env))},
    )
    req = Requirements(
        bins=tuple(bins), any_bins=tuple(any_bins), env=tuple(env), config=tuple(cfg), os=tuple(os_list)
    )
    opts = (
        InstallOption(kind="brew", formula="gone", bins=("gone-a",)),
        InstallOption(kind="apt", package="b"),
    )
    s = skill(name=name, requires=req, always=always, install=opts)
    for _ in range(2):  # the second answer comes from the memo
        assert evaluate(s, h, config) == evaluate_plain(s, h, config)
    assert evaluate(s, h, config, modified=True) == evaluate_plain(s, h, config, modified=True)


class _Once:
    """One fake PATH directory for every example (a fresh one each time would be slow)."""

    def __init__(self) -> None:
        self.path: str | None = None

    def get(self) -> str | None:
        return self.path

    def set(self, path: str | None) -> None:
        self.path = path


_BIN_DIR = _Once()


def test_memo_follows_host_changes(tmp_path: Path) -> None:
    """The memo is keyed by what the host answers, so a new env value or binary is seen at once."""
    s = skill(name="gh", requires=Requirements(bins=("gh",), env=("GH_TOKEN",)))
    env: dict[str, str] = {}
    bindir = fake_bin_dir(tmp_path)
    h = Host(env=env, os_name="linux", path=bindir)
    first = evaluate(s, h, parse_config({}))
    assert not first.eligible and len(first.reasons) == 2
    env["GH_TOKEN"] = "t"
    assert evaluate(s, h, parse_config({})).reasons == ("Missing binary: gh",)
    p = Path(bindir) / "gh"
    p.write_text("#!/bin/sh\n")
    p.chmod(0o755)
    h.forget_bins()
    assert evaluate(s, h, parse_config({})).eligible
    # another skill with the same needs gets the same (immutable) answer object
    twin = skill(name="gh-twin", requires=Requirements(bins=("gh",), env=("GH_TOKEN",)))
    assert evaluate(twin, h, parse_config({})) is evaluate(s, h, parse_config({}))


def test_install_commands_refuse_shell_syntax_and_quote_the_rest() -> None:
    assert InstallOption(kind="apt", package="x; touch /tmp/p").command() is None
    assert InstallOption(kind="brew", formula="--force").command() is None
    assert InstallOption(kind="brew", formula="../x").command() is None
    assert InstallOption(kind="go", module="http://evil.example/x").command() is None
    assert InstallOption(kind="cargo", crate="$(id)").command() is None
    assert InstallOption(kind="node", package="pkg `id`").command() is None
    assert InstallOption(kind="unknown", package="x").command() is None
    assert InstallOption(kind="uv", package="ruff>=0.5").command() == "uv tool install 'ruff>=0.5'"
    assert (
        InstallOption(kind="node", package="@scope/pkg@1.2.3").command() == "npm install -g @scope/pkg@1.2.3"
    )
    assert (
        InstallOption(kind="download", url="https://e.invalid/$(id)").command()
        == "Download: 'https://e.invalid/$(id)'"
    )
