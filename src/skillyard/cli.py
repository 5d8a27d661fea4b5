"""The `skillyard` command: one-shot commands over the registry.

Every command answers `--json` with the same shapes the agent tools return,
and exits 0 on success, 1 when the command ran and reports a failure, 2 on a
usage or configuration error.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from skillyard import reports
from skillyard.cli_io import SafePath, tolerant_streams
from skillyard.config import Config, ConfigError, load_config
from skillyard.discovery import resolve_roots
from skillyard.registry import Registry

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


@dataclass
class CliContext:
    """What every command needs: the effective config and (lazily) the registry."""

    roots: tuple[str, ...] = ()
    config_path: str | None = None
    _config: Config | None = None
    _registry: Registry | None = field(default=None, repr=False)

    @property
    def config(self) -> Config:
        if self._config is None:
            try:
                self._config = load_config(self.config_path)
            except ConfigError as e:
                fail_usage(str(e))
        return self._config

    def writable_config(self) -> Config:
        """The config for commands that write it: an explicit config file that does not exist yet starts empty.

        Read-only commands use `config`, which still refuses a missing explicit file.
        """
        explicit = self.config_path or os.environ.get("SKILLYARD_CONFIG") or None
        if self._config is None and explicit is not None and not os.path.lexists(explicit):
            return Config(path=Path(explicit))
        return self.config

    def registry(self) -> Registry:
        if self._registry is None:
            config = self.config
            for r in self.roots:
                # discovery treats a missing root as normal (most default roots do not exist), but a root
                # typed on the command line that is not there is almost always a typo: say so on stderr
                if not os.path.exists(r):
                    err_console().print(Text(f"warning: --root {r}: no such directory", style="yellow"))
            self._registry = Registry(resolve_roots(list(self.roots) or None, config), config, cache=True)
        return self._registry


def out() -> Console:
    return Console(soft_wrap=True, highlight=False)


def err_console() -> Console:
    # soft_wrap: an error naming a long path must not be broken across lines
    return Console(stderr=True, highlight=False, soft_wrap=True)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def fail_usage(message: str) -> None:
    err_console().print(Text(f"error: {message}", style="red"))
    raise SystemExit(EXIT_USAGE)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--filter", "filter_", type=click.Choice(reports.FILTERS), default="all", show_default=True)
@click.option("--verbose", "-v", is_flag=True, help="Paths, requirements and reasons.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def list_cmd(ctx: click.Context, filter_: str, verbose: bool, as_json: bool) -> None:
    """List skills and whether each is usable here."""
    reg = _obj(ctx).registry()
    data = reports.list_report(reg, filter_, verbose)
    if as_json:
        data["diagnostics"] = [d.to_dict() for d in reg.diagnostics]
        emit_json(data)
        return
    con = out()
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    widest = max((len(i["name"]) + len(i["emoji"]) + 2 for i in data["skills"]), default=5)
    table.add_column("", no_wrap=True, min_width=1)
    table.add_column("skill", style="bold", no_wrap=True, min_width=widest)
    table.add_column(
        "description",
        overflow="ellipsis",
        no_wrap=True,
        max_width=max(20, con.width - widest - (45 if verbose else 16)),
    )
    table.add_column("source", style="dim", no_wrap=True, min_width=7)
    if verbose:
        table.add_column("why not", style="yellow")
    by_name = {s.name: s for s in reg.skills}
    for item in data["skills"]:
        s = by_name[item["name"]]
        mark = Text("✓", style="green") if item["eligible"] else Text("✗", style="red")
        row = [mark, f"{item['emoji']} {item['name']}".strip(), item["description"], s.source]
        if verbose:
            row.append("; ".join(reg.eligibility(s).reasons))
        table.add_row(*row)
    con.print(table)
    eligible = sum(1 for i in data["skills"] if i["eligible"])
    con.print(Text(f"\n{data['count']} skills, {eligible} eligible", style="dim"))
    problems = [d for d in reg.diagnostics if d.code != "shadowed"]
    if problems:
        con.print(
            Text(
                f"{len(problems)} problem(s) found while loading; see `skillyard list --json`", style="yellow"
            )
        )


def _lookup_or_fail(reg: Registry, name: str, as_json: bool) -> None:
    if reg.get(name) is not None:
        return
    data = reports.not_found(name, reg)
    if as_json:
        emit_json(data)
    else:
        msg = data["error"]
        if data.get("did_you_mean"):
            msg += f" (did you mean: {', '.join(data['did_you_mean'])}?)"
        err_console().print(Text(msg, style="red"))
    raise SystemExit(EXIT_FAIL)


@cli.command("info")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def info_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """Everything known about one skill."""
    reg = _obj(ctx).registry()
    _lookup_or_fail(reg, name, as_json)
    data = reports.info_report(reg, name)
    if as_json:
        emit_json(data)
        return
    con = out()
    status = Text("eligible", style="green") if data["eligible"] else Text("not eligible", style="red")
    con.print(Text.assemble((f"{data['emoji']} {data['name']}".strip(), "bold"), "  ", status))
    con.print(data["description"])
    con.print(Text(f"{data['path']}  ({data['source']}, {data['format']})", style="dim"))
    req = {k: v for k, v in data["requires"].items() if v}
    if req:
        con.print("requires: " + ", ".join(f"{k}={' '.join(v)}" for k, v in req.items()))
    for r in data["reasons"]:
        con.print(Text(f"  ✗ {r}", style="yellow"))
    for opt in data["install"]:
        con.print(Text(f"  install: {opt.get('label', '')} ({opt['kind']})", style="cyan"))
    if data["docs"]:
        con.print("docs: " + ", ".join(data["docs"]))
    if data.get("tools"):
        con.print("tools: " + ", ".join(data["tools"]))


@cli.command("check")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def check_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """Why a skill is not usable here, and the commands that fix it."""
    reg = _obj(ctx).registry()
    _lookup_or_fail(reg, name, as_json)
    data = reports.check_report(reg, name)
    if as_json:
        emit_json(data)
        return
    con = out()
    if data["eligible"]:
        con.print(Text.assemble(("✓ ", "green"), (name, "bold"), " is eligible"))
        return
    con.print(Text.assemble(("✗ ", "red"), (name, "bold"), " is not eligible"))
    for r in data["reasons"]:
        con.print(f"  - {r}")
    if data["fixes"]:
        con.print("fix with:")
        for f in data["fixes"]:
            con.print(Text(f"  $ {f}", style="cyan"))


# ---------------------------------------------------------------- validate


@cli.command("validate")
@click.argument("paths", nargs=-1, required=True, type=SafePath(path_type=Path))
@click.option(
    "--strict", is_flag=True, help="Apply every agentskills.io rule (name == directory, known fields only)."
)
@click.option("--json", "as_json", is_flag=True)
def validate_cmd(paths: Sequence[Path], strict: bool, as_json: bool) -> None:
    """Check skill folders against the spec; exit 1 on any error."""
    from skillyard.validate import validate_skill_dir

    results = [validate_skill_dir(p, strict=strict) for p in paths]
    if as_json:
        emit_json({"skills": [r.to_dict() for r in results]})
    else:
        con = out()
        for r in results:
            if r.valid:
                con.print(Text.assemble(("✓ ", "green"), f"Valid skill: {r.path}"))
            else:
                con.print(Text.assemble(("✗ ", "red"), f"Validation failed for {r.path}:"))
            for e in r.errors:
                con.print(Text(f"  - {e}", style="red"))
            for w in r.warnings:
                con.print(Text(f"  ! {w}", style="yellow"))
    if any(not r.valid for r in results):
        raise SystemExit(EXIT_FAIL)


# ---------------------------------------------------------------- run


@cli.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("skill")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option(
    "--executor",
    type=click.Choice(["sandbox", "local", "container", "auto"]),
    default=None,
    help="Default from config: sandbox. local runs without isolation. (auto is an old name for sandbox.)",
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

    from skillyard.execution import RunError, RunRequest, SkillRunner, get_executor

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
        emit_json(data) if as_json else err_console().print(
            Text(f"{data['error']}: {'; '.join(elig.reasons)}", style="red")
        )
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
        executor=get_executor(
            executor or settings.executor, sandbox_uid=settings.sandbox_uid, sandbox_gid=settings.sandbox_gid
        ),
        timeout=settings.timeout,
        network=settings.network,
        host_roots=settings.host_roots,
    )
    session = "cli"
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
        if data.get("stdout"):
            click.echo(data["stdout"], nl=not data["stdout"].endswith("\n"))
        if data.get("stderr"):
            click.echo(data["stderr"], nl=not data["stderr"].endswith("\n"), err=True)
        for f in data.get("output_files", []):
            err_console().print(
                Text(
                    f"[output] {f['name']} ({f.get('mime_type', '?')}, {f.get('size_bytes', '?')} bytes)",
                    style="dim",
                )
            )
        for w in data.get("warnings", []):
            err_console().print(Text(f"warning: {w}", style="yellow"))
        if data.get("timed_out"):
            err_console().print(Text("timed out", style="red"))
    if data.get("exit_code") != 0 or data.get("timed_out"):
        raise SystemExit(EXIT_FAIL)


# ---------------------------------------------------------------- commands defined elsewhere

#: (module, command attribute names) registered on the group; each module owns one surface.
_EXTERNAL = (
    ("skillyard.cli_tools", ("prompt", "tools", "call", "search")),
    ("skillyard.cli_install", ("install", "uninstall", "update", "audit", "trust")),
    ("skillyard.cli_serve", ("serve",)),
    ("skillyard.cli_chat", ("chat",)),
    ("skillyard.cli_remote", ("remote",)),
)


def _register_external() -> None:
    for module_name, names in _EXTERNAL:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:
                continue  # that surface is not part of this build
            raise
        for n in names:
            cmd = getattr(module, n, None) or getattr(module, f"{n}_cmd", None)
            if isinstance(cmd, click.Command):
                cli.add_command(cmd, n)


_register_external()


def main(argv: Sequence[str] | None = None) -> None:
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="skillyard", standalone_mode=True)
    except ConfigError as e:
        fail_usage(str(e))


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
