"""`skillyard remote sync`: fetch the skills of the MCP servers in `[[skills.remote]]`.

The command needs only `ctx.obj` to offer `.config` (the main group's CliContext).
"""

from __future__ import annotations

from typing import Any

import click

from skillyard._cli_io import EXIT_FAIL, emit_json, err, fail_usage, say


@click.group("remote")
def remote() -> None:
    """Skills from other MCP servers ([[skills.remote]] in the config file)."""


@remote.command("sync")
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def sync_cmd(ctx: click.Context, names: tuple[str, ...], as_json: bool) -> None:
    """Fetch the skills of every configured remote (or only NAMES) into its cache."""
    from skillyard.remote import RemoteError, sync

    config = ctx.find_root().obj.config
    remotes = [r for r in config.remotes if not names or r.name in names]
    unknown = sorted(set(names) - {r.name for r in config.remotes})
    if unknown or not remotes:
        known = ", ".join(r.name for r in config.remotes) or "none configured"
        what = f"unknown remote: {', '.join(unknown)}" if unknown else "no [[skills.remote]] in the config"
        fail_usage(f"{what} (remotes: {known})")
    reports: list[dict[str, Any]] = []
    failed = False
    for r in remotes:
        try:
            reports.append(sync(r).to_dict())
        except RemoteError as e:
            failed = True
            reports.append({"remote": r.name, "root": str(r.root), "error": str(e)})
    if as_json:
        emit_json({"remotes": reports})
    else:
        for rep in reports:  # `say` shows a server's words as text, hidden characters spelled out
            if "error" in rep:
                err(f"✗ {rep['remote']}: {rep['error']}")
                continue
            say(("✓ ", "green"), f"{rep['remote']}: {len(rep['skills'])} skills -> {rep['root']}")
            for item in rep["refused"]:
                say((f"  refused {item['skill']}: {item['reason']}", "yellow"))
    if failed or any(rep.get("refused") for rep in reports):
        raise SystemExit(EXIT_FAIL)
