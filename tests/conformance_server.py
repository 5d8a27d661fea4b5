"""skillyard's HTTP server in fixture mode, for the MCP conformance suite (`@modelcontextprotocol/conformance`).

    .venv/bin/python tests/conformance_server.py --port 8944 [--root DIR]

The suite's scenarios call fixtures by name (`test_simple_text`, `test://static-text`,
`test_prompt_with_arguments`, ...). This script serves skillyard's real server — the same
`SkillyardServer`, the same HTTP app, session managers, subscriptions, completion and logging —
over a small skills root (one made here unless `--root` is given), and adds the suite's fixture
tools, resources and prompts next to the skills' own, registered with the SDK's decorators.
Lists, reads, completion and subscribe requests for fixtures go through skillyard's handlers,
which hand only the fixture names to the SDK's implementations.

Handshake-era answers stay SSE streams here (`handshake_json=False`): the suite's fixtures send
progress and ask the client for sampling and elicitation within a call, which skillyard's own
tools never do.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import secrets
import struct
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    AudioContent,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    PaginatedRequestParams,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    Tool,
)

from skillyard.mcp import SkillyardServer
from skillyard.registry import Registry

#: a 1x1 red PNG and a 1-sample WAV, the smallest media the content checks accept
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
    )
).decode()
#: RIFF header, a PCM fmt chunk (mono, 8 kHz, 16-bit) and one silent sample
WAV = base64.b64encode(
    struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 38, b"WAVE", b"fmt ", 16, 1, 1, 8000, 16000, 2, 16, b"data", 2)
    + b"\x00\x00"
).decode()
FIXTURE_SCHEME = "test://"
WATCHED = "test://watched-resource"
TEMPLATE = "test://template/{id}/data"
#: completion answers for the suite's prompt argument
CITIES = ("paris", "park", "party", "prague", "porto")


def _elicit(message: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}


def _sample(text: str, max_tokens: int) -> dict[str, Any]:
    message = {"role": "user", "content": {"type": "text", "text": text}}
    return {"method": "sampling/createMessage", "params": {"messages": [message], "maxTokens": max_tokens}}


ROOTS_LIST: dict[str, Any] = {"method": "roots/list", "params": {}}


class ConformanceServer(SkillyardServer):
    """SkillyardServer plus the suite's fixtures; every request still enters through skillyard's handlers."""

    def __init__(self, registry: Registry) -> None:
        super().__init__(registry, watch=True)
        self._state_key = secrets.token_bytes(32)
        self._extra_tool = False
        self._extra_prompt = False
        _register_fixtures(self)

    # -------------------------------------------------------- tools

    async def _fixture_tools(self) -> list[Tool]:
        tools = await MCPServer.list_tools(self)
        return [t for t in tools if t.name != "test_dynamic_tool" or self._extra_tool]

    async def list_tools(self) -> list[Tool]:
        return [*await super().list_tools(), *await self._fixture_tools()]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        return super()._tool_input_schema(name) or MCPServer._tool_input_schema(self, name)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:  # type: ignore[override]
        if name in {t.name for t in await self._fixture_tools()}:
            return await MCPServer.call_tool(self, name, arguments, context)
        return await super().call_tool(name, arguments, context)

    # -------------------------------------------------------- resources

    async def _list_resources_page(self, ctx: Any, params: PaginatedRequestParams) -> ListResourcesResult:
        page = await super()._list_resources_page(ctx, params)
        if params.cursor is None:
            page.resources[:0] = await MCPServer.list_resources(self)
        return page

    async def list_resource_templates(self) -> list[Any]:  # type: ignore[override]
        return [*await super().list_resource_templates(), *await MCPServer.list_resource_templates(self)]

    async def read_resource(self, uri: Any, context: Any = None) -> Any:  # type: ignore[override]
        if str(uri).startswith(FIXTURE_SCHEME):
            return await MCPServer.read_resource(self, uri, context)
        return await super().read_resource(uri, context)

    def _is_listed(self, uri: str) -> bool:
        return uri == WATCHED or super()._is_listed(uri)

    # -------------------------------------------------------- prompts and completion

    async def _fixture_prompts(self) -> list[Any]:
        prompts = await MCPServer.list_prompts(self)
        return [p for p in prompts if p.name != "test_dynamic_prompt" or self._extra_prompt]

    async def _list_prompts_page(self, ctx: Any, params: PaginatedRequestParams) -> ListPromptsResult:
        page = await super()._list_prompts_page(ctx, params)
        if params.cursor is None:
            page.prompts.extend(await self._fixture_prompts())
        return page

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:  # type: ignore[override]
        if name in {p.name for p in await self._fixture_prompts()}:
            return await MCPServer.get_prompt(self, name, arguments, context)
        return await super().get_prompt(name, arguments, context)

    def complete(self, params: CompleteRequestParams) -> CompleteResult:
        ref = params.ref
        if ref.type == "ref/prompt" and ref.name == "test_prompt_with_arguments":
            values = [c for c in CITIES if c.startswith(params.argument.value)]
            return CompleteResult(completion=Completion(values=values, total=len(values), has_more=False))
        if ref.type == "ref/resource" and ref.uri == TEMPLATE:
            values = [v for v in ("1", "12", "123") if v.startswith(params.argument.value)]
            return CompleteResult(completion=Completion(values=values, total=len(values), has_more=False))
        return super().complete(params)

    # -------------------------------------------------------- request state

    def seal(self, state: dict[str, Any]) -> str:
        raw = json.dumps(state, sort_keys=True).encode()
        tag = hmac.new(self._state_key, raw, hashlib.sha256).hexdigest()
        return base64.urlsafe_b64encode(raw).decode() + "." + tag

    def unseal(self, token: str | None) -> dict[str, Any]:
        try:
            body, tag = str(token).rsplit(".", 1)
            raw = base64.urlsafe_b64decode(body.encode())
        except (ValueError, TypeError):
            raise MCPError(INVALID_PARAMS, "requestState failed its integrity check") from None
        if not hmac.compare_digest(tag, hmac.new(self._state_key, raw, hashlib.sha256).hexdigest()):
            raise MCPError(INVALID_PARAMS, "requestState failed its integrity check")
        return json.loads(raw)


def _text(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _answer(ctx: Context[Any, Any], key: str) -> dict[str, Any] | None:
    """The client's answer to input request `key`, if it is a well-formed object."""
    got = (ctx.input_responses or {}).get(key)
    if got is None:
        return None
    data = got.model_dump(by_alias=True, exclude_none=True) if hasattr(got, "model_dump") else got
    return data if isinstance(data, dict) else None


def _client_caps(ctx: Context[Any, Any]) -> dict[str, Any]:
    caps = ctx.client_capabilities
    return caps.model_dump(by_alias=True, exclude_none=True) if caps is not None else {}


def _register_fixtures(s: ConformanceServer) -> None:  # noqa: C901 - one flat list of fixtures
    # ------------------------------------------------ tools with fixed content
    @s.tool(name="test_simple_text", description="Returns simple text")
    def simple_text() -> CallToolResult:
        return _text("This is a simple text response for testing.")

    @s.tool(name="test_image_content", description="Returns an image")
    def image_content() -> CallToolResult:
        return CallToolResult(content=[ImageContent(type="image", data=PNG, mime_type="image/png")])

    @s.tool(name="test_audio_content", description="Returns audio")
    def audio_content() -> CallToolResult:
        return CallToolResult(content=[AudioContent(type="audio", data=WAV, mime_type="audio/wav")])

    embedded = TextResourceContents(
        uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."
    )

    @s.tool(name="test_embedded_resource", description="Returns an embedded resource")
    def embedded_resource() -> CallToolResult:
        return CallToolResult(content=[EmbeddedResource(type="resource", resource=embedded)])

    @s.tool(name="test_multiple_content_types", description="Returns text, an image and a resource")
    def multiple_content_types() -> CallToolResult:
        mixed = TextResourceContents(
            uri="test://mixed-content-resource",
            mime_type="application/json",
            text=json.dumps({"test": "data", "value": 123}),
        )
        return CallToolResult(
            content=[
                TextContent(type="text", text="Multiple content types test:"),
                ImageContent(type="image", data=PNG, mime_type="image/png"),
                EmbeddedResource(type="resource", resource=mixed),
            ]
        )

    @s.tool(name="test_error_handling", description="Always fails")
    def error_handling() -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text="This tool intentionally returns an error for testing")],
            is_error=True,
        )

    # ------------------------------------------------ tools that talk back during the call
    @s.tool(name="test_tool_with_logging", description="Sends three log messages")
    async def tool_with_logging(ctx: Context[Any, Any]) -> CallToolResult:
        await ctx.info("Tool execution started")
        await anyio.sleep(0.05)
        await ctx.info("Tool processing data")
        await anyio.sleep(0.05)
        await ctx.info("Tool execution completed")
        return _text("Tool with logging executed successfully")

    @s.tool(name="test_tool_with_progress", description="Reports progress")
    async def tool_with_progress(ctx: Context[Any, Any]) -> CallToolResult:
        for step in (0, 50, 100):
            await ctx.report_progress(step, 100)
            if step < 100:
                await anyio.sleep(0.05)
        return _text("Tool with progress executed successfully")

    @s.tool(name="test_sampling", description="Asks the client's model")
    async def sampling(prompt: str, ctx: Context[Any, Any]) -> CallToolResult:
        if "sampling" not in _client_caps(ctx):
            return CallToolResult(
                content=[TextContent(type="text", text="client has no sampling")], is_error=True
            )
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        got = await ctx.session.create_message([message], max_tokens=100)  # type: ignore[attr-defined]
        content = got.content
        text = getattr(content, "text", None) or json.dumps(content.model_dump(mode="json"))
        return _text(f"LLM response: {text}")

    async def elicit_text(ctx: Context[Any, Any], message: str, schema: dict[str, Any]) -> str:
        result = await ctx.session.elicit_form(message, schema)  # type: ignore[attr-defined]
        return f"action={result.action}, content={json.dumps(result.content)}"

    @s.tool(name="test_elicitation", description="Asks the user")
    async def elicitation(message: str, ctx: Context[Any, Any]) -> CallToolResult:
        props = {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        }
        schema = {"type": "object", "properties": props, "required": ["username", "email"]}
        return _text("User response: " + await elicit_text(ctx, message, schema))

    @s.tool(name="test_elicitation_sep1034_defaults", description="Asks with defaults")
    async def elicitation_defaults(ctx: Context[Any, Any]) -> CallToolResult:
        props = {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": True},
        }
        got = await elicit_text(
            ctx, "Please review your information", {"type": "object", "properties": props}
        )
        return _text("Elicitation completed: " + got)

    @s.tool(name="test_elicitation_sep1330_enums", description="Asks with every enum form")
    async def elicitation_enums(ctx: Context[Any, Any]) -> CallToolResult:
        props = {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {
                "type": "string",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]
                },
            },
        }
        got = await elicit_text(ctx, "Pick some options", {"type": "object", "properties": props})
        return _text("Elicitation completed: " + got)

    # ------------------------------------------------ 2026-07-28: list changes, capabilities, input_required
    @s.tool(name="test_trigger_tool_change", description="Changes the tool list")
    async def trigger_tool_change(ctx: Context[Any, Any]) -> CallToolResult:
        s._extra_tool = not s._extra_tool
        await ctx.notify_tools_changed()
        return _text("tool list changed")

    @s.tool(name="test_dynamic_tool", description="Listed only after test_trigger_tool_change")
    def dynamic_tool() -> CallToolResult:
        return _text("dynamic")

    @s.tool(name="test_trigger_prompt_change", description="Changes the prompt list")
    async def trigger_prompt_change(ctx: Context[Any, Any]) -> CallToolResult:
        s._extra_prompt = not s._extra_prompt
        await ctx.notify_prompts_changed()
        return _text("prompt list changed")

    @s.tool(name="test_missing_capability", description="Needs the client's sampling capability")
    def missing_capability(ctx: Context[Any, Any]) -> CallToolResult:
        if "sampling" not in _client_caps(ctx):
            raise MCPError(
                MISSING_REQUIRED_CLIENT_CAPABILITY,
                "this tool needs the sampling capability",
                {"requiredCapabilities": {"sampling": {}}},
            )
        return _text("the client can sample")

    name_request = _elicit("What is your name?", {"name": {"type": "string"}}, ["name"])

    @s.tool(name="test_input_required_result_elicitation", description="Asks for a name first")
    def ir_elicitation(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        answer = _answer(ctx, "user_name")
        if answer is None:
            return InputRequiredResult(input_requests={"user_name": name_request})
        name = (answer.get("content") or {}).get("name", "")
        return _text(f"Hello, {name}!")

    @s.tool(name="test_input_required_result_sampling", description="Asks the model first")
    def ir_sampling(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        answer = _answer(ctx, "capital_question")
        if answer is None:
            return InputRequiredResult(
                input_requests={"capital_question": _sample("What is the capital of France?", 100)}
            )
        return _text(f"The model said: {(answer.get('content') or {}).get('text', '')}")

    @s.tool(name="test_input_required_result_list_roots", description="Asks for the client's roots first")
    def ir_list_roots(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        answer = _answer(ctx, "client_roots")
        if answer is None:
            return InputRequiredResult(input_requests={"client_roots": ROOTS_LIST})
        roots = [r.get("uri") for r in answer.get("roots", []) if isinstance(r, dict)]
        return _text(f"Client roots: {', '.join(str(r) for r in roots)}")

    confirm_request = _elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])

    @s.tool(name="test_input_required_result_request_state", description="Round-trips requestState")
    def ir_request_state(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        if _answer(ctx, "confirm") is None or ctx.request_state is None:
            return InputRequiredResult(
                input_requests={"confirm": confirm_request}, request_state=s.seal({"step": "confirm"})
            )
        if s.unseal(ctx.request_state).get("step") != "confirm":
            raise MCPError(INVALID_PARAMS, "requestState is for another step")
        return _text("state-ok: confirmed")

    @s.tool(name="test_input_required_result_multiple_inputs", description="Asks three things at once")
    def ir_multiple(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        keys = ("user_name", "greeting", "client_roots")
        if ctx.request_state is None or any(_answer(ctx, k) is None for k in keys):
            return InputRequiredResult(
                input_requests={
                    "user_name": name_request,
                    "greeting": _sample("Generate a greeting", 50),
                    "client_roots": ROOTS_LIST,
                },
                request_state=s.seal({"step": "all"}),
            )
        s.unseal(ctx.request_state)
        return _text("received all three answers")

    @s.tool(name="test_input_required_result_multi_round", description="Asks twice")
    def ir_multi_round(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        step = s.unseal(ctx.request_state).get("step") if ctx.request_state is not None else None
        if step == "step2" and _answer(ctx, "step2") is not None:
            return _text("multi-round complete")
        if step == "step1" and _answer(ctx, "step1") is not None:
            color = _elicit("Step 2: What is your favorite color?", {"color": {"type": "string"}}, ["color"])
            return InputRequiredResult(
                input_requests={"step2": color}, request_state=s.seal({"step": "step2"})
            )
        first = _elicit("Step 1: What is your name?", {"name": {"type": "string"}}, ["name"])
        return InputRequiredResult(input_requests={"step1": first}, request_state=s.seal({"step": "step1"}))

    @s.tool(name="test_input_required_result_tampered_state", description="Checks its requestState")
    def ir_tampered(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        if ctx.request_state is None:
            return InputRequiredResult(
                input_requests={"confirm": confirm_request}, request_state=s.seal({"step": "tamper"})
            )
        s.unseal(ctx.request_state)
        return _text("state-ok")

    @s.tool(
        name="test_input_required_result_capabilities", description="Asks only what the client can answer"
    )
    def ir_capabilities(ctx: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
        if ctx.input_responses:
            return _text("answered")
        caps = _client_caps(ctx)
        wanted: dict[str, Any] = {}
        if "elicitation" in caps:
            wanted["user_name"] = name_request
        if "sampling" in caps:
            wanted["greeting"] = _sample("Generate a greeting", 50)
        if "roots" in caps:
            wanted["client_roots"] = ROOTS_LIST
        if not wanted:
            return _text("the client declared nothing to ask with")
        return InputRequiredResult(input_requests=wanted)

    # ------------------------------------------------ resources
    @s.resource(
        "test://static-text", name="static-text", description="A static text resource", mime_type="text/plain"
    )
    def static_text() -> str:
        return "This is the content of the static text resource."

    @s.resource(
        "test://static-binary", name="static-binary", description="A static PNG", mime_type="image/png"
    )
    def static_binary() -> bytes:
        return base64.b64decode(PNG)

    @s.resource(
        WATCHED, name="watched-resource", description="A resource to subscribe to", mime_type="text/plain"
    )
    def watched() -> str:
        return "Watched resource content"

    @s.resource(TEMPLATE, name="template-data", description="Data for an id", mime_type="application/json")
    def template_data(id: str) -> str:  # noqa: A002 - the template's own variable name
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

    # ------------------------------------------------ prompts
    @s.prompt(name="test_simple_prompt", description="A simple prompt")
    def simple_prompt() -> str:
        return "This is a simple prompt for testing."

    @s.prompt(name="test_prompt_with_arguments", description="A prompt with two arguments")
    def prompt_with_arguments(arg1: str, arg2: str) -> str:
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @s.prompt(name="test_prompt_with_embedded_resource", description="A prompt with a resource")
    def prompt_with_embedded_resource(resourceUri: str) -> list[Any]:  # noqa: N803 - the suite's argument name
        resource = TextResourceContents(
            uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
        )
        return [
            EmbeddedResource(type="resource", resource=resource),
            TextContent(type="text", text="Please process the embedded resource above."),
        ]

    @s.prompt(name="test_prompt_with_image", description="A prompt with an image")
    def prompt_with_image() -> list[Any]:
        return [
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            TextContent(type="text", text="Please analyze the image above."),
        ]

    @s.prompt(name="test_dynamic_prompt", description="Listed only after test_trigger_prompt_change")
    def dynamic_prompt() -> str:
        return "dynamic"

    @s.prompt(name="test_input_required_result_prompt", description="Asks for context first")
    def ir_prompt(ctx: Context[Any, Any]) -> Any:
        answer = _answer(ctx, "user_context")
        if answer is None:
            question = _elicit(
                "What context should the prompt use?", {"context": {"type": "string"}}, ["context"]
            )
            return InputRequiredResult(input_requests={"user_context": question})
        return f"Use this context: {(answer.get('content') or {}).get('context', '')}"


def fixture_root(base: Path) -> Path:
    """One real skill (with a subdirectory) next to the fixtures: the suite's list and read checks, and its
    Skills-extension scenarios, see skillyard's own."""
    skill = base / "skills" / "conformance-demo"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        "---\nname: conformance-demo\ndescription: A skill served next to the conformance fixtures.\n"
        "argument-hint: '[topic]'\n---\n\nExplain $ARGUMENTS.\n",
        encoding="utf-8",
    )
    (skill / "references").mkdir(exist_ok=True)
    (skill / "references" / "notes.md").write_text("# Notes\n\nMore detail.\n", encoding="utf-8")
    return base / "skills"


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8944)
    ap.add_argument("--root", type=Path, help="skills root (default: a fresh one with one skill)")
    args = ap.parse_args()
    root = args.root or fixture_root(Path(tempfile.mkdtemp(prefix="skillyard-conformance-")))
    server = ConformanceServer(Registry.from_roots([root]))
    app = server.http_app(host="127.0.0.1", handshake_json=False)
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning")).run()


if __name__ == "__main__":
    main()
