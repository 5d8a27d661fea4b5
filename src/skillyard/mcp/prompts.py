"""Skill bodies as MCP prompts, with Claude Code's `$ARGUMENTS` substitution.

Hosts that only support prompts (slash commands) can still use a skill: the
prompt's text is the skill body with the user's arguments substituted the way
Claude Code does it. Substitution is one pass, so a substituted value is never
expanded again, and nothing is ever executed (`!`cmd`` stays literal text).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

#: longest argument string accepted (a slash-command line, not a document)
MAX_ARGUMENTS_CHARS = 64 * 1024

_TOKEN = re.compile(
    r"\\\$"  # escaped dollar
    r"|\$ARGUMENTS\[(\d+)\]"  # $ARGUMENTS[N]
    r"|\$ARGUMENTS\.(\d+)"  # legacy $ARGUMENTS.N
    r"|\$ARGUMENTS\b"
    r"|\$\{CLAUDE_SKILL_DIR\}"
    r"|\$(\d+)"  # $N
    r"|\$([A-Za-z_][A-Za-z0-9_-]*)"  # $name
)


def split_arguments(arguments: str) -> list[str]:
    """Shell-style split; an unbalanced quote falls back to whitespace splitting."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def substitute(body: str, arguments: str, *, names: Sequence[str] = (), skill_dir: str = "") -> str:
    """The body with `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name` and `${CLAUDE_SKILL_DIR}` filled in.

    When the body never mentions `$ARGUMENTS` (in any form) and arguments were
    given, `ARGUMENTS: <value>` is appended, as Claude Code does.
    """
    if len(arguments) > MAX_ARGUMENTS_CHARS:
        raise ValueError(f"arguments exceed {MAX_ARGUMENTS_CHARS} characters")
    positional = split_arguments(arguments) if arguments else []
    named = {n: (positional[i] if i < len(positional) else "") for i, n in enumerate(names)}
    used = False

    def repl(m: re.Match[str]) -> str:
        nonlocal used
        text = m.group(0)
        if text == "\\$":
            return "$"
        if m.group(1) is not None or m.group(2) is not None:
            used = True
            idx = int(m.group(1) or m.group(2))
            return positional[idx] if idx < len(positional) else ""
        if text == "$ARGUMENTS":
            used = True
            return arguments
        if text == "${CLAUDE_SKILL_DIR}":
            return skill_dir
        if m.group(3) is not None:
            used = True  # `$N` is shorthand for `$ARGUMENTS[N]`
            idx = int(m.group(3))
            return positional[idx] if idx < len(positional) else text  # unmatched $N stays literal
        name = m.group(4)
        if name in named:
            return named[name]
        return text

    out = _TOKEN.sub(repl, body)
    if arguments and not used:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {arguments}\n"
    return out
