"""`skillyard install` says when the skill it installed is shadowed by a name that reads the same.

Discovery shadows a name equal to a loaded one after NFKC and case folding ("Demo" and "demo"),
so such an install is not used: the CLI must say so, as it does for an exact namesake. The real
`skillyard` group, a real install into a real install root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillyard.cli import cli


def _skill(d: Path, name: str) -> Path:
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: A demo.\n---\nHello.\n", "utf-8")
    return d


def test_an_install_shadowed_by_a_look_alike_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "skillyard.toml"
    cfg.write_text(f'[install]\nroot = "{tmp_path / "installed"}"\n', encoding="utf-8")
    _skill(tmp_path / "skills" / "demo", "demo")  # a project skill: first on the search path
    src = _skill(tmp_path / "src" / "Demo", "Demo")
    r = CliRunner().invoke(cli, ["--config", str(cfg), "install", str(src), "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["installed"] is True
    listed = CliRunner().invoke(cli, ["--config", str(cfg), "list", "--json"], catch_exceptions=False)
    assert [s["name"] for s in json.loads(listed.output)["skills"]].count("Demo") == 0  # the premise
    assert [c["wins"] for c in data["shadowing"]] == [True, False]
    assert data["warnings"][-1:] == [
        f"the project skill 'demo' at {tmp_path / 'skills' / 'demo' / 'SKILL.md'} wins over the installed copy "
        "(it comes first on the search path); the installed copy is not used"
    ]
