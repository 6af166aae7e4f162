"""The price facts of a sentence that are not rentals per hour: what is priced is named by the words around it.

:func:`read_fact` reads one amount of money of a sentence (:mod:`hwqa.prices.prose` finds them) as a fact when
it is one: electricity per kWh, an API's price per million tokens, a plan or service (per month, year or hour,
or once: a setup fee) whose clause names no hardware, a purchase (an amount with no time unit next to a
hardware name of its clause, unless the words around it say it is a total, a bill or a rental). The thing a
fact prices is named by the hardware of its clause, else the words written just before its price ("quarter
rack" in "quarter rack $425/mo"), else just after it ("API bill" in "~$85/mo API bill"), else the list item's own
name or the heading. :func:`read_power` reads every power draw with what it is of ("idles ~9W, ~28W under
load"), :func:`read_usage` volumes of tokens ("~40M output tokens a month"), and :func:`per_amount_problem` says
why a rate per GB is no price the calculator uses.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace

from .facts import MAX_PRICE_USD, Context, Found, each_after, is_calculation
from .itemnames import ITEM_NAME, PLANS_END, own_name, with_own
from .names import Mention, Money, find_date, find_hardware, find_providers
from .roles import as_thing, names_a_price, says_draw, thing_heading, watt_role
from .seats import per_seat
from .table import LeftOut, PriceFact

__all__ = ["clause_start", "make_fact", "per_amount_problem", "per_seat", "read_fact", "read_power", "read_usage"]

# The words of a price that is a plan or a service paid per period, not a rental of the hardware it mentions.
_PLAN_WORDS = re.compile(
    r"\b(?:plan|subscription|membership|tier|colocat\w*|colo|hosting|rack\s+space|storage|support\s+contract)\b", re.I
)
_PLAN_NAME = re.compile(r"((?:\d+(?:\.\d+)?\s?(?=[TGM]B\b))?(?:[A-Z][\w+.-]*\s+){1,3}(?:plan|subscription|membership|tier))\b")
# The words of a purchase: a price with no time unit is what the hardware cost to buy.
_BUY_WORDS = re.compile(
    r"\b(?:bought|buy(?:ing)?|paid|pay|purchas\w*|sells?\s+for|sold\s+for|second-?hand|refurb\w*|msrp|retail)\b"
    r"|\b(?:used|new)\s+(?:(?:nvidia|geforce|amd)\s+)?(?:[a-z]{1,4}\s?-?\d|card|gpu)",  # "my used RTX 3090": the adjective
    re.I,
)
_MACHINE_WITH = re.compile(
    r"\b(?:workstation|box|rig|pc|computer|server|machine|laptop|desktop|build|system|node)\s+with\s+"
    r"(?:(?:an?|one|two|three|four|eight|\d{1,2})\s*(?:x\s*)?)?(?:nvidia\s+|geforce\s+)*$",
    re.I,
)
# The capitalised words right before a price in its clause, with at most a verb or a colon between them ("Pro $8/mo").
_NAME_BEFORE = re.compile(r"(?<![\w.-])([A-Z][\w+.-]*(?: [A-Z][\w+.-]*){0,2})\s*(?:is|at|for|costs?|:|=)?\s*~?$")
# The same plan's other price right after one: "$14.99/mo or $149.99/yr", "$24/mo, $35 month to month".
_OR_BEFORE = re.compile(r"(?:mo|month|yr|year|monthly|yearly|annually)\.?\)?\s*(?:,\s*)?(?:or|,)\s*(?:~|about\s+)?$", re.I)
# A rate per amount (of data, tokens, requests, seats), not per plan or per hour.
_PER_AMOUNT = re.compile(r"(?:[kmgtp]i?b|bytes?|tokens?|requests?|calls?|users?|seats?|images?|quer(?:y|ies))", re.I)
# What says an amount next to a hardware name is not what it cost to buy: a total, a rental, a bill, a difference.
_NOT_BOUGHT = re.compile(
    r"\b(?:totals?|all\s+told|altogether|in\s+all|came\s+to|comes?\s+to|spent|spend\w*|rent\w*|rental|hire\w*|bills?|"
    r"billed|run|job|jobs|credits?|sav(?:e|es|ed|ing)|cheaper|dearer|more\s+expensive|difference|budget\w*|"
    r"electricity|upgrade\s+cost|shipping|tax|deposit|refund\w*|fees?)\b",
    re.I,
)
# "$230 incl shipping", "$1,100 with tax": the price paid, everything included (never a fee of its own).
_INCLUDED = re.compile(
    r"\b(?:incl\w*\.?|including|inc\.?|with|w/|plus|after|\+)\s*(?:the\s+)?(?:shipping|tax|fees?|vat|postage|delivery)\b", re.I
)
# A one-off charge of a service: a setup fee, an installation.
_FEE = re.compile(r"\b(?:set-?up|one-?time|one-?off|install\w*|activation|sign-?up\s+fee|joining\s+fee)\b", re.I)
# Words of a machine rented by the hour (an hourly price naming none of its hardware is left out, not a service).
_COMPUTE = re.compile(
    r"\b(?:gpus?|cards?|box|boxes|instances?|machines?|nodes?|vms?|servers?|notebooks?|pods?|rigs?|cpus?|tpus?|cores?)\b", re.I
)
# The words between a thing's name and its price ("quarter rack is ~$425/mo", "N100 box cost $159", "Pro: $9/month").
_CONNECT_END = re.compile(
    r"(?:\s*(?:[:=~≈–—-]|\b(?:is|are|was|were|costs?|cost\s+me|runs?|goes\s+for|go\s+for|went\s+for|for|at|about|sells?|sold|"
    r"retails?|lists?|listed|priced|"
    r"around|roughly|approx\.?|approximately|only|just|from|starts?\s+at|listed\s+at|now|currently|new|used)\b)\s*)+$",
    re.I,
)
_LEAD_NOISE = re.compile(r"^(?:(?:and|plus|or|then|but|also|with|the|a|an|my|our|their|its|his|her)\s+)+", re.I)
_TIME_AFTER_NAME = re.compile(r"\s+(?:(?:last|this|next|per|a|each)\s+(?:month|year|week)|these\s+days|right\s+now|today)$", re.I)
_NAME_AFTER = re.compile(r"\s*([A-Za-z][\w+&.-]*(?:\s+[A-Za-z][\w+&.-]*){0,2})")
_ON_NAME = re.compile(r"\s+(?:on|for)\s+(?:(?:the|a|an|my|our)\s+)?((?:[A-Z][\w+&.-]*)(?:\s+[A-Z0-9][\w+&.-]*){0,3})")
_GOT_ONE = re.compile(r"\b(?:got|bought|grabbed|ordered|picked|snagged|found)\s+(?:one\b(?!\s+of\b)|it\b)", re.I)
_ONE = re.compile(
    r"\b(?:a|an|another|the)\s+(?:(?P<adj>used|new|refurb\w*|second[\s-]?hand|spare|broken)\s+)?one\b(?!\s+of\b)[^,;]{0,30}$",
    re.I,
)
# what ends the words naming a thing, looking back from its price (never the comma of "3,000")
_NAME_BREAK = re.compile(r"(?<!\d),|,(?!\d{3}\b)|[;(]|\s[-–—]\s|→|->")
_PURPOSE = re.compile(r"\s(?:for|with|from|on|in|at|via|off)\s", re.I)
_COPULA = re.compile(r"\s(?:is|are|was|were)\s+(?:(?:a|an|the)\s+)?", re.I)
_NAME_STOP = frozenset(
    "on in at if when with per for after to from and or but too also ignoring plus each the a an is was so via "
    "which that it this up down off out of by as than".split()
)
_NOT_NAMES = frozenset(
    "it that this which they these those one each total whole thing price cost also too then and plus or with but".split()
)
# The words of a recurring charge written after its price ("$140/mo bill", "$85/mo API bill"): not a rental of a card.
_BILL_END = re.compile(r"\b(?:bill|subscription|fees?|invoice|charge|contract|spend)$", re.I)
_TOTAL = re.compile(r"totals?|in\s+all|altogether|all\s+told", re.I)  # "2x A4000 for $900 total": the price of both
_PRONOUN_START = frozenset("it this that which they we i you he she there".split())
_MACHINE = re.compile(r"\b(?:workstation|box|rig|pc|computer|server|machine|laptop|desktop|build|system|node)\b", re.I)
_MACHINE_AFTER = re.compile(r"s?\s+(?:workstation|box|rig|pc|computer|server|machine|build|system|node)\b", re.I)
_PER_THING = re.compile(r"\s*(?:per|/)\s*(?!card\b|unit\b|piece\b)\w", re.I)
_QUANTITY = r"[kmgt]i?b|w|kwh|(?:m|k)?g|kgs?|lbs?|oz|[cm]?m|in(?:ch(?:es)?)?|ft|v|mah|hz|fps|mp"  # "100 GB", "600 g": no count
_COUNT_START = re.compile(rf"^(?P<n>\d{{1,3}}|one|two|three|four|five|six|eight|ten|twelve)\s+(?=\S)(?!(?:{_QUANTITY})\b)", re.I)
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10, "twelve": 12}
_DIRECTION_END = re.compile(r"(?:^|\s+)(input|output|prompt|completion)(?:\s+tokens?)?$", re.I)
#: What a power draw is of, when a subject has several ("idles ~9W, ~28W under load"), as said in its answer.
_DRAW_KINDS = (
    ("after undervolt", re.compile(r"undervolt\w*|power[\s-]?limit\w*|capped", re.I)),
    ("idle", re.compile(r"\bidl\w*", re.I)),
    ("stock", re.compile(r"\bstock\b", re.I)),
    (
        "under load",
        re.compile(r"\b(?:load|full\s+tilt|max\w*|peak|training|generating|inference|stress\w*|gaming|flat\s+out|busy)\b", re.I),
    ),
)
_DRAW_VERB = re.compile(
    r"(?:^|\s+)(?:idles?|idling|pulls?|draws?|uses?|consumes?|sips?|burns?|is|was|runs?\s+at|at|sits?|hovers?|"
    r"max(?:es)?\s+out|tops?\s+out|peaks?|averages?)\b|\s*[:,(]"
    r"|\s[-–—]\s",
    re.I,
)
_NOUN_NEXT = re.compile(r"\s+(?!(?:at|around|about|is|was|of|for|in|on|near|~)\b)[A-Za-z]", re.I)
_EACH = re.compile(r"\s*(?:each|apiece|per\s+(?:card|gpu|drive|unit|piece))\b", re.I)
_DRAW_LEAD = re.compile(r"^(?:(?:total\s+)?(?:power\s+)?(?:draw|consumption|usage)\s+(?:of|for)\s+)", re.I)
_USAGE = re.compile(
    r"(?<![\w.$€£])~?(?P<n>\d+(?:\.\d+)?)\s?(?P<scale>k|m|b|million|billion|thousand)?\s+"
    r"(?:(?P<what>[a-z][\w.-]*(?:\s+[a-z][\w.-]*)?)\s+)?"
    r"(?:tokens?\b|(?P<dir2>input|output|prompt|completion)\b(?=[^.;]{0,40}?\btokens?\b))",
    re.I,
)
_USAGE_PERIOD = re.compile(r"(?:\b(?:a|per|each|every)\s+(?P<unit>month|day|week)\b|\b(?P<word>monthly|daily|weekly)\b)", re.I)
_DIRECTIONS = frozenset({"input", "output", "prompt", "completion"})
_USAGE_SCALE = {"": 1e-6, "k": 1e-3, "thousand": 1e-3, "m": 1.0, "million": 1.0, "b": 1e3, "billion": 1e3}


def per_amount_problem(item: Money) -> str | None:
    """Why ``item`` is a rate per amount the calculator cannot use ("$0.09/GB", "$6/TB-month"), or None."""
    if item.unit == "mtok" or not item.qualifier or not _PER_AMOUNT.fullmatch(item.qualifier) or per_seat(item):
        return None
    per = f"{item.qualifier}-{item.unit}" if item.unit else item.qualifier
    return f"{item.stated} is a rate per {per} (of data, requests or seats): the calculator has no amount of it to apply it to"


def clause_start(clause_of: Sequence[int], at: int, reach: int = 120) -> int:
    """Where the clause of ``at`` starts, looking back at most ``reach`` characters (so reading stays linear)."""
    clause = clause_of[at]
    start, lowest = at, max(0, at - reach)
    while start > lowest and clause_of[start - 1] == clause:
        start -= 1
    return start


def _name_before(sentence: str, clause_of: Sequence[int], item: Money, floor: int) -> str:
    """The words naming what ``item`` prices, written just before it in its clause ("quarter rack" in "quarter rack
    $425/mo", "N100 box" in "N100 box cost $159", "Llama 3 70B" in "Llama 3 70B - $0.59/M input"); '' when none."""
    start = max(floor, clause_start(clause_of, item.start), item.start - 120)
    text = sentence[start : item.start]
    if not _CONNECT_END.sub("", text).strip() and start > floor and sentence[:start].rstrip().endswith(")"):
        opens = sentence.rfind("(", floor, start)  # "DigitalOcean droplet (4GB) $24/month": the name and its aside
        if opens > floor:
            text = re.sub(r"\s*\([^()]*\)\s*", " ", sentence[max(floor, clause_start(clause_of, opens - 1)) : item.start])
    for _ in range(3):
        cut = _CONNECT_END.sub("", text)
        pieces = _NAME_BREAK.split(cut)
        cut = pieces[-1] if pieces[-1].strip() or len(pieces) < 2 else pieces[-2]  # "Titan RTX, $610", "PSU 850W, $95"
        if cut == text:
            break  # nothing more to cut: another round would cut nothing either
        text = cut
    text = _TIME_AFTER_NAME.sub("", _LEAD_NOISE.sub("", text.strip()))
    name = _a_name(text)
    purpose = None if name else _PURPOSE.search(text)  # "Samsung 990 Pro 2TB NVMe for scratch": the drive
    return _a_name(text[: purpose.start()]) if purpose else name


def _name_after(sentence: str, item: Money) -> str:
    """The words naming what ``item`` prices, written just after it ("API bill" in "~$85/mo API bill")."""
    named = _ON_NAME.match(sentence, item.end)  # "Paid $20/mo for Colab Pro", "$20/mo on ChatGPT Plus"
    if named:
        return _a_name(named.group(1))
    found = _NAME_AFTER.match(sentence, item.end)
    if not found:
        return ""
    words: list[str] = []
    for word in found.group(1).split():
        if word.lower() in _NAME_STOP:
            break
        words.append(word)
    return _a_name(" ".join(words))


def _a_name(text: str) -> str:
    """``text`` when it can name a thing: one to six words, not a pronoun or a sum ("it costs 0.5 x 0.15"); else ''."""
    words = text.split()
    if not words or len(words) > 6 or not re.search(r"[A-Za-z]", text) or all(w.lower() in _NOT_NAMES for w in words):
        return ""
    if words[0].lower() in _PRONOUN_START or re.search(r"\d\s+[x×*/=+]\s+\d|\d\s*[×*/=+]\s*\d", text):
        return ""
    text = text.strip(" -–—:~*.,;")
    copula = _COPULA.search(text)  # "The PSU is a 1000W Corsair RM1000x": the thing it is
    if copula:
        text = as_thing(text[copula.end() :]) or text[: copula.start()]
    return as_thing(text)  # never a verb or filler ("Paid", "more like", "AppleCare+ adds")


def _heading(ctx: Context) -> str:
    """The section heading, when it names a thing ("Colab", "My rig"), not a topic ("Power", "The math")."""
    return ctx.section if thing_heading(ctx.section) else ""


def read_fact(
    item: Money,
    sentence: str,
    priced: Sequence[Mention],
    clause_of: Sequence[int],
    subject: Mention | None,
    line: int,
    kind: str,
    ctx: Context,
    facts: Sequence[PriceFact],
    floor: int,
) -> PriceFact | str | None:
    """``item`` as a price fact that is not a rental per hour: electricity (per kWh), an API's price per million
    tokens, a plan or service paid per month or year (or per hour, or once as a setup fee) that names no hardware,
    a purchase (no time unit, next to the hardware it is of, unless its clause says it is a total, a bill or a
    rental); None when it is none of these (it is read as a rental, or left out); a reason when it is to be left out
    (a price per month whose clause names nothing it could be of)."""
    if item.unit == "kwh":
        return make_fact(ctx, "electricity", "electricity", item, line, sentence)
    paired = item.unit == "mtok" and item.qualifier in ("input", "output")  # "$0.40 in / $1.60 out": no division
    if not paired and is_calculation(sentence[: item.start], sentence[item.end :]):
        return None  # "2 × $700 = $1,400", "0.5 x 0.15 = $0.075 per hour": a sum worked out, not a price stated
    if item.unit not in (None, "mtok", "month", "year") and (priced or subject is not None or item.unit != "hour"):
        return None  # a rental of the hardware named (most prices): read as a row
    own = own_name(sentence, kind)
    before = _name_before(sentence, clause_of, item, floor)
    if item.unit == "mtok":  # "Llama 3 70B output $0.79 per million tokens", "$0.05/M input"
        name = before or _name_after(sentence, item)
        direction = (item.qualifier or "").lower()
        said = _DIRECTION_END.search(name)
        if said:
            name, direction = name[: said.start()].strip(" :-–—~*"), direction or said.group(1).lower()
        if not name:  # "$0.59/M input, $0.79/M output": the second is the same model's
            earlier = [f for f in facts if f.kind == "tokens" and f.evidence == sentence and f.line == line]
            name = earlier[-1].subject if earlier else (own or _heading(ctx))
        return make_fact(ctx, name, "tokens", item, line, sentence, detail=direction) if name else None
    if item.unit in ("month", "year"):
        if item.qualifier and _PER_AMOUNT.fullmatch(item.qualifier) and not per_seat(item):
            return None  # "$0.023/GB-mo": a rate per gigabyte stored, not the price of a plan
        earlier = [f for f in facts if f.kind == "plan" and f.evidence == sentence and f.line == line]
        if earlier and _OR_BEFORE.search(sentence, max(0, item.start - 16), item.start):
            return make_fact(ctx, earlier[-1].subject, "plan", item, line, sentence)  # "$14.99/mo or $149.99/yr"
        named = _PLAN_WORDS.search(sentence)
        name = own
        clause = clause_of[item.start]
        start = next(i for i in range(item.start + 1) if clause_of[i] == clause)
        right_before = _NAME_BEFORE.search(sentence, max(start, item.start - 60), item.start)  # "Pro $8/mo": the plan's own name
        if right_before and not as_thing(right_before.group(1)):
            right_before = None  # "Paid $20/mo", "Seen $9/mo": a verb, not a name
        if named:
            called = _PLAN_NAME.search(sentence)
            plan = as_thing(called.group(1)) if called and called.group(1) else ""
            plan = plan or named.group(0).lower()  # "Paid plan": the plan
            if not called and before and not find_hardware(before) and named.group(0).lower() in before.lower():
                plan = before  # "Cloudflare Workers paid plan $5 per month": the words before the price name it
            if right_before and not find_hardware(right_before.group(1)) and not called:
                return make_fact(ctx, right_before.group(1), "plan", item, line, sentence)
            plan = re.sub(r"^(?:the|a|an|my|our)\s+", "", plan.strip(), flags=re.I)
            if name and name.lower() not in plan.lower():
                plan = f"{name} {plan}"
            return make_fact(ctx, plan, "plan", item, line, sentence)
        own_m = ITEM_NAME.match(sentence) if kind == "list item" else None
        # "Colab Pro - $9.99/mo, usually a T4": a named offering whose cards come after its price is a plan
        if name and own_m and own_m.end() <= item.start and all(m.start > item.end for m in priced):
            if right_before and not find_hardware(right_before.group(1)) and right_before.start() >= own_m.end():
                # "Gradient plans: Pro $8/mo, Growth $39/mo": each price's own name, with the item's ("ElevenLabs Creator")
                name = with_own(right_before.group(1), PLANS_END.sub("", name))
            return make_fact(ctx, name, "plan", item, line, sentence)
        if not priced and subject is None:  # "quarter rack $425/mo", "~$85/mo API bill": a service naming no hardware
            previous = [f.subject for f in facts if f.kind == "plan" and f.evidence == sentence and f.line == line]
            plan = before or _name_after(sentence, item) or (previous[-1] if previous else "") or own or _heading(ctx)
            return make_fact(ctx, with_own(plan, own), "plan", item, line, sentence) if plan else None
        after = _name_after(sentence, item)
        if _BILL_END.search(after) and not find_hardware(after):  # "a used 3090 for $700 would replace the $140/mo bill"
            return make_fact(ctx, after, "plan", item, line, sentence)
        if not any(clause_of[m.start] == clause for m in priced):  # "4090 $1,750 vs ~$85/mo API bill": its own name
            plan = before or _name_after(sentence, item)
            if plan and not find_hardware(plan):
                return make_fact(ctx, with_own(plan, own), "plan", item, line, sentence)
            words = _CONNECT_END.sub("", sentence[clause_start(clause_of, item.start) : item.start])
            if subject is None and re.search(r"[A-Za-z]{2}", words):  # "the 3090 box would need ~7A, so more like $250/mo"
                return f"{item.stated}: its clause names neither hardware nor the thing it is the price of"
        return None
    if item.unit == "hour":
        # "remote hands $95/hr": a service by the hour, when nothing in it is a machine that could be rented
        if not priced and subject is None and before and not _COMPUTE.search(sentence) and item.currency == "USD":
            return make_fact(ctx, with_own(before, own), "plan", item, line, sentence)
        return None
    if item.unit is not None or not math.isfinite(item.amount) or not 0 < item.amount <= MAX_PRICE_USD:
        return None
    earlier = [f for f in facts if f.kind == "tokens" and f.evidence == sentence and f.line == line]
    said = _DIRECTION_END.search(before)
    if earlier and said and said.start() == 0:  # "output $0.88 per million tokens, input $0.88 too": the same model's
        priced_too = replace(item, unit="mtok")
        return make_fact(ctx, earlier[-1].subject, "tokens", priced_too, line, sentence, detail=said.group(1).lower())
    if _PER_THING.match(sentence, item.end):
        return None  # "$4.10 per GPU"
    after = _name_after(sentence, item)
    if _FEE.search(before) or _FEE.search(after):  # "one-time setup $199", "plus €79 setup", "Cross connect $250 one-time"
        return make_fact(ctx, with_own(before or after, own), "plan", item, line, sentence)
    clause = clause_of[item.start]
    start = clause_start(clause_of, item.start)
    end = item.end
    while end < min(len(sentence), item.end + 25) and clause_of[end] == clause:
        end += 1
    buying = _BUY_WORDS.search(sentence) is not None
    same = [m for m in priced if clause_of[m.start] == clause]
    # the nearest name of its clause, before it ("Sold the 1080 Ti for $190 and the 2070 Super for $260"), else after it
    ahead = [m for m in same if m.end <= item.start]
    what = ahead[-1] if ahead else (same[0] if same else None)
    mine = own or (ctx.item_name if kind == "list item" else "")  # "Got it used for £640" on the line below it too
    if not ahead and mine and _GOT_ONE.search(sentence, start, item.start):
        # "Dell Precision 7820 Tower - got one off eBay for $420, dual Xeon Silver 4114": the item's own (not its parts)
        return _purchase(ctx, mine, 1, item, line, sentence)
    if what is None and subject is not None and (buying or len(sentence[start : item.start].split()) <= 3):
        what = subject  # "* $700 used" under "## RTX 3090"
    spent = _NOT_BOUGHT.search(_INCLUDED.sub(" ", sentence[max(start, item.start - 40) : end]))
    if spent and spent.group(0).lower().startswith("spen") and what is not None and what.start > item.end:
        spent = None  # "Spent $1,150 on a Threadripper 3960X": what that thing cost
    if spent and not (what is not None and what.count > 1 and _TOTAL.fullmatch(spent.group(0))):
        return None  # "whole thing came to $60", "$300 total": what was spent, not what a thing costs to buy
    if what is not None:
        name, count = what.name, what.count
        if what in priced:  # "a workstation with an RTX 3090 ... $3,000": the machine is what was priced, not the card
            machine = _MACHINE_WITH.search(sentence, max(0, what.start - 60), what.start)
            name, count = (sentence[machine.start() : what.end], 1) if machine else (name, count)
            box = None if machine else _MACHINE.search(sentence, start, what.start)
            boxed = None if machine or box else _MACHINE_AFTER.match(sentence, what.end)
            if box is not None:  # "a workstation with a 24 GB GPU, such as an RTX 3090, costs $3,000"
                name, count = f"{box.group(0)} with an {what.name}", 1
            elif boxed is not None:  # "My 3090 box cost $2,100": the box, not the card
                name, count = sentence[what.start : boxed.end()], 1
        return _purchase(ctx, name, count, item, line, sentence)
    if not priced and subject is None and before and (kind == "list item" or buying):
        counted = _COUNT_START.match(before)  # "four 8TB drives at $140 each"
        count = 1
        if counted:
            token = counted.group("n").lower()
            count, before = (int(token) if token.isdigit() else _COUNTS[token]), before[counted.end() :]
        if _a_name(before) and (own or not names_a_price(before)):  # "list price was ~$7k": of what?
            return _purchase(ctx, with_own(before, own), count, item, line, sentence)
    item_own = ctx.item_name if kind == "list item" and not priced and subject is None and not own else ""
    if item_own:  # a later sentence of a list item whose own name came first: "list price was ~$7k", "saw a used one for $1,850"
        raw = sentence[max(floor, clause_start(clause_of, item.start)) : item.start]
        one = _ONE.search(raw)
        if one or (before and names_a_price(before)):
            kind_of = (one.group("adj") or "") if one else before
            return _purchase(ctx, f"{item_own} {kind_of}".strip(), 1, item, line, sentence)
    return None


def _purchase(ctx: Context, name: str, count: int, item: Money, line: int, sentence: str) -> PriceFact:
    """What one of ``name`` cost: ``item`` ("$95 each"), or its share when the price is for ``count`` of them."""
    if count > 1 and not each_after(sentence[item.end :]):
        share = replace(item, amount=item.amount / count)
        return make_fact(ctx, name, "purchase", share, line, sentence, detail=f"of {item.stated} for {count}")
    return make_fact(ctx, name, "purchase", item, line, sentence)


def make_fact(
    ctx: Context,
    subject: str,
    kind: str,
    item: Money,
    line: int,
    sentence: str,
    *,
    provider: str | None = None,
    detail: str = "",
) -> PriceFact:
    providers = find_providers(sentence)
    if provider is None:
        provider = providers[0][2] if providers else (ctx.provider() if kind == "plan" else "")
    return PriceFact(
        subject=subject,
        kind=kind,
        amount=item.amount,
        currency=item.currency if item.currency in ("USD", "W", "Mtok") else item.currency.upper(),
        unit=item.unit or "once",
        provider=provider,
        as_of=find_date(sentence) or ctx.doc.as_of,
        note=ctx.doc.source,
        note_title=ctx.doc.title,
        line=line,
        evidence=sentence,
        stated=item.stated,
        section=ctx.section,
        url=ctx.doc.url,
        detail=detail,
    )


def read_power(
    sentence: str,
    watts: Sequence[tuple[int, int, float]],
    mentions: Sequence[Mention],
    money: Sequence[Money],
    line: int,
    kind: str,
    ctx: Context,
    found: Found,
) -> None:
    """Power draws ("pulls about 350 W", "idles ~9W, ~28W under load") of the one hardware the sentence names, else
    of its list's lead-in or heading, else of the thing the sentence opens with ("The mini pc idles ~9W"), each with
    what it is a draw of (idle, under load, after undervolt); ratings ("a 1000W PSU") are not draws."""
    names = {m.name.lower() for m in mentions}
    if len(names) > 1:
        return
    found_subject = ctx.subject(kind)
    opened, elided = _draw_subject(sentence, watts, money)
    # what the sentence opens with, else (its subject left out or a pronoun: "Idles at 11W") the thing the draw before
    # it in this section was of, else a heading that names a thing ("My rig", never "Power")
    title = ctx.doc.title if thing_heading(ctx.doc.title) else ""
    otherwise = found_subject.name if found_subject else opened or (ctx.draw_subject if elided else "") or _heading(ctx) or title
    starts, ends = [m.start for m in money], sorted(m.end for m in money)
    subject_set = False
    for i, (start, end, value) in enumerate(watts):
        if watt_role(sentence, start, end):  # a TDP, a PSU's capacity, a power limit: not a draw
            continue
        before_money = bisect_right(ends, start)  # money is in order: the amounts either side of this figure
        after_money = bisect_left(starts, end)
        left = max(0, watts[i - 1][1] if i else 0, ends[before_money - 1] if before_money else 0)
        right = min(
            len(sentence), watts[i + 1][0] if i + 1 < len(watts) else len(sentence), *starts[after_money : after_money + 1]
        )
        around = sentence[left:right]
        at = start - left
        pieces = [(p.start(), p.end()) for p in re.finditer(r"[,;]|\s(?:and|or|but|vs\.?)\s", around)]
        cut_before = max((b for _, b in pieces if b <= at), default=0)
        cut_after = min((a for a, _ in pieces if a >= at), default=len(around))
        window = around[cut_before:cut_after]  # "~230W while generating and ~65W idle": each figure's own words
        # The hardware the sentence names, when it comes before this figure or in its own words; a name only after
        # it is another thing's ("it pulls ~140W vs ~780W for my 3090 box": the 140 W is not the 3090's).
        if watt_role(sentence, start, end, window):  # "~6.5kW peak (per spec sheet)"
            continue
        named = next((m.name for m in mentions if m.start < left + cut_after), "")
        what = named or otherwise
        stated = sentence[start:end]
        if not says_draw(window):  # "4090 stock is 450W", "quote was $14k for 6kW": a figure no word calls a draw
            continue
        if not what or (not named and not found_subject and _EACH.match(sentence, end)):
            # "with both cards at 20W each" under "## My rig": a draw of things the sentence does not name
            found.left_out.append(LeftOut(ctx.where(line), sentence, f"{stated}: no thing named that it is the draw of"))
            continue
        if i == 0 or not subject_set:  # the sentence's subject: what its first draw is of
            ctx.draw_subject, subject_set = what, True
        detail = ", ".join(label for label, pattern in _DRAW_KINDS if pattern.search(window))
        found.facts.append(
            make_fact(ctx, what, "power", Money(start, end, value, stated, "W", "watt", None), line, sentence, detail=detail)
        )


def _draw_subject(sentence: str, watts: Sequence[tuple[int, int, float]], money: Sequence[Money]) -> tuple[str, bool]:
    """The thing a sentence naming no hardware gives the draw of: the words it opens with, up to its verb or its
    first figure ("mini pc" in "The mini pc idles ~9W", "whole box" in "Power draw of the whole box is 750W",
    "Idle server" in "Idle server (NAS + small box) ~60W"); and whether its subject is left out or a pronoun
    ("Idles at 11W", "Running a 70B model it pulls ~140W")."""
    first = min([watts[0][0], *(m.start for m in money)])
    text = _DRAW_LEAD.sub("", _LEAD_NOISE.sub("", sentence[:first].strip()))
    verb = _DRAW_VERB.search(text)
    if verb and verb.start() == 0 and _NOUN_NEXT.match(text, verb.end()):  # "Idle server ...": an adjective
        verb = _DRAW_VERB.search(text, verb.end())
    text = _LEAD_NOISE.sub("", (text[: verb.start()] if verb else text).strip())
    words = text.lower().split()
    return _a_name(text), not words or words[-1] in _PRONOUN_START


def read_usage(sentence: str, line: int, ctx: Context, found: Found) -> None:
    """Volumes of tokens used per month, week or day ("~40M output tokens a month", "Monthly usage: ~300M embedding
    tokens"), in millions of tokens; the period is written after the volume, else before it in the sentence."""
    periods = list(_USAGE_PERIOD.finditer(sentence)) if "token" in sentence.lower() else []
    period_starts = [p.start() for p in periods]
    for m in _USAGE.finditer(sentence) if periods else ():
        at = bisect_left(period_starts, m.end())
        later = [p for p in periods[at : at + 1] if m.end() <= p.start() <= m.end() + 60]
        period = later[0] if later else (periods[0] if periods[0].end() <= m.start() else None)
        if period is None or re.search(r"[.;]", sentence[m.end() : period.start()] if period.start() > m.end() else ""):
            continue
        scale = _USAGE_SCALE[(m.group("scale") or "").lower()]
        unit = (
            period.group("unit") or {"monthly": "month", "daily": "day", "weekly": "week"}[period.group("word").lower()]
        ).lower()
        what = (m.group("what") or m.group("dir2") or "").lower().split()
        direction = what[-1] if what and what[-1] in _DIRECTIONS else ""
        amount = float(m.group("n")) * scale
        item = Money(m.start(), m.end(), amount, m.group(0).strip(), "Mtok", unit, direction or None)
        found.facts.append(
            make_fact(ctx, " ".join([*what, "tokens"]), "usage", item, line, sentence, provider="", detail=direction)
        )
