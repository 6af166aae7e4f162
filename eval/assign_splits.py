"""Record the train/test split of new questions: `python eval/assign_splits.py [eval/x.yaml ...]`.

Each question without a `split:` line gets one (the loader's deterministic rule: about 40 % of new
questions go to test, spread over kinds), and every question is appended to eval/splits.lock.
Recorded splits never change; a question whose split differs from the lock is an error.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hwqa.eval.sets import record_splits

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    files = [Path(a) for a in sys.argv[1:]] or sorted(HERE.glob("*.yaml"))
    for path in files:
        new = record_splits(path, HERE / "splits.lock")
        tests = sum(1 for split in new.values() if split == "test")
        print(f"{path}: {len(new)} new questions recorded ({tests} test)")
