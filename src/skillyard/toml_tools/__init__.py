"""SKILL.toml `[[tools]]` as native function-calling tools that values cannot hijack.

`tool_schema` gives the JSON schema, `build_invocation` the argv (or bash script
plus environment) for one call, `run_tool` runs it in the skill directory through
the executor layer, `plan_tool_names` gives every tool a unique,
provider-safe name, and `tool_plan` the tools a registry offers the model.
"""

from skillyard.toml_tools.errors import TemplateError, ToolArgError
from skillyard.toml_tools.invocation import (
    Invocation,
    build_invocation,
    parameters,
    parse_arguments,
    tool_schema,
)
from skillyard.toml_tools.lint import lint_tool
from skillyard.toml_tools.naming import (
    BUILTIN_TOOL_NAMES,
    plan_tool_names,
    sanitize_tool_name,
    tool_definition,
)
from skillyard.toml_tools.plan import tool_plan
from skillyard.toml_tools.runner import run_tool
from skillyard.toml_tools.template import CompiledTemplate, compile_template

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "CompiledTemplate",
    "Invocation",
    "TemplateError",
    "ToolArgError",
    "build_invocation",
    "compile_template",
    "lint_tool",
    "parameters",
    "parse_arguments",
    "plan_tool_names",
    "run_tool",
    "sanitize_tool_name",
    "tool_definition",
    "tool_plan",
    "tool_schema",
]
