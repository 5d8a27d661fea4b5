"""skillyard's configuration file: one strict reader, one place that knows the keys.

Unknown keys are errors (naming the file and the key) because a typo in a
security setting such as `network` must never be silently ignored.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import platformdirs

from skillyard.fsread import ours, read_regular_file

__all__ = [
    "Config",
    "ConfigError",
    "ExecutionSettings",
    "find_config_path",
    "load_config",
    "parse_config",
    "user_config_path",
]

PROJECT_CONFIG_NAME = "skillyard.toml"
EXECUTORS = ("sandbox", "local", "container", "ray", "auto")  # "auto" is kept for old files and means sandbox
#: A config file larger than this is refused (a mistaken path, not a config).
MAX_CONFIG_BYTES = 4 * 1024 * 1024


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and key."""


def user_config_path() -> Path:
    return Path(platformdirs.user_config_dir("skillyard")) / "config.toml"


def user_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("skillyard"))


@dataclass(frozen=True)
class SkillOverride:
    """`[skill.<name>]`: per-skill switches."""

    enabled: bool | None = None
    network: bool | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RaySettings:
    """`[execution.ray]`: where runs go with `executor = "ray"` and how workers run them."""

    address: str | None = None  #: None: RAY_ADDRESS, else "auto" (a cluster started on this machine)
    worker_executor: str = "sandbox"  #: the boundary on every node: sandbox or container
    num_cpus: float = 1.0
    resources: dict[str, float] = field(default_factory=dict)
    runtime_env: dict[str, Any] | None = None
    bin_resources: bool = False  #: ask for `skillyard-bin:<name>` per required binary
    connect_timeout: float = 15.0

    def resolved_address(self) -> str:
        return self.address or os.environ.get("RAY_ADDRESS") or "auto"


@dataclass(frozen=True)
class RemoteSkills:
    """`[[skills.remote]]`: an MCP server whose `skill://` resources `skillyard remote sync` fetches."""

    name: str
    command: tuple[str, ...] = ()  #: a stdio server: program and arguments
    url: str | None = None  #: a streamable HTTP server
    timeout: float = 60.0
    headers: tuple[tuple[str, str], ...] = ()  #: HTTP headers for `url`, e.g. Authorization

    @property
    def root(self) -> Path:
        """Where the fetched skills live: a root of the default search path, after the install root."""
        return user_data_dir() / "remote" / self.name


@dataclass(frozen=True)
class ExecutionSettings:
    executor: str = "sandbox"
    timeout: float = 60.0
    network: bool = False
    host_roots: tuple[Path, ...] = ()
    sandbox_uid: int = 65534  #: the unprivileged host uid sandboxed commands run as when skillyard is root
    sandbox_gid: int = 65534
    ray: RaySettings = field(default_factory=RaySettings)


@dataclass(frozen=True)
class SearchSettings:
    """`[search]`: the embedder for hybrid search (docs/search.md); "none" keeps search lexical."""

    embedder: str = (
        "none"  #: none | fastembed:<model> | openai:<model> | sentence-transformers:<name or path>
    )
    base_url: str | None = None  #: for openai:<model>; else OPENAI_BASE_URL
    api_key: str | None = None  #: for openai:<model>; else OPENAI_API_KEY


_EMBEDDER_KINDS = ("fastembed", "openai", "sentence-transformers")


@dataclass(frozen=True)
class ServeAuthSettings:
    """`[serve.auth]`: OAuth 2.1 resource-server settings for `skillyard serve --transport http`."""

    issuer: str | None = None  #: the authorization server; tokens must carry exactly this `iss`
    audience: str | None = None  #: tokens must list this in `aud` (usually the server's public URL)
    resource: str | None = None  #: the public URL of the MCP endpoint, for Protected Resource Metadata
    jwks_uri: str | None = None  #: None: read from the issuer's metadata
    algorithms: tuple[str, ...] = ("RS256",)  #: accepted JWS algorithms; never taken from the token
    leeway: float = 30.0  #: seconds of clock skew tolerated on exp/nbf/iat
    token_file: Path | None = None  #: static bearer tokens, as with --auth-token-file

    @property
    def oauth(self) -> bool:
        return self.issuer is not None


@dataclass(frozen=True)
class ServeSettings:
    """`[serve]`: what the HTTP transport accepts beyond loopback."""

    allowed_hosts: tuple[str, ...] = ()  #: Host header values clients use (besides loopback)
    allowed_origins: tuple[str, ...] = ()  #: Origin header values browsers may send
    auth: ServeAuthSettings = field(default_factory=ServeAuthSettings)


@dataclass(frozen=True)
class Config:
    """The effective configuration (defaults when no file exists)."""

    path: Path | None = None
    roots: tuple[Path, ...] | None = None  #: replaces the default search path when set
    disabled: frozenset[str] = frozenset()
    values: dict[str, Any] = field(default_factory=dict)  #: flattened dotted keys for requires.config
    execution: ExecutionSettings = field(default_factory=ExecutionSettings)
    trust_sources: tuple[str, ...] = ()
    #: `[trust] model_installs`: the model may use the `skills` tool's install action (off unless a person opts in)
    model_installs: bool = False
    #: `[trust] model_local_paths`: the only directories the model may install local sources from
    model_local_paths: tuple[Path, ...] = ()
    hub_index: str | None = None
    install_root_override: Path | None = None
    skills: dict[str, SkillOverride] = field(default_factory=dict)
    search: SearchSettings = field(default_factory=SearchSettings)
    remotes: tuple[RemoteSkills, ...] = ()
    serve: ServeSettings = field(default_factory=ServeSettings)

    @property
    def install_root(self) -> Path:
        return self.install_root_override or user_data_dir() / "skills"

    def override(self, name: str) -> SkillOverride:
        return self.skills.get(name) or SkillOverride()

    def is_disabled(self, name: str) -> bool:
        o = self.skills.get(name)
        if o is not None and o.enabled is not None:
            return not o.enabled
        return name in self.disabled

    def value(self, dotted: str) -> Any:
        return self.values.get(dotted)

    def with_disabled(self, name: str, disabled: bool) -> Config:
        """A copy with one skill switched; per-skill `enabled` wins over the list, so it is updated too."""
        names = set(self.disabled)
        (names.add if disabled else names.discard)(name)
        skills = dict(self.skills)
        if name in skills and skills[name].enabled is not None:
            skills[name] = replace(skills[name], enabled=not disabled)
        return replace(self, disabled=frozenset(names), skills=skills)


# ---------------------------------------------------------------- loading


def find_config_path(explicit: Path | str | None = None, cwd: Path | None = None) -> Path | None:
    """`--config FILE`, else ./skillyard.toml, else the user config file (if it exists)."""
    if explicit is not None:
        return Path(explicit)
    if env := os.environ.get("SKILLYARD_CONFIG"):
        return Path(env)
    project = (cwd or Path.cwd()) / PROJECT_CONFIG_NAME
    if project.is_file():
        return project
    user = user_config_path()
    return user if user.is_file() else None


def load_config(explicit: Path | str | None = None, cwd: Path | None = None) -> Config:
    """The effective config; a project file found only by being in `cwd` may not widen trust (ConfigError)."""
    path = find_config_path(explicit, cwd)
    if path is None:
        return Config()
    named = explicit is not None or bool(os.environ.get("SKILLYARD_CONFIG"))
    try:  # one found by its place (./skillyard.toml, the user config) must not be another user's
        config = parse_config(_read_toml(path, owned=not named), path)
    except FileNotFoundError:
        if named:  # a file the person named (--config or SKILLYARD_CONFIG) that is not there is a typo
            raise ConfigError(f"{path}: config file not found") from None
        return Config()
    chosen = named or path == user_config_path()
    if not chosen and (keys := _widening(config)):
        raise ConfigError(
            f"{path}: {', '.join(keys)}: a project's skillyard.toml, read because it is in the current"
            " directory, may not widen what skills may do or whom skillyard trusts; to accept it,"
            f" pass --config {path} (or set SKILLYARD_CONFIG)"
        )
    return config


def _widening(c: Config) -> list[str]:
    """The keys of `c` that loosen the sandbox, the network, installs or the server beyond the defaults.

    Anyone can ship a skillyard.toml in a repository; `cd` into it must not be consent to these.
    """
    ex, default = c.execution, ExecutionSettings()
    found = {
        "execution.executor": ex.executor not in ("sandbox", "auto"),
        "execution.network": ex.network,
        "execution.host_roots": bool(ex.host_roots),
        "execution.sandbox_uid": ex.sandbox_uid != default.sandbox_uid,
        "execution.sandbox_gid": ex.sandbox_gid != default.sandbox_gid,
        "execution.ray": ex.ray != default.ray,
        "trust": bool(c.trust_sources or c.model_installs or c.model_local_paths),
        "hub.index": c.hub_index is not None,
        "install.root": c.install_root_override is not None,
        "skills.remote": bool(c.remotes),
        "search": c.search != SearchSettings(),
        "serve": c.serve != ServeSettings(),
    }
    found |= {f"skill.{name}.network": bool(o.network) for name, o in c.skills.items()}
    return [key for key, on in found.items() if on]


def _own_file(path: Path) -> bool:
    try:
        return path.stat().st_uid == os.geteuid()
    except OSError:
        return False


def _read_toml(path: Path, *, owned: bool = False) -> dict[str, Any]:
    """The table in the config file at `path`; FileNotFoundError when missing, ConfigError when unusable
    (with `owned`, also when another user owns it or can write to it: it would choose what runs)."""
    try:
        raw = read_regular_file(path, MAX_CONFIG_BYTES, owned=owned)
    except FileNotFoundError:
        raise
    except OSError as e:
        fix = ""
        if e.errno == errno.EPERM:
            fix = f"; to use it anyway, pass --config {path}"
            if _own_file(path):  # writable by others: the owner can close that
                fix = f"; if only you should change it: chmod go-w {path}" + fix
        raise ConfigError(f"{path}: cannot read config file: {e.strerror or e}{fix}") from None
    import tomllib  # only when there is a config file to read

    try:
        return tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: config file is not UTF-8 text") from None
    except ValueError as e:  # a TOMLDecodeError, or an integer past int()'s digit limit
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


_TOP = {"skills", "config", "execution", "trust", "hub", "skill", "install", "search", "serve"}
_REMOTE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")  # `$` would pass a final line break
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}\Z")
#: JWS algorithms `[serve.auth] algorithms` may name (asymmetric only: the issuer's public keys verify)
JWT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")


class _Reader:
    """The checks every table of one file shares; each error names the file and the dotted key."""

    def __init__(self, path: Path | None) -> None:
        self.where = str(path) if path else "<config>"
        self.base = path.parent if path else Path.cwd()

    def err(self, key: str, msg: str) -> ConfigError:
        return ConfigError(f"{self.where}: {key}: {msg}")

    def table(self, key: str, v: Any, allowed: set[str] | None = None) -> dict[str, Any]:
        """`v` as the table `key`, refusing keys outside `allowed` (when given)."""
        if not isinstance(v, dict):
            raise self.err(key, "must be a table")
        for k in v:
            if allowed is not None and k not in allowed:
                name = f"{key}.{k}" if key else k
                raise self.err(name, f"unknown key (allowed: {', '.join(sorted(allowed))})")
        return v

    def mapping(self, key: str, v: Any, what: str, ok: Any) -> dict[str, Any]:
        """`v` as a table of `what`: string keys, and `ok(key, value)` true for every entry."""
        if not isinstance(v, dict) or not all(isinstance(k, str) and ok(k, x) for k, x in v.items()):
            raise self.err(key, f"must be a table of {what}")
        return v

    def str_list(self, key: str, v: Any) -> list[str]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.err(key, "must be a list of strings")
        return v

    def text(self, key: str, v: Any, what: str = "a string", *, blank: bool = True) -> str | None:
        """`v` as an optional string (None: not set); `blank=False` refuses one of only whitespace."""
        if v is not None and (not isinstance(v, str) or (not blank and not v.strip())):
            raise self.err(key, f"must be {what}")
        return v

    def boolean(self, key: str, v: Any) -> bool:
        if not isinstance(v, bool):
            raise self.err(key, "must be true or false")
        return v

    def seconds(self, key: str, v: Any, most: float, *, zero: bool = False) -> float:
        """A number of seconds in (0, most], or [0, most] with `zero`."""
        if (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not 0 <= v <= most
            or (v == 0 and not zero)
        ):
            raise self.err(key, f"must be a number of seconds between 0 and {most:g}")
        return float(v)

    def paths(self, key: str, v: Any) -> tuple[Path, ...]:
        return tuple(self.path(r) for r in self.str_list(key, v))

    def path(self, raw: str) -> Path:
        p = Path(os.path.expanduser(raw))
        return p if p.is_absolute() else (self.base / p)


def parse_config(data: dict[str, Any], path: Path | None = None) -> Config:
    r = _Reader(path)
    r.table("", data, _TOP)
    skills_t = r.table("skills", data.get("skills", {}), {"roots", "disabled", "remote"})
    remotes = _remotes(r, skills_t.get("remote", []))
    roots = r.paths("skills.roots", skills_t["roots"]) if "roots" in skills_t else None
    disabled = frozenset(r.str_list("skills.disabled", skills_t.get("disabled", [])))

    values: dict[str, Any] = {}
    _flatten("", r.table("config", data.get("config", {})), values)

    ex_keys = {"executor", "timeout", "network", "host_roots", "sandbox_uid", "sandbox_gid", "ray"}
    ex_t = r.table("execution", data.get("execution", {}), ex_keys)
    executor = ex_t.get("executor", "sandbox")
    if executor not in EXECUTORS:
        raise r.err("execution.executor", f"must be one of {', '.join(EXECUTORS)} (got {executor!r})")
    timeout = r.seconds("execution.timeout", ex_t.get("timeout", 60), 86400)
    ids = {}
    for key in ("sandbox_uid", "sandbox_gid"):
        v = ex_t.get(key, 65534)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 < v < 2**32 - 1:
            raise r.err(f"execution.{key}", "must be a positive integer other than 0 (root is never used)")
        ids[key] = v
    execution = ExecutionSettings(
        executor=executor,
        timeout=timeout,
        network=r.boolean("execution.network", ex_t.get("network", False)),
        host_roots=r.paths("execution.host_roots", ex_t.get("host_roots", [])),
        ray=_ray_settings(r, ex_t.get("ray", {})),
        **ids,
    )

    trust_t = r.table("trust", data.get("trust", {}), {"sources", "model_installs", "model_local_paths"})
    trust_sources = tuple(r.str_list("trust.sources", trust_t.get("sources", [])))
    model_installs = r.boolean("trust.model_installs", trust_t.get("model_installs", False))
    raw_local = r.str_list("trust.model_local_paths", trust_t.get("model_local_paths", []))
    for raw in raw_local:  # "" would silently mean the config file's own directory
        if not raw.strip() or "\0" in raw:
            raise r.err("trust.model_local_paths", f"not a usable directory path: {raw!r}")

    hub_t = r.table("hub", data.get("hub", {}), {"index"})
    hub_index = r.text("hub.index", hub_t.get("index"), "a URL string")
    install_t = r.table("install", data.get("install", {}), {"root"})
    install_root = r.text("install.root", install_t.get("root"), "a path string")

    search_t = r.table("search", data.get("search", {}), {"embedder", "base_url", "api_key"})
    for key in ("embedder", "base_url", "api_key"):
        r.text(f"search.{key}", search_t.get(key))
    embedder = search_t.get("embedder", "none").strip()
    kind, sep, model = embedder.partition(":")
    if embedder != "none" and (not sep or kind not in _EMBEDDER_KINDS or not model.strip()):
        raise r.err(
            "search.embedder",
            "must be none, fastembed:<model>, openai:<model> or sentence-transformers:<name or path>",
        )

    overrides: dict[str, SkillOverride] = {}
    for name, t in r.table("skill", data.get("skill", {})).items():
        key = f"skill.{name}"
        r.table(key, t, {"enabled", "network", "env"})
        env = r.mapping(f"{key}.env", t.get("env", {}), "string values", lambda _, v: isinstance(v, str))
        overrides[name] = SkillOverride(
            enabled=r.boolean(f"{key}.enabled", t["enabled"]) if "enabled" in t else None,
            network=r.boolean(f"{key}.network", t["network"]) if "network" in t else None,
            env=dict(env),
        )

    return Config(
        path=path,
        roots=roots,
        disabled=disabled,
        values=values,
        execution=execution,
        trust_sources=trust_sources,
        model_installs=model_installs,
        model_local_paths=tuple(r.path(raw) for raw in raw_local),
        hub_index=hub_index,
        install_root_override=r.path(install_root) if install_root is not None else None,
        skills=overrides,
        search=SearchSettings(embedder, search_t.get("base_url"), search_t.get("api_key")),
        remotes=remotes,
        serve=_serve_settings(r, data.get("serve", {})),
    )


def _remotes(r: _Reader, raw: Any) -> tuple[RemoteSkills, ...]:
    """`[[skills.remote]]` entries: a unique name, and exactly one of `command` (stdio) or `url` (HTTP)."""
    if not isinstance(raw, list):
        raise r.err("skills.remote", "must be an array of tables ([[skills.remote]])")
    out: list[RemoteSkills] = []
    for i, t in enumerate(raw):
        key = f"skills.remote[{i}]"
        r.table(key, t, {"name", "command", "url", "timeout", "headers"})
        name = t.get("name")
        if not isinstance(name, str) or not _REMOTE_NAME.match(name):
            raise r.err(f"{key}.name", "must be 1-64 lower-case letters, digits, '-' or '_'")
        if any(other.name == name for other in out):
            raise r.err(f"{key}.name", f"{name!r} is used twice")
        command, url = t.get("command"), t.get("url")
        if (command is None) == (url is None):
            raise r.err(key, "needs exactly one of command (a stdio server) or url (an HTTP server)")
        if command is not None and (
            not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command)
        ):
            raise r.err(f"{key}.command", "must be a non-empty list of strings (program and arguments)")
        if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
            raise r.err(f"{key}.url", "must be an http:// or https:// URL")
        timeout = r.seconds(f"{key}.timeout", t.get("timeout", 60), 3600)
        headers = r.mapping(
            f"{key}.headers",
            t.get("headers", {}),
            "HTTP header names to string values",
            lambda k, v: isinstance(v, str) and _HEADER_NAME.match(k) and "\n" not in v and "\r" not in v,
        )
        if headers and url is None:
            raise r.err(f"{key}.headers", "only applies to a url remote")
        out.append(RemoteSkills(name, tuple(command or ()), url, timeout, tuple(sorted(headers.items()))))
    return tuple(out)


def _flatten(prefix: str, tbl: dict[str, Any], out: dict[str, Any]) -> None:
    """`[config] browser = {enabled = true}` and `"browser.enabled" = true` mean the same."""
    for k, v in tbl.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            _flatten(key, v, out)
        else:
            out[key] = v


def _ray_settings(r: _Reader, t: Any) -> RaySettings:
    keys = {"address", "worker_executor", "num_cpus", "resources", "runtime_env", "bin_resources"}
    r.table("execution.ray", t, keys | {"connect_timeout"})
    address = r.text(
        "execution.ray.address", t.get("address"), '"auto", "host:port" or "ray://host:port"', blank=False
    )
    worker = t.get("worker_executor", "sandbox")
    if worker not in ("sandbox", "container"):
        raise r.err(
            "execution.ray.worker_executor", "must be sandbox or container (the boundary on every node)"
        )
    for key in ("num_cpus", "connect_timeout"):
        v = t.get(key, 1.0 if key == "num_cpus" else 15.0)
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 10_000:
            raise r.err(f"execution.ray.{key}", "must be a positive number")
    resources = r.mapping(
        "execution.ray.resources",
        t.get("resources", {}),
        "resource names to positive amounts",
        lambda _, v: not isinstance(v, bool) and isinstance(v, int | float) and v > 0,
    )
    runtime_env = t.get("runtime_env")
    if runtime_env is not None and not isinstance(runtime_env, dict):
        raise r.err("execution.ray.runtime_env", "must be a table (Ray's runtime_env)")
    return RaySettings(
        address=address,
        worker_executor=worker,
        num_cpus=float(t.get("num_cpus", 1.0)),
        resources={k: float(v) for k, v in resources.items()},
        runtime_env=runtime_env,
        bin_resources=r.boolean("execution.ray.bin_resources", t.get("bin_resources", False)),
        connect_timeout=float(t.get("connect_timeout", 15.0)),
    )


def _serve_settings(r: _Reader, t: Any) -> ServeSettings:
    """`[serve]` and `[serve.auth]`; every URL must be https except on loopback, where http is allowed."""
    r.table("serve", t, {"allowed_hosts", "allowed_origins", "auth"})
    hosts = tuple(r.str_list("serve.allowed_hosts", t.get("allowed_hosts", [])))
    origins = tuple(r.str_list("serve.allowed_origins", t.get("allowed_origins", [])))
    for h in hosts:
        if not h.strip() or any(c in h for c in "/ \t\0"):
            raise r.err("serve.allowed_hosts", f"not a host[:port]: {h!r}")
    auth_keys = {"issuer", "audience", "resource", "jwks_uri", "algorithms", "leeway", "token_file"}
    a = r.table("serve.auth", t.get("auth", {}), auth_keys)
    urls = {
        key: r.text(f"serve.auth.{key}", a.get(key), "a non-empty string", blank=False)
        for key in ("issuer", "audience", "resource", "jwks_uri")
    }
    for key in ("issuer", "resource", "jwks_uri"):
        v = urls[key]
        if v is not None and not _secure_url(v):
            raise r.err(f"serve.auth.{key}", f"must be an https URL (http only for loopback hosts): {v!r}")
    if (urls["issuer"] is None) != (urls["audience"] is None):
        raise r.err("serve.auth", "issuer and audience go together: set both or neither")
    if urls["issuer"] is None and (urls["resource"] or urls["jwks_uri"]):
        raise r.err("serve.auth", "resource and jwks_uri need issuer and audience")
    algorithms = tuple(r.str_list("serve.auth.algorithms", a.get("algorithms", ["RS256"])))
    bad = [x for x in algorithms if x not in JWT_ALGORITHMS]
    if not algorithms or bad:
        raise r.err(
            "serve.auth.algorithms", f"must be some of {', '.join(JWT_ALGORITHMS)} (got {bad or '[]'})"
        )
    leeway = r.seconds("serve.auth.leeway", a.get("leeway", 30), 600, zero=True)
    token_file = r.text("serve.auth.token_file", a.get("token_file"), "a path string", blank=False)
    return ServeSettings(
        allowed_hosts=hosts,
        allowed_origins=origins,
        auth=ServeAuthSettings(
            **urls,
            algorithms=algorithms,
            leeway=leeway,
            token_file=r.path(token_file) if token_file else None,
        ),
    )


def _secure_url(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and host:
        return True
    return parts.scheme == "http" and (host in ("localhost", "::1") or host.startswith("127."))


# ---------------------------------------------------------------- writing


def update_config_file(path: Path, mutate: Any) -> None:
    """Apply `mutate(data: dict)` to the TOML file at `path` and write it back atomically.

    A lock file beside it serialises read-modify-write, so two processes changing the file at
    once both see their change land instead of one overwriting the other's.
    """
    import fcntl

    import tomli_w

    if path.is_symlink():  # a dotfiles setup links the config from elsewhere: the file it names is rewritten
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    # never through a link, nor waiting on a FIFO put in its place
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    with open(os.open(path.with_name(f".{path.name}.lock"), flags, 0o600), "a") as lock:
        if not ours(os.fstat(lock.fileno())):  # another user's lock, made first, could hold us for ever
            raise ConfigError(f"{path}: another user owns or can write its lock file .{path.name}.lock")
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = _read_toml(path)
        except FileNotFoundError:
            data = {}
        mutate(data)
        parse_config(data, path)  # refuse to write something we could not read back
        # one name for every writer (they take turns), so what a killed one left is replaced here
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            mode = os.stat(path).st_mode & 0o777  # a private file (it may hold tokens) stays private
        except FileNotFoundError:
            mode = None
        try:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode or 0o666)
            with open(fd, "wb") as f:
                if mode is not None:
                    os.fchmod(fd, mode)
                f.write(tomli_w.dumps(data).encode())
                f.flush()
                os.fsync(fd)
            os.replace(tmp, path)
        except BaseException:  # a full disk: the config stays as it was, and nothing is left beside it
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


def persist_disabled(path: Path, name: str, disabled: bool) -> None:
    """Record an enable/disable in the config file (`[skills] disabled`, and `[skill.<name>] enabled` if set)."""

    def mutate(data: dict[str, Any]) -> None:
        skills = data.setdefault("skills", {})
        names = [n for n in skills.get("disabled", []) if n != name]
        if disabled:
            names.append(name)
        skills["disabled"] = sorted(names)
        per = data.get("skill", {}).get(name)
        if isinstance(per, dict) and "enabled" in per:
            per["enabled"] = not disabled

    update_config_file(path, mutate)
