"""Claude Code argument substitution for skill bodies (`$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name`).

One left-to-right pass over the body, so a substituted value is never
expanded again (an argument containing `$1` stays `$1`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

_TOKEN = re.compile(
    r"\\\$"  # escaped dollar: \$1.00 -> $1.00
    r"|\$\{(?P<env>CLAUDE_[A-Z_]+)\}"
    r"|\$ARGUMENTS\[(?P<idx>\d+)\]"
    r"|\$ARGUMENTS\.(?P<dotidx>\d+)"
    r"|\$ARGUMENTS(?![A-Za-z0-9_])"
    r"|\$(?P<num>\d+)"
    r"|\$(?P<name>[A-Za-z_][A-Za-z0-9_-]*)"
)
#: How much longer than the body the arguments may make it: a body of many placeholders and a long
#: argument would otherwise multiply (4 MiB of `$0` and 1,000 characters make 2 GB)
MAX_GROWTH_CHARS = 1024 * 1024


def split_arguments(raw: str) -> list[str]:
    """Shell-style split; unbalanced quotes fall back to whitespace splitting rather than failing."""
    try:
        return shlex.split(raw)
    except ValueError:
        return raw.split()


def substitute_arguments(
    body: str,
    raw: str,
    *,
    names: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> str:
    """`body` with the arguments filled in; `ARGUMENTS: <raw>` appended when the body has no `$ARGUMENTS`.
    A ValueError when that would make the body more than MAX_GROWTH_CHARS longer."""
    positional = split_arguments(raw)
    named = {n: (positional[i] if i < len(positional) else "") for i, n in enumerate(names)}
    env = env or {}
    grown = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal grown
        out = value(m)
        grown += len(out) - len(m.group(0))
        if grown > MAX_GROWTH_CHARS:
            raise ValueError(f"the arguments make the instructions over {MAX_GROWTH_CHARS} characters longer")
        return out

    def value(m: re.Match[str]) -> str:
        text = m.group(0)
        if text == "\\$":
            return "$"
        if m.group("env") is not None:
            return env.get(m.group("env"), text)
        index = m.group("idx") or m.group("dotidx") or m.group("num")
        if index is not None:
            i = int(index) if len(index) < 10 else len(positional)  # past int()'s digit limit too
            return positional[i] if i < len(positional) else text  # unmatched stays literal
        if m.group("name") is not None:
            name = m.group("name")
            return named.get(name, text)
        return raw  # $ARGUMENTS

    out = _TOKEN.sub(repl, body)
    if "$ARGUMENTS" not in body and raw:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {raw}"
    return out
