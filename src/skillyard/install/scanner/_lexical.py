"""A light reading of code in languages the scanner has no parser for (Go, Ruby, PowerShell, Perl,
PHP, Rust, Java, C#, Lua...).

No grammar: the file's string literals and a few call names are enough to tell that it reads a
credential store and that it talks to the network, where to, and that it deletes the home
directory. The value cannot be followed from one to the other, so the severity is weighed from
what is certain: a credential store and a send to a hard-coded exfiltration-shaped destination (a
raw IP address, a chat webhook, a paste site) is critical, to another hard-coded host high, to a
host decided at run time medium. `loose_ends` reads every code file of a skill, parsed or not,
the same light way, for the pairs no reader can tie (docs/scanner.md, "Loose ends across the skill").
"""

from __future__ import annotations

import re

from skillyard.install.scanner._flows import (
    INSTANCE_CREDENTIALS,
    KERNEL_PATH,
    LOOPBACK,
    OWN_FILE,
    PERSIST_PATH,
    CodeFacts,
    Source,
    _issued_by,
    cli_secret,
    exfil_shaped,
    flow,
    own_service,
    secret_path,
    unbase64,
    unhex,
    written,
)

_COMMENT = re.compile(r"^\s*(?://|#(?!!)|--|/\*|\*\s|REM\b|::|<#)", re.IGNORECASE)
#: Languages whose comments start with `;` (elsewhere a line may start a statement with it).
_SEMI_COMMENT = frozenset({"el", "clj", "cljs", "lisp", "scm"})
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`([^`\n]*)`')
#: A word list: Ruby's `%w[a b]`, Perl's `qw(a b)` / `qw/a b/`.
_WORDS = re.compile(r"(?:%[wWiI]|\bqw\s*)(?:[\[({<]([^\])}>]*)[\])}>]|([/|!])([^\n]*?)\2)")
_HOME_PREFIX = re.compile(
    r"^(?:\$env:(?:USERPROFILE|HOME)|%USERPROFILE%|%HOME%|\$\{?HOME\}?|\$HOME)(?=[/\\]|$)", re.I
)

#: Calls that read a file (or a whole store) into the program.
_READS = re.compile(
    r"\b(?:ReadFile|ReadAll|ReadDir|Open|os\.Open|ioutil\.ReadFile|File\.(?:read|open|binread|readlines"
    r"|ReadAllText|ReadAllBytes|ReadAllLines|OpenRead)|IO\.(?:read|binread|readlines)|Get-Content|gc|cat"
    r"|read_to_string|read_to_end|fs::read|readFileSync|readFile|file_get_contents|fopen|slurp|Files\.read\w*"
    r"|open|read|read_bytes|read_text|io\.open|Pathname|Import-Clixml|copy\w*|copyFileSync|Copy-Item"
    r"|buffer-(?:string|substring(?:-no-properties)?)|insert-file-contents"
    # the JVM's: Groovy's and Kotlin's file helpers, Java's streams
    r"|with(?:InputStream|Reader|DataInputStream)|new(?:InputStream|Reader)|readText|readBytes|readLines|eachLine"
    r"|FileInputStream|FileReader|fromFile)\b|\.(?:bytes|text)\b(?!\s*=)"
    # curl's form field or body read from a file whose path is filled in (`format!("{}=@{}/{}", ...)`)
    r"|=@[{$%]",
)
#: Calls that send data over the network, by kind.
_SINKS = (
    (
        "HTTP",
        re.compile(
            r"\bhttp\.(?:Post|PostForm|Get|NewRequest\w*)\b|\.(?:Post|PostForm|Do)\(|Net::HTTP|HTTParty|Faraday"
            r"|RestClient|URI\.open|Invoke-RestMethod|Invoke-WebRequest|\b(?:irm|iwr)\b|WebClient|\.Upload\w+\("
            r"|HttpClient|HttpRequest|reqwest::|ureq::|HttpURLConnection|\.openConnection\(|URLSession|curl_(?:exec|init)"
            r"|LWP::UserAgent|HTTP::Tiny|\bfetch\(|http\.request|Excon|Typhoeus|WWW::Mechanize|wp_remote_post"
            r"|\b(?:file_get_contents|fopen|file)\(\s*[\"']https?://|stream_context_create\(\s*(?:array\(|\[)\s*[\"']https?[\"']"
            r"|\burl-retrieve\b|\bhs\.http\.\w+\(|\brequest-send\b"
            # a network client run as a program (its arguments may be gathered in a list first)
            r"|(?:Command::new|exec\.Command(?:Context)?|ProcessBuilder|Process\.Start)\(\s*(?:ctx\s*,\s*)?[\"'](?:curl|wget)[\"']"
            # a URL held by a name, opened with a stream context; the URL curl is set to
            r"|\b(?:file_get_contents|fopen|file)\(\s*\$\w+\s*,[^,()]*,\s*\$\w+|CURLOPT_URL\s*,"
            # a package pushed to a registry: what the package holds goes with it
            r"|\b(?:gem|npm|yarn|pnpm|cargo|twine|poetry|dotnet\W+nuget)[\"',\s]+(?:push|publish|upload)\b"
        ),
    ),
    (
        "a socket",
        re.compile(
            r"\bnet\.Dial\w*|\btls\.Dial\b|TCPSocket|UDPSocket|Socket\.(?:tcp|udp|new)|TcpClient|UdpClient"
            r"|Net\.Sockets|IO::Socket|fsockopen|stream_socket_client|TcpStream::connect|UdpSocket|new Socket\("
            r"|socket\.connect|\bsocket\.tcp\b|\w:connect\("
        ),
    ),
    (
        "mail",
        re.compile(
            r"smtp\.SendMail|net/smtp|Net::SMTP|Send-MailMessage|SmtpClient|\bmail\(|lettre::|Transport\.send"
            r"|\.send_message\b|\.sendmail\b|\.send_mail\b"
        ),
    ),
    (
        # a program run as `git push|fetch|clone|ls-remote URL`: git talks to the URL it is given
        "git",
        re.compile(
            r"[\"'`]git[\"'`]\s*,\s*(?:[\"'`]-[Cc][\"'`]\s*,\s*[^,]+,\s*)?[\"'`](?:push|fetch|pull|clone|ls-remote)[\"'`]"
            r"|[\"'`]git\s+(?:-C\s+\S+\s+)?(?:push|fetch|pull|clone|ls-remote)\b"
        ),
    ),
)
_RUNS_CLIENT = re.compile(
    r"(?:Command::new|exec\.Command(?:Context)?|ProcessBuilder|Process\.Start)\(\s*(?:ctx\s*,\s*)?[\"'](?:curl|wget)[\"']"
)
#: A program run by a name the file bound to a string (`tool := "cu" + "rl"`, `let bin = "curl";`)
_RUNS_NAMED = re.compile(
    r"(?:Command::new|exec\.Command(?:Context)?|ProcessBuilder|Process\.Start)\(\s*(?:ctx\s*,\s*)?&?([A-Za-z_]\w*)\s*[,)]"
)
#: A URL added to an argument list (`args.push("https://…")`, `cmd.arg("https://…")`)
_ARG_URL = re.compile(
    r"""(?:\.(?:push|arg|args|append|add)\(|\bappend\(\s*\w+\s*,)\s*(?:&?\[\s*)?["']https?://"""
)
#: A URL template with a value put into its user part (`"https://%s@host/r.git"`, `"https://#{t}@host"`):
#: what fills it is sent to that host as a credential.
_USER_TEMPLATE = re.compile(
    r"^(?:https?|ssh|git)://[^/@\s]*(?:%[sv]|\{\w*\}|#\{[^}]*\}|\$\{?\w+\}?)[^/@\s]*@"
)
_URL = re.compile(
    r"^(?:https?|wss?|ftp|smtps?)://[^\s\"'`]+$|^(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?$|^(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{2,5}$",
    re.I,
)
_HOST_PORT = re.compile(
    r"[\"']((?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*|(?:\d{1,3}\.){3}\d{1,3}|localhost)[\"']\s*,\s*(\d{2,5})\b", re.I
)
#: The left side of an assignment (`x :=`, `my $x =`, `private static String x =`, `c, err :=`): its name.
_LHS = (
    r"^\s*(?:(?:const|var|let|my|our|local|final|static|private|public|String|string|val)\s+)*"
    r"[$@]{0,2}([A-Za-z_]\w*)(?:\s*,\s*[$@]?\w+)*\s*:?=(?!=)\s*"
)
_NAME_BOUND = re.compile(_LHS)
#: A name bound to a string literal, or to a URL parsed from one (`M = URI("https://…")`, `u, _ :=
#: url.Parse("…")`): `M.host` is that literal's host.
_BIND = re.compile(
    _LHS + r"(?:(?:new\s+)?(?:URI(?:\.parse)?|url\.Parse|URL(?:\.parse)?|Uri|parse_url|urlparse)\(\s*)?"
    r"[\"'`]([^\"'`\s]+)[\"'`]"
)
#: String literals joined together and nothing else (`'a' + "b"`, `"a" . "b"`, `"a" .. "b"`, `"a" & "b"`)
_LITERAL_SUM = re.compile(r"""(?:(["'`])[^"'`\n$]*\1\s*(?:\+|\.\.?|&|<>)\s*)+(["'`])[^"'`\n$]*\2""")
#: What may stand around literals joined by an empty separator: the joining call and brackets.
_JOIN_WORDS = re.compile(r"\b(?:implode|join|strings\.Join|table\.concat|array)\b|\[\]string")
_ADDRESS = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
#: A chat or integration webhook: a path that says so, whatever the host.
_WEBHOOK = re.compile(r"/(?:api/)?webhooks?(?:/|$)|/hooks/|/bot\d+:", re.I)
#: The whole environment as one value.
_ALL_ENV = re.compile(
    r"\bos\.Environ\(\)|\bENV\.(?:to_h|to_a|to_hash|each|map|inspect)\b|Get-ChildItem\s+env:|\bgci\s+env:|dir\s+env:"
    r"|System\.getenv\(\)|env::vars\(\)|Environment\.GetEnvironmentVariables\(\)|%ENV\b|getenv\(\)",
    re.I,
)
#: A cloud instance's metadata service.
_METADATA = re.compile(
    r"^(?:https?://)?(?:169\.254\.169\.254|metadata\.google\.internal|\[fd00:ec2::254\])(?=[/:]|$)", re.I
)
#: A value put into a URL's host at run time (`https://$Vault.vault.azure.net`): one label, unknown.
_ANY_LABEL = re.compile(r"\$\{?\w+\}?|#\{[^}]*\}|%[sv]|\{\w*\}")
#: What the user copied (passwords, seed phrases and keys pass through it).
_CLIPBOARD = re.compile(
    r"\bhs\.pasteboard\b|\bpbpaste\b|Get-Clipboard|Clipboard\.(?:GetText|getContents|get_text)|\bxclip\b[^\n]*-o"
    r"|\bxsel\b|\bwl-paste\b|NSPasteboard|arboard::|clipboard\.read",
    re.I,
)
#: An IPv4 address written as its four bytes (`([192, 0, 2, 1], 7878)`, `Ipv4Addr::new(192, 0, 2, 1)`,
#: `net.IPv4(192, 0, 2, 1)`, `IPAddress.new([192, 0, 2, 1])`).
_BYTE_ADDR = re.compile(
    r"(?:SocketAddr\w*|Ipv4Addr|IPv4\w*|IPAddress|IpAddr\w*|inet_ntoa|InetAddress\w*|ip_address|IP)\b[^\n]{0,24}?"
    r"[\[({]\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*[\])}](?:\s*,\s*(\d{2,5}))?"
)
#: A heredoc (`<<'END'` ... `END`, `<<~EOS`, `<<<'X'`): its body, which may be code in an encoding.
_HEREDOC = re.compile(r"""<<<?[~-]?\s*(["']?)([A-Za-z_]\w*)\1""")
#: A web page's submitted form fields (a login form's password among them): PHP's request arrays.
_FORM_READ = re.compile(r"\$_(?:POST|REQUEST)\b")
#: The site's visitors' sessions: all their cookies and the credentials their browsers send (PHP's
#: request array however reached, the server variables and request headers that hold them, the session
#: id); one cookie named for something else (`$_COOKIE['theme']`) is not a credential.
#: The operating system's store of saved logins read back in clear: Windows Credential Manager
#: (`CredEnumerate`/`CredRead`, the WinRT `PasswordVault`), DPAPI-protected blobs unwrapped
_VAULT_READ = re.compile(
    r"\bCred(?:Enumerate|Read)[AW]?\b|\bPasswordVault\b|\bCryptUnprotectData\b|\bProtectedData\]?::Unprotect\b"
    r"|\bvaultcmd(?:\.exe)?\s+/list(?:creds|properties)"
)
_SESSION_READ = re.compile(
    r"\$_COOKIE\b(?!\s*\[\s*([\"'])(?![^\"']*(?:sess|sid|auth|tok|log(?:ged|in)|remember|jwt|sso|saml))[^\"']*\1\s*\])"
    r"|\$(?:_SERVER|GLOBALS)\s*\[\s*[\"'](?:_COOKIE|(?:REDIRECT_)?(?:HTTP_AUTHORIZATION|HTTP_COOKIE|PHP_AUTH_PW))[\"']"
    r"|\bINPUT_COOKIE\b|\bsession_id\s*\(\s*\)|\b(?:getallheaders|apache_request_headers)\s*\(",
    re.I,
)
_SECRET_ENV_READ = re.compile(
    r"(?:Getenv|getenv|ENV\.fetch|ENV\[|\$env:|\$ENV\{|env::var|GetEnvironmentVariable)\(?\s*[\"']?"
    r"([A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|COOKIE|AUTH|PAT(?![A-Z]))[A-Z0-9_]*)"
)

#: The home directory as an expression, and a name bound to it.
_HOME_EXPR = (
    r"(?:os\.UserHomeDir\(\)|os\.Getenv\(\"(?:HOME|USERPROFILE)\"\)|Dir\.home\b|ENV\[[\"']HOME[\"']\]"
    r"|File\.expand_path\([\"']~[\"']\)|\$HOME\b|\$env:(?:USERPROFILE|HOME)\b|\$ENV\{HOME\}|dirs::home_dir\(\)"
    r"|home::home_dir\(\)|System\.getProperty\(\"user\.home\"\)|Environment\.GetFolderPath\([^)]*UserProfile\)"
    r"|os\.homedir\(\)|getenv\([\"']HOME[\"']\)|(?:std::)?env::var(?:_os)?\(\"(?:HOME|USERPROFILE)\"\))"
)
#: A walk down a folder tree, in any language.
_TREE_WALK = re.compile(
    r"\bread_dir\b|\bWalkDir\b|filepath\.Walk(?:Dir)?\b|\bFind\.find\b|Dir\.glob\([^)]{0,200}\*\*|Get-ChildItem\b[^\n]{0,300}-Recurse"
    r"|RecursiveDirectoryIterator|\bFiles\.walk\b|File::Find|\breaddir(?:Sync)?\b|EnumerateFiles|\bos\.walk\b"
)
#: A file opened to be written over in place (not created, truncated or appended to), or written at
#: an offset: what a wiper does to the files it finds.
_OVERWRITE = re.compile(
    r"OpenOptions::new\(\)(?![^;]{0,200}\.(?:create|truncate|append)\(true\))[^;]{0,200}\.write\(true\)(?![^;]{0,200}\.(?:create|truncate|append)\(true\))"
    r"|\bSeekFrom::|\bos\.OpenFile\([^)]{0,200}O_WRONLY(?![^)]{0,200}O_(?:CREATE|TRUNC|APPEND))|\bFile\.open\([^)]{0,200}[\"']r\+b?[\"']"
    r"|\bfopen\([^)]{0,200}[\"']r\+b?[\"']|\[IO\.File\]::OpenWrite\b|\bWriteAt\("
)
_HOME_BIND = re.compile(_LHS + _HOME_EXPR)
_RM_TREE = re.compile(
    r"(?:os\.RemoveAll|FileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|deleteDirectory)"
    r"|fs::remove_dir_all|std::fs::remove_dir_all|Directory\.Delete|rmtree|File::Path::remove_tree|rimraf"
    r"|Remove-Item\b[^|;\n]*?-Recurse|\brm\s+-\w*r\w*\s+(?:-\w+\s+)*)\s*\(?\s*(?:-Path\s+|-LiteralPath\s+)?"
)
_DATE_CHECK = re.compile(
    r"time\.Now\(\)\.(?:After|Before|Unix)|Time\.now\s*[<>]|Date\.today\s*[<>]|Get-Date|DateTime\.(?:Now|UtcNow)"
    r"|LocalDate\.now|SystemTime::now|\btime\(\)\s*[<>]|\.Unix\(\)\s*[<>]|time\.Date\(",
)


#: Calls that write a file.
_WRITES = re.compile(
    r"WriteFile|os\.Create\b|OpenFile|File\.(?:write|open\([^)\n]*[\"'][wa]|WriteAll\w*|AppendAll\w*)|IO\.write"
    r"|Set-Content|Add-Content|Out-File|fs::write|File::create|OpenOptions|file_put_contents|fwrite|Files\.write"
    r"|FileWriter|writeFileSync|appendFileSync|>>\s*[\"'$]|\bopen\s*\(\s*[\w$]+\s*,\s*[\"']>{1,2}",
)
#: DNS lookups; with a name built at run time they carry data.
_DNS_CALL = re.compile(
    r"net\.Lookup\w+|Resolv(?:::DNS)?[.:]+\w+|Resolve-DnsName|gethostbyname|Dns\.GetHostAddresses"
    r"|dns_get_record|InetAddress\.getByName|lookup_host|Socket\.getaddrinfo|\bnslookup\b|\bdig\b",
)
#: A file handed to curl to upload, its path joined on (`"f=@" + key`, `'@' . $p`, `"-T", path`).
_UPLOAD_ARG = re.compile(r"""["'][\w-]*=?@["']\s*(?:\+|\.)|["']--?(?:T|upload-file|data-binary)["']\s*,""")
#: A credential helper of git or docker, by its program name.
_HELPER = re.compile(r"(?:git|docker)-credential-[\w.-]+")
#: A program run from code.
_RUNS_PROGRAM = re.compile(
    r"exec\.Command|Command::new|ProcessBuilder|Process\.Start|\bspawn\w*\(|\bpopen\b|IO\.popen|Open3\.|\bsystem\(|\bproc_open\b|`"
)
#: A lookup through a resolver object (`dns.getaddresses(n)`, `resolver.resolve4(n)`, `r.query(n)`).
_DNS_METHOD = re.compile(
    r"(?:\.|->)(?:getaddress(?:es)?|getresources?|each_address|resolve(?:4|6|Txt|Any)?|query|lookup)\("
)
#: A host name whose first label is a value put in at run time, followed by more labels.
_DATA_LABEL = re.compile(
    r"""["'`](?:#\{[^}\n]+\}|\$[A-Za-z_]\w*|\$\{[^}\n]+\}|\{\w*\}|%[sx])\.[^"'`\s]*(?:#\{|\$\{|\{|%s|[\w-]+\.[a-z])"""
)
#: Data encoded to fit a DNS label: hex or base32.
_ENCODES = re.compile(
    r"""unpack1?\(\s*["']H\*|\.hex\(|hexlify|b32encode|[Bb]ase32|hex\.EncodeToString|toString\(\s*["']hex["']|bin2hex|unpack\(\s*["']H\*"""
)
_BUILT = re.compile(r"Sprintf|\+\s*[\"'$\w]|#\{|\$\(|%s|format!?\(|\{\}|\$\w+\.|\.\.|\bjoin\b|interpolat")
#: An interactive shell started (not `sh -c "..."`), and a process's standard streams handed a socket.
_SHELL_START = re.compile(
    r"(?:exec\.Command|IO\.popen|spawn|Process\.spawn|ProcessBuilder|Command::new|proc_open|system|exec)"
    r"\s*\(\s*[\"'](?:/bin/|/usr/bin/)?(?:ba|z|da)?sh(?:\.exe)?[\"']\s*(?:,\s*[\"']-i[\"']\s*)?[),]"
    r"|Start-Process\s+(?:cmd|powershell)|[\"']cmd\.exe[\"']",
    re.I,
)
_STREAMS = re.compile(
    r"\.(?:Stdin|Stdout|Stderr)\s*=\s*\w|\[:in,\s*:out|\b(?:in|out|err):\s*\w+|Stdio::from|from_raw_fd|dup2\("
    r"|descriptorspec|\$stdin\.reopen|STDIN\.reopen|redirectInput|\.(?:in|out)\s*=\s*sock",
    re.I,
)


#: A statement that shows text to the user: a command in it is shown, not run.
_SAY = re.compile(
    r"^\s*(?:fmt\.(?:Print|Fprint)\w*|puts|print|println!?|eprintln!?|printf|console\.(?:log|error|info|warn)"
    r"|Write-(?:Host|Output|Information|Verbose)|echo|System\.(?:out|err)\.print\w*|Console\.Write(?:Line)?|say"
    r"|log\.(?:Print|Info)\w*|warn)\s*\(?\s*(?:os\.Std(?:out|err)\s*,\s*|STDERR\s*,\s*|\$stderr\s*,\s*)?[\"'`]"
)
#: ... unless the text is piped on (`Write-Output $code | iex`).
_PIPED = re.compile(r"[\"'`]\s*\)?\s*\|(?!\|)")
#: ... nor text that runs something on its way out: a command substitution (`"$(curl …)"`), a call
#: put into it (`"${run(c)}"`, `"#{x(c)}"`), a backtick outside JavaScript and Go (a shell's, Perl's
#: or Ruby's command), a call beside the text (`print("x", os.system(c))`)
_SAY_RUNS = re.compile(r"\$\(|\{[^{}\n(]*\(")
_TEMPLATE_EXT = frozenset({"js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "go", "vue", "svelte"})


#: Calls that fetch a body from the network.
_FETCH_CALL = re.compile(
    r"Net::HTTP\.get\b|URI\.open\(|\bhttp\.Get\(|file_get_contents\(\s*[\"']https?:|\bget\(\s*[\"']https?:"
    r"|\bDownload(?:String|Data)\b|\bcurl_exec\(|reqwest::(?:blocking::)?get\b|ureq::get\b|HTTP::Tiny"
    r"|\bhttp\.request\(\s*[\"']https?:"
    # a DNS TXT record is a text its zone's owner serves: a download by another name
    r"|\bnet\.LookupTXT\(|\bResolve-DnsName\b[^\n]*\bTXT\b|Resource::IN::TXT|\bdns_get_record\([^)\n]*DNS_TXT"
)
#: Evaluating a string as code, or handing a value that is not a literal to `sh -c`.
_EVALUATES = re.compile(
    r"\beval\s*\(|\beval\s+[$@]?\w|\b(?:instance|class|module)_eval\b|\bcreate_function\b|\bloadstring\b"
    r"|\b(?:send|public_send|__send__|method)\(\s*[:\"']eval\b"
    r"|(?<![.:\w])load\s*\(\s*(?![\"'\s)])"
    r"|\[scriptblock\]::Create|[\"'](?:-c|/c)[\"']\s*,\s*(?![\"'`\s])",
    re.I,
)
#: Reading a line or a chunk from a connection.
_RECEIVES = re.compile(r":receive\(|\.gets\b|\.recv\w*\(|\.ReadString\(|\.read_line\(|\bsysread\b|<\$\w+>")
#: A command line that is not a literal handed to a shell or a process.
_RUNS_COMPUTED = re.compile(
    r"\b(?:io\.popen|os\.execute|system|popen|shell_exec|passthru|IO\.popen)\s*\(\s*(?![\"'\s)\[])"
    r"|[\"'](?:-c|/c)[\"']\s*,\s*(?![\"'`\s])"
)
#: Calls that run a program: their literal arguments are the command line.
_RUNS = re.compile(
    r"exec\.Command(?:Context)?\(|\bsystem\(|\bspawn\(|Process\.spawn|Open3\.\w+\(|IO\.popen\(|\bexec\("
    r"|Runtime\.getRuntime\(\)\.exec\(|ProcessBuilder\(|Command::new\(|Start-Process\b|shell_exec\(|passthru\("
    r"|proc_open\(|os\.execute\(|io\.popen\(|Process\.Start\("
)
#: A block device's path built from a name (`"/dev/{}"`, `"/dev/" + n`, `"/dev/%s"`, `"/dev/#{d}"`).
_BUILT_DEVICE = re.compile(r"""["'`]/dev/(?:\{[\w:]*\}|%[sv]|#\{|\$\{?\w|["'`]\s*(?:\+|\.|<<|\.\.))""")
#: Programs that erase or format the device they are given (not `wipefs` listing, `sgdisk -p`).
_DISK_TOOL = re.compile(
    r"^(?:\S*/)?(?:wipefs\b.*\s(?:-\w*a|--all|-o|--offset)\b|blkdiscard\b|shred\b|mkfs(?:\.\w+)?\b|mke2fs\b"
    r"|sgdisk\b.*\s(?:-\w*[Zzo]|--zap|--clear))"
)
_SHELLS = re.compile(r"^(?:.*/)?(?:ba|z|da|k)?sh$|^(?:cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)$", re.I)


#: Three or more string literals separated by commas: a list of values (indicator words, names).
_STR_LIST = re.compile(r"""(?:(?:'[^'\n]*'|"[^"\n]*")\s*,\s*){2,}(?:'[^'\n]*'|"[^"\n]*")""")
_ACTS = re.compile(r"\b(?:iex|invoke-expression|eval|exec|system|spawn|popen)\b", re.I)


def _data_list(line: str) -> bool:
    """A line that holds a list of strings and does nothing with them beyond looping or matching
    (`foreach ($w in 'IEX', 'DownloadString', ...)`): its words are data, not calls. A list handed
    to a call that runs or sends it is not."""
    if not _STR_LIST.search(line):
        return False
    rest = _STRING.sub("''", line)
    if _RUNS.search(rest) or _ACTS.search(rest) or _SHELL_START.search(line):
        return False
    return not (_WRITES.search(rest) or _DNS_CALL.search(rest) or any(p.search(rest) for _, p in _SINKS))


def _run_command(line: str) -> str | None:
    """The command line a call that runs a program spells with literals (`exec.Command("sh", "-c",
    "...")` is its script; `exec.Command("launchctl", "load", p)` is `launchctl load`)."""
    m = _RUNS.search(line)
    if m is None:
        return None
    lits = [x for x in _literals(line[m.start() :]) if x]
    if not lits:
        return None
    if _SHELLS.match(lits[0]) and len(lits) > 2 and lits[1].lower() in ("-c", "/c", "-command"):
        return lits[2]
    return " ".join(lits) if len(lits) > 1 or " " in lits[0] else None


_FOLDER_WORDS = re.compile(r"^[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}$")


def _literals(line: str) -> list[str]:
    out = [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(line)]
    for m in _WORDS.finditer(line):
        out.extend((m.group(1) if m.group(1) is not None else m.group(3)).split())
    return out


def _empty_joined(rest: str) -> str | None:
    """`implode('', ['a', 'b'])`, `join("", "a", "b")`, `['a', 'b'].join('')`, `"".join(("a", "b"))`,
    `strings.Join([]string{"a", "b"}, "")`, `table.concat({"a", "b"})`: literals joined by an empty
    separator and nothing else, as the text they make; else None."""
    if not _JOIN_WORDS.search(rest):
        return None
    shape = _JOIN_WORDS.sub(
        "", _STRING.sub(lambda q: "S" if len(q[0]) > 2 else "E", rest.strip().rstrip(";"))
    )
    if not re.fullmatch(r"[\s(){}\[\],.SE]*", shape) or shape.count("S") < 2:
        return None
    if "E" not in shape and "concat" not in rest:
        return None
    return "".join(_literals(rest))


def _as_path(lit: str) -> str:
    return _HOME_PREFIX.sub("~", lit.replace("\\\\", "/").replace("\\", "/"))


def _paths(lits: list[str], *, joined_first: bool = True) -> list[str]:
    """The paths the literals of one line may name: the longest their parts make (`.ssh` + `id_rsa`
    is `.ssh/id_rsa`) and each alone, joined ones first unless `joined_first` is False (a target
    named whole must not have the text written to it glued on)."""
    # a folder name of two or three capitalised words (`"Local Storage"`, `"User Data"`) is a part
    # only inside a longer path, never a path alone
    spaced = [x for x in lits if _FOLDER_WORDS.match(x)]
    parts = [
        _as_path(x) for x in lits if x and (" " not in x or x in spaced) and "://" not in x and len(x) < 256
    ]
    joined = [
        "/".join(p.strip("/") for p in parts[i:j])
        for i in range(len(parts) - 1)
        for j in range(min(len(parts), i + 6), i + 1, -1)
    ]
    alone = [p for p in parts if p not in spaced]
    return joined + alone if joined_first else alone + joined


def _store(lits: list[str]) -> str | None:
    """A credential store the literals of one line name, alone or as parts of one path; one that is
    not an application's own file first (`['.env', '~/.config/composer/auth.json']`)."""
    stores = [s for p in _paths(lits) if (s := secret_path(p))]
    return next((s for s in stores if not OWN_FILE.search(s)), stores[0] if stores else None)


#: Languages that join strings with `.` and call a function through a name held in a variable
#: (PHP's `$f = 'sys' . 'tem'; $f(...)`, Perl's `&$f(...)`, `$f->(...)`).
_DOT_JOINED = frozenset({"php", "pl", "pm"})
_Q = r"""(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\$\n]|\\.)*)")"""
#: A literal decoded in place: `hex2bin('2f…')`, `base64_decode('…')`, `str_rot13('…')`, `strrev('…')`,
#: `pack("H*", "…")`, `chr(115)`.
_DECODE_CALL = re.compile(
    r"\b(hex2bin|base64_decode|str_rot13|strrev)\s*\(\s*" + _Q + r"\s*\)"
    r"|\bpack\s*\(\s*[\"']H\*[\"']\s*,\s*" + _Q + r"\s*\)|\bchr\s*\(\s*(\d{1,3})\s*\)",
    re.I,
)
_QI = r"""(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")"""  # `$name` kept in double quotes
#: two literals joined; else one literal, or a quote never closed on its line, passed over whole (a
#: search that failed at a quote would start again inside the literal: quadratic in a long one)
_JOIN = re.compile(_QI + r"\s*\.\s*" + _QI + r"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|['"][^\n]*""")
#: `$f = 'system';` on a line of its own (spaces before it, never line breaks: a run of blank lines
#: would be read again from each of its lines)
_BOUND = re.compile(r"(?m)^[ \t]*(?:my\s+|our\s+)?\$(\w+)\s*=\s*" + _Q + r"\s*;")
_FUNC_NAME = re.compile(r"[A-Za-z_]\w{1,40}")


def _quoted(v: str) -> str | None:
    if "\n" in v or "\\" in v:
        return None
    return f"'{v}'" if "'" not in v else f'"{v}"' if '"' not in v and "$" not in v else None


def _dot_folded(text: str) -> str:
    """The file with literals decoded in place and joined (`'file_put' . '_contents'` is
    `'file_put_contents'`), and calls through a variable holding a function's name made calls of
    that function: what the rules and the reading below then see."""
    if len(text) > 256 * 1024:
        return text

    def decode(m: re.Match[str]) -> str:
        if m.group(6) is not None:
            n = int(m.group(6))
            return _quoted(chr(n)) or m.group(0) if 31 < n < 127 else m.group(0)
        fn = (m.group(1) or "pack").lower()
        v = next(g for g in m.groups()[1:5] if g is not None)
        out: str | None
        if fn == "hex2bin" or fn.startswith("pack"):
            out = unhex(v) if re.fullmatch(r"(?:[0-9a-fA-F]{2})+", v) else None
        elif fn == "base64_decode":
            out = unbase64(v, "latin-1")
        elif fn == "str_rot13":
            out = v.translate(_ROT13)
        else:
            out = v[::-1]
        if out is None or not out.isprintable():
            return m.group(0)
        return _quoted(out) or m.group(0)

    for _ in range(4):
        folded = _DECODE_CALL.sub(decode, text)
        folded = _JOIN.sub(_joined, folded)
        if folded == text:
            break
        text = folded
    bound = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) for m in _BOUND.finditer(text)}
    names = {k: v for k, v in bound.items() if _FUNC_NAME.fullmatch(v)}
    if names:
        text = re.sub(r"&?\$(\w+)(?:->)?(?=\s*\()", lambda m: names.get(m.group(1), m.group(0)), text)
    plain = {k: v for k, v in bound.items() if '"' not in v and "$" not in v}
    if plain:
        # `"wget -qO- $u | perl"` with `$u` bound to a literal above: the string it makes
        # (a quote never closed on its line is passed over whole, as in `_JOIN`)
        text = re.sub(
            r'"((?:[^"\\\n]|\\.)*)"|"[^\n]*',
            lambda m: (
                m[0]
                if m[1] is None
                else '"' + re.sub(r"\$(\w+)\b", lambda v: plain.get(v[1], v[0]), m[1]) + '"'
            ),
            text,
        )
    return text


def _joined(m: re.Match[str]) -> str:
    if m.group(1) is None and m.group(2) is None:
        return m.group(0)  # a literal on its own
    a, b = (
        (m.group(1) if m.group(1) is not None else m.group(2)),
        (m.group(3) if m.group(3) is not None else m.group(4)),
    )
    if m.group(2) is None and m.group(4) is None:
        return _quoted(a + b) or m.group(0)
    # a double-quoted part keeps its `$name`s: the result is double-quoted
    return f'"{a + b}"' if '"' not in a + b and "\\" not in a + b else m.group(0)


_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


def analyse(rel: str, text: str, _depth: int = 0) -> CodeFacts | None:
    """Flows in a file of a language without a parser (the caller picks those by extension); PHP
    and Perl read once as written (a host the file hides is a drop) and once folded."""
    ext = rel.rsplit(".", 1)[-1].lower() if "." in rel.rsplit("/", 1)[-1] else ""
    facts = _analyse(rel, ext, text, _depth, set())
    if facts is None or ext not in _DOT_JOINED or (folded := _dot_folded(text)) == text:
        return facts
    # the lines the folding changed, as they read now, for the rules too
    was, now = text.split("\n"), folded.split("\n")
    changed = {n for n, ln in enumerate(now, 1) if ln != was[n - 1]}
    facts.assembled += [(n, now[n - 1]) for n in sorted(changed)[:16]]
    other = _analyse(rel, ext, folded, _depth, changed)
    if other is not None:
        seen = {(f.kind, f.line) for f in facts.flows}
        facts.flows += [f for f in other.flows if (f.kind, f.line) not in seen]
        facts.assembled += [a for a in other.assembled if a[0] in changed]
        facts.shell += [c for c in other.shell if c[0] in changed]
    return facts


def _analyse(rel: str, ext: str, text: str, _depth: int, changed: set[int]) -> CodeFacts | None:
    if len(text) > 512 * 1024:
        return None
    facts = CodeFacts()
    lines = text.split("\n")
    shifts = list(
        dict.fromkeys(
            (m.group(1) or m.group(3), int(m.group(2) or m.group(4))) for m in _CHAR_SHIFT.finditer(text)
        )
    )
    source: Source | None = None
    weak: Source | None = None
    reads = False
    binds: dict[str, str] = {}
    sinks: list[tuple[int, str, str]] = []  # (line, kind, code)
    homes: set[str] = set()
    targets: dict[str, str] = {}  # names bound to a persistence or kernel path
    dns: list[int] = []
    hid: set[str] = set()  # names bound to a host the file hides
    built: set[str] = set()  # names bound to a value built at run time (`name := fmt.Sprintf(...)`)
    shells: list[int] = []
    streams: list[str] = []  # lines that hand a process's standard streams something
    sockets: dict[str, bool] = {}  # names bound to a socket connected out -> whether it stays local
    fetched: Source | None = None  # the first download
    received = ran = False  # reads from a connection; runs a command line built at run time
    templates: list[str] = []  # URL templates with a value put into their user part
    evals: list[int] = []  # lines that evaluate a string or hand a computed one to `sh -c`
    hidden: tuple[int, str] | None = None  # the first host the file hides, wherever it is used
    tried = 0  # heredocs tried as uuencoded text
    imds: list[int] = []  # lines asking the metadata service for the instance's credentials
    metadata = False  # the file named the metadata service's address
    spelled: list[tuple[int, str]] = []  # (line, text) written as character codes
    lookups: list[int] = []  # DNS lookups of a name the line does not build
    labels = False  # the file makes host names that start with a value put in at run time
    whole: dict[str, Source] = {}  # names bound to the whole of an application's own credential file
    for n, line in enumerate(lines, 1):
        if (h := _HEREDOC.search(line)) and n < len(lines) and _uu_line(lines[n]):
            if (tried := tried + 1) > 16 or len(facts.assembled) >= 8:
                # more encoded text than the reader decodes: what it did not read is not passed
                facts.unread = facts.unread or "more uuencoded heredocs than the reader decodes (16)"
            elif body := _uudecoded(lines, n, h.group(2)):
                facts.assembled.append((n, body))  # uuencoded text (Perl's `unpack("u", …)`)
        if _COMMENT.match(line) or len(line) > 4096 or ext in _SEMI_COMMENT and line.lstrip()[:1] == ";":
            continue
        if (
            _SAY.match(line)
            and not _PIPED.search(line)
            and not _SAY_RUNS.search(line)
            and ("`" not in line or ext in _TEMPLATE_EXT)
            and _STRING.sub("''", line).count("(") <= 1
        ):
            facts.data_lines.add(n)
            continue
        if _data_list(line):
            facts.data_lines.add(n)
        lits = _literals(line)
        if not reads and _READS.search(line):
            reads = True
        if source is None and lits:
            if s := _store(lits):
                if OWN_FILE.search(s):
                    weak = weak or Source(s, n, False)
                    if (
                        re.search(r"(?:^|/)\.env\b", s)
                        and _READS.search(line)
                        and (b := _NAME_BOUND.match(line))
                        and len(whole) < 8
                    ):
                        # `$ctx = file_get_contents(".env")`: every variable of it, not one token
                        whole[b.group(1)] = Source(s, n, True)
                else:
                    source = Source(s, n, True)
            elif what := cli_secret([w for w in lits if w][:8]):
                source = Source(what, n, True)
            elif (h := next((w for w in lits[:8] if _HELPER.fullmatch(w)), None)) and _RUNS_PROGRAM.search(
                text
            ):
                # `exec.Command("docker-credential-desktop", action)`: a credential helper run with an
                # action chosen at run time prints (`get`) or is handed (`store`) the logins it keeps
                source = Source(f"the logins `{h}` keeps", n, True)
        if source is None and _SESSION_READ.search(line):
            source = Source(
                "the site's visitors' cookies and authorization headers (their sessions)", n, True
            )
        if source is None and _VAULT_READ.search(line):
            source = Source("the saved logins of the system's credential store", n, True)
        if source is None and _ALL_ENV.search(line):
            source = Source("the whole environment", n, True)
        if weak is None and (m := _SECRET_ENV_READ.search(line)):
            weak = Source(f"${m.group(1)}", n, False)
        if weak is None and _FORM_READ.search(line):
            weak = Source("the fields of the forms submitted to the site (passwords included)", n, False)
        metadata = metadata or any(_METADATA.match(x) for x in lits)
        if any(INSTANCE_CREDENTIALS.search(x) and (metadata or _METADATA.match(x)) for x in lits):
            # what a request for the metadata service's credentials path answers (the path may be
            # joined to a base address the file named before: `md + "meta-data/iam/…"`)
            imds.append(n)
            if source is None:
                source = Source("the instance's credentials from the metadata service", n, True)
        if weak is None and _CLIPBOARD.search(line):
            weak = Source("what the user copies (passwords, keys and seed phrases pass through it)", n, False)
        if hidden is None and (host := _hidden_host(line)):
            hidden = (n, host)
        if (b := _NAME_BOUND.match(line)) and _LITERAL_SUM.fullmatch(line[b.end() :].strip().rstrip(";")):
            binds[b.group(1)] = "".join(_literals(line[b.end() :]))  # `$u = 'https://' + 'h' + '.x/p'`
        elif (b := _NAME_BOUND.match(line)) and (joined := _empty_joined(line[b.end() :])):
            binds[b.group(1)] = joined  # `$to = implode('', ['sup', 'port', '@', …])`
        elif (m := _BIND.match(line)) and not (_REVERSED.search(line) and _hidden_host(line)):
            binds[m.group(1)] = _translated(m.group(2), line[m.end() :])
        elif (b := _NAME_BOUND.match(line)) and (host := _hidden_host(line)):
            hid.add(b.group(1))
            scheme = re.search(r"\b(?:https?|wss?|ftp)://", line)
            binds[b.group(1)] = f"{scheme.group(0)}{host}" if scheme and not _URL.match(host) else host
        elif (b := _NAME_BOUND.match(line)) and (addr := _byte_addresses(line)):
            binds[b.group(1)] = addr[0]
        if len(templates) < 8:
            templates += [lit for lit in lits if _USER_TEMPLATE.match(lit)]
        for kind, pat in _SINKS:
            if pat.search(line):
                # a call whose arguments go on over the next lines (`->post_form(` then the URL)
                code, k = line, n
                while k < min(len(lines), n + 4) and code.count("(") > code.count(")"):
                    code, k = f"{code} {lines[k]}", k + 1
                sinks.append((n, kind, code))
                if kind == "a socket" and (b := _NAME_BOUND.match(line)):
                    sockets[b.group(1)] = _local(line, binds)
                break
        else:
            if (m := _RUNS_NAMED.search(line)) and re.fullmatch(
                r"(?:\S*[/\\])?(?:curl|wget)(?:\.exe)?", binds.get(m.group(1), ""), re.I
            ):
                # the client run by a name bound to its name: read as the literal it holds
                sinks.append((n, "HTTP", f'{line[: m.start(1)]}"curl"{line[m.end(1) :]}'))
        for m in _CODES.finditer(line):
            # text written as character codes (`string.char`, `pack("c*")`, `[char[]]`, `map chr`):
            # read as what it spells, a command line or a URL the rules then see
            codes = [int(c) for c in re.findall(r"\d+", m.group(0))]
            if all(31 < c < 127 for c in codes) and not _HOSTISH.match(said := "".join(map(chr, codes))):
                spelled.append((n, said))
            # codes turned into characters after a constant shift or mask the file applies
            # (`string.char(v - 7)`, `chr(c ^ 23)`, `(char)(b + 3)`): read through each of them
            for op, k in shifts[:4]:
                moved = [_shift(c, op, k) for c in codes]
                if all(31 < c < 127 or c in (9, 10) for c in moved):
                    spelled.append((n, "".join(map(chr, moved))))
        if (cmd := _run_command(line)) is not None:
            facts.shell.append((n, cmd))
            if cmd not in line or n in changed:
                facts.assembled.append((n, cmd))
        if m := _HOME_BIND.match(line):
            homes.add(m.group(1))
        _deletes_home(facts, lines, n, line, homes)
        if lits and (p := _target(lits)) is not None and (b := _NAME_BOUND.match(line)):
            targets[b.group(1)] = p
        if _WRITES.search(line):
            hit = _target(lits) if lits else None
            if hit is None:
                hit = next(
                    (v for k, v in targets.items() if re.search(rf"(?<![\w.]){re.escape(k)}\b", line)), None
                )
            # what the line's own literals write there (a fetch-and-run line into a start-up file)
            if (
                hit is not None
                and (fl := written(hit, n, re.sub(r"\\[nrt]", "\n", "\n".join(lits)) if lits else None))
                is not None
            ):
                facts.flows.append(fl)
        if (b := _NAME_BOUND.match(line)) and _BUILT.search(line[b.end() :]):
            built.add(b.group(1))
        if (d := _DNS_CALL.search(line)) and (
            _BUILT.search(line)
            or any(re.search(rf"(?<![\w.$@]){re.escape(k)}\b", line[d.end() :]) for k in built)
        ):
            dns.append(n)
        elif _DNS_CALL.search(line) or _DNS_METHOD.search(line):
            lookups.append(n)
        if _DATA_LABEL.search(line):
            labels = True  # `"#{chunk}.#{i}.#{ZONE}"`: names made of data put before a zone
        if _SHELL_START.search(line):
            shells.append(n)
        if _STREAMS.search(line):
            streams.append(line)
        if fetched is None and _FETCH_CALL.search(line):
            fetched = Source(f"downloads {_dest(line, binds) or 'code'}", n, True)
        if _EVALUATES.search(line):
            evals.append(n)
        received = received or bool(_RECEIVES.search(line))
        ran = ran or bool(_RUNS_COMPUTED.search(line))
    # `exec.Command("curl", []string{"-F", "f=@" + key, …}...)`: the client reads the file it uploads
    reads = reads or any(_UPLOAD_ARG.search(c) for _, k, c in sinks if k == "HTTP")
    strong = source if source is not None and (reads or source.what.startswith("the ")) else None
    if strong is None and whole:
        # the whole of a project's `.env` handed to a send by the name it was read into
        strong = next(
            (
                s
                for k, s in whole.items()
                for _, _, c in sinks
                if re.search(rf"(?<![\w@.]){re.escape(k)}\b", c)
            ),
            None,
        )
    src = strong or weak
    if not dns and lookups and labels and _ENCODES.search(text):
        # the names are made elsewhere in the file, from data encoded to fit a label (hex, base32)
        dns = lookups
    if dns and src is not None:
        said = f"reads {src.what}; the same file sends data in DNS lookups of names it builds"
        facts.flows.append(flow("secret-network", "critical", dns[0], said, src))
    # a shell whose standard streams are a socket this file binds, or that runs the command lines
    # read from one, unless the socket is known to stay on this machine
    wired = [
        n for n, d in sockets.items() if any(re.search(rf"=[^=]*(?<![\w.])[$@]?{n}\b", s) for s in streams)
    ]
    if shells and any(not sockets[n] for n in wired):
        said = "connects a socket and starts a shell with its standard streams on it"
        facts.flows.append(flow("reverse-shell", "critical", shells[0], said, None))
    elif received and ran and (at := [n for n, k, c in sinks if k == "a socket" and not _local(c, binds)]):
        said = "connects a socket and runs the command lines it receives on it (a remote shell)"
        facts.flows.append(flow("reverse-shell", "critical", at[0], said, None))
    at, seen = 1, 0  # the line a match starts on, counted on from the last match: linear in the text
    for m in _CODES.finditer(text) if "\n" in text else ():
        # a list of codes that runs over several lines (a table of bytes): read as one text
        at += text.count("\n", seen, m.start())
        seen = m.start()
        if "\n" not in m.group(0) or len(spelled) >= 64:
            continue
        codes = [int(c) for c in re.findall(r"\d+", m.group(0))]
        for op, k in [("+", 0), *shifts[:4]]:
            moved = [_shift(c, op, k) for c in codes]
            if all(31 < c < 127 or c in (9, 10) for c in moved):
                spelled.append((at, "".join(map(chr, moved))))
    # the first few one by one, then every other one read together: lists put first hide nothing
    room = max(0, 8 - len(facts.assembled))
    facts.assembled.extend(spelled[:room])
    chunks: list[tuple[int, list[str]]] = []
    size = 0
    for n, said in spelled[room:]:
        if not chunks or size + len(said) > 60_000:
            if len(chunks) == 4:
                facts.unread = facts.unread or "more text written as character codes than the reader decodes"
                break
            chunks.append((n, []))
            size = 0
        chunks[-1][1].append(said)
        size += len(said) + 1
    facts.assembled.extend((n, "\n".join(part)) for n, part in chunks)
    if fetched is not None and evals:
        said = f"{fetched.what} and evaluates code in the same file"
        facts.flows.append(flow("download-exec", "critical", evals[0], said, fetched))
    if homes and _TREE_WALK.search(text) and (w := _OVERWRITE.search(text)):
        # a walk handed the home directory (`walk(Path::new(&home))`) that writes over the files it
        # finds in place: a wiper's shape, whatever the files are
        handed = any(
            re.search(rf"\w\s*\([^()\n]*[&*]?\b{re.escape(h)}\b", ln) and not _HOME_BIND.match(ln)
            for ln in lines
            for h in homes
        )
        if handed:
            at = text[: w.start()].count("\n") + 1
            facts.flows.append(
                flow(
                    "destruction",
                    "high",
                    at,
                    "walks the home directory and writes over the files it finds",
                    None,
                )
            )
    if _BUILT_DEVICE.search(text) and (
        erase := next(((n, c) for n, c in facts.shell if _DISK_TOOL.match(c)), None)
    ):
        # a device path built at run time (`format!("/dev/{}", name)` over `/sys/block`) and a
        # program that erases or formats a device run from the same file
        said = f"runs `{erase[1][:60]}` on disk devices it names at run time"
        facts.flows.append(flow("destruction", "high", erase[0], said, None))
    if ext in ("ps1", "psm1"):
        from skillyard.install.scanner import _powershell

        ps = _powershell.analyse(text)
        facts.assembled.extend(ps.assembled)
        facts.flows.extend(ps.flows)
        facts.installed_launch.update(ps.installed_launch)
    if any(_RUNS_CLIENT.search(c) for _, _, c in sinks):
        # `args.push("https://…")` then `Command::new("curl").args(&args)`: where the client sends
        sinks += [(n, "HTTP", ln) for n, ln in enumerate(lines, 1) if _ARG_URL.search(ln)][:8]
    if templates:  # git is handed one of them
        sinks = [(n, k, f"{c} {templates[0]!r}" if k == "git" else c) for n, k, c in sinks]
    if sinks:
        _send(facts, strong, weak, sinks, binds, hid, hidden, _own_bot(weak, lines))
    if imds and source is not None and source.line in imds and _own_use(source, sinks, binds, text):
        facts.credential_use.update(imds)
    if evals and _depth < 2:
        # what the file assembles (character codes, a uuencoded heredoc) and evaluates is code of
        # the same language: read it as such, its flows reported where it was assembled
        for at, code in facts.assembled[:8]:
            inner = analyse(rel, code, _depth + 1) if len(code) < 64 * 1024 else None
            for fl in inner.flows if inner is not None else ():
                steps = tuple((at, step, f) for _, step, f in fl.steps)
                facts.flows.append(type(fl)(fl.kind, fl.severity, at, fl.text, steps))
    return facts


#: A request that carries a body, or a file or variable that keeps a value for later (another file
#: or process may send it on).
_CARRIES = re.compile(
    r"-(?:Body|InFile|Form)\b|-Method\s+[\"']?(?:Post|Put|Patch)\b|--(?:data|upload-file|form|json)\b|\s-[dFT]\s"
    r"|\b(?:Post|Put|Patch)\w*\(|\.(?:post|put|patch)\(|method\s*[:=]>?\s*[\"'](?:POST|PUT|PATCH)"
    r"|\b(?:Set|Add|Out)-(?:Content|File)\b|\bExport-\w+|\bTee-Object\b|\$env:\w+\s*=|(?<![-=])>>?\s*[^\s=&>]"
    r"|\bWrite\w*\(|\bwrite\w*\(|\bfile_put_contents\b|\bfwrite\b|\bos\.(?:Create|Setenv)\b|\bSetEnvironmentVariable\b"
    r"|\bsetenv\b|\bENV\[",
    re.I,
)


#: A URL literal a value is joined onto (`"https://b.s3.amazonaws.com/x?c=" + token`).
_URL_JOINED = re.compile(r"""["'`]https?://[^"'`\s]*["'`]\s*(?:\+|\.|<<|&)\s*[$@\w(]""")


def _own_use(source: Source, sinks: list[tuple[int, str, str]], binds: dict[str, str], text: str) -> bool:
    """Whether the instance's credentials `source` reads are only used at its own cloud's APIs: every
    request of the file names its hosts, each one of that cloud's APIs (a name put into the host is
    one label of it, given from outside, not a value the file sets), none carries a body, and the
    file keeps nothing in a file or the environment for later."""
    if (
        not sinks
        or any(_CARRIES.search(c) for _, _, c in sinks)
        or any(_CARRIES.search(x) for x in text.split("\n") if not _COMMENT.match(x))
        or _URL_JOINED.search(text)
    ):
        return False
    for _, _, code in sinks:
        sent = [d for d in _dests(code, binds) if not LOOPBACK.match(d)]
        if not sent:
            return False
        for d in sent:
            if _issued_by(source.what, d):
                continue
            host, _, rest = re.sub(r"^[a-z]+://", "", d, flags=re.I).partition("/")
            given = re.findall(r"\$\{?(\w+)\}?", d)
            if _ANY_LABEL.sub("", rest) != re.sub(r"\$\{?\w+\}?", "", rest) or not re.fullmatch(
                r"(?:\$\{?\w+\}?\.)?[\w.-]+(?::\d+)?", host
            ):
                return False
            if any(re.search(rf"(?m)^\s*\$?{re.escape(g)}\s*:?=", text) for g in given):
                return False
            if not own_service(source.what, _ANY_LABEL.sub("x", d)):
                return False
    return True


def _uu_line(line: str) -> bool:
    """A line of uuencoded text: its length character, then 4 characters for every 3 bytes."""
    line = line.rstrip("\r")
    size = (ord(line[0]) - 32) & 63 if line else 0
    return size > 0 and len(line) == 1 + (size + 2) // 3 * 4 and all(" " <= c <= "`" for c in line)


def _uudecoded(lines: list[str], n: int, end: str) -> str | None:
    """The text a heredoc opened on line `n` and closed by `end` holds when it is uuencoded."""
    import binascii

    body = []
    for line in lines[n : n + 2000]:
        if line.strip() == end:
            break
        body.append(line)
    else:
        return None
    if not body or not all(ln and 32 <= ord(ln[0]) <= 96 for ln in body):
        return None
    try:
        raw = b"".join(binascii.a2b_uu(ln) for ln in body if ln.strip() != "`")
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if text.isprintable() or all(c.isprintable() or c in "\n\t" for c in text) else None


def _byte_addresses(code: str) -> list[str]:
    """IPv4 addresses the line writes as four bytes (with the port that follows them)."""
    out = []
    for m in _BYTE_ADDR.finditer(code):
        parts = [int(x) for x in m.groups()[:4]]
        if all(x < 256 for x in parts) and parts[0] > 0:
            out.append(".".join(map(str, parts)) + (f":{m.group(5)}" if m.group(5) else ""))
    return out


def _dests(code: str, binds: dict[str, str]) -> list[str]:
    """Every hard-coded destination a sink line names (a literal, or a name bound to one)."""
    found = [lit for lit in _literals(code) if _URL.match(lit)]
    # socket and mail APIs take the host and the port as two arguments: `('mx.host', 587)`
    found += [f"{m.group(1)}:{m.group(2)}" for m in _HOST_PORT.finditer(code)]
    found += [lit for lit in _literals(code) if _ADDRESS.match(lit)]  # a mail recipient
    found += [h for h in (_hidden_host(code),) if h]
    found += _byte_addresses(code)
    found += [
        v for k, v in binds.items() if _URL.match(v) and re.search(rf"(?<![\w@]){re.escape(k)}\b", code)
    ]
    # a recipient, or a host handed over with its port (`SMTP.start(relay, 587)`), held by a name
    found += [
        v
        for k, v in binds.items()
        if _ADDRESS.match(v)
        and re.search(rf"(?<![\w@.]){re.escape(k)}\b", code)
        or _HOSTISH.match(v)
        and re.search(rf"(?<![\w$@.]){re.escape(k)}\s*,\s*\d{{2,5}}\b", code)
    ]
    return found


def _local(code: str, binds: dict[str, str]) -> bool:
    """Whether a sink line names destinations and all of them are on this machine."""
    return bool(found := _dests(code, binds)) and all(LOOPBACK.match(d) for d in found)


def _dest(code: str, binds: dict[str, str]) -> str | None:
    """The remote destination a sink line names, the exfiltration-shaped one first."""
    found = [d for d in _dests(code, binds) if not LOOPBACK.match(d)]
    return next((d for d in found if exfil_shaped(d) or _WEBHOOK.search(d)), found[0] if found else None)


def _send(
    facts: CodeFacts,
    strong: Source | None,
    weak: Source | None,
    sinks: list[tuple[int, str, str]],
    binds: dict[str, str],
    hid: set[str],
    hidden_anywhere: tuple[int, str] | None = None,
    own_bot: str | None = None,
) -> None:
    src = strong or weak
    dests = [(n, kind, d) for n, kind, code in sinks if (d := _dest(code, binds))]
    if any(LOOPBACK.match(v) for v in binds.values()) and not dests:
        return  # talks to a local service only
    # a destination the file hides (character codes, pieces, base64, reversed) is a drop
    hidden = [
        (n, kind, h)
        for n, kind, code in sinks
        if (h := _hidden_host(code))
        or (h := next((binds[k] for k in hid if re.search(rf"(?<![\w@.]){re.escape(k)}\b", code)), None))
    ]
    if not hidden and not dests and hidden_anywhere is not None:
        # a send whose destination no line names, in a file that hides a host elsewhere (built by
        # a helper, `(concat "https://" (string-reverse "…"))`): that host is where it goes
        hidden = [(sinks[0][0], sinks[0][1], hidden_anywhere[1])]
    # (a metadata service asked for the credentials it hands out is where they come from)
    hot = next(
        (
            (n, k, d)
            for n, k, d in dests
            if (exfil_shaped(d) or _WEBHOOK.search(d))
            and not (src is not None and _issued_by(src.what, d))
            and not (strong is None and own_bot is not None and _bot_named(d) == own_bot)
        ),
        None,
    ) or next(iter(hidden), None)
    if src is None:
        if hidden:  # what goes to a host the file hides is not the user's to see
            n, kind, d = hidden[0]
            via = {
                "HTTP": "over HTTP ",
                "a socket": "over a socket ",
                "mail": "by mail ",
                "git": "with git ",
            }[kind]
            facts.flows.append(
                flow("secret-network", "high", n, f"sends data {via}to a host it hides, {d}", None)
            )
        return
    # the cluster's API server for a pod's token, a metadata service for its own credentials: the
    # credential doing its job there, so the other destinations are the ones weighed
    foreign = [x for x in dests if not _issued_by(src.what, x[2])]
    # (an instance's credentials in a request body reach whoever owns the bucket, queue or function
    # it is sent to, even at the cloud's own hosts)
    body = {n for n, _, c in sinks if _CARRIES.search(c)} if src.what.startswith("the instance's") else set()
    own = [x for x in foreign if own_service(src.what, _ANY_LABEL.sub("x", x[2])) and x[0] not in body]
    if hot is not None:
        n, kind, d = hot
        sev = "critical"
    elif dests:
        n, kind, d = next((x for x in foreign if x not in own), (foreign or dests)[0])
        sev = "high" if strong is not None and foreign and (n, kind, d) not in own else "medium"
    else:
        n, kind, _ = sinks[0]
        d = "a host chosen at run time"
        sev = "medium"
    via = {"HTTP": "over HTTP ", "a socket": "over a socket ", "mail": "by mail ", "git": "with git "}[kind]
    text = f"reads {src.what}; the same file sends data {via}to {d}"
    facts.flows.append(flow("secret-network", sev, n, text, src))


def _bot_named(dest: str) -> str | None:
    """The name a chat bot API's path puts the bot's token in (`/bot$token/`, `/bot#{T}/`)."""
    m = re.search(r"/bot(?:\$\{?|#\{|\{)(\w+)", dest)
    return m.group(1) if m else None


def _own_bot(weak: Source | None, lines: list[str]) -> str | None:
    """The name bound to the user's own bot token: on the line reading a token variable of the
    environment (the secret weighed), with no value written there (`ENV.fetch("TG", "7001…")`), and
    named on no other line but a bot API's path (`T ||= "7001…"` sets a drop's token)."""
    if weak is None or not weak.what.startswith("$") or weak.line > len(lines):
        return None
    line = lines[weak.line - 1]
    if (b := _NAME_BOUND.match(line)) is None or len(_literals(line)) > 1:
        return None
    name = re.compile(rf"(?<![\w]){re.escape(b.group(1))}\b")
    if any(name.search(ln) and "/bot" not in ln for i, ln in enumerate(lines, 1) if i != weak.line):
        return None
    return b.group(1)


def _translated(lit: str, rest: str) -> str:
    """A literal through the `.tr("A-Za-z", "N-ZA-Mn-za-m")` that follows it (ROT13 and other
    letter swaps), else as written."""
    m = re.match(r"""\s*\.tr\(\s*["']([^"']+)["']\s*,\s*["']([^"']+)["']\s*\)""", rest)
    if m is None:
        return lit

    def spread(spec: str) -> str:
        return re.sub(
            r"(.)-(.)",
            lambda r: "".join(map(chr, range(ord(r[1]), min(ord(r[2]), ord(r[1]) + 512) + 1))),
            spec,
        )

    a, b = spread(m.group(1)), spread(m.group(2))
    if not a or not b or len(a) > 512 or m.group(1).startswith("^"):
        return lit
    return lit.translate(str.maketrans(a, (b + b[-1] * len(a))[: len(a)]))


def _target(lits: list[str]) -> str | None:
    """A persistence target or kernel setting the literals of one line name (alone or joined)."""
    for p in _paths(lits, joined_first=False):
        q = "/" + p.lstrip("/") if p.startswith("proc/") else p
        if PERSIST_PATH.search(q) or KERNEL_PATH.match(q):
            return q
    return None


def _deletes_home(facts: CodeFacts, lines: list[str], n: int, line: str, homes: set[str]) -> None:
    """`os.RemoveAll(home)`, `FileUtils.rm_rf(Dir.home)`, `Remove-Item -Recurse $HOME`: the whole
    home directory, not a folder in it (the bare value, not a path built from it)."""
    for m in _RM_TREE.finditer(line):
        rest = line[m.end() :]
        home = re.match(_HOME_EXPR + r"(?=\s*(?:[),;]|$|\s+-))", rest)
        if home is None:
            name = re.match(r"[$@]?([A-Za-z_]\w*)(?=\s*(?:[),;]|$|\s+-))", rest)
            if name is None or name.group(1) not in homes:
                continue
        bomb = any(_DATE_CHECK.search(lines[k]) for k in range(max(0, n - 8), n))
        text = "deletes the home directory" + (" once a date has passed (a time bomb)" if bomb else "")
        facts.flows.append(flow("destruction", "high", n, text, None))
        return


#: A network call on a line, in any language: what a send to a hard-coded destination looks like.
_NET_CALL = re.compile(
    r"\b(?:post|put|patch|send\w*|request|connect\w*|create_connection|urlopen|fetch|upload\w*|dial\w*"
    r"|Net::HTTP|TCPSocket|socket)\b",
    re.I,
)
#: Private and link-local addresses: a raw address there is the user's own network, not a drop.
_PRIVATE = re.compile(r"^(?:[a-z]+://)?(?:10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|169\.254\.)", re.I)
#: Character codes written out as a list (`[112, 97, ...]`, `{104, 116, ...}`).
_CODES = re.compile(r"(?:(?<![\w.])\d{2,3}\s*,\s*){5,}\d{2,3}\b")
#: A character made from a code with a constant shift or mask: `string.char(v - 7)`, `chr($c ^ 23)`,
#: `(char)(b + 3)`, `[char]($_ - 1)`, `c.chr` after `(c - 7)`, `String.fromCharCode(x ^ 5)`.
_CHAR_SHIFT = re.compile(
    r"(?:\bchar|\bchr|fromCharCode|\(char\)|\[char\]|\bchar::from)\s*\(?\s*\(?\s*[$@]?\w+\s*\)?\s*([-+^])\s*(\d{1,3})\b"
    r"|\(\s*[$@]?\w+\s*([-+^])\s*(\d{1,3})\s*\)\s*\.chr\b"
)


def _shift(c: int, op: str, k: int) -> int:
    """What `chr(c OP k)` is given: `-`/`+` move the code, `^` masks it."""
    return c - k if op == "-" else c + k if op == "+" else c ^ k


#: A host written as literal pieces joined with dots: `["c", "example", "net"].join(".")`,
#: `".".join(("c", "example"))`, `strings.Join([]string{"c", "example"}, ".")`.
_PIECES = r"""((?:["'][\w-]+["']\s*,\s*)+["'][\w-]+["'])"""
_JOINED = re.compile(
    rf"""\[\s*{_PIECES}\s*\]\s*\.join\(\s*["']\.["']|["']\.["']\s*\.join\(\s*[\[(]\s*{_PIECES}"""
    rf"|Join\(\s*\[\]string\{{\s*{_PIECES}\s*\}}\s*,\s*\"\.\""
)
#: A quoted literal that may encode text: base64 (standard or URL-safe) or hex.
_ENCODED = re.compile(r"""["'`]([A-Za-z0-9+/_-]{16,}={0,2})["'`]""")
#: A literal reversed by the code (PHP `strrev`, Perl `reverse`, Ruby and JS-like `.reverse`).
_REVERSED = re.compile(
    r"""\b(?:strrev|reverse)\s*\(?\s*["']([\w.:/-]{4,})["']|["']([\w.:/-]{4,})["']\.reverse\b"""
)
_HEX_LIT = re.compile(r"^(?:[0-9a-fA-F]{2})+$")
_WEB_URL = re.compile(r"^(?:https?|wss?)://", re.I)
_HOSTISH = re.compile(r"^(?:[a-z]+://)?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?(?:/\S*)?$", re.I)


def loose_ends(text: str) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
    """(line, store) of the first credential store a code file names and reads, and (line,
    destination) of its first network call to a hard-coded drop: a public raw address, a paste
    site, a chat webhook, or a host hidden as character codes or in pieces. The scan pairs them
    across the skill's files, where no value can be followed from one to the other (a module
    imported by a built name, a file on disk between two scripts)."""
    if len(text) > 512 * 1024:
        return None, None
    source: tuple[int, str] | None = None
    sink: tuple[int, str] | None = None
    reads = False
    for n, line in enumerate(text.split("\n"), 1):
        if _COMMENT.match(line) or len(line) > 4096:
            continue
        reads = reads or bool(_READS.search(line))
        lits = _literals(line)
        if source is None and lits:
            # the parts of one path, or one of a list of them (`[".env", "~/.aws/credentials"]`)
            found = (_store(x) for x in (lits, *([x] for x in lits)))
            if s := next((s for s in found if s and not OWN_FILE.search(s)), None):
                source = (n, s)
        d = _dest(line, {}) if sink is None and _NET_CALL.search(line) else None
        if d and (exfil_shaped(d) and not _PRIVATE.match(d) or _WEBHOOK.search(d)):
            sink = (n, d)
        if sink is None and (host := _hidden_host(line, True)):
            sink = (n, host)
    return (source if reads else None), sink


def _hidden_host(line: str, say: bool = False) -> str | None:
    """A host the line writes as character codes (`[112, 97, ...]`, `string([]byte{49, 57, ...})`)
    or as pieces joined with dots, which an honest program has no reason to hide; `say` adds how
    it was hidden."""
    if m := _CODES.search(line):
        codes = [int(c) for c in re.findall(r"\d+", m.group(0))]
        word = "".join(map(chr, codes)) if all(32 < c < 127 for c in codes) else ""
        if _HOSTISH.match(word) and "." in word:
            return f"{word} (written as character codes)" if say else word
    if m := _JOINED.search(line):
        pieces = re.findall(r"[\w-]+", next(g for g in m.groups() if g))
        if len(pieces) >= 3 and _HOSTISH.match(host := ".".join(pieces)):
            return f"{host} (written in pieces)" if say else host
    for m in _REVERSED.finditer(line):
        # `strrev('moc.elpmaxe')`, `"moc.elpmaxe".reverse`, `reverse("...")`
        word = (m.group(1) or m.group(2))[::-1]
        if _HOSTISH.match(word) and "." in word:
            return f"{word} (written reversed)" if say else word
    for m in _ENCODED.finditer(line):
        # a URL written as base64 or hex (`Buffer.from("aHR0cHM6Ly9…", "base64")`, `"68747470…"`)
        lit = m.group(1)
        url = unhex(lit) if _HEX_LIT.match(lit) else unbase64(lit.replace("-", "+").replace("_", "/"))
        if url and _WEB_URL.match(url) and _HOSTISH.match(url):
            return f"{url} (written in {'hex' if _HEX_LIT.match(lit) else 'base64'})" if say else url
    return None
