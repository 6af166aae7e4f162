#!/usr/bin/env python3
"""Verify facts.yaml against notes/*.md: stated-on-line, kinds, and coverage of every amount/wattage."""

import glob
import os
import re
import sys
from pathlib import Path

import yaml

D = os.path.dirname(os.path.abspath(__file__))
KINDS = {"rental", "purchase", "plan", "electricity", "power", "tokens", "storage-rate", "rating", "total", "other"}
NUM = r"\d[\d,]*(?:\.\d+)?"
PATTERNS = [
    rf"[$€£]\s?{NUM}(?:\s?[kKmM]\b)?",  # $80, €0.89, £4,999, $14k
    rf"\b{NUM}\s?(?:bucks|dollars|euros?|cents|pounds|quid)\b",  # 650 bucks, 16 cents
    rf"(?<![\w.$€£]){NUM}\s?k\b\+?",  # 1.2k, 3.5k+, 2.1k
    rf"\b{NUM}\s?(?:[kKmM]?W|watts?|VA)\b",  # 780W, 3.5kW, 1500VA, 300 watts
]
RX = re.compile("|".join(f"(?:{p})" for p in PATTERNS))


def spans(line, s):
    out, i = [], line.find(s)
    while i >= 0:
        out.append((i, i + len(s)))
        i = line.find(s, i + 1)
    return out


def main():
    facts = yaml.safe_load(Path(D, "facts.yaml").read_text(encoding="utf-8"))
    notes = {
        os.path.basename(p): Path(p).read_text(encoding="utf-8").split("\n")
        for p in sorted(glob.glob(os.path.join(D, "notes", "*.md")))
    }
    errs = []
    covered = {}  # (note, line) -> list of spans
    required = ["note", "line", "stated", "kind", "of", "hardware", "unit"]
    for i, e in enumerate(facts):
        tag = f"entry {i} ({e.get('note')}:{e.get('line')} {e.get('stated')!r})"
        for k in required:
            if k not in e:
                errs.append(f"{tag}: missing field {k}")
        if e.get("kind") not in KINDS:
            errs.append(f"{tag}: bad kind {e.get('kind')!r}")
        if e.get("kind") == "rental" and not isinstance(e.get("per_device"), bool):
            errs.append(f"{tag}: rental without boolean per_device")
        if e.get("kind") != "rental" and "per_device" in e:
            errs.append(f"{tag}: per_device on a non-rental")
        lines = notes.get(e.get("note"))
        if lines is None:
            errs.append(f"{tag}: no such note")
            continue
        ln = e.get("line")
        if not isinstance(ln, int) or not 1 <= ln <= len(lines):
            errs.append(f"{tag}: line out of range")
            continue
        sp = spans(lines[ln - 1], str(e["stated"]))
        if not sp:
            errs.append(f"{tag}: stated not found on line {ln}: {lines[ln - 1]!r}")
            continue
        covered.setdefault((e["note"], ln), []).extend(sp)
    seen = {}
    for e in facts:
        key = (e.get("note"), e.get("line"), e.get("stated"))
        seen[key] = seen.get(key, 0) + 1
    for key, n in seen.items():
        if n > 1:
            errs.append(f"duplicate entry {key} x{n}")
    uncovered = []
    for name, lines in notes.items():
        # skip the front matter
        start = 0
        if lines and lines[0].strip() == "---":
            start = lines.index("---", 1) + 1
        for ln in range(start + 1, len(lines) + 1):
            text = lines[ln - 1]
            # drop URLs inside (...) so numbers in links don't count
            masked = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group()), text)
            for m in RX.finditer(masked):
                a, b = m.span()
                if not any(x < b and a < y for x, y in covered.get((name, ln), [])):
                    uncovered.append(f"{name}:{ln}: {m.group()!r} uncovered  | {text.strip()}")
    for x in errs:
        print("ERROR", x)
    for x in uncovered:
        print("UNCOVERED", x)
    kinds = {}
    for e in facts:
        kinds[e.get("kind")] = kinds.get(e.get("kind"), 0) + 1
    print(f"{len(facts)} entries in {len(notes)} notes; by kind: {dict(sorted(kinds.items()))}")
    print("CLEAN" if not errs and not uncovered else f"{len(errs)} errors, {len(uncovered)} uncovered")
    return 1 if errs or uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
