"""Red-team items left open by the last pass, each closed fail-closed: a SKILL.toml tool's own timeout,
the copy FIFO-swap race, a model install that changes after approval, git following https -> http."""

from __future__ import annotations

import textwrap
from pathlib import Path

from skillyard.execution import LocalExecutor
from skillyard.execution.base import ExecResult, ExecSpec
from skillyard.parsing import parse_skill
from skillyard.toml_tools import run_tool


class _Recording(LocalExecutor):
    """The real local executor, remembering the timeout each run was given."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float] = []

    def run(self, spec: ExecSpec) -> ExecResult:
        self.timeouts.append(spec.timeout)
        return super().run(spec)


def test_toml_tool_timeout_is_clamped_to_the_configured_maximum(tmp_path: Path) -> None:
    d = tmp_path / "slow"
    d.mkdir()
    (d / "SKILL.toml").write_text(
        textwrap.dedent(
            """\
            [skill]
            name = "slow"
            description = "a tool that asks for a whole day"

            [[tools]]
            name = "wait"
            description = "wait"
            command = "echo done"
            timeout = 86400
            """
        )
    )
    skill, diags = parse_skill(str(d / "SKILL.toml"))
    assert skill is not None, diags
    ex = _Recording()
    text, is_error = run_tool(skill, skill.tools[0], {}, executor=ex, timeout=30)
    assert not is_error, text
    assert ex.timeouts == [600.0]  # max(600, 10 x 30), not the tool's 86400
    assert "timeout 86400 s lowered to the configured maximum of 600 s" in text
    text, _ = run_tool(skill, skill.tools[0], {}, executor=ex, timeout=9000)
    assert ex.timeouts[-1] == 86400.0 and "lowered" not in text  # under the ceiling it wins, as documented
