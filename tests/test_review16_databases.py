"""Every database a server lists, then dropped: a pattern that takes them all (`like '%'`, `~ '.'`) or
the word "like" elsewhere on the line is no filter."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner_support import blocked

_PG = "for db in $(psql -Atc \"select datname from pg_database where {}\"); do\n  psql -qc 'drop database \"'$db'\"'\ndone\n"
_MY = 'for db in $(mysql -Nse "{}"); do{}\n  mysql -e "drop database $db"\ndone\n'


@pytest.mark.parametrize(
    "script",
    [
        _PG.format("datname like '%'"),
        _PG.format("datname ilike '%%'"),
        _PG.format("datname ~ '.'"),
        _MY.format("show databases", " # like the docs say"),
        _MY.format("show databases like '%'", ""),
    ],
)
def test_a_pattern_that_takes_every_database_blocks(tmp_path: Path, script: str) -> None:
    assert "SY-DES-005" in blocked(tmp_path, {"reset.sh": script})


@pytest.mark.parametrize(
    "script",
    [
        _PG.format("datname like 'ci_%'"),
        _PG.format("datname ~ '^ci_'"),
        _PG.format("datname = 'myapp_test'"),
        _MY.format("show databases like 'test_%'", ""),
        _MY.format("show databases where `Database` like 'test_%'", ""),
    ],
)
def test_a_pattern_that_picks_some_does_not_block(tmp_path: Path, script: str) -> None:
    assert blocked(tmp_path, {"reset.sh": script}) == set()
