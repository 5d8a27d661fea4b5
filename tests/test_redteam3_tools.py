"""A hostile model's tool-call arguments: every shape is an error result, never an exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openai_server import ChatServer, Reply, scripted
from skillyard import Registry, Session, Toolkit
from skillyard.config import Config

HOSTILE = {
    "an integer of 5000 digits": '{"skill": ' + "9" * 5000 + "}",
    "a nested integer of 5000 digits": '{"skill": "x", "args": [[' + "1" * 5000 + "]]}",
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "not an object": "[1, 2]",
    "NaN": '{"skill": NaN}',
}


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("tool", ["skills", "skill_load", "skill_run", "skill_list_docs"])
def test_hostile_arguments_are_an_error_result(tmp_path: Path, make_skill: Any, tool: str, raw: str) -> None:
    make_skill(tmp_path / "skills", "demo")
    toolkit = Toolkit(Registry.from_roots([tmp_path / "skills"], Config()))
    result = toolkit.call(tool, raw, session=Session())
    assert result.is_error
    assert "invalid" in result.content or "must be" in result.content


def test_a_chat_turn_survives_a_huge_integer(tmp_path: Path, make_skill: Any) -> None:
    """Through the real agent loop and the official openai client: the model hears the error and goes on."""
    pytest.importorskip("openai")
    from skillyard.chat import Chat, make_client

    make_skill(tmp_path / "skills", "demo")
    toolkit = Toolkit(Registry.from_roots([tmp_path / "skills"], Config()))
    replies = [Reply(tool_calls=[("skill_load", HOSTILE["an integer of 5000 digits"])]), Reply(content="ok")]
    with ChatServer(scripted(replies)) as server:
        chat = Chat(toolkit, make_client(server.url, "sk-test", 10), "m")
        result = chat.turn("hi")
    assert result.text == "ok"
    (answer,) = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "invalid JSON arguments: Exceeds the limit (4300 digits)" in answer
    assert json.loads(json.dumps(server.requests[1]))  # the conversation stayed valid JSON


def test_a_body_with_a_huge_argument_index_still_loads(tmp_path: Path, make_skill: Any) -> None:
    """`$` and 5000 digits in a body is text that matches no argument, not a failed tool."""
    digits = "1" * 5000
    make_skill(tmp_path / "skills", "big", body=f"Price ${digits}, $ARGUMENTS[{digits}], $1 and $ARGUMENTS\n")
    toolkit = Toolkit(Registry.from_roots([tmp_path / "skills"], Config()))
    result = toolkit.call("skill", json.dumps({"skill": "big", "args": "a b"}), session=Session())
    assert not result.is_error, result.content
    body = json.loads(result.content)[1]["text"]
    assert f"Price ${digits}, $ARGUMENTS[{digits}], b and a b" in body  # $N counts from 0
