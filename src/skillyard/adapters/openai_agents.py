"""OpenAI Agents SDK: the toolkit as function tools, strict by default.

    agent = Agent(name="skills", instructions=skill_instructions(toolkit), tools=function_tools(toolkit))

With `strict=True` the schemas are the strict-mode export (every field
required, optional ones nullable, `env` as `{name, value}` pairs), which the
SDK sends unchanged; the toolkit reads calls in that shape back. The SDK raises
on a call to a tool it does not have unless the run is configured with
`RunConfig(tool_not_found_behavior="return_error_to_model")`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skillyard.session import Session
from skillyard.tools.strict import strict_schema

if TYPE_CHECKING:
    from agents import FunctionTool

    from skillyard.tools import Toolkit


def function_tools(
    toolkit: Toolkit, session: Session | None = None, *, strict: bool = True
) -> list[FunctionTool]:
    """One FunctionTool per toolkit tool. Calls run in a worker thread (skill_run blocks while it runs);
    a cancelled agent run stops a skill_run in flight."""
    from agents import FunctionTool

    s = session if session is not None else toolkit.session
    return [
        FunctionTool(
            name=d.name,
            description=d.description,
            params_json_schema=strict_schema(d.parameters) if strict else d.parameters,
            on_invoke_tool=_invoker(toolkit, d.name, s),
            strict_json_schema=strict,
        )
        for d in toolkit.definitions()
    ]


def skill_instructions(toolkit: Toolkit, session: Session | None = None) -> Callable[[Any, Any], str]:
    """Dynamic instructions for an Agent: guidance, catalog and loaded skills, read again on every turn."""
    s = session if session is not None else toolkit.session
    return lambda _context, _agent: toolkit.system_message(s)


def _invoker(toolkit: Toolkit, name: str, session: Session) -> Any:
    async def invoke(_context: Any, arguments: str) -> str:
        return (await toolkit.acall(name, arguments, session)).content  # cancelling stops a run in flight

    return invoke
