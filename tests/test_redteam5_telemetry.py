"""Span attributes never carry a session id: without authentication, echoing an id is enough to use
that session's workspace, so a tracing backend must not collect them.

The OpenTelemetry SDK is not a dependency; a tracer that records what `span` gives it stands in for
the exporter (the API's own tracer drops everything)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import tracing
from skillyard.execution.workspace import WorkspaceManager

SID = "client-session-9f2c4e7a1b3d5f60"


class _Recorder:
    def __init__(self) -> None:
        self.spans: list[tuple[str, dict[str, Any]]] = []

    @contextmanager
    def start_as_current_span(self, name: str, attributes: dict[str, Any] | None = None) -> Iterator[None]:
        self.spans.append((name, dict(attributes or {})))
        yield None


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> _Recorder:
    rec = _Recorder()
    monkeypatch.setattr(tracing, "_tracer", rec)
    return rec


def test_workspace_spans_name_sessions_by_a_digest(recorder: _Recorder, tmp_path: Path) -> None:
    manager = WorkspaceManager(tmp_path / "ws")
    ws = manager.get(SID)
    assert manager.close_session(SID)
    left = manager.get(SID + "-left")  # a workspace a crashed process left behind
    manager._open.clear()
    old = time.time() - 3600
    for p in (left.root / "metadata.json", left.root):
        if p.exists():
            os.utime(p, (old, old))
    assert manager.prune(60) == [left.root]
    names = [name for name, _ in recorder.spans]
    assert names == ["workspace.create", "workspace.cleanup", "workspace.create", "workspace.cleanup"]
    for _, attrs in recorder.spans:
        for value in attrs.values():
            assert SID not in str(value) and "client-session" not in str(value), attrs
    # the same session gets the same tag: spans still correlate
    tags = [attrs["skillyard.session"] for _, attrs in recorder.spans]
    assert tags[0] == tags[1] and tags[2] == tags[3] and tags[0] != tags[2]
    assert ws.root.name.endswith(tags[0])
