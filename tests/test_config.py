from __future__ import annotations

from pathlib import Path

import pytest

from skillyard.config import Config, ConfigError, load_config, parse_config, persist_disabled


def write(p: Path, text: str) -> Path:
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_when_no_file(tmp_path: Path) -> None:
    cfg = load_config(cwd=tmp_path)
    assert cfg.path is None and cfg.roots is None
    assert cfg.execution.executor == "sandbox" and cfg.execution.timeout == 60
    assert cfg.execution.sandbox_uid == 65534 == cfg.execution.sandbox_gid
    assert cfg.install_root.name == "skills"


def test_project_file_is_found_and_parsed(tmp_path: Path) -> None:
    write(
        tmp_path / "skillyard.toml",
        """
[skills]
roots = ["./skills", "~/team-skills"]
disabled = ["some-skill"]

[config]
"browser.enabled" = true
[config.mail]
enabled = "yes"

[execution]
executor = "local"
timeout = 30
network = false
host_roots = ["/data/shared"]

[trust]
sources = ["github.com/anthropics/*"]

[hub]
index = "https://hub.example/index.json"

[skill.some-skill]
enabled = true
network = true
env = { API_BASE = "https://api.example" }
""",
    )
    cfg = load_config(tmp_path / "skillyard.toml")  # named: from the cwd alone it may not widen trust
    assert cfg.path == tmp_path / "skillyard.toml"
    assert cfg.roots == (tmp_path / "skills", Path.home() / "team-skills")
    assert cfg.value("browser.enabled") is True and cfg.value("mail.enabled") == "yes"
    assert cfg.execution.executor == "local" and cfg.execution.timeout == 30.0
    assert (
        load_config(write(tmp_path / "u.toml", "[execution]\nsandbox_uid = 4242\n")).execution.sandbox_uid
        == 4242
    )
    assert cfg.execution.host_roots == (Path("/data/shared"),)
    assert cfg.trust_sources == ("github.com/anthropics/*",)
    assert cfg.hub_index == "https://hub.example/index.json"
    # per-skill enabled = true wins over the disabled list
    assert not cfg.is_disabled("some-skill")
    assert cfg.override("some-skill").env == {"API_BASE": "https://api.example"}
    assert cfg.override("other").env == {}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[skills]\nroot = []\n", "skills.root"),
        ("[execution]\nexecutor = 'vm'\n", "execution.executor"),
        ("[execution]\ntimeout = -1\n", "execution.timeout"),
        ("[execution]\nnetwork = 'yes'\n", "execution.network"),
        ("[execution]\nsandbox_uid = 0\n", "execution.sandbox_uid"),
        ("[execution]\nsandbox_gid = 'nobody'\n", "execution.sandbox_gid"),
        ("[execution]\nsandbox_uid = true\n", "execution.sandbox_uid"),
        ("[skill.x]\ncolour = 1\n", "skill.x.colour"),
        ("[skill.x]\nenv = { A = 1 }\n", "skill.x.env"),
        ("unknown = 1\n", "unknown"),
        ("[skills]\ndisabled = 'a'\n", "skills.disabled"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    f = write(tmp_path / "c.toml", text)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert str(f) in str(e.value) and key in str(e.value)


def test_invalid_toml_and_missing_explicit_file(tmp_path: Path) -> None:
    f = write(tmp_path / "c.toml", "[skills\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(f)
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")


def test_persist_disabled_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "cfg" / "config.toml"
    persist_disabled(f, "a", True)
    persist_disabled(f, "b", True)
    persist_disabled(f, "a", False)
    cfg = load_config(f)
    assert cfg.disabled == frozenset({"b"})


def test_with_disabled_is_a_copy() -> None:
    cfg = parse_config({"skills": {"disabled": ["x"]}})
    cfg2 = cfg.with_disabled("x", False).with_disabled("y", True)
    assert cfg.is_disabled("x") and not cfg2.is_disabled("x") and cfg2.is_disabled("y")
    assert isinstance(cfg2, Config)


def test_model_install_keys_default_off(tmp_path: Path) -> None:
    cfg = parse_config({"trust": {"sources": ["github.com/acme/*"]}}, tmp_path / "skillyard.toml")
    assert cfg.model_installs is False and cfg.model_local_paths == ()
    assert Config().model_installs is False and Config().model_local_paths == ()


def test_model_install_keys_parsed(tmp_path: Path) -> None:
    f = write(
        tmp_path / "skillyard.toml",
        '[trust]\nsources = ["local:/srv/skills/**"]\nmodel_installs = true\n'
        'model_local_paths = ["/srv/skills", "./vetted", "~/reviewed"]\n',
    )
    cfg = load_config(f)
    assert cfg.model_installs is True
    assert cfg.model_local_paths == (Path("/srv/skills"), tmp_path / "vetted", Path.home() / "reviewed")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[trust]\nmodel_installs = 'yes'\n", "trust.model_installs"),
        ("[trust]\nmodel_installs = 1\n", "trust.model_installs"),
        ("[trust]\nmodel_local_paths = '/srv/skills'\n", "trust.model_local_paths"),
        ("[trust]\nmodel_local_paths = [1]\n", "trust.model_local_paths"),
        ("[trust]\nmodel_local_paths = ['']\n", "trust.model_local_paths"),
        ("[trust]\nmodel_local_paths = ['  ']\n", "trust.model_local_paths"),
        ("[trust]\nmodel_install = true\n", "trust.model_install"),
    ],
)
def test_model_install_keys_wrong_types(tmp_path: Path, text: str, key: str) -> None:
    f = write(tmp_path / "c.toml", text)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert str(f) in str(e.value) and key in str(e.value)


def test_a_linked_config_is_rewritten_where_it_lives(tmp_path: Path) -> None:
    """Dotfiles managers link the config from their repository: a saved change lands in that file
    and the link stays a link."""
    from skillyard.config import persist_disabled

    real = tmp_path / "dotfiles" / "skillyard.toml"
    real.parent.mkdir()
    real.write_text('[trust]\nsources = ["github.com/acme/*"]\n', encoding="utf-8")
    link = tmp_path / "config" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(real)
    persist_disabled(link, "demo", True)
    assert link.is_symlink() and link.resolve() == real.resolve()
    data = real.read_text(encoding="utf-8")
    assert "demo" in data and "github.com/acme/*" in data
