# The README's commands. `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HWQA   := $(VENV)/bin/hwqa
STAMP  := $(VENV)/.installed
# torch is pinned: this CPU wheel is what the install step can get; a bare `torch` pulls several GB.
TORCH  := torch==2.13.0

.PHONY: install browser run index test lint bench clean

install: $(STAMP) browser

# The browser tests drive Debian's chromium through the playwright package (never its own browser download).
browser: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium for the browser tests"; \
	    (apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }) \
	      || echo "could not install chromium; the browser tests will be skipped (or fail in CI)"; \
	  else echo "chromium is missing: install it (apt-get install chromium) to run the browser tests"; fi; }
	@$(PY) -c 'import playwright' 2>/dev/null || $(PY) -m pip install --quiet 'playwright>=1.45'

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "hwqa needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e ".[test,dev]"
	@touch $(STAMP)

index: install
	$(HWQA) index

run: install
	$(HWQA) index
	$(HWQA) serve

# pytest exits 5 when it collects no tests; that is not a failure of the code.
test: install
	$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

lint: install
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

bench: install
	$(PY) bench/incremental.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
