"""The scanner's newest relaxations read as an attacker would: each malicious twin that the relaxed
shape let through must block, and the benign shape each relaxation was made for must still pass.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ bidi controls in a test's sample text that is run

_SAMPLE = 'role = "guest\u202e \u2066# staff only\u2069 \u2066"\n'


def test_a_sample_text_a_file_runs_in_any_shape_keeps_its_bidi_controls_high(tmp_path: Path) -> None:
    runners = {
        # read into a name on one line, evaluated on the next
        "run.py": 'code = open("tests/data/bad.txt").read()\nexec(code)\n',
        # piped into a shell: the shell comes after the name
        "run.sh": "cat tests/data/bad.txt | sh\n",
        # every sample of the folder, by a glob
        "all.py": 'import glob\nfor f in glob.glob("tests/data/*.txt"):\n    exec(open(f).read())\n',
        # copied to a program, which is then run
        "copy.py": 'import shutil, subprocess\nshutil.copy("tests/data/bad.txt", "x.py")\n'
        'subprocess.run(["python3", "x.py"])\n',
    }
    for i, (rel, code) in enumerate(runners.items()):
        files = {"tests/data/bad.txt": _SAMPLE, rel: code}
        assert "SY-PI-009" in blocking(tmp_path / str(i), files), rel
    prose = "Before use, pipe `tests/data/bad.txt` into python3.\n"
    assert "SY-PI-009" in blocking(tmp_path / "md", {"tests/data/bad.txt": _SAMPLE}, prose)


def test_a_linter_whose_tests_read_the_sample_still_passes(tmp_path: Path) -> None:
    skill_md = (
        "`python scripts/lint.py PATH` reports bidi controls.\n\n`tests/fixtures/trojan_sample.txt` is a\n"
        "known-bad sample (a text file, never imported or run) used by `tests/test_lint.py`.\n"
    )
    files = {
        "tests/fixtures/trojan_sample.txt": _SAMPLE,
        "tests/test_lint.py": "import re\nfrom pathlib import Path\n\nWORD = re.compile(r'\\w+')\n\n"
        "def test_sample():\n"
        '    text = (Path(__file__).parent / "fixtures" / "trojan_sample.txt").read_text()\n'
        '    assert "\\u202e" in text and WORD.search(text)\n',
    }
    assert blocking(tmp_path, files, skill_md) == {}
