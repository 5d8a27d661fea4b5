"""Framework adapters, each driven by that framework's own test model or real client.

pydantic-ai: FunctionModel and TestModel. OpenAI Agents SDK: its real
Chat Completions model against the scripted endpoint on 127.0.0.1 (the SDK has
no test model of its own). LangChain: its GenericFakeChatModel produces the
tool calls. Anthropic: the SDK's tool runner against a scripted Messages
endpoint on 127.0.0.1. Each test is skipped, with the reason, when its
framework is not installed.
"""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from openai_server import ChatServer, Reply, scripted
from skillyard.config import Config, ExecutionSettings
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit

RUN = {
    "skill": "wordcount",
    "command": "printf 'a b c' | wc -w > out/n.txt; cat out/n.txt",
    "output_files": ["out/*.txt"],
}


@pytest.fixture
def kit(tmp_path: Path, make_skill: Any) -> Toolkit:
    make_skill(tmp_path / "skills", "wordcount", "Counts words", body="Count with wc -w.\n")
    config = Config(execution=ExecutionSettings(executor="local", timeout=20))
    with Toolkit(Registry.from_roots([tmp_path / "skills"], config)) as k:
        yield k


# ---------------------------------------------------------------- pydantic-ai


def test_pydantic_ai_function_model(kit: Toolkit) -> None:
    pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed (skillyard[pydantic-ai])")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from skillyard.adapters.pydantic_ai import skill_toolset

    seen: list[AgentInfo] = []
    returns: list[str] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        step = sum(isinstance(m, ModelResponse) for m in messages)
        if step:
            returns.append(str(messages[-1].parts[0].content))
        if step == 0:
            return ModelResponse(parts=[ToolCallPart("skill_load", {"skill": "wordcount"})])
        if step == 1:
            return ModelResponse(parts=[ToolCallPart("skill_run", RUN)])
        if step == 2:
            return ModelResponse(parts=[ToolCallPart("skill_load", {"skill": "nope"})])
        return ModelResponse(parts=[TextPart("three words")])

    session = Session()
    agent = Agent(FunctionModel(model), toolsets=[skill_toolset(kit, session)])
    result = agent.run_sync("How many words in 'a b c'?")
    assert result.output == "three words"
    assert [t.name for t in seen[0].function_tools] == kit.names()
    assert "<available_skills>" in (seen[0].instructions or "") and "[Loaded]" not in (
        seen[0].instructions or ""
    )
    assert "[Loaded] wordcount" in (seen[1].instructions or "")
    assert returns[0] == "loaded: wordcount"
    run = json.loads(returns[1])
    assert run["stdout"] == "3\n" and run["output_files"][0]["name"] == "out/n.txt"
    assert returns[2] == "unknown skill: nope"  # an error result, read by the model, not a retry
    assert session.is_loaded("wordcount")


def test_pydantic_ai_test_model(kit: Toolkit) -> None:
    pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed (skillyard[pydantic-ai])")
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from skillyard.adapters.pydantic_ai import skill_toolset

    model = TestModel(call_tools=["skill_list_docs", "read_skill", "skill", "skill_load"])
    result = Agent(model, toolsets=[skill_toolset(kit, instructions=False)]).run_sync("go")
    answers = json.loads(result.output)
    assert answers["read_skill"] == "Count with wc -w."
    assert answers["skill_list_docs"] == "[]"
    assert answers["skill_load"] == "loaded: wordcount"


# ---------------------------------------------------------------- OpenAI Agents SDK


def test_openai_agents_sdk_strict_tools(kit: Toolkit, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("agents", reason="openai-agents is not installed (skillyard[openai-agents])")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, set_tracing_disabled
    from openai import AsyncOpenAI

    from skillyard.adapters.openai_agents import function_tools, skill_instructions

    set_tracing_disabled(True)
    strict_run = {
        **{k: None for k in kit.get("skill_run").parameters["properties"]},
        **RUN,
        "env": [{"name": "WHO", "value": "agents"}],
        "command": "echo $WHO; printf 'a b c' | wc -w > out/n.txt",
    }
    replies = [
        Reply(
            tool_calls=[
                ("skill_load", json.dumps({"skill": "wordcount", "docs": None, "include_all_docs": None}))
            ]
        ),
        Reply(tool_calls=[("skill_run", json.dumps(strict_run)), ("no_such_tool", "{}")]),
        Reply(content="done"),
    ]
    with ChatServer(scripted(replies)) as server:
        client = AsyncOpenAI(base_url=server.url, api_key="sk-test", max_retries=0)
        agent = Agent(
            name="skills",
            instructions=skill_instructions(kit),
            tools=function_tools(kit),
            model=OpenAIChatCompletionsModel(model="scripted", openai_client=client),
        )
        # the SDK's own answer to a tool it does not have is an exception, unless told otherwise
        config = RunConfig(tool_not_found_behavior="return_error_to_model", tracing_disabled=True)
        # asyncio.run shuts the loop's worker threads down (the tools run in them), so none outlives the test
        result = asyncio.run(Runner.run(agent, "count", run_config=config))
    assert result.final_output == "done"
    first, second, third = server.requests
    sent = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert list(sent) == kit.names()
    exported = {t["function"]["name"]: t["function"] for t in kit.export("openai", strict=True)}
    for name, fn in sent.items():
        assert fn["strict"] is True and fn["parameters"] == exported[name]["parameters"], name
    assert "<available_skills>" in first["messages"][0]["content"]
    assert "[Loaded] wordcount" in second["messages"][0]["content"]
    tool_results = [m["content"] for m in third["messages"] if m["role"] == "tool"]
    assert tool_results[0] == "loaded: wordcount"
    run = json.loads(tool_results[1])
    assert run["stdout"] == "agents\n" and run["output_files"][0]["name"] == "out/n.txt"
    assert "no_such_tool" in tool_results[2]  # the SDK answers a tool it does not have


# ---------------------------------------------------------------- LangChain


def test_langchain_structured_tools(kit: Toolkit) -> None:
    pytest.importorskip("langchain_core", reason="langchain-core is not installed (skillyard[langchain])")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from skillyard.adapters.langchain import structured_tools

    tools = {t.name: t for t in structured_tools(kit)}
    assert list(tools) == kit.names()
    assert tools["skill_run"].args["skill"]["enum"] == ["wordcount"]
    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "skill_load", "args": {"skill": "wordcount"}, "id": "c1"},
                        {"name": "skill_run", "args": RUN, "id": "c2"},
                        {"name": "skill_load", "args": {"skill": "nope"}, "id": "c3"},
                    ],
                ),
                AIMessage(content="three"),
            ]
        )
    )
    history: list[Any] = [HumanMessage("count")]
    reply = model.invoke(history)
    history.append(reply)
    results = [tools[call["name"]].invoke(call) for call in reply.tool_calls]
    assert all(isinstance(m, ToolMessage) for m in results)
    assert [m.tool_call_id for m in results] == ["c1", "c2", "c3"]
    assert results[0].content == "loaded: wordcount" and results[0].status == "success"
    assert json.loads(results[1].content)["stdout"] == "3\n"
    assert results[1].artifact["display"] == "wordcount: exit 0"
    assert results[2].status == "error" and results[2].content == "unknown skill: nope"
    history += results
    assert model.invoke(history).content == "three"


# ---------------------------------------------------------------- Anthropic tool runner


class MessagesServer:
    """A scripted Anthropic Messages endpoint on 127.0.0.1: each request gets the next content list."""

    def __init__(self, replies: list[list[dict[str, Any]]]) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.requests.append(body)
                content = replies[min(len(outer.requests) - 1, len(replies) - 1)]
                uses = any(c["type"] == "tool_use" for c in content)
                data = {
                    "id": f"msg_{len(outer.requests)}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model"),
                    "content": content,
                    "stop_reason": "tool_use" if uses else "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                }
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = False  # closing waits for the handlers: no thread outlives the test
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


#: the scripted model's turns: a load, a run and a call naming no skill, then the answer
RUNNER_SCRIPT: list[list[dict[str, Any]]] = [
    [{"type": "tool_use", "id": "t1", "name": "skill_load", "input": {"skill": "wordcount"}}],
    [
        {"type": "tool_use", "id": "t2", "name": "skill_run", "input": RUN},
        {"type": "tool_use", "id": "t3", "name": "skill_list_docs", "input": {"skill": "nope"}},
    ],
    [{"type": "text", "text": "three words"}],
]


def test_anthropic_tool_runner(kit: Toolkit) -> None:
    anthropic = pytest.importorskip("anthropic", reason="anthropic is not installed (skillyard[anthropic])")
    from skillyard.adapters.anthropic import runner_tools

    server = MessagesServer(RUNNER_SCRIPT)
    try:
        client = anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0)
        runner = client.beta.messages.tool_runner(
            model="scripted",
            max_tokens=256,
            system=kit.system_message(),
            tools=runner_tools(kit),
            messages=[{"role": "user", "content": "How many words in 'a b c'?"}],
        )
        final = runner.until_done()
    finally:
        server.close()
    assert final.content[0].text == "three words"
    first, second, third = server.requests
    assert [t["name"] for t in first["tools"]] == kit.names()
    assert first["tools"][0]["input_schema"] == kit.get("skills").parameters
    (loaded,) = second["messages"][-1]["content"]
    assert loaded["tool_use_id"] == "t1" and _text(loaded["content"]) == "loaded: wordcount"
    ran, missing = third["messages"][-1]["content"]
    assert json.loads(_text(ran["content"]))["stdout"] == "3\n" and not ran.get("is_error")
    assert missing["is_error"] is True and "unknown skill: nope" in _text(missing["content"])


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)
