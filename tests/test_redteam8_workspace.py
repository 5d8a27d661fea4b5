"""What a sandboxed command leaves in its workspace, against the host code that touches it afterwards.

The command can write anything under /workspace: metadata.json, the layout
directories, trees of any depth. skillyard reads, repairs, collects from and
removes that tree on the host, between runs and at the end of the session.
Nothing the command leaves there may hang skillyard, crash a run, or keep the
workspace from being removed. Each test runs the real SkillRunner with
bubblewrap; the file runs as root and again as an unprivileged user
(scripts/test_unprivileged.py), the sandbox's two paths.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import RunError, RunRequest, SandboxExecutor, SkillRunner
from skillyard.model import Skill

_REASON = SandboxExecutor().probe()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"sandbox unavailable: {_REASON}")

#: Generous for a run that takes well under a second; a hang never ends.
_HANG = 60.0
#: Deeper than Python's default recursion limit (1000).
_DEEP = 1500
MAKE_DEEP = f'python3 -c \'import os\nfor _ in range({_DEEP}): os.mkdir("d"); os.chdir("d")\nopen("f.txt", "w").write("deep")\''


@pytest.fixture
def base(reachable_tmp: Path) -> Path:
    return reachable_tmp


@pytest.fixture
def skill(hostile_skill: Skill) -> Skill:
    return hostile_skill


def _bounded(call: Any) -> Any:
    """`call()` in a daemon thread; fails the test if it has not returned after _HANG seconds."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = call()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(_HANG)
    assert not t.is_alive(), "skillyard hung on what the command left in its workspace"
    if "error" in out:
        raise out["error"]
    return out["value"]


def _run(runner: SkillRunner, skill: Skill, command: str, **args: Any) -> dict[str, Any]:
    req = RunRequest.from_arguments({"skill": skill.name, "command": command, **args})
    return _bounded(lambda: runner.run(skill, req, session_id="s").to_dict())


@pytest.mark.parametrize(
    "plant",
    [
        "mkfifo /workspace/metadata.json",  # reading it would wait for a writer forever
        "mkdir /workspace/metadata.json",  # replacing it would fail with EISDIR
        "python3 -c 'print(\"[\" * 200000)' > /workspace/metadata.json",  # json nests past the limit
        """echo '{"skills": {"hostile": "x"}, "outputs": {}}' > /workspace/metadata.json""",  # other shapes
        """echo '{"skills": [], "inputs": 5}' > /workspace/metadata.json""",
    ],
    ids=["fifo", "directory", "deep-json", "skill-not-an-object", "skills-not-an-object"],
)
def test_a_planted_metadata_file_neither_hangs_nor_breaks_the_session(
    base: Path, skill: Skill, plant: str
) -> None:
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=30) as runner:
        first = _run(runner, skill, f"rm -f /workspace/metadata.json; {plant}; echo made > out/a.txt")
        assert first["exit_code"] == 0, first
        # The next runs read and write metadata.json: staging, and recording the collected outputs.
        for _ in range(2):
            res = _run(runner, skill, "echo again", output_files=["out/a.txt"])
            assert res["exit_code"] == 0 and res["stdout"] == "again\n", res
            assert [f["content"] for f in res["output_files"]] == ["made\n"], res


@pytest.mark.parametrize("layout_dir", ["runs", "out", "work", "work/inputs"])
def test_a_fifo_in_place_of_a_layout_directory_is_repaired(base: Path, skill: Skill, layout_dir: str) -> None:
    """Repair removes what replaced a directory of the layout; removing a FIFO must not open it."""
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=30) as runner:
        first = _run(runner, skill, f"cd /workspace && rm -rf {layout_dir} && mkfifo {layout_dir}")
        assert first["exit_code"] == 0, first
        res = _run(runner, skill, "echo fine > out/b.txt; echo again", output_files=["out/b.txt"])
        assert res["exit_code"] == 0 and res["stdout"] == "again\n", res
        assert [f["content"] for f in res["output_files"]] == ["fine\n"], res


def test_a_deep_tree_is_not_a_crash_when_outputs_are_collected(base: Path, skill: Skill) -> None:
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=60) as runner:
        res = _run(
            runner,
            skill,
            f"cd out && {MAKE_DEEP} && echo shallow > top.txt",
            outputs={"globs": ["out/**"], "inline": True},
        )
        assert res["exit_code"] == 0, res
        assert [(f["name"], f["content"]) for f in res["output_files"]] == [("out/top.txt", "shallow\n")]


def test_a_deep_tree_is_removed_with_its_session(base: Path, skill: Skill) -> None:
    """A tree nested past Python's recursion limit must not survive the session (nor crash its close)."""
    runner = SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=60)
    try:
        res = _run(runner, skill, f"cd /workspace/work && {MAKE_DEEP} && chmod 500 . .. && echo ok")
        assert res["stdout"] == "ok\n", res
        assert _bounded(lambda: runner.close_session("s")) is True
        assert list((base / "ws").iterdir()) == []
    finally:
        runner.close()


def test_a_deep_tree_as_an_input_is_a_clear_refusal(base: Path, skill: Skill) -> None:
    """Copying a workspace:// tree the command nested past the recursion limit refuses the run
    with a message; it does not crash it."""
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=60) as runner:
        res = _run(runner, skill, f"mkdir -p /workspace/work/t && cd /workspace/work/t && {MAKE_DEEP}")
        assert res["exit_code"] == 0, res
        req = RunRequest.from_arguments(
            {
                "skill": skill.name,
                "command": "true",
                "inputs": [{"from": "workspace://work/t", "to": "work/c"}],
            }
        )
        with pytest.raises(RunError, match="nested too deeply"):
            _bounded(lambda: runner.run(skill, req, session_id="s"))
        assert _run(runner, skill, "echo still")["stdout"] == "still\n"


def test_using_up_the_workspace_inodes_is_stopped(base: Path, skill: Skill) -> None:
    """Empty files cost no bytes, so the byte reserve never sees them; an inode reserve does.

    The reserve is set to all but 5,000 of the inodes free now; the command makes up to 60,000 files.
    """
    from skillyard.execution import Limits

    st = os.statvfs(base)
    if not st.f_files:
        pytest.skip("this file system does not count inodes")
    limits = Limits(min_free_inodes=max(st.f_favail - 5_000, 1))
    make = "python3 -c 'import os\nfor i in range(60000): os.close(os.open(f\"e{i}\", os.O_CREAT | os.O_WRONLY))'"
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=60, limits=limits) as runner:
        res = _run(runner, skill, f"cd $WORK_DIR && {make} && echo DONE")
        made = sum(1 for _ in next((base / "ws").glob("*/work")).iterdir())
    assert "DONE" not in res["stdout"] and res["exit_code"] == -1, res
    assert any("inodes free" in w for w in res["warnings"]), res["warnings"]
    assert made < 60_000


def test_a_huge_directory_is_not_held_in_memory_to_collect_from_it(base: Path, skill: Skill) -> None:
    """Collection reads at most its walk budget of a directory: a command's 400,000 empty files (or
    40 million) must not become a host-side list of them all for `out/*` or `out/**`."""
    import tracemalloc

    make = "python3 -c 'import os\nfor i in range(400000): os.close(os.open(f\"f{i}\", os.O_CREAT | os.O_WRONLY))'"
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=120) as runner:
        assert _run(runner, skill, f"cd $OUTPUT_DIR && {make} && echo made")["stdout"] == "made\n"
        req = RunRequest.from_arguments(
            {
                "skill": skill.name,
                "command": "true",
                "output_files": ["out/*"],
                "outputs": {"globs": ["out/**"]},
            }
        )
        tracemalloc.start()
        try:
            res = runner.run(skill, req, session_id="s").to_dict()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert len(res["output_files"]) == 200 and res["limits_hit"], res["warnings"]
    assert peak < 20 * 1024 * 1024, f"collecting held {peak} bytes"


def test_an_input_cannot_be_written_into_a_staged_skill_through_a_planted_link(
    base: Path, skill: Skill
) -> None:
    """`to` must land under work/, out/ or runs/; a link the command left in work/ must not lead it
    into skills/, the read-only copy later runs execute (root ignores its read-only modes)."""
    staged_md = "---\nname: hostile\ndescription: hostile\n---\nbody\n"
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=30) as runner:
        first = _run(runner, skill, "cd /workspace/work && ln -s ../skills/hostile x && echo evil > payload")
        assert first["exit_code"] == 0, first
        req = RunRequest.from_arguments(
            {
                "skill": skill.name,
                "command": "cat SKILL.md",
                "inputs": [{"from": "workspace://work/payload", "to": "work/x/SKILL.md"}],
            }
        )
        with pytest.raises(RunError, match="must be under work/, out/ or runs/"):
            _bounded(lambda: runner.run(skill, req, session_id="s"))
        assert _run(runner, skill, "cat SKILL.md")["stdout"] == staged_md


@pytest.mark.parametrize("source", ["artifact://data.txt", "workspace://work/data.txt"])
def test_an_input_replaces_a_fifo_planted_where_it_goes(base: Path, skill: Skill, source: str) -> None:
    """work/inputs/<name> is where an input lands by default; a FIFO the command left there must be
    replaced, not written to (which waits for a reader that never comes)."""
    from skillyard.execution import FilesystemArtifactStore

    store = FilesystemArtifactStore(base / "artifacts")
    store.save("data.txt", b"payload\n")
    with SkillRunner(
        executor="sandbox", workspace_root=base / "ws", timeout=30, artifact_store=store
    ) as runner:
        first = _run(runner, skill, "echo payload > work/data.txt && mkfifo work/inputs/data.txt")
        assert first["exit_code"] == 0, first
        res = _run(runner, skill, "cat inputs/data.txt", inputs=[{"from": source}])
        assert res["stdout"] == "payload\n", res
