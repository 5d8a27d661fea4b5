"""What a new user meets when following README.md and docs/ literally: each case a disagreement found that way."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from skillyard.cli import cli
from skillyard.config import ConfigError, load_config


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def test_skillyard_config_naming_a_missing_file_is_an_error_like_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "typo.toml"
    monkeypatch.setenv("SKILLYARD_CONFIG", str(missing))
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(cwd=tmp_path)
    code, out, err = run("list", "--json")
    assert code == 2 and out == ""
    assert f"{missing}: config file not found" in err


def test_skillyard_config_naming_a_new_file_still_lets_trust_add_create_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "new.toml"
    monkeypatch.setenv("SKILLYARD_CONFIG", str(target))
    code, _, err = run("trust", "add", "github.com/my-org/*")
    assert code == 0, err
    assert "github.com/my-org/*" in target.read_text(encoding="utf-8")
