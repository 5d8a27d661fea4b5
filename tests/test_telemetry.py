"""Usage events: offered in a catalog, loaded through a tool, run; per skill, to listeners and OpenTelemetry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillyard import telemetry
from skillyard.registry import Registry
from skillyard.session import Session
from skillyard.tools import Toolkit


@pytest.fixture()
def events() -> Iterator[list[tuple[str, str]]]:
    seen: list[tuple[str, str]] = []

    def listener(stage: str, skill: str, attrs: dict[str, Any]) -> None:
        seen.append((stage, skill))

    telemetry.listeners.append(listener)
    yield seen
    telemetry.listeners.remove(listener)


def test_offered_then_loaded(tmp_path: Path, events: list[tuple[str, str]]) -> None:
    for name in ("alpha", "beta"):
        d = tmp_path / name
        d.mkdir()
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\n\nBody.\n")
    kit = Toolkit(Registry.from_roots([tmp_path]))
    session = Session()
    kit.system_message(session)
    assert sorted(events) == [("offered", "alpha"), ("offered", "beta")]
    events.clear()
    assert not kit.call("skill_load", {"skill": "alpha"}, session=session).is_error
    assert events == [("loaded", "alpha")]
    events.clear()
    kit.call("skill_load", {"skill": "nope"}, session=session)  # a failed load is no event
    assert events == []


def test_record_never_raises(events: list[tuple[str, str]]) -> None:
    def broken(stage: str, skill: str, attrs: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    telemetry.listeners.append(broken)
    try:
        telemetry.record("run", "alpha", exit_code=0)
        telemetry.record("offered", ["a", None, "b"])  # type: ignore[list-item]
        telemetry.record("loaded", [])
    finally:
        telemetry.listeners.remove(broken)
    assert events == [("run", "alpha"), ("offered", "a"), ("offered", "b")]
