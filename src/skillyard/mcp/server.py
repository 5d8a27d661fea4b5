"""skillyard as an MCP server: the agent tools, the Skills extension, resources and prompts.

Built on the official SDK's `MCPServer`. The tool, resource and prompt lists
are not registered one by one: they are answered straight from the registry
(and the Toolkit), so a reload is visible on the next request and a catalog of
10,000 skills costs nothing until a client pages through it.

Per-client state (what the model loaded) lives in a `skillyard.session.Session`
chosen per request, never shared between clients:
- a handshake-era connection (stdio, legacy streamable HTTP, in-memory) keeps
  one Session for its lifetime, in the SDK's per-connection state;
- a 2026-07-28 connection over a duplex pipe (stdio) keeps one Session per pipe;
- the 2026-07-28 HTTP wire is stateless, so each request starts a fresh
  Session, unless the client echoes the `io.skillyard/session` value that every
  tool result carries in `_meta` (an unguessable id the server minted).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    PaginatedRequestParams,
    PromptArgument,
    PromptMessage,
    Resource,
    TextContent,
    Tool,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skillyard.mcp.auth import TokenVerifier, granted_scopes
from skillyard.mcp.catalog import (
    SKILL_FILE,
    CatalogError,
    SkillCatalog,
    decode_cursor,
    encode_cursor,
    mime_type,
    skill_uri,
)
from skillyard.mcp.prompts import MAX_ARGUMENTS_CHARS, substitute
from skillyard.mcp.skills_extension import DEFAULT_PAGE_SIZE, SkillsExtension
from skillyard.model import Skill
from skillyard.registry import Registry

if TYPE_CHECKING:
    from skillyard.tools.install_gate import ApproveInstall

log = logging.getLogger("skillyard.mcp")

SESSION_META_KEY = "io.skillyard/session"
#: resources per `resources/list` page, prompts per `prompts/list` page
RESOURCE_PAGE_SIZE = 500
PROMPT_PAGE_SIZE = 200
#: sessions kept for clients that echo their id on the stateless wire
MAX_ECHO_SESSIONS = 4096
#: debounce for --watch, in milliseconds
WATCH_DEBOUNCE_MS = 300

INSTRUCTIONS = (
    "skillyard serves Agent Skills. Use the `skills` tool to list, search and inspect skills, "
    "`skill_load` to read a skill's instructions before following them, and `skill_run` to run a "
    "skill's scripts in an isolated workspace. Clients of the MCP Skills extension can also use "
    "skills/list and skills/get; every file is a skill:// resource."
)


def _new_session() -> Any:
    from skillyard.session import Session

    return Session()


def _session_id(session: Any) -> str:
    sid = getattr(session, "session_id", None)
    return sid if isinstance(sid, str) and sid else secrets.token_hex(16)


class _SessionStore:
    """Sessions by transport identity or by echoed id; bounded, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: OrderedDict[str, tuple[Any, anyio.Lock]] = OrderedDict()
        self._by_pipe: weakref.WeakKeyDictionary[Any, tuple[str, Any, anyio.Lock]] = (
            weakref.WeakKeyDictionary()
        )

    def _remember(self, sid: str, session: Any, lock: anyio.Lock) -> None:
        self._by_id[sid] = (session, lock)
        self._by_id.move_to_end(sid)
        while len(self._by_id) > MAX_ECHO_SESSIONS:
            self._by_id.popitem(last=False)

    def resolve(self, ctx: ServerRequestContext[Any, Any]) -> tuple[str, Any, anyio.Lock]:
        """(session id, Session, per-session lock) for this request."""
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        echoed = meta.get(SESSION_META_KEY)
        with self._lock:
            if isinstance(echoed, str) and echoed in self._by_id:
                session, lock = self._by_id[echoed]
                self._by_id.move_to_end(echoed)
                return echoed, session, lock
            # The SDK keeps one Connection per handshake-era client; its `state` dict is per-connection scratch.
            connection = getattr(ctx.session, "_connection", None)
            if connection is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                held = connection.state.get("skillyard.session")
                if held is None:
                    session = _new_session()
                    held = (_session_id(session), session, anyio.Lock())
                    connection.state["skillyard.session"] = held
                    self._remember(*held)
                return held
            pipe = getattr(connection, "outbound", None) if connection is not None else None
            if pipe is not None and getattr(connection, "has_standalone_channel", False):
                held = self._by_pipe.get(pipe)
                if held is None:
                    session = _new_session()
                    held = (_session_id(session), session, anyio.Lock())
                    self._by_pipe[pipe] = held
                    self._remember(*held)
                return held
            session = _new_session()
            sid = _session_id(session)
            lock = anyio.Lock()
            self._remember(sid, session, lock)
            return sid, session, lock


class SkillyardServer(MCPServer):
    """MCPServer whose tools, resources and prompts come from a live Registry."""

    def __init__(
        self,
        registry: Registry,
        *,
        tools: Sequence[str] | None = None,
        watch: bool = False,
        page_size: int = DEFAULT_PAGE_SIZE,
        name: str = "skillyard",
        log_level: str = "WARNING",
        approve_install: ApproveInstall | None = None,
    ) -> None:
        if approve_install is not None and not callable(approve_install):
            raise ValueError("approve_install must be callable (request) -> bool")
        self.registry = registry
        #: passed to the Toolkit: asked before the `skills` tool installs what a client's model asked for
        self._approve_install = approve_install
        self.catalog = SkillCatalog(registry)
        self.skills_extension = SkillsExtension(self.catalog, page_size=page_size)
        self.watch = watch
        self._tool_names = None if tools is None else list(tools)
        self._toolkit: Any = None
        self._toolkit_error: str | None = None
        self._tools_cache: tuple[int, list[Tool]] | None = None
        self._sessions = _SessionStore()
        #: set by http_app(stateless=True): no session outlives its request (replicas share nothing)
        self.stateless = False
        self._legacy_connections: weakref.WeakSet[Any] = weakref.WeakSet()
        self._notified_version = registry.version
        self._notify_lock = anyio.Lock()
        self._watchers = 0
        self._watch_stop: anyio.Event | None = None
        from skillyard import __version__

        super().__init__(
            name,
            version=__version__,
            instructions=INSTRUCTIONS,
            extensions=[self.skills_extension],
            lifespan=_lifespan,
            middleware=[self._track_connection],
            log_level=log_level,  # type: ignore[arg-type]
        )
        low = self._lowlevel_server
        # Paginated lists (the SDK's defaults return everything in one page).
        low.add_request_handler("resources/list", PaginatedRequestParams, self._list_resources_page)
        low.add_request_handler("prompts/list", PaginatedRequestParams, self._list_prompts_page)
        # Handshake-era clients learn about list changes only if the capabilities say so.
        options = NotificationOptions(prompts_changed=watch, resources_changed=watch, tools_changed=watch)
        original = low.create_initialization_options

        def create_initialization_options(
            notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None,
        ) -> Any:
            return original(notification_options or options, experimental_capabilities, extensions)

        low.create_initialization_options = create_initialization_options  # type: ignore[method-assign]

    async def run_stdio_async(self) -> None:
        """The SDK's serving loop over skillyard's stdio framing: a malformed line gets its error reply."""
        from skillyard.mcp.stdio import stdio_transport

        low = self._lowlevel_server
        async with stdio_transport() as (read_stream, write_stream):
            await low.run(read_stream, write_stream, low.create_initialization_options())

    def http_app(
        self,
        *,
        host: str = "127.0.0.1",
        stateless: bool = False,
        verifier: TokenVerifier | None = None,
        issuer: str | None = None,
        resource: str | None = None,
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
    ) -> Any:
        """The streamable-HTTP ASGI app skillyard serves: Host/Origin checks always, the bearer-token gate
        when a verifier is given, and no server-side session with `stateless` (for replicas)."""
        from skillyard.mcp.auth import AuthGate

        self.stateless = stateless
        security = transport_security(host, allowed_hosts, allowed_origins)
        app = self.streamable_http_app(host=host, stateless_http=stateless, transport_security=security)
        if verifier is not None:
            app.add_middleware(AuthGate, verifier=verifier, issuer=issuer, resource=resource)
        return app

    def streamable_http_app(self, **kwargs: Any) -> Any:  # type: ignore[override]
        """The SDK's app with a malformed POST body answered 400 and its JSON-RPC error, never 202."""
        from skillyard.mcp.http_guard import MalformedBodyGuard

        app = super().streamable_http_app(**kwargs)
        manager = self._lowlevel_server.session_manager
        app.add_middleware(
            MalformedBodyGuard,
            path=kwargs.get("streamable_http_path", "/mcp").rstrip("/"),
            security=manager.security_settings,
            max_body_bytes=manager.max_request_body_size,
            json_response=manager.json_response,
        )
        return app

    # ------------------------------------------------------------ toolkit

    @property
    def toolkit(self) -> Any:
        """The Toolkit in load mode "result" (the host owns its system prompt); None if unavailable."""
        if self._toolkit is None and self._toolkit_error is None:
            try:
                from skillyard.tools import Toolkit

                self._toolkit = Toolkit(
                    self.registry,
                    load_mode="result",
                    tools=self._tool_names,
                    approve_install=self._approve_install,
                )
            except Exception as e:  # the extension and resources still work without tools
                self._toolkit_error = f"{type(e).__name__}: {e}"
                log.error("agent tools unavailable: %s", self._toolkit_error)
        return self._toolkit

    def close(self) -> None:
        """Release every session's skill_run workspace (serving has ended); the server stays usable."""
        if self._toolkit is not None:
            self._toolkit.close()

    def _tool_defs(self) -> list[Tool]:
        version = self.registry.version
        if self._tools_cache is not None and self._tools_cache[0] == version:
            return self._tools_cache[1]
        kit = self.toolkit
        out: list[Tool] = []
        if kit is not None:
            for d in kit.definitions():
                schema = dict(d.parameters) if isinstance(d.parameters, dict) else {"type": "object"}
                schema.setdefault("type", "object")
                out.append(Tool(name=d.name, description=d.description, input_schema=schema))
        self._tools_cache = (version, out)
        return out

    async def list_tools(self) -> list[Tool]:
        return self._tool_defs()

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        for t in self._tool_defs():
            if t.name == name:
                return dict(t.input_schema)
        return None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:  # type: ignore[override]
        kit = self.toolkit
        if kit is None:
            return _error_result(f"Error: tools are unavailable ({self._toolkit_error})")
        rctx = getattr(context, "request_context", None) if context is not None else None
        missing = self._missing_scope(rctx, name, arguments)
        if missing is not None:
            return _error_result(
                json.dumps({"error": f"this token lacks the scope {missing}, which {name} needs"}),
            )
        if rctx is None or self.stateless:
            sid, session, lock = "", _new_session(), anyio.Lock()
        else:
            sid, session, lock = self._sessions.resolve(rctx)
        before = self.registry.version
        async with lock:
            try:
                res = await anyio.to_thread.run_sync(lambda: kit.call(name, arguments, session=session))
            except (
                Exception
            ) as e:  # the Toolkit promises results, never exceptions; keep that promise here too
                log.exception("tool %r raised", name)
                return _error_result(f"Error: {type(e).__name__}: {e}", sid)
            finally:
                if not sid:  # nobody can come back to this session: its skill_run workspace goes now
                    await anyio.to_thread.run_sync(kit.close_session, session)
        if self.registry.version != before:
            await self.notify_changed()
        return _tool_result(res, sid)

    def _missing_scope(self, rctx: Any, name: str, arguments: Any) -> str | None:
        """The scope this call needs that the request's token lacks (None: allowed, or no auth in play)."""
        from skillyard.mcp.auth import required_scope
        from skillyard.model import BUILTIN_TOOL_NAMES

        granted = granted_scopes(rctx)
        if granted is None:
            return None
        needed = required_scope(name, arguments, BUILTIN_TOOL_NAMES)
        return needed if needed is not None and needed not in granted else None

    # ------------------------------------------------------------ resources

    async def _list_resources_page(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams
    ) -> ListResourcesResult:
        return await anyio.to_thread.run_sync(self.resources_page, params.cursor)

    def resources_page(self, cursor: str | None) -> ListResourcesResult:
        """Every file of every served skill, sorted by (skill, path), RESOURCE_PAGE_SIZE at a time."""
        try:
            after = decode_cursor("resources", cursor)
        except CatalogError as e:
            raise MCPError(INVALID_PARAMS, str(e)) from None
        after_skill, _, after_rel = (after or "").partition("\n")
        out: list[Resource] = []
        last: tuple[str, str] | None = None
        full = False
        for skill in self._skills_from(after_skill or None):
            for rel, size in self._files_with_sizes(skill):
                if skill.name == after_skill and rel <= after_rel:
                    continue
                if len(out) >= RESOURCE_PAGE_SIZE:
                    full = True
                    break
                out.append(self._resource(skill, rel, size))
                last = (skill.name, rel)
            if full:
                break
        result = ListResourcesResult(resources=out)
        if full and last is not None:
            result.next_cursor = encode_cursor("resources", f"{last[0]}\n{last[1]}")
        return result

    def _skills_from(self, name: str | None) -> Iterable[Skill]:
        """Served skills sorted by name, starting at `name` (inclusive)."""
        page, after = self.catalog.page(name, 256, inclusive=True)
        while True:
            yield from page
            if after is None:
                return
            page, after = self.catalog.page(after, 256)

    def _files_with_sizes(self, skill: Skill) -> list[tuple[str, int | None]]:
        out: list[tuple[str, int | None]] = []
        for rel, path in self.catalog._listed_files(skill):
            try:
                out.append((rel, os.stat(path, follow_symlinks=False).st_size))
            except OSError:
                continue
        return out

    def _resource(self, skill: Skill, rel: str, size: int | None) -> Resource:
        is_main = rel == SKILL_FILE
        return Resource(
            uri=skill_uri(skill.name, rel),
            name=skill.name if is_main else rel,
            description=skill.description if is_main else None,
            mime_type=mime_type(rel),
            size=size,
        )

    async def read_resource(self, uri: Any, context: Any = None) -> Iterable[ReadResourceContents]:  # type: ignore[override]
        try:
            data, mime, _skill, _rel = await anyio.to_thread.run_sync(self.catalog.read, str(uri))
        except CatalogError as e:
            raise ResourceNotFoundError(str(e)) from None
        # Text only when the bytes are strict UTF-8, so text.encode("utf-8") gives back exactly the
        # bytes the manifest digest was computed over; everything else is served as a blob.
        if mime.startswith("text/") or mime in ("application/json", "application/toml", "application/yaml"):
            try:
                return [ReadResourceContents(content=data.decode("utf-8"), mime_type=mime)]
            except UnicodeDecodeError:
                pass
        return [ReadResourceContents(content=data, mime_type=mime)]

    # ------------------------------------------------------------ prompts

    def _prompt_skill(self, skill: Skill) -> bool:
        return bool(skill.user_invocable)

    async def _list_prompts_page(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams
    ) -> ListPromptsResult:
        return await anyio.to_thread.run_sync(self.prompts_page, params.cursor)

    def prompts_page(self, cursor: str | None) -> ListPromptsResult:
        """One prompt per served, user-invocable skill (slash commands for prompt-only hosts)."""
        from mcp_types import Prompt

        try:
            after = decode_cursor("prompts", cursor)
        except CatalogError as e:
            raise MCPError(INVALID_PARAMS, str(e)) from None
        skills, next_after = self.catalog.page(after, PROMPT_PAGE_SIZE, self._prompt_skill)
        prompts = [
            Prompt(
                name=s.name,
                description=s.description,
                arguments=[
                    PromptArgument(
                        name="arguments",
                        description=s.argument_hint or "Arguments for the skill, as typed after the command",
                        required=False,
                    )
                ],
            )
            for s in skills
        ]
        result = ListPromptsResult(prompts=prompts)
        if next_after is not None:
            result.next_cursor = encode_cursor("prompts", next_after)
        return result

    async def get_prompt(  # type: ignore[override]
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> GetPromptResult:
        return await anyio.to_thread.run_sync(self.render_prompt, name, arguments)

    def render_prompt(self, name: str, arguments: dict[str, Any] | None) -> GetPromptResult:
        skill = self.catalog.served_skill(name) if isinstance(name, str) else None
        if skill is None or not self._prompt_skill(skill):
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {str(name)[:200]}")
        args = (arguments or {}).get("arguments", "")
        if not isinstance(args, str):
            raise MCPError(INVALID_PARAMS, "Prompt argument 'arguments' must be a string")
        if len(args) > MAX_ARGUMENTS_CHARS:
            raise MCPError(
                INVALID_PARAMS, f"Prompt argument 'arguments' exceeds {MAX_ARGUMENTS_CHARS} characters"
            )
        try:
            body = skill.body()
        except Exception as e:
            raise MCPError(INTERNAL_ERROR, f"Cannot read skill {skill.name}: {type(e).__name__}") from None
        text = substitute(body, args, names=skill.arguments, skill_dir=str(skill.root))
        return GetPromptResult(
            description=skill.description,
            messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
        )

    # ------------------------------------------------------------ change notifications

    async def _track_connection(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Remember handshake-era connections: list-changed notifications go to them directly."""
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._legacy_connections.add(connection)
        return await call_next(ctx)

    async def notify_changed(self) -> None:
        """Tell every client that tools, resources and prompts may have changed (once per registry version)."""
        async with self._notify_lock:
            version = self.registry.version
            if version == self._notified_version:
                return
            self._notified_version = version
            self._tools_cache = None
            for event in (ToolsListChanged(), ResourcesListChanged(), PromptsListChanged()):
                await self._subscriptions.publish(event)
            for connection in list(self._legacy_connections):
                if not getattr(connection, "initialized", None) or not connection.initialized.is_set():
                    continue
                for method in (
                    "notifications/tools/list_changed",
                    "notifications/resources/list_changed",
                    "notifications/prompts/list_changed",
                ):
                    try:
                        await connection.outbound.notify(method, None)
                    except Exception:  # a closed connection must not stop the others
                        self._legacy_connections.discard(connection)
                        break

    async def reload(self, changed: list[str] | None = None) -> None:
        """Re-scan the registry off the event loop, then notify clients if anything changed.

        `changed` (the watcher's paths) lets the registry re-read just those files.
        """
        await anyio.to_thread.run_sync(self.registry.reload, changed)
        await self.notify_changed()

    async def _watch_loop(self, stop: anyio.Event) -> None:
        import watchfiles

        paths = [str(r.path) for r in self.registry.roots if Path(r.path).is_dir()]
        if not paths:
            log.warning("--watch: none of the skill roots exists; nothing to watch")
            await stop.wait()
            return
        log.info("watching %s", ", ".join(paths))
        async for changes in watchfiles.awatch(*paths, debounce=WATCH_DEBOUNCE_MS, step=50, stop_event=stop):
            try:
                await self.reload([path for _change, path in changes])
            except Exception:
                log.exception("reload after a file change failed")

    @asynccontextmanager
    async def _watching(self) -> AsyncIterator[None]:
        """One watcher per server, however many connections' lifespans are open."""
        if not self.watch:
            yield
            return
        self._watchers += 1
        if self._watchers > 1:
            try:
                yield
            finally:
                self._watchers -= 1
            return
        stop = anyio.Event()
        self._watch_stop = stop
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._watch_loop, stop)
                try:
                    yield
                finally:
                    stop.set()
                    tg.cancel_scope.cancel()
        finally:
            self._watchers -= 1
            self._watch_stop = None


@asynccontextmanager
async def _lifespan(server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    assert isinstance(server, SkillyardServer)
    async with server._watching():
        yield {}


def _error_result(text: str, sid: str = "") -> CallToolResult:
    meta = {SESSION_META_KEY: sid} if sid else None
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True, _meta=meta)


def _tool_result(res: Any, sid: str) -> CallToolResult:
    """ToolResult -> CallToolResult: text content, `is_error`, and structured content for JSON objects."""
    text = getattr(res, "content", res)
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    structured: dict[str, Any] | None = None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            structured = parsed
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=bool(getattr(res, "is_error", False)),
        _meta={SESSION_META_KEY: sid} if sid else None,
    )


LOOPBACK_HOST_PATTERNS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGIN_PATTERNS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


def transport_security(
    host: str, allowed_hosts: Sequence[str] = (), allowed_origins: Sequence[str] = ()
) -> TransportSecuritySettings:
    """DNS-rebinding protection for any bind address: loopback names, the bind address itself (unless it is
    a wildcard) and the configured names are the only Host values served; Origin likewise."""
    hosts = list(LOOPBACK_HOST_PATTERNS)
    origins = list(LOOPBACK_ORIGIN_PATTERNS)
    bind = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if host not in ("0.0.0.0", "::", "") and f"{bind}:*" not in hosts:
        hosts += [bind, f"{bind}:*"]
        origins += [f"http://{bind}:*", f"https://{bind}"]
    for h in allowed_hosts:
        hosts += [h] if ":" in h.rsplit("]", 1)[-1] else [h, f"{h}:*"]
    origins += list(allowed_origins)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def build_server(
    registry: Registry,
    *,
    tools: Sequence[str] | None = None,
    watch: bool = False,
    page_size: int = DEFAULT_PAGE_SIZE,
    approve_install: ApproveInstall | None = None,
) -> SkillyardServer:
    """An MCP server over `registry`: `tools` limits the agent tools (None = all), `watch` reloads on change,
    `approve_install` is the Toolkit's (see `skillyard.tools.Toolkit`; called from a worker thread)."""
    return SkillyardServer(
        registry, tools=tools, watch=watch, page_size=page_size, approve_install=approve_install
    )
