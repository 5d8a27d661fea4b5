"""pydantic-ai: the toolkit as a toolset, with the system message as the toolset's instructions.

    agent = Agent(model, toolsets=[skill_toolset(toolkit)])

The instructions are rebuilt on every model request, so a skill the model
loads with `skill_load` is in the next request's instructions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.session import Session

if TYPE_CHECKING:
    from pydantic_ai.toolsets import FunctionToolset

    from skillyard.tools import Toolkit


def skill_toolset(
    toolkit: Toolkit, session: Session | None = None, *, instructions: bool = True
) -> FunctionToolset:
    """A FunctionToolset with one tool per toolkit tool; every call goes through `toolkit.call`.

    Error results come back as the tool's return value (the text says what went
    wrong), never as retries, which would end the run once retries run out.
    """
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import FunctionToolset

    s = session if session is not None else toolkit.session
    tools = [
        Tool.from_schema(_caller(toolkit, d.name, s), d.name, d.description, d.parameters)
        for d in toolkit.definitions()
    ]
    if not instructions:
        return FunctionToolset(tools)
    return FunctionToolset(tools, instructions=lambda: toolkit.system_message(s))


def _caller(toolkit: Toolkit, name: str, session: Session) -> Any:
    def call(**arguments: Any) -> str:
        return toolkit.call(name, arguments, session=session).content

    call.__name__ = name
    return call
