"""Execution overhead against bare baselines measured in the same process (prints figures, asserts nothing).

    .venv/bin/python benchmarks/bench_execution.py [--runs 40]

Figures:
- local executor running `true` vs a bare `subprocess.run(["bash", "-c", "true"])`;
- sandbox executor vs the same bwrap options, seccomp program and uid hand-over written by hand;
- the seccomp filter's own cost (the hand-written call with and without it);
- the whole SkillRunner path (workspace, staging check, env, scrub, collect) for local and sandbox;
- collecting 100 files of 40 KB (inline, MIME sniffing, scrubbing) vs reading them with open().read().
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from skillyard.execution import (
    Bind,
    ExecSpec,
    Limits,
    LocalExecutor,
    RunRequest,
    SandboxExecutor,
    SkillRunner,
)
from skillyard.execution.base import rlimit_setter
from skillyard.execution.collect import collect
from skillyard.execution.seccomp import filter_program
from skillyard.model import Skill
from timing import median_ms, paired_ms

ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def line(label: str, value: float, base: float) -> None:
    print(
        f"  {label:<44} {value:8.2f} ms   baseline {base:8.2f} ms   +{value - base:6.2f} ms   x{value / base:5.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    n = ap.parse_args().runs
    tmp = Path(tempfile.mkdtemp(prefix="skillyard-bench-"))
    os.chmod(tmp, 0o711)
    try:
        print(f"Execution benchmark (median of {n} runs)")

        def bare_run() -> None:
            subprocess.run(["bash", "-c", "true"], env=ENV, cwd=tmp)

        local = LocalExecutor()
        spec = ExecSpec(argv=["bash", "-c", "true"], cwd=str(tmp), env=ENV)
        value, bare = paired_ms(lambda: local.run(spec), bare_run, n)
        line("local executor: bash -c true", value, bare)

        skill_dir = tmp / "skills" / "bench"
        (skill_dir / "scripts").mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text("---\nname: bench\ndescription: bench\n---\nbody\n")
        for i in range(20):
            (skill_dir / "scripts" / f"s{i}.sh").write_text("echo hi\n")
        skill = Skill(name="bench", description="bench", path=skill_dir / "SKILL.md")
        req = RunRequest.from_arguments({"skill": "bench", "command": "true"})
        runner = SkillRunner(executor="local", workspace_root=tmp / "ws-local")
        line(
            "SkillRunner(local): true",
            *paired_ms(lambda: runner.run(skill, req, session_id="b"), bare_run, n),
        )
        runner.close()

        sandbox = SandboxExecutor()
        reason = sandbox.probe()
        if reason is not None:
            print(f"  sandbox: skipped ({reason})")
        else:
            job = tmp / "job"
            job.mkdir()
            if sandbox.host_uid() is not None:
                os.chown(job, sandbox.uid, sandbox.gid)  # what the runner does for its workspaces
            sspec = ExecSpec(
                argv=["bash", "-c", "true"], cwd="/workspace", env=ENV, binds=[Bind(job, "/workspace", True)]
            )
            # The same recipe written by hand: the same bwrap options (path bind, passwd/group from files,
            # the same seccomp program read from a file), the same setpriv hand-over as root, rlimits in a
            # pre-exec function, plain subprocess.run with captured output.
            program = tmp / "seccomp.bpf"
            program.write_bytes(filter_program())
            (tmp / "passwd").write_text(f"sandbox:x:{sandbox.uid}:{sandbox.gid}::/workspace/work:/bin/sh\n")
            (tmp / "group").write_text(f"sandbox:x:{sandbox.gid}:\n")
            opts = sandbox.build_args(sspec, [0], [1, 2], 3)
            i = opts.index("--bind-fd")
            opts[i : i + 3] = ["--bind", str(job), "/workspace"]
            for name in ("passwd", "group"):
                i = opts.index(f"/etc/{name}")
                opts[i - 4 : i + 1] = ["--ro-bind", str(tmp / name), f"/etc/{name}"]
            limits = rlimit_setter(Limits())
            cmd = [*sandbox.command_prefix(), "bash", "-c", "true"]

            def bare_bw(seccomp: bool = True) -> None:
                o = list(opts)
                i = o.index("--seccomp")
                with open(program, "rb") as f:
                    if seccomp:
                        o[i + 1] = str(f.fileno())
                    else:
                        del o[i : i + 2]
                    subprocess.run(
                        ["bwrap", *o, "--", *cmd],
                        env=ENV,
                        preexec_fn=limits,
                        check=True,
                        capture_output=True,
                        pass_fds=(f.fileno(),),
                    )

            value, base_bw = paired_ms(lambda: sandbox.run(sspec), bare_bw, n)
            line("sandbox executor vs the same bwrap by hand", value, base_bw)
            with_filter, without = paired_ms(bare_bw, lambda: bare_bw(False), n)
            line("seccomp filter: by hand with vs without", with_filter, without)
            srunner = SkillRunner(executor="sandbox", workspace_root=tmp / "ws-sandbox")
            line(
                "SkillRunner(sandbox) vs bare bwrap",
                median_ms(lambda: srunner.run(skill, req, session_id="b"), n),
                base_bw,
            )
            srunner.close()

        out = tmp / "collect"
        (out / "out").mkdir(parents=True)
        body = ("lorem ipsum dolor sit amet " * 1600)[:40_000]
        for i in range(100):
            (out / "out" / f"f{i:03}.txt").write_text(body)

        def bare_read() -> None:
            for p in sorted((out / "out").iterdir()):
                p.read_bytes()

        def do_collect() -> None:
            res = collect(out, ["out/*.txt"], run_rel="runs/x", skill_rel="skills/x")
            assert len(res.files) == 100

        line("collect 100 x 40 KB (match, read, MIME)", *paired_ms(do_collect, bare_read, max(5, n // 4)))

        from skillyard.execution.runner import SkillRunner as _R

        files = collect(out, ["out/*.txt"], run_rel="runs/x", skill_rel="skills/x").files

        def inline_all() -> None:
            for f in files:
                _R._file_entry(f, True, ())

        t_inline = median_ms(inline_all, max(5, n // 4))
        print(f"  {'inline + scrub 100 x 40 KB':<44} {t_inline:8.2f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
