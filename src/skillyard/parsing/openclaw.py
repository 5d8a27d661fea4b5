"""OpenClaw / ClawHub metadata: requirements, install options and display fields.

The manifest lives in `metadata.openclaw` (legacy `clawdbot`, `moltbot`, `clawdis`) as a
map or a JSON string; the same keys are also accepted at the frontmatter top level.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from skillyard.model import INSTALL_KIND_FIELD, Diagnostic, InstallOption, Requirements

MANIFEST_KEYS = ("openclaw", "clawdbot", "moltbot", "clawdis")
_NO_REQUIREMENTS = Requirements()  # frozen, so one shared empty value is safe
_OS_ALIASES = {
    "macos": "darwin",
    "mac": "darwin",
    "osx": "darwin",
    "darwin": "darwin",
    "windows": "win32",
    "win": "win32",
    "win32": "win32",
    "linux": "linux",
}


@dataclass(slots=True)
class OpenClawInfo:
    """The OpenClaw fields after normalisation."""

    emoji: str | None = None
    homepage: str | None = None
    always: bool = False
    skill_key: str | None = None
    requires: Requirements = _NO_REQUIREMENTS  # frozen, so sharing the default is safe
    install: tuple[InstallOption, ...] = ()
    #: `requires` as a row holds it (bins, anyBins, env, config, os); equal ones are one object
    requires_row: tuple[tuple[str, ...], ...] = ((), (), (), (), ())


def decode_metadata(value: Any, path: str, diags: list[Diagnostic]) -> dict[str, Any]:
    """`metadata` as a mapping: a map as is, a JSON (or YAML flow) string parsed, anything else dropped."""
    if isinstance(value, dict):
        return value
    if value is None:
        return {}
    if isinstance(value, str):
        parsed = _parse_json_ish(value)
        if isinstance(parsed, dict):
            return parsed
    diags.append(Diagnostic("warning", "metadata-not-mapping", "`metadata` is not a mapping; ignored", path))
    return {}


def _parse_json_ish(text: str) -> Any:
    """JSON first (the ClawHub form), then a YAML flow mapping; None when neither reads it."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    from skillyard.parsing.frontmatter import parse_frontmatter

    data, _ = parse_frontmatter(f"x: {text}" if "\n" not in text else text)
    if isinstance(data, dict):
        inner = data.get("x", data)
        return inner if isinstance(inner, dict) else None
    return None


def manifest(metadata: dict[str, Any], path: str, diags: list[Diagnostic]) -> dict[str, Any]:
    """The OpenClaw block of `metadata`, first of the known keys that holds a mapping."""
    for key in MANIFEST_KEYS:
        if key not in metadata:
            continue
        block = metadata[key]
        if isinstance(block, str):
            block = _parse_json_ish(block)
        if isinstance(block, dict):
            return block
        diags.append(
            Diagnostic("warning", "openclaw-not-mapping", f"`metadata.{key}` is not a mapping; ignored", path)
        )
    return {}


def _clean(value: Any) -> tuple[str, ...] | None:
    """The common case: a non-empty list of clean strings, as a tuple; None for anything else."""
    if value.__class__ is not list or not value:
        return None
    for x in value:
        if x.__class__ is not str or not x or x[0].isspace() or x[-1].isspace():
            return None
    return tuple(value)


def str_list(value: Any, field_name: str, path: str, diags: list[Diagnostic]) -> tuple[str, ...]:
    """A list of strings from a list or a comma/space separated string; other items warned and dropped."""
    if value is None:
        return ()
    if isinstance(value, str):
        sep = "," if "," in value else None
        return tuple(p.strip() for p in value.split(sep) if p.strip())
    if isinstance(value, list):
        if (clean := _clean(value)) is not None:
            return clean
        out: list[str] = []
        for item in value:
            if isinstance(item, str) and item.strip():
                out.append(item.strip())
            elif isinstance(item, int | float) and not isinstance(item, bool):
                out.append(str(item))
            else:
                diags.append(
                    Diagnostic(
                        "warning", "bad-list-item", f"`{field_name}`: ignored a non-string entry", path
                    )
                )
        return tuple(out)
    diags.append(
        Diagnostic("warning", "bad-list", f"`{field_name}` must be a list or a string; ignored", path)
    )
    return ()


def normalise_os(values: tuple[str, ...]) -> tuple[str, ...]:
    """`macos` → `darwin`, `windows` → `win32`; unknown names kept lower-cased."""
    out: list[str] = []
    for v in values:
        n = _OS_ALIASES.get(v.lower(), v.lower())
        if n not in out:
            out.append(n)
    return tuple(out)


def to_bool(value: Any) -> bool | None:
    """yes/no/on/off/1/0/true/false in any case; None when it is none of those."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("yes", "on", "1", "true"):
            return True
        if v in ("no", "off", "0", "false"):
            return False
    return None


def _opt_str(value: Any) -> str | None:
    if value.__class__ is str:
        return value.strip() or None
    if value is None or isinstance(value, dict | list):
        return None
    s = str(value).strip() if not isinstance(value, bool) else ("true" if value else "false")
    return s or None


_TOP_LEVEL = frozenset({"emoji", "homepage", "skillKey", "always", "requires", "os", "install"})


def read_openclaw(
    frontmatter: dict[str, Any], metadata: dict[str, Any], path: str
) -> tuple[OpenClawInfo, list[Diagnostic]]:
    """OpenClaw fields from the manifest block, falling back to top-level keys."""
    diags: list[Diagnostic] = []
    block = metadata.get("openclaw") if metadata else None  # the usual spelling, checked first
    if block.__class__ is not dict:
        block = manifest(metadata, path, diags) if metadata else {}
    info = OpenClawInfo()
    src: dict[str, Any]
    if not _TOP_LEVEL.isdisjoint(frontmatter):
        src = {k: frontmatter[k] for k in frontmatter.keys() & _TOP_LEVEL}
        src.update(block)
    elif block:
        src = block
    else:
        return info, diags
    get = src.get
    if "emoji" in src:
        info.emoji = _opt_str(src["emoji"])
    if "homepage" in src:
        info.homepage = _opt_str(src["homepage"])
    if "skillKey" in src:
        info.skill_key = _opt_str(src["skillKey"])
    always = get("always")
    if always is not None:
        b = to_bool(always)
        if b is None:
            diags.append(Diagnostic("warning", "bad-boolean", "`always` is not a boolean; ignored", path))
        info.always = bool(b)
    req = get("requires")
    bins = any_bins = env = config = ()
    if isinstance(req, dict):
        if "bins" in req:
            bins = str_list(req["bins"], "requires.bins", path, diags)
        if "anyBins" in req:
            any_bins = str_list(req["anyBins"], "requires.anyBins", path, diags)
        if "env" in req:
            env = str_list(req["env"], "requires.env", path, diags)
        if "config" in req:
            config = _config_list(req["config"], path, diags)
    elif req is not None:
        diags.append(Diagnostic("warning", "bad-requires", "`requires` is not a mapping; ignored", path))
    os_raw = get("os")
    os_list = normalise_os(str_list(os_raw, "os", path, diags)) if os_raw is not None else ()
    if bins or any_bins or env or config or os_list:
        key = (bins, any_bins, env, config, os_list)
        found = _REQUIREMENTS.get(key)
        if found is None:
            found = (key, Requirements(bins=bins, any_bins=any_bins, env=env, config=config, os=os_list))
            if len(_REQUIREMENTS) < _INTERN_MAX:
                _REQUIREMENTS[key] = found
        info.requires_row, info.requires = found
    install = get("install")
    if install is not None:
        info.install = read_install(install, path, diags)
    return info, diags


def _config_list(value: Any, path: str, diags: list[Diagnostic]) -> tuple[str, ...]:
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        diags.append(
            Diagnostic(
                "warning",
                "bad-list-item",
                "`requires.config`: object entries are not supported; skipped",
                path,
            )
        )
        value = [v for v in value if not isinstance(v, dict)]
    return str_list(value, "requires.config", path, diags)


#: Interned immutable values: many skills share the same install spec (brew gh, apt ffmpeg, ...) or
#: requirements, so equal values are built once (bounded, so hostile input cannot grow it forever).
_INTERN_MAX = 4096
_INSTALL: dict[tuple[Any, ...], InstallOption] = {}
_REQUIREMENTS: dict[tuple[tuple[str, ...], ...], tuple[tuple[tuple[str, ...], ...], Requirements]] = {}


def _install_option(kind: str, fields: dict[str, Any]) -> InstallOption:
    key = (kind, *fields.items())  # read_install fills `fields` in one fixed key order
    opt = _INSTALL.get(key)
    if opt is None:
        opt = InstallOption(kind=kind, **fields)
        if len(_INSTALL) < _INTERN_MAX:
            _INSTALL[key] = opt
    return opt


def read_install(value: Any, path: str, diags: list[Diagnostic]) -> tuple[InstallOption, ...]:
    """`install[]` → InstallOption; a spec with an unknown kind or without its target is dropped with a warning."""
    if value is None:
        return ()
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        diags.append(Diagnostic("warning", "bad-install", "`install` must be a list; ignored", path))
        return ()
    out: list[InstallOption] = []
    for i, spec in enumerate(value):
        if not isinstance(spec, dict):
            diags.append(
                Diagnostic("warning", "bad-install", f"install[{i}] is not a mapping; dropped", path)
            )
            continue
        kind = spec.get("kind") or spec.get("type")
        kind = kind.strip().lower() if isinstance(kind, str) else None
        if kind not in INSTALL_KIND_FIELD:
            diags.append(
                Diagnostic("warning", "bad-install", f"install[{i}]: unknown kind {kind!r}; dropped", path)
            )
            continue
        target_field = INSTALL_KIND_FIELD[kind]
        target = _opt_str(spec.get(target_field))
        if target is None and kind == "brew":
            target = _opt_str(spec.get("cask"))
        if target is None:
            diags.append(
                Diagnostic(
                    "warning",
                    "bad-install",
                    f"install[{i}] ({kind}): missing `{target_field}`; dropped",
                    path,
                )
            )
            continue
        fields: dict[str, Any] = {target_field: target}
        if "id" in spec:
            fields["id"] = _opt_str(spec["id"]) or ""
        if "label" in spec:
            fields["label"] = _opt_str(spec["label"]) or ""
        if "bins" in spec:
            fields["bins"] = str_list(spec["bins"], f"install[{i}].bins", path, diags)
        if "os" in spec:
            fields["os"] = normalise_os(str_list(spec["os"], f"install[{i}].os", path, diags))
        out.append(_install_option(kind, fields))
    return tuple(out)
