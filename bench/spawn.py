"""A small process that starts the benchmark's child processes and reports their usage.

Linux records a child's peak RSS including the memory of the process that spawned it (the parent's
pages count until ``exec``), so children are started from this tiny process, not from the benchmark
itself once it has loaded the model. One JSON request per line on stdin, one JSON reply per line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time


def main() -> None:
    for line in sys.stdin:
        req = json.loads(line)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            started = time.perf_counter()
            proc = subprocess.Popen(req["cmd"], env=req["env"], cwd=req["cwd"], stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            out.seek(0)
            err.seek(0)
            reply = {
                "wall": wall,
                "maxrss_kb": usage.ru_maxrss,
                "cpu": usage.ru_utime + usage.ru_stime,
                "rc": os.waitstatus_to_exitcode(status),
                "stdout": out.read().decode(errors="replace"),
                "stderr": err.read().decode(errors="replace")[-3000:],
            }
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
