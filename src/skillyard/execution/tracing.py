"""Spans through the OpenTelemetry API when it is installed; a no-op otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:  # pragma: no cover - depends on the environment
    from opentelemetry import trace as _trace

    _tracer: Any = _trace.get_tracer("skillyard.execution")
except Exception:  # noqa: BLE001 - any import problem means "no tracing"
    _tracer = None


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A span named `name` (e.g. `workspace.run`); attributes with None values are dropped."""
    if _tracer is None:
        yield None
        return
    attrs = {f"skillyard.{k}": v for k, v in attributes.items() if isinstance(v, str | int | float | bool)}
    with _tracer.start_as_current_span(name, attributes=attrs) as s:
        yield s
