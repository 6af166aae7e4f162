"""Files derived from the main lock (pylock.toml), written by `make lock` and `make torch`.

    python requirements/pins.py uv LOCK         the installer's pin with every file's hash (requirements/uv.txt)
    python requirements/pins.py constraints LOCK   every pin as `name==version ; marker`, a constraints file that
                                                keeps an extra's lock (or install) at the main lock's versions
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path


def main(what: str, lock: str) -> str:
    packages = tomllib.loads(Path(lock).read_text(encoding="utf-8"))["packages"]
    if what == "constraints":
        lines = [f"{p['name']}=={p['version']}" + (f" ; {p['marker']}" if p.get("marker") else "") for p in packages]
        return "# The main lock's versions (requirements/pins.py constraints requirements/pylock.toml)\n" + "\n".join(lines) + "\n"
    if what == "uv":
        uv = next(p for p in packages if p["name"] == "uv")
        files = [*uv.get("wheels", []), *([uv["sdist"]] if "sdist" in uv else [])]
        hashes = sorted(f"    --hash=sha256:{f['hashes']['sha256']}" for f in files)
        head = "# The installer, bootstrapped by pip (make install); its pin is the main lock's (make lock writes this file).\n"
        return head + f"uv=={uv['version']} \\\n" + " \\\n".join(hashes) + "\n"
    raise SystemExit(f"usage: {sys.argv[0]} uv|constraints LOCK")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(f"usage: {sys.argv[0]} uv|constraints LOCK")
    sys.stdout.write(main(sys.argv[1], sys.argv[2]))
