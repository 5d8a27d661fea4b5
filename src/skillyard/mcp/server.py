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
import stat
import threading
import weakref
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    EmptyResult,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    PaginatedRequestParams,
    PromptArgument,
    PromptMessage,
    Resource,
    ResourceTemplate,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    Tool,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skillyard._shown import shown
from skillyard.mcp.auth import (
    SCOPE_RUN,
    TokenVerifier,
    granted_scopes,
    principal,
    required_scope,
    skills_action,
)
from skillyard.mcp.catalog import (
    SKILL_FILE,
    CatalogError,
    SkillCatalog,
    decode_cursor,
    encode_cursor,
    mime_type,
    skill_uri,
)
from skillyard.mcp.prompts import (
    CATALOG_PROMPT,
    CATALOG_PROMPT_DESCRIPTION,
    MAX_ARGUMENTS_CHARS,
    catalog_text,
)
from skillyard.mcp.skills_extension import DEFAULT_PAGE_SIZE, SkillsExtension
from skillyard.model import BUILTIN_TOOL_NAMES, Skill
from skillyard.parsing import load_body
from skillyard.registry import Registry
from skillyard.session import Session, catalog_offset
from skillyard.tools.arguments import substitute_arguments

if TYPE_CHECKING:
    from skillyard.tools.base import ToolResult
    from skillyard.tools.install_gate import ApproveInstall

log = logging.getLogger("skillyard.mcp")

SESSION_META_KEY = "io.skillyard/session"
#: resources per `resources/list` page, prompts per `prompts/list` page
RESOURCE_PAGE_SIZE = 500
PROMPT_PAGE_SIZE = 200
#: sessions kept for clients that echo their id on the stateless wire
MAX_ECHO_SESSIONS = 4096
#: of those, one client's sessions whose id has not come back yet (most clients never echo it; each may hold a
#: workspace)
MAX_UNECHOED_SESSIONS = 256
#: worker threads for calls that run commands: their own, so long runs never hold the threads reads need
MAX_CONCURRENT_RUNS = 40
#: debounce for --watch, in milliseconds
WATCH_DEBOUNCE_MS = 300
#: the resource template every skill file matches (RFC 6570 reserved expansion keeps the slashes of `path`)
SKILL_TEMPLATE = "skill://{skill}/{+path}"
#: resources/subscribe entries one handshake-era connection may hold
MAX_SUBSCRIPTIONS = 1024
#: seconds a handshake-era connection may take to accept one notification before it is skipped
NOTIFY_TIMEOUT_S = 2.0
#: completion/complete answers at most this many values (the protocol's limit)
MAX_COMPLETIONS = 100
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: `skills` actions after which the lists may differ
MUTATING_ACTIONS = frozenset({"reload", "enable", "disable", "install"})
_LIST_METHODS = (
    ("notifications/tools/list_changed", ToolsListChanged),
    ("notifications/resources/list_changed", ResourcesListChanged),
    ("notifications/prompts/list_changed", PromptsListChanged),
)

INSTRUCTIONS = (
    "skillyard serves Agent Skills. Use the `skills` tool to list, search and inspect skills, "
    "`skill_load` to read a skill's instructions before following them, and `skill_run` to run a "
    "skill's scripts in an isolated workspace. Clients of the MCP Skills extension can also use "
    "skills/list and skills/get; every file is a skill:// resource."
)


def _connection(ctx: Any) -> Any:
    """The SDK's per-client `Connection` behind a request, or None.

    mcp 2.x hands low-level handlers a `ServerRequestContext` whose `session` wraps the connection but
    exposes no public way to reach it (`Context.connection` exists, yet the runner does not build that
    context). Its `state` dict is per-connection scratch and `outbound` its standalone channel; this is
    the one place skillyard reads the private attribute.
    """
    return getattr(getattr(ctx, "session", None), "_connection", None)


def _catalog_offset(ctx: Any) -> int:
    """Where the catalog prompt's window of described skills starts for this client.

    The session id the client echoes (the tools' system message starts its window there too), else
    one drawn per connection, else one per request: never the same skills undescribed for every host.
    """
    meta = getattr(ctx, "meta", None)
    echoed = meta.get(SESSION_META_KEY) if isinstance(meta, dict) else None
    if isinstance(echoed, str):
        return catalog_offset(echoed)
    connection = _connection(ctx)
    state = getattr(connection, "state", None)
    if isinstance(state, dict):
        return state.setdefault("skillyard.catalog_offset", secrets.randbits(31))
    return secrets.randbits(31)


class _SessionStore:
    """Sessions by transport identity or by echoed id (with the token that opened it); bounded, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: OrderedDict[tuple[str | None, str], tuple[Session, anyio.Lock]] = OrderedDict()
        self._unechoed: OrderedDict[tuple[str | None, str], None] = OrderedDict()
        self._by_pipe: weakref.WeakKeyDictionary[Any, tuple[str, Session, anyio.Lock]] = (
            weakref.WeakKeyDictionary()
        )
        #: sessions pushed out by newer ones, whose skill_run workspaces are still to be released
        self.evicted: list[tuple[Session, anyio.Lock]] = []
        #: keys of sessions whose 2025-era connection has closed (appended without the lock, which
        #: the request being served may hold; `take_evicted` moves them over)
        self._ended: deque[tuple[str | None, str]] = deque()

    def _new(self, owner: str | None, unechoed: bool = False) -> tuple[str, Session, anyio.Lock]:
        session = Session()
        held = (session.session_id, session, anyio.Lock())
        self._by_id[owner, held[0]] = held[1:]
        if unechoed:
            self._unechoed[owner, held[0]] = None
            # each client's own oldest goes: another's fresh session is not pushed out by a flood
            mine = [k for k in self._unechoed if k[0] == owner]
        else:
            mine = []
        while len(self._by_id) > MAX_ECHO_SESSIONS or len(mine) > MAX_UNECHOED_SESSIONS:
            key = mine.pop(0) if len(mine) > MAX_UNECHOED_SESSIONS else next(iter(self._by_id))
            self._unechoed.pop(key, None)
            self.evicted.append(self._by_id.pop(key))
        return held

    def take_evicted(self) -> list[tuple[Session, anyio.Lock]]:
        """The sessions pushed out since the last call, each handed out once."""
        with self._lock:
            while self._ended:
                ended = self._by_id.pop(self._ended.popleft(), None)
                if ended is not None:
                    self.evicted.append(ended)
            taken, self.evicted = self.evicted, []
        return taken

    def resolve(self, ctx: ServerRequestContext[Any, Any]) -> tuple[str, Session, anyio.Lock]:
        """(session id, Session, per-session lock) for this request."""
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        echoed, owner = meta.get(SESSION_META_KEY), principal(ctx)
        with self._lock:
            if isinstance(echoed, str) and (owner, echoed) in self._by_id:
                self._by_id.move_to_end((owner, echoed))
                self._unechoed.pop((owner, echoed), None)
                return (echoed, *self._by_id[owner, echoed])
            connection = _connection(ctx)
            if connection is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                if "skillyard.session" not in connection.state:
                    held = connection.state["skillyard.session"] = self._new(owner)
                    # the connection is the session: once the SDK closes it (the client did, or it was
                    # idle past its timeout) nobody comes back to it, and its workspace goes with the
                    # next call; not left to the collector, which may reach a long-lived connection late
                    connection.exit_stack.callback(self._ended.append, (owner, held[0]))
                return connection.state["skillyard.session"]
            pipe = getattr(connection, "outbound", None) if connection is not None else None
            if pipe is not None and getattr(connection, "has_standalone_channel", False):
                if pipe not in self._by_pipe:
                    self._by_pipe[pipe] = self._new(owner)
                return self._by_pipe[pipe]
            return self._new(owner, unechoed=True)


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
        self._run_limiter: anyio.CapacityLimiter | None = None
        #: set by http_app(stateless=True): no session outlives its request (replicas share nothing)
        self.stateless = False
        self._legacy_connections: weakref.WeakSet[Any] = weakref.WeakSet()
        self._notified_version = registry.version
        #: fingerprints of (tools, resources, prompts) as last announced; None until first needed
        self._lists: tuple[int, int, int] | None = None
        self._notify_lock = anyio.Lock()
        self._watchers = 0
        from skillyard import __version__

        super().__init__(
            name,
            version=__version__,
            instructions=INSTRUCTIONS,
            extensions=[self.skills_extension],
            lifespan=_lifespan,
            middleware=[self._track_connection, self._advertise_list_changed],
            log_level=log_level,  # type: ignore[arg-type]
        )
        low = self._lowlevel_server
        # Paginated lists (the SDK's defaults return everything in one page).
        low.add_request_handler("resources/list", PaginatedRequestParams, self._list_resources_page)
        low.add_request_handler("prompts/list", PaginatedRequestParams, self._list_prompts_page)
        low.add_request_handler("completion/complete", CompleteRequestParams, self._complete)
        # Handshake-era only (2026-07-28 dropped both): the SDK dispatches them only on that wire.
        low.add_request_handler("logging/setLevel", SetLevelRequestParams, self._set_level)
        if watch:  # only a watcher sees files change, so only then is `subscribe` true
            low.add_request_handler("resources/subscribe", SubscribeRequestParams, self._subscribe)
            low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self._unsubscribe)

    async def run_stdio_async(self) -> None:
        """The SDK's serving loop over skillyard's stdio framing: a malformed line gets its error reply."""
        from skillyard.mcp._stdio import stdio_transport

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
        handshake_json: bool = True,
    ) -> Any:
        """The streamable-HTTP ASGI app skillyard serves: Host/Origin checks always, the bearer-token gate
        when a verifier is given, and no server-side session with `stateless` (for replicas).
        `handshake_json=False` answers 2025-era calls with SSE streams (see `skillyard.mcp._http_app`)."""
        from skillyard.mcp.auth import AuthGate

        self.stateless = stateless
        security = host_security(host, allowed_hosts, allowed_origins)
        app = self.streamable_http_app(
            host=host, stateless_http=stateless, transport_security=security, handshake_json=handshake_json
        )
        if verifier is not None:
            app.add_middleware(
                AuthGate,
                verifier=verifier,
                issuer=issuer,
                resource=resource,
                allowed_hosts=security.allowed_hosts,
            )
        return app

    def streamable_http_app(  # type: ignore[override]
        self,
        *,
        streamable_http_path: str = "/mcp",
        json_response: bool = False,
        stateless_http: bool = False,
        transport_security: TransportSecuritySettings | None = None,
        host: str = "127.0.0.1",
        handshake_json: bool = True,
        **manager_options: Any,
    ) -> Any:
        """The streamable-HTTP app: one session manager per protocol era (see `skillyard.mcp._http_app`,
        why 2025-era calls are answered with JSON unless `handshake_json=False`), and a malformed POST
        body answered 400 with its JSON-RPC error, never 202."""
        from skillyard.mcp._http_app import era_app
        from skillyard.mcp._http_guard import MalformedBodyGuard

        security = transport_security if transport_security is not None else host_security(host)
        app, manager = era_app(
            self._lowlevel_server,
            path=streamable_http_path,
            stateless=stateless_http,
            security=security,
            handshake_json=handshake_json or json_response,
            modern_json=json_response,
            # uvicorn stops on SIGTERM by raising it again once the app has shut down: the command's
            # own clean-up never runs, so the workspaces of every client session go here
            on_shutdown=self.close,
            **manager_options,
        )
        app.add_middleware(
            MalformedBodyGuard,
            path=streamable_http_path.rstrip("/"),
            security=manager.security_settings,
            max_body_bytes=manager.max_request_body_size,
            json_response=json_response,
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
        return next((dict(t.input_schema) for t in self._tool_defs() if t.name == name), None)

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
            sid, session, lock = "", Session(), anyio.Lock()
        else:
            sid, session, lock = self._sessions.resolve(rctx)
        if name == "skills" and skills_action(arguments) in MUTATING_ACTIONS and self._lists is None:
            self._lists = await anyio.to_thread.run_sync(self._fingerprints)
        before = self.registry.version
        limiter = None
        if required_scope(name, arguments, BUILTIN_TOOL_NAMES) == SCOPE_RUN:
            if self._run_limiter is None:
                self._run_limiter = anyio.CapacityLimiter(MAX_CONCURRENT_RUNS)
            limiter = self._run_limiter
        async with lock:
            try:
                # a client's notifications/cancelled cancels this handler: acall stops a run in flight
                res = await kit.acall(name, arguments, session, limiter=limiter)
            # the Toolkit promises results, never exceptions; keep that promise here too
            except Exception as e:
                log.exception("tool %r raised", name)
                return _error_result(f"Error: {type(e).__name__}: {e}", sid)
            finally:
                if not sid:  # nobody can come back to this session: its skill_run workspace goes now
                    with anyio.CancelScope(shield=True):  # a cancelled call's too
                        await anyio.to_thread.run_sync(kit.close_session, session)
        # sessions pushed out of the store release their workspaces (a client that never echoes its id
        # gets a new session per call)
        for old, old_lock in self._sessions.take_evicted():
            async with old_lock:
                await anyio.to_thread.run_sync(kit.close_session, old)
        if self.registry.version != before:
            await self.notify_changed()
        await self._log_call(rctx, name, arguments, res)
        return _tool_result(res, sid)

    def _missing_scope(self, rctx: Any, name: str, arguments: Any) -> str | None:
        """The scope this call needs that the request's token lacks (None: allowed, or no auth in play)."""
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
        files = (
            (skill, rel, size)
            for skill in self._skills_from(after_skill or None)
            for rel, size in self._files_with_sizes(skill)
            if skill.name != after_skill or rel > after_rel
        )
        page = list(islice(files, RESOURCE_PAGE_SIZE + 1))  # one more says whether a next page exists
        result = ListResourcesResult(resources=[self._resource(*f) for f in page[:RESOURCE_PAGE_SIZE]])
        if len(page) > RESOURCE_PAGE_SIZE:
            last_skill, last_rel, _ = page[RESOURCE_PAGE_SIZE - 1]
            result.next_cursor = encode_cursor("resources", f"{last_skill.name}\n{last_rel}")
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
            description=shown(skill.description) if is_main else None,
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
            with suppress(UnicodeDecodeError):
                return [ReadResourceContents(content=data.decode("utf-8"), mime_type=mime)]
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
                description=shown(s.description),
                arguments=[
                    PromptArgument(
                        name="arguments",
                        description=shown(
                            s.argument_hint or "Arguments for the skill, as typed after the command"
                        ),
                        required=False,
                    )
                ],
            )
            for s in skills
        ]
        if cursor is None:
            catalog = Prompt(
                name=CATALOG_PROMPT,
                description=CATALOG_PROMPT_DESCRIPTION,
                arguments=[PromptArgument(name="query", description="The user's request", required=False)],
            )
            prompts.insert(0, catalog)
        result = ListPromptsResult(prompts=prompts)
        if next_after is not None:
            result.next_cursor = encode_cursor("prompts", next_after)
        return result

    async def get_prompt(  # type: ignore[override]
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> GetPromptResult:
        rctx = getattr(context, "request_context", None) if context is not None else None
        return await anyio.to_thread.run_sync(self.render_prompt, name, arguments, _catalog_offset(rctx))

    def render_prompt(self, name: str, arguments: dict[str, Any] | None, offset: int = 0) -> GetPromptResult:
        if name == CATALOG_PROMPT:
            query = (arguments or {}).get("query")
            if query is not None and not isinstance(query, str):
                raise MCPError(INVALID_PARAMS, "Prompt argument 'query' must be a string")
            try:
                text = catalog_text(self.registry, query, offset)
            except ValueError as e:
                raise MCPError(INVALID_PARAMS, str(e)) from None
            return GetPromptResult(
                description=CATALOG_PROMPT_DESCRIPTION,
                messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
            )
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
            body = shown(load_body(skill))  # hidden characters spelled out, as in every other surface
        except (FileNotFoundError, NotADirectoryError):  # removed since the last reload, as resources say
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name} (its skill is gone)") from None
        except Exception as e:
            raise MCPError(INTERNAL_ERROR, f"Cannot read skill {skill.name}: {type(e).__name__}") from None
        try:
            text = substitute_arguments(
                body, args, names=skill.arguments, env={"CLAUDE_SKILL_DIR": str(skill.root)}
            )
        except ValueError as e:
            raise MCPError(INVALID_PARAMS, f"Prompt argument 'arguments': {e}") from None
        return GetPromptResult(
            description=shown(skill.description),
            messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
        )

    # ------------------------------------------------------------ change notifications

    async def _track_connection(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Remember handshake-era connections (every request passes here first, resources/subscribe and
        logging/setLevel included): list-changed notifications go to them directly."""
        connection = _connection(ctx)
        if connection is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._legacy_connections.add(connection)
        return await call_next(ctx)

    async def _advertise_list_changed(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Handshake-era `initialize`: `listChanged` is true only with --watch, the one case the server sends
        list-changed notifications to those clients (the SDK's own default says false)."""
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                for kind in ("tools", "resources", "prompts"):
                    entry = capabilities.get(kind)
                    if isinstance(entry, dict):
                        entry["listChanged"] = self.watch
        return result

    def _fingerprints(self) -> tuple[int, int, int]:
        """What each list holds now, hashed: tools (names, descriptions, schemas), resource URIs, prompts."""
        self._tools_cache = None
        tools = hash(
            tuple(
                (t.name, t.description, json.dumps(t.input_schema, sort_keys=True, default=str))
                for t in self._tool_defs()
            )
        )
        served = list(self._skills_from(None))
        resources = hash(
            tuple((s.name, tuple(rel for rel, _ in self.catalog._listed_files(s))) for s in served)
        )
        prompts = hash(
            tuple((s.name, s.description, s.argument_hint) for s in served if self._prompt_skill(s))
        )
        return tools, resources, prompts

    async def notify_changed(self) -> None:
        """Tell clients which of tools, resources and prompts changed (each only when it did).

        2026-07-28 clients get them on their `subscriptions/listen` streams; handshake-era clients
        only when the server runs with --watch, since only then do the capabilities say `listChanged`.
        """
        async with self._notify_lock:
            version = self.registry.version
            if version == self._notified_version:
                return
            self._notified_version = version
            before = self._lists
            now = await anyio.to_thread.run_sync(self._fingerprints)
            self._lists = now
            changed = [i for i in range(3) if before is None or before[i] != now[i]]
            for i in changed:
                await self._subscriptions.publish(_LIST_METHODS[i][1]())
            if self.watch:
                for i in changed:
                    await self._notify_legacy(_LIST_METHODS[i][0], None)
            kinds = [("tools", "resources", "prompts")[i] for i in changed]
            if not kinds:  # a reload that changed nothing is news to nobody (any client may ask for one)
                return
            log_params = {
                "level": "info",
                "logger": "skillyard",
                "data": {"event": "reload", "changed": kinds},
            }
            await self._notify_legacy("notifications/message", log_params, level="info")

    async def _notify_legacy(
        self, method: str, params: dict[str, Any] | None, uri: str | None = None, level: str | None = None
    ) -> None:
        """One notification to every initialized handshake-era connection; with `uri`, to its subscribers
        only; with `level` (a log message), to those that asked for that level with logging/setLevel.

        All at once, each given NOTIFY_TIMEOUT_S: a client that stops reading its stream fills it, and
        waiting on it held every other client's reload, enable, disable and install (and the watcher)."""

        async def one(connection: Any) -> None:
            with anyio.move_on_after(NOTIFY_TIMEOUT_S) as late:
                try:
                    await connection.outbound.notify(method, params)
                except Exception:  # a closed connection must not stop the others
                    self._legacy_connections.discard(connection)
            if late.cancelled_caught:
                self._legacy_connections.discard(connection)  # back with its next request

        async with anyio.create_task_group() as tg:
            for connection in list(self._legacy_connections):
                if not getattr(connection, "initialized", None) or not connection.initialized.is_set():
                    continue
                if uri is not None and uri not in connection.state.get("skillyard.subscriptions", ()):
                    continue
                if level is None or _wants_level(connection, level):
                    tg.start_soon(one, connection)

    async def reload(self, changed: list[str] | None = None) -> None:
        """Re-scan the registry off the event loop, then notify clients of what changed.

        `changed` (the watcher's paths) lets the registry re-read just those files, and names the
        `skill://` resources whose subscribers hear `resources/updated`.
        """
        if self._lists is None:
            self._lists = await anyio.to_thread.run_sync(self._fingerprints)
        await anyio.to_thread.run_sync(self.registry.reload, changed)
        await self.notify_changed()
        if changed:
            for uri in await anyio.to_thread.run_sync(self._uris_for_paths, changed):
                await self._subscriptions.publish(ResourceUpdated(uri))
                await self._notify_legacy("notifications/resources/updated", {"uri": uri}, uri=uri)

    def _uris_for_paths(self, paths: Sequence[str]) -> list[str]:
        """The `skill://` URIs of served files among `paths` (a changed file, or one removed)."""
        roots: list[tuple[Path, str]] = []
        for skill in self._skills_from(None):
            root = Path(skill.root)
            roots.append((root, skill.name))
            try:
                real = root.resolve()
            except OSError:
                continue
            if real != root:
                roots.append((real, skill.name))
        out: dict[str, None] = {}  # in order, once each
        for raw in paths:
            path = Path(raw)
            for root, name in roots:
                if path.is_relative_to(root) and path != root:
                    rel = path.relative_to(root).as_posix()
                    out[skill_uri(name, SKILL_FILE if rel.lower() == "skill.md" else rel)] = None
                    break
        return list(out)

    # ------------------------------------------------------------ subscriptions, logging, completion

    async def _subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        uri = str(params.uri)
        if not await anyio.to_thread.run_sync(self._is_listed, uri):
            raise MCPError(INVALID_PARAMS, f"No resource is served at {uri[:200]}")
        connection = _connection(ctx)
        if connection is not None:
            subs = connection.state.setdefault("skillyard.subscriptions", set())
            if len(subs) >= MAX_SUBSCRIPTIONS:
                raise MCPError(INVALID_PARAMS, f"at most {MAX_SUBSCRIPTIONS} subscriptions per connection")
            subs.add(uri)
        return EmptyResult()

    async def _unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        connection = _connection(ctx)
        if connection is not None:
            connection.state.get("skillyard.subscriptions", set()).discard(str(params.uri))
        return EmptyResult()

    def _is_listed(self, uri: str) -> bool:
        try:
            name, rel = self.catalog.split_uri(uri)
        except CatalogError:
            return False
        skill = self.catalog.served_skill(name)
        return skill is not None and any(r == rel for r, _ in self.catalog._listed_files(skill))

    async def _set_level(
        self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
    ) -> EmptyResult:
        """logging/setLevel (2025-11-25): this connection's threshold for skillyard's log messages."""
        connection = _connection(ctx)
        if connection is not None:
            connection.state["skillyard.log_level"] = params.level
        return EmptyResult()

    async def _log_call(self, rctx: Any, name: str, arguments: Any, res: ToolResult) -> None:
        """A log message for runs and installs, to the client that asked for it (never to anyone else)."""
        action = arguments.get("action") if isinstance(arguments, dict) else None
        is_error = res.is_error
        if name == "skill_run" or name not in BUILTIN_TOOL_NAMES:
            data: dict[str, Any] = {"event": "run", "tool": name, "ok": not is_error}
        elif name == "skills" and action in ("install", "enable", "disable", "reload"):
            data = {"event": action, "ok": not is_error}
        else:
            return
        if isinstance(arguments, dict) and isinstance(arguments.get("skill"), str):
            data["skill"] = arguments["skill"][:200]
        level = "warning" if is_error else "info"
        session = getattr(rctx, "session", None)
        if session is None:
            return
        if rctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            connection = _connection(rctx)
            if connection is None or not _wants_level(connection, level):
                return
        import warnings

        from mcp.shared.exceptions import MCPDeprecationWarning

        try:  # bounded as notifications are: a client not reading its stream must not hold its answer
            with warnings.catch_warnings(), anyio.move_on_after(NOTIFY_TIMEOUT_S):
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await session.send_log_message(level=level, data=data, logger="skillyard")  # type: ignore[arg-type]
        except Exception:  # the log is a courtesy; the result still goes out
            log.debug("log message not delivered", exc_info=True)

    async def list_resource_templates(self) -> list[ResourceTemplate]:  # type: ignore[override]
        return [
            ResourceTemplate(
                uri_template=SKILL_TEMPLATE,
                name="skill-file",
                title="A file of a served skill",
                description="Any file of a served skill; skill://<skill>/SKILL.md is its instructions.",
            )
        ]

    async def _complete(
        self, ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams
    ) -> CompleteResult:
        return await anyio.to_thread.run_sync(self.complete, params)

    def complete(self, params: CompleteRequestParams) -> CompleteResult:
        """completion/complete: prompt arguments (the skill's argument hint), skill names and file paths
        for the `skill://` template."""
        ref = params.ref
        name, value = params.argument.name, params.argument.value
        given = (params.context.arguments if params.context is not None else None) or {}
        candidates: list[str] = []
        if ref.type == "ref/prompt" and ref.name == CATALOG_PROMPT:
            pass  # a listed prompt whose `query` has nothing to offer
        elif ref.type == "ref/prompt":
            skill = self.catalog.served_skill(ref.name) if isinstance(ref.name, str) else None
            if skill is None or not self._prompt_skill(skill):
                raise MCPError(INVALID_PARAMS, f"Unknown prompt: {str(ref.name)[:200]}")
            if name == "arguments" and skill.argument_hint:
                candidates = [skill.argument_hint]
        else:
            if ref.uri != SKILL_TEMPLATE:
                raise MCPError(INVALID_PARAMS, f"Unknown resource template: {str(ref.uri)[:200]}")
            if name == "skill":
                candidates = [s.name for s in self._skills_from(None)]
            elif name == "path":
                skill = self.catalog.served_skill(str(given.get("skill", "")))
                if skill is not None:
                    candidates = sorted(rel for rel, _ in self.catalog._listed_files(skill))
        matches = [c for c in candidates if c.startswith(value)]
        return CompleteResult(
            completion=Completion(
                values=matches[:MAX_COMPLETIONS],
                total=len(matches),
                has_more=len(matches) > MAX_COMPLETIONS,
            )
        )

    async def _watch_loop(self, stop: anyio.Event) -> None:
        """Watch the skill roots and the config file: every replica over the same roots and config
        sees what any of them (or anyone) changed there, and tells its own clients."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._watch_roots, stop)
            tg.start_soon(self._watch_config, stop)

    async def _watch_roots(self, stop: anyio.Event) -> None:
        """Watch the skill roots. A root created, removed or replaced while serving (a checkout, a deploy
        that swaps the folder, a re-pointed link) is noticed within a second and, after a full reload,
        watched as it now is: a watcher stays on the folder it started on, even once that is gone."""
        import watchfiles

        roots = [str(r.path) for r in self.registry.roots]
        idents = [_identity(p) for p in roots]
        while not stop.is_set():
            paths = [p for p, ident in zip(roots, idents, strict=True) if ident is not None]
            log.info("watching %s", ", ".join(paths) or "nothing yet: none of the skill roots exists")
            moved = anyio.Event()
            async with anyio.create_task_group() as tg:
                tg.start_soon(_follow_roots, roots, idents, stop, moved)
                if not paths:
                    await moved.wait()
                else:
                    async for changes in watchfiles.awatch(
                        *paths, debounce=WATCH_DEBOUNCE_MS, step=50, stop_event=moved
                    ):
                        if any(path in paths for _change, path in changes):
                            moved.set()  # a root itself went (its inode may come back at once, reused)
                        try:
                            await self.reload([path for _change, path in changes])
                        except Exception:
                            log.exception("reload after a file change failed")
            idents = [_identity(p) for p in roots]
            if not stop.is_set():
                try:
                    await self.reload()
                except Exception:
                    log.exception("reload after a skill root changed failed")

    def _config_file(self) -> Path:
        """Where a persisted enable/disable is written (`Registry.set_enabled`): the config file in use,
        else the user config file."""
        from skillyard.config import user_config_path

        return Path(self.registry.config.path or user_config_path())

    async def _watch_config(self, stop: anyio.Event) -> None:
        """A persisted enable/disable made elsewhere (another replica, `skillyard disable`) applies here too.

        The file is replaced, not written in place, so its directory is watched (not recursively)."""
        import watchfiles

        target = self._config_file()
        if not target.parent.is_dir():
            log.info(
                "--watch: %s does not exist; enable/disable from elsewhere is not followed", target.parent
            )
            return
        async for _changes in watchfiles.awatch(
            target.parent,
            watch_filter=lambda _change, path: os.path.basename(path) == target.name,
            debounce=WATCH_DEBOUNCE_MS,
            step=50,
            stop_event=stop,
            recursive=False,
        ):
            try:
                if await anyio.to_thread.run_sync(self.apply_disabled_from_config, target):
                    await self.notify_changed()
            except Exception:
                log.exception("applying %s after a change failed", target)

    def apply_disabled_from_config(self, path: Path) -> bool:
        """Match each skill's enabled state to the config file at `path`; True when any changed."""
        from skillyard.config import ConfigError, load_config

        try:
            fresh = load_config(path)
        except ConfigError as e:  # half-edited by a person: keep what is in force, say why
            log.warning("config file changed but cannot be read: %s", e)
            return False
        current = self.registry.config
        changed = False
        for skill in self.registry.skills:
            disabled = fresh.is_disabled(skill.name)
            if disabled != current.is_disabled(skill.name):
                self.registry.set_enabled(skill.name, not disabled)
                current = self.registry.config
                changed = True
        return changed

    @asynccontextmanager
    async def _watching(self) -> AsyncIterator[None]:
        """One watcher per server, however many connections' lifespans are open."""
        if not self.watch:
            yield
            return
        self._watchers += 1
        try:
            if self._watchers > 1:
                yield
                return
            stop = anyio.Event()
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._watch_loop, stop)
                try:
                    yield
                finally:
                    stop.set()
                    tg.cancel_scope.cancel()
        finally:
            self._watchers -= 1


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the directory at `path` (links followed), None when there is none or it is
    the file system's root (a root re-pointed at `/` would have every file of the machine watched)."""
    try:
        st = os.stat(path)
        top = os.stat(os.sep)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) and not os.path.samestat(st, top) else None


async def _follow_roots(
    roots: list[str], idents: list[tuple[int, int] | None], stop: anyio.Event, moved: anyio.Event
) -> None:
    """Set `moved` once serving stops or a root is no longer the directory it was (checked each second);
    ends when the watcher set it first."""
    while not stop.is_set() and not moved.is_set() and [_identity(p) for p in roots] == idents:
        with anyio.move_on_after(1):
            await stop.wait()
    moved.set()


@asynccontextmanager
async def _lifespan(server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    assert isinstance(server, SkillyardServer)
    async with server._watching():
        yield {}


def _wants_level(connection: Any, level: str) -> bool:
    """Whether a handshake-era connection asked (logging/setLevel) for log messages at `level`; none did
    before asking, as on the 2026-07-28 wire."""
    wanted = connection.state.get("skillyard.log_level")
    return wanted is not None and LOG_LEVELS.index(level) >= LOG_LEVELS.index(wanted)


def _error_result(text: str, sid: str = "") -> CallToolResult:
    meta = {SESSION_META_KEY: sid} if sid else None
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True, _meta=meta)


def _tool_result(res: ToolResult, sid: str) -> CallToolResult:
    """ToolResult -> CallToolResult: text content, `is_error`, and structured content for JSON objects."""
    text = res.content
    structured: dict[str, Any] | None = None
    if text.lstrip().startswith("{"):  # an object, when it parses at all (a command's output may not)
        with suppress(ValueError, RecursionError):
            structured = json.loads(text)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=res.is_error,
        _meta={SESSION_META_KEY: sid} if sid else None,
    )


LOOPBACK_HOST_PATTERNS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGIN_PATTERNS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


def host_security(
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
