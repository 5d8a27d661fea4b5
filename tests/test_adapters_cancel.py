"""Every agent adapter awaits its calls, and an agent run cancelled mid-call stops the `skill_run` in flight.

Async agents (LangChain's `ainvoke`, the Anthropic SDK's async tool runner, pydantic-ai, the Agents SDK)
cancel the task when the user abandons a turn. A tool that ran `toolkit.call` in a worker thread left the
sandboxed script running to its timeout (a minute by default, up to ten) while it kept writing the user's
files. Each test drives the framework's own async path, cancels it once the script runs, and checks by
the process table that the script is gone and that the session takes the next call.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from openai_server import ChatServer, Reply, scripted
from skillyard.config import Config
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit
from test_adapters import RUN, RUNNER_SCRIPT, MessagesServer, _text
from test_run_cancel import _running


@pytest.fixture
def kit(tmp_path: Path, make_skill: Any) -> Toolkit:
    make_skill(tmp_path / "skills", "wordcount", "Counts words", body="Count with wc -w.\n")
    with Toolkit(Registry.from_roots([tmp_path / "skills"], Config())) as k:  # the default executor
        yield k


def _sleep(marker: str) -> dict[str, Any]:
    return {"skill": "wordcount", "command": f"sleep {marker}", "timeout": 600}


async def _cancel_once_running(job: Any, marker: str) -> None:
    """Run `job` as a task, cancel it as soon as the sleep is in the process table, and check it is gone."""
    task = asyncio.ensure_future(job)
    for _ in range(1200):  # 60 s to start, on a loaded machine
        if _running(marker) or task.done():
            break
        await asyncio.sleep(0.05)
    assert not task.done(), f"the call ended before it was cancelled: {task.result()!r}"
    assert _running(marker), "the run never started"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # a framework may cancel its tool task without awaiting it: the tree dies within the stop's
    # quarter-second polling, not at the run's 600 s timeout
    for _ in range(200):
        if not _running(marker):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the run outlived its cancelled agent call")


# ---------------------------------------------------------------- LangChain


def test_langchain_ainvoke_answers_as_invoke_does(kit: Toolkit) -> None:
    pytest.importorskip("langchain_core", reason="langchain-core is not installed (skillyard[langchain])")
    from skillyard.adapters.langchain import structured_tools

    tools = {t.name: t for t in structured_tools(kit, Session())}
    calls = [
        {"name": "skill_load", "args": {"skill": "wordcount"}, "id": "c1", "type": "tool_call"},
        {"name": "skill_run", "args": RUN, "id": "c2", "type": "tool_call"},
        {"name": "skill_load", "args": {"skill": "nope"}, "id": "c3", "type": "tool_call"},
    ]

    async def scenario() -> list[Any]:
        return [await tools[c["name"]].ainvoke(c) for c in calls]

    loaded, ran, missing = asyncio.run(scenario())
    assert loaded.content == "loaded: wordcount" and loaded.status == "success"
    assert json.loads(ran.content)["stdout"] == "3\n" and ran.artifact["display"] == "wordcount: exit 0"
    assert missing.status == "error" and missing.content == "unknown skill: nope"


def test_langchain_a_cancelled_ainvoke_stops_its_run(kit: Toolkit) -> None:
    pytest.importorskip("langchain_core", reason="langchain-core is not installed (skillyard[langchain])")
    from skillyard.adapters.langchain import structured_tools

    tools = {t.name: t for t in structured_tools(kit, Session())}
    marker = "311.5"

    async def scenario() -> str:
        await _cancel_once_running(tools["skill_run"].ainvoke(_sleep(marker)), marker)
        again = {"skill": "wordcount", "command": "echo again"}
        return await tools["skill_run"].ainvoke(again)

    assert json.loads(asyncio.run(scenario()))["stdout"] == "again\n"


# ---------------------------------------------------------------- Anthropic async tool runner


def test_anthropic_async_tool_runner(kit: Toolkit) -> None:
    anthropic = pytest.importorskip("anthropic", reason="anthropic is not installed (skillyard[anthropic])")
    from skillyard.adapters.anthropic import async_runner_tools

    server = MessagesServer(RUNNER_SCRIPT)

    async def scenario() -> Any:
        return await _runner(anthropic, server, async_runner_tools(kit)).until_done()

    try:
        final = asyncio.run(scenario())
    finally:
        server.close()
    assert final.content[0].text == "three words"
    first, second, third = server.requests
    assert [t["name"] for t in first["tools"]] == kit.names()
    (loaded,) = second["messages"][-1]["content"]
    assert _text(loaded["content"]) == "loaded: wordcount"
    ran, missing = third["messages"][-1]["content"]
    assert json.loads(_text(ran["content"]))["stdout"] == "3\n" and not ran.get("is_error")
    assert missing["is_error"] is True and "unknown skill: nope" in _text(missing["content"])


def _runner(anthropic: Any, server: MessagesServer, tools: list[Any]) -> Any:
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="sk-test", max_retries=0)
    messages = [{"role": "user", "content": "go"}]
    return client.beta.messages.tool_runner(model="scripted", max_tokens=256, tools=tools, messages=messages)


def test_anthropic_a_cancelled_async_runner_stops_its_run(kit: Toolkit) -> None:
    anthropic = pytest.importorskip("anthropic", reason="anthropic is not installed (skillyard[anthropic])")
    from skillyard.adapters.anthropic import async_runner_tools

    marker = "312.5"
    session = Session()
    server = MessagesServer(
        [
            [{"type": "tool_use", "id": "t1", "name": "skill_run", "input": _sleep(marker)}],
            [{"type": "text", "text": "never reached"}],
        ]
    )

    async def scenario() -> str:
        runner = _runner(anthropic, server, async_runner_tools(kit, session))
        await _cancel_once_running(runner.until_done(), marker)
        (tool,) = [t for t in async_runner_tools(kit, session) if t.spec["name"] == "skill_run"]
        return await tool.call({"skill": "wordcount", "command": "echo again"})

    try:
        assert json.loads(asyncio.run(scenario()))["stdout"] == "again\n"
    finally:
        server.close()


# ---------------------------------------------------------------- pydantic-ai and the Agents SDK


def test_pydantic_ai_a_cancelled_agent_run_stops_its_run(kit: Toolkit) -> None:
    pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed (skillyard[pydantic-ai])")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from skillyard.adapters.pydantic_ai import skill_toolset

    marker = "313.5"

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("skill_run", _sleep(marker))])
        return ModelResponse(parts=[TextPart("never reached")])

    session = Session()
    agent = Agent(FunctionModel(model), toolsets=[skill_toolset(kit, session)])

    async def scenario() -> str:
        await _cancel_once_running(agent.run("sleep"), marker)
        return (
            await kit.acall("skill_run", {"skill": "wordcount", "command": "echo again"}, session)
        ).content

    assert json.loads(asyncio.run(scenario()))["stdout"] == "again\n"


def test_openai_agents_a_cancelled_run_stops_its_run(kit: Toolkit, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("agents", reason="openai-agents is not installed (skillyard[openai-agents])")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, set_tracing_disabled
    from openai import AsyncOpenAI

    from skillyard.adapters.openai_agents import function_tools

    set_tracing_disabled(True)
    marker = "314.5"
    strict_run = {**{k: None for k in kit.get("skill_run").parameters["properties"]}, **_sleep(marker)}
    session = Session()
    replies = [Reply(tool_calls=[("skill_run", json.dumps(strict_run))]), Reply(content="never reached")]
    with ChatServer(scripted(replies)) as server:

        async def scenario() -> str:
            client = AsyncOpenAI(base_url=server.url, api_key="sk-test", max_retries=0)
            agent = Agent(
                name="skills",
                tools=function_tools(kit, session),
                model=OpenAIChatCompletionsModel(model="scripted", openai_client=client),
            )
            run = Runner.run(agent, "sleep", run_config=RunConfig(tracing_disabled=True))
            await _cancel_once_running(run, marker)
            again = {"skill": "wordcount", "command": "echo again"}
            return (await kit.acall("skill_run", again, session)).content

        assert json.loads(asyncio.run(scenario()))["stdout"] == "again\n"
