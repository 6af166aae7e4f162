"""Reading notes: from a folder of Markdown files to chunks and their candidate spans.

- :mod:`.files`: which files of a notes folder are notes; :mod:`.note`: a note parsed (front matter,
  title, body), :func:`~hwqa.notes.note.load_notes`;
- :mod:`.markdown`: the Markdown rules every reader shares; :mod:`.links`: the URLs a note links to;
- :mod:`.chunk`: sections and chunks within the token budget, sentences; :mod:`.spans`: the candidate
  answer spans of a chunk (:mod:`.codeblocks`: code blocks as the prose around them uses them);
  :mod:`.keywords`: identifier tokens and FTS queries.

Imports only :mod:`hwqa.errors`. Nothing here touches the network, the index or a model.
"""

__all__ = ["chunk", "codeblocks", "files", "keywords", "links", "markdown", "note", "spans"]
