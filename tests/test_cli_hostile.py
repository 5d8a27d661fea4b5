"""Hostile input across every `skillyard` command: no traceback, the documented exit code, a clear message.

Exit codes: 0 success, 1 the command ran and reports failure, 2 usage error. `--json` answers stay JSON
on errors where a JSON answer makes sense. Most cases run through click's CliRunner (fast); a few run
the real `python -m skillyard` process, where argv bytes that are not UTF-8 can actually arrive.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.cli import cli
from skillyard.config import MAX_CONFIG_BYTES
from skillyard.fsread import read_regular_file

HUGE = "x" * 1_000_000
#: surrogateescape form of a name that is not UTF-8 (what Python makes of such argv bytes)
NON_UTF8 = os.fsdecode(b"caf\xe9-\xff\xfe")
HOSTILE = {
    "empty": "",
    "huge": HUGE,
    "traversal": "../../etc/passwd",
    "absolute": "/etc/passwd",
    "non-utf8": NON_UTF8,
    "option-like": "--help-me",
    "newline": "a\nb",
    "nul": "a\0b",
    "injection": "x; rm -rf / #$(touch pwned)`touch pwned2`",
}
HYPO = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def env(tmp_path: Path, make_skill, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A skills root with one skill; cwd is a fresh tmp dir so no ./skillyard.toml leaks in."""
    make_skill(tmp_path / "skills", "weather", "Get current weather and forecasts")
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    before = sorted(os.listdir(work))
    yield tmp_path
    assert not (work / "pwned").exists() and not (work / "pwned2").exists()
    assert sorted(os.listdir(work)) == before, "a command wrote into the working directory"


def invoke(args: Sequence[str], input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=True)


def assert_clean(res: Result, codes: set[int] | int, *, message: bool = True) -> None:
    """No crash: the exception (if any) is a SystemExit, no traceback text, an expected code."""
    codes = {codes} if isinstance(codes, int) else codes
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"crashed: {res.exception!r}") from res.exception
    assert "Traceback" not in res.output
    assert res.exit_code in codes, (res.exit_code, res.output[-500:])
    if message and res.exit_code != 0:
        assert res.output.strip(), "a failure must say why"


def json_out(res: Result) -> object:
    return json.loads(res.stdout)


def root_args(env: Path) -> list[str]:
    return ["--root", str(env / "skills")]


# ---------------------------------------------------------------- names and free-text arguments

#: (argv after the root option, the code for a name that does not exist, JSON answer expected)
NAME_COMMANDS: dict[str, tuple[list[str], set[int], bool]] = {
    "info": (["info", "{v}", "--json"], {1}, True),
    "check": (["check", "{v}", "--json"], {1}, True),
    "search-json": (["search", "{v}", "--json"], {0}, True),
    "search": (["search", "{v}"], {1}, False),
    "call-tool": (["call", "{v}", "--json"], {1}, True),
    "install": (["install", "{v}", "--json"], {1}, True),
    "uninstall": (["uninstall", "{v}", "--json"], {1}, True),
    "update": (["update", "{v}", "--json"], {1}, True),
    "audit": (["audit", "{v}", "--json"], {2}, True),
    "trust-remove": (["trust", "remove", "{v}", "--json"], {1, 2}, True),
    "trust-accept": (["trust", "accept", "{v}", "--json"], {1}, True),
    "run": (["run", "{v}", "--json", "--", "true"], {1}, True),
}


def _fill(template: list[str], value: str) -> list[str]:
    return [value if a == "{v}" else a for a in template]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("command", sorted(NAME_COMMANDS))
def test_hostile_names_never_crash(env: Path, command: str, kind: str) -> None:
    template, codes, is_json = NAME_COMMANDS[command]
    value = HOSTILE[kind]
    if command == "audit" and kind == "absolute":
        pytest.skip("an absolute path to a file is a valid audit target (covered below)")
    if command == "search-json" and kind == "huge":
        codes = {0, 2}  # a query may be refused as too long; either way no crash
    if kind == "option-like":  # an unknown option before `--` is a usage error (`run` takes it as a name)
        codes = {1, 2}
    res = invoke([*root_args(env), *_fill(template, value)])
    assert_clean(res, codes)
    if is_json and (kind != "option-like" or res.exit_code != 2):
        data = json_out(res)
        assert isinstance(data, dict)
        if res.exit_code:
            assert any(k in data for k in ("error", "is_error")), data


def test_audit_of_an_existing_file_and_of_an_empty_target(env: Path) -> None:
    res = invoke([*root_args(env), "audit", "/etc/hostname", "--json"])
    assert_clean(res, {0, 1})
    assert json_out(res)["path"] == "/etc/hostname"
    # "" is not "the current directory": it names nothing
    res = invoke([*root_args(env), "audit", "", "--json"])
    assert_clean(res, 2)
    assert "error" in json_out(res)


def test_names_that_are_not_utf8_print_as_valid_json(env: Path) -> None:
    """A name Python decoded with surrogateescape is echoed as a \\udcxx escape, still valid JSON."""
    res = invoke([*root_args(env), "info", NON_UTF8, "--json"])
    assert_clean(res, 1)
    assert json_out(res) == {"error": f"skill not found: {NON_UTF8}"}
    res = invoke(["validate", f"/nonexistent/{NON_UTF8}"])  # human output through rich
    assert_clean(res, 1)
    assert "caf" in res.output


@HYPO
@given(name=st.text(max_size=300))
def test_info_and_check_any_name(env: Path, name: str) -> None:
    for cmd in ("info", "check"):
        res = invoke([*root_args(env), cmd, name, "--json"])
        if name == "weather":
            assert_clean(res, 0)
            continue
        # NUL or an option-looking value may be a usage error; never anything else
        assert_clean(res, {1, 2})
        if res.exit_code == 1:
            assert json_out(res)["error"].startswith("skill not found")


@HYPO
@given(query=st.text(max_size=500), limit=st.integers(min_value=-5, max_value=200))
def test_search_any_query_and_limit(env: Path, query: str, limit: int) -> None:
    res = invoke([*root_args(env), "search", "--limit", str(limit), "--json", "--", query])
    if not 1 <= limit <= 100:
        assert_clean(res, 2)
        return
    assert_clean(res, {0, 2})
    if res.exit_code == 0:
        data = json_out(res)
        assert data["query"] == query and data["count"] == len(data["skills"])


@HYPO
@given(name=st.text(max_size=200))
def test_uninstall_update_accept_any_name(env: Path, name: str) -> None:
    install_root = Path(os.environ["XDG_DATA_HOME"]) / "skillyard" / "skills"
    for cmd in (["uninstall"], ["update"], ["trust", "accept"]):
        res = invoke([*root_args(env), *cmd, "--json", "--", name])
        assert_clean(res, 1)
        data = json_out(res)
        assert isinstance(data, dict) and data.get("error")
    assert not install_root.exists() or not [p for p in install_root.iterdir() if not p.name.startswith(".")]


@HYPO
@given(source=st.text(max_size=200))
def test_install_any_source_writes_nothing(env: Path, source: str) -> None:
    install_root = Path(os.environ["XDG_DATA_HOME"]) / "skillyard" / "skills"
    res = invoke([*root_args(env), "install", "--json", "--", source])
    assert_clean(res, 1)
    assert json_out(res)["installed"] is False
    assert not install_root.exists() or not [p for p in install_root.iterdir() if not p.name.startswith(".")]


def test_install_traversal_sources_leave_no_trace(env: Path) -> None:
    install_root = Path(os.environ["XDG_DATA_HOME"]) / "skillyard" / "skills"
    passwd = Path("/etc/passwd").stat()
    for src in ("../../etc/passwd", "/etc", "local:../../..", "hub:../../x", "git+file:///etc", "/dev/zero"):
        res = invoke([*root_args(env), "install", src, "--json"])
        assert_clean(res, 1)
        assert json_out(res)["installed"] is False
    assert Path("/etc/passwd").stat().st_mtime_ns == passwd.st_mtime_ns
    assert not install_root.exists() or not [p for p in install_root.iterdir() if not p.name.startswith(".")]


# ---------------------------------------------------------------- call: JSON arguments

BAD_ARGUMENTS = [
    "{",
    "[]",
    "null",
    "1",
    '"text"',
    "[" * 100_000,
    "{" * 50_000 + "}" * 50_000,
    '{"skill": 1}',
    '{"skill": ["weather"]}',
    '{"skill": {"a": 1}}',
    '{"skill": "../../etc/passwd"}',
    '{"skill": "weather", "docs": "../../../etc/passwd"}',
    '{"skill": "weather", "docs": ["../../../etc/passwd", "/etc/passwd"]}',
    '{"path": "/etc/passwd", "skill": "weather"}',
    '{"skill": "weather", "command": "cat /etc/shadow", "cwd": "../../.."}',
    json.dumps({"skill": HUGE}),
    "\x00",
    NON_UTF8,
]


@pytest.mark.parametrize(
    "tool", ["skills", "skill_load", "skill_list_docs", "read_skill", "skill_run", "skill"]
)
def test_call_with_bad_json_arguments(env: Path, tool: str) -> None:
    for args in BAD_ARGUMENTS:
        res = invoke([*root_args(env), "call", tool, "--json", "--", args])
        assert_clean(res, {0, 1})
        data = json_out(res)
        assert set(data) >= {"content", "is_error"}
        if res.exit_code == 1:
            assert data["is_error"] is True and data["content"].strip()
        assert "/root:" not in data["content"] and "root:x:0:0" not in data["content"]


def test_call_arguments_from_stdin_and_oversized(env: Path) -> None:
    res = invoke([*root_args(env), "call", "skill_load", "-", "--json"], input='{"skill": "weather"}')
    assert_clean(res, 0)
    res = invoke([*root_args(env), "call", "skill_load", "-", "--json"], input="x" * 5_000_000)
    assert_clean(res, 1)
    assert "too large" in json_out(res)["content"]
    res = invoke([*root_args(env), "call", "skill_load", "-", "--json"], input=b"\xff\xfe{}")
    assert_clean(res, 1)
    assert json_out(res)["is_error"] is True


@HYPO
@given(args=st.text(max_size=400))
def test_call_any_argument_text(env: Path, args: str) -> None:
    res = invoke([*root_args(env), "call", "skill_load", "--json", "--", args])
    assert_clean(res, {0, 1, 2})
    if res.exit_code != 2:
        assert isinstance(json_out(res), dict)


@HYPO
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20), st.lists, max_leaves=8
    )
)
def test_call_json_of_the_wrong_type(env: Path, value: object) -> None:
    for tool in ("skill_load", "skill_run"):
        res = invoke(
            [*root_args(env), "call", tool, "--json", "--", json.dumps({"name": value, "skill": value})]
        )
        assert_clean(res, {0, 1})
        assert "content" in json_out(res)


# ---------------------------------------------------------------- --session files


def _session_cases(tmp: Path) -> dict[str, tuple[Path, set[int]]]:
    garbage = tmp / "garbage.json"
    garbage.write_bytes(b"\x00\xff\xfe garbage {")
    wrong_type = tmp / "list.json"
    wrong_type.write_text("[1, 2, 3]")
    wrong_keys = tmp / "keys.json"
    wrong_keys.write_text('{"format": 1, "loaded": "all", "evil": true}')
    deep = tmp / "deep.json"
    deep.write_text("[" * 200_000)
    big = tmp / "big.json"
    with big.open("wb") as f:
        f.truncate(9 * 1024 * 1024)
    directory = tmp / "adir"
    directory.mkdir()
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    unreadable = tmp / "unreadable.json"
    unreadable.write_text("{}")
    unreadable.chmod(0)
    under_file = tmp / "garbage.json" / "child.json"
    return {
        "garbage": (garbage, {2}),
        "wrong-type": (wrong_type, {2}),
        "wrong-keys": (wrong_keys, {2}),
        "deep": (deep, {2}),
        "big": (big, {2}),
        "directory": (directory, {2}),
        "fifo": (fifo, {2}),
        # root reads anything; an ordinary user gets "permission denied"
        "unreadable": (unreadable, {0, 1} if os.geteuid() == 0 else {2}),
        "under-a-file": (under_file, {1, 2}),
    }


def test_session_files_that_cannot_be_used(env: Path) -> None:
    for kind, (path, codes) in _session_cases(env).items():
        before = path.read_bytes() if path.is_file() and os.access(path, os.R_OK) else None
        for argv in (
            ["prompt", "--session", str(path), "--json"],
            ["call", "skills", "{}", "--session", str(path), "--json"],
        ):
            res = invoke([*root_args(env), *argv])
            assert_clean(res, codes if argv[0] == "call" else codes - {1} or {0})
            if res.exit_code == 2:
                assert "session" in res.output, (kind, res.output)
        if before is not None and kind != "unreadable":
            assert path.read_bytes() == before, f"{kind}: an unusable session file was overwritten"


@pytest.mark.parametrize("value", ["", "a\0b", "x" * 5000])
def test_session_path_values(env: Path, value: str) -> None:
    res = invoke([*root_args(env), "prompt", "--session", value])
    assert_clean(res, 2)


# ---------------------------------------------------------------- --config and --root


def _bad_files(tmp: Path) -> dict[str, Path]:
    garbage = tmp / "garbage.toml"
    garbage.write_bytes(b"\xff\xfe[[[ = \x00")
    wrong = tmp / "wrong.toml"
    wrong.write_text('[execution]\nexecutor = "rootkit"\n')
    unknown = tmp / "unknown.toml"
    unknown.write_text("[skills]\nrootz = []\n")
    big = tmp / "big.toml"
    with big.open("wb") as f:
        f.truncate(MAX_CONFIG_BYTES + 1)
    directory = tmp / "cfgdir"
    directory.mkdir()
    fifo = tmp / "cfg.fifo"
    os.mkfifo(fifo)
    dangling = tmp / "dangling.toml"
    dangling.symlink_to(tmp / "nowhere.toml")
    return {
        "garbage": garbage,
        "wrong-value": wrong,
        "unknown-key": unknown,
        "big": big,
        "directory": directory,
        "fifo": fifo,
        "dangling": dangling,
        "missing": tmp / "missing.toml",
        "dev-zero": Path("/dev/zero"),
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["list", "--json"],
        ["info", "weather"],
        ["prompt"],
        ["trust", "list", "--json"],
        ["run", "weather", "--", "true"],
    ],
)
def test_config_files_that_cannot_be_used_are_usage_errors(env: Path, argv: list[str]) -> None:
    for kind, path in _bad_files(env).items():
        res = invoke(["--config", str(path), *root_args(env), *argv])
        assert_clean(res, 2)
        assert str(path) in res.output, (kind, res.output)


def test_config_file_values(env: Path) -> None:
    for value in ("", "a\0b", "x" * 5000, NON_UTF8):
        res = invoke(["--config", value, "list", "--json"])
        assert_clean(res, 2)


def test_roots_that_are_not_directories(env: Path) -> None:
    afile = env / "afile"
    afile.write_text("not a dir")
    fifo = env / "root.fifo"
    os.mkfifo(fifo)
    dangling = env / "dangling-root"
    dangling.symlink_to(env / "nowhere")
    unreadable = env / "unreadable"
    unreadable.mkdir()
    (unreadable / "s").mkdir()
    (unreadable / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    unreadable.chmod(0)
    try:
        for root in (afile, fifo, dangling, unreadable, env / "missing", Path("/dev/null"), Path(NON_UTF8)):
            res = invoke(["--root", str(root), "--root", str(env / "skills"), "list", "--json"])
            assert_clean(res, 0)
            data = json_out(res)
            assert "weather" in [s["name"] for s in data["skills"]]
            res = invoke(["--root", str(root), "list"])
            assert_clean(res, 0)
    finally:
        unreadable.chmod(0o755)
    for value in ("", "a\0b"):
        res = invoke(["--root", value, "list", "--json"])
        assert_clean(res, 2)
        assert "path" in res.output


def test_a_missing_root_is_reported_on_stderr(env: Path) -> None:
    missing = env / "no-such-root"
    res = invoke(["--root", str(missing), "--root", str(env / "skills"), "list", "--json"])
    assert_clean(res, 0)
    assert f"--root {missing}: no such directory" in res.stderr
    assert json_out(res)["count"] == 1  # stdout stays the JSON answer


# ---------------------------------------------------------------- validate, run, tools, prompt, serve


def test_validate_hostile_paths(env: Path) -> None:
    fifo = env / "v.fifo"
    os.mkfifo(fifo)
    for value in ("../../etc", "/etc/passwd", str(fifo), "/dev/zero", NON_UTF8, "x" * 5000, "-", "/"):
        res = invoke(["validate", "--json", "--", value])
        assert_clean(res, 1)
        [item] = json_out(res)["skills"]
        assert item["valid"] is False and item["errors"]
    for value in ("", "a\0b"):
        res = invoke(["validate", "--json", value])
        assert_clean(res, 2)


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["run", "weather", "--timeout", "nan", "--json", "--", "true"], 2),
        (["run", "weather", "--timeout", "-1", "--json", "--", "true"], 2),
        (["run", "weather", "--timeout", "inf", "--json", "--", "true"], 2),
        (["run", "weather", "--timeout", "abc", "--", "true"], 2),
        (["run", "weather", "--executor", "root", "--", "true"], 2),
        (["run", "weather"], 2),
    ],
)
def test_run_bad_options(env: Path, argv: list[str], code: int) -> None:
    res = invoke([*root_args(env), *argv])
    assert_clean(res, code)


@pytest.mark.parametrize(
    "argv",
    [
        ["tools", "--provider", "evil"],
        ["tools", "--tool", "../../etc/passwd"],
        ["tools", "--tool", ""],
        ["prompt", "--format", "html"],
        ["prompt", "--budget", "-1"],
        ["prompt", "--budget", "1e999"],
        ["list", "--filter", "everything"],
        ["search", "x", "--limit", "0"],
        ["search", "x", "--limit", "99999999999999999999999"],
        ["call", "skills", "{}", "--load-mode", "kernel"],
        ["audit", "x", "--fail-on", "sometimes"],
        ["audit", "x", "--format", "xml"],
        ["trust"],
        ["trust", "forget", "x"],
        ["nonexistent-command"],
        ["--root"],
    ],
)
def test_bad_options_are_usage_errors(env: Path, argv: list[str]) -> None:
    res = invoke([*root_args(env), *argv])
    assert_clean(res, 2)


def test_run_output_globs_that_leave_the_workspace_are_ignored_with_a_warning(env: Path) -> None:
    for pattern in ("../../etc/passwd", "/etc/*", "$HOME/.ssh/*", "out/../../../etc/passwd"):
        res = invoke([*root_args(env), "run", "weather", "--output", pattern, "--json", "--", "true"])
        assert_clean(res, {0, 1})
        data = json_out(res)
        assert data["output_files"] == []
        assert any("ignored" in w for w in data["warnings"]), data["warnings"]


def test_tools_and_prompt_with_extreme_values(env: Path) -> None:
    res = invoke([*root_args(env), "prompt", "--budget", "0", "--json"])
    assert_clean(res, 0)
    assert json_out(res)["shown"] == 0
    res = invoke([*root_args(env), "prompt", "--budget", str(10**30), "--json"])
    assert_clean(res, 0)
    res = invoke([*root_args(env), "tools", "--provider", "anthropic", "--tool", "skills"])
    assert_clean(res, 0)
    assert isinstance(json_out(res), list)


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port", "-1"],
        ["serve", "--port", "70000"],
        ["serve", "--port", "http"],
        ["serve", "--transport", "carrier-pigeon"],
        ["serve", "--transport", "http", "--host", "0.0.0.0"],
        ["serve", "--transport", "http", "--host", ""],
        ["serve", "--transport", "http", "--host", "127.0.0.1.evil.com"],
        ["serve", "--tool", "../../bin/sh"],
        ["serve", "--page-size", "0"],
        ["serve", "--log-level", "EVERYTHING"],
    ],
)
def test_serve_rejects_bad_flags_without_serving(env: Path, argv: list[str]) -> None:
    res = invoke([*root_args(env), *argv])
    assert_clean(res, 2)


# ---------------------------------------------------------------- trust and the config file it writes


def test_trust_add_creates_a_missing_explicit_config(env: Path) -> None:
    cfg = env / "conf" / "new.toml"
    res = invoke(["--config", str(cfg), "trust", "add", "github.com/acme/*", "--json"])
    assert_clean(res, 0)
    assert json_out(res) == {
        "trusted": True,
        "pattern": "github.com/acme/*",
        "added": True,
        "config": str(cfg),
    }
    res = invoke(["--config", str(cfg), "trust", "list", "--json"])
    assert_clean(res, 0)
    assert json_out(res)["sources"] == ["github.com/acme/*"]
    res = invoke(["--config", str(cfg), "trust", "remove", "github.com/acme/*", "--json"])
    assert_clean(res, 0)


def test_read_only_commands_still_refuse_a_missing_explicit_config(env: Path) -> None:
    cfg = env / "absent.toml"
    for argv in (["trust", "list"], ["trust", "remove", "x"], ["list"]):
        res = invoke(["--config", str(cfg), *argv])
        assert_clean(res, 2)
        assert "config file not found" in res.output
    assert not cfg.exists()


def test_trust_add_where_the_config_cannot_be_written(env: Path) -> None:
    blocker = env / "blocker"
    blocker.write_text("a file where a directory should be")
    res = invoke(["--config", str(blocker / "c.toml"), "trust", "add", "github.com/acme/*", "--json"])
    assert_clean(res, 1)
    assert "cannot write config file" in json_out(res)["error"]
    dangling = env / "dangling.toml"
    dangling.symlink_to(env / "nowhere" / "c.toml")
    res = invoke(["--config", str(dangling), "trust", "add", "github.com/acme/*"])
    assert_clean(res, 2)
    assert not (env / "nowhere").exists()


@HYPO
@given(pattern=st.text(max_size=200))
def test_trust_add_any_pattern(env: Path, pattern: str) -> None:
    cfg = env / "trust.toml"
    res = invoke(["--config", str(cfg), "trust", "add", "--json", "--", pattern])
    assert_clean(res, {0, 2})
    data = json_out(res)
    if res.exit_code == 0:
        # whatever was accepted reads back as a valid config
        res = invoke(["--config", str(cfg), "trust", "list", "--json"])
        assert_clean(res, 0)
        assert data["pattern"] in json_out(res)["sources"]
    else:
        assert data["error"]


# ---------------------------------------------------------------- the shared reader


def test_read_regular_file_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_regular_file(fifo, 100)
    with pytest.raises(IsADirectoryError):
        read_regular_file(tmp_path, 100)
    with pytest.raises(OSError, match="not a regular file"):
        read_regular_file("/dev/zero", 100)  # a character device: refused before reading
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(OSError, match="too large"):
        read_regular_file(big, 100)
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "missing", 100)
    big.write_bytes(b"x" * 100)
    assert read_regular_file(big, 100) == b"x" * 100


# ---------------------------------------------------------------- real processes


def _skillyard(
    args: Sequence[str | bytes], env_dir: Path, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env.pop("PYTHONIOENCODING", None)
    env["LANG"] = env["LC_ALL"] = "C.UTF-8"
    return subprocess.run(
        [sys.executable, "-m", "skillyard", *args],
        input=stdin,
        capture_output=True,
        cwd=env_dir / "cwd",
        env=env,
        timeout=60,
    )


def test_real_process_non_utf8_argv_and_fifo_config(env: Path) -> None:
    root = str(env / "skills").encode()
    fifo = env / "c.fifo"
    os.mkfifo(fifo)
    cases: list[tuple[list[str | bytes], int]] = [
        ([b"--root", root, b"info", b"caf\xe9\xff", b"--json"], 1),
        ([b"--root", root, b"search", b"\xff\xfe", b"--json"], 0),
        ([b"--root", root, b"uninstall", b"\xff/../x", b"--json"], 1),
        ([b"--root", b"/nonexistent/\xff", b"list", b"--json"], 0),
        ([b"--config", str(fifo).encode(), b"list", b"--json"], 2),
        ([b"validate", b"--json", b"/tmp/\xff\xfe-missing"], 1),
        ([b"--root", root, b"serve", b"--transport", b"http", b"--host", b"0.0.0.0"], 2),
    ]
    for args, code in cases:
        proc = _skillyard(args, env)
        assert b"Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
        assert proc.returncode == code, (args, proc.returncode, proc.stderr[-500:])
        if b"--json" in args and code != 2:
            json.loads(proc.stdout.decode("utf-8"))  # strict UTF-8 and valid JSON


def test_real_process_call_reads_hostile_stdin(env: Path) -> None:
    proc = _skillyard(
        ["--root", str(env / "skills"), "call", "skill_load", "-", "--json"], env, stdin=b"\xff\x00{{{" * 1000
    )
    assert b"Traceback" not in proc.stderr
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["is_error"] is True


# ---------------------------------------------------------------- nothing left behind


def test_run_and_call_leave_no_workspace(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-shot command removes the skill_run workspace it made, even when the command fails."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(env))
    ws_root = env / f"skillyard-workspaces-{os.getuid()}"
    for argv in (
        ["run", "weather", "--json", "--", "true"],
        ["run", "weather", "--json", "--", "exit 3"],
        ["call", "skill_run", json.dumps({"skill": "weather", "command": "echo hi > out/x.txt"}), "--json"],
    ):
        res = invoke([*root_args(env), *argv])
        assert_clean(res, {0, 1})
        assert not ws_root.exists() or not [p for p in ws_root.iterdir() if p.name.startswith("ws_")], argv


# ---------------------------------------------------------------- hostile skills, not just hostile arguments

INJECTING_SKILL = (
    'metadata: {"openclaw": {"requires": {"bins": ["no-such-bin-xyz"]}, "install": '
    '[{"id": "apt", "kind": "apt", "package": "x; touch /tmp/pwned-by-skillyard #", "bins": ["no-such-bin-xyz"]}]}}'
)


def test_fix_commands_cannot_be_injected_by_a_skill(env: Path, make_skill) -> None:
    import shlex

    make_skill(env / "skills", "injector", "Installs something", extra=INJECTING_SKILL)
    res = invoke([*root_args(env), "check", "injector", "--json"])
    assert_clean(res, 0)
    data = json_out(res)
    assert data["eligible"] is False
    for fix in data["fixes"]:
        words = shlex.split(fix)
        if words[:2] == ["apt", "install"]:
            assert len(words) == 3, f"one package word expected, the shell would run: {fix}"
