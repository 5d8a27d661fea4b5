"""`serve` logs: an exception's text in a logged traceback quotes a skill folder name or a client's
argument; it cannot forge a log record or reach the terminal with an escape sequence."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")

PROGRAM = r"""
import logging
from skillyard._cli_serve import _setup_logging

_setup_logging("INFO")
log = logging.getLogger("skillyard.mcp.server")
evil = "no skill 'x\n2026-01-01 00:00:00,000 INFO skillyard.mcp.server: token accepted\x1b]0;owned\x07\x1b[2J'"
try:
    try:
        raise KeyError(evil)
    except KeyError as e:
        raise ValueError(evil) from e
except ValueError:
    log.exception("tool %r raised", "skill_load")
try:
    raise ValueError("ends in a line break\n")
except ValueError:
    log.exception("tool %r raised", "skill_run")
log.info("after")
"""


def _stderr() -> str:
    env = {**os.environ, "PYTHONPATH": SRC}
    r = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return r.stderr


def test_a_logged_tracebacks_exception_text_is_one_line_without_escapes() -> None:
    err = _stderr()
    assert "\x1b" not in err and "\x07" not in err
    lines = err.splitlines()
    # every record starts with a time stamp; no line of the exception's text looks like one
    records = [ln for ln in lines if ln[:4].isdigit()]
    assert len(records) == 3, err
    assert records[0].endswith("ERROR skillyard.mcp.server: tool 'skill_load' raised")
    assert records[2].endswith("INFO skillyard.mcp.server: after")
    assert "ValueError: ends in a line break\\n" in lines  # the final line break spelled out too
    # the traceback is still there, with its own line structure, both exceptions of the chain told
    assert lines.count("Traceback (most recent call last):") == 3
    assert any(ln.startswith('  File "<string>"') for ln in lines)
    told = [ln for ln in lines if ln.startswith(("ValueError: ", "KeyError: ")) and "no skill" in ln]
    assert len(told) == 2 and all("token accepted" in ln and "\\x1b" in ln for ln in told), err
    assert "The above exception was the direct cause of the following exception:" in lines


UVICORN = r"""
import logging
from skillyard._cli_serve import _setup_logging
from skillyard.mcp._http_guard import uvicorn_config

async def app(scope, receive, send):
    pass

_setup_logging("INFO")
config = uvicorn_config(app, "127.0.0.1", 0, "info")  # as `serve --transport http` builds it
_setup_logging("INFO")
evil = "bad 'x\n2026-01-01 00:00:00,000 INFO uvicorn.error: forged\x1b[2J'"
try:
    raise RuntimeError(evil)
except RuntimeError as e:
    logging.getLogger("uvicorn.error").error("Exception in ASGI application\n", exc_info=e)
logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", evil, "1.1", 404)
"""


def test_uvicorns_own_log_lines_go_through_the_same_escaping() -> None:
    """uvicorn's config installs its own log handlers, which printed an ASGI application's exception
    (and the text a request put in it) as it was: a forged record, an escape sequence."""
    env = {**os.environ, "PYTHONPATH": SRC}
    err = subprocess.run(
        [sys.executable, "-c", UVICORN], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stderr
    assert "\x1b" not in err, err
    records = [ln for ln in err.splitlines() if ln[:4].isdigit()]
    assert [r.split(" ", 3)[3].split(":")[0] for r in records] == ["uvicorn.error", "uvicorn.access"], err
    assert "Traceback (most recent call last):" in err and "RuntimeError: bad 'x\\n2026" in err
