"""Every sentence of a model's answer checked against what it cites (hwqa.answer.chat.claims)."""

from __future__ import annotations

from hwqa.answer.base import Hit
from hwqa.answer.chat.claims import MARK, Checker, complete_sentences, numbers, split
from hwqa.index.reader import StoredChunk


def hit(i: int, title: str, body: str) -> Hit:
    chunk = StoredChunk(
        id=i,
        key=f"k{i}",
        kind="note",
        source=f"n{i}.md",
        title=title,
        heading="",
        url=None,
        line=1,
        ordinal=0,
        text=body,
        meta={},
    )
    return Hit(chunk, 0.5)


HITS = [
    hit(1, "GPU prices", "A Tesla P100 costs $1.46 per hour on demand."),
    hit(2, "TPU notes", "The Colab TPU runtime had a TPU v3 with 8 cores and 16 GB of host RAM."),
    hit(3, "TPU prices", "An on-demand TPU v3 costs $8.00/hr on Google Cloud."),
]


def test_supported_sentences_keep_their_citations_and_invented_ones_are_marked() -> None:
    checked = Checker(HITS).check(
        "A TPU v3 costs $8.00 per hour on Google Cloud [3]. It cost $15 in 2024 [3]. Colab had a TPU v3 with 8 cores [2]."
    )
    assert checked.text == (
        f"A TPU v3 costs $8.00 per hour on Google Cloud [1]. {MARK}It cost $15 in 2024. Colab had a TPU v3 with 8 cores [2]."
    )
    assert [c.title for c in checked.citations] == ["TPU prices", "TPU notes"]
    first, second, third = checked.claims
    assert (first.verdict, first.citations, first.evidence[0]["n"]) == ("supported", [1], 1)
    assert "$8.00" in first.evidence[0]["found"]
    assert second.verdict == "unsupported" and second.citations == [] and "'$15'" in second.reason
    assert second.missing == ["$15", "2024"]
    assert third.verdict == "supported" and third.citations == [2]


def test_a_marker_naming_no_passage_is_dropped_and_the_sentence_marked() -> None:
    checked = Checker(HITS).check("Free TPUs are offered by Fireworks Cloud [7].")
    assert checked.text == f"{MARK}Free TPUs are offered by Fireworks Cloud."
    assert checked.citations == []
    (claim,) = checked.claims
    assert claim.verdict == "unsupported" and "[7] names no passage" in claim.reason


def test_a_citation_to_a_passage_not_holding_the_claim_is_dropped() -> None:
    checked = Checker(HITS).check("A Tesla P100 costs $1.46 per hour [1][2].")
    assert checked.text == "A Tesla P100 costs $1.46 per hour [1]."
    assert [c.title for c in checked.citations] == ["GPU prices"]
    assert "[2] does not hold it" in checked.claims[0].reason


def test_numbers_must_carry_the_same_unit() -> None:
    assert [(n.value, n.unit) for n in numbers("$8.00/hr, 16 GB, 1,000 hours, 8x, a TPU v3 and an A100")] == [
        (8.0, "usd"),
        (16.0, "gb"),
        (1000.0, "h"),
        (8.0, "x"),
    ]
    checked = Checker(HITS).check("The Colab runtime had $16 of host RAM [2].")
    assert checked.claims[0].verdict == "unsupported" and checked.claims[0].missing == ["$16"]
    # a bare number in prose is not a price; a table cell's unit is in its column
    flags = [hit(1, "Flags", "The flag --warp-factor has a default value of 9."), hit(2, "Prices", "| TPU v3 | 8.00 |")]
    verdicts = Checker(flags).check("The --warp-factor flag costs $9 [1]. A TPU v3 costs $8.00 [2].").claims
    assert [c.verdict for c in verdicts] == ["unsupported", "supported"]


def test_the_calculator_result_supports_sentences_without_a_citation() -> None:
    table = "| option | hours for $100 |\n|---|---|\n| P100 (GCP, on-demand) | 68.5 h |"
    checked = Checker(HITS, [("price_calculator", table)]).check("With $100 a P100 runs for 68.5 hours. That is a lot.")
    first, second = checked.claims
    assert first.verdict == "supported"
    assert first.evidence == [{"tool": "price_calculator", "found": ["$100", "68.5 hours", "P100"]}]
    assert second.verdict == "none" and MARK not in checked.text


def test_numbering_continues_after_the_citations_the_answer_already_has() -> None:
    checked = Checker(HITS, first=3).check("A Tesla P100 costs $1.46 per hour [1].")
    assert checked.text == "A Tesla P100 costs $1.46 per hour [3]." and checked.claims[0].citations == [3]


def test_checking_while_streaming_shows_a_prefix_of_the_final_answer() -> None:
    text = (
        "A TPU v3 costs $8.00/hr [3]. Google invented TPUs in 1921 [1].\n\n"
        "- Colab: TPU v3 with 8 cores [2]\n- P100: $1.46 per hour [1]"
    )
    checker = Checker(HITS)
    final = checker.check(text).text
    shown = [checker.check(text[:i], complete_only=True).text for i in range(0, len(text) + 1, 3)]
    assert all(final.startswith(s) for s in shown)
    assert MARK + "Google invented TPUs in 1921." in final
    assert final.endswith("- Colab: TPU v3 with 8 cores [2]\n- P100: $1.46 per hour [3]")
    assert complete_sentences("Costs $8.00. [") == "", "the marker of the sentence may still be coming"


def test_split_keeps_the_layout() -> None:
    text = "First one [1]. Second?\n\n* item one\n* item two [2]\nend"
    assert "".join(p.text + p.gap for p in split(text)) == text
    assert [p.text for p in split(text) if p.text] == ["First one [1].", "Second?", "* item one", "* item two [2]", "end"]
