"""Authoring checks for SKILL.toml tools: problems a skill author should fix before a model calls them."""

from __future__ import annotations

import re

from skillyard.model import Diagnostic, ToolSpec
from skillyard.toml_tools.invocation import _is_own_flag, arithmetic_problems, parameters
from skillyard.toml_tools.template import compile_template
from skillyard.toml_tools.values import ValueProblem, render_value


def lint_tool(spec: ToolSpec, path: str = "") -> list[Diagnostic]:
    """Errors (the tool cannot run) and warnings (it runs, but not as the author probably meant)."""
    out: list[Diagnostic] = []

    def note(code: str, msg: str, level: str = "warning") -> None:
        out.append(Diagnostic(level, code, f"tool '{spec.name}': {msg}", path))

    if spec.kind != "shell":
        note("tool-kind", f"kind '{spec.kind}' is not supported (only shell)", "error")
        return out
    ct = compile_template(spec.command)
    problems = [_with_hint(spec.command, ct.error)] if ct.error is not None else arithmetic_problems(spec, ct)
    for problem in problems:
        note("tool-template", problem, "error")
    if problems:
        return out
    used = set(ct.names)
    for arg in spec.args:
        if arg.name not in used:
            note(
                "tool-unused-arg", f"argument '{arg.name}' is declared but the command has no {{{arg.name}}}"
            )
    params = {p.name: p for p in parameters(spec)}
    for p in params.values():
        checks = [("default", p.default)] if p.default is not None else []
        if p.type != "array":
            checks += [("enum value", v) for v in p.enum or ()]
        for label, value in checks:
            try:
                render_value(p, value)
            except ValueProblem as e:
                note("tool-bad-value", f"{label} {value!r} of '{p.name}' does not fit its type: {e}")
    words = ct.words
    for idx, w in enumerate(words):
        if w.slot is None or w.slot.form != "whole" or idx < 1:
            continue
        p = params[w.slot.name]
        prev = words[idx - 1]
        if prev.slot is not None or prev.command != w.command or not prev.text.startswith("-"):
            continue
        omittable = not p.required or p.default is not None
        if omittable and p.default is None and not _is_own_flag(prev.text, p.name):
            note(
                "tool-orphan-flag",
                f"when '{p.name}' is left out, '{prev.text}' stays in the command; "
                f"write {prev.text}={{{p.name}}} or name the argument after the flag",
            )
        if p.allow_dash and prev.text.startswith("--") and "=" not in prev.text:
            note(
                "tool-dash-value",
                f"'{p.name}' may start with '-', and most option parsers then read it as an option: "
                f"write {prev.text}={{{p.name}}}",
            )
    return out


#: `{{name}}`: the placeholder spelling of Jinja, Mustache and Handlebars templates.
_DOUBLED = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _with_hint(command: str, error: str) -> str:
    """The template error, led by what to write instead when the command uses `{{name}}`."""
    names = list(dict.fromkeys(m.group(1) for m in _DOUBLED.finditer(command)))
    if not names:
        return error
    hint = "; ".join(f"use {{{n}}}, not {{{{{n}}}}}" for n in names)
    return f"placeholders take single braces: {hint} ({error})"
