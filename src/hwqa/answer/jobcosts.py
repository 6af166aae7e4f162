"""What a job costs on each option the calculator lists, at the length the notes give for that job there.

A question about a job ("is the a100 cheaper per finetune than the 4090", "the 5 fire season retrains on lambda's a10
rather than the runpod 4090") states no hours; the notes do, beside each card ("Full finetune on our frames takes 11
hrs", "Lambda A10: ~12 hrs"). A clause of the retrieved passages with one length is of the hardware it names, else of
the one hardware its line names (with the provider the clause names, else then its line's); a length per month, day or
week is usage, never a job's. When some clause of an option's hardware names the job asked ("finetune"), only those
count for it, else its other lengths in a passage that names the job ("… fine-tune took 11 hrs on the 4090. Same run
on the A100 ~6.5 hrs"), or any run's when none does. The job is asked with a determiner ("per finetune", "one full
yolo training run") or named first, as shorthand does ("bee counter fine tune on the a100, how much").
An option's length is the one such clauses give for its hardware and provider; one with none or two is left out.

The job's cost is the option's rate × its devices × the length × the count of jobs the question gives ("5 retrains"),
one when it gives none; each option's sum is said, and which is cheaper by how much when there are two or more.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..prices.factmatch import money_text
from ..prices.names import find_hardware, find_providers
from ..prices.rates import _LENGTHS as LENGTHS
from ..prices.rates import _duration
from ..prices.result import PriceOption
from ..prices.table import hardware_matches
from ..prices.units import hours_said
from ..prices.words import COUNT_WORDS, WORD_NUMBERS, read_price_words
from .base import Hit

__all__ = ["job_costs"]

# A job the question counts or asks the price of one of: "per finetune", "the 5 retrains", "one pass@32 run".
_JOB = (
    r"(?:runs?|jobs?|fine-?tunes?|fine\s+tunes?|finetuning|retrains?|retraining|sweeps?|passes|pass|renders?|batch(?:es)?|"
    r"experiments?|trials?|epochs?)"
)
_COUNTED = re.compile(rf"(?<![\w.$])(?P<n>\d{{1,3}}|{COUNT_WORDS})\s+(?:[\w@.-]+\s+){{0,3}}?(?P<job>{_JOB})\b")
# "per finetune", "one full yolo training run", and shorthand naming the job first: "bee counter fine tune on the a100, how much"
_ASKED = re.compile(rf"(?:\b(?:per|a|an|one|each|every|the|that|this|same)\s+|^\s*)(?:[\w@.-]+\s+){{0,3}}?(?P<job>{_JOB})\b")
_SECONDS = re.compile(r"(?:secs?|seconds?)$")  # a length in seconds is of one item, never of a job
_PER_PERIOD = re.compile(
    r"\s*(?:/\s*|per\s+|an?\s+|each\s+)(?:mo|month|day|week|wk|yr|year|night)\b|\s*(?:monthly|daily|weekly)\b"
)
_CLAUSE = re.compile(r"(?<!\d)[.;](?!\d)|\n")
_MOST = 6  # options said, at most


def _lengths(texts: Sequence[str]) -> list[tuple[str, str, float, str, int]]:
    """(hardware, provider or '', hours, clause, which text) of every clause of ``texts`` that gives one length of a
    job."""
    found: list[tuple[str, str, float, str, int]] = []
    for i, text in enumerate(texts):
        for line in text.splitlines():
            named = {m.name for m in find_hardware(line)}
            line_provider = {p[2] for p in find_providers(line)}
            start = 0
            for end in [m.start() for m in _CLAUSE.finditer(line)] + [len(line)]:
                clause, start = line[start:end], end + 1
                spans = [
                    m
                    for m in LENGTHS.finditer(clause)
                    if not _PER_PERIOD.match(clause, m.end()) and not _SECONDS.search(m.group(0))
                ]
                if len(spans) != 1:
                    continue
                written = spans[0].group(0)
                span = _duration(read_price_words(written), written, "hour")  # "11 hrs", "~20 min", "1h 30m"
                hours = span[0] if span else None
                own = {m.name for m in find_hardware(clause)}
                what = own or named
                providers = {p[2] for p in find_providers(clause)} or (set() if own else line_provider)
                if hours is None or not 0 < hours <= 24 * 365 or len(what) != 1 or len(providers) > 1:
                    continue
                found.append((next(iter(what)), next(iter(providers), ""), hours, clause.lower(), i))
    return found


def job_costs(text: str, options: Sequence[PriceOption], hits: Sequence[Hit]) -> str:
    """Each option's cost of the job ``text`` asks about, at its noted length (see the module doc); '' when the
    question asks about no job or no option has one length."""
    counted = _COUNTED.search(text)
    asked = counted or _ASKED.search(text)
    if asked is None:
        return ""
    n_text = counted.group("n") if counted else "1"
    count = float(n_text) if n_text.isdigit() else float(WORD_NUMBERS[n_text])
    job = asked.group("job")
    lengths = _lengths([h.chunk.text for h in hits])
    # the passages that name the job asked: another length of theirs is of the same job ("same run on the a100")
    jobs_noted = {i for *_, clause, i in lengths if job[:4] in clause}
    lines: list[tuple[float, str, str]] = []
    for option in options:
        row = option.row
        own = [
            (hours, clause, i)
            for hardware, provider, hours, clause, i in lengths
            if hardware_matches(hardware, row.hardware) and (not provider or row.provider in (provider, "not stated"))
        ]
        named = [hours for hours, clause, _ in own if job[:4] in clause]  # of the job named, if the notes name it there
        fits = set(named or [hours for hours, _, i in own if not jobs_noted or i in jobs_noted])
        if len(fits) != 1:
            continue
        hours = fits.pop()
        total = count * hours * row.usd_per_hour * option.devices
        where = f" ({row.provider})" if row.provider and row.provider != "not stated" else ""
        times = f"{count:g} × " if count != 1 else ""
        devices = f" × {option.devices} devices" if option.devices > 1 else ""
        said = f"{times}{hours_said(hours)} × {money_text(row.usd_per_hour, 'USD')}/h{devices} = **{money_text(total, 'USD')}**"
        lines.append((total, f"{row.hardware}{where}", said))
        if len(lines) == _MOST:
            break
    if not lines:
        return ""
    one = job[:-2] if job.endswith("ches") else job[:-1] if job.endswith("s") and not job.endswith("ss") else job
    head = f"{count:g} × {one}" if count != 1 else f"One {one}"
    out = [f"{head}, at the length your notes give for it on each:"]
    out += [f"- {name}: {said}" for _, name, said in lines]
    if len(lines) > 1:
        ranked = sorted(lines)
        out.append(f"The {ranked[0][1]} is cheaper by **{money_text(ranked[1][0] - ranked[0][0], 'USD')}**.")
    return "\n".join(out)
