"""Anthropic SDK: the toolkit as tools for `client.beta.messages.tool_runner(...)`.

    runner = client.beta.messages.tool_runner(model=..., max_tokens=..., system=toolkit.system_message(),
                                              tools=runner_tools(toolkit), messages=[...])

Error results are raised as the SDK's ToolError, which the runner sends back
as a `tool_result` with `is_error: true`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillyard.session import Session

if TYPE_CHECKING:
    from skillyard.tools import Toolkit


def runner_tools(toolkit: Toolkit, session: Session | None = None) -> list[Any]:
    """One tool-runner tool per toolkit tool; every call goes through `toolkit.call`."""
    from anthropic.lib.tools import BetaBuiltinFunctionTool, ToolError

    s = session if session is not None else toolkit.session

    class SkillTool(BetaBuiltinFunctionTool):
        def __init__(self, spec: dict[str, Any]) -> None:
            self.spec = spec

        def to_dict(self) -> Any:
            return dict(self.spec)

        def call(self, input: object) -> str:
            result = toolkit.call(self.spec["name"], input, session=s)
            if result.is_error:
                raise ToolError(result.content)
            return result.content

    return [SkillTool(spec) for spec in toolkit.export("anthropic")]
