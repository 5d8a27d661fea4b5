"""`skillyard serve`: the MCP server over stdio (default) or streamable HTTP.

HTTP on loopback needs nothing more; any other address is refused (exit 2,
before anything binds) unless bearer tokens or OAuth are configured.
stdout is the protocol wire on stdio, so everything else (logs, warnings)
goes to stderr. The command is registered on the main `skillyard` group by
cli.py; `ctx.obj` is the CliContext carrying the config and the registry.
"""

from __future__ import annotations

import ipaddress
import logging
import sys
from pathlib import Path
from typing import Any

import click

#: the hosts the SDK protects against DNS rebinding (Host/Origin checks); nothing else is served
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _http_auth(ctx: click.Context, host: str, token_file: Path | None, allowed_hosts: tuple[str, ...]) -> Any:
    """(verifier or None, serve settings): refuses, before binding, what must not be served."""
    from skillyard.mcp.auth import AnyOfVerifiers, AuthSetupError, JwtVerifier, load_token_file

    serve_cfg = ctx.obj.config.serve
    auth = serve_cfg.auth
    token_file = token_file or auth.token_file
    verifiers: list[Any] = []
    try:
        if token_file is not None:
            verifiers.append(load_token_file(token_file))
        if auth.oauth:
            verifiers.append(
                JwtVerifier(
                    issuer=auth.issuer,
                    audience=auth.audience,
                    jwks_uri=auth.jwks_uri,
                    algorithms=auth.algorithms,
                    leeway=auth.leeway,
                )
            )
    except AuthSetupError as e:
        raise click.UsageError(f"refusing to serve: {e}") from None
    if not _is_loopback(host):
        if not verifiers:
            raise click.UsageError(
                f"refusing to serve HTTP on {host} without authentication: give --auth-token-file FILE "
                "or set [serve.auth] issuer and audience (loopback addresses need neither)"
            )
        if host in ("0.0.0.0", "::", "[::]") and not (allowed_hosts or serve_cfg.allowed_hosts):
            raise click.UsageError(
                f"--host {host} listens on every address: name the Host clients connect to with "
                "--allowed-host NAME (or [serve] allowed_hosts), so DNS-rebinding checks can stay on"
            )
    verifier = None
    if verifiers:
        verifier = verifiers[0] if len(verifiers) == 1 else AnyOfVerifiers(verifiers)
    return verifier, serve_cfg


class _OneLine(logging.Formatter):
    """A record's message on its own line, whatever it quotes (a skill's folder name, a client's
    words): a line break in it cannot forge a record, an escape sequence cannot reach the terminal.
    A traceback after it keeps its own lines, while each exception's text in it (which may quote the
    same words) is one line too."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        from skillyard._shown import shown

        return shown(super().formatMessage(record), one_line=True)

    def formatException(self, ei: Any) -> str:
        import traceback

        from skillyard._shown import shown

        text, e, seen = super().formatException(ei), ei[1], set()
        while e is not None and id(e) not in seen:  # the exception, then the ones it was raised from
            seen.add(id(e))
            told = "".join(traceback.format_exception_only(type(e), e)).removesuffix("\n")
            text = text.replace(told, shown(told, one_line=True))
            e = e.__cause__ or e.__context__
        return shown(text)


def _setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.access"):  # its own handlers print what a client sent as it is
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True


@click.command("serve")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for hosts that launch the server; http for streamable HTTP.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP bind address; other than loopback only with --auth-token-file or [serve.auth].",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="HTTP port.")
@click.option("--watch", is_flag=True, help="Reload skills on file changes and notify clients.")
@click.option(
    "--tool",
    "tools",
    multiple=True,
    help="Expose only this agent tool (repeatable); default: all of them.",
)
@click.option(
    "--page-size", type=click.IntRange(1, 1000), default=50, show_default=True, help="skills/list page size."
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"], case_sensitive=False),
    default="warning",
    show_default=True,
)
@click.option(
    "--auth-token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Bearer tokens, one per line ('token [scope...]'); the file must be private (chmod 600).",
)
@click.option(
    "--stateless",
    is_flag=True,
    help="HTTP without server-side sessions, for several replicas behind a load balancer.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="A Host header value clients use (repeatable), e.g. skills.example.com; loopback is always allowed.",
)
@click.pass_context
def serve(
    ctx: click.Context,
    transport: str,
    host: str,
    port: int,
    watch: bool,
    tools: tuple[str, ...],
    page_size: int,
    log_level: str,
    auth_token_file: Path | None,
    stateless: bool,
    allowed_hosts: tuple[str, ...],
) -> None:
    """Serve skills over MCP: the agent tools, the Skills extension, resources and prompts."""
    verifier: Any = None
    serve_cfg: Any = None
    if transport == "http":
        verifier, serve_cfg = _http_auth(ctx, host, auth_token_file, allowed_hosts)
    elif auth_token_file is not None or stateless or allowed_hosts:
        raise click.UsageError("--auth-token-file, --stateless and --allowed-host apply to --transport http")
    from skillyard.tools import BUILTIN_TOOLS

    known = (*BUILTIN_TOOLS, "toml")
    unknown = [t for t in tools if t not in known]
    if unknown:
        raise click.UsageError(f"unknown tool: {unknown[0]} (expected some of: {', '.join(known)})")
    level = log_level.upper()
    _setup_logging(level)
    from skillyard.mcp import build_server

    registry = ctx.obj.registry()
    server = build_server(registry, tools=list(tools) or None, watch=watch, page_size=page_size)
    # The SDK's constructor installs its own (stderr) log handler; ours wins.
    _setup_logging(level)
    log = logging.getLogger("skillyard.mcp")
    served = sum(1 for s in registry.skills if server.catalog.is_served(s))
    log.info("serving %d of %d skills over %s", served, len(registry.skills), transport)
    for skill in registry.skills:
        reason = server.catalog.why_not_served(skill)
        if reason is not None:
            log.info("not served via the Skills extension: %s (%s)", skill.name, reason)
    try:
        if transport == "stdio":
            _stop_on_signals(server)
            _freeze_start_up_objects()
            server.run("stdio")
        else:
            import uvicorn

            from skillyard.mcp._http_guard import uvicorn_config

            app = server.http_app(
                host=host,
                stateless=stateless,
                verifier=verifier,
                issuer=serve_cfg.auth.issuer,
                resource=serve_cfg.auth.resource,
                allowed_hosts=(*serve_cfg.allowed_hosts, *allowed_hosts),
                allowed_origins=serve_cfg.allowed_origins,
            )
            if verifier is not None:
                log.info("HTTP requests need a bearer token (%s)", type(verifier).__name__)
            _freeze_start_up_objects()
            try:
                config = uvicorn_config(
                    app, host.strip("[]"), port, level.lower(), same_user=verifier is None
                )
                _setup_logging(level)  # uvicorn's config installed its own log handlers; ours win
                uvicorn.Server(config).run()
            except SystemExit as e:  # uvicorn's own start-up failure (3): exit codes here are 0, 1, 2
                if e.code in (0, None):
                    raise
                click.echo(
                    f"error: the HTTP server could not start on {host}:{port} (the reason is above)", err=True
                )
                raise SystemExit(1) from None
    except KeyboardInterrupt:
        pass
    finally:
        server.close()  # workspaces of every client session go now, not whenever the process is collected


def _stop_on_signals(server: Any) -> None:
    """Hosts stop a stdio server with SIGTERM, a person in a terminal with Ctrl-C: remove the clients'
    workspaces, then die of the signal.

    Unwinding instead would wait for the stdin read and any run still in its worker thread (Ctrl-C
    did nothing while stdin stayed open; a second one exited with a traceback). A SIGINT the
    process was started ignoring (a background job) stays ignored."""
    import os
    import signal

    def stop(signum: int, frame: Any) -> None:
        # the same signal again while this one cleans up kills at once: run again inside `close`, the
        # handler would wait for a lock the interrupted `close` holds, for ever
        signal.signal(signum, signal.SIG_DFL)
        try:
            server.close()
        finally:
            os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, stop)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, stop)


def _freeze_start_up_objects() -> None:
    """Keep the collector's full passes off what start-up built.

    Imports, the registry and the server live as long as this process; left
    in the collector's oldest generation, every full collection walks them
    again and stalls each request in flight meanwhile (docs/mcp.md, "The tail
    was the garbage collector"). This is the serving process's own choice:
    the library never touches the collector.
    """
    import gc

    from skillyard.cli import THRESHOLDS

    gc.collect()
    gc.freeze()
    # what serving allocates dies young, closed connections' cycles too: a command's large young
    # generation (cli.main) let them pile up for tens of MB and then walked them all in one stall
    gc.set_threshold(*THRESHOLDS)
