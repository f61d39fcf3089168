# The two commands of the README: `make run` and `make test`. Both install what they need.
# `make test-fast`: the suite without the tests that run torch.compile in a child process (slow, inductor).
PYTHON ?= python3
VENV ?= .venv
TORCH_VERSION ?= 2.13.0
BIN := $(VENV)/bin
SAMPLE ?= sample_models/helper_two_callsites.py
JOBS ?= 2

.PHONY: install run test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch is pinned here (the CPU wheel on this machine); an unpinned torch would pull the CUDA build.
$(VENV)/.installed: pyproject.toml $(BIN)/python
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "torch==$(TORCH_VERSION)" numpy
	$(BIN)/pip install -q -e ".[test]"
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/doctor explain $(SAMPLE) --backend eager

# worksteal: an idle worker takes tests queued on the other, so the run ends with both busy
test: install
	$(BIN)/python -m pytest -q -n $(JOBS) --dist worksteal -p no:cacheprovider

test-fast: install
	$(BIN)/python -m pytest -q -n $(JOBS) --dist worksteal -p no:cacheprovider -m "not slow and not inductor"

# ruff (style, imports, McCabe <= 20), mypy, and radon: no block of the package worse than grade C.
lint: install
	$(BIN)/ruff check torchcompile_doctor tests bench
	$(BIN)/ruff format --check torchcompile_doctor tests bench
	$(BIN)/mypy
	@worse=$$($(BIN)/radon cc -n D -s torchcompile_doctor); if [ -n "$$worse" ]; then echo "radon: blocks worse than C:"; echo "$$worse"; exit 1; fi

bench: install
	$(BIN)/python bench/run.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/textlog.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
