"""The builtin answerer: the words of the retrieved passages that answer the question, cited.

It needs no language model. The question's one walk: parsed (:mod:`hwqa.answer.question`), retrieved
(:mod:`hwqa.answer.retrieve`), cut into candidates, scored, composed.

- **Candidates**: each retrieved passage is cut into spans (sentences with their neighbours, list
  items with their lead-in, table rows with their header; see :mod:`hwqa.notes.spans`), plus the spans of
  the chunks the best hits hand over (their section's next chunk, the rest of a split table) and,
  for a price superlative, every row of the price table.
- **Score**: one fitted model (:mod:`hwqa.answer.scorer`) gives each candidate a confidence from a few
  features, the question-to-span similarity first. When the best confidence, lowered by the share
  of the question's names that no passage holds (fitted too), is under the fitted threshold, the
  notes do not cover the question; answered all the same, the answer names what they never mention.
- **Compose**: superlatives ("which GPU has the most memory?") are answered by
  :mod:`hwqa.answer.superlatives`, comparisons ("X vs Y") quote the best span for each side, anything else
  the best spans (within the fitted margin of the best); :mod:`hwqa.answer.quotes` makes a chosen span read
  alone (a lead-in brings its list or table, a term its definition).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..errors import PriceTableError, ToolArgumentError
from ..notes.keywords import fold
from ..notes.spans import clean_markdown, spans_of
from ..prices.allin import all_in, asks_all_in
from ..prices.costs import answer_costs, saving_asked
from ..prices.counts import people_asked, priced_each, runs_asked
from ..prices.factmatch import models_unpriced, money_text, other_size, overlap, words_of
from ..prices.itemsums import named_total
from ..prices.passagesums import kits_asked, whole_setup
from ..prices.quoted import (
    asked_percent,
    asks_difference,
    asks_energy,
    asks_every,
    asks_items,
    asks_sum,
    asks_whole,
    breaks_even,
    work_quoted,
)
from ..prices.rates import rates_in
from ..prices.render import render_no_prices, render_not_priced, render_price_result, render_unpriced
from ..prices.solve import asks_product, counts_ignored, solve
from ..prices.tablesums import table_total
from .answer import (
    Answer,
    CitationList,
    compose_price_answer,
    compose_price_gap,
    make_citation,
    not_covered,
    similar,
    with_caveat,
)
from .base import Hit, Tool, ToolCall
from .jobcosts import job_costs
from .notedbudget import noted_budget
from .notedcount import counted_again
from .pricegaps import MONEY, PIECE, SPOT, SPOT_ONLY, priced_elsewhere, quote_prices
from .pricetool import PriceTool, compose_cost_answer, computable
from .question import Question, parse_question
from .quotes import Candidate, introduced, introduced_rows, join_entry, quote, span_idents, whole_list, whole_table
from .retrieve import as_asked
from .scorer import Model, features, load_model, span_similarities
from .superlatives import price_rows, superlative

DEPTH = 5  # passages whose spans are candidates (a superlative compares every relevant passage)
#: Words that judge or advise ("TPUs are best when ...", "we recommend CPUs", "needs XLA-compatible code").
_ADVICE = re.compile(
    r"\b(?:recommend\w*|best|better|worse|prefer\w*|choose|choice|should|avoid\w*|versatil\w*|suited|suitable|ideal|"
    r"worth|unless|only if|needs?|require[sd]?|must|careful|caveat\w*|limit(?:s|ed|ation\w*)|drawbacks?|downsides?)\b",
    re.I,
)
# A question that asks what something costs (not "how much memory"): a price the answer must state.
_ASKS_PRICE = re.compile(
    r"\b(?:pric(?:e[sd]?|ing)|costs?|charges?|pay|paid|fees?|bills?|dollars?|bucks|go(?:es)?\s+for|sells?\s+for)\b|\$"
)


class BuiltinAnswerer:
    """Extractive answers: the spans of the retrieved passages that answer the question, cited."""

    name = "builtin"

    def __init__(self, *, min_score: float, max_sentences: int, model: Model | None = None, embedder: str = "") -> None:
        self.min_score = min_score
        self.max_sentences = max_sentences
        self.model = model or load_model()
        self.embedder = embedder  # "backend:model" of the index: the not-covered threshold holds for the one it was fitted on

    def stream(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]], tools: Sequence[Tool] = ()
    ) -> Iterator[str | Answer]:
        """The answer from the passages; for a price question, the calculator's table first (see :mod:`hwqa.answer.pricetool`)."""
        answer = self.answer(question, hits, history, tools)
        if any(isinstance(t, PriceTool) for t in tools):  # "ups for every hut": asked again with the notes' count in it
            answer = counted_again(question, hits, answer, lambda text: self.answer(parse_question(text), hits, history, tools))
        yield answer

    def answer(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]] = (), tools: Sequence[Tool] = ()
    ) -> Answer:
        price = next((t for t in tools if isinstance(t, PriceTool)), None)
        named = None
        if price is not None and price.table.rows:
            named = noted_budget(question.price.text, question.price.budget_usd is not None or question.price.money, hits)
        if named is not None:  # "what does my MD money buy": the amount the notes give, said, then worked with
            answer = self.answer(parse_question(f"{question.text} with a budget of ${named.amount:.2f}"), hits, history, tools)
            said = f"Using the {money_text(named.amount, 'USD')} your notes give ({named.where}: “{named.sentence}”)."
            return replace(answer, text=f"{said}\n\n{answer.text}")
        from_notes = self.extract(question, hits, price)
        if question.covering and not from_notes.covered:
            # A sibling of what the notes cover ("raspberry boom" where they write "Raspberry Shake"), turned away by the
            # decision: never answered with the price of the thing they do cover
            return from_notes
        best = PIECE.match(from_notes.text) if from_notes.covered else None  # the best span, before its first mark
        if best is not None and _NOT_KNOWN.search(best.group(1)) and not _YES_NO.match(question.text):
            # "vitpose fps on the 3060?" over "haven't tried ViTPose yet": the notes say they don't know
            return Answer(f"Your notes don't have that yet: {from_notes.text}", from_notes.citations, covered=False)
        quotes = from_notes
        turned_away = not from_notes.covered and not question.missing  # a word no dictionary knows is said, never a veto
        # "first year all in": a one-off price with a recurring one over a period, when the question states no money itself
        total = asks_all_in(question.price.text) and not question.price.money
        asked_sum = asks_sum(question.price.text) or asks_product(question.price.text) or total
        if price is not None and turned_away and asked_sum:
            # Turned away by the confidence alone: its best spans all the same, for a sum they may hold every factor
            # of (a money question the quote can answer is planned, never turned away); nothing else is said of them
            quotes = self.extract(question, hits, price, decide=False)
        quoted = _quoted(quotes) if price is not None and quotes.covered else []
        context = _same_note(quotes, hits)
        # The quote before the price facts when it holds what the facts split apart: a length or count for a rate the
        # question states ("at $0.68/hr, worst case for the full suite"), two prices compared ("what would spot have
        # saved"), a draw beside the hours a day it runs, a whole setup's lines, several things listed, a percentage,
        # a count only its note gives ("every episode"), a break-even it holds both prices of
        difference = asks_difference(question.price.text)
        first = price is not None and (
            rates_in(question.price.text)
            or difference
            or asks_energy(question.price.text)
            or asks_whole(question.price)
            or (asks_items(question.price) and named_total(question.price, quoted) is not None)
            or asked_percent(question.price.text) is not None
            or (bool(quoted) and asks_every(question.price, context))
            or breaks_even(question.price, quoted, context)
            or (people_asked(question.price.text) and any(priced_each(piece) for piece, _ in quoted))
            or runs_asked(question.price.text, quoted)
        )
        worked = all_in(question.price.text, quoted, context) if price is not None and total and quoted else None
        if worked is None and price is not None and (listed := _whole_listed(question, hits)) is not None:
            return listed
        sure = quotes is from_notes  # else spans the confidence turned away: their rate may be another thing's
        costs = saving_asked(question.price, price.table) if price is not None and difference else None  # over quotes
        if worked is None and costs is None and price is not None and first:
            worked = work_quoted(question.price, quoted, price.table, confident=sure, context=context)
        costs = costs or (answer_costs(question.price, price.table, context) if price is not None and worked is None else None)
        if price is not None and costs is not None and counts_ignored(question.price.text, costs.text):
            # The facts' sum leaves out a count the question gives ("2 more parents" over a plan's price for a year): the
            # product of the best spans' quantities that uses it, if there is one
            spans = quotes if quoted else self.extract(question, hits, price, decide=False)
            if spans.covered:
                worked = solve(question.price.text, _quoted(spans), _same_note(spans, hits), difference=difference, money=True)
                quotes = spans if worked is not None else quotes
                costs = None if worked is not None else costs
        if price is not None and costs is not None:
            unpriced = models_unpriced(question.price.text, costs.facts)
            if unpriced:  # "hetzner gex130 monthly price?" over the GEX44's: a model the question names is no other's price
                models = ", ".join(m.upper() for m in unpriced)
                said = f"Your notes give no price for the {models}; the nearest they price is the {costs.facts[0].subject}."
                return compose_price_gap(said, from_notes)
            other = other_size(question.price.text, costs.facts)
            if other is not None:  # "the 8 gig 4060ti" over the 16GB one's price: the neighbouring entry, not this one
                said = f"Your notes price the {costs.facts[0].subject} at {other}, not the size you asked about."
                return compose_price_gap(said, from_notes)
            return compose_cost_answer(costs, price, from_notes)
        asked = price.ask(question, history) if price is not None else None
        if worked is None and price is not None and quoted:
            # The facts answered nothing: the sum over the quote that holds its factors, unless the question gives its
            # own time for hardware the calculator prices ("250 GPU-hours on a V100")
            ready = asked is not None and not asked.problems and not asked.unpriced and computable(asked.request)
            # "10 hours on a 4070" where the notes price no 4070: never the quoted rate of another card
            elsewhere = asked is not None and priced_elsewhere(asked.unpriced, quoted)
            if not elsewhere and not (ready and price.table.rows and question.price.hours is not None):
                worked = work_quoted(question.price, quoted, price.table, confident=sure, context=context)
            if worked is None and not elsewhere and not (ready and price.table.rows) and question.price.budget_usd is None:
                # No sum of a known shape, and nothing the calculator works out: the product whose units cancel
                worked = solve(question.price.text, quoted, context, difference=difference)
        if worked is not None:
            return Answer(f"{worked.text}\n\n{quotes.text}", quotes.citations, covered=True)
        if price is None or asked is None:
            return from_notes
        if asked.problems:  # an amount it cannot use is said, never read as another one
            said = "The price calculator could not answer: " + "; ".join(asked.problems) + "."
            return Answer("\n\n".join(p for p in (said, from_notes.text) if p), from_notes.citations, covered=from_notes.covered)
        # What the notes hold no price for is said first, never dropped: no prices at all, or none for the hardware named.
        if not price.table.rows:
            return compose_price_gap(render_no_prices(asked.request, asked.unpriced), from_notes)
        # the hardware the notes price nothing for, as the question writes it ("the 4070 ti super", not "4070 ti")
        preface = render_unpriced(as_asked(question.text, asked.unpriced), price.table) if asked.unpriced else ""
        if not computable(asked.request):
            # Only hardware without an hourly price was asked about: what the notes say of it comes first, and
            # answers the question unless it asks a price the passages quoted never state.
            if from_notes.covered and not (_ASKS_PRICE.search(question.price.text) and not MONEY.search(from_notes.text)):
                return Answer(f"{from_notes.text}\n\n{preface}", from_notes.citations, covered=True)
            if from_notes.covered:
                return compose_price_gap(preface, from_notes)
            if question.missing or question.unknown:  # turned away naming what the notes never mention, and what they price
                return not_covered(hits, missing=question.missing or question.unknown, also=preface, covering=question.covering)
            return compose_price_gap(preface, from_notes)
        request = asked.request
        arguments = request.to_arguments()
        try:
            result = price.compute(request)
        except (ToolArgumentError, PriceTableError) as exc:
            call = ToolCall(price.name, arguments, {"error": str(exc)})
            text = "\n\n".join(p for p in (preface, f"The price calculator could not answer: {exc}", from_notes.text) if p)
            return Answer(text, from_notes.citations, [call], covered=from_notes.covered)
        if not result.options and not request.allow_preemptible and any(e.pricing in SPOT for e in result.excluded):
            # "how many hrs of a vast 3090 for $20" where the notes price it only interruptible: counted, and said so
            spot_only = price.compute(replace(request, allow_preemptible=True))
            if spot_only.options:
                request, result = spot_only.request, spot_only
                arguments = request.to_arguments()
                preface = "\n\n".join(p for p in (preface, SPOT_ONLY) if p)
        call = ToolCall(price.name, arguments, result.to_json())
        if not result.options and request.budget_usd is None:
            # Nothing the calculator prices fits ("runpod a100 80gb", "4 of the 48gb cards"): the quote's own sum if it
            # holds one, else what the notes say, said as no price for what was asked unless they quote one
            quoted_sum = work_quoted(question.price, quoted, price.table, confident=sure, context=context) if quoted else None
            if quoted_sum is not None:
                return Answer(f"{quoted_sum.text}\n\n{quotes.text}", quotes.citations, [call], covered=True)
            gap = render_not_priced(request, question.text)  # "" when no row filter (types, memory, providers) was set
            said = "\n\n".join(p for p in (preface, gap or render_price_result(result).strip()) if p)
            if from_notes.covered and (not gap or quote_prices(from_notes, [request.hardware or "", *request.providers])):
                return Answer(f"{from_notes.text}\n\n{said}", from_notes.citations, [call], covered=True)
            return compose_price_gap(said, from_notes)  # "runpod a100 80gb": no price on that provider
        explicit = any(o.row.origin == "price table" for o in result.options) or not result.options
        carried = price.reused(question, history, request)
        rendered = render_price_result(result)
        if request.hours is None and request.budget_usd is None and request.purchase_usd is None:  # "per finetune"
            rendered = "\n\n".join(p for p in (job_costs(question.price.text, result.options, hits), rendered) if p)
        answer = compose_price_answer(
            rendered,
            price.sources(result),
            call,
            from_notes,
            price.caveats(),
            "your price table" if explicit else "your notes",
            preface,
        )
        if carried:  # a follow-up says what it took from the question before
            answer.text = f"Using {carried} from your earlier question.\n\n{answer.text}"
        return answer

    def advice(self, hits: Sequence[Hit], names: Sequence[str], limit: int = 2) -> Answer:
        """What the passages advise about the hardware compared: up to ``limit`` sentences or items that
        name one of ``names`` and judge it ("best when", "recommend", "needs"), without a price in them
        (the prices are the calculator's); the first of each passage by retrieval rank, then the next of
        each, so that several notes' advice is heard before one note's second. Not covered when none does."""
        if not names:
            return Answer("", covered=False)
        named = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")s?(?![\w-])", re.I)
        found: list[list[tuple[Candidate, str]]] = []
        for rank, hit in enumerate(hits):
            judged = []
            for span in spans_of(hit.chunk.text):
                text = clean_markdown(span.text)
                if span.kind == "sentence" and text.startswith("#"):
                    continue
                if _ADVICE.search(text) and named.search(text) and not MONEY.search(text):
                    judged.append((Candidate(hit, rank, span), text))
            found.append(judged)
        chosen: list[tuple[Candidate, str]] = []
        for turn in range(limit):
            for judged in found:
                if len(chosen) < limit and turn < len(judged) and not any(similar(judged[turn][1], t) for _, t in chosen):
                    chosen.append(judged[turn])
        return _compose(chosen) if chosen else Answer("", covered=False)

    def extract(self, q: Question, hits: Sequence[Hit], price: PriceTool | None = None, *, decide: bool = True) -> Answer:
        """The spans of ``hits`` that answer ``q``, cited; 'not covered' when the scorer is not confident (``decide``:
        False quotes the best spans all the same, for a sum that needs its factors to be in them).

        A price superlative also reads every row of the price table.
        """
        relevant, pool = self.candidates(q, hits, price)
        if not relevant:
            return not_covered(hits, missing=q.absent, unheard=q.unheard, covering=q.covering)
        calibrated = not self.embedder or self.embedder == self.model.embedder
        if decide and not calibrated and (q.missing or q.unknown):
            # Another embedder's similarities have no calibrated decision: a name no passage holds is the evidence left.
            return not_covered(hits, missing=q.absent, covering=q.covering)
        if not pool:
            return with_caveat(_passages_only(relevant), q.missing)
        if decide and calibrated and self.model.declines(max(c.score for c in pool), q.missing_share):
            return not_covered(hits, missing=q.absent, unheard=q.unheard, covering=q.covering)
        chosen = superlative(q, pool, self.model.threshold) or _comparison(q, pool) or self._best(q, pool)
        if not chosen:
            return with_caveat(_passages_only(relevant), q.missing)
        return with_caveat(_compose(chosen), q.missing)

    def candidates(self, q: Question, hits: Sequence[Hit], price: PriceTool | None = None) -> tuple[list[Hit], list[Candidate]]:
        """The hits above the relevance floor (``min_score``), and their spans as candidates, scored."""
        relevant = [h for h in hits if h.score >= self.min_score]
        depth = len(relevant) if q.superlative else DEPTH
        pool = [c for r, h in enumerate(relevant[:depth]) for c in _spans(h, r)]
        pool += _following(relevant[:depth])
        if price is not None and q.superlative and q.attribute == "price":
            pool += price_rows(price, q, pool)
        if pool:
            for cand, confidence in zip(pool, self.model.confidence(features(q, pool)), strict=True):
                cand.score = float(confidence)
        return relevant, pool

    def _best(self, q: Question, pool: list[Candidate]) -> list[tuple[Candidate, str]]:
        ranked = sorted(pool, key=lambda c: (-c.score, c.rank, c.span.position))
        best = ranked[0]
        following = introduced(best, pool)
        if following:  # a lead-in ("The SDK supports these versions:") answers through the list it introduces
            return whole_list(following[0], pool)
        rows = introduced_rows(best, pool)
        if rows:  # ... or through the table it introduces
            return [(best, whole_table(best, rows))]
        if q.wants == "list" and best.span.kind == "item":
            return whole_list(best, pool)
        chosen: list[tuple[Candidate, str]] = []
        for cand in ranked:
            if len(chosen) == self.max_sentences or cand.score < best.score * self.model.margin:
                break
            if any(similar(cand.span.text, t) for _, t in chosen):
                continue
            items = introduced(cand, pool)
            if items:  # a lead-in quoted alone ("... supports these versions:") says nothing: quote its list
                chosen.extend(whole_list(items[0], pool))
                break
            rows = introduced_rows(cand, pool)
            if rows:
                chosen.append((cand, whole_table(cand, rows)))
                break
            known = next((k for k, (c, _) in enumerate(chosen) if _one_entry(c, cand)), None)
            if known is not None:  # another span of an entry already quoted: it joins that quote, under its term once
                c, t = chosen[known]
                chosen[known] = (c, join_entry(t, cand, pool))
                continue
            text = quote(cand, pool)
            if any(cand.span.text in t for _, t in chosen):
                continue  # already part of a longer quote (a definition read on)
            chosen = [(c, t) for c, t in chosen if c.span.text not in text]  # ... or now part of this one
            chosen.append((cand, text))
        return chosen


def _one_entry(a: Candidate, b: Candidate) -> bool:
    """Whether two candidates are spans of one entry (:mod:`hwqa.notes.spans`) of one page: one term."""
    return (
        a.span.entry >= 0
        and b.span.entry >= 0
        and bool(a.span.subject)
        and a.span.subject == b.span.subject
        and (a.hit.chunk.source == b.hit.chunk.source)
    )


def _spans(hit: Hit, rank: int) -> list[Candidate]:
    """The candidate spans of one passage, each with the question's similarity to it."""
    spans = spans_of(hit.chunk.text)
    sims = span_similarities(hit.query, hit.chunk.spans, len(spans), hit.score)
    if hit.pointer:  # a page a note's line led to: the line says what the page answers, around every span of it
        spans = [replace(s, context=f"{s.context} {hit.pointer}".strip()) for s in spans]
    return [Candidate(hit, rank, s, sim=sim) for s, sim in zip(spans, sims, strict=True)]


def _following(hits: Sequence[Hit]) -> list[Candidate]:
    """Spans of the chunks the best hits hand over (their section's next chunk, the rest of a table
    they hold rows of) that were not retrieved themselves, ranked as their hit."""
    have = {h.chunk.id for h in hits}
    out: list[Candidate] = []
    for rank, hit in enumerate(hits):
        for nxt in [*([hit.following] if hit.following is not None else []), *hit.table]:
            if nxt.id not in have:
                have.add(nxt.id)
                out += _spans(Hit(nxt, hit.score, hit.fused, query=hit.query, pointer=hit.pointer), rank)
    return out


def _comparison(q: Question, pool: list[Candidate]) -> list[tuple[Candidate, str]] | None:
    """'X vs Y': the best span naming each side."""
    terms = [t.folded for t in q.terms]
    if not q.comparison or len(terms) < 2:
        return None
    chosen: list[tuple[Candidate, str]] = []
    for term in terms[:3]:
        # The span must name the term itself ("T3"), not a longer name that contains it ("T3X").
        naming = [c for c in pool if term in span_idents(c.span.text)] or [c for c in pool if term in fold(c.span.text)]
        if not naming:
            return None
        best = max(naming, key=lambda c: c.score)
        if all(best is not c for c, _ in chosen):
            chosen.append((best, quote(best, pool)))
    return chosen


def _compose(chosen: list[tuple[Candidate, str]]) -> Answer:
    cites = CitationList()  # one number per section, even when it is split in chunks
    parts = []
    for cand, text in chosen:
        n = cites.add(make_citation(0, cand.hit))
        citation = cites.citations[n - 1]
        if cand.hit.chunk.text not in citation.text:
            citation.text += "\n" + cand.hit.chunk.text
        end = "" if text.endswith((".", "!", "?")) else "."
        parts.append(f"{text}{end} [{n}]")
    return Answer(" ".join(parts), cites.citations)


def _same_note(answer: Answer, hits: Sequence[Hit]) -> str:
    """The retrieved passages of the note the answer cites first, joined: where a count its quote leaves out may be."""
    if not answer.citations:
        return ""
    source = answer.citations[0].source
    return "\n".join(clean_markdown(h.chunk.text) for h in hits if h.chunk.source == source)


WHOLE_PASSAGES = 3  # "what did the whole demo kit come to": the retrieved passages whose lines may be the parts
# Words of a question asking a whole setup's total that say nothing of which setup
_SUM_WORDS = frozenset(words_of("what did does the cost come came to parts total all together altogether whole in how much"))


def _whole_listed(question: Question, hits: Sequence[Hit]) -> Answer | None:
    """ "what did the whole demo kit come to": every price of the best-ranked retrieved passage whose lines are
    things bought, one price each (:func:`hwqa.prices.passagesums.whole_setup`), when the quote held no such lines
    (its best spans were about the kit's case, not its parts list); "adding 3 more lifts, what's the hardware cost":
    that many times every price of a list headed by what one kit is for ("Per-lift box")."""
    whole = asks_whole(question.price)
    kits_of = [kits_asked(question.price, h.chunk.heading) if h.chunk.kind == "note" else None for h in hits]
    if not whole and not any(kits_of):
        return None  # neither a whole setup asked nor more of a kit a list is headed by
    asked = words_of(question.price.text) - _SUM_WORDS
    named = [overlap(asked, words_of(f"{h.chunk.title} {h.chunk.heading}")) if h.chunk.kind == "note" else 0 for h in hits]
    best = max(named, default=0)
    # "counter device parts": the list whose note and heading name it best, first ("Bike shop … › Counter device")
    headed = [h for h, n in zip(hits, named, strict=True) if best and n == best]
    ordered = [*headed, *(h for h in hits if h not in headed)]
    for hit in ordered:
        kits = kits_of[hits.index(hit)]
        if not (kits or (whole and (hit in headed or hits.index(hit) < WHOLE_PASSAGES))):
            continue
        lines: list[str] = []
        for chunk in hit.section or (hit.chunk,):
            own = [clean_markdown(line) for line in chunk.text.splitlines() if line.strip()]
            # a chunk may open with the line the one before it ended on (chunks overlap): that line once
            lines += own[1:] if own and lines and own[0] == lines[-1] else own
        # "| gpu | hrs | cost |": the sum of its money column, over the chunks the table is split across
        raw = [c.text for c in sorted([hit.chunk, *hit.table], key=lambda c: c.ordinal)]
        setup = (table_total(question.price, raw) if whole and not kits else None) or whole_setup(
            question.price, [("\n".join(lines), hit.chunk.source)], kits
        )
        if setup is not None:
            listed = "\n".join(f"- {line.lstrip('*+- ')}" for line in lines)
            return Answer(f"{setup.text}\n\n{listed} [1]", [make_citation(1, hit)], covered=True)
    return None


def _quoted(answer: Answer) -> list[tuple[str, str]]:
    """The quoted pieces of an extractive answer, one per passage cited (its pieces joined), best first, each with the
    note or page it is from; then the first cited passage whole (a factor may sit in a sentence the quote left out)."""
    joined: dict[int, list[str]] = {}
    for m in PIECE.finditer(answer.text):
        if m.group(1).strip():
            joined.setdefault(int(m.group(2)), []).append(m.group(1).strip())
    by_n = {c.n: c for c in answer.citations}
    pieces = [(" ".join(texts), by_n[n].source if n in by_n else "") for n, texts in joined.items()]
    if joined and (first := by_n.get(next(iter(joined)))) is not None:
        pieces.append((clean_markdown(first.text), first.source))
    return pieces


# A quote saying the notes do not know yet: the thing untried or unpriced ("haven't tried ViTPose yet", "no price
# anywhere yet", "still need to check").
_NOT_KNOWN = re.compile(
    r"\b(?:haven'?t|have\s+not|hasn'?t|didn'?t\s+get\s+to|not\s+yet|never)\s+(?:yet\s+)?"
    r"(?:tried|tested|priced|checked|measured|benchmarked|got\s+(?:a\s+)?(?:price|quote|numbers?))\b|"
    r"\bno\s+(?:price|pricing|numbers?|quote|benchmarks?|data)\b[^.;]{0,30}\byet\b|"
    r"\bstill\s+(?:need|have|want)\s+to\s+(?:check|test|try|measure|price)\b|\b(?:price|speed|numbers?)\s+(?:tbd|unknown)\b",
    re.I,
)
_YES_NO = re.compile(r"\s*(?:did|do|does|have|has|is|are|was|were|can|could|should|will)\b", re.I)


def _passages_only(hits: Sequence[Hit]) -> Answer:
    citations = [make_citation(i + 1, h) for i, h in enumerate(hits[:3])]
    listing = "; ".join(f"{c.label()} [{c.n}]" for c in citations)
    return Answer(f"These passages of my notes are the most relevant: {listing}.", citations)
