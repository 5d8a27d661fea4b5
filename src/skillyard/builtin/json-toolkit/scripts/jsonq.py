"""check | fmt | get: tiny JSON helper with no dependencies."""

import json
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("check", "fmt", "get"):
        print("usage: jsonq.py check|fmt|get FILE [PATH]", file=sys.stderr)
        return 2
    action, path = argv[0], argv[1]
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"invalid: {e}", file=sys.stderr)
        return 1
    if action == "check":
        print("valid JSON")
    elif action == "fmt":
        print(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True))
    else:
        for part in argv[2].split(".") if len(argv) > 2 else []:
            try:
                data = data[int(part)] if isinstance(data, list) else data[part]
            except (KeyError, IndexError, ValueError, TypeError):
                print(f"no such path: {argv[2]}", file=sys.stderr)
                return 1
        print(json.dumps(data, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
