"""Answering a question from the index: parse, retrieve, candidates, score, compose.

- :mod:`.question`: the one parse of a question; :mod:`.budget`: its length cap and time budget;
- :mod:`.retrieve`: dense, keyword and hybrid retrieval, the names no passage holds; :mod:`.linked`: a
  note's link line followed to the page it links; :mod:`.base`: the retrieved :class:`~hwqa.answer.base.Hit`
  and tool types;
- :mod:`.scorer`: the learned span scorer and the "not covered" decision (its weights in ``data/``);
  :mod:`.quotes`: a chosen span quoted to read alone; :mod:`.superlatives`: "the most / the cheapest";
- :mod:`.builtin`: the builtin answerer; :mod:`.answer`: :class:`~hwqa.answer.answer.Answer`,
  :class:`~hwqa.answer.answer.Citation` and the ``Answerer`` protocol; :mod:`.safety`: what answers and
  passages could smuggle, neutralised;
- :mod:`.priceplan`: a price question planned into a calculator request; :mod:`.pricetool`: the
  calculator as a tool;
- :mod:`.chat`: the answer written by a chat model instead, checked against its passages.

Imports the stages below it: notes, index, prices (never build, the engine or a user interface).
"""

__all__ = [
    "answer",
    "base",
    "budget",
    "builtin",
    "chat",
    "linked",
    "priceplan",
    "pricetool",
    "question",
    "quotes",
    "retrieve",
    "safety",
    "scorer",
    "superlatives",
]
