"""CLI commands over the agent tool layer: `prompt`, `tools`, `call`, `search`.

They print exactly what a model would see, so a host can be debugged from a
shell. The commands only need `ctx.obj` to offer `.registry()` and `.config`
(the main group's CliContext), and do not import the main CLI module.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from skillyard import reports
from skillyard._cli_io import EXIT_FAIL, Hanging, SafePath, console, emit_json, fail_usage, name_column, warn
from skillyard._shown import shown
from skillyard.fsread import ours
from skillyard.prompt import FORMATS, relevant_names, render_catalog
from skillyard.session import Session, SessionError
from skillyard.tools import LOAD_MODES, PROVIDERS, Toolkit
from skillyard.tools.toolkit import MAX_ARGUMENT_BYTES


def _load_session(path: str | None) -> Session:
    if path is None:
        return Session()
    try:
        return Session.load(path)
    except SessionError as e:
        fail_usage(str(e))


@contextlib.contextmanager
def _session_turn(path: str | None) -> Iterator[None]:
    """Calls on one session file take turns, as runs in one session do: each reads the session
    the previous one wrote, and none writes over another's change."""
    if path is None:
        yield
        return
    import fcntl

    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(
            p.with_name(f".{p.name}.lock"),
            os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
            0o600,
        )
    except OSError as e:
        fail_usage(f"cannot write session file {path}: {e.strerror or e}")
    if not ours(os.fstat(fd)):  # another user's lock (made first in a shared folder) could hold us for ever
        os.close(fd)
        fail_usage(f"cannot use session file {path}: another user owns or can write {p.name}'s lock file")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _read_stdin() -> str:
    """JSON arguments from stdin: bytes that are not UTF-8 become U+FFFD; reading stops past the size cap."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin.read(MAX_ARGUMENT_BYTES + 1)
    # one byte over the cap is enough for the toolkit to answer "too large" without slurping everything
    return buffer.read(MAX_ARGUMENT_BYTES + 1).decode("utf-8", errors="replace")


@click.command("prompt")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="xml", show_default=True)
@click.option("--budget", type=click.IntRange(min=0), default=None, help="Character budget for the catalog.")
@click.option(
    "--session",
    "session_path",
    type=SafePath(dir_okay=False, path_type=str),
    default=None,
    help="Session file: print the whole system-message text (guidance, catalog, loaded skills, docs).",
)
@click.option("--query", default=None, help="The user's request: the skills most relevant to it come first.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def prompt(
    ctx: click.Context,
    fmt: str,
    budget: int | None,
    session_path: str | None,
    query: str | None,
    as_json: bool,
) -> None:
    """Print the skills catalog (or the whole system message of a session)."""
    reg = ctx.obj.registry()
    if session_path is not None:
        session = _load_session(session_path)
        text = Toolkit(reg, catalog_format=fmt, budget=budget).system_message(session, query=query)
        data: dict[str, Any] = {"text": text, "format": fmt, "session_id": session.session_id}
        data["loaded"] = list(session.loaded)
    else:
        cat = render_catalog(reg.eligible_skills(), fmt, budget, relevant=relevant_names(reg, query))
        text = cat.text
        data = {
            "text": text,
            "format": fmt,
            "shown": cat.shown,
            "total": cat.total,
            "truncated": cat.truncated,
        }
    if as_json:
        emit_json(data)
    else:
        click.echo(text)


@click.command("tools")
@click.option("--provider", type=click.Choice(PROVIDERS), default="openai", show_default=True)
@click.option(
    "--tool", "tool_names", multiple=True, help="Only these tools (repeatable; 'toml' = SKILL.toml tools)."
)
@click.option(
    "--strict",
    is_flag=True,
    help="OpenAI strict mode: every schema in its subset, with strict: true (openai, openai-responses).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (always JSON).")
@click.pass_context
def tools(
    ctx: click.Context, provider: str, tool_names: tuple[str, ...], strict: bool, as_json: bool
) -> None:
    """Print the tool definitions in a provider's format (JSON)."""
    reg = ctx.obj.registry()
    try:
        toolkit = Toolkit(reg, tools=list(tool_names) or None)
        exported = toolkit.export(provider, strict=strict)
    except ValueError as e:
        fail_usage(str(e))
    emit_json(exported)


@click.command("call")
@click.argument("tool")
@click.argument("arguments", required=False, default="{}")
@click.option(
    "--session",
    "session_path",
    type=SafePath(dir_okay=False, path_type=str),
    default=None,
    help="Session file to read and update (created when missing).",
)
@click.option("--load-mode", type=click.Choice(LOAD_MODES), default="system", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the whole result: {content, is_error, display}.")
@click.pass_context
def call(
    ctx: click.Context, tool: str, arguments: str, session_path: str | None, load_mode: str, as_json: bool
) -> None:
    """Call TOOL with JSON ARGUMENTS and print exactly what the model would get ('-' reads stdin)."""
    reg = ctx.obj.registry()
    if arguments == "-":
        arguments = _read_stdin()
    with _session_turn(session_path):
        session = _load_session(session_path)
        toolkit = Toolkit(reg, load_mode=load_mode)
        result = toolkit.call(tool, arguments, session=session)
        if session_path is None:
            toolkit.close()  # a one-off session: nothing can reuse its skill_run workspace
        else:
            try:
                session.save(session_path)
            except OSError as e:
                fail_usage(f"cannot write session file {session_path}: {e.strerror or e}")
    if as_json:
        emit_json(result.to_dict())
    else:  # a tool's output (a SKILL.toml command's) cannot write to the terminal: escapes spelled out
        click.echo(shown(result.content) if sys.stdout.isatty() else result.content)
    if result.is_error:
        raise SystemExit(EXIT_FAIL)


@click.command("search")
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1, max=100), default=5, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def search(ctx: click.Context, query: str, limit: int, as_json: bool) -> None:
    """Find skills by keyword."""
    reg = ctx.obj.registry()
    data = reports.search_report(reg, query, limit)
    from skillyard.search import semantic_problem

    if problem := semantic_problem(reg):  # a configured embedder that cannot work must not fail in silence
        warn(f"warning: semantic search is off, results are lexical only: {problem}")
    if as_json:
        emit_json(data)
        return
    from rich.table import Table
    from rich.text import Text

    con = console()  # a row wider than the terminal wraps; never cropped
    if not data["skills"]:
        con.print(Text(f"no skills match {query!r}", style="yellow"))
        raise SystemExit(EXIT_FAIL)
    # the mark and the name in one cell, whole, as `list` shows them: neither is cut from a narrow table
    names = [
        Text.assemble(
            ("✓ ", "green") if item["eligible"] else ("✗ ", "red"),
            (shown(item["name"], one_line=True), "bold"),  # an author's words
        )
        for item in data["skills"]
    ]
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    name_column(table, names, con.width - 28)
    table.add_column("score", justify="right", no_wrap=True, min_width=5)
    table.add_column("match", no_wrap=True, min_width=6)
    table.add_column("description", overflow="ellipsis", max_width=70)
    for item, name in zip(data["skills"], names, strict=True):
        match = Text(item["confidence"], style="green" if item["confidence"] == "strong" else "yellow")
        # one paragraph, as `list` and `info` show it: the author's line break cannot start a row
        table.add_row(
            Hanging(name), f"{item['score']:.2f}", match, Text(shown(" ".join(item["description"].split())))
        )
    con.print(table)
    if "note" in data:
        con.print(Text(data["note"], style="yellow"))
