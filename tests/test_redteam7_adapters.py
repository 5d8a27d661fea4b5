"""A hostile model through the agent-framework adapters, driven by the framework's own test model.
Each test failed before the fix it comes with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillyard.config import Config, ExecutionSettings
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit


@pytest.mark.parametrize("raw", ['["wordcount"]', "5", "null", '"wordcount"', "[]"])
def test_pydantic_ai_arguments_that_are_not_an_object_are_an_answer(
    tmp_path: Path, make_skill: Any, raw: str
) -> None:
    """pydantic-ai calls a schema tool with `**arguments` without checking them: a model whose call
    carried a JSON array, number, string or null ended the whole run with a TypeError or an
    AssertionError. The toolkit now answers it, as it answers every other bad call, and the run goes on."""
    pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed (skillyard[pydantic-ai])")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from skillyard.adapters.pydantic_ai import skill_toolset

    make_skill(tmp_path / "skills", "wordcount", "Counts words", body="Count with wc -w.\n")
    config = Config(execution=ExecutionSettings(executor="local"))
    answers: list[str] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(m, ModelResponse) for m in messages)
        answers.extend(str(p.content) for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        if step == 0:
            return ModelResponse(parts=[ToolCallPart("skill_load", raw)])
        if step == 1:
            return ModelResponse(parts=[ToolCallPart("skill_load", '{"skill": "wordcount"}')])
        return ModelResponse(parts=[TextPart("done")])

    with Toolkit(Registry.from_roots([tmp_path / "skills"], config)) as kit:
        agent = Agent(FunctionModel(model), toolsets=[skill_toolset(kit, Session())])
        assert agent.run_sync("count").output == "done"
    assert answers[0].startswith("Error: invalid arguments for skill_load:"), answers
    assert answers[1] == "loaded: wordcount"
