"""LangChain: the toolkit as structured tools.

    tools = structured_tools(toolkit)
    model = chat_model.bind_tools(tools)

Each tool's `args_schema` is the toolkit's JSON schema, so the model sees the
same definitions as every other client; results are the toolkit's text, and
an error result is a `ToolMessage` with `status="error"`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.session import Session

if TYPE_CHECKING:
    from langchain_core.tools import StructuredTool

    from skillyard.tools import Toolkit


def structured_tools(toolkit: Toolkit, session: Session | None = None) -> list[StructuredTool]:
    """One StructuredTool per toolkit tool; every call goes through `toolkit.call`."""
    from langchain_core.tools import StructuredTool

    s = session if session is not None else toolkit.session
    return [
        StructuredTool.from_function(
            func=_caller(toolkit, d.name, s),
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
        result = toolkit.call(name, arguments, session=session)
        if result.is_error:
            from langchain_core.tools import ToolException

            raise ToolException(result.content)
        return result.content, result.to_dict()

    return call
