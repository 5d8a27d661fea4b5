"""`skillyard serve`: the MCP server over stdio (default) or streamable HTTP on loopback.

stdout is the protocol wire on stdio, so everything else (logs, warnings)
goes to stderr. The command is registered on the main `skillyard` group by
cli.py; `ctx.obj` is the CliContext carrying the config and the registry.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

#: the hosts the SDK protects against DNS rebinding (Host/Origin checks); nothing else is served
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    return host in LOOPBACK_HOSTS


def _setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def _registry(ctx: click.Context) -> Any:
    obj = ctx.obj
    if obj is not None and hasattr(obj, "registry"):
        return obj.registry()
    from skillyard.registry import Registry

    return Registry.discover()


@click.command("serve")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for hosts that launch the server; http for streamable HTTP.",
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="HTTP bind address: 127.0.0.1, localhost or ::1."
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
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
    default="WARNING",
    show_default=True,
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
) -> None:
    """Serve skills over MCP: the agent tools, the Skills extension, resources and prompts."""
    if transport == "http" and not _is_loopback(host):
        raise click.UsageError(
            f"--host {host} is not a loopback address; skillyard serves HTTP on loopback only"
        )
    from skillyard.tools import BUILTIN_TOOLS

    known = (*BUILTIN_TOOLS, "toml")
    unknown = [t for t in tools if t not in known]
    if unknown:
        raise click.UsageError(f"unknown tool: {unknown[0]} (expected some of: {', '.join(known)})")
    level = log_level.upper()
    _setup_logging(level)
    from skillyard.mcp import build_server

    registry = _registry(ctx)
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
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()  # workspaces of every client session go now, not whenever the process is collected
