# The README's commands. `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HWQA   := $(VENV)/bin/hwqa
STAMP  := $(VENV)/.installed
# torch is pinned: this CPU wheel is what the install step can get; a bare `torch` pulls several GB.
TORCH  := torch==2.13.0

.PHONY: install browser run index test lint bench clean eval audit soak

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
	$(VENV)/bin/ruff check src tests bench eval
	$(VENV)/bin/ruff format --check src tests bench eval
	$(VENV)/bin/mypy

# The benchmark's peer (txtai) and chart (matplotlib) come from the `bench` extra, installed here only.
bench: install $(VENV)/.bench-installed
	$(PY) bench/run.py

$(VENV)/.bench-installed: pyproject.toml
	$(PY) -m pip install --quiet -e ".[bench]"
	@touch $@

# The answer-quality evaluation (eval/*.yaml). The Python-docs set needs Debian's python3.11-doc.
PYDOCS := /usr/share/doc/python3.11/html
eval: install
	@if [ ! -d $(PYDOCS) ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y python3.11-doc || { apt-get update && apt-get install -y python3.11-doc; }; \
		else echo "eval: $(PYDOCS) is missing; run 'sudo apt-get install -y python3.11-doc'"; exit 1; fi; \
	fi
	$(HWQA) eval $(EVAL_ARGS)

# Known vulnerabilities in the installed environment (pip-audit). Says AUDIT NOT DONE, and exits 2,
# when the vulnerability database cannot be reached; AUDIT_ARGS=--allow-unreachable makes that a warning.
audit: install
	$(PY) .ci/audit.py $(AUDIT_ARGS)

# The full load test: 50 chat sessions for 60 s against a launched web chat while the index is rebuilt.
soak: install
	HWQA_SOAK_SESSIONS=$${HWQA_SOAK_SESSIONS:-50} HWQA_SOAK_SECONDS=$${HWQA_SOAK_SECONDS:-60} \
		$(PY) -m pytest -m soak -s -p no:cacheprovider tests/test_load.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
