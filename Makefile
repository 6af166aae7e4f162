# The README's commands. `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HWQA   := $(VENV)/bin/hwqa
STAMP  := $(VENV)/.installed
# torch is pinned: this CPU wheel is what the install step can get; a bare `torch` pulls several GB.
TORCH  := torch==2.13.0

.PHONY: install run index test lint bench clean

install: $(STAMP)

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

# The benchmark's peer (txtai) and chart (matplotlib) come from the `bench` extra, installed here only.
bench: install $(VENV)/.bench-installed
	$(PY) bench/run.py

$(VENV)/.bench-installed: pyproject.toml
	$(PY) -m pip install --quiet -e ".[bench]"
	@touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
