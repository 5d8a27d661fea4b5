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
    from pydantic_core import SchemaValidator, core_schema

    s = session if session is not None else toolkit.session
    # pydantic-ai calls a schema tool with `**arguments` unchecked: arguments that are not a JSON
    # object (`[]`, `"x"`, `null`) raised out of the whole run. They reach `toolkit.call` instead,
    # which answers them like any other bad arguments.
    wrap = SchemaValidator(core_schema.no_info_plain_validator_function(_as_mapping))
    tools = []
    for d in toolkit.definitions():
        tool = Tool.from_schema(_caller(toolkit, d.name, s), d.name, d.description, d.parameters)
        tool.function_schema.validator = wrap
        tools.append(tool)
    if not instructions:
        return FunctionToolset(tools)
    return FunctionToolset(tools, instructions=lambda: toolkit.system_message(s))


#: the one keyword under which arguments that are not an object travel to `_caller`
_RAW = "\0arguments"


def _as_mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {_RAW: value}


def _caller(toolkit: Toolkit, name: str, session: Session) -> Any:
    async def call(**arguments: Any) -> str:  # async: a cancelled agent run stops a skill_run in flight
        raw = arguments[_RAW] if arguments.keys() == {_RAW} else arguments
        return (await toolkit.acall(name, raw, session)).content

    call.__name__ = name
    return call
