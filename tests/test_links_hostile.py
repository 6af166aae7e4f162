"""Link scanning stays linear on hostile notes (issue 11, finding 4).

No clock is read. The work the scanner does is measured as the number of Python lines executed
inside ``hwqa.notes.links`` and ``hwqa.notes.markdown`` (which masks code for it), counted with
``sys.settrace``, which does not depend on how the scanner is written. Each hostile input is
scanned at two sizes, n and 4n: a linear scanner does about 4 times the work on the bigger one, a
quadratic one about 16 times. The old scanner did 8k ``[`` in 3.1 s
and made an unchanged rebuild with 32 KB of ``[`` take 37 s.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

import hwqa.notes.links
import hwqa.notes.markdown
from hwqa.notes.links import find_all_urls, find_links

SCANNER_FILES = {hwqa.notes.links.__file__, hwqa.notes.markdown.__file__}

# Each class of hostile input, as a function of a size n (characters, roughly).
HOSTILE: dict[str, Callable[[int], str]] = {
    "open brackets": lambda n: "[" * n,
    "open brackets then one close": lambda n: "[" * n + "]",
    "image openers": lambda n: "![" * (n // 2),
    "nested brackets": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "nested link text": lambda n: "[" * (n // 2) + "]" * (n // 2) + "(https://example.com/)",
    "matched pair then open brackets": lambda n: "[]" + "[" * n,
    "unclosed destinations": lambda n: "[a](x" * (n // 5),
    "unclosed destinations with parens": lambda n: "[a]((x)(x)" * (n // 10),
    "destinations before spaces": lambda n: "[a](x" * (n // 10) + " " * (n // 2) + "y",
    "unclosed titles": lambda n: '[a](x "' * (n // 7),
    "unclosed angle destinations": lambda n: "[a](<" * (n // 5),
    "backtick runs of growing length": lambda n: "".join("`" * k + "a" for k in range(1, int((2 * n) ** 0.5))),
    "one long backtick run": lambda n: "x" + "`" * n,
    "unmatched backticks": lambda n: "``` " + "`` ` " * (n // 5),
    "bare URL with closing parens": lambda n: "see http://a.example/" + ")" * n,
    "reference labels": lambda n: "[x]: https://a.example/\n\n" + "[" * (n // 2) + "]" * (n // 2),
    "comment openers": lambda n: "<!--" * (n // 4),
    "autolink openers": lambda n: "<a:" * (n // 3),
    # Quadratic in the old scanner's C-level slicing and regexes rather than in Python lines:
    "single backticks": lambda n: "a`" * (n // 2),
    "backtick lines": lambda n: "`\n" * (n // 2),
    "double backticks": lambda n: "`` " * (n // 3),
    "backtick then brackets": lambda n: "`[" * (n // 2),
}


def scan_work(text: str) -> int:
    """Python lines executed in hwqa.notes.links and hwqa.notes.markdown while finding the links in ``text``."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename in SCANNER_FILES:
            return local
        return None

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        find_all_urls(text)
    finally:
        sys.settrace(old)
    return count


SMALL = 2_000


@pytest.mark.parametrize("name", list(HOSTILE))
def test_link_scanning_work_grows_linearly(name: str, record_property: Callable[[str, object], None]) -> None:
    make = HOSTILE[name]
    small, big = make(SMALL), make(4 * SMALL)
    work_small, work_big = scan_work(small), scan_work(big)
    ratio = work_big / max(work_small, 1)
    per_char = work_big / len(big)
    print(
        f"links hostile {name!r}: {len(small)} chars -> {work_small} steps, "
        f"{len(big)} chars -> {work_big} steps, ratio {ratio:.2f}"
    )
    record_property(f"links_work_{name}", f"{len(small)}:{work_small} {len(big)}:{work_big}")
    assert ratio < 6, f"{name}: 4x the input took {ratio:.1f}x the work (quadratic would be ~16x)"
    assert per_char < 40, f"{name}: {per_char:.1f} steps per character"


def test_megabyte_of_each_hostile_class_is_scanned() -> None:
    """1 MB of each class (a quadratic scanner would need hours for some of these)."""
    for name, make in HOSTILE.items():
        text = make(1_000_000)
        links = find_all_urls(text)
        assert isinstance(links, list), name
    print(f"links hostile: {len(HOSTILE)} classes scanned at 1 MB each")


def test_links_are_still_found_around_hostile_text() -> None:
    text = "[" * 5000 + "\n\nSee [the guide](https://example.com/guide) and `code` here.\n\n" + "`" * 5000
    assert [link.url for link in find_links(text)] == ["https://example.com/guide"]
    nested = "[[[[x]]]](https://example.com/n)"
    assert [link.url for link in find_links(nested)] == ["https://example.com/n"]
