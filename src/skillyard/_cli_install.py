"""CLI commands for installing, auditing and trusting skills (registered on the main `skillyard` group).

They read what they need from `ctx.obj` (a `skillyard.cli.CliContext`): `.config` (path,
trust_sources, hub_index, install_root) and `.registry()`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from skillyard._cli_io import EXIT_FAIL, EXIT_OK, EXIT_USAGE, emit_json, err, say
from skillyard.config import ConfigError
from skillyard.fsread import is_within
from skillyard.install.scanner import SEVERITIES, ScanPolicy, render_human, render_plain, scan_path, to_sarif

if TYPE_CHECKING:  # the installer (network, locks) is imported by the commands that install
    from skillyard.install import Installer, InstallResult, TrustPolicy


def _config(ctx: click.Context) -> Any:
    obj = ctx.obj
    if obj is None or not hasattr(obj, "config"):
        raise click.UsageError("no skillyard configuration in the command context")
    return obj.config


def _console(stderr: bool = False) -> Any:
    """For the scanner's tables: no markup, since paths and snippets in them come from the skill."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False, markup=False)


def _installer(ctx: click.Context, allow: tuple[str, ...] = ()) -> Installer:
    """The installer of the configured root; `allow` names reviewed rules whose findings may not block."""
    from skillyard.install import Installer, TrustPolicy

    config = _config(ctx)
    return Installer(
        Path(config.install_root),
        TrustPolicy.from_config(config),
        policy=ScanPolicy(allowed_rules=frozenset(allow)) if allow else None,
    )


def _enrich(ctx: click.Context, data: dict[str, Any]) -> dict[str, Any]:
    """Add the install answer's eligibility fields (eligible, missing, install_hints) after a reload, and say
    when the installed skill and another of the same name shadow one another."""
    obj = ctx.obj
    if not data.get("installed") or not hasattr(obj, "registry"):
        return data
    try:
        reg = obj.registry()
    except Exception as e:
        data.setdefault("warnings", []).append(f"could not load the registry: {e}")
        return data
    from skillyard.reports import add_eligibility  # the registry only when an install succeeded

    data = add_eligibility(data, reg)
    try:
        _add_shadowing(data, reg, Path(_config(ctx).install_root))
    except Exception as e:  # extra information; the install itself succeeded
        data.setdefault("warnings", []).append(f"could not check for skills of the same name: {e}")
    return data


def _add_shadowing(data: dict[str, Any], reg: Any, install_root: Path) -> None:
    """`shadowing` (every copy of the name, the one that wins first) and one warning per other copy.

    Precedence is the search path's order (docs/discovery.md): the first root holding a name wins.
    """
    name = data.get("name")
    if not isinstance(name, str):
        return
    mine = os.path.realpath(install_root / name)
    found = reg.copies(name, fold=True)  # discovery shadows a name that reads the same as a copy
    copies = [
        {"path": str(p), "source": src, "installed": is_within(os.path.realpath(p), mine)}
        for _, p, src in found
    ]
    others = [c for c in copies if not c["installed"]]
    if not others:
        return
    for i, c in enumerate(copies):
        c["wins"] = i == 0
    data["shadowing"] = copies
    warnings = data.setdefault("warnings", [])
    winner = copies[0]
    if winner["installed"]:
        for c in others:
            warnings.append(
                f"the installed '{name}' shadows the {c['source']} skill of the same name at {c['path']}: "
                "the installed copy wins (it comes first on the search path)"
            )
    else:
        warnings.append(
            f"the {winner['source']} skill '{found[0][0]}' at {winner['path']} wins over the installed copy "
            "(it comes first on the search path); the installed copy is not used"
        )


def _did_you_mean(ctx: click.Context, data: dict[str, Any], name: str) -> dict[str, Any]:
    """A name that is no skill at all gets the suggestions `info` and `check` give (`did_you_mean`)."""
    reg = ctx.obj.registry() if hasattr(ctx.obj, "registry") else None
    if reg is not None and reg.get(name) is None and (hints := reg.suggest(name)):
        data["did_you_mean"] = hints
    return data


def _say_did_you_mean(data: dict[str, Any]) -> None:
    if data.get("did_you_mean"):
        say(f"  did you mean: {', '.join(data['did_you_mean'])}?", err=True)


def _report_result(
    ctx: click.Context, result: InstallResult, as_json: bool, verb: str, name: str | None = None
) -> None:
    data = _enrich(ctx, result.to_dict())
    if name is not None and not data.get("installed"):
        _did_you_mean(ctx, data, name)
    if as_json:
        emit_json(data)
    else:
        if data.get("installed"):  # names, paths and sources come from the skill: never read as markup
            if verb == "installed" and data.get("replaced"):  # `--force` over a skill of the same name
                verb = "replaced"
            say((verb, "green"), f" {data['name']} → {data['path']}")
            say(f"  source: {data.get('source')}  revision: {data.get('revision') or '-'}")
            scan = data.get("scan") or {}
            say(f"  scan: {scan.get('verdict', '?')} (max severity {scan.get('max_severity', '?')})")
            if data.get("eligible") is False:
                missing = "; ".join(
                    f"{k}: {', '.join(map(str, v))}" for k, v in (data.get("missing") or {}).items()
                )
                say(("  not eligible yet", "yellow"), f": missing {missing}")
                for h in data.get("install_hints") or []:
                    say(f"    {h.get('command')}")
            for w in data.get("warnings") or []:
                say(("  warning:", "yellow"), f" {w}")
        else:
            err(f"error: {data.get('error')}")
            for key in ("reason", "source", "url", "name", "pattern", "file", "line", "hint", "available"):
                if (value := data.get(key)) is not None:
                    say(
                        f"  {key}: {', '.join(map(str, value)) if isinstance(value, list) else value}",
                        err=True,
                    )
            _say_did_you_mean(data)
            if data.get("findings") and result.scan is not None:  # as `audit`: a table only on a terminal
                if sys.stderr.isatty():
                    render_human(result.scan, _console(stderr=True))
                else:
                    click.echo(render_plain(result.scan), err=True)
                if rule := data.get("rule_id"):
                    say(
                        f"  hint: once you have reviewed them, repeat with --allow {rule} (one per rule that blocks)",
                        err=True,
                    )
    ctx.exit(EXIT_OK if data.get("installed") else EXIT_FAIL)


_allow_opt = click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="RULE_ID",
    help="A reviewed rule whose findings may not block this install (repeatable).",
)


@click.command("install")
@click.argument("source")
@click.option("--name", default=None, help="Skill to pick from a source holding several (or the hub name).")
@click.option("--force", is_flag=True, help="Replace an installed skill of the same name.")
@_allow_opt
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def install(
    ctx: click.Context, source: str, name: str | None, force: bool, allow: tuple[str, ...], as_json: bool
) -> None:
    """Install a skill from a path, git repository, archive URL or hub:NAME."""
    result = _installer(ctx, allow).install(source, name=name, force=force)
    _report_result(ctx, result, as_json, "installed")


@click.command("update")
@click.argument("name")
@_allow_opt
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def update(ctx: click.Context, name: str, allow: tuple[str, ...], as_json: bool) -> None:
    """Re-install a skill from the source recorded in skills.lock."""
    result = _installer(ctx, allow).update(name)
    _report_result(ctx, result, as_json, "updated", name)


@click.command("uninstall")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def uninstall(ctx: click.Context, name: str, as_json: bool) -> None:
    """Remove a skill installed by skillyard."""
    data = _installer(ctx).uninstall(name)
    skill = (
        None if data.get("uninstalled") or not hasattr(ctx.obj, "registry") else ctx.obj.registry().get(name)
    )
    if skill is not None:  # the name is a skill, just not one skillyard installed: say where it is
        data["hint"] = (
            f"'{name}' is the {skill.source} skill at {skill.path}; uninstall removes only skills that"
            " skillyard install put in the install root"
        )
    elif not data.get("uninstalled"):
        _did_you_mean(ctx, data, name)
    if as_json:
        emit_json(data)
    elif data.get("uninstalled"):
        say(("uninstalled", "green"), f" {name}")
    else:
        err(f"error: {data.get('error')}")
        if data.get("hint"):
            say(f"  hint: {data['hint']}", err=True)
        _say_did_you_mean(data)
    ctx.exit(EXIT_OK if data.get("uninstalled") else EXIT_FAIL)


@click.command("audit")
@click.argument("targets", nargs=-1, required=True, metavar="PATH|NAME...")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["human", "json", "sarif"]),
    default="human",
    show_default=True,
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--fail-on",
    type=click.Choice([*SEVERITIES, "none"]),
    default="high",
    show_default=True,
    help="Lowest severity that counts as blocking (exit 1).",
)
@click.pass_context
def audit(ctx: click.Context, targets: tuple[str, ...], fmt: str, as_json: bool, fail_on: str) -> None:
    """Scan skills for dangerous patterns; exit 1 when any is blocked."""
    if as_json:
        fmt = "json"
    policy = ScanPolicy(block_at=fail_on)
    reports = []
    for t in targets:
        path = _resolve_target(ctx, t)
        try:
            if path is None:
                raise FileNotFoundError(f"skill not found: {t}")
            reports.append(scan_path(path, policy=policy))
        except FileNotFoundError as e:  # also a FIFO or socket, or a path removed since it was resolved
            data = _did_you_mean(ctx, {"error": str(e)}, t) if path is None else {"error": str(e)}
            if fmt == "human":
                err(f"error: {e}")
                _say_did_you_mean(data)
            else:
                emit_json(data)
            ctx.exit(EXIT_USAGE)
    if fmt == "json":
        emit_json(reports[0].to_dict() if len(reports) == 1 else [r.to_dict() for r in reports])
    elif fmt == "sarif":
        emit_json(to_sarif(reports))
    elif not sys.stdout.isatty():  # a pipe or a file: the same findings as plain lines, without rich
        for r in reports:
            click.echo(render_plain(r))
    else:
        con = _console()
        for r in reports:
            render_human(r, con)
    ctx.exit(EXIT_FAIL if any(r.blocked for r in reports) else EXIT_OK)


def _resolve_target(ctx: click.Context, target: str) -> Path | None:
    """A path on disk, else a skill name looked up in the registry, else the install root."""
    if not target.strip() or "\0" in target:  # Path("") is ".": an empty argument must not audit the cwd
        return None
    p = Path(target)
    try:
        if p.exists():
            return p
    except OSError:  # a name too long for the filesystem, a symlink loop: not a path we can scan
        return None
    if "/" in target or "\\" in target or len(target) > 256:
        return None
    obj = ctx.obj
    if obj is not None and hasattr(obj, "registry"):
        try:
            skill = obj.registry().get(target)
        except Exception:
            skill = None
        if skill is not None:
            return Path(skill.path).parent
    try:
        cand = Path(_config(ctx).install_root) / target
    except click.UsageError:
        return None
    return cand if cand.is_dir() else None


@click.group("trust")
def trust() -> None:
    """Manage trusted install sources ([trust] sources in the config file)."""


def _policy(ctx: click.Context, *, write: bool = False) -> TrustPolicy:
    """The trust policy; with no config file yet, changes go to the user config file.

    `write`: the command changes the file, so an explicit `--config FILE` that does not exist yet is created.
    """
    from skillyard.install import TrustPolicy

    obj = ctx.obj
    config = obj.writable_config() if write and hasattr(obj, "writable_config") else _config(ctx)
    pol = TrustPolicy.from_config(config)
    if pol.config_path is None:
        from skillyard.config import user_config_path

        pol.config_path = user_config_path()
    return pol


@trust.command("add")
@click.argument("pattern")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def trust_add(ctx: click.Context, pattern: str, as_json: bool) -> None:
    """Trust sources matching PATTERN, such as 'github.com/anthropics/*'."""
    pol = _policy(ctx, write=True)
    added = _change_trust(ctx, pol, pol.add, pattern, as_json)
    data = {"trusted": True, "pattern": pattern.strip(), "added": added, "config": str(pol.config_path)}
    if as_json:
        emit_json(data)
    else:
        click.echo(f"trusted: {pattern.strip()}" + ("" if added else " (already trusted)"))


@trust.command("remove")
@click.argument("pattern")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def trust_remove(ctx: click.Context, pattern: str, as_json: bool) -> None:
    """Stop trusting PATTERN."""
    pol = _policy(ctx)  # nothing to remove from a file that does not exist: that stays an error
    if not _change_trust(ctx, pol, pol.remove, pattern, as_json):
        _fail(ctx, f"not a configured trust pattern: {pattern}", as_json, EXIT_FAIL)
    if as_json:
        emit_json({"removed": True, "pattern": pattern.strip()})
    else:
        click.echo(f"removed: {pattern.strip()}")


@trust.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def trust_list(ctx: click.Context, as_json: bool) -> None:
    """Show the trusted source patterns (built-in defaults first)."""
    pol = _policy(ctx)
    data = {"defaults": list(pol.defaults), "sources": list(pol.patterns), "hub_index": pol.hub_index}
    if as_json:
        emit_json(data)
        return
    # the patterns may come from a project's skillyard.toml (a cloned repository's): one line each
    for p in pol.defaults:
        say(f"{p}  (default)")
    for p in pol.patterns:
        say(p)


@trust.command("accept")
@click.argument("name")
@click.option("--allow-blocked", is_flag=True, help="Record it even though the scan finds blocking patterns.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def trust_accept(ctx: click.Context, name: str, allow_blocked: bool, as_json: bool) -> None:
    """Re-scan an installed skill and approve its current files (after reviewing local edits)."""
    data = _installer(ctx).accept(name, allow_blocked=allow_blocked)
    if not data.get("accepted"):
        _did_you_mean(ctx, data, name)
    if as_json:
        emit_json(data)
    elif data.get("accepted"):
        click.echo(f"accepted: {name} ({data['tree_hash']})")
    else:
        err(f"error: {data.get('error')}")
        _say_did_you_mean(data)
        for f in data.get("findings", [])[:20]:
            say(f"  {f['severity']}: {f['title']} ({f['file']}:{f['line']})", err=True)
        if data.get("findings"):
            say(
                f"  hint: once you have reviewed them, skillyard trust accept {name} --allow-blocked",
                err=True,
            )
    ctx.exit(EXIT_OK if data.get("accepted") else EXIT_FAIL)


def _change_trust(
    ctx: click.Context, pol: TrustPolicy, change: Callable[[str], bool], pattern: str, as_json: bool
) -> bool:
    """Apply `pol.add` / `pol.remove`; a bad pattern exits 2, an unwritable file 1."""
    from skillyard.install import TrustError

    try:
        return change(pattern)
    except (TrustError, ConfigError) as e:
        _fail(ctx, str(e), as_json, EXIT_USAGE)
    except OSError as e:
        _fail(ctx, f"cannot write config file {pol.config_path}: {e.strerror or e}", as_json, EXIT_FAIL)


def _fail(ctx: click.Context, message: str, as_json: bool, code: int) -> NoReturn:
    if as_json:
        emit_json({"error": message})
    else:
        click.echo(f"error: {message}", err=True)
    ctx.exit(code)


__all__ = ["audit", "install", "trust", "uninstall", "update"]
