"""Skill tools for agent frameworks, each a thin layer over `Toolkit` in its own module.

Every adapter takes a `Toolkit` (and optionally a `Session`), exposes the
toolkit's tools in the framework's own tool type and sends every call through
`Toolkit.call`, so validation, error results and the strict-shape reading are
the same everywhere. Each module imports its framework when used; install the
matching extra:

| module | framework | extra |
|---|---|---|
| `skillyard.adapters.pydantic_ai` | pydantic-ai (a toolset) | `skillyard[pydantic-ai]` |
| `skillyard.adapters.openai_agents` | OpenAI Agents SDK (function tools) | `skillyard[openai-agents]` |
| `skillyard.adapters.langchain` | LangChain (structured tools) | `skillyard[langchain]` |
| `skillyard.adapters.anthropic` | Anthropic SDK tool runner | `skillyard[anthropic]` |
"""
