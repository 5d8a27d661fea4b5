"""Both ways of applying rlimits give the same values, each capped at the hard limit in force."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from skillyard.execution.base import Limits, rlimit_argv

_CHILD = """
import json, resource
from skillyard.execution.base import Limits, rlimit_argv, rlimit_setter
resource.setrlimit(resource.RLIMIT_CPU, (60, 60))  # a host that caps CPU time below the configured limit
argv = rlimit_argv(Limits(cpu_seconds=3600)) or []
rlimit_setter(Limits(cpu_seconds=3600))()
print(json.dumps({"argv": argv, "applied": resource.getrlimit(resource.RLIMIT_CPU)}))
"""


@pytest.mark.skipif(rlimit_argv(Limits()) is None, reason="prlimit is not installed")
def test_the_cpu_limit_is_capped_at_the_hard_limit_both_ways() -> None:
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert "--cpu=60:60" in got["argv"]
    assert got["applied"] == [60, 60]
