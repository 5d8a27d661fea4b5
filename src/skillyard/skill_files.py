"""A skill's other files: the listing every surface shows, and its docs read under the skill root.

Listings record each file's (st_dev, st_ino), so a later read can refuse a file swapped for a
link, a FIFO or another file since it was listed.
"""

from __future__ import annotations

import os

from skillyard.fsread import is_utf8_name, read_under
from skillyard.model import DOC_SUFFIXES, MAX_DOC_BYTES, SKIPPED_DIRS, Skill

__all__ = ["doc_ids", "file_ids", "list_docs", "list_files", "read_doc"]


def file_ids(skill: Skill, *, max_files: int = 10_000) -> dict[str, tuple[int, int]]:
    """Every regular file of the skill (no links, no SKIPPED_DIRS, no name that is not UTF-8),
    `/`-separated and relative to the root, with the (st_dev, st_ino) the listing saw."""
    out: dict[str, tuple[int, int]] = {}
    stack: list[tuple[str, str]] = [("", str(skill.root))]
    while stack:
        prefix, path = stack.pop()
        subdirs: list[str] = []
        try:
            it = os.scandir(path)
        except OSError:
            continue
        with it:
            for e in it:
                try:
                    if e.is_symlink() or not is_utf8_name(e.name):
                        continue
                    if e.is_dir(follow_symlinks=False):
                        if e.name not in SKIPPED_DIRS:
                            subdirs.append(e.name)
                    elif e.is_file(follow_symlinks=False):
                        st = e.stat(follow_symlinks=False)
                        out[prefix + e.name] = (st.st_dev, st.st_ino)
                        if len(out) >= max_files:
                            return out
                except OSError:
                    continue
        # depth first, subdirectories in name order (the order `os.walk` with sorted names gives)
        stack.extend((f"{prefix}{d}/", os.path.join(path, d)) for d in sorted(subdirs, reverse=True))
    return out


def list_files(skill: Skill, *, max_files: int = 10_000) -> list[str]:
    """Every regular file of the skill, `/`-separated and relative to the root, sorted."""
    return sorted(file_ids(skill, max_files=max_files))


def doc_ids(skill: Skill) -> dict[str, tuple[int, int]]:
    """Doc paths (layer 3: `.md`/`.txt` files other than the skill file) with their file ids."""
    own = skill.path.name
    return {f: i for f, i in file_ids(skill).items() if f.lower().endswith(DOC_SUFFIXES) and f != own}


def list_docs(skill: Skill) -> list[str]:
    """Doc paths (layer 3): `.md`/`.txt` files other than the skill file, sorted."""
    return sorted(doc_ids(skill))


def read_doc(
    skill: Skill, doc: str, listed: dict[str, tuple[int, int]] | None = None, *, limit: int = MAX_DOC_BYTES
) -> tuple[str, int]:
    """One doc by its listed path, read up to `limit` bytes: (text, bytes left unread).

    Anything not listed is refused (KeyError). The file is opened under the skill root without
    following links and must be the very file the listing saw: otherwise an OSError.
    """
    ids = doc_ids(skill) if listed is None else listed
    if not isinstance(doc, str) or doc not in ids:
        raise KeyError(doc)
    got = read_under(skill.root, doc, limit, skip_dirs=SKIPPED_DIRS, expect=ids[doc])
    unread = got.size - len(got.data) if got.truncated else 0
    return got.data.decode("utf-8", errors="replace"), unread
