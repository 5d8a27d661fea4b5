"""The `skillyard` command: one-shot commands over the registry.

Every command answers `--json` with the same shapes the agent tools return,
and exits 0 on success, 1 when the command ran and reports a failure, 2 on a
usage or configuration error.

Agents and scripts start this command many times, so a start loads only what
the chosen command uses: the commands defined in other modules are imported
when chosen (see `LazyGroup`), and the registry, reports and rich inside the
commands that need them.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from skillyard._cli_io import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    MARKS,
    Hanging,
    SafePath,
    console,
    emit_json,
    err,
    fail_usage,
    name_column,
    say,
    tolerant_streams,
    warn,
)

if TYPE_CHECKING:
    from skillyard.config import Config
    from skillyard.registry import Registry

#: `list --filter` values (the same as `reports.FILTERS`, which needs the registry to import)
FILTERS = ("all", "eligible", "ineligible")


class CliContext:
    """What every command needs: the effective config and (lazily) the registry."""

    def __init__(self, roots: tuple[str, ...] = (), config_path: str | None = None) -> None:
        self.roots = roots
        self.config_path = config_path
        self._config: Config | None = None
        self._registry: Registry | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            from skillyard.config import ConfigError, load_config

            try:
                self._config = load_config(self.config_path)
            except ConfigError as e:
                fail_usage(str(e))
        return self._config

    def writable_config(self) -> Config:
        """The config for commands that write it: an explicit config file that does not exist yet starts empty.

        Read-only commands use `config`, which still refuses a missing explicit file.
        """
        from pathlib import Path

        from skillyard.config import Config

        explicit = self.config_path or os.environ.get("SKILLYARD_CONFIG") or None
        if self._config is None and explicit is not None and not os.path.lexists(explicit):
            return Config(path=Path(explicit))
        return self.config

    def registry(self) -> Registry:
        if self._registry is None:
            from skillyard.discovery import resolve_roots
            from skillyard.registry import Registry

            config = self.config
            roots = resolve_roots(list(self.roots) or None, config)
            # discovery treats a missing root as normal (most default roots do not exist), but a root
            # someone named (--root, SKILLYARD_PATH, [skills] roots) that is not there is almost always a
            # typo, and "0 skills" alone does not say why: say so on stderr
            origin = (
                "--root"
                if self.roots
                else "SKILLYARD_PATH"
                if os.environ.get("SKILLYARD_PATH")
                else f"[skills] roots of {config.path}"
            )
            for r in roots:
                if r.source == "custom" and not os.path.exists(r.path):
                    warn(f"warning: {origin} {r.path}: no such directory")
            self._registry = Registry(roots, config, cache=True)
        return self._registry


#: Commands defined in other modules: name -> (module, attribute, one-line help for `--help`).
#: The module is imported only when its command is chosen (tests check the help lines match).
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "prompt": (
        "skillyard._cli_tools",
        "prompt",
        "Print the skills catalog (or the whole system message of a session).",
    ),
    "tools": ("skillyard._cli_tools", "tools", "Print the tool definitions in a provider's format (JSON)."),
    "call": (
        "skillyard._cli_tools",
        "call",
        "Call TOOL with JSON ARGUMENTS and print exactly what the model would get ('-' reads stdin).",
    ),
    "search": ("skillyard._cli_tools", "search", "Find skills by keyword."),
    "install": (
        "skillyard._cli_install",
        "install",
        "Install a skill from a path, git repository, archive URL or hub:NAME.",
    ),
    "uninstall": ("skillyard._cli_install", "uninstall", "Remove a skill installed by skillyard."),
    "update": (
        "skillyard._cli_install",
        "update",
        "Re-install a skill from the source recorded in skills.lock.",
    ),
    "audit": (
        "skillyard._cli_install",
        "audit",
        "Scan skills for dangerous patterns; exit 1 when any is blocked.",
    ),
    "trust": (
        "skillyard._cli_install",
        "trust",
        "Manage trusted install sources ([trust] sources in the config file).",
    ),
    "serve": (
        "skillyard._cli_serve",
        "serve",
        "Serve skills over MCP: the agent tools, the Skills extension, resources and prompts.",
    ),
    "chat": (
        "skillyard._cli_chat",
        "chat",
        "Talk to a model that uses the skills (any OpenAI-compatible endpoint: OpenAI, Ollama, vLLM, llama.cpp).",
    ),
    "remote": (
        "skillyard._cli_remote",
        "remote",
        "Skills from other MCP servers ([[skills.remote]] in the config file).",
    ),
}


class LazyGroup(click.Group):
    """A group whose commands from `LAZY_COMMANDS` are imported when chosen, not at start."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = self.commands.get(cmd_name)
        if cmd is None and cmd_name in LAZY_COMMANDS:
            module_name, attr, _ = LAZY_COMMANDS[cmd_name]
            found = getattr(importlib.import_module(module_name), attr)
            if not isinstance(found, click.Command):
                raise TypeError(f"{module_name}.{attr} is not a click command")
            self.add_command(found, cmd_name)
            cmd = found
        return cmd

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as e:  # `skillyard list --root DIR`: the global options come first
            if e.option_name in ("--root", "--config"):
                e.message += (
                    f" {e.option_name} is an option of skillyard itself: put it before the command"
                    f" (skillyard {e.option_name} ... {ctx.invoked_subcommand} ...)."
                )
            raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the help lines above, so `--help` imports no command module."""
        names = self.list_commands(ctx)  # never empty: LAZY_COMMANDS is not
        limit = formatter.width - 6 - max(len(n) for n in names)
        # a command not loaded yet is shortened as click shortens a loaded one's help
        cmds = {n: self.commands.get(n) or click.Command(n, help=LAZY_COMMANDS[n][2]) for n in names}
        with formatter.section("Commands"):
            formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in cmds.items() if not c.hidden])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=SafePath(path_type=str),
    help="Skill root (repeatable); replaces the default search path.",
)
@click.option(
    "--config",
    "config_path",
    type=SafePath(path_type=str),
    help="Config file (default: ./skillyard.toml, else the user config).",
)
@click.version_option(package_name="skillyard")
@click.pass_context
def cli(ctx: click.Context, roots: tuple[str, ...], config_path: str | None) -> None:
    """skillyard: find, check, disclose, run and install Agent Skills."""
    tolerant_streams()
    ctx.obj = CliContext(roots=roots, config_path=config_path)


def _obj(ctx: click.Context) -> CliContext:
    obj = ctx.find_object(CliContext)
    assert obj is not None
    return obj


# ---------------------------------------------------------------- list / info / check


@cli.command("list")
@click.option("--filter", "filter_", type=click.Choice(FILTERS), default="all", show_default=True)
@click.option("--verbose", "-v", is_flag=True, help="Paths, requirements and reasons.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def list_cmd(ctx: click.Context, filter_: str, verbose: bool, as_json: bool) -> None:
    """List skills and whether each is usable here."""
    reg = _obj(ctx).registry()
    if as_json and not verbose and not sys.stdout.isatty():
        for piece in compact_list_json(reg.summaries(), filter_, [d.to_dict() for d in reg.diagnostics]):
            click.echo(piece, nl=False)
        click.echo()
        _FINISHED.append(True)  # a script's listing: nothing is left to do but exit (see `main`)
        return
    from skillyard import reports

    data = reports.list_report(reg, filter_, verbose)
    if as_json:
        data["diagnostics"] = [d.to_dict() for d in reg.diagnostics]
        emit_json(data)
        return
    from rich.table import Table
    from rich.text import Text

    from skillyard._shown import shown

    con = console()
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    # the mark and the name in one cell, whole: a long name (an author's choice) cannot push the
    # eligibility mark out of a narrow table, nor cut the name to a prefix another skill shares
    names = [
        Text.assemble(
            ("✓ ", "green") if i["eligible"] else ("✗ ", "red"),
            # an author's words: shown as text (never rich markup), hidden characters spelled out
            (_line(f"{_emoji(i['emoji'])} {i['name']}".strip()), "bold"),
        )
        for i in data["skills"]
    ]
    widest = name_column(table, names, con.width - (40 if verbose else 31))
    table.add_column(
        "description",
        overflow="ellipsis",
        no_wrap=True,
        max_width=max(20, con.width - widest - (45 if verbose else 16)),
    )
    table.add_column("source", style="dim", no_wrap=True, min_width=7)
    if verbose:
        table.add_column("why not", style="yellow", overflow="fold")
    by_name = {s.name: s for s in reg.skills}
    for item, name in zip(data["skills"], names, strict=True):
        s = by_name[item["name"]]
        # one line per skill: a description written over several lines (a YAML block) is joined
        one_line = " ".join(item["description"].split())
        row = [Hanging(name), Text(shown(one_line)), s.source]
        if verbose:
            row.append(
                Text(_line("; ".join(reg.eligibility(s).reasons)))
            )  # they name the skill's requirements
        table.add_row(*row)
    con.print(table)
    eligible = sum(1 for i in data["skills"] if i["eligible"])
    n = data["count"]
    con.print(Text(f"\n{n} skill{'' if n == 1 else 's'}, {eligible} eligible", style="dim"))
    problems = [d for d in reg.diagnostics if d.code != "shadowed"]
    if problems:
        con.print(
            Text(
                f"{len(problems)} problem(s) found while loading; see `skillyard list --json`", style="yellow"
            )
        )


def compact_list_json(
    summaries: Sequence[tuple[str, str, str, bool]], filter_: str, diagnostics: list[dict[str, Any]]
) -> Iterator[str]:
    """`dumps_json(data)` for a pipe, where data is `reports.list_report(...)` plus `diagnostics`:
    the same text, written straight from the registry's summary rows, in pieces.

    Building a dict per skill and encoding the tree costs about twice as much as encoding the
    strings, and pieces of a thousand skills never hold the whole text, or its copies, in memory
    (docs/performance.md, "Command-line start-up", has the figures)."""
    import json

    enc = json.encoder.encode_basestring_ascii  # what the compact form's C encoder uses for strings
    want = None if filter_ not in ("eligible", "ineligible") else filter_ == "eligible"
    rows = summaries if want is None else [r for r in summaries if r[3] is want]
    yield f'{{"count":{len(rows)},"skills":['
    for start in range(0, len(rows), 1000):
        piece = ",".join(
            [
                f'{{"name":{enc(name)},"emoji":{enc(emoji)},"description":{enc(desc)},'
                f'"eligible":{"true" if ok else "false"}}}'
                for name, emoji, desc, ok in rows[start : start + 1000]
            ]
        )
        yield piece if not start else "," + piece
    yield f'],"diagnostics":{json.dumps(diagnostics, separators=(",", ":"), check_circular=False)}}}'


def _line(text: object) -> str:
    """One item of a list a skill's words fill (an error naming its field, a file name): a newline in
    it is spelled out, so it cannot print a line of its own (a forged error, a `$` command to copy)."""
    from skillyard._shown import shown

    return shown(str(text), one_line=True)


def _emoji(emoji: str) -> str:
    """The author's emoji beside a name in human output, when it is one: a few symbols, none of
    skillyard's marks. Words (`✓ verified, eligible`) would read as skillyard's verdict on the skill."""
    import unicodedata

    symbols = all(unicodedata.category(c) in ("So", "Sk", "Mn", "Cf") for c in emoji)
    return emoji if len(emoji) <= 8 and symbols and MARKS.isdisjoint(emoji) else ""


def _lookup_or_fail(reg: Registry, name: str, as_json: bool) -> None:
    if reg.get(name) is not None:
        return
    from skillyard import reports

    data = reports.not_found(name, reg)
    if as_json:
        emit_json(data)
    else:
        msg = data["error"]
        if data.get("did_you_mean"):
            msg += f" (did you mean: {', '.join(data['did_you_mean'])}?)"
        err(msg)
    raise SystemExit(EXIT_FAIL)


@cli.command("info")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def info_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """Everything known about one skill."""
    from skillyard import reports

    reg = _obj(ctx).registry()
    _lookup_or_fail(reg, name, as_json)
    data = reports.info_report(reg, name)
    if as_json:
        emit_json(data)
        return
    status = ("eligible", "green") if data["eligible"] else ("not eligible", "red")
    say((f"{_emoji(data['emoji'])} {data['name']}".strip(), "bold"), "  ", status)
    say(" ".join(data["description"].split()))  # one paragraph, as `list` shows it
    say((_line(f"{data['path']}  ({data['source']}, {data['format']})"), "dim"))
    req = {k: v for k, v in data["requires"].items() if v}
    if req:
        say(_line("requires: " + ", ".join(f"{k}={' '.join(v)}" for k, v in req.items())))
    for r in data["reasons"]:
        say((f"  ✗ {_line(r)}", "yellow"))
    skill = reg.get(name)
    for opt in skill.install if skill is not None else ():  # the command, not the author's label for it
        where = f"  (on {', '.join(opt.os)})" if opt.os else ""
        say((_line(f"  install: {opt.command() or opt.kind}{where}"), "cyan"))
    if data["docs"]:
        say(_line("docs: " + ", ".join(data["docs"])))
    if data.get("tools"):
        say("tools: " + ", ".join(data["tools"]))


@cli.command("check")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def check_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """Why a skill is not usable here, and the commands that fix it."""
    from skillyard import reports

    reg = _obj(ctx).registry()
    _lookup_or_fail(reg, name, as_json)
    data = reports.check_report(reg, name)
    if as_json:
        emit_json(data)
        return
    if data["eligible"]:
        say(("✓ ", "green"), (name, "bold"), " is eligible")
        return
    say(("✗ ", "red"), (name, "bold"), " is not eligible")
    for r in data["reasons"]:
        say(f"  - {_line(r)}")
    if data["fixes"]:
        say("fix with:")
        for f in data["fixes"]:
            prompt = "" if f.startswith("Download: ") else "$ "  # a link is not a command
            say((f"  {prompt}{_line(f)}", "cyan"))


# ---------------------------------------------------------------- validate


@cli.command("validate")
@click.argument("paths", nargs=-1, required=True, type=SafePath(path_type=str))
@click.option(
    "--strict", is_flag=True, help="Apply every agentskills.io rule (name == directory, known fields only)."
)
@click.option("--json", "as_json", is_flag=True)
def validate_cmd(paths: Sequence[str], strict: bool, as_json: bool) -> None:
    """Check skill folders against the spec; exit 1 on any error."""
    from pathlib import Path

    from skillyard.validate import validate_skill_dir

    results = [validate_skill_dir(Path(p), strict=strict) for p in paths]
    if as_json:
        emit_json({"skills": [r.to_dict() for r in results]})
    else:
        for r in results:
            if r.valid:
                say(("✓ ", "green"), f"Valid skill: {_line(r.path)}")
            else:
                say(("✗ ", "red"), f"Validation failed for {_line(r.path)}:")
            for e in r.errors:
                say((f"  - {_line(e)}", "red"))
            for w in r.warnings:
                say((f"  ! {_line(w)}", "yellow"))
            if not r.valid and _holds_skills(r.path):  # `validate skills` meant as `validate skills/*/`
                say(
                    (
                        _line(
                            f"  hint: it holds skill folders; validate them: skillyard validate {r.path}/*/"
                        ),
                        "cyan",
                    )
                )
    if any(not r.valid for r in results):
        raise SystemExit(EXIT_FAIL)


def _holds_skills(path: str) -> bool:
    """Whether one of the first 200 entries of a folder that is not a skill is a skill folder."""
    from itertools import islice
    from pathlib import Path

    from skillyard.parsing import find_skill_file

    if not os.path.isdir(path) or find_skill_file(Path(path)) is not None:
        return False
    try:
        with os.scandir(path) as entries:
            return any(e.is_dir() and find_skill_file(Path(e.path)) for e in islice(entries, 200))
    except OSError:
        return False


# ---------------------------------------------------------------- run


@cli.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("skill")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option(
    "--executor",
    type=click.Choice(["sandbox", "local", "container", "ray", "auto"]),
    default=None,
    help="Default from config: sandbox. local runs without isolation. ray runs on a Ray cluster "
    "([execution.ray]). (auto is an old name for sandbox.)",
)
@click.option("--timeout", type=float, default=None, help="Seconds (default from config, 60).")
@click.option(
    "--output", "outputs", multiple=True, help="Glob of files to collect (repeatable), e.g. 'out/*.txt'."
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def run_cmd(
    ctx: click.Context,
    skill: str,
    command: tuple[str, ...],
    executor: str | None,
    timeout: float | None,
    outputs: tuple[str, ...],
    as_json: bool,
) -> None:
    """Run a command in a skill's workspace: skillyard run SKILL -- COMMAND..."""
    import shlex
    from dataclasses import replace

    from skillyard._shown import shown
    from skillyard.execution import RunError, RunRequest, SkillRunner, configured_executor

    obj = _obj(ctx)
    reg = obj.registry()
    _lookup_or_fail(reg, skill, as_json)
    s = reg.get(skill)
    assert s is not None
    elig = reg.eligibility(s)
    if not elig.eligible:
        data = {
            "error": f"skill not eligible: {skill}",
            "reasons": list(elig.reasons),
            "fixes": list(elig.fixes),
        }
        emit_json(data) if as_json else err(f"{data['error']}: {'; '.join(elig.reasons)}")
        raise SystemExit(EXIT_FAIL)
    settings = obj.config.execution
    override = obj.config.override(skill)
    cmd = command[0] if len(command) == 1 else shlex.join(command)
    args: dict[str, Any] = {"skill": skill, "command": cmd}
    if timeout is not None:
        args["timeout"] = timeout
    if outputs:
        args["output_files"] = list(outputs)
    try:
        req = RunRequest.from_arguments(args)
    except ValueError as e:
        fail_usage(str(e))
    runner = SkillRunner(
        executor=configured_executor(replace(settings, executor=executor) if executor else settings),
        timeout=settings.timeout,
        network=settings.network,
        host_roots=settings.host_roots,
    )
    session = (
        f"cli-{os.urandom(8).hex()}"  # its own workspace: another `run` at the same time removes its own
    )
    try:
        result = runner.run(
            s, req, session_id=session, extra_env=dict(override.env), network=override.network
        )
    except RunError as e:  # the run could not start (e.g. no sandbox here): one line, exit 2
        if as_json:
            emit_json({"error": str(e)})
            raise SystemExit(EXIT_USAGE) from None
        fail_usage(str(e))
    finally:
        runner.close_session(session)
    data = result.to_dict()
    if as_json:
        emit_json(data)
    else:
        for key, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
            if text := data.get(key):  # at a terminal, the sandboxed command cannot write to it: its
                # escapes (a clipboard write, hidden text that hides the exit code below) are spelled out
                text = shown(text) if stream.isatty() else text
                click.echo(text, nl=not text.endswith("\n"), err=key == "stderr")
        for f in data.get("output_files", []):
            name = shown(f["name"], one_line=True)  # the command chose it: one line, every character shown
            err(f"[output] {name} ({f.get('mime_type', '?')}, {f.get('size_bytes', '?')} bytes)", "dim")
        for w in data.get("warnings", []):
            warn(f"warning: {w}")
        if data.get("timed_out"):
            err("timed out")
        elif data.get("exit_code") != 0:
            err(f"exit code {data.get('exit_code')}")
    if data.get("exit_code") != 0 or data.get("timed_out"):
        raise SystemExit(EXIT_FAIL)


#: Set by a command whose output is complete and that leaves nothing to clean up (`list --json`
#: on a pipe): `main` then ends the process without the interpreter's teardown.
_FINISHED: list[bool] = []


def _exit_finished() -> None:
    """End a finished command's process at once, its output flushed: the interpreter's teardown would free
    the registry object by object (docs/performance-history.md, "Third round"; scripts list often).
    Nothing on that path registers exit handlers or starts threads. Returns when the output
    cannot be flushed, so the normal exit reports it."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(EXIT_OK)


#: The young generation's size while a command runs. A command builds its registry once and keeps
#: it to the end, so with CPython's default (700) the collector walks the same new objects again and
#: again while they are made: about a tenth of `list --json` over 10,000 skills (docs/performance.md,
#: "Command-line start-up"). The command owns its process; cycles are still collected.
_YOUNG_GENERATION = 200_000
#: the collector's thresholds before `main` set them: `serve`, which keeps serving, goes back to them
THRESHOLDS = gc.get_threshold()


def _cwd_gone() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def main(argv: Sequence[str] | None = None) -> None:
    global THRESHOLDS
    _FINISHED.clear()  # only this run's command decides (it may have been set through `cli` directly)
    thresholds = THRESHOLDS = gc.get_threshold()
    gc.set_threshold(_YOUNG_GENERATION, *thresholds[1:])
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="skillyard", standalone_mode=True)
    except SystemExit as e:
        if _FINISHED and e.code in (None, EXIT_OK):
            _exit_finished()
        raise
    except Exception as e:
        config = sys.modules.get("skillyard.config")  # loaded by then if the error is one of its own
        if config is not None and isinstance(e, config.ConfigError):
            fail_usage(str(e))
        if isinstance(e, FileNotFoundError) and _cwd_gone():
            fail_usage("the current directory no longer exists (removed or replaced): cd to one that does")
        raise
    finally:
        gc.set_threshold(*thresholds)  # a program that calls `main` keeps its own collector settings


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
