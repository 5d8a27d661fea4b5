"""A hostile OpenAI-compatible embeddings endpoint (a real server on 127.0.0.1) and a planted or
damaged embedding cache: search stays lexical and says why, never raises, and the API key never
follows a redirect."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from skillyard.model import Skill
from skillyard.search import EmbeddingCache, SearchIndex, make_embedder

KEY = "sk-test-embedding-key-0123"


class _Server:
    """Answers every request with `answer(inputs)`: (status, headers, body bytes)."""

    def __init__(self, answer: Callable[[list[str]], tuple[int, dict[str, str], bytes]]) -> None:
        self.seen: list[tuple[str, str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else {}
                server.seen.append((self.command, self.path, self.headers.get("Authorization")))
                status, headers, out = answer(body.get("input", []))
                self.send_response(status)
                for k, v in {**headers, "Content-Length": str(len(out))}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(out)

            do_GET = do_POST = _any  # noqa: N815 (http.server's names)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def servers() -> Iterator[list[_Server]]:
    made: list[_Server] = []
    yield made
    for s in made:
        s.httpd.shutdown()


def _serve(
    servers: list[_Server], answer: Callable[[list[str]], tuple[int, dict[str, str], bytes]]
) -> _Server:
    s = _Server(answer)
    servers.append(s)
    return s


def _vectors(inputs: list[str], dim: int = 5, value: Any = 1.0) -> bytes:
    return json.dumps(
        {"data": [{"index": i, "embedding": [value] * dim} for i in range(len(inputs))]}
    ).encode()


@pytest.fixture
def skills(tmp_path: Path) -> list[Skill]:
    out = []
    for name in ("alpha-tool", "beta-tool"):
        (tmp_path / name).mkdir()
        path = tmp_path / name / "SKILL.md"
        path.write_text(f"---\nname: {name}\ndescription: does {name} things\n---\nbody\n")
        out.append(Skill(name=name, description=f"does {name} things", path=path))
    return out


def _index(skills: list[Skill], url: str, cache: EmbeddingCache | None = None) -> SearchIndex:
    embedder = make_embedder("openai:toy", base_url=url, api_key=KEY)
    ix = SearchIndex(skills, embedder=embedder, cache=cache)
    ix.embed_skills()
    return ix


def test_a_redirect_is_not_followed_and_the_key_stays(servers: list[_Server], skills: list[Skill]) -> None:
    thief = _serve(servers, lambda inputs: (200, {}, _vectors(inputs)))
    for code in (301, 302, 303, 307, 308):
        redirector = _serve(servers, lambda inputs, c=code: (c, {"Location": thief.url + "/embeddings"}, b""))
        ix = _index(skills, redirector.url)
        assert ix.semantic_error and f"HTTP Error {code}" in ix.semantic_error
        assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]
    assert thief.seen == []


def test_vectors_of_another_length_for_the_query_leave_search_lexical(
    servers: list[_Server], skills: list[Skill]
) -> None:
    # the skills' texts come in a batch of several, the query alone: answered with 7 numbers instead of 5
    server = _serve(servers, lambda inputs: (200, {}, _vectors(inputs, 5 if len(inputs) > 1 else 7)))
    ix = _index(skills, server.url)
    assert ix.semantic_ready()
    assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]
    assert ix.semantic_error and "one length" in ix.semantic_error


def _raw(text: str) -> Callable[[list[str]], tuple[int, dict[str, str], bytes]]:
    return lambda inputs: (200, {}, text.replace("N", str(len(inputs))).encode())


@pytest.mark.parametrize(
    "answer",
    [
        lambda inputs: (200, {}, _vectors(inputs, value=float("nan"))),  # json.dumps writes NaN
        lambda inputs: (200, {}, _vectors(inputs).replace(b"1.0", b"1e999")),  # read back as inf
        lambda inputs: (200, {}, _vectors(inputs, value="1.0")),
        lambda inputs: (200, {}, _vectors(inputs, value=True)),
        lambda inputs: (200, {}, _vectors(inputs, value={"x": 1})),
        lambda inputs: (200, {}, _vectors(inputs, dim=100_000)),
        lambda inputs: (200, {}, _vectors(inputs, dim=0)),
        lambda inputs: (
            200,
            {},
            json.dumps({"data": [{"index": 0, "embedding": [1.0] * 5} for _ in inputs]}).encode(),
        ),
        lambda inputs: (
            200,
            {},
            json.dumps(
                {"data": [{"index": i, "embedding": [1.0] * (5 + i)} for i in range(len(inputs))]}
            ).encode(),
        ),
        lambda inputs: (200, {}, b"[" * 100_000 + b"]" * 100_000),
    ],
    ids=[
        "nan",
        "inf",
        "strings",
        "booleans",
        "objects",
        "huge",
        "empty",
        "one-index-twice",
        "ragged",
        "deep",
    ],
)
def test_hostile_embedding_answers_are_refused(
    servers: list[_Server],
    skills: list[Skill],
    answer: Callable[[list[str]], tuple[int, dict[str, str], bytes]],
) -> None:
    ix = _index(skills, _serve(servers, answer).url)
    assert ix.semantic_error and "EmbedderError" in ix.semantic_error, ix.semantic_error
    assert not ix.semantic_ready()
    assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]


def _plant(path: Path, rows: dict[str, Any]) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
    db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", list(rows.items()))
    db.commit()
    db.close()


def test_damaged_cache_rows_are_embedded_again(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    path = folder / "embeddings.sqlite"
    good = array("f", [0.6, 0.8]).tobytes()
    _plant(
        path,
        {
            "good": good,
            "odd-length": good + b"\x01",
            "nan": array("f", [float("nan"), 1.0]).tobytes(),
            "text": "not a blob",
            "empty": b"",
            "huge": bytes(4 * 20_000),
        },
    )
    os.chmod(path, 0o600)
    found = EmbeddingCache(path).get_many(["good", "odd-length", "nan", "text", "empty", "huge"])
    assert set(found) == {"good"}
    assert found["good"] == pytest.approx([0.6, 0.8])


@pytest.mark.parametrize("where", ["file", "folder"])
def test_a_cache_others_can_write_is_not_read(tmp_path: Path, where: str) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    path = folder / "embeddings.sqlite"
    _plant(path, {"planted": array("f", [1.0, 0.0]).tobytes()})
    os.chmod(path, 0o600)
    assert set(EmbeddingCache(path).get_many(["planted"])) == {"planted"}
    os.chmod(path if where == "file" else folder, 0o666 if where == "file" else 0o777)
    cache = EmbeddingCache(path)
    assert cache.get_many(["planted"]) == {}
    cache.put_many({"mine": [1.0, 0.0]})  # still works, in memory
    assert set(cache.get_many(["mine"])) == {"mine"}


def test_a_cache_that_is_a_link_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.sqlite"
    _plant(elsewhere, {"planted": array("f", [1.0, 0.0]).tobytes()})
    (folder / "embeddings.sqlite").symlink_to(elsewhere)
    assert EmbeddingCache(folder / "embeddings.sqlite").get_many(["planted"]) == {}


def test_a_new_cache_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        path = tmp_path / "new" / "embeddings.sqlite"
        EmbeddingCache(path).put_many({"mine": [0.6, 0.8]})
    finally:
        os.umask(old)
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    assert set(EmbeddingCache(path).get_many(["mine"])) == {"mine"}


# ---------------------------------------------------------------- the lexical index snapshot


def _snapshot(skills: list[Skill], folder: Path) -> Path:
    ix = SearchIndex(skills, snapshot_dir=folder)
    ix.index_bodies()
    ix.search("warm up")  # writes the snapshot
    return next(folder.glob("index-*.meta"))


def _poisoned(meta: Path) -> bytes:
    """The snapshot with every term pointing at the last skill only."""
    import marshal

    v, postings, lens, df = marshal.loads(meta.read_bytes())
    last = len(next(iter(lens.values()))) - 1
    return marshal.dumps((v, {f: {t: {last: 50} for t in terms} for f, terms in postings.items()}, lens, df))


@pytest.mark.parametrize(
    "damage",
    [
        lambda v: 5,
        lambda v: (v,),
        lambda v: (v, 1, 2, 3),
        lambda v: (v, {"name": 5}, {"name": [0, 0]}, {}),
        lambda v: (v, {"name": {}}, {"name": [1, 2, 3]}, {}),
        lambda v: (v, {"name": {}}, {"name": [0, 0]}, 7),
        lambda v: (v, {"bogus": {}}, {"bogus": [0, 0]}, {}),
    ],
)
def test_a_damaged_snapshot_is_rebuilt_not_raised(skills: list[Skill], tmp_path: Path, damage: Any) -> None:
    import marshal

    from skillyard.search._lexical import SNAPSHOT_VERSION

    meta = _snapshot(skills, tmp_path / "snap")
    meta.write_bytes(marshal.dumps(damage(SNAPSHOT_VERSION)))
    ix = SearchIndex(skills, snapshot_dir=tmp_path / "snap")
    assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]


def test_a_snapshot_others_can_write_is_not_read(skills: list[Skill], tmp_path: Path) -> None:
    meta = _snapshot(skills, tmp_path / "snap")
    meta.write_bytes(_poisoned(meta))
    ix = SearchIndex(skills, snapshot_dir=tmp_path / "snap")
    assert [h.name for h in ix.search("alpha things")][:1] == ["beta-tool"]  # this user's own file is used
    os.chmod(meta, 0o666)
    ix = SearchIndex(skills, snapshot_dir=tmp_path / "snap")
    assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]


def test_a_snapshot_that_is_a_link_is_not_read(skills: list[Skill], tmp_path: Path) -> None:
    meta = _snapshot(skills, tmp_path / "snap")
    elsewhere = tmp_path / "elsewhere.meta"
    elsewhere.write_bytes(_poisoned(meta))
    meta.unlink()
    meta.symlink_to(elsewhere)
    ix = SearchIndex(skills, snapshot_dir=tmp_path / "snap")
    assert [h.name for h in ix.search("alpha things")][:1] == ["alpha-tool"]


def test_saving_a_snapshot_never_writes_through_a_planted_link(skills: list[Skill], tmp_path: Path) -> None:
    folder = tmp_path / "snap"
    ix = SearchIndex(skills, snapshot_dir=folder)
    path = ix._snapshot
    assert path is not None
    folder.mkdir(mode=0o700, exist_ok=True)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    path.with_suffix(f".meta.{os.getpid()}.tmp").symlink_to(victim)
    ix.index_bodies()
    ix.search("warm up")
    assert victim.read_text() == "precious"
    meta = path.with_suffix(".meta")
    assert meta.is_file() and not meta.is_symlink() and meta.stat().st_mode & 0o777 == 0o600
