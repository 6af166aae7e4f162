"""The on-disk index: vectors, generations and what they hold.

- :mod:`.embed` (with :mod:`.light`, the numpy BERT): the embedders, text to vectors;
- :mod:`.segment`: one segment (vectors, SQLite docstore with FTS5, span vectors, price facts);
- :mod:`.reader`: a generation read (FAISS and BM25 search, the manifest, the live pointer);
  :mod:`.writer`: a generation written, compaction; :mod:`.pointer`: the live pointer ``CURRENT``;
- :mod:`.atomic`: durable whole-file writes; :mod:`.status`: what an index holds, counted once.

Imports :mod:`hwqa.errors`, :mod:`hwqa.settings` and :mod:`hwqa.notes`. Building an index from notes
is :mod:`hwqa.build`; asking one is :mod:`hwqa.answer`.
"""

__all__ = ["atomic", "embed", "light", "pointer", "reader", "segment", "status", "writer"]
