"""The words a price statement is made of: hardware names, providers, pricing kinds, dates, money
with its time unit, and relative speeds ("equivalent to 8 V100").

Each finder returns spans of the text it was given (start, end and what was read), so
:mod:`hwqa.prices.prose` can pair a price with the hardware name of its clause and quote the
text exactly. The grammar is of accelerator names in general (NVIDIA letter-and-number models, RTX
cards, TPU generations, AMD Instinct, CPUs, other ASICs), not of any one note's sentences.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "Mention",
    "Money",
    "Speed",
    "find_date",
    "find_hardware",
    "find_money",
    "find_pricing",
    "find_providers",
    "find_speeds",
    "find_tpu_versions",
    "find_watts",
    "is_instance",
    "provider_of_host",
]

# --- hardware ---------------------------------------------------------------------------------

_TPU = r"(?:tpu\s?-?\s?v\d{1,2}[a-z]{0,2}(?:\s?-\s?\d{1,4}(?!\d|\.\d))?(?:\s(?:pod|slice))?)"
_NVIDIA = (
    r"(?:(?-i:[TLAP])\d(?!\d|\.\d)|(?-i:[ABHKLMPTV])\d{2,3}(?-i:[A-Z])?|(?-i:[abhklmptv])\d{3}(?-i:[a-z])?|"
    r"(?-i:G[HB])\d{3})"
    r"(?:\s?(?:pcie|sxm\d?|nvl))?(?:[\s-]?\d{2,3}\s?gb)?"
)
# An RTX A-series workstation card is written with or without its "RTX" ("A6000", "a4000"): four digits after the A.
# A GeForce card is often written by its number alone ("the 4090", "two 3090s"): the numbers GeForce cards have had.
_RTX = (
    r"(?:(?:rtx|gtx)\s?-?\s?(?:a\d{4}|\d{4}(?:\s?ti)?(?:\s?super)?)|(?-i:[Aa])\d{4}(?!\d)|\d{4}\s?-?(?:rtx|gtx)|titan\s(?:v|x|rtx)"
    r"|(?<![\d,])(?:[1-5]0[5-9]0|16[56]0)(?:\s?ti)?(?:\s?super)?(?!\d|,\d|\.\d|\s?(?:(?:mb|gb|mhz|w|hz)\b|x\d|p\b)))"
)
_AMD = r"(?:mi\d{2,3}[a-z]?)"
_CPU = (
    r"(?:xeon(?:\s(?:platinum|gold|silver))?(?:\s\d{4}[a-z]?)?|epyc(?:\s\d{4}[a-z]?)?|graviton\s?\d?"
    r"|ryzen(?:\s\d{1,2})?(?:\s\d{4}[a-z]{0,2})?|threadripper(?:\spro)?(?:\s\d{4}[a-z]{0,2})?)"
)
_OTHER = r"(?:trainium\d?|inferentia\d?|gaudi\s?\d?)"
# Cloud instance types: AWS (p3.2xlarge, g6.xlarge, trn1.32xlarge), GCP (a2-highgpu-1g, g2-standard-4), Azure
# (Standard_NC6s_v3): a machine with cards in it, priced as a whole.
_INSTANCE = (
    r"(?:(?:p|g|inf|trn|dl)\d[a-z]{0,3}\.(?:\d{1,2})?x?large|(?:p|g|inf|trn|dl)\d[a-z]{0,3}\.metal"
    r"|(?:a2|a3|g2|n1)-(?:highgpu|megagpu|ultragpu|standard|highmem)-\d{1,3}g?|standard_n[cdv]\w{1,20})"
)
_HARDWARE = re.compile(
    rf"(?<![\w.$-])(?P<name>{_INSTANCE}|{_TPU}|{_RTX}|{_AMD}|{_CPU}|{_OTHER}|{_NVIDIA})(?-i:s)?(?![\w]|[.-][a-z0-9])",
    re.IGNORECASE,
)
_MEMORY_IN_NAME = re.compile(r"(\d{2,3})\s?gb$", re.IGNORECASE)
_COUNT_BEFORE = re.compile(
    r"(?<![\w.])(?P<n>\d{1,3}|one|two|three|four|six|eight|sixteen)(?:\s?(?:x|×)|[\s-]?(?:gpu|tpu|chip|card)s?)?\s+"
    r"(?:(?:nvidia|tesla|google|cloud|amd|intel|geforce)\s+)*$",
    re.IGNORECASE,
)
_WORD_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "sixteen": 16}


@dataclass(frozen=True)
class Mention:
    """A hardware name as written (``"P100"``, ``"TPUv2"``, ``"A100 40GB"``) at ``start:end``."""

    start: int
    end: int
    name: str
    type: str  # gpu, tpu, cpu or other (see OTHER_TYPE)
    memory_gb: float | None = None
    count: int = 1  # "eight A100 GPUs", "8 x A100": how many the statement is about


_INSTANCE_RE = re.compile(_INSTANCE, re.IGNORECASE)
_CPU_START = re.compile(r"xeon|epyc|graviton|ryzen|threadripper")
_OTHER_START = re.compile(r"trainium|inferentia|gaudi")
_PLURAL_MODEL = re.compile(r"[A-Za-z]\d{3}s")
_RTX_A = re.compile(r"[Aa]\d{4}")
_SERIES = re.compile(r"rtx|gtx", re.I)


def is_instance(name: str) -> bool:
    """Whether ``name`` is a cloud instance type (``p3.2xlarge``, ``a2-highgpu-1g``), not a card or chip."""
    return _INSTANCE_RE.fullmatch(name) is not None


def _type_of(name: str) -> str:
    low = name.lower()
    if is_instance(name):
        return "tpu" if low.startswith("ct") else "gpu"
    if low.startswith("tpu"):
        return "tpu"
    if _CPU_START.match(low):
        return "cpu"
    if _OTHER_START.match(low):
        return "other"
    return "gpu"


def find_hardware(text: str) -> list[Mention]:
    """Hardware names in ``text``, in order (vendor words such as "NVIDIA Tesla" left outside the name)."""
    return list(_hardware_in(text)) if len(text) <= _MEMO_CHARS else _read_hardware(text)


# A reader asks the same text again (a section heading for every sentence under it, a sentence for each of its
# amounts): the finders of one text are kept, for texts up to a sentence's length, as tuples (callers get lists).
_MEMO_CHARS = 1_000


@lru_cache(maxsize=4096)
def _hardware_in(text: str) -> tuple[Mention, ...]:
    return tuple(_read_hardware(text))


def _read_hardware(text: str) -> list[Mention]:
    found: list[Mention] = []
    for m in _HARDWARE.finditer(text):
        name = m.group("name")
        end = m.end("name")  # a plural "s" ("two M40s") is not part of the name
        if _PLURAL_MODEL.fullmatch(name):  # "V100s": a plural, not a model
            name, end = name[:-1], end - 1
        if _RTX_A.fullmatch(name):  # "A6000" is the RTX A6000: one name, so a row and a question meet
            name = f"RTX {name.upper()}"
        elif name[0].isdigit() and not _SERIES.search(name):  # "the 4090" is the RTX 4090
            series = "GTX" if name.startswith(("10", "16")) else "RTX"
            name = f"{series} {name.upper().replace('TI', 'Ti').replace('SUPER', 'Super')}"
        memory = _MEMORY_IN_NAME.search(name)
        count = _COUNT_BEFORE.search(text[max(0, m.start() - 40) : m.start()])
        n = 1
        if count:
            token = count.group("n").lower()
            n = int(token) if token.isdigit() else _WORD_COUNTS[token]
        found.append(Mention(m.start(), end, name, _type_of(name), float(memory.group(1)) if memory else None, max(n, 1)))
    return found


# --- providers -------------------------------------------------------------------------------

_PROVIDERS: dict[str, tuple[str, ...]] = {
    "GCP": ("gcp", "google cloud platform", "google cloud", "google compute engine", "gce", "cloud.google.com"),
    "AWS": ("aws", "amazon web services", "amazon ec2", "ec2", "aws.amazon.com"),
    "Azure": ("azure", "microsoft azure", "azure.microsoft.com"),
    "Colab": ("google colab", "colab", "colab pro"),
    "Lambda": ("lambda labs", "lambda cloud", "lambda gpu cloud", "lambdalabs.com"),
    "Paperspace": ("paperspace",),
    "RunPod": ("runpod",),
    "Vast.ai": ("vast.ai", "vast ai", "vastai"),
    "CoreWeave": ("coreweave",),
    "Oracle Cloud": ("oracle cloud", "oci"),
    "IBM Cloud": ("ibm cloud",),
    "Alibaba Cloud": ("alibaba cloud", "aliyun"),
    "Jarvislabs": ("jarvislabs", "jarvis labs"),
    "Genesis Cloud": ("genesis cloud",),
    "Hetzner": ("hetzner",),
    "OVHcloud": ("ovhcloud", "ovh"),
    "Kaggle": ("kaggle",),
    "FluidStack": ("fluidstack",),
    "Linode": ("linode", "akamai cloud"),
    "DigitalOcean": ("digitalocean", "digital ocean"),
}
_PROVIDER_RE = re.compile(
    r"(?<![\w.-])("
    + "|".join(re.escape(a) for a in sorted({a for al in _PROVIDERS.values() for a in al}, key=len, reverse=True))
    + r")(?![\w-])",
    re.IGNORECASE,
)
_PROVIDER_OF = {alias: name for name, aliases in _PROVIDERS.items() for alias in aliases}


def find_providers(text: str) -> list[tuple[int, int, str]]:
    """Cloud providers named in ``text``: (start, end, short name such as ``"GCP"``)."""
    return list(_providers_in(text)) if len(text) <= _MEMO_CHARS else _read_providers(text)


@lru_cache(maxsize=4096)
def _providers_in(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(_read_providers(text))


def _read_providers(text: str) -> list[tuple[int, int, str]]:
    low = text.lower()
    # "lambda A10s", "on lambda's a100": the cloud, when a card's name follows (alone, "lambda" is a function too)
    bare = [(m.start(1), m.end(1), "Lambda") for m in _LAMBDA.finditer(low) if _starts_with_hardware(text[m.end() :])]
    if text.isascii() and not any(alias in low for alias in _PROVIDER_OF):  # in ASCII, ignoring case is lower case
        return bare  # no alias in the text (most sentences)
    found = [(m.start(), m.end(), _PROVIDER_OF[m.group(1).lower()]) for m in _PROVIDER_RE.finditer(text)]
    return sorted(found + [b for b in bare if not any(f[0] <= b[0] < f[1] for f in found)])


_LAMBDA = re.compile(r"(?<![\w.-])(lambda(?:'s)?)\s+")


def _starts_with_hardware(rest: str) -> bool:
    named = find_hardware(rest[:24])
    return bool(named) and named[0].start == 0


def provider_of_host(host: str) -> str | None:
    """The provider a pricing page's host belongs to (``cloud.google.com`` → ``"GCP"``), if known."""
    host = host.lower().removeprefix("www.")
    for alias, name in _PROVIDER_OF.items():
        if "." in alias and (host == alias or host.endswith("." + alias)):
            return name
    return None


# --- pricing kinds ---------------------------------------------------------------------------

_PRICING_RE = re.compile(
    r"(?<![\w-])(?:(?P<ondemand>on[\s-]?demand)|(?P<spot>spot|interruptible)|(?P<preemptible>pre-?empt[ia]ble)|"
    r"(?P<reserved>reserved|committed[\s-]use|\d[\s-]?(?:year|yr)\s+commit\w*|commitment|savings\s+plan)|"
    r"(?P<free>free(?:\s+tier)?))(?![\w-])",
    re.IGNORECASE,
)


def find_pricing(text: str) -> list[tuple[int, int, str]]:
    """Pricing kinds named in ``text``: (start, end, one of on-demand, spot, preemptible, reserved, free)."""
    out = []
    for m in _PRICING_RE.finditer(text):
        kind = next(k for k, v in m.groupdict().items() if v)
        out.append((m.start(), m.end(), "on-demand" if kind == "ondemand" else kind))
    return out


# --- dates -----------------------------------------------------------------------------------

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_ISO_DATE = re.compile(r"(?<![\d-])((?:19|20)\d{2})-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?(?![\d-])")
_MONTH_DATE = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?((?:19|20)\d{2})\b", re.IGNORECASE
)
_YEAR = re.compile(r"(?:\b(?:in|as of|since|during|from)\s+|\()((?:19|20)\d{2})(?:\)|\b)", re.IGNORECASE)


def find_date(text: str) -> str | None:
    """The first date written in ``text`` as ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY`` (as precise as written)."""
    return _date_in(text) if len(text) <= _MEMO_CHARS else _read_date(text)


@lru_cache(maxsize=4096)
def _date_in(text: str) -> str | None:
    return _read_date(text)


def _read_date(text: str) -> str | None:
    found: list[tuple[int, str]] = []
    m = _ISO_DATE.search(text)
    if m:
        found.append((m.start(), "-".join(g for g in m.groups() if g)))
    m = _MONTH_DATE.search(text)
    if m:
        found.append((m.start(), f"{m.group(2)}-{_MONTHS.index(m.group(1).lower()[:3]) + 1:02d}"))
    m = _YEAR.search(text)
    if m:
        found.append((m.start(1), m.group(1)))
    return min(found, key=lambda f: (f[0], -len(f[1])))[1] if found else None


# --- money -----------------------------------------------------------------------------------

_UNIT_WORDS = {
    "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour", "hourly": "hour",
    "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
    "s": "second", "sec": "second", "secs": "second", "second": "second", "seconds": "second",
    "day": "day", "days": "day", "daily": "day", "week": "week", "weeks": "week", "weekly": "week",
    "mo": "month", "month": "month", "months": "month", "monthly": "month",
    "yr": "year", "year": "year", "years": "year", "yearly": "year", "annually": "year",
    "kwh": "kwh",
}  # fmt: skip
#: Qualifiers of a time unit that still mean the price of one device (or one machine) for that time.
DEVICE_WORDS = frozenset(
    {"chip", "gpu", "tpu", "device", "core", "card", "board", "accelerator", "node", "instance", "vm", "machine", "server"}
)
_AMOUNT = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_MONEY = re.compile(
    rf"(?:(?P<pre>US\$|\$|USD\s?|€|£|EUR\s?|GBP\s?)\s?(?P<neg>[-−]\s?)?(?:{_AMOUNT}|(?P<nan>nan|inf(?:inity)?)\b)(?P<k>k\b)?"
    rf"(?:\s?(?:USD|US dollars?|dollars?)\b)?"
    rf"|(?<![\d,.]){_AMOUNT.replace('num', 'num2')}(?P<k2>k)?\s?(?P<post>USD|US dollars?|dollars?|bucks?|EUR|euros?|€)(?!\w))",
    re.IGNORECASE,
)
_UNIT_AFTER = re.compile(
    r"\s*(?:(?P<word>hourly|monthly|daily|weekly|yearly|annually|month[\s-]to[\s-]month)\b|(?:/\s*|\bper\s+|\ban?\s+|\beach\s+)"
    r"(?:(?P<qual>[\w.]+(?:[\s-][\w.]+)?)[\s-])??"
    r"(?P<unit>hours?|hrs?|h|months?|mo|days?|weeks?|years?|yr|minutes?|mins?|seconds?|secs?|s|kwh)\b)",
    re.IGNORECASE,
)


# A price per amount of tokens ("$0.79 per million tokens", "$0.05/M input", "$0.002 per 1K tokens"): read as per million.
_TOKENS_AFTER = re.compile(
    r"\s*(?:/\s*|\bper\s+)(?:1\s?|one\s+|a\s+)?(?P<scale>m|mtok|million|mil|k|thousand)\b\s*"
    r"(?:(?P<dir>input|output|prompt|completion)\s+)?(?P<tok>tokens?\b|toks?\b)?(?:\s*(?P<dir2>input|output|prompt|completion|in|out)\b)?",
    re.IGNORECASE,
)
_TOKEN_WORD = re.compile(r"\btokens?\b", re.IGNORECASE)
# "$0.40 in / $1.60 out": a model's prices in and out, per million tokens as every API prices them
_IN_THEN_OUT = re.compile(
    r"\s+(?:in|input)\b(?=\s*(?:/|,|;|\+|and|&)\s*(?:[$€£]\s?)?\d[\d.,]*\s*(?:[$€£]|usd|eur)?\s*(?:out|output)\b)", re.IGNORECASE
)
_OUT = re.compile(r"\s*(?:out|output)\b", re.IGNORECASE)
_DIRECTION_WORD = {"in": "input", "out": "output"}  # "$0.80/M in, $2.40/M out"
_DIRECTION_BEFORE = re.compile(r"\b(input|output|prompt|completion)\s*:?\s*$", re.IGNORECASE)
# Electricity in cents ("24 cents/kWh", "31c per kWh", "¢24/kWh"): read as dollars per kWh.
_CENTS_PER_KWH = re.compile(
    r"(?<![\w.,$])(?:¢\s?(?P<a>\d{1,3}(?:\.\d+)?)|(?P<b>\d{1,3}(?:\.\d+)?)\s?(?:cents?|ct|c|¢))\s?(?:/|per\s+|a\s+)\s?kwh\b",
    re.IGNORECASE,
)
# A price per amount of something that is not time ("$0.09/GB", "$6 per TB", "$0.01 per request").
_PER_AMOUNT_AFTER = re.compile(
    r"\s*(?:/\s*|\bper\s+)(?P<what>[kmgtp]i?b|bytes?|tokens?|requests?|calls?|images?|seats?|users?|queries|query)\b",
    re.IGNORECASE,
)
_SEAT_TIME = re.compile(r"\s*(?:/\s*|\bper\s+|\ban?\s+)(mo|months?|yr|years?)\b", re.IGNORECASE)
_CURRENCIES = {"€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP"}
_DOLLARS = frozenset({"$", "us$", "usd", "dollar", "dollars", "us dollar", "us dollars", "bucks", "buck"})


@dataclass(frozen=True)
class Money:
    """An amount of money as written (``stated``), with the time unit after it, if any."""

    start: int
    end: int  # end of the amount and its unit
    amount: float
    stated: str
    currency: str  # "USD" or the other currency written
    unit: str | None  # hour, month, ..., "mtok" (per million tokens); None: no unit follows
    qualifier: str | None  # "chip" in "per chip-hour", "V100-equivalent" in "per V100-equivalent hour", "output" in
    # "$0.79/M output", "GB" in "$0.09/GB" (a rate per amount with no time unit)


def find_money(text: str) -> list[Money]:
    """Amounts of money in ``text`` with their time unit (``$1.46/hr``, ``$3.22 per chip-hour``, ``2,000 USD a month``)."""
    return list(_money_in(text)) if len(text) <= _MEMO_CHARS else _read_money(text)


@lru_cache(maxsize=4096)
def _money_in(text: str) -> tuple[Money, ...]:
    return tuple(_read_money(text))


def _read_money(text: str) -> list[Money]:
    out: list[Money] = []
    for m in _MONEY.finditer(text):
        raw = m.group("num") or m.group("num2")
        currency_mark = (m.group("pre") or m.group("post") or "").strip().lower()
        currency = "USD" if currency_mark in _DOLLARS else _CURRENCIES.get(currency_mark, currency_mark.upper())
        # "$NaN/hr" and "$-5/hr" are read as written, so the reader can say why they are left out
        amount = math.nan if raw is None else float(raw.replace(",", "")) * (1000 if m.group("k") or m.group("k2") else 1)
        if m.group("neg"):
            amount = -amount
        unit_m = _UNIT_AFTER.match(text, m.end())
        unit = qual = None
        end = m.end()
        tokens = _TOKENS_AFTER.match(text, m.end())
        said = _DIRECTION_BEFORE.search(text, max(0, m.start() - 14), m.start()) if tokens else None  # "input $0.90/M"
        # "$0.90 per million tokens, 13B is $0.22/1M": a price per million after one per million tokens is another
        earlier = (
            tokens is not None
            and tokens.group("scale").lower() in ("m", "million", "mil")
            and _TOKEN_WORD.search(text, max(0, m.start() - 300), m.start()) is not None
        )
        if tokens and (
            tokens.group("tok")
            or tokens.group("dir")
            or tokens.group("dir2")
            or said
            or tokens.group("scale") == "mtok"
            or earlier
        ):
            direction = tokens.group("dir") or _DIRECTION_WORD.get((tokens.group("dir2") or "").lower(), tokens.group("dir2"))
            direction = direction or (said.group(1) if said else "")
            unit, qual, end = "mtok", direction.lower() or None, tokens.end()
            if tokens.group("scale").lower() in ("k", "thousand"):
                amount *= 1000  # per thousand tokens, as per million
        elif (pair := _IN_THEN_OUT.match(text, m.end()) or _out_after_in(text, m, out)) is not None:
            unit, qual, end = "mtok", "input" if pair.re is _IN_THEN_OUT else "output", pair.end()
        elif unit_m:
            word = (unit_m.group("word") or unit_m.group("unit")).lower()
            unit = "month" if word.startswith("month") else _UNIT_WORDS.get(word)  # "$35 month to month"
            qual = unit_m.group("qual")
            end = unit_m.end()
        elif (per := _PER_AMOUNT_AFTER.match(text, m.end())) is not None:
            qual, end = per.group("what"), per.end()  # no time unit: a rate per gigabyte, request, seat
            seat = _SEAT_TIME.match(text, end) if qual.lower().rstrip("s") in ("seat", "user") else None
            if seat is not None:  # "$20/user/mo", "$50 per seat a month": a plan's price for each seat
                unit, end = _UNIT_WORDS[seat.group(1).lower()], seat.end()
        out.append(Money(m.start(), end, amount, text[m.start() : end], currency, unit, qual))
    if "kwh" in text.lower():
        for m in _CENTS_PER_KWH.finditer(text):
            cents = float(m.group("a") or m.group("b"))
            out.append(Money(m.start(), m.end(), cents / 100, m.group(0), "USD", "kwh", None))
        out.sort(key=lambda money: money.start)
    return out


def _out_after_in(text: str, m: re.Match[str], read: list[Money]) -> re.Match[str] | None:
    """ "out" after the price ``m`` when the price just before it was read "in" ("$0.40 in / $1.60 out")."""
    if not read or read[-1].qualifier != "input" or m.start() - read[-1].end >= 12:
        return None
    return _OUT.match(text, m.end())


# --- relative speed --------------------------------------------------------------------------

_APPROX = r"(?:(?:about|around|roughly|approximately|nearly|almost|some|~|≈)\s?)?"
_WORD_TIMES = {"half": 0.5, "twice": 2.0, "double": 2.0, "thrice": 3.0}


def _reference(group: str) -> str:
    """The hardware a speed is measured against, in group ``group`` (vendor words outside it); its
    possessive only when its speed follows ("half a P100's speed"), not another of its figures
    ("2.5x the V100's bandwidth")."""
    return (
        rf"(?:(?:nvidia|tesla|google|cloud|amd|intel)\s+)*(?P<{group}>{_TPU}|{_RTX}|{_AMD}|{_CPU}|{_OTHER}|{_NVIDIA})"
        r"(?:s(?![\w'’]))?(?:(?=['’]s\s+(?:training\s+)?(?:speed|throughput|performance|compute))|(?![\w'’]|[.-][a-z0-9]))"
    )


_SPEED_RE = re.compile(
    rf"(?:equivalent\s+to|(?:is|are)\s+worth|the\s+(?:computation|compute|computing|training)\s+power\s+of|as\s+fast\s+as)"
    rf"\s+{_APPROX}(?P<n>\d+(?:\.\d+)?)\s?(?:x|×)?\s+{_reference('ref')}"
    # "3x a V100", "2x faster than an A100"; "8x A100" with no article is a count of devices, not a speed
    rf"|{_APPROX}(?P<n2>\d+(?:\.\d+)?)\s?(?:x|×|times)\s+"
    rf"(?:(?:faster\s+than|the\s+speed\s+of|as\s+fast\s+as)\s+(?:(?:the|a|an|one)\s+)?|(?:the|a|an|one)\s+){_reference('ref2')}"
    rf"|{_APPROX}(?P<word>half|twice|double|thrice)\s+(?:(?:the\s+speed\s+of|as\s+fast\s+as)\s+)?(?:the|a|an|one)\s+"
    rf"{_reference('ref3')}",
    re.IGNORECASE,
)


_SPEED_WORDS = ("equivalent", "worth", "power", "fast", "x", "times", "half", "twice", "double", "thrice")
_SPEED_HINT = re.compile(r"equivalent|worth|power\s+of|as\s+fast|\d\s?(?:x|×|times)\s|half|twice|double|thrice", re.IGNORECASE)


@dataclass(frozen=True)
class Speed:
    """A relative training speed stated in words: ``value`` × the ``ref`` (a V100, or another named
    hardware), the phrase at ``start:end``."""

    start: int
    end: int
    value: float
    ref_start: int  # where the reference hardware is named
    ref_end: int
    ref: str = "V100"  # the reference, as written ("V100", "A100", "P100")


def find_speeds(text: str) -> list[Speed]:
    """Speeds relative to another piece of hardware (``equivalent to 8 V100``, ``about 2.5× a V100``,
    ``about 2x an A100``, ``half a P100's speed``); a figure of one metric (``2.5x the V100's memory
    bandwidth``) is not a speed."""
    out: list[Speed] = []
    low = text.lower()
    if text.isascii() and not any(word in low for word in _SPEED_WORDS):
        return out  # every form of _SPEED_HINT holds one of these words: a quick no for most sentences
    if not _SPEED_HINT.search(text):  # what every form of _SPEED_RE needs: most sentences have none of it
        return out
    for m in _SPEED_RE.finditer(text):
        word = m.group("word")
        value = _WORD_TIMES[word.lower()] if word else float(m.group("n") or m.group("n2"))
        ref = next(g for g in ("ref", "ref2", "ref3") if m.group(g))
        if value > 0:
            out.append(Speed(m.start(), m.end(), value, m.start(ref), m.end(ref), m.group(ref)))
    return out


# "w/" is "with" ("i5-6500 w/ Eigen"), never watts
_WATTS = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d{1,4}(?:\.\d)?)\s?(?:(?P<k>kw|kilowatts?)|w(?!/)|watts?)\b", re.IGNORECASE)


def find_watts(text: str) -> list[tuple[int, int, float]]:
    """Power draws written in ``text`` (``350 W``, ``300 watts``, ``3.5kW``, ``1,050W``): (start, end, watts)."""
    found = ((m, float(m.group(1).replace(",", "")) * (1000 if m.group("k") else 1)) for m in _WATTS.finditer(text))
    return [(m.start(), m.end(), watts) for m, watts in found if watts > 0]


_TPU_VERSION = re.compile(r"(?<![\w.$/-])v(\d{1,2}[a-z]{0,2}(?:-\d{1,4})?)(?![\w]|[.-][a-z0-9])", re.IGNORECASE)


def find_tpu_versions(text: str, mentions: list[Mention]) -> list[Mention]:
    """TPU generations written without "TPU" ("v4", "v5e-8") where the context has said TPU, outside ``mentions``."""
    return [
        Mention(m.start(), m.end(), f"TPU v{m.group(1).lower()}", "tpu")
        for m in _TPU_VERSION.finditer(text)
        if not any(n.start <= m.start() < n.end for n in mentions)
    ]
