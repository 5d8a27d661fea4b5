"""The Toolkit: which tools a host exposes, their exports, and the one dispatcher.

`call()` accepts what a provider sends (a dict or a JSON string), validates it
against the tool's own schema and always returns a ToolResult: unknown tools,
bad JSON, wrong types, missing or extra fields and handler failures are all
error results with a sentence naming the problem, never exceptions.
Definitions (and their enums of skill names) are rebuilt whenever
`registry.version` changes.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from skillyard import telemetry
from skillyard.model import BUILTIN_TOOL_NAMES
from skillyard.session import Session
from skillyard.tools.base import ToolDef, ToolResult
from skillyard.tools.disclosure import DisclosureTools
from skillyard.tools.invoke import InvokeTools
from skillyard.tools.providers import export_tools
from skillyard.tools.run import RunTool
from skillyard.tools.skills_tool import SkillsTool

if TYPE_CHECKING:
    from skillyard.registry import Registry
    from skillyard.tools.install_gate import ApproveInstall

#: Built-in tools, in the order they are exported.
BUILTIN_TOOLS = BUILTIN_TOOL_NAMES
#: Pseudo-name in `tools=` for "every SKILL.toml tool of the eligible skills".
TOML_TOOLS = "toml"
LOAD_MODES = ("system", "result")
MAX_ARGUMENT_BYTES = 1024 * 1024


class Toolkit:
    """Model-facing skill tools over one registry.

    `tools`: names from BUILTIN_TOOLS plus "toml" for SKILL.toml tools (default: all).
    `load_mode`: "system" (the host rebuilds the system message from the session) or
    "result" (bodies and docs come back in tool results, for hosts like MCP clients).
    `approve_install`: called with an `InstallRequest` before the `skills` tool installs anything
    the model asked for (only when `[trust] model_installs` allows such installs at all); only a
    True answer lets it go on. Without it there is no extra approval step.
    """

    def __init__(
        self,
        registry: Registry,
        *,
        tools: Iterable[str] | None = None,
        load_mode: str = "system",
        runner: Any = None,
        catalog_format: str = "xml",
        budget: int | None = None,
        approve_install: ApproveInstall | None = None,
    ) -> None:
        if load_mode not in LOAD_MODES:
            raise ValueError(f"unknown load_mode: {load_mode!r} (expected one of: {', '.join(LOAD_MODES)})")
        known = (*BUILTIN_TOOLS, TOML_TOOLS)
        asked = [tools] if isinstance(tools, str) else list(known if tools is None else tools)
        unknown = [t for t in asked if t not in known]
        if unknown:
            raise ValueError(f"unknown tool: {unknown[0]!r} (expected some of: {', '.join(known)})")
        self.registry = registry
        self.load_mode = load_mode
        self.catalog_format = catalog_format
        self.budget = budget
        #: the session used when `call()` is given none
        self.session = Session()
        self._chosen = frozenset(asked)
        if approve_install is not None and not callable(approve_install):
            raise ValueError("approve_install must be callable (request) -> bool")
        self._run = RunTool(registry, runner)
        self._skills = SkillsTool(
            registry, approve_install=approve_install, writable_roots=self._run.writable_roots
        )
        self._disclosure = DisclosureTools(registry, load_mode)
        self._invoke = InvokeTools(registry)
        self._version = -1
        self._defs: list[ToolDef] = []
        self._by_name: dict[str, ToolDef] = {}

    # ------------------------------------------------------------ definitions

    def refresh(self) -> None:
        """Rebuild the definitions now (they also rebuild by themselves when the registry changes)."""
        version = self.registry.version
        made = (self._skills.definition(), *self._disclosure.definitions(), self._run.definition())
        built = {d.name: d for d in (*made, *self._invoke.definitions())}
        defs = [built[n] for n in BUILTIN_TOOLS if n in self._chosen]
        if TOML_TOOLS in self._chosen:
            from skillyard.tools.toml_bridge import toml_definitions

            defs += toml_definitions(self.registry)
        self._defs = defs
        self._by_name = {d.name: d for d in defs}
        self._version = version

    def _current(self) -> dict[str, ToolDef]:
        if self._version != self.registry.version:
            self.refresh()
        return self._by_name

    def definitions(self) -> list[ToolDef]:
        """The exposed tools, built-ins first (BUILTIN_TOOLS order), then SKILL.toml tools."""
        self._current()
        return list(self._defs)

    def names(self) -> list[str]:
        return [d.name for d in self.definitions()]

    def get(self, name: str) -> ToolDef | None:
        return self._current().get(name) if isinstance(name, str) else None

    def export(self, provider: str, *, strict: bool = False) -> list[dict[str, Any]]:
        """The definitions in `provider`'s format (one of PROVIDERS).

        `strict=True` (openai and openai-responses only) exports schemas in OpenAI's strict-mode
        subset with `strict: true`; `call()` reads calls in that shape back (docs/tools.md).
        """
        return export_tools(self.definitions(), provider, strict=strict)

    # ------------------------------------------------------------ dispatch

    def call(self, name: str, arguments: Any = None, session: Session | None = None) -> ToolResult:
        """Run tool `name` with `arguments` (dict, JSON text or None); never raises."""
        tools = self._current()
        tool = tools.get(name) if isinstance(name, str) else None
        if tool is None:
            shown = name if isinstance(name, str) and len(name) <= 100 else repr(name)[:100]
            return ToolResult(
                f"Error: unknown tool: {shown} (available: {', '.join(tools)})",
                True,
                f"unknown tool {shown}",
            )
        args: Any = arguments
        if not tool.raw_arguments:
            args = _decode(arguments)
            if not isinstance(args, str):
                args = tool.normalize(args)
            problem = args if isinstance(args, str) else tool.validate(args)
            if problem is not None:
                return tool.error(problem)
        try:
            result = tool.handler(args, session if session is not None else self.session)
        except Exception as e:  # a handler bug must reach the model as an error result, not crash the host
            display = "failed" if tool.raw_arguments else f"{tool.name} failed"
            return ToolResult(f"Error: tool '{tool.name}' failed: {type(e).__name__}: {e}", True, display)
        _record_usage(tool.name, args, result)  # SKILL.toml tools (raw arguments) record nothing
        return result

    async def acall(
        self, name: str, arguments: Any = None, session: Session | None = None, *, limiter: Any = None
    ) -> ToolResult:
        """`call` from async code, in a worker thread so the event loop keeps running.

        Cancelling the awaiting task stops the call: a `skill_run` in flight has its process tree killed
        (not left running until its timeout), and the cancellation goes on once the call has returned,
        so the session is never used by two calls at once. `limiter`: an anyio CapacityLimiter whose
        token the call holds while it runs (the MCP server bounds concurrent runs with one); a call
        cancelled while it waits for a token never starts."""
        import anyio
        import anyio.to_thread

        from skillyard.execution.base import run_cancellable

        stop = threading.Event()
        finished = anyio.Event()
        results: list[ToolResult] = []

        def call() -> ToolResult:
            if stop.is_set():  # cancelled on its way to the worker thread: nothing starts
                return ToolResult("Error: the call was cancelled before it started", True, "cancelled")
            return run_cancellable(stop, self.call, name, arguments, session)

        async def work() -> None:
            with anyio.CancelScope(shield=True):  # the call ends its own way, stopped if asked to
                try:
                    # with `limiter`, the token held is the bound, not one of the shared pool's
                    own = anyio.CapacityLimiter(1) if limiter is not None else None
                    results.append(await anyio.to_thread.run_sync(call, limiter=own))
                finally:
                    finished.set()

        slot = limiter if limiter is not None else contextlib.nullcontext()
        async with slot, anyio.create_task_group() as tasks:
            tasks.start_soon(work)
            try:
                await finished.wait()
            except anyio.get_cancelled_exc_class():
                stop.set()
                raise
        return results[0]

    # ------------------------------------------------------------ lifecycle

    def close_session(self, session: Session) -> None:
        """Release what `session` holds (its skill_run workspace, per the runner's retention)."""
        self._run.close_session(session.session_id)

    def close(self) -> None:
        """Release every workspace the toolkit's runner created."""
        self._run.close()

    def __enter__(self) -> Toolkit:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ system message

    def system_message(self, session: Session | None = None, *, query: str | None = None) -> str:
        """Guidance for the exposed tools, the catalog and (in "system" mode) the loaded skills and docs;
        with `query` (the user's request) the most relevant skills lead the catalog."""
        s = session if session is not None else self.session
        return s.render(
            self.registry,
            tool_names=self.names(),
            catalog_format=self.catalog_format,
            budget=self.budget,
            include_loaded=self.load_mode == "system",
            query=query,
        )


#: Tools whose success means a skill was loaded, and the argument naming it.
_LOADING_TOOLS = {"skill_load": "skill", "read_skill": "skill_name", "skill": "skill"}


def _record_usage(tool: str, args: dict[str, Any], result: ToolResult) -> None:
    """Usage events (skillyard.telemetry): a skill loaded or run through the tools."""
    if result.is_error:
        return
    if tool in _LOADING_TOOLS:
        telemetry.record("loaded", str(args.get(_LOADING_TOOLS[tool], "")))
    elif tool == "skill_run":
        telemetry.record("run", str(args.get("skill", "")))


def _decode(arguments: Any) -> dict[str, Any] | str:
    """The argument object, or a sentence saying why there is none."""
    if arguments is None:
        return {}
    if isinstance(arguments, str | bytes | bytearray):
        if len(arguments) > MAX_ARGUMENT_BYTES:
            unit = "characters" if isinstance(arguments, str) else "bytes"
            return f"arguments are too large ({len(arguments)} {unit}, at most {MAX_ARGUMENT_BYTES})"
        if not isinstance(arguments, str):
            arguments = bytes(arguments).decode("utf-8", errors="replace")
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as e:
            return f"invalid JSON arguments: {e.msg} at line {e.lineno} column {e.colno}"
        except ValueError as e:  # an integer longer than Python converts (4300 digits)
            return f"invalid JSON arguments: {e}"
        except RecursionError:
            return "invalid JSON arguments: nested too deeply"
    if not isinstance(arguments, dict):
        kind = "array" if isinstance(arguments, list | tuple) else type(arguments).__name__
        return f"arguments must be a JSON object, got {kind}"
    return arguments
