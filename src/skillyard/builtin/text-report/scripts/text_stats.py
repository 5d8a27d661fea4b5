"""Print a JSON report of line/word/char counts and top words for each file."""

import collections
import json
import re
import sys

report = {}
for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        report[path] = {"error": e.strerror}
        continue
    words = re.findall(r"[^\W\d_]{3,}", text.lower())
    report[path] = {
        "lines": text.count("\n") + (1 if text and not text.endswith("\n") else 0),
        "words": len(text.split()),
        "chars": len(text),
        "top_words": collections.Counter(words).most_common(10),
    }
print(json.dumps(report, indent=2, ensure_ascii=False))
