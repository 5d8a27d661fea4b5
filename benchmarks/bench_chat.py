"""What `skillyard chat` adds to each turn, without the model and without the command.

    .venv/bin/python benchmarks/bench_chat.py [--skills 50] [--turns 200]

One turn is what a model that uses a skill asks for: a request that loads the
skill, one that lists its docs, and one that answers, so three requests and two
tool calls. The model is an in-process client returning the SDK's own
response objects (no HTTP), so what is timed is the loop's work: the system
message (guidance, catalog, loaded skill), the tool export, the message list,
reading the responses, and dispatching the calls through the toolkit.

A second figure adds a `skill_run` of `true` and subtracts the command's own
duration as the runner measured it, leaving the run's dispatch (workspace,
environment, result).

Baseline, in the same process: encoding each of the turn's three request
bodies (messages and tools) as JSON, which any client of the endpoint must do
per turn. Target: the loop's overhead <= 2 ms per turn. No asserts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from openai.types.chat import ChatCompletion  # noqa: E402

from skillyard.chat import Chat  # noqa: E402
from skillyard.config import Config, ExecutionSettings  # noqa: E402
from skillyard.registry import Registry  # noqa: E402
from skillyard.tools import Toolkit  # noqa: E402


def make_skills(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"skill-{i:03d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:03d}\ndescription: Does task number {i} with files and reports.\n---\n\n"
            + "Step one.\n" * 40,
            encoding="utf-8",
        )
        (d / "USAGE.md").write_text("usage\n", encoding="utf-8")


def completion(content: str | None = None, calls: list[tuple[str, str]] = ()) -> ChatCompletion:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)
        ]
    return ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    )


class ScriptedClient:
    """`client.chat.completions.create(...)` answering from a list, in process; keeps each request."""

    def __init__(self, replies: list[ChatCompletion]) -> None:
        self.replies = replies
        self.i = 0
        self.sent: list[dict[str, Any]] = []
        self.chat = self
        self.completions = self

    def create(self, **kwargs: Any) -> ChatCompletion:
        self.sent.append(kwargs)
        reply = self.replies[self.i % len(self.replies)]
        self.i += 1
        return reply


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=50)
    ap.add_argument("--turns", type=int, default=200)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        make_skills(root, args.skills)
        config = Config(execution=ExecutionSettings(executor="local", timeout=30))
        toolkit = Toolkit(Registry.from_roots([root], config))
        load = json.dumps({"skill": "skill-007"})
        replies = [
            completion(calls=[("skill_load", load)]),
            completion(calls=[("skill_list_docs", load)]),
            completion("done"),
        ]
        client = ScriptedClient(replies)
        chat = Chat(toolkit, client, "m", stream=False)
        chat.turn("warm up")

        def one_turn() -> float:
            chat.messages = chat.messages[-6:]  # a conversation of steady length
            t0 = time.perf_counter()
            chat.turn("do task 7")
            return time.perf_counter() - t0

        turns = [one_turn() for _ in range(args.turns)]
        bodies = client.sent[-3:]

        def baseline() -> float:
            t0 = time.perf_counter()
            for body in bodies:
                json.dumps(body)
            return time.perf_counter() - t0

        floor = statistics.median(baseline() for _ in range(args.turns))

        run_args = json.dumps({"skill": "skill-007", "command": "true"})
        run_client = ScriptedClient(
            [
                completion(calls=[("skill_load", load)]),
                completion(calls=[("skill_run", run_args)]),
                completion("ok"),
            ]
        )
        run_chat = Chat(toolkit, run_client, "m", stream=False, approve=lambda name, raw: None)
        run_chat.turn("warm up")
        with_run: list[float] = []
        for _ in range(max(20, args.turns // 10)):
            run_chat.messages = run_chat.messages[-6:]
            t0 = time.perf_counter()
            run_chat.turn("run it")
            total = time.perf_counter() - t0
            result = json.loads(run_chat.messages[-2]["content"])
            with_run.append(total - result["duration_ms"] / 1000)
        toolkit.close()

    ms = 1000
    turn = statistics.median(turns)
    p95 = sorted(turns)[int(len(turns) * 0.95) - 1]
    run = statistics.median(with_run)
    print(
        f"skills: {args.skills}, turns: {args.turns}, system message: {len(bodies[-1]['messages'][0]['content'])} chars"
    )
    print(f"baseline: JSON-encode the turn's 3 request bodies   {floor * ms:8.3f} ms")
    print(
        f"chat turn, 3 requests + 2 tool calls (median)       {turn * ms:8.3f} ms  ({turn / floor:6.2f}x baseline)"
        "  target <= 2 ms"
    )
    print(
        f"chat turn, p95                                      {p95 * ms:8.3f} ms  ({p95 / floor:6.2f}x baseline)"
    )
    print(
        f"chat turn with skill_run, minus the command (median) {run * ms:7.3f} ms  ({run / floor:6.2f}x baseline)"
    )


if __name__ == "__main__":
    main()
