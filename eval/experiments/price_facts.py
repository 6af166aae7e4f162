"""How well does the price reader attribute what it reads? Measured against a labelled set.

A labelled set is a folder of notes and a ``facts.yaml`` that lists every amount of money and every
wattage written in them, each with the line it is on, what kind of amount it is (rental, purchase,
plan, electricity, power, tokens, storage-rate, rating, total, other) and what it is of. It is
written by someone who has not read the reader (``eval/price-facts/``: a development set, to fit the
reader on; blind sets stay the judge).

Every row and fact ``hwqa prices --notes DIR --all --json`` lists is matched to the labelled amount on
its line (by the amount as written) and counted:

- **right**: the label is a kind the reader keeps (rental, purchase, plan, electricity, power, tokens),
  the reader's kind agrees, and what it names matches what the label says it is of (the hardware, or
  a word of ``of``; an electricity price is of electricity);
- **wrong thing**: a kind the reader keeps, but said of something else (a bridge's price as a card's);
- **not a price of a thing**: the label is a total, a rating or other (a payout, a PSU's 1000 W);
- **unlabelled**: nothing labelled on that line with that amount.

Precision is right / everything listed; recall is right / the labelled amounts of the kept kinds.
Run: ``python eval/experiments/price_facts.py [DIR]`` (default ``eval/price-facts``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent.parent
KEPT = {"rental", "purchase", "plan", "electricity", "power", "tokens"}
# the reader's kinds, as the labels name them (a rental in another currency is a fact of kind "rental")
READER_KIND = {"usage": "tokens", "storage": "storage-rate"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 or w.isdigit()}


def same_thing(said: str, label: dict[str, Any]) -> bool:
    """Whether the reader's subject names what the label says the amount is of (an electricity price is of
    electricity, whatever the tariff is called)."""
    if label["kind"] == "electricity":
        return True
    target = words(str(label.get("hardware") or "")) | words(str(label.get("of") or ""))
    return bool(target & words(said))


def amount_key(text: str) -> str:
    """The digits of an amount as written ("$1,750" and "1750" alike; "~$1.10/hr" → "1.10")."""
    m = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    return m.group(0).replace(",", "") if m else text


def read(notes: Path) -> dict[str, Any]:
    env = {**os.environ, "HWQA_INDEX": tempfile.mkdtemp(), "HWQA_FETCH_LINKS": "false", "HWQA_EMBED_BACKEND": "hash"}
    done = subprocess.run(
        [sys.executable, "-m", "hwqa.cli", "prices", "--notes", str(notes), "--all", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    table: dict[str, Any] = json.loads(done.stdout)["table"]
    return table


def score(folder: Path) -> dict[str, Any]:
    labels = yaml.safe_load((folder / "facts.yaml").read_text(encoding="utf-8"))
    by_place: dict[tuple[str, int, str], dict[str, Any]] = {
        (lab["note"], int(lab["line"]), amount_key(str(lab["stated"]))): lab for lab in labels
    }
    table = read(folder / "notes")
    listed = [("rental", r["hardware"], r["note"], r["line"], r["stated"]) for r in table["rows"]] + [
        (READER_KIND.get(f["kind"], f["kind"]), f["subject"], f["note"], f["line"], f["stated"]) for f in table["facts"]
    ]
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    right_places = set()
    for kind, said, note, line, stated in listed:
        label = by_place.get((note, int(line or 0), amount_key(str(stated))))
        if label is None:
            counts["unlabelled"] += 1
            wrong.append(f"unlabelled: {note}:{line} {stated} as {kind} of {said!r}")
        elif label["kind"] not in KEPT:
            counts["not a price of a thing"] += 1
            wrong.append(f"a {label['kind']}: {note}:{line} {stated} read as {kind} of {said!r}")
        elif label["kind"] != kind or not same_thing(said, label):
            counts["wrong thing"] += 1
            wrong.append(f"{note}:{line} {stated} read as {kind} of {said!r}; it is a {label['kind']} of {label.get('of')!r}")
        else:
            counts["right"] += 1
            right_places.add((note, int(line), amount_key(str(stated))))
    keepable = [lab for lab in labels if lab["kind"] in KEPT]
    found = sum(1 for lab in keepable if (lab["note"], int(lab["line"]), amount_key(str(lab["stated"]))) in right_places)
    return {
        "listed": len(listed),
        **dict(counts),
        "precision": round(counts["right"] / len(listed), 3) if listed else None,
        "recall": round(found / len(keepable), 3) if keepable else None,
        "labelled_kept_kinds": len(keepable),
        "left_out": len(table["left_out"]),
        "wrong": wrong,
    }


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "price-facts"
    result = score(folder)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
