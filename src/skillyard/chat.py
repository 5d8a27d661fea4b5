"""An agent loop over the toolkit: one OpenAI-compatible chat model decides when to load and run skills.

Each turn sends the system message (guidance, catalog, loaded skills; rebuilt
from the session, so a `skill_load` shows up on the next request), the
conversation and the tool definitions; every tool call goes through
`Toolkit.call`, and its result goes back to the model until it answers in
text. What can go wrong is answered, not raised: an unknown tool or bad JSON
becomes an error result the model reads, a runaway model meets a limit of tool
calls per turn, a run the user did not approve is refused to the model, and an
endpoint that is down or slow ends the turn with `ChatError` within the
client's timeout. The `openai` SDK is imported only when a client is built
(`pip install 'skillyard[chat]'`).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from skillyard.model import BUILTIN_TOOL_NAMES
from skillyard.session import Session

if TYPE_CHECKING:
    from skillyard.tools import Toolkit

__all__ = ["Chat", "ChatError", "TurnResult", "make_client"]

#: Tool calls answered in one turn before the loop stops the model.
DEFAULT_MAX_TOOL_CALLS = 25
#: Seconds one request to the endpoint may take (connect, and between streamed chunks).
DEFAULT_TIMEOUT = 60.0
#: Characters of text and tool calls (each chunk counts at least one) a streamed answer may bring:
#: the timeout is per chunk, so an endpoint that never stops would otherwise hold the turn forever.
MAX_ANSWER_CHARS = 8_000_000

#: approve(tool name, arguments) -> None when the call may go ahead, else the reason it may not.
Approver = Callable[[str, Any], "str | None"]


class ChatError(Exception):
    """The endpoint could not be used (down, slow, refused the request); the message says which and why."""


def needs_approval(name: str) -> bool:
    """Calls that run commands: `skill_run` and every SKILL.toml tool."""
    return name == "skill_run" or name not in BUILTIN_TOOL_NAMES


def make_client(base_url: str | None, api_key: str | None, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """The official OpenAI client for any OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp, OpenAI)."""
    try:
        import openai
    except ImportError as e:
        raise ChatError("skillyard chat needs the openai package: pip install 'skillyard[chat]'") from e
    if base_url is not None and not base_url.lower().startswith(("http://", "https://")):
        raise ChatError(f"the endpoint URL must start with http:// or https:// (got {base_url!r})")
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        if base_url is None:
            raise ChatError("OPENAI_API_KEY is not set (local servers: pass --base-url)")
        key = "unused"  # local servers ignore the key, the SDK wants one
    return openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=1)


@dataclass
class TurnResult:
    """What one user turn produced."""

    text: str = ""
    tool_calls: list[str] = field(default_factory=list)
    stopped: str | None = None  #: why the turn ended before the model answered, if it did


class Chat:
    """A conversation: the messages so far, the toolkit session, and the loop that runs one turn."""

    def __init__(
        self,
        toolkit: Toolkit,
        client: Any,
        model: str,
        *,
        approve: Approver | None = None,
        transcript: IO[str] | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        stream: bool = True,
        strict: bool = False,
        on_text: Callable[[str], None] | None = None,
        on_tool: Callable[[str, Any, Any], None] | None = None,
    ) -> None:
        self.toolkit = toolkit
        self.client = client
        self.model = model
        self.approve = approve or (lambda name, args: None)
        self.transcript = transcript
        self.max_tool_calls = max_tool_calls
        self.stream = stream
        self.strict = strict
        self.on_text = on_text or (lambda text: None)
        self.on_tool = on_tool or (lambda name, args, result: None)
        self.session = Session()
        self.messages: list[dict[str, Any]] = []
        self._system = ""
        self._system_key: tuple[Any, ...] | None = None
        self._query: str | None = None
        self._exported: tuple[int, list[dict[str, Any]]] | None = None

    # ------------------------------------------------------------ the loop

    def turn(self, user_text: str) -> TurnResult:
        """Send one user message and run tool calls until the model answers (or a limit stops it)."""
        if self._query is None:
            self._query = user_text
        self._add({"role": "user", "content": user_text})
        self._system_key = None  # bodies and docs are read afresh each turn, so edits show up
        result = TurnResult()
        while True:
            self._refresh_system()
            message = self._request()
            self._add(message)
            calls = message.get("tool_calls") or []
            if not calls:
                result.text = message.get("content") or ""
                return result
            for call in calls:
                if len(result.tool_calls) >= self.max_tool_calls:
                    result.stopped = (
                        f"stopped after {self.max_tool_calls} tool calls in one turn (--max-tool-calls)"
                    )
                    self._answer(call, f"Error: not run: {result.stopped}")
                    continue
                result.tool_calls.append(call["function"]["name"])
                self._run(call)
            if result.stopped:
                return result

    def interrupted(self) -> None:
        """After Ctrl-C: answer the tool calls left open so the conversation can go on."""
        answered = {m.get("tool_call_id") for m in self.messages if m.get("role") == "tool"}
        for m in reversed(self.messages):
            if m.get("role") == "assistant":
                for call in m.get("tool_calls") or []:
                    if call["id"] not in answered:
                        self._answer(call, "Error: interrupted by the user")
                break

    def close(self) -> None:
        self.toolkit.close_session(self.session)

    # ------------------------------------------------------------ steps

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._log(message)

    def _log(self, message: dict[str, Any]) -> None:
        """Every message as one JSON line, written as it happens, so a failed or interrupted turn keeps it."""
        if self.transcript is not None:
            self.transcript.write(json.dumps(message, ensure_ascii=False) + "\n")
            self.transcript.flush()

    def _refresh_system(self) -> None:
        """Within a turn, the system message changes only when the registry or the session does."""
        key = (self.toolkit.registry.version, json.dumps(self.session.loaded, sort_keys=True))
        if key == self._system_key:
            return
        self._system_key = key
        text = self.toolkit.system_message(self.session, query=self._query)
        if text != self._system:
            self._system = text
            self._log({"role": "system", "content": text})

    def _tools(self) -> list[dict[str, Any]]:
        """The exported tools, built again only when the registry changes (enums of names follow it)."""
        version = self.toolkit.registry.version
        if self._exported is None or self._exported[0] != version:
            self._exported = (version, self.toolkit.export("openai", strict=self.strict))
        return self._exported[1]

    def _request(self) -> dict[str, Any]:
        """One request to the endpoint; the assistant message it answered with."""
        import openai

        messages = [{"role": "system", "content": self._system}, *self.messages]
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=messages, tools=self._tools(), stream=self.stream
            )
            if self.stream:
                return self._collect(response)
            choice = response.choices[0].message
            if choice.content:
                self.on_text(choice.content)
            return _assistant(
                choice.content,
                [
                    {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                    for c in choice.tool_calls or []
                ],
            )
        except openai.APITimeoutError as e:
            raise ChatError(f"the model endpoint did not answer in time ({_where(self.client)})") from e
        except openai.APIConnectionError as e:
            raise ChatError(f"cannot reach the model endpoint at {_where(self.client)}: {e}") from e
        except openai.APIStatusError as e:
            raise ChatError(
                f"the model endpoint refused the request (HTTP {e.status_code}): {_brief(e)}"
            ) from e
        except openai.OpenAIError as e:
            raise ChatError(f"the model endpoint failed: {e}") from e
        # a server that is not quite OpenAI's
        except (ValueError, LookupError, TypeError, AttributeError) as e:
            raise ChatError(
                f"the model endpoint sent an answer that could not be read: {type(e).__name__}: {e}"
            ) from e

    def _collect(self, stream: Iterable[Any]) -> dict[str, Any]:
        """A streamed answer, put together: text as it arrives, tool calls by index."""
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        size = 0
        for chunk in stream:
            size += 1
            if size > MAX_ANSWER_CHARS:
                getattr(stream, "close", lambda: None)()
                raise ChatError(
                    f"the model endpoint sent more than {MAX_ANSWER_CHARS} characters in one answer"
                )
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is None:
                    continue
                size += len(delta.content or "")
                if delta.content:
                    text.append(delta.content)
                    self.on_text(delta.content)
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    if tc.id:
                        slot["id"] = tc.id
                    if tc.function is not None:
                        slot["name"] += tc.function.name or ""
                        slot["arguments"] += tc.function.arguments or ""
                        size += len(tc.function.name or "") + len(tc.function.arguments or "")
        return _assistant("".join(text) or None, [calls[i] for i in sorted(calls)])

    def _run(self, call: dict[str, Any]) -> None:
        name = call["function"]["name"]
        raw = call["function"]["arguments"]
        if needs_approval(name) and self.toolkit.get(name) is not None:
            refusal = self.approve(name, raw)
            if refusal is not None:
                self.on_tool(name, raw, None)
                self._answer(call, f"Error: not run: {refusal}")
                return
        result = self.toolkit.call(name, raw, session=self.session)
        self.on_tool(name, raw, result)
        self._answer(call, result.content)

    def _answer(self, call: dict[str, Any], content: str) -> None:
        self._add({"role": "tool", "tool_call_id": call["id"], "content": content})


def _assistant(content: str | None, calls: list[dict[str, str]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"] or f"call_{uuid.uuid4().hex[:12]}",  # some servers send none; results need one
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in calls
        ]
    return message


def _where(client: Any) -> str:
    return str(getattr(client, "base_url", "the endpoint")).rstrip("/")


def _brief(e: Any) -> str:
    text = str(getattr(e, "message", "") or e)
    return text if len(text) <= 300 else text[:299] + "…"
