"""No sandboxed command ever runs as host uid 0, whoever runs skillyard.

The same probes (tests/sandbox_driver.py) run with skillyard as root and as an
unprivileged user (dropped with `setpriv`), with the skill and the workspaces
under a private (0700) and under an ordinary (0755) directory. Both `skill_run`
and a SKILL.toml tool are checked: the command's host uid, its capability sets,
no-new-privileges, the seccomp filter, kernel knobs and every denied syscall.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import SandboxExecutor
from skillyard.execution.seccomp import DENIED_SYSCALLS
from skillyard.execution.workspace import chown_tree

_REASON = SandboxExecutor().probe()
#: An unprivileged uid with no passwd entry, so nothing else on the host runs as it.
USER_UID = 47211
#: How a root test process starts a program as that user, with no capabilities left.
AS_USER = [
    "setpriv",
    f"--reuid={USER_UID}",
    f"--regid={USER_UID}",
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
]
ROOT = os.geteuid() == 0
HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"sandbox unavailable: {_REASON}")


def _reachable_by(path: Path, uid: int) -> bool:
    for d in [path, *path.parents]:
        st = d.stat()
        if not st.st_mode & (0o001 if st.st_uid != uid else 0o100):
            return False
    return True


def _runtime_for(uid: int, tmp: Path, modules: str = "skillyard.toml_tools") -> tuple[str, dict[str, str]]:
    """A Python and a PYTHONPATH `uid` can read: copies of skillyard and of the packages `modules` import."""
    python = sys.executable
    if not _reachable_by(Path(python).resolve(), uid):
        python = "/usr/bin/python3"
    files = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import json,sys,skillyard.execution,pyseccomp,{modules};"
            "print(json.dumps([getattr(m,'__file__',None) for m in list(sys.modules.values())]))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lib = tmp / "lib"
    lib.mkdir()
    roots = {p for p in map(str, sys.path) if p.endswith("site-packages")} | {str(HERE.parent / "src")}
    for f in json.loads(files):
        if not f:
            continue
        for r in roots:
            if f.startswith(r + os.sep):
                top = Path(r) / Path(f).relative_to(r).parts[0]
                dest = lib / top.name
                if not dest.exists():
                    (shutil.copytree if top.is_dir() else shutil.copy2)(top, dest)
    shutil.copy2(HERE / "sandbox_driver.py", tmp / "sandbox_driver.py")
    return python, {"PYTHONPATH": str(lib), "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp)}


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="skillyard-identity-"))
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _drive(base: Path, who: str, layout: str) -> dict[str, Any]:
    """Run the driver as this process's user, or (as root, for `user`) dropped to USER_UID."""
    work = Path(tempfile.mkdtemp(dir=base, prefix=f"{who}-{layout}-"))
    os.chmod(work, 0o755)
    if who == "root" or not ROOT:
        argv = [sys.executable, str(HERE / "sandbox_driver.py"), str(work), layout]
        env = dict(os.environ)
    else:
        python, env = _runtime_for(USER_UID, work)
        chown_tree(work, USER_UID)
        argv = [
            *AS_USER,
            python,
            str(work / "sandbox_driver.py"),
            str(work),
            layout,
        ]
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240, cwd=str(work))
    assert r.returncode == 0, r.stderr[-3000:]
    data: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    data["who"] = who
    return data


WHO = ["root", "user"] if ROOT else ["user"]


@pytest.fixture(
    scope="module",
    params=[(w, lay) for w in WHO for lay in ("private", "ordinary")],
    ids=lambda p: "-".join(p),
)
def report(request: pytest.FixtureRequest, base: Path) -> dict[str, Any]:
    who, layout = request.param
    if who == "user" and ROOT and not shutil.which("setpriv"):
        pytest.skip("setpriv is needed to drop to an unprivileged user")
    return _drive(base, who, layout)


def _status(stdout: str) -> dict[str, str]:
    out = {}
    for line in stdout.splitlines():
        for sep in (":\t", "="):
            if sep in line and not line.startswith("{"):
                k, v = line.split(sep, 1)
                out.setdefault(k.strip(), v.strip())
                break
    return out


def test_command_never_runs_as_host_root(report: dict[str, Any]) -> None:
    run = report["run"]
    assert run["exit_code"] == 0, run
    st = _status(run["stdout"])
    expected_host_uid = 65534 if report["skillyard_uid"] == 0 else report["skillyard_uid"]
    assert st["uid"] == "65534" and st["gid"] == "65534" and st["groups"] == "65534", st
    assert report["file_owner"] == expected_host_uid != 0
    assert report["host_uids"], "the sandboxed process was never seen from the host"
    assert report["host_uids"].get("bash") == expected_host_uid, report["host_uids"]
    if report["skillyard_uid"] == 0:  # no user namespace: the command's ids are the host's
        assert st["uid_map"].strip(";").split() == ["0", "0", "4294967295"]
    assert not any(w for w in run["warnings"] if "not enforced" in w or "local" in w), run["warnings"]


def test_no_capabilities_no_new_privileges_seccomp(report: dict[str, Any]) -> None:
    st = _status(report["run"]["stdout"])
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(st[cap], 16) == 0, (cap, st[cap])
    assert st["NoNewPrivs"] == "1"
    assert st["Seccomp"] == "2"


def test_kernel_knobs_refused_or_absent(report: dict[str, Any]) -> None:
    st = _status(report["run"]["stdout"])
    assert st["sysctl"] == "refused" and st["core_pattern"] == "refused"
    assert st["sys"] in ("absent", "refused") and st["sysrq"] == "refused"
    assert st["unshare_cmd"] == "refused" and st["mount_cmd"] == "refused"
    assert st["env_paths"] == "/workspace:/workspace/skills/probe:/workspace/work"


def test_each_denied_syscall_fails_with_eperm(report: dict[str, Any]) -> None:
    line = next(ln for ln in report["run"]["stdout"].splitlines() if ln.startswith("{"))
    results = json.loads(line)
    probed = set(results) - {"clone_newuser", "clone3"}
    assert probed <= set(DENIED_SYSCALLS) | {"personality"}
    assert {k: v for k, v in results.items() if k != "clone3" and v != "EPERM"} == {}
    assert results["clone3"] == "ENOSYS"  # so that libc falls back to clone(), whose flags the filter sees


def test_skill_toml_tool_is_unprivileged_and_reads_the_skill(report: dict[str, Any]) -> None:
    tool = report["toml_tool"]
    assert not tool["is_error"], tool
    lines = tool["text"].splitlines()
    assert lines[0] == "65534"
    assert "readable" in lines and "skill-read-only" in lines


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv"), reason="needs root to drop to another user")
def test_escape_suite_passes_as_an_unprivileged_user(base: Path) -> None:
    """tests/test_sandbox_escape.py, whole, with skillyard running as an ordinary user."""
    work = Path(tempfile.mkdtemp(dir=base, prefix="escape-suite-"))
    os.chmod(work, 0o755)
    python, env = _runtime_for(USER_UID, work, "pytest,_pytest,pluggy,iniconfig,skillyard.model")
    for name in ("test_sandbox_escape.py", "conftest.py"):
        shutil.copy2(HERE / name, work / name)
    (work / "pytest.ini").write_text("[pytest]\naddopts = -q -rs -p no:cacheprovider\n")
    chown_tree(work, USER_UID)
    r = subprocess.run(
        [
            *AS_USER,
            python,
            "-m",
            "pytest",
            "-c",
            str(work / "pytest.ini"),
            str(work),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=str(work),
    )
    tail = r.stdout[-4000:]
    assert r.returncode == 0, tail + r.stderr[-2000:]
    assert "sandbox unavailable" not in tail and " passed" in tail, tail
