"""Building the index: notes and the pages they link to, into a new generation.

- :mod:`.builder`: :func:`~hwqa.build.builder.build_index` (what changed, chunking, embedding, the new
  generation) and :mod:`.compact`: segments merged after a build; :mod:`.lock`: one builder at a time;
- :mod:`.articles`: the linked pages of a build (fetch, extract, chunk); :mod:`.deadline`: a wall-clock
  limit on a page's CPU-bound steps;
- :mod:`.pricebuild`: the price table of a new generation; :mod:`.watch`: rebuilding when notes change.

Imports the stages below it: notes, index, fetch, extract, prices.
"""

__all__ = ["articles", "builder", "deadline", "pricebuild", "watch"]
