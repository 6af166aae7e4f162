"""A generation's manifest: what built it, its segments and files, checked against its own SHA-256;
whether an index can serve the settings (embedder, chunking); the price table stored beside it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import IndexCorruptError, IndexMismatchError
from .pointer import REBUILD_HINT

FORMAT = 4  # 2: the FTS table holds whole identifiers; 3: span vectors; 4: segments shared between generations
READABLE_FORMATS = (1, 2, 3, 4)  # a build may reuse the vectors of these; queries need FORMAT
VECTORS = "vectors.faiss"  # the one vectors file of a generation before FORMAT 4
DOCSTORE = "docstore.sqlite"  # ... and its one docstore
MANIFEST = "manifest.json"
PRICES = "prices.json"  # the price table, shared by generations while no price changes


def read_manifest(gen_dir: Path, formats: Sequence[int] = (FORMAT,), *, prices: bool = True) -> dict[str, Any]:
    """The manifest of a generation, with its price table under ``"prices"`` unless ``prices=False``."""
    manifest = _read_manifest(gen_dir, formats)
    if prices and PRICES in manifest.get("files", {}):
        manifest["prices"] = read_prices(gen_dir)
    return manifest


def read_prices(gen_dir: Path) -> dict[str, Any]:
    """The price table a generation stored (:data:`PRICES`), with its merge state (:mod:`hwqa.prices.delta`)."""
    try:
        prices = json.loads((gen_dir / PRICES).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise IndexCorruptError(f"the price table of index generation {gen_dir.name} is unreadable; {REBUILD_HINT}") from None
    return prices if isinstance(prices, dict) else {}


CHECKSUM_KEY = '{"manifest_sha256":"'  # a FORMAT 4 manifest starts with the SHA-256 of the rest of its text


def manifest_text(manifest: dict[str, Any]) -> bytes:
    """A manifest as written: compact JSON whose first key is the SHA-256 of the text after it."""
    rest = json.dumps(manifest, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return CHECKSUM_KEY.encode() + hashlib.sha256(rest).hexdigest().encode() + b'",' + rest[1:]


def _intact(data: bytes) -> bool | None:
    """Whether a manifest's text matches its own checksum (None: it has none, an older format)."""
    head = CHECKSUM_KEY.encode()
    if not data.startswith(head):
        return None
    digest, rest = data[len(head) : len(head) + 64], b"{" + data[len(head) + 66 :]
    return hashlib.sha256(rest).hexdigest().encode() == digest


def _read_manifest(gen_dir: Path, formats: Sequence[int]) -> dict[str, Any]:
    manifest, _ = _read_checked_manifest(gen_dir, formats)
    return manifest


def _read_checked_manifest(gen_dir: Path, formats: Sequence[int]) -> tuple[dict[str, Any], bool | None]:
    path = gen_dir / MANIFEST
    try:
        data = path.read_bytes()
        intact = _intact(data)
        manifest = json.loads(data.decode("utf-8"))
        if isinstance(manifest, dict):
            manifest.pop("manifest_sha256", None)
    except FileNotFoundError:
        raise IndexCorruptError(f"index generation {gen_dir.name} has no manifest; {REBUILD_HINT}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise IndexCorruptError(f"the manifest of index generation {gen_dir.name} is unreadable; {REBUILD_HINT}") from None
    if intact is False:
        raise IndexCorruptError(f"the manifest of index generation {gen_dir.name} does not match its checksum; {REBUILD_HINT}")
    if not isinstance(manifest, dict) or manifest.get("format") not in formats:
        raise IndexMismatchError(f"the index at {gen_dir.parent} was written by another hwqa format; {REBUILD_HINT}")
    return manifest, intact


def embedder_mismatch(manifest: dict[str, Any], embedder: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """The first of backend, model, dim where the embedder that built ``manifest`` differs from ``embedder``:
    (key, built with, configured), or None when they agree."""
    built = manifest.get("embedder", {})
    for key in ("backend", "model", "dim"):
        if built.get(key) != embedder.get(key):
            return key, built.get(key), embedder.get(key)
    return None


def check_compatible(manifest: dict[str, Any], embedder: dict[str, Any], chunking: dict[str, Any]) -> str | None:
    """Why an index built with ``manifest`` cannot serve these settings, or None if it can."""
    differs = embedder_mismatch(manifest, embedder)
    if differs:
        key, built, wanted = differs
        return f"it was built with embedding {key} {built!r}, the settings say {wanted!r}"
    if manifest.get("chunking") != chunking:
        return f"it was built with chunking {manifest.get('chunking')}, the settings say {chunking}"
    return None


def segment_entries(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The segments a manifest lists, with their file names; an older generation is one segment."""
    if manifest.get("format", 0) >= 4:
        segments = manifest.get("segments")
        if not isinstance(segments, list) or not all(isinstance(s, dict) and "name" in s for s in segments):
            raise IndexCorruptError(
                f"the manifest of index generation {manifest.get('generation')} lists no segments; {REBUILD_HINT}"
            )
        return [{**s, "vectors": f"{s['name']}.npy", "docstore": f"{s['name']}.sqlite"} for s in segments]
    count = manifest.get("counts", {}).get("chunks")
    return [
        {
            "name": manifest.get("generation"),
            "base": 0,
            "count": count if isinstance(count, int) else -1,
            "vectors": VECTORS,
            "docstore": DOCSTORE,
            "label_key": "generation",
        }
    ]
