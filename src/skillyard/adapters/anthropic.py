"""Anthropic SDK: the toolkit as tools for `client.beta.messages.tool_runner(...)`.

    runner = client.beta.messages.tool_runner(model=..., max_tokens=..., system=toolkit.system_message(),
                                              tools=runner_tools(toolkit), messages=[...])

With `AsyncAnthropic`, pass `async_runner_tools(toolkit)`: calls are awaited, and
cancelling the task that drives the runner stops a `skill_run` in flight.
Error results are raised as the SDK's ToolError, which the runner sends back
as a `tool_result` with `is_error: true`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.session import Session

if TYPE_CHECKING:
    from skillyard.tools import Toolkit
    from skillyard.tools.base import ToolResult


def runner_tools(toolkit: Toolkit, session: Session | None = None) -> list[Any]:
    """One tool-runner tool per toolkit tool; every call goes through `toolkit.call`."""
    from anthropic.lib.tools import BetaBuiltinFunctionTool

    s = session if session is not None else toolkit.session

    class SkillTool(_Spec, BetaBuiltinFunctionTool):
        def call(self, input: object) -> str:
            return _content(toolkit.call(self.spec["name"], input, session=s))

    return [SkillTool(spec) for spec in toolkit.export("anthropic")]


def async_runner_tools(toolkit: Toolkit, session: Session | None = None) -> list[Any]:
    """The same tools for the async tool runner; every call goes through `toolkit.acall`."""
    from anthropic.lib.tools import BetaAsyncBuiltinFunctionTool

    s = session if session is not None else toolkit.session

    class AsyncSkillTool(_Spec, BetaAsyncBuiltinFunctionTool):
        async def call(self, input: object) -> str:
            return _content(await toolkit.acall(self.spec["name"], input, s))

    return [AsyncSkillTool(spec) for spec in toolkit.export("anthropic")]


class _Spec:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    def to_dict(self) -> Any:
        return dict(self.spec)


def _content(result: ToolResult) -> str:
    if result.is_error:
        from anthropic.lib.tools import ToolError

        raise ToolError(result.content)
    return result.content
