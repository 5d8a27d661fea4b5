"""Test isolation shared by the whole suite: no test reads or writes the real user dirs."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    for var in ("SKILLYARD_PATH", "SKILLYARD_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    return home


SkillMaker = Callable[..., Path]


@pytest.fixture
def make_skill() -> SkillMaker:
    """make_skill(root, name, description=..., extra='yaml lines', body='...', files={rel: text}) -> skill dir."""

    def make(
        root: Path,
        name: str,
        description: str | None = "A test skill that does something useful.",
        *,
        extra: str = "",
        body: str = "# Instructions\n\nDo the thing.\n",
        files: dict[str, str] | None = None,
        dirname: str | None = None,
    ) -> Path:
        d = root / (dirname or name)
        d.mkdir(parents=True, exist_ok=True)
        lines = [f"name: {name}"]
        if description is not None:
            lines.append(f"description: {description}")
        if extra:
            lines.append(textwrap.dedent(extra).strip("\n"))
        (d / "SKILL.md").write_text("---\n" + "\n".join(lines) + "\n---\n" + body, encoding="utf-8")
        for rel, text in (files or {}).items():
            p = d / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        return d

    return make


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A fresh directory outside every temporary directory (installs by the model refuse those).

    Under the checkout's ignored `build/`, or, when the checkout itself lives in a temp dir (CI may
    clone there), under /var/lib as root; skipped only when neither is possible."""
    import os
    import shutil
    import tempfile

    from skillyard.tools.install_gate import temp_dirs

    def in_temp(p: Path) -> bool:
        real = os.path.realpath(p)
        return any(
            real == os.path.realpath(t) or real.startswith(os.path.realpath(t).rstrip("/") + "/")
            for t in temp_dirs()
        )

    candidates = [Path(__file__).resolve().parents[1] / "build" / "test-scratch"]
    if os.environ.get("SKILLYARD_TEST_SCRATCH"):  # the unprivileged pass's own (scripts/test_unprivileged.py)
        candidates.insert(0, Path(os.environ["SKILLYARD_TEST_SCRATCH"]))
    if os.geteuid() == 0:
        candidates.append(Path("/var/lib/skillyard-test-scratch"))
    base = next((c for c in candidates if not in_temp(c)), None)
    if base is None:
        pytest.skip("the checkout is inside a temporary directory and /var/lib needs root")
    base.mkdir(parents=True, exist_ok=True)
    d = Path(tempfile.mkdtemp(dir=base))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def reachable_tmp() -> Iterator[Path]:
    """A fresh directory outside pytest's 0700 tree, traversable by others: the sandbox's
    unprivileged uid must be able to reach a workspace made under it."""
    import os
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="skillyard-reachable-"))
    os.chmod(d, 0o711)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def hostile_skill(reachable_tmp: Path) -> Any:
    """A minimal skill named `hostile` under `reachable_tmp/skills`, for the sandbox's attack tests."""
    from skillyard.model import Skill

    d = reachable_tmp / "skills" / "hostile"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: hostile\ndescription: hostile\n---\nbody\n", encoding="utf-8")
    return Skill(name="hostile", description="hostile", path=d / "SKILL.md")


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A folder like /tmp: everyone may create entries, the sticky bit keeps them apart."""
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o1777)
    return d
