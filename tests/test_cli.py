"""The CLI's JSON shapes, exit codes and human output, run as real subprocesses where it matters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillyard._cli_io import dumps_json
from skillyard.cli import FILTERS, cli, compact_list_json

FFMPEG_META = (
    'metadata: {"openclaw": {"emoji": "🎞️", "requires": {"bins": ["ffmpeg-not-here"]}, '
    '"install": [{"id": "apt", "kind": "apt", "package": "ffmpeg-not-here", "label": "Install via apt"}]}}'
)


@pytest.fixture
def root(tmp_path: Path, make_skill) -> Path:
    r = tmp_path / "skills"
    make_skill(
        r, "weather", "Get current weather and forecasts", extra='metadata: {"openclaw": {"emoji": "🌤️"}}'
    )
    make_skill(
        r, "video-frames", "Extract frames from videos", extra=FFMPEG_META, files={"USAGE.md": "# usage\n"}
    )
    return r


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return res.exit_code, res.output


def test_list_json_is_seed_shape_plus_diagnostics(root: Path) -> None:
    code, out = run("--root", str(root), "list", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"count", "skills", "diagnostics"}
    assert data["count"] == 2
    names = {s["name"]: s for s in data["skills"]}
    assert names["weather"] == {
        "name": "weather",
        "emoji": "🌤️",
        "description": "Get current weather and forecasts",
        "eligible": True,
    }
    assert names["video-frames"] == {
        "name": "video-frames",
        "emoji": "🎞️",
        "description": "Extract frames from videos",
        "eligible": False,
    }


def test_list_filter_and_verbose(root: Path) -> None:
    code, out = run("--root", str(root), "list", "--filter", "ineligible", "--verbose", "--json")
    data = json.loads(out)
    assert code == 0 and data["count"] == 1
    item = data["skills"][0]
    assert item["name"] == "video-frames" and item["path"] == str(root / "video-frames" / "SKILL.md")
    assert (
        item["requires"]["bins"] == ["ffmpeg-not-here"]
        and item["requires"]["env"] == []
        and item["requires"]["os"] == []
    )
    code, out = run("--root", str(root), "list", "--filter", "eligible", "--json")
    assert [s["name"] for s in json.loads(out)["skills"]] == ["weather"]


def test_info_and_check_json(root: Path) -> None:
    code, out = run("--root", str(root), "info", "video-frames", "--json")
    assert code == 0
    info = json.loads(out)
    for key in ("name", "emoji", "description", "eligible", "path", "requires", "missing", "install"):
        assert key in info
    assert info["missing"]["bins"] == ["ffmpeg-not-here"]
    assert info["install"] == [
        {"id": "apt", "kind": "apt", "package": "ffmpeg-not-here", "label": "Install via apt"}
    ]
    assert info["docs"] == ["USAGE.md"]
    code, out = run("--root", str(root), "check", "video-frames", "--json")
    assert code == 0
    assert json.loads(out) == {
        "name": "video-frames",
        "eligible": False,
        "reasons": ["Missing binary: ffmpeg-not-here"],
        "fixes": ["apt install ffmpeg-not-here"],
    }
    code, out = run("--root", str(root), "check", "weather", "--json")
    assert json.loads(out) == {"name": "weather", "eligible": True, "reasons": [], "fixes": []}


def test_unknown_skill_exit_1_with_seed_error_and_suggestion(root: Path) -> None:
    code, out = run("--root", str(root), "info", "wether", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["error"] == "skill not found: wether" and data["did_you_mean"] == ["weather"]
    code, out = run("--root", str(root), "check", "zzz", "--json")
    assert code == 1 and json.loads(out) == {"error": "skill not found: zzz"}


def test_human_output(root: Path) -> None:
    code, out = run("--root", str(root), "list")
    assert code == 0 and "weather" in out and "2 skills, 1 eligible" in out
    code, out = run("--root", str(root), "check", "video-frames")
    assert "Missing binary: ffmpeg-not-here" in out and "apt install ffmpeg-not-here" in out


def test_human_list_shows_one_line_per_skill(tmp_path: Path, make_skill) -> None:
    # a description written as a YAML block keeps its line breaks; the table must not print them
    make_skill(
        tmp_path, "api", "|\n  Reference for the API.\n  TRIGGER when code imports it.\n  SKIP otherwise."
    )
    make_skill(tmp_path, "zeta", "Another skill.")
    code, out = run("--root", str(tmp_path), "list")
    lines = out.splitlines()
    assert code == 0 and lines[1].split()[1] == "api" and lines[2].split()[1] == "zeta", out
    assert "TRIGGER" in lines[1] or "…" in lines[1]


def test_repeatable_root(tmp_path: Path, make_skill) -> None:
    make_skill(tmp_path / "a", "one")
    make_skill(tmp_path / "b", "two")
    code, out = run("--root", str(tmp_path / "a"), "--root", str(tmp_path / "b"), "list", "--json")
    assert [s["name"] for s in json.loads(out)["skills"]] == ["one", "two"]


def test_bad_config_is_a_usage_error_naming_file_and_key(tmp_path: Path, root: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[execution]\nexecuter = 'local'\n")
    res = subprocess.run(
        [sys.executable, "-m", "skillyard", "--config", str(cfg), "--root", str(root), "list"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2
    assert str(cfg) in res.stderr and "execution.executer" in res.stderr


def test_usage_error_exit_2() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "skillyard", "list", "--filter", "nope"], capture_output=True, text=True
    )
    assert res.returncode == 2


def test_validate_exit_codes(tmp_path: Path, make_skill) -> None:
    good = make_skill(tmp_path, "good-one")
    bad = make_skill(tmp_path, "Bad_Name", dirname="elsewhere")
    code, out = run("validate", str(good), "--json")
    assert code == 0 and json.loads(out)["skills"][0]["valid"] is True
    code, out = run("validate", str(good), str(bad), "--strict", "--json")
    data = json.loads(out)
    assert code == 1
    assert [s["valid"] for s in data["skills"]] == [True, False]
    assert set(data["skills"][1]) >= {"path", "name", "valid", "errors", "warnings"}


def test_bundled_skills_are_strictly_valid() -> None:
    builtin = Path(__file__).parents[1] / "src" / "skillyard" / "builtin"
    dirs = sorted(str(p) for p in builtin.iterdir() if p.is_dir())
    assert len(dirs) >= 5
    code, out = run("validate", "--strict", "--json", *dirs)
    assert code == 0, out


def test_console_script_runs_on_bundled_skills() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "skillyard", "list", "--json"], capture_output=True, text=True, cwd="/"
    )
    assert res.returncode == 0, res.stderr
    names = {s["name"] for s in json.loads(res.stdout)["skills"]}
    assert {"skill-authoring", "json-toolkit", "text-report", "video-frames", "file-tools"} <= names


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=80).filter(lambda s: not s.startswith("-") and "\x00" not in s))
def test_hostile_names_never_crash_the_cli(root: Path, name: str) -> None:
    for command in ("info", "check"):
        res = CliRunner().invoke(cli, ["--root", str(root), command, name, "--json"])
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        assert res.exit_code in (0, 1)
        data = json.loads(res.output)
        assert data.get("name") == name or data["error"] == f"skill not found: {name}"


@given(
    rows=st.lists(st.tuples(st.text(), st.text(), st.text(), st.booleans()), max_size=8),
    filter_=st.sampled_from(FILTERS),
)
def test_compact_list_json_is_the_report_dumped_for_a_pipe(rows, filter_: str) -> None:
    """The text written straight from summary rows is byte for byte what encoding the report gives."""
    items = [
        {"name": n, "emoji": e, "description": d, "eligible": ok}
        for n, e, d, ok in rows
        if filter_ == "all" or ok is (filter_ == "eligible")
    ]
    diags = [{"level": "warning", "code": "x", "message": 'm \u2603 "q"', "path": "/p", "line": None}]
    expected = dumps_json({"count": len(items), "skills": items, "diagnostics": diags})
    assert "".join(compact_list_json(rows, filter_, diags)) == expected


@pytest.mark.parametrize("filter_", FILTERS)
def test_compact_list_json_in_pieces_is_the_whole_report(filter_: str) -> None:
    """Thousands of rows are written in several pieces; joined, they are the encoded report."""
    rows = [(f"s{i}", "\U0001f527" if i % 3 else "", f'does "{i}"\n\\', i % 2 == 0) for i in range(2500)]
    items = [
        {"name": n, "emoji": e, "description": d, "eligible": ok}
        for n, e, d, ok in rows
        if filter_ == "all" or ok is (filter_ == "eligible")
    ]
    pieces = list(compact_list_json(rows, filter_, []))
    assert len(pieces) > 3
    assert "".join(pieces) == dumps_json({"count": len(items), "skills": items, "diagnostics": []})


@pytest.mark.parametrize("filter_", FILTERS)
def test_list_json_on_a_pipe_is_the_report(root: Path, make_skill, filter_: str) -> None:
    """`list --json` to a pipe prints what `reports.list_report` holds, compact (control characters,
    quotes and non-ASCII text included)."""
    from skillyard import reports
    from skillyard.registry import Registry

    make_skill(root, "odd", 'Says "hi" \\ to \u00e9t\u00e9 \U0001f600 and\ttabs', dirname="odd")
    code, out = run("--root", str(root), "list", "--filter", filter_, "--json")
    assert code == 0
    reg = Registry.from_roots([root])
    data = reports.list_report(reg, filter_)
    data["diagnostics"] = [d.to_dict() for d in reg.diagnostics]
    assert out == json.dumps(data, separators=(",", ":")) + "\n"
