"""Running one SKILL.toml tool call and answering the model in the words docs/toml-tools.md lists.

The command runs from the skill directory (so `scripts/x.py` resolves), with a
cleared environment, a timeout, and through the configured executor (the
sandbox keeps the skill read-only and the network off). Everything the model
sees — stdout, stderr, error texts — is scrubbed of credentials first and
capped afterwards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import TYPE_CHECKING, Any

from skillyard.toml_tools.errors import ToolArgError
from skillyard.toml_tools.invocation import build_invocation

if TYPE_CHECKING:
    from skillyard.execution.base import Executor
    from skillyard.model import Skill, ToolSpec

#: Longest text handed back to the model (after scrubbing).
MAX_RESULT_CHARS = 100_000
#: Where an isolated executor shows the skill directory.
SANDBOX_SKILL_DIR = "/skill"
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
DEFAULT_TIMEOUT = 60.0


def _cap(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n... [output truncated at {MAX_RESULT_CHARS} characters]"


def _format(result: Any, timeout: float, scrub: Any, notes: list[str]) -> tuple[str, bool]:
    stdout = scrub(result.text("stdout")).rstrip("\n")
    stderr = scrub(result.text("stderr")).rstrip("\n")
    notes += [f"[{scrub(w)}]" for w in getattr(result, "warnings", []) or []]
    notes += [f"[{s} truncated]" for s in ("stdout", "stderr") if getattr(result, f"{s}_truncated", False)]
    if result.timed_out:
        parts = [f"Command timed out after {timeout:g}s and was killed"]
        if stdout:
            parts.append(f"Partial output:\n{stdout}")
        if stderr:
            parts.append(f"stderr:\n{stderr}")
        return _cap("\n".join(parts + notes)), True
    if result.exit_code != 0:
        detail = stderr or stdout or "(no output)"
        return _cap(
            "\n".join([f"Command failed:\n{detail}", f"[exit code {result.exit_code}]", *notes])
        ), True
    return _cap("\n".join([stdout or "(no output)", *notes])), False


def run_tool(
    skill: Skill,
    spec: ToolSpec,
    args: Any,
    executor: str | Executor = "sandbox",
    timeout: float | None = DEFAULT_TIMEOUT,
) -> tuple[str, bool]:
    """Validate, build and run one call; return (text for the model, is_error). Never raises.

    `timeout` is the caller's (configured) limit; a tool's own `timeout` wins over it, up to the same
    ceiling a `skill_run` request has (a skill must not hold a call longer than the person allows).
    """
    if not skill.runnable:
        from skillyard.execution.runner import NOT_RUNNABLE

        return f"Failed to execute command: {NOT_RUNNABLE.format(name=skill.name)}", True
    try:
        inv = build_invocation(spec, args)
    except ToolArgError as e:
        return str(e), True
    except Exception as e:  # a bug here must still not crash the agent loop
        return f"Failed to render skill tool command: {type(e).__name__}", True
    # Imported here: loading skills (which plans SKILL.toml tools) must not pull in the execution layer.
    from skillyard.execution.base import Bind, ExecSpec, ExecutorUnavailable, max_timeout_for
    from skillyard.execution.executors import get_executor
    from skillyard.execution.scrub import scrub
    from skillyard.execution.workspace import readable_copy

    configured = timeout if timeout is not None else DEFAULT_TIMEOUT
    limit, ceiling, notes = spec.timeout or configured, max_timeout_for(configured), []
    if limit > ceiling:
        notes.append(f"[timeout {limit:g} s lowered to the configured maximum of {ceiling:g} s]")
        limit = ceiling
    home: str | None = None
    try:
        ex = get_executor(executor) if isinstance(executor, str) else executor
        env = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "SKILL_NAME": skill.name}
        if ex.isolated:
            cwd = SANDBOX_SKILL_DIR
            env.update(PATH=SANDBOX_PATH, HOME="/tmp", TMPDIR="/tmp", SKILL_DIR=cwd)
            # As root the command runs as another uid, which may not reach the skill: it gets a readable copy.
            source = readable_copy(skill.root) if ex.host_uid() is not None else skill.root
            binds = [Bind(source=source, target=SANDBOX_SKILL_DIR, writable=False)]
        else:
            cwd = str(skill.root)
            home = tempfile.mkdtemp(prefix="skillyard-tool-")
            env.update(PATH=os.environ.get("PATH", SANDBOX_PATH), HOME=home, TMPDIR=home, SKILL_DIR=cwd)
            binds = []
        env.update(inv.env)  # after the base: SKILLYARD_ARG_* never shadow it, and never the reverse
        result = ex.run(ExecSpec(argv=inv.argv, cwd=cwd, env=env, timeout=float(limit), binds=binds))
        return _format(result, float(limit), scrub, notes)
    except ExecutorUnavailable as e:
        return f"Failed to execute command: {e}", True
    except Exception as e:
        return _cap(f"Failed to execute command: {scrub(str(e))}"), True
    finally:
        if home is not None:
            shutil.rmtree(home, ignore_errors=True)
