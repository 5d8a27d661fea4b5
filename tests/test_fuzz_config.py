"""Hostile config files and concurrent writers: a clear usage error, and no change is lost."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.cli import cli
from skillyard.config import ConfigError, load_config, update_config_file

HYPO = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _nested(depth: int, kind: str) -> str:
    """A TOML value nested `depth` levels deep: arrays, or inline tables."""
    if kind == "array":
        return "[" * depth + "]" * depth
    return "{a = " * depth + "1" + "}" * depth


@pytest.mark.parametrize("kind", ["array", "table"])
def test_deeply_nested_config_is_a_config_error(tmp_path: Path, kind: str) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"x = {_nested(5000, kind)}\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(cfg)


@pytest.mark.parametrize("argv", [["list", "--json"], ["trust", "add", "github.com/acme/*", "--json"]])
def test_deeply_nested_config_on_the_cli_is_a_usage_error(tmp_path: Path, argv: list[str]) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"[trust]\nsources = []\nx = {_nested(5000, 'array')}\n")
    before = cfg.read_bytes()
    res = CliRunner().invoke(cli, ["--root", str(tmp_path), "--config", str(cfg), *argv])
    assert not isinstance(res.exception, RecursionError), res.exception
    assert res.exit_code == 2, res.output[-500:]
    assert "nested too deeply" in res.output
    assert cfg.read_bytes() == before


def test_an_integer_past_the_digit_limit_is_a_config_error(tmp_path: Path) -> None:
    """tomllib hands a 5,000-digit integer to int(), whose ValueError is no TOMLDecodeError: it
    reached the command line as a traceback."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"[config]\nx = {'1' * 5000}\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(cfg)
    res = CliRunner().invoke(cli, ["--root", str(tmp_path), "--config", str(cfg), "list", "--json"])
    assert res.exit_code == 2 and "invalid TOML" in res.output, res.output[-500:]


@HYPO
@given(depth=st.integers(min_value=1, max_value=3000), kind=st.sampled_from(["array", "table"]))
def test_any_nesting_depth_loads_or_is_a_config_error(tmp_path: Path, depth: int, kind: str) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"[config]\nx = {_nested(depth, kind)}\n")
    try:
        load_config(cfg)
    except ConfigError as e:
        assert str(cfg) in str(e)


def test_update_refuses_a_config_that_is_not_a_regular_small_file(tmp_path: Path) -> None:
    """The writer reads through the same bounded reader as the loader: a FIFO or /dev/zero is refused."""
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="cannot read config file"):
        update_config_file(link, lambda data: None)
    bad = tmp_path / "bad.toml"
    bad.write_text("[trust\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        update_config_file(bad, lambda data: data.setdefault("trust", {}))
    assert bad.read_text() == "[trust\n"


def test_concurrent_trust_adds_all_land(tmp_path: Path) -> None:
    """Many processes each add one pattern at once: every pattern is in the file afterwards."""
    cfg = tmp_path / "c.toml"
    cfg.write_text("[trust]\nsources = []\n")
    patterns = [f"github.com/org{i}/*" for i in range(10)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "skillyard", "--config", str(cfg), "trust", "add", p, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        for p in patterns
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        json.loads(out)
    assert sorted(tomllib.loads(cfg.read_text())["trust"]["sources"]) == sorted(patterns)
