"""What a line says a number is, and whether words name a thing.

A price reader must know an amount that is not the price of a thing when it sees one: a total or a bill
("came to $76 total", "the bill was $214"), money that came back or in (a refund, credits, a payout, what the
owner sold a card for, what it may sell for later), a limit, budget, alert or target ("hard limit set to $120/mo",
"if they drop under $1,500"), a difference ("about $1k more than the US price") or a figure worked out from others
("that's ~$13/mo").
:func:`money_role` says which, from the words of the amount's own clause. A wattage is a draw only when the
words say so: :func:`watt_role` says when it is a rating (a TDP, a PSU's or UPS's capacity, a power limit or cap,
"a 1600W Corsair"), :func:`says_draw` when its words are those of a draw ("pulls", "idles", "under load").

:func:`is_thing` says whether words can name what a price is of: never a verb, a preposition or filler ("Paid",
"got", "seen", "well", "net", "more like", "AppleCare+ adds", "2024: took Section 179", "a used one"),
:func:`names_a_price` whether they name a kind of price ("list price") rather than a thing; :func:`thing_heading`
whether a section heading names a thing ("My rig", "Colab") rather than a topic ("Power", "The math", "Spend").
"""

from __future__ import annotations

import re

__all__ = ["as_thing", "is_thing", "money_role", "names_a_price", "says_draw", "thing_heading", "watt_role"]

_W = r"(?:\s+[\"“(]?[\w+.&'-]+[,\"”)]?)"  # a space and one word (in quotes or brackets, or before a comma)
_LETTER = re.compile(r"[A-Za-z]")
_LOWER = re.compile(r"[a-z]")

# Words before an amount, in its clause (and not across another amount), that say what it is.
_ROLE_BEFORE: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a limit, budget, alert or target, not a price",
        re.compile(
            r"\b(?:limit\w*|cap(?:ped)?|(?-i:max)(?:imum)?|budget\w*|alerts?|alarm|target\w*|threshold|set\s+to|"
            r"waiting\s+for|hoping\s+for|holding\s+out\s+for|wait\s+for|watch\w*\s+for|notify\w*|"
            r"no\s+more\s+than|at\s+most|if\s+(?:it|they|prices?|one|ones|that)\b[^$€£.;]{0,30}|"
            r"(?:when|once|until|till)\s+(?:it|they|prices?|one|ones|that)\s+(?:\w+\s+){0,2}?"
            r"(?:drops?|falls?|gets?|goes|hits?|reach(?:es)?|comes?\s+down|dips?)\b[^$€£.;]{0,20}|"
            r"willing\s+to\s+pay|would\s+pay|i'?d\s+pay|worth\s+it\s+at|sub-?|"
            r"budget\w*\s+(?:for|on)\s+(?:[\w-]+\s+){0,3}?(?:is|was|of|at|=|:)\s*|"
            r"(?:want|wants|wanted|hoping|hope|looking|wait\w*|holding\s+out|target\w*|goal|aim\w*|budget\w*|alert\w*)\b"
            r"[^$€£.;]{0,40}\b(?:under|below|sub|for\s+less\s+than|at\s+most))"
            r"\s*(?:of\s+|is\s+|at\s+|to\s+|for\s+|set\s+|price\s+|up\s+to\s+|:\s*|~|≈|about\s+|around\s+)*$",
            re.I,
        ),
    ),
    (
        "money that came back or in (a refund, credit, payout or rebate), not a price",
        re.compile(
            r"\b(?:refund\w*|reimburs\w*|rebate\w*|cash\s?back|credit(?:s|ed)?|payouts?|paid\s+out|earned|earnings|"
            r"income|netted|net|got\s+back|back\s+from|gave\s+me|paid\s+me|compensat\w*|voucher|coupon|grant)\b"
            rf"{_W}{{0,8}}?(?:\s|was|were|is|of|for|came\s+to|totall?ed|about|around|~|:|≈)*$",
            re.I,
        ),
    ),
    (
        "money that came back or in (a refund, credit, payout or rebate), not a price",
        # "a channel making ~$31/mo from AdSense", "earns $40/mo": money earned
        re.compile(
            r"\b(?:made|making|makes|earns?|earning|revenue|brings?\s+in|bringing\s+in)\s*(?:about\s+|around\s+|~|≈)*$", re.I
        ),
    ),
    (
        "a total or a bill, not the price of one thing",
        re.compile(
            r"\b(?:totals?|totall?ed|in\s+all|altogether|all\s+told|sum|came\s+to|comes?\s+to|adds?\s+up\s+to|"
            r"spent|spend\w*|bills?|invoice\w*|charged\s+(?:me|us)|whole\s+thing|overall)\b"
            rf"{_W}{{0,4}}?(?:\s|was|were|is|of|came\s+to|about|around|roughly|~|:|≈)*$",
            re.I,
        ),
    ),
    (
        "a running cost (electricity), not the price of a thing",
        re.compile(
            r"\b(?:electricity|electric\s+bill|power\s+(?:bill|cost)|energy\s+(?:bill|cost))\b"
            rf"{_W}{{0,5}}?(?:\s|costs?|runs?|is|was|comes?\s+to|about|around|roughly|~|:|≈)*$",
            re.I,
        ),
    ),
    (
        "a figure worked out from other figures, not a price stated",
        re.compile(r"\b(?:that[’']?s|that\s+is|works?\s+out|worked\s+out|adds?\s+up)\b[^$€£]{0,25}$", re.I),
    ),
    (
        "a figure worked out from other figures, not a price stated",  # "At 3,000 hr/yr renting on Lambda is ~$9,600/yr"
        re.compile(
            r"\bat\s+~?\d[\d,.]*\s*(?:hrs?|hours?|h|(?:gpu|node)[\s-]?(?:hrs?|hours?))\b[^$€£.;]{0,40}"
            r"\b(?:is|=|comes?\s+to|would\s+be)\s*(?:about\s+|around\s+|roughly\s+|~|≈)*$",
            re.I,
        ),
    ),
    (
        "a limit, budget, alert or target, not a price",  # "revisit when YPP money is > $50/mo": a bound
        re.compile(r"(?:>|<|≥|≤)=?\s*(?:~|≈|about\s+|around\s+)*$"),
    ),
    (
        # "a used 3090 will probably still sell for ~$500 in two years", "resale ~$400": what it may fetch later
        "a resale value (what it may sell for later), not what it costs",
        re.compile(
            r"\b(?:resale|resell(?!ers?\b)\w*|re-sell\w*|(?:will|would|could|should|might|[’']ll)\s+(?:\w+\s+){0,2}?(?:sell|fetch)\s+for)"
            r"\b[^$€£.;]{0,20}?(?:\s|value|price|of|for|at|is|was|about|around|roughly|~|:|≈)*$",
            re.I,
        ),
    ),
)
# A word each form of the _ROLE_BEFORE pattern at the same place needs (in lower case): in ASCII text (where ignoring
# case is lower case) a pattern none of whose words is there cannot match, and is not run.
_ROLE_WORDS: tuple[tuple[str, ...], ...] = (
    (
        "limit", "cap", "max", "budget", "alert", "alarm", "target", "threshold", "set", "wait", "hop", "hold", "watch",
        "notify", "more", "most", "if", "when", "once", "until", "till", "pay", "worth", "sub", "want", "look", "goal", "aim",
    ),
    (
        "refund", "reimburs", "rebate", "cash", "credit", "payout", "paid", "earn", "income", "net", "got", "back", "gave",
        "compensat", "voucher", "coupon", "grant",
    ),
    ("made", "mak", "earn", "revenue", "bring"),
    ("total", "all", "altogether", "sum", "came", "come", "add", "spen", "bill", "invoice", "charged", "whole"),
    ("electric", "power", "energy"),
    ("that", "work", "add"),
    ("at",),
    (">", "<", "≥", "≤"),
    ("resal", "resell", "re-sell", "will", "would", "could", "should", "might", "ll"),
)  # fmt: skip
_SOLD_WORDS = ("sold", "flipped", "offloaded", "rid", "sell")
# Words right after an amount that say what it is ("$96 total", "$500 in credits", "$1k more than").
_ROLE_AFTER: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a total or a bill, not the price of one thing",
        re.compile(
            r"\s*(?:\)\s*)?(?:in\s+)?(?:total|all\s+told|altogether|overall|for\s+(?:the\s+)?(?:set|lot|both|all|everything|"
            r"whole\s+thing|all\s+of\s+them)|(?:in|of)\s+(?:the\s+)?(?:bills?|spend|spending|charges?)"
            r"|for\s+(?:the|a|one|that|this|my|our)\s+(?:weekend|night|run|job|project|experiment|sweep|fine-?tune|training\s+run))\b",
            re.I,
        ),
    ),
    (
        "money that came back or in (a refund, credit, payout or rebate), not a price",
        re.compile(
            # never "$5/mo for 30k credits": the credits a plan's price buys
            r"\s*(?:in\s+|of\s+|worth\s+of\s+)?(?:(?!for\b|\d)[\w-]+\s+){0,2}?"
            r"(?:credits?|refund\w*|rebate|cash\s?back|back(?!\s+(?:in|then|when))|payout)\b",
            re.I,
        ),
    ),
    (
        # "$500 minimum order", "$150 on the account": a bound of an order, money put on an account to spend later
        "a limit, budget, alert or target, not a price",
        re.compile(
            r"\s*(?:minimum|min\.?|max(?:imum)?)\b|\s+(?:on|onto|into)\s+(?:the|my|our|his|her)\s+(?:account|balance)\b|"
            r"\s*(?:(?:monthly|hard|soft|spending|self-imposed)\s+)?(?:cap|budget|limit|ceiling|allowance)\b",  # "a $120 cap for"
            re.I,
        ),
    ),
    (
        "a difference between two prices, not a price",
        re.compile(
            r"\s*(?:more|less|cheaper|dearer|extra|off|higher|lower|saved|savings?|difference)\b"
            r"(?!\s+(?:amps?|gpus?|cards?|an?|some\w*|ebay|craigslist|reddit|facebook|marketplace|my|his|her|their|our)\b)",
            re.I,
        ),
    ),
)
# "Sold the old 1080 Ti for $190", "sold my 3090 for $700": a price the owner sold a thing for, said of everything the
# clause lists after it; "sells for $700", "sold prices", "sold listings" are what it costs.
_SOLD = re.compile(
    r"(?:^|[^\w])(?:(?:i|we|i've|we've)\s+)?(?:(?:sold|flipped|offloaded|got\s+rid\s+of)\s+"
    r"(?!(?:for|at|out|prices?|listings?|new|used|as|in|on|by|through|via|to|well|fast|quickly|like|around|about|over|under)\b)"
    r"|(?:selling|sell)\s+(?:the|my|our|both|it|them|those|these|an?|one|two|three|\d)\b)",
    re.I,
)
# "got $400 for my old 2080 Ti": what the owner was paid for a thing of theirs.
_GOT_FOR = re.compile(r"\bgot\s*(?:about|around|~|≈)?\s*$", re.I)
_FOR_MINE = re.compile(r"\s+for\s+(?:my|our|his|her|the\s+old|it|them)\b", re.I)
_SPENT = re.compile(r"spen[dt]", re.I)
_ON_THING = re.compile(r"\s+(?:on|for)\s+(?:(?:a|an|the|my|another|one|two|\d+x?)\s+)?(?:(?:used|new|second)\s+)?[A-Z0-9]")
_BOUGHT_AFTER = re.compile(r"\b(?:bought|buy|paid|purchased|picked\s+up|got|grabbed|ordered|replaced)\b", re.I)


def money_role(sentence: str, start: int, end: int, clause_start: int, floor: int, unit: str | None) -> str | None:
    """Why the amount at ``start:end`` of ``sentence`` is not the price of a thing (see the module docstring), or
    None. ``clause_start`` is where its clause begins, ``floor`` where the previous amount ends; ``unit`` its time
    unit (a total or a worked-out figure is said of an amount with no time unit or per month, day or year)."""
    if unit == "kwh":
        return None
    clause = sentence[max(0, clause_start, start - 160) : start]
    ascii_clause = clause.isascii()  # then a pattern whose words are all missing is not run (_ROLE_WORDS)
    low = clause.lower()
    sold = _SOLD.search(clause) if not ascii_clause or any(w in low for w in _SOLD_WORDS) else None
    if sold and not _BOUGHT_AFTER.search(clause, sold.end()):  # "sold my 3090 and bought a 4090 for $1,600": a purchase
        return "a price the owner sold it for, not what it costs"
    near = sentence[max(clause_start, floor, start - 100) : start]
    quick = near.isascii()
    low = near.lower()
    if (not quick or "got" in low) and _GOT_FOR.search(near) and _FOR_MINE.match(sentence, end):
        return "a price the owner sold it for, not what it costs"
    for (reason, pattern), words in zip(_ROLE_BEFORE, _ROLE_WORDS, strict=True):
        if reason.startswith(("a total", "a figure")) and unit == "hour":
            continue  # "the v5e-8 comes to $9.60/hr", "i.e. $2.99 per GPU per hour": a rental stated per hour
        if quick and not any(w in low for w in words):
            continue
        said = pattern.search(near)
        if said and not (_SPENT.match(said.group(0)) and _ON_THING.match(sentence, end)):
            return reason  # but "spend $20/mo on ChatGPT Plus" is what that thing costs
    after = sentence[end : end + 40]
    for reason, pattern in _ROLE_AFTER:
        if reason.startswith("a total") and unit == "hour":
            continue
        if pattern.match(after):
            return reason
    return None


# --- words that name a thing ---------------------------------------------------------------------

_FUNCTION = frozenset(
    "a an the of to in on at by for from with without into onto over under about around near like than as so then "
    "and or but also too just only still even more less very quite really maybe probably perhaps here there "
    "one ones another now today currently already again once up down out off back all any some each every both either "
    "this that "
    "these those it its they them their my our your his her we i you he she which who what when where how if "
    "whether while though although because since until".split()
)
_DETERMINERS = frozenset("a an the my our your their his her this these both each every one another".split())
# Verbs and filler that a price sentence puts next to its amount but that name nothing.
_FILLER = frozenset(
    "paid pay pays paying got get gets getting seen saw see sees well net spend spent spends adds add added comes "
    "come came works work worked goes go went runs run ran ended end ends quoted asked asks is was were are "
    "be been being cost costs costing sold sells sell buy bought buys total totals that's thats it's its "
    "i'd i'm ive i've we'd we're worth roughly approx approximately ouch nice crazy cheap expensive ok okay "
    "about around near nearly almost least most say says said think thought looks look looked hover "
    "hovers sits sit pulls pull draws idles uses dropped cancelled canceled kept tried trying using have had started "
    "stopped renewed upgraded downgraded switched grabbed picked ordered returned".split()
)
# Verbs that make words a clause, not a name, wherever they stand in them.
_VERBS = frozenset(
    "paid pays got gets seen saw sees spent spends adds added came works worked went ran quoted asked sold sells bought buys "
    "took takes says said gave gives wants wanted needs needed charges charged put".split()
)
# Words that make a name one of an amount that is no price: "budget for rentals", "hard limit", "price alert".
_NO_THING = frozenset("budget budgets limit limits alert alerts target targets refund refunds payout payouts".split())
# The words of a price itself: "list price", "edu price" name a kind of price of a thing named elsewhere, not a thing.
_PRICE_WORDS = frozenset("price prices pricing msrp rrp deal deals".split())


def names_a_price(text: str) -> bool:
    """Whether ``text`` names a kind of price ("list price", "edu price"), not the thing it is the price of."""
    words = text.lower().split()
    return bool(words) and words[-1].strip(".,:;()") in _PRICE_WORDS


# Section headings that name a topic, not a thing a price could be of.
_TOPICS = frozenset(
    "power prices price pricing cost costs the math maths spend spending income notes note numbers to remember "
    "reading benchmarks rates rate misc other others summary overview budget next year this last log links "
    "references thoughts ideas todo plans and vs versus of for my our what i bought considered ongoing "
    "electricity energy draw consumption money finances expenses purchases bought buying options comparison "
    "misc. general background".split()
)


def as_thing(text: str) -> str:
    """``text`` as the name of a thing: without the verbs, filler and prepositions it opens with ("Bought 4x 16TB
    Seagate Exos" → "4x 16TB Seagate Exos"); '' when what is left is no thing (see :func:`is_thing`)."""
    words = text.split()
    while len(words) > 1 and words[0].strip(".,:;!?()\"'*~").lower() in (_FILLER | _FUNCTION) - _DETERMINERS:
        words = words[1:]  # "for the 4U slot": the 4U slot
    rest = " ".join(words)
    return rest if is_thing(rest) else ""


_AN_AMOUNT_OF_TIME = re.compile(
    r"\s*~?\d[\d,.]*\s*(?:hrs?|hours?|h|(?:gpu|node|device)[\s-]?(?:hrs?|hours?)|days?|weeks?|months?|yrs?|years?)\b", re.I
)


def is_thing(text: str) -> bool:
    """Whether ``text`` can name what a price is of: one to six words with a word that is neither a function word
    nor filler, not opening with a preposition or filler ("in the UK", "more like") nor ending in a function word or
    a verb ("on top of a", "AppleCare+ adds", "v5e-8 comes to")."""
    words = [w.strip(".,:;!?()\"'*~").lower() for w in text.split()]
    words = [w for w in words if w]
    if not words or len(words) > 6 or not _LETTER.search(text) or _AN_AMOUNT_OF_TIME.match(text):
        return False  # "3,000 hr/yr renting on Lambda": a use, not a thing
    if words[0] in _FUNCTION - _DETERMINERS or words[0] in _FILLER or (words[0] in _VERBS and len(words) > 1):
        return False  # "charges us $60/hr": a verb, not a name
    if words[-1] in _FUNCTION or words[-1] in _FILLER:
        return False  # "on top of a", "AppleCare+ adds"
    if any(w in _VERBS or w in ("one", "ones") for w in words[1:]) or any(w in _NO_THING for w in words):
        return False  # "2024: took Section 179", "a used one on ebay", "budget for rentals": no name of a thing
    return any(w not in _FUNCTION and w not in _FILLER and _LOWER.search(w) for w in words)


def thing_heading(section: str) -> bool:
    """Whether a section heading names a thing ("My rig", "Colab", "RTX 3090") rather than a topic ("Power",
    "The math", "Numbers to remember")."""
    words = [w.strip(".,:;!?()\"'*~&").lower() for w in section.split()]
    return is_thing(section) and any(w and w not in _TOPICS and w not in _FUNCTION for w in words)


# --- wattages ------------------------------------------------------------------------------------

_RATING_AFTER = re.compile(
    r"\s*(?:(?:power\s+)?(?:limit\w*|cap\w*|target)|psu|power\s+supply|supply|charger|adapter|brick|rated|rating|usb|tdp|tgp|"
    r"continuous|max(?:imum)?\s+(?:rating|spec)|spec|(?:rail|connector|cable|plug|outlet|circuit|breaker|inverter|"
    r"ups|battery|panel|array|system|unit)s?)\b",
    re.I,
)
_RATING_BEFORE = re.compile(
    r"(?:\b(?:psu|power\s+supply|charger|adapter|ups|inverter|tdp|tgp|spec\w*|rated|rating)\b[^,;.]{0,24}"
    r"|\b(?:cap(?:ped|s)?|limit(?:ed|s)?|set|power[\s-]?limit(?:ed)?|pl|throttled?|undervolt\w*)\s+(?:\w+\s+){0,2}?(?:at|to)\s*"
    r"|\brated(?:\s+(?:for|at))?\s*|=\s*|->\s*|\+\s*|\bsum\s+of\b[^,;.]{0,30}|\b(?:needs?|requires?|recommends?|minimum|min\.?)\s+(?:an?\s+)?)"
    r"~?$",
    re.I,
)
# "a 1600W Corsair", "the 850 W unit", "my 1000W": a wattage written as an adjective of the thing after it is a capacity.
_ATTRIBUTIVE_BEFORE = re.compile(r"\b(?:a|an|the|my|our|their|his|her|that|this|one|two|new|old|used|spare|\d+x?)\s*$", re.I)
_ATTRIBUTIVE_AFTER = re.compile(r"\s+(?![Ww]\b)(?:[A-Z][\w+-]*|[a-z][\w-]*(?=\s+(?:psu|unit|supply|ups)\b))", re.I)
_NOT_NOUN_AFTER = re.compile(
    r"\s+(?:at|under|when|while|with|in|on|for|from|of|to|and|or|but|idle|idling|each|peak|max|load|draw|average|avg|"
    r"sustained|continuous|typical|during|per|vs|versus|range|total|combined|at|from)\b",
    re.I,
)
_DRAW = re.compile(
    r"\b(?:pulls?|pulling|draws?|drawing|drew|uses?|using|used|consumes?|consuming|consumption|sips?|burns?|idles?|idling|"
    r"idle|sits?|sitting|hovers?|hovering|peaks?|peaking|spikes?|maxe?s?\s+out|tops?\s+out|runs?\s+at|running\s+at|"
    r"load|loaded|training|inference|generating|gaming|stress\w*|flat\s+out|full\s+tilt|busy|at\s+the\s+wall|"
    r"measured|meter\w*|kill-?a-?watt|reads?|reading|hibernat\w*|sleep\w*|standby|spinning|average|averages|avg|"
    r"sustained|while|when|during|under|doing|working|crunching|benchmark\w*|draw|wall|real[\s-]world|in\s+practice|actual\w*|"
    r"typical\w*|about|around|roughly|approx\w*)\b|[~≈]\s*\d",
    re.I,
)


def watt_role(sentence: str, start: int, end: int, window: str = "") -> str | None:
    """Why the wattage at ``start:end`` is a rating or a capacity, not a draw, or None; ``window`` is the figure's own
    words ("~6.5kW peak (per spec sheet)": a figure from a spec sheet is a rating)."""
    before = sentence[max(0, start - 40) : start]
    if _SPEC.search(window):
        return "a rating, a limit or a capacity, not a draw"
    if _RATING_AFTER.match(sentence, end) or _RATING_BEFORE.search(before):
        return "a rating, a limit or a capacity, not a draw"
    if (
        _ATTRIBUTIVE_BEFORE.search(before)
        and _ATTRIBUTIVE_AFTER.match(sentence, end)
        and not _NOT_NOUN_AFTER.match(sentence, end)
    ):
        return "a rating, a limit or a capacity, not a draw"
    return None


_SPEC = re.compile(r"\b(?:spec(?:s|\s+sheet)?|datasheet|data\s+sheet|nameplate|label|rated|rating|tdp|tgp)\b", re.I)


def says_draw(window: str) -> bool:
    """Whether the words of a wattage say it is a draw ("pulls ~780W", "idles at 11W", "~32W with 4 drives spinning")."""
    return _DRAW.search(window) is not None
