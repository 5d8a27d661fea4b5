"""LangChain: the toolkit as structured tools.

    tools = structured_tools(toolkit)
    model = chat_model.bind_tools(tools)

Each tool's `args_schema` is the toolkit's JSON schema, so the model sees the
same definitions as every other client; results are the toolkit's text, and
an error result is a `ToolMessage` with `status="error"`. Each tool also has a
coroutine: `ainvoke` (an async agent) awaits `toolkit.acall`, so cancelling the
run stops a `skill_run` in flight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.session import Session

if TYPE_CHECKING:
    from langchain_core.tools import StructuredTool

    from skillyard.tools import Toolkit
    from skillyard.tools.base import ToolResult


def structured_tools(toolkit: Toolkit, session: Session | None = None) -> list[StructuredTool]:
    """One StructuredTool per toolkit tool; every call goes through `toolkit.call`."""
    from langchain_core.tools import StructuredTool

    s = session if session is not None else toolkit.session
    return [
        StructuredTool.from_function(
            func=_caller(toolkit, d.name, s),
            coroutine=_async_caller(toolkit, d.name, s),
            name=d.name,
            description=d.description,
            args_schema=d.parameters,
            response_format="content_and_artifact",
            handle_tool_error=True,
        )
        for d in toolkit.definitions()
    ]


def _caller(toolkit: Toolkit, name: str, session: Session) -> Any:
    def call(**arguments: Any) -> tuple[str, dict[str, Any]]:
        return _answer(toolkit.call(name, arguments, session=session))

    return call


def _async_caller(toolkit: Toolkit, name: str, session: Session) -> Any:
    async def call(**arguments: Any) -> tuple[str, dict[str, Any]]:
        return _answer(await toolkit.acall(name, arguments, session))

    return call


def _answer(result: ToolResult) -> tuple[str, dict[str, Any]]:
    if result.is_error:
        from langchain_core.tools import ToolException

        raise ToolException(result.content)
    return result.content, result.to_dict()
