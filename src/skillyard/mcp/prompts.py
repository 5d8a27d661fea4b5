"""Skill bodies as MCP prompts, with Claude Code's `$ARGUMENTS` substitution.

Hosts that only support prompts (slash commands) can still use a skill: the
prompt's text is the skill body with the user's arguments substituted exactly
as the `skill` tool does it (one shared implementation). Substitution is one
pass, so a substituted value is never expanded again, and nothing is ever
executed (`!`cmd`` stays literal text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillyard.tools.arguments import substitute_arguments

#: longest argument string accepted (a slash-command line, not a document)
MAX_ARGUMENTS_CHARS = 64 * 1024


def substitute(body: str, arguments: str, *, names: Sequence[str] = (), skill_dir: str = "") -> str:
    """The body with `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name` and `${CLAUDE_SKILL_DIR}` filled in."""
    if len(arguments) > MAX_ARGUMENTS_CHARS:
        raise ValueError(f"arguments exceed {MAX_ARGUMENTS_CHARS} characters")
    return substitute_arguments(body, arguments, names=names, env={"CLAUDE_SKILL_DIR": skill_dir})


#: The prompt that renders the skills catalog (an underscore: no skill name can take it).
CATALOG_PROMPT = "skills_catalog"
CATALOG_PROMPT_DESCRIPTION = (
    "The skills catalog for a system prompt; with `query` (the user's request) the most relevant "
    "skills come first with full descriptions."
)
#: Characters of catalog text the prompt renders unless `budget` says otherwise.
CATALOG_DEFAULT_BUDGET = 8000
MAX_QUERY_CHARS = 1000


def catalog_text(registry: Any, query: str | None, fmt: str = "markdown", budget: int | None = None) -> str:
    """The catalog a prompt-only host pastes into its system prompt, led by the skills relevant to `query`."""
    from skillyard.prompt import relevant_names, render_catalog

    if query is not None and len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"query exceeds {MAX_QUERY_CHARS} characters")
    cap = CATALOG_DEFAULT_BUDGET if budget is None else budget
    return render_catalog(registry.eligible_skills(), fmt, cap, relevant=relevant_names(registry, query)).text
