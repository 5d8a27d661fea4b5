"""skillyard's configuration file: one strict reader, one place that knows the keys.

Unknown keys are errors (naming the file and the key) because a typo in a
security setting such as `network` must never be silently ignored.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import platformdirs

from skillyard.fsread import read_regular_file

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
#: Sources trusted without configuration for people's installs (docs/install.md): local paths.
DEFAULT_TRUSTED = ("local:*",)
#: A config file larger than this is refused (a mistaken path, not a config).
MAX_CONFIG_BYTES = 4 * 1024 * 1024


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and key."""


def user_config_path() -> Path:
    return Path(platformdirs.user_config_dir("skillyard")) / "config.toml"


def user_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("skillyard"))


def default_install_root() -> Path:
    return user_data_dir() / "skills"


@dataclass(frozen=True, slots=True)
class SkillOverride:
    """`[skill.<name>]`: per-skill switches."""

    enabled: bool | None = None
    network: bool | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class ExecutionSettings:
    executor: str = "sandbox"
    timeout: float = 60.0
    network: bool = False
    host_roots: tuple[Path, ...] = ()
    sandbox_uid: int = 65534  #: the unprivileged host uid sandboxed commands run as when skillyard is root
    sandbox_gid: int = 65534
    ray: RaySettings = field(default_factory=RaySettings)


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """`[search]`: the embedder for hybrid search (docs/search.md); "none" keeps search lexical."""

    embedder: str = (
        "none"  #: none | fastembed:<model> | openai:<model> | sentence-transformers:<name or path>
    )
    base_url: str | None = None  #: for openai:<model>; else OPENAI_BASE_URL
    api_key: str | None = None  #: for openai:<model>; else OPENAI_API_KEY


_EMBEDDER_KINDS = ("fastembed", "openai", "sentence-transformers")


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """`[serve]`: what the HTTP transport accepts beyond loopback."""

    allowed_hosts: tuple[str, ...] = ()  #: Host header values clients use (besides loopback)
    allowed_origins: tuple[str, ...] = ()  #: Origin header values browsers may send
    auth: ServeAuthSettings = field(default_factory=ServeAuthSettings)


@dataclass(frozen=True, slots=True)
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
        return self.install_root_override or default_install_root()

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
    path = find_config_path(explicit, cwd)
    if path is None:
        return Config()
    try:
        raw = read_regular_file(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        if explicit is not None:
            raise ConfigError(f"{path}: config file not found") from None
        return Config()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file: {e.strerror or e}") from None
    import tomllib  # only when there is a config file to read

    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: config file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    return parse_config(data, path)


_TOP = {"skills", "config", "execution", "trust", "hub", "skill", "install", "search", "serve"}


def parse_config(data: dict[str, Any], path: Path | None = None) -> Config:
    where = str(path) if path else "<config>"
    base = path.parent if path else Path.cwd()

    def err(key: str, msg: str) -> ConfigError:
        return ConfigError(f"{where}: {key}: {msg}")

    def table(key: str) -> dict[str, Any]:
        v = data.get(key, {})
        if not isinstance(v, dict):
            raise err(key, "must be a table")
        return v

    def check_keys(prefix: str, tbl: dict[str, Any], allowed: set[str]) -> None:
        for k in tbl:
            if k not in allowed:
                raise err(
                    f"{prefix}.{k}" if prefix else k, f"unknown key (allowed: {', '.join(sorted(allowed))})"
                )

    def str_list(key: str, v: Any) -> list[str]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise err(key, "must be a list of strings")
        return v

    def boolean(key: str, v: Any) -> bool:
        if not isinstance(v, bool):
            raise err(key, "must be true or false")
        return v

    check_keys("", data, _TOP)

    skills_t = table("skills")
    check_keys("skills", skills_t, {"roots", "disabled", "remote"})
    remotes = _remotes(skills_t.get("remote", []), err, check_keys)
    roots = None
    if "roots" in skills_t:
        roots = tuple(_resolve(base, r) for r in str_list("skills.roots", skills_t["roots"]))
    disabled = frozenset(str_list("skills.disabled", skills_t.get("disabled", [])))

    values: dict[str, Any] = {}
    _flatten("", table("config"), values)

    ex_t = table("execution")
    check_keys(
        "execution",
        ex_t,
        {"executor", "timeout", "network", "host_roots", "sandbox_uid", "sandbox_gid", "ray"},
    )
    executor = ex_t.get("executor", "sandbox")
    if executor not in EXECUTORS:
        raise err("execution.executor", f"must be one of {', '.join(EXECUTORS)} (got {executor!r})")
    timeout = ex_t.get("timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86400:
        raise err("execution.timeout", "must be a number of seconds between 0 and 86400")
    ids = {}
    for key in ("sandbox_uid", "sandbox_gid"):
        v = ex_t.get(key, 65534)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 < v < 2**32 - 1:
            raise err(f"execution.{key}", "must be a positive integer other than 0 (root is never used)")
        ids[key] = v
    execution = ExecutionSettings(
        executor=executor,
        timeout=float(timeout),
        network=boolean("execution.network", ex_t.get("network", False)),
        host_roots=tuple(
            _resolve(base, r) for r in str_list("execution.host_roots", ex_t.get("host_roots", []))
        ),
        ray=_ray_settings(ex_t.get("ray", {}), err, check_keys, boolean),
        **ids,
    )

    trust_t = table("trust")
    check_keys("trust", trust_t, {"sources", "model_installs", "model_local_paths"})
    trust_sources = tuple(str_list("trust.sources", trust_t.get("sources", [])))
    model_installs = boolean("trust.model_installs", trust_t.get("model_installs", False))
    raw_local = str_list("trust.model_local_paths", trust_t.get("model_local_paths", []))
    for r in raw_local:  # "" would silently mean the config file's own directory
        if not r.strip() or "\0" in r:
            raise err("trust.model_local_paths", f"not a usable directory path: {r!r}")
    model_local_paths = tuple(_resolve(base, r) for r in raw_local)

    hub_t = table("hub")
    check_keys("hub", hub_t, {"index"})
    hub_index = hub_t.get("index")
    if hub_index is not None and not isinstance(hub_index, str):
        raise err("hub.index", "must be a URL string")

    install_t = table("install")
    check_keys("install", install_t, {"root"})
    install_root = None
    if "root" in install_t:
        if not isinstance(install_t["root"], str):
            raise err("install.root", "must be a path string")
        install_root = _resolve(base, install_t["root"])

    search_t = table("search")
    check_keys("search", search_t, {"embedder", "base_url", "api_key"})
    for key in ("embedder", "base_url", "api_key"):
        if key in search_t and not isinstance(search_t[key], str):
            raise err(f"search.{key}", "must be a string")
    embedder = search_t.get("embedder", "none").strip()
    kind, sep, model = embedder.partition(":")
    if embedder != "none" and (not sep or kind not in _EMBEDDER_KINDS or not model.strip()):
        raise err(
            "search.embedder",
            "must be none, fastembed:<model>, openai:<model> or sentence-transformers:<name or path>",
        )
    search = SearchSettings(embedder, search_t.get("base_url"), search_t.get("api_key"))

    overrides: dict[str, SkillOverride] = {}
    for name, t in table("skill").items():
        key = f"skill.{name}"
        if not isinstance(t, dict):
            raise err(key, "must be a table")
        check_keys(key, t, {"enabled", "network", "env"})
        env = t.get("env", {})
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise err(f"{key}.env", "must be a table of string values")
        overrides[name] = SkillOverride(
            enabled=boolean(f"{key}.enabled", t["enabled"]) if "enabled" in t else None,
            network=boolean(f"{key}.network", t["network"]) if "network" in t else None,
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
        model_local_paths=model_local_paths,
        hub_index=hub_index,
        install_root_override=install_root,
        skills=overrides,
        search=search,
        remotes=remotes,
        serve=_serve_settings(data.get("serve", {}), base, err, check_keys, str_list),
    )


_REMOTE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")


def _remotes(raw: Any, err: Any, check_keys: Any) -> tuple[RemoteSkills, ...]:
    """`[[skills.remote]]` entries: a unique name, and exactly one of `command` (stdio) or `url` (HTTP)."""
    if not isinstance(raw, list):
        raise err("skills.remote", "must be an array of tables ([[skills.remote]])")
    out: list[RemoteSkills] = []
    for i, t in enumerate(raw):
        key = f"skills.remote[{i}]"
        if not isinstance(t, dict):
            raise err(key, "must be a table")
        check_keys(key, t, {"name", "command", "url", "timeout", "headers"})
        name = t.get("name")
        if not isinstance(name, str) or not _REMOTE_NAME.match(name):
            raise err(f"{key}.name", "must be 1-64 lower-case letters, digits, '-' or '_'")
        if any(r.name == name for r in out):
            raise err(f"{key}.name", f"{name!r} is used twice")
        command, url = t.get("command"), t.get("url")
        if (command is None) == (url is None):
            raise err(key, "needs exactly one of command (a stdio server) or url (an HTTP server)")
        if command is not None and (
            not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command)
        ):
            raise err(f"{key}.command", "must be a non-empty list of strings (program and arguments)")
        if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
            raise err(f"{key}.url", "must be an http:// or https:// URL")
        timeout = t.get("timeout", 60)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 3600:
            raise err(f"{key}.timeout", "must be a number of seconds between 0 and 3600")
        headers = t.get("headers", {})
        if not isinstance(headers, dict) or not all(
            isinstance(k, str)
            and isinstance(v, str)
            and _HEADER_NAME.match(k)
            and "\n" not in v
            and "\r" not in v
            for k, v in headers.items()
        ):
            raise err(f"{key}.headers", "must be a table of HTTP header names to string values")
        if headers and url is None:
            raise err(f"{key}.headers", "only applies to a url remote")
        out.append(
            RemoteSkills(name, tuple(command or ()), url, float(timeout), tuple(sorted(headers.items())))
        )
    return tuple(out)


def _resolve(base: Path, raw: str) -> Path:
    p = Path(os.path.expanduser(raw))
    return p if p.is_absolute() else (base / p)


def _flatten(prefix: str, tbl: dict[str, Any], out: dict[str, Any]) -> None:
    """`[config] browser = {enabled = true}` and `"browser.enabled" = true` mean the same."""
    for k, v in tbl.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            _flatten(key, v, out)
        else:
            out[key] = v


# ---------------------------------------------------------------- writing


def update_config_file(path: Path, mutate: Any) -> None:
    """Apply `mutate(data: dict)` to the TOML file at `path` and write it back atomically."""
    import tomllib

    import tomli_w

    data: dict[str, Any] = {}
    if path.is_file():
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    mutate(data)
    parse_config(data, path)  # refuse to write something we could not read back
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


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


def _ray_settings(t: Any, err: Any, check_keys: Any, boolean: Any) -> RaySettings:
    if not isinstance(t, dict):
        raise err("execution.ray", "must be a table")
    keys = {
        "address",
        "worker_executor",
        "num_cpus",
        "resources",
        "runtime_env",
        "bin_resources",
        "connect_timeout",
    }
    check_keys("execution.ray", t, keys)
    address = t.get("address")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise err("execution.ray.address", 'must be "auto", "host:port" or "ray://host:port"')
    worker = t.get("worker_executor", "sandbox")
    if worker not in ("sandbox", "container"):
        raise err(
            "execution.ray.worker_executor", "must be sandbox or container (the boundary on every node)"
        )
    for key in ("num_cpus", "connect_timeout"):
        v = t.get(key, 1.0 if key == "num_cpus" else 15.0)
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 10_000:
            raise err(f"execution.ray.{key}", "must be a positive number")
    resources = t.get("resources", {})
    if not isinstance(resources, dict) or not all(
        isinstance(k, str) and not isinstance(v, bool) and isinstance(v, int | float) and v > 0
        for k, v in resources.items()
    ):
        raise err("execution.ray.resources", "must be a table of resource names to positive amounts")
    runtime_env = t.get("runtime_env")
    if runtime_env is not None and not isinstance(runtime_env, dict):
        raise err("execution.ray.runtime_env", "must be a table (Ray's runtime_env)")
    return RaySettings(
        address=address,
        worker_executor=worker,
        num_cpus=float(t.get("num_cpus", 1.0)),
        resources={k: float(v) for k, v in resources.items()},
        runtime_env=runtime_env,
        bin_resources=boolean("execution.ray.bin_resources", t.get("bin_resources", False)),
        connect_timeout=float(t.get("connect_timeout", 15.0)),
    )


#: JWS algorithms `[serve.auth] algorithms` may name (asymmetric only: the issuer's public keys verify)
JWT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")


def _serve_settings(t: Any, base: Path, err: Any, check_keys: Any, str_list: Any) -> ServeSettings:
    """`[serve]` and `[serve.auth]`; every URL must be https except on loopback, where http is allowed."""
    if not isinstance(t, dict):
        raise err("serve", "must be a table")
    check_keys("serve", t, {"allowed_hosts", "allowed_origins", "auth"})
    hosts = tuple(str_list("serve.allowed_hosts", t.get("allowed_hosts", [])))
    origins = tuple(str_list("serve.allowed_origins", t.get("allowed_origins", [])))
    for h in hosts:
        if not h.strip() or any(c in h for c in "/ \t\0"):
            raise err("serve.allowed_hosts", f"not a host[:port]: {h!r}")
    a = t.get("auth", {})
    if not isinstance(a, dict):
        raise err("serve.auth", "must be a table")
    check_keys(
        "serve.auth", a, {"issuer", "audience", "resource", "jwks_uri", "algorithms", "leeway", "token_file"}
    )
    urls: dict[str, str | None] = {}
    for key in ("issuer", "audience", "resource", "jwks_uri"):
        v = a.get(key)
        if v is not None and (not isinstance(v, str) or not v.strip()):
            raise err(f"serve.auth.{key}", "must be a non-empty string")
        urls[key] = v
    for key in ("issuer", "resource", "jwks_uri"):
        v = urls[key]
        if v is not None and not _secure_url(v):
            raise err(f"serve.auth.{key}", f"must be an https URL (http only for loopback hosts): {v!r}")
    if (urls["issuer"] is None) != (urls["audience"] is None):
        raise err("serve.auth", "issuer and audience go together: set both or neither")
    if urls["issuer"] is None and (urls["resource"] or urls["jwks_uri"]):
        raise err("serve.auth", "resource and jwks_uri need issuer and audience")
    algorithms = tuple(str_list("serve.auth.algorithms", a.get("algorithms", ["RS256"])))
    bad = [x for x in algorithms if x not in JWT_ALGORITHMS]
    if not algorithms or bad:
        raise err("serve.auth.algorithms", f"must be some of {', '.join(JWT_ALGORITHMS)} (got {bad or '[]'})")
    leeway = a.get("leeway", 30)
    if isinstance(leeway, bool) or not isinstance(leeway, int | float) or not 0 <= leeway <= 600:
        raise err("serve.auth.leeway", "must be a number of seconds between 0 and 600")
    token_file = a.get("token_file")
    if token_file is not None and (not isinstance(token_file, str) or not token_file.strip()):
        raise err("serve.auth.token_file", "must be a path string")
    return ServeSettings(
        allowed_hosts=hosts,
        allowed_origins=origins,
        auth=ServeAuthSettings(
            issuer=urls["issuer"],
            audience=urls["audience"],
            resource=urls["resource"],
            jwks_uri=urls["jwks_uri"],
            algorithms=algorithms,
            leeway=float(leeway),
            token_file=_resolve(base, token_file) if token_file else None,
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
