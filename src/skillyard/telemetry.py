"""Skill usage events: offered (listed in a catalog) → loaded → run, per skill.

Counting the three stages per skill shows which skills are never used: offered
often and never loaded means a description that does not sell the skill; never
offered means it is always cut from the catalog. With opentelemetry-api installed
(the ``otel`` extra), each event increments the counter ``skillyard.skill.events``
(attributes ``skill`` and ``stage``) and is added to the current span; with it
absent, events only go to in-process listeners. Nothing here is ever fatal.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["STAGES", "record"]

STAGES = ("offered", "loaded", "run")

#: In-process listeners: called as listener(stage, skill, attributes).
listeners: list[Callable[[str, str, dict[str, Any]], None]] = []

_counter: Any = None
_tried = False


def _otel_counter() -> Any:
    global _counter, _tried
    if not _tried:
        _tried = True
        try:
            from opentelemetry import metrics
        except ImportError:
            return None
        _counter = metrics.get_meter("skillyard").create_counter(
            "skillyard.skill.events", description="Skills offered in a catalog, loaded and run"
        )
    return _counter


def record(stage: str, skills: str | Iterable[str], **attributes: Any) -> None:
    """One event per skill at `stage` (one of STAGES)."""
    names = [skills] if isinstance(skills, str) else [s for s in skills if isinstance(s, str)]
    if not names:
        return
    counter = _otel_counter()
    span = None
    if counter is not None:
        with contextlib.suppress(Exception):
            from opentelemetry import trace

            span = trace.get_current_span()
    for name in names:
        attrs = {"skill": name, "stage": stage, **attributes}
        with contextlib.suppress(Exception):
            if counter is not None:
                counter.add(1, attrs)
            if span is not None and span.is_recording():
                span.add_event(f"skillyard.skill.{stage}", attrs)
        for listener in list(listeners):
            with contextlib.suppress(Exception):
                listener(stage, name, dict(attributes))
