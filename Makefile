# The two commands of the README: `make run` and `make test`. Both install what they need.
# `make test-fast`: the suite without the tests that run torch.compile in a child process (slow, inductor).
PYTHON ?= python3
VENV ?= .venv
TORCH_VERSION ?= 2.13.0
BIN := $(VENV)/bin
SAMPLE ?= sample_models/helper_two_callsites.py
JOBS ?= 2

.PHONY: install browser run test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch is pinned here (the CPU wheel on this machine); an unpinned torch would pull the CUDA build.
$(VENV)/.installed: pyproject.toml $(BIN)/python
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "torch==$(TORCH_VERSION)" numpy
	$(BIN)/pip install -q -e ".[test]"
	touch $@

install: $(VENV)/.installed

# Chromium for the HTML page's browser tests (tests/test_html_browser.py): Debian's package, installed when missing;
# as root (CI) with apt-get, else with sudo -n where that works; otherwise those tests are skipped and say why.
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	elif sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; \
	else echo "make browser: no chromium and no root to install it; the browser tests will be skipped"; fi

run: install
	$(BIN)/doctor explain $(SAMPLE) --backend eager

# worksteal: an idle worker takes tests queued on the other, so the run ends with both busy
test: install browser
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

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
