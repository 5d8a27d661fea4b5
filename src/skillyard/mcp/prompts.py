"""Skill bodies as MCP prompts, with Claude Code's `$ARGUMENTS` substitution.

Hosts that only support prompts (slash commands) can still use a skill: the
prompt's text is the skill body with the user's arguments substituted exactly
as the `skill` tool does it (one shared implementation). Substitution is one
pass, so a substituted value is never expanded again, and nothing is ever
executed (`!`cmd`` stays literal text).
"""

from __future__ import annotations

from collections.abc import Sequence

from skillyard.tools.arguments import substitute_arguments

#: longest argument string accepted (a slash-command line, not a document)
MAX_ARGUMENTS_CHARS = 64 * 1024


def substitute(body: str, arguments: str, *, names: Sequence[str] = (), skill_dir: str = "") -> str:
    """The body with `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name` and `${CLAUDE_SKILL_DIR}` filled in."""
    if len(arguments) > MAX_ARGUMENTS_CHARS:
        raise ValueError(f"arguments exceed {MAX_ARGUMENTS_CHARS} characters")
    return substitute_arguments(body, arguments, names=names, env={"CLAUDE_SKILL_DIR": skill_dir})
