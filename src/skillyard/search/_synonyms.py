"""The words people use for the same task: a curated table, read on the query side.

No package on the registries this project installs from ships a maintained
English thesaurus with its data (WordNet data comes from other hosts; the
thesauri that do ship, such as Moby and Roget, predate the words requests use,
"screenshot", "spreadsheet", and list loose associations), so the table is
written here. Each group lists words and short phrases interchangeable for one
task. A word's synonyms are the other words of every group it is in, as index
terms; a phrase ("get rid of", "speech to text") is matched when its words
stand next to each other in a request. `tests/test_search.py` keeps the table
consistent (no empty or stop-word entries, no group inside another).
"""

from __future__ import annotations

from skillyard.search._text import tokenize

#: Groups of words and short phrases people use interchangeably for the same task.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("image", "picture", "photo", "pic", "img", "photograph", "jpeg", "jpg", "png"),
    ("email", "mail", "inbox", "e-mail", "gmail", "imap"),
    ("pdf", "document"),
    ("doc", "document", "docx", "word"),
    ("spreadsheet", "excel", "xlsx", "sheet", "workbook"),
    ("csv", "tabular", "table"),
    ("slide", "presentation", "powerpoint", "pptx", "deck", "keynote"),
    ("chart", "graph", "plot", "visualization", "visualise", "visualize"),
    ("database", "db", "sql", "postgres", "mysql", "sqlite"),
    ("test", "unittest", "pytest", "spec"),
    ("bug", "error", "crash", "failure", "exception", "traceback", "defect"),
    ("debug", "troubleshoot", "diagnose"),
    ("fix", "repair", "resolve"),
    ("summarize", "summarise", "summary", "recap", "digest", "tldr", "condense"),
    ("video", "movie", "clip", "film", "footage", "mp4"),
    ("audio", "sound", "recording", "podcast", "mp3", "voice"),
    ("transcribe", "transcript", "transcription", "dictation"),
    ("speech", "voice", "narrate", "narration", "tts"),
    ("subtitle", "caption"),
    ("translate", "translation", "localize", "localise", "i18n"),
    ("convert", "transform", "conversion", "export"),
    ("deploy", "deployment", "rollout", "release", "ship"),
    ("container", "docker", "dockerfile", "containerize", "containerise", "podman"),
    ("kubernetes", "k8s", "cluster", "helm", "kubectl"),
    ("calendar", "schedule", "meeting", "appointment", "event", "invite"),
    ("find", "search", "lookup", "locate"),
    ("remove", "delete", "erase", "strip", "drop"),
    ("website", "site", "webpage", "page", "web"),
    ("scrape", "crawl", "scraper", "crawler", "harvest"),
    ("review", "critique", "feedback"),
    ("compress", "zip", "archive", "tarball", "tar", "unzip", "extract"),
    ("money", "finance", "expense", "spending", "spend", "budget", "cost"),
    ("invoice", "bill", "billing", "receipt"),
    ("note", "notes", "memo", "minutes"),
    ("api", "endpoint", "rest", "http", "graphql"),
    ("chat", "slack", "channel", "teams", "discord"),
    ("message", "notify", "notification", "ping", "alert"),
    ("login", "auth", "authentication", "signin", "oauth"),
    ("password", "secret", "credential", "token", "key"),
    ("diagram", "flowchart", "uml", "mermaid"),
    ("font", "typography", "typeface"),
    ("color", "colour", "palette"),
    ("log", "logs", "logging", "syslog"),
    ("resize", "shrink", "scale", "downscale", "thumbnail", "smaller"),
    ("crop", "trim", "cut"),
    ("resume", "cv"),
    ("recipe", "cook", "cooking", "meal", "dinner", "lunch"),
    ("weather", "forecast", "rain", "temperature"),
    ("trip", "travel", "itinerary", "vacation", "holiday"),
    ("stock", "share", "ticker", "equity"),
    ("commit", "git"),
    ("readme", "documentation", "docs"),
    ("vulnerability", "cve", "security", "exploit"),
    ("dependency", "package", "library", "npm", "pip"),
    ("upgrade", "update", "bump"),
    ("ticket", "issue", "jira", "story"),
    ("regex", "regexp", "pattern"),
    ("yaml", "yml"),
    ("json", "jsonl"),
    ("icon", "svg", "vector"),
    ("ui", "frontend", "interface", "component"),
    ("write", "draft", "compose"),
    ("create", "generate", "build", "make"),
    ("analyze", "analyse", "analysis", "insight"),
    ("outage", "incident", "downtime"),
    ("infra", "infrastructure", "terraform", "provision"),
    ("accessibility", "a11y", "wcag"),
    ("seo", "ranking", "google"),
    ("ocr", "scan", "scanned", "screenshot"),
    ("metadata", "exif"),
    ("migration", "migrate", "schema"),
    ("brand", "branding"),
    ("duplicate", "dedupe", "deduplicate", "dupe", "duplicates"),
    ("clean", "tidy", "cleanup", "normalise", "normalize"),
    ("speech", "voiceover", "narrator", "aloud"),
    ("invitation", "invite", "rsvp"),
    ("accessibility", "blind", "colorblind", "colourblind", "impaired"),
    ("distance", "far", "route", "directions"),
    ("sentiment", "feel", "feeling", "opinion", "mood", "emotion"),
    ("twitter", "tweet", "tweets"),
    ("correlation", "correlated", "relationship"),
    ("apology", "apologise", "apologize", "sorry"),
    ("customer", "client", "user"),
    # files and documents
    ("merge", "combine", "join", "concatenate", "stitch"),
    ("split", "separate", "divide", "chunk"),
    ("folder", "directory", "dir"),
    ("organize", "organise", "sort", "declutter", "arrange", "tidy"),
    ("rename", "relabel"),
    ("download", "fetch", "grab"),
    ("upload", "publish"),
    ("form", "fillable", "questionnaire", "survey"),
    ("signature", "esign", "e-sign"),
    ("template", "boilerplate", "scaffold", "skeleton", "starter"),
    ("markdown", "md"),
    ("text", "plaintext", "txt"),
    # images, sound and video
    ("sharpen", "enhance", "upscale", "blurry", "blur", "crisp", "sharper", "clarity", "deblur"),
    ("logo", "emblem"),
    ("gif", "animated", "animation"),
    ("emoji", "emoticon", "sticker"),
    ("draw", "sketch", "illustrate", "illustration", "drawing"),
    ("art", "artwork", "generative"),
    ("poster", "flyer", "banner"),
    ("screenshot", "screengrab", "screen capture"),
    ("noise", "denoise", "hiss", "background noise"),
    ("music", "song"),
    ("volume", "loudness", "loud", "quiet"),
    ("youtube", "yt"),
    ("stream", "streaming", "livestream", "broadcast"),
    ("speaker", "diarization", "diarize"),
    ("speech to text", "transcribe", "stt"),
    ("text to speech", "tts", "read aloud", "narrate"),
    # code and operations
    ("code", "codebase", "repo", "repository"),
    ("function", "method", "routine"),
    ("refactor", "restructure", "rewrite"),
    ("explain", "walkthrough", "explanation"),
    ("comment", "docstring", "annotate"),
    ("lint", "linter", "prettier", "formatter", "eslint", "ruff"),
    ("slow", "performance", "speed", "latency", "optimize", "optimise", "faster", "bottleneck", "profiling"),
    ("memory", "ram", "oom"),
    ("ci", "pipeline", "github actions", "continuous integration"),
    ("pr", "pull request", "merge request"),
    ("encrypt", "encryption", "cipher", "decrypt"),
    ("certificate", "cert", "ssl", "tls", "https"),
    ("dns", "nameserver", "domain"),
    ("cloud", "aws", "gcp", "azure"),
    ("monitor", "monitoring", "observability", "metrics", "uptime", "dashboard"),
    ("backup", "snapshot", "restore"),
    ("cron", "scheduled", "recurring", "periodic", "timer"),
    ("terminal", "shell", "bash", "cli", "command line"),
    ("config", "configuration", "settings", "env", "environment", "dotenv"),
    ("install", "setup", "installation"),
    ("button", "widget"),
    ("mobile", "ios", "android", "phone"),
    ("browser", "headless", "puppeteer", "playwright", "selenium"),
    ("landing", "homepage", "landing page"),
    ("plugin", "extension", "addon", "add-on"),
    ("e2e", "end to end", "integration test", "qa"),
    ("mock", "stub", "fake"),
    ("webhook", "callback"),
    ("nosql", "mongo", "mongodb", "dynamodb", "redis"),
    # data
    ("average", "mean", "median", "statistic", "stats", "statistics"),
    ("trend", "growth", "time series", "timeseries"),
    ("predict", "prediction", "forecast", "projection"),
    ("experiment", "ab test", "split test", "significance", "significant"),
    ("cluster", "segment", "segmentation", "grouping"),
    ("outlier", "anomaly", "spike", "unusual"),
    ("missing", "null", "blank", "nan"),
    ("column", "attribute"),
    ("map", "geographic", "geo", "location", "gps", "coordinate", "latitude", "longitude"),
    ("train", "training", "finetune", "fine-tune"),
    ("label", "categorize", "categorise", "classify"),
    ("network", "graph", "networkx"),
    ("dna", "gene", "genome", "genomic", "fasta"),
    ("protein", "molecule", "chemical", "compound", "drug"),
    # writing and people
    ("reply", "respond", "response", "answer"),
    ("tone", "polite", "formal", "friendly", "wording"),
    ("proofread", "grammar", "spelling", "typo", "copyedit"),
    ("shorten", "concise", "brief", "tighten"),
    ("article", "blog", "essay"),
    ("headline", "title", "subject line"),
    ("newsletter", "announcement", "bulletin"),
    ("social", "linkedin", "instagram", "facebook", "tiktok"),
    ("ad", "ads", "advert", "advertisement", "campaign", "marketing"),
    ("lead", "prospect", "buyer"),
    ("sale", "sales", "revenue", "deal"),
    ("pitch", "proposal", "quote", "estimate"),
    ("contract", "agreement", "legal", "clause", "nda"),
    ("zoom", "standup", "meeting"),
    ("flashcard", "quiz", "study", "memorize", "memorise", "exam"),
    ("tutorial", "teach", "lesson", "course"),
    ("job", "career", "hiring", "recruit", "interview", "candidate"),
    ("tax", "irs", "deduction", "vat"),
    ("price", "pricing", "fee"),
    ("payment", "pay", "checkout", "card", "stripe", "charge"),
    ("bank", "banking", "transaction", "statement"),
    ("crypto", "bitcoin", "blockchain", "web3", "ethereum"),
    ("remind", "reminder", "nudge", "followup"),
    ("todo", "checklist", "to-do"),
    ("plan", "planning", "roadmap", "outline"),
    ("decision", "adr", "rationale"),
    ("privacy", "gdpr", "pii", "personal data", "anonymize", "anonymise", "redact"),
    ("pentest", "penetration", "hack", "hacking", "attack"),
    ("spam", "phishing", "scam"),
    ("random", "shuffle", "lottery", "raffle", "giveaway"),
    ("naming", "brainstorm", "idea"),
    ("competitor", "competition", "rival", "competitive"),
    ("traffic", "visitor", "analytics", "pageview"),
    ("signup", "onboarding", "activation", "register", "registration"),
    ("retention", "churn", "stick around"),
    ("fitness", "workout", "exercise", "gym"),
    ("health", "medical", "symptom", "doctor"),
    ("booking", "reserve", "reservation"),
    ("flight", "airline", "airport"),
    ("hotel", "accommodation", "lodging"),
    ("shopping", "buy", "purchase", "shop", "ecommerce"),
    ("inventory", "sku", "product catalog"),
    ("game", "gaming"),
    ("3d", "mesh", "blender"),
    ("remove", "get rid of", "delete"),
)


def _build() -> tuple[dict[str, frozenset[str]], dict[tuple[str, ...], frozenset[str]]]:
    """(word -> its synonyms, phrase as index terms -> the words of its groups), all as index terms."""
    words: dict[str, set[str]] = {}
    phrases: dict[tuple[str, ...], set[str]] = {}
    for group in SYNONYM_GROUPS:
        terms: set[str] = set()
        multi: list[tuple[str, ...]] = []
        for entry in group:
            toks = tokenize(entry)
            if len(toks) == 1:
                terms.add(toks[0])
            elif len(toks) > 1:
                multi.append(tuple(toks))
        for t in terms:
            words.setdefault(t, set()).update(terms)
        for m in multi:
            phrases.setdefault(m, set()).update(terms)
    return (
        {t: frozenset(s - {t}) for t, s in words.items()},
        {p: frozenset(s) for p, s in phrases.items() if s},
    )


SYNONYMS, PHRASES = _build()
#: Longest phrase, in index terms.
MAX_PHRASE = max((len(p) for p in PHRASES), default=1)
