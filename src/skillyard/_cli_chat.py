"""`skillyard chat`: the agent loop of `skillyard.chat` in a terminal.

The command needs only `ctx.obj` to offer `.registry()` (the main group's
CliContext). Runs of commands (`skill_run`, SKILL.toml tools) are asked about
first unless `--yes`; without a terminal to ask on, they are refused and the
model is told why, so a script never hangs on a question nobody sees.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from typing import IO, Any

import click
from rich.console import Console
from rich.text import Text

from skillyard._cli_io import EXIT_FAIL, EXIT_OK, console, fail_usage
from skillyard._shown import shown
from skillyard.chat import DEFAULT_MAX_TOOL_CALLS, DEFAULT_TIMEOUT, Chat, ChatError, make_client

EXIT_INTERRUPTED = 130
#: Longest call text asked about before a run; a longer call is refused, as no one can approve what
#: they were not shown.
SHOWN_ARGS = 4000


def _describe(name: str, raw: Any) -> str:
    """The call as the user is asked about it (for skill_run, the skill and the command), every
    character visible: escapes, carriage returns, bidi overrides and zero-width characters spelled out."""
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except (ValueError, RecursionError):  # shown as sent; the toolkit tells the model what is wrong
        args = raw
    if name == "skill_run" and isinstance(args, dict):
        text = f"skill_run in {args.get('skill')!s}: {args.get('command')!s}"
    else:
        text = f"{name} {raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)}"
    return shown(text)


def _rows(text: str, width: int) -> int:
    """The terminal rows `text` takes at `width` columns, at most: a wide character (an ideographic
    space, blank) takes two columns, and one that does not fit at a row's end starts the next."""
    from rich.cells import cell_len

    return sum(cell_len(line) // max(width - 1, 1) + 1 for line in text.split("\n"))


def _approver(yes: bool, interactive: bool) -> Any:
    def approve(name: str, raw: Any) -> str | None:
        if yes:
            return None
        what = _describe(name, raw)
        question = f"run {what}? [y/N]"
        # the whole question on one screen: blank lines (or a long run of spaces) between the command
        # and the `[y/N]` would scroll what runs off it, leaving an innocent tail to approve
        width, height = shutil.get_terminal_size()
        if interactive and len(what) <= SHOWN_ARGS and _rows(question, width) < height:
            try:
                answer = click.prompt(question, default="n", show_default=False, err=True)
            except (EOFError, click.Abort):
                answer = "n"
            return None if answer.strip().lower() in ("y", "yes") else "the user declined this run"
        if interactive:
            short = "too long to show"
            why = (
                f"the call is too long to show for approval ({len(what)} characters on"
                f" {_rows(question, width)} lines; at most {SHOWN_ARGS} characters on {height - 1} lines)"
            )
        else:
            short, why = (
                "no terminal to ask on",
                "the user must approve runs and there is no terminal to ask on",
            )
        console(stderr=True).print(
            # one line: the call's line breaks must not print a record of a run (`[skill_run] ...: exit 0`)
            Text(
                f"refused ({short}; pass --yes to allow runs): {shown(what[:300], one_line=True)}",
                style="yellow",
            )
        )
        return f"{why} (skillyard chat --yes allows them)"

    return approve


def _show_tool(console: Console) -> Any:
    def show(name: str, raw: Any, result: Any) -> None:
        if result is None:
            return
        style = "red" if result.is_error else "dim"
        console.print(
            # one line: the display quotes the model's arguments, which must not print a record of a
            # call that was never made (`[skill_run] deploy: exit 0`)
            Text(
                shown(f"[{name}] {result.display or ('error' if result.is_error else 'ok')}", one_line=True),
                style=style,
            )
        )
        if name != "skill_run" or result.is_error:
            return
        try:
            data = json.loads(result.content)
        except ValueError:
            return
        for f in data.get("output_files") or []:  # names a command chose: one line, every character shown
            name = shown(str(f.get("name")), one_line=True)
            console.print(
                Text(f"  [output] {name} ({f.get('mime_type', '?')}, {f.get('size_bytes', '?')} bytes)")
            )
        for a in data.get("artifact_files") or []:
            console.print(
                Text(f"  [artifact] {shown(str(a.get('name')), one_line=True)} v{a.get('version')}")
            )

    return show


@click.command("chat")
@click.option(
    "--base-url", default=None, help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)."
)
@click.option(
    "--model",
    default=None,
    help="Model name (default: SKILLYARD_CHAT_MODEL, else gpt-4o-mini).",
)
@click.option("--yes", "yes", is_flag=True, help="Run commands without asking.")
@click.option("--ask", "ask", is_flag=True, help="Ask before every skill_run and SKILL.toml tool (default).")
@click.option(
    "--transcript",
    "transcript_path",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Append every message to FILE as JSON lines.",
)
@click.option("--once", "once", default=None, metavar="PROMPT", help="Run one user turn and exit.")
@click.option(
    "--max-tool-calls",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_TOOL_CALLS,
    show_default=True,
    help="Tool calls per turn before the model is stopped.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds per request.",
)
@click.option("--no-stream", is_flag=True, help="Ask for whole answers instead of streamed ones.")
@click.option("--strict", is_flag=True, help="Send the tools in OpenAI strict mode.")
@click.pass_context
def chat(
    ctx: click.Context,
    base_url: str | None,
    model: str | None,
    yes: bool,
    ask: bool,
    transcript_path: str | None,
    once: str | None,
    max_tool_calls: int,
    timeout: float,
    no_stream: bool,
    strict: bool,
) -> None:
    """Talk to a model that uses the skills (any OpenAI-compatible endpoint: OpenAI, Ollama, vLLM, llama.cpp)."""
    from skillyard.tools import Toolkit

    if yes and ask:
        fail_usage("--yes and --ask contradict each other")
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    model = model or os.environ.get("SKILLYARD_CHAT_MODEL") or "gpt-4o-mini"
    try:
        client = make_client(base_url, None, timeout)
    except ChatError as e:
        fail_usage(str(e))
    out = Console(highlight=False, soft_wrap=True)
    err = console(stderr=True)
    interactive = sys.stdin.isatty()
    transcript: IO[str] | None = None
    if transcript_path is not None:
        try:
            transcript = open(transcript_path, "a", encoding="utf-8")  # noqa: SIM115 (closed in finally)
        except OSError as e:
            fail_usage(f"cannot write transcript {transcript_path}: {e.strerror or e}")
    toolkit = Toolkit(ctx.obj.registry())
    session = Chat(
        toolkit,
        client,
        model,
        approve=_approver(yes, interactive),
        transcript=transcript,
        max_tool_calls=max_tool_calls,
        stream=not no_stream,
        strict=strict,
        on_text=lambda t: (out.file.write(shown(t)), out.file.flush()),
        on_tool=_show_tool(err),
    )
    # Ctrl-C reaches the command being run too; the loop answers what is left open and goes on.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    code = EXIT_OK
    try:
        if once is not None:
            code = _one_turn(session, once, out, err)
        else:
            code = _repl(session, out, err, interactive)
    finally:
        session.close()
        toolkit.close()
        if transcript is not None:
            transcript.close()
    raise SystemExit(code)


def _one_turn(session: Chat, prompt: str, out: Console, err: Console) -> int:
    try:
        result = session.turn(prompt)
    except KeyboardInterrupt:
        session.interrupted()
        out.file.write("\n")
        err.print(Text("interrupted", style="yellow"))
        return EXIT_INTERRUPTED
    except ChatError as e:
        out.file.write("\n")
        err.print(Text(shown(f"error: {e}"), style="red"))  # the endpoint's words
        return EXIT_FAIL
    if not result.text.endswith("\n"):
        out.file.write("\n")
    out.file.flush()
    if result.stopped:
        err.print(Text(result.stopped, style="yellow"))
        return EXIT_FAIL
    return EXIT_OK


def _repl(session: Chat, out: Console, err: Console, interactive: bool) -> int:
    if interactive:
        err.print(Text(f"skillyard chat with {session.model}; Ctrl-C stops a turn, Ctrl-D ends", style="dim"))
    code = EXIT_OK
    while True:
        try:
            line = input("> " if interactive else "")
        except EOFError:
            return code
        except KeyboardInterrupt:
            out.file.write("\n")
            return EXIT_INTERRUPTED
        if not line.strip():
            continue
        if line.strip() in ("/exit", "/quit"):
            return code
        code = _one_turn(session, line, out, err)
        if code == EXIT_INTERRUPTED:
            code = EXIT_OK  # a stopped turn, not a stopped conversation
