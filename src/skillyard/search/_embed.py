"""Embedders for the semantic half of search, and their on-disk cache.

An embedder turns texts into vectors. Which one runs is configuration
(`[search] embedder` or `SKILLYARD_EMBEDDER`):

* ``none``: lexical search only (the default);
* ``fastembed:<model>``: the fastembed package (ONNX models);
* ``openai:<model>``: any server speaking the OpenAI-compatible ``/v1/embeddings``
  protocol (base URL and key from the config or OPENAI_BASE_URL / OPENAI_API_KEY);
* ``sentence-transformers:<name or path>``: the sentence-transformers package, or,
  when it is not installed and the path is a local BERT model directory
  (``config.json``, ``tokenizer.json``, ``model.safetensors``), a small built-in
  encoder on numpy and tokenizers (the ``search-local`` extra).

Vectors are cached in SQLite by a hash of the model and the text, so a skill is
embedded once per content, whatever process asks.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import math
import os
import socket
import sqlite3
import stat
import struct
import threading
import urllib.error
import urllib.request
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

#: Texts sent per embedding call.
BATCH = 64
#: Seconds an embedding HTTP request may take, from connecting to the last byte of the answer.
HTTP_TIMEOUT = 30.0
#: Longest answer read (64 texts of MAX_DIMENSIONS numbers written out take about 20 MiB).
MAX_ANSWER_BYTES = 32 * 1024 * 1024
#: Longest vector accepted from an embedder (real models: 384 to 4096).
MAX_DIMENSIONS = 16_384
EMBEDDER_KINDS = ("none", "fastembed", "openai", "sentence-transformers")


class EmbedderError(RuntimeError):
    """An embedder that cannot be built or that failed to embed."""


class Embedder(Protocol):
    """Anything that maps texts to equal-length vectors; `model_id` keys the cache."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def parse_spec(spec: str) -> tuple[str, str]:
    """("kind", "model") from an embedder spec; ValueError names what is wrong."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("embedder must be a non-empty string")
    spec = spec.strip()
    if spec == "none":
        return "none", ""
    kind, sep, model = spec.partition(":")
    if not sep or kind not in EMBEDDER_KINDS or kind == "none" or not model.strip():
        raise ValueError(
            f"unknown embedder {spec!r} (expected none, fastembed:<model>, openai:<model> "
            "or sentence-transformers:<name or path>)"
        )
    return kind, model.strip()


def make_embedder(spec: str, *, base_url: str | None = None, api_key: str | None = None) -> Embedder | None:
    """The embedder a spec names (None for "none"); optional packages are imported here, not earlier."""
    kind, model = parse_spec(spec)
    if kind == "none":
        return None
    if kind == "openai":
        return OpenAIEmbedder(model, base_url=base_url, api_key=api_key)
    if kind == "fastembed":
        return FastEmbedEmbedder(model)
    return SentenceTransformersEmbedder(model)


# ------------------------------------------------------------------ backends


class OpenAIEmbedder:
    """POST {base}/embeddings with {"model", "input": [...]}; the OpenAI-compatible protocol, stdlib only."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None) -> None:
        self.model = model
        base = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.base_url = base.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.model_id = f"openai:{self.base_url}:{model}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        body = json.dumps({"model": self.model, "input": list(texts)}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"{self.base_url}/embeddings", data=body, headers=headers, method="POST")
        try:
            data = json.loads(_post(req))
        except (urllib.error.URLError, OSError, ValueError, RecursionError, http.client.HTTPException) as e:
            raise EmbedderError(f"embedding request to {self.base_url} failed: {e}") from None
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list) or len(items) != len(texts):
            raise EmbedderError("embedding response has no 'data' list of the right length")
        out: list[list[float]] = [[] for _ in texts]
        for pos, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
                raise EmbedderError("embedding response item without an 'embedding' list")
            i = item.get("index", pos)
            if not isinstance(i, int) or not 0 <= i < len(texts):
                raise EmbedderError("embedding response item with a bad index")
            if len(item["embedding"]) > MAX_DIMENSIONS or not _finite(item["embedding"]):
                raise EmbedderError("embedding response item that is not a list of finite numbers")
            out[i] = [float(x) for x in item["embedding"]]
        if out and (len({len(v) for v in out}) > 1 or not out[0]):  # an index twice leaves a gap
            raise EmbedderError("embedding response vectors of different lengths")
        return out


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: urllib would send the Authorization header (the API key) to wherever
    the response points, another host or plain http included."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Tracked(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """http and https whose sockets are kept once connected, so a request past its deadline can be cut
    (urllib hands the socket to the response and forgets it)."""

    def __init__(self) -> None:
        super().__init__()
        self.socks: list[socket.socket] = []

    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        def make(*args: Any, **kw: Any) -> Any:
            conn = http_class(*args, **kw)
            connect = conn.connect

            def tracked() -> None:
                connect()
                self.socks.append(conn.sock)

            conn.connect = tracked
            return conn

        return super().do_open(make, req, **kwargs)


def _post(req: urllib.request.Request) -> bytes:
    """The answer to `req`, within HTTP_TIMEOUT seconds in all and MAX_ANSWER_BYTES: urllib's timeout
    bounds each socket read only, so a server sending a byte every few seconds held a search forever."""
    handler = _Tracked()
    opener = urllib.request.build_opener(_NoRedirect, handler)
    out: list[Any] = []

    def run() -> None:
        try:
            with opener.open(req, timeout=HTTP_TIMEOUT) as resp:
                out.append(resp.read(MAX_ANSWER_BYTES + 1))
        except Exception as e:  # handed to the caller below
            out.append(e)

    worker = threading.Thread(target=run, daemon=True, name="skillyard-embed-http")
    worker.start()
    worker.join(HTTP_TIMEOUT)
    if worker.is_alive():
        out.insert(0, TimeoutError(f"no complete answer within {HTTP_TIMEOUT:g} seconds"))
    while worker.is_alive():  # past the deadline: shut the sockets so the worker's read returns
        for sock in handler.socks:
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the raw socket's, also under TLS
        worker.join(0.1)
    if isinstance(out[0], Exception):
        raise out[0]
    if len(out[0]) > MAX_ANSWER_BYTES:
        raise ValueError(f"the answer is longer than {MAX_ANSWER_BYTES} bytes")
    return out[0]


def _finite(vec: Sequence[Any]) -> bool:
    try:
        return all(type(x) in (int, float) and math.isfinite(x) for x in vec)
    except OverflowError:  # an integer of hundreds of digits, which JSON may hold
        return False


class FastEmbedEmbedder:
    """fastembed's TextEmbedding (ONNX); the model is resolved by fastembed itself."""

    def __init__(self, model: str) -> None:
        try:
            from fastembed import TextEmbedding  # type: ignore[import-not-found]
        except ImportError:
            raise EmbedderError("fastembed is not installed (pip install 'skillyard[fastembed]')") from None
        self.model_id = f"fastembed:{model}"
        self._model = TextEmbedding(model_name=model)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self._model.embed(list(texts))]


class SentenceTransformersEmbedder:
    """sentence-transformers when installed; otherwise the built-in encoder for a local BERT directory."""

    def __init__(self, name_or_path: str) -> None:
        self.model_id = f"sentence-transformers:{name_or_path}"
        self._model: Any
        try:
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
        except ImportError:
            path = Path(name_or_path).expanduser()
            if not (path / "model.safetensors").is_file():
                raise EmbedderError(
                    f"sentence-transformers is not installed and {name_or_path!r} is not a local model "
                    "directory with model.safetensors (pip install 'skillyard[search-local]')"
                ) from None
            self._model = LocalBert(path)
        else:
            self._model = SentenceTransformer(name_or_path)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(self._model, LocalBert):
            return self._model.embed(texts)
        vecs = self._model.encode(list(texts), normalize_embeddings=True)
        return [[float(x) for x in v] for v in vecs]


class LocalBert:
    """A BERT sentence encoder (mean pooling, unit length) run on numpy from safetensors weights.

    Enough for small sentence-transformers models such as all-MiniLM-L6-v2 without installing torch.
    """

    def __init__(self, path: Path, max_tokens: int = 256) -> None:
        try:
            import numpy as np
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbedderError(
                "the local encoder needs numpy and tokenizers (skillyard[search-local])"
            ) from None
        self._np = np
        cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
        if cfg.get("model_type") != "bert":
            raise EmbedderError(f"{path}: only BERT models are supported by the local encoder")
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.w = _read_safetensors(path / "model.safetensors", np)
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in self.w else ""
        self.p = prefix
        self.tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tok.enable_truncation(max_length=min(max_tokens, int(cfg.get("max_position_embeddings", 512))))
        self.tok.enable_padding(pad_id=int(cfg.get("pad_token_id", 0)))

    def _ln(self, x: Any, name: str) -> Any:
        np = self._np
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x: Any, name: str) -> Any:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        np = self._np
        enc = self.tok.encode_batch([t if t.strip() else "." for t in texts])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        n, t = ids.shape
        p = self.p
        x = (
            self.w[p + "embeddings.word_embeddings.weight"][ids]
            + self.w[p + "embeddings.position_embeddings.weight"][:t][None, :, :]
            + self.w[p + "embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = self._ln(x, p + "embeddings.LayerNorm")
        d = x.shape[-1]
        hd = d // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            L = f"{p}encoder.layer.{i}."
            q = self._dense(x, L + "attention.self.query").reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)
            k = self._dense(x, L + "attention.self.key").reshape(n, t, self.heads, hd).transpose(0, 2, 3, 1)
            v = self._dense(x, L + "attention.self.value").reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)
            att = q @ k / math.sqrt(hd) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
            x = self._ln(x + self._dense(ctx, L + "attention.output.dense"), L + "attention.output.LayerNorm")
            h = self._dense(x, L + "intermediate.dense")
            h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))  # GELU
            x = self._ln(x + self._dense(h, L + "output.dense"), L + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1.0)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32).tolist()


def _read_safetensors(path: Path, np: Any) -> dict[str, Any]:
    """Float32 tensors from a safetensors file (8-byte header length, JSON header, raw little-endian data)."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    (n,) = struct.unpack("<Q", bytes(raw[:8]))
    header = json.loads(bytes(raw[8 : 8 + n]))
    base = 8 + n
    out: dict[str, Any] = {}
    for name, info in header.items():
        if name == "__metadata__" or info.get("dtype") != "F32":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(raw[base + start : base + end], dtype="<f4").reshape(info["shape"])
    return out


# ------------------------------------------------------------------ cache


class EmbeddingCache:
    """Vectors by (model, text hash) in one SQLite file; safe across threads and processes."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path)
        self._lock = threading.Lock()
        self._memory: dict[str, list[float]] = {}
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                with contextlib.suppress(FileExistsError):  # made private here: SQLite would follow the umask
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
                if not _private(self.path):
                    return  # vectors steer which skill a search ranks first: memory only
                self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=5.0)
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)"
                )
                self._db.commit()
            except (OSError, sqlite3.Error):
                self._db = None  # an unwritable cache directory only costs recomputation

    @staticmethod
    def key(model_id: str, text: str) -> str:
        return hashlib.sha256(f"{model_id}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        with self._lock:
            found = {k: self._memory[k] for k in keys if k in self._memory}
            missing = [k for k in keys if k not in found]
            if self._db is not None and missing:
                try:
                    for i in range(0, len(missing), 500):
                        chunk = missing[i : i + 500]
                        marks = ",".join("?" * len(chunk))
                        for k, blob in self._db.execute(
                            f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk
                        ):
                            # a damaged or planted row is left out, and embedded again
                            if (
                                isinstance(blob, bytes)
                                and 0 < len(blob) <= 4 * MAX_DIMENSIONS
                                and len(blob) % 4 == 0
                            ):
                                vec = array("f", blob)
                                if _finite(vec):
                                    found[k] = self._memory[k] = vec.tolist()
                except sqlite3.Error:
                    pass
            return found

    def put_many(self, items: dict[str, list[float]]) -> None:
        with self._lock:
            self._memory.update(items)
            if self._db is not None and items:
                try:
                    self._db.executemany(
                        "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                        [(k, array("f", v).tobytes()) for k, v in items.items()],
                    )
                    self._db.commit()
                except sqlite3.Error:
                    pass


def _private(path: Path) -> bool:
    """The cache file and its folder are this user's, and no one else can write them: what
    `skillyard.cache` asks of the start-up cache, the folder too since SQLite opens the file by name
    and keeps a journal beside it."""
    from skillyard.cache import _ours

    try:
        folder = path.parent.lstat()
        mine = stat.S_ISDIR(folder.st_mode) and folder.st_uid == os.geteuid() and not folder.st_mode & 0o022
        return mine and _ours(path.lstat())
    except OSError:
        return False
