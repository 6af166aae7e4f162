#!/usr/bin/env python3
"""Verify facts.yaml against notes/*.md.

- every entry names an existing note, a valid line, and its `stated` text is on that line
- kind is one of the allowed kinds; required fields present
- per_device present exactly on rentals (and is a bool)
- every amount of money and every wattage found in the notes by the patterns below
  lies inside the `stated` text of some entry on the same line
"""

import glob
import os
import re
import sys
from pathlib import Path

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"rental", "purchase", "plan", "electricity", "power", "tokens", "storage-rate", "rating", "total", "other"}
FIELDS = ["note", "line", "stated", "kind", "of", "hardware", "unit"]

NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
PATTERNS = [
    r"[$€£]\s?" + NUM + r"(?:\s?[kKM]\b)?",  # $1,799  €0.89  £210  $48k
    NUM + r"\s?(?:bucks|dollars|euros|pounds|quid|cents|USD|EUR|GBP)\b",  # 650 bucks, 16 cents
    r"(?:USD|EUR|GBP)\s?" + NUM,  # USD 400
    r"(?<![\w.])" + NUM + r"\s?[kK](?![\w])",  # 1.2k, 11.2k
    r"(?<![\w.])" + NUM + r"\s?(?:W|watts?|kW|VA|kVA)(?![\w])",  # 850W, ~690 watts, 2.4 kW, 1500VA
    r"(?<![\w.])" + NUM + r"\s?(?:cash)\b",  # paid 720 cash
]
AMOUNT = re.compile("|".join(f"(?:{p})" for p in PATTERNS))


def main():
    errors = []
    notes = {
        os.path.basename(p): Path(p).read_text(encoding="utf-8").split("\n")
        for p in sorted(glob.glob(os.path.join(HERE, "notes", "*.md")))
    }
    facts = yaml.safe_load(Path(HERE, "facts.yaml").read_text(encoding="utf-8"))
    if not isinstance(facts, list):
        sys.exit("facts.yaml must be a list")

    spans = {}  # (note, line) -> list of (start, end) of stated texts
    for n, e in enumerate(facts):
        where = f"entry {n} ({e.get('note')}:{e.get('line')} {e.get('stated')!r})"
        for f in FIELDS:
            if f not in e:
                errors.append(f"{where}: missing field {f}")
        if e.get("kind") not in KINDS:
            errors.append(f"{where}: bad kind {e.get('kind')!r}")
        if e.get("kind") == "rental":
            if not isinstance(e.get("per_device"), bool):
                errors.append(f"{where}: rental without boolean per_device")
        elif "per_device" in e:
            errors.append(f"{where}: per_device on a non-rental")
        lines = notes.get(e.get("note"))
        if lines is None:
            errors.append(f"{where}: no such note")
            continue
        ln = e.get("line")
        if not isinstance(ln, int) or not 1 <= ln <= len(lines):
            errors.append(f"{where}: bad line")
            continue
        text, st = lines[ln - 1], str(e.get("stated", ""))
        if not st or st not in text:
            errors.append(f"{where}: stated text not on line: {text!r}")
            continue
        # record every occurrence of the stated text on this line
        i = text.find(st)
        while i >= 0:
            spans.setdefault((e["note"], ln), []).append((i, i + len(st)))
            i = text.find(st, i + 1)

    # duplicates: same stated on same line labelled more often than it occurs
    from collections import Counter

    cnt = Counter((e.get("note"), e.get("line"), e.get("stated")) for e in facts)
    for (note, ln, st), c in cnt.items():
        if note in notes and isinstance(ln, int) and 1 <= ln <= len(notes[note]):
            occ = notes[note][ln - 1].count(str(st))
            if c > occ:
                errors.append(f"{note}:{ln}: {st!r} labelled {c}x but occurs {occ}x")

    found = 0
    for note, lines in notes.items():
        for ln, text in enumerate(lines, 1):
            for m in AMOUNT.finditer(text):
                found += 1
                if not any(a <= m.start() and m.end() <= b for a, b in spans.get((note, ln), [])):
                    errors.append(f"{note}:{ln}: unlabelled amount {m.group(0)!r} in: {text.strip()}")

    for e in errors:
        print("FAIL", e)
    print(f"{len(notes)} notes, {len(facts)} labels, {found} pattern matches, {len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
