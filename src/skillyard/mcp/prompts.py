"""The `skills_catalog` prompt, and the cap on a skill prompt's `arguments`.

Skill bodies are MCP prompts too (server.py), with the user's arguments substituted exactly
as the `skill` tool does it (`skillyard.tools.arguments`): one pass, nothing ever executed.
"""

from __future__ import annotations

from typing import Any

#: longest argument string accepted (a slash-command line, not a document)
MAX_ARGUMENTS_CHARS = 64 * 1024

#: The prompt that renders the skills catalog (an underscore: no skill name can take it).
CATALOG_PROMPT = "skills_catalog"
CATALOG_PROMPT_DESCRIPTION = (
    "The skills catalog for a system prompt; with `query` (the user's request) the most relevant "
    "skills come first with full descriptions."
)
#: Characters of catalog text the prompt renders.
CATALOG_DEFAULT_BUDGET = 8000
MAX_QUERY_CHARS = 1000


def catalog_text(registry: Any, query: str | None, offset: int = 0) -> str:
    """The catalog a prompt-only host pastes into its system prompt, led by the skills relevant to `query`.

    `offset` picks which skills keep their descriptions when not all fit (the server passes one per
    client, as the tools' system message does per session), so no skill goes without one for every host."""
    from skillyard.prompt import relevant_names, render_catalog

    if query is not None and len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"query exceeds {MAX_QUERY_CHARS} characters")
    skills, relevant = registry.eligible_skills(), relevant_names(registry, query)
    return render_catalog(skills, "markdown", CATALOG_DEFAULT_BUDGET, relevant=relevant, offset=offset).text
