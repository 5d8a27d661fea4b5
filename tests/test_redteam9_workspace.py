"""A skill updated (swapped by an install) while a run copies it into the workspace is never run
as a mix of its two versions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillyard.execution.workspace import WorkspaceError, WorkspaceManager
from skillyard.install import Installer


def make_version(d: Path, tag: str) -> Path:
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: demo\ndescription: Demo {tag}.\n---\nVersion {tag}.\n")
    for i in range(8):
        (d / f"f{i}.txt").write_text(f"{tag}\n")
    return d


def test_an_update_landing_mid_copy_is_refused_not_staged_as_a_mix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "installed"
    a = make_version(tmp_path / "a" / "demo", "A")
    b = make_version(tmp_path / "b" / "demo", "B")
    assert Installer(root).install(str(a)).installed
    manager = WorkspaceManager(tmp_path / "ws")  # its workspaces live as long as it does
    ws = manager.get("s1")
    real = shutil.copyfile
    copied = [0]

    def copy_then_update(src: str, dst: str, **kw: bool) -> str:
        out = real(src, dst, **kw)
        copied[0] += 1
        if copied[0] == 3:  # the update lands while the run's copy is half done
            assert Installer(root).install(str(b), force=True).installed
        return out

    monkeypatch.setattr(shutil, "copyfile", copy_then_update)
    with pytest.raises(WorkspaceError, match="changed while"):
        ws.stage_skill("demo", root / "demo")
    monkeypatch.setattr(shutil, "copyfile", real)
    staged = ws.stage_skill("demo", root / "demo")  # the next run stages the new version whole
    assert {p.read_text() for p in staged.glob("f*.txt")} == {"B\n"}


def test_the_shared_readable_copy_is_never_a_mix_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillyard.execution.workspace import readable_copy

    root = tmp_path / "installed"
    a = make_version(tmp_path / "a" / "demo", "A")
    b = make_version(tmp_path / "b" / "demo", "B")
    assert Installer(root).install(str(a)).installed
    real = shutil.copyfile
    copied = [0]

    def copy_then_update(src: str, dst: str, **kw: bool) -> str:
        out = real(src, dst, **kw)
        copied[0] += 1
        if copied[0] == 3:
            assert Installer(root).install(str(b), force=True).installed
        return out

    monkeypatch.setattr(shutil, "copyfile", copy_then_update)
    with pytest.raises(WorkspaceError, match="changed while"):
        readable_copy(root / "demo")
    monkeypatch.setattr(shutil, "copyfile", real)
    assert {p.read_text() for p in readable_copy(root / "demo").glob("f*.txt")} == {"B\n"}
