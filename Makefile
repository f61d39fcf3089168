# The two commands of the README: `make run` and `make test`. Both install what they need.
# `make test-fast`: the suite without the tests that start a process (slow: the CLI, torch, git or pip in a child;
# inductor; browser), which tests/conftest.py holds every test to.
# `make test-lane TORCH_VERSION=2.15.0`: the suite's lane on another supported torch, in its own venv (see there).
PYTHON ?= python3
VENV ?= .venv
TORCH_VERSION ?= 2.13.0
BIN := $(VENV)/bin
SAMPLE ?= sample_models/helper_two_callsites.py
JOBS ?= 2
# Everything the suite installs besides torch, pinned with hashes; `make lock` writes it (see the README).
LOCK := requirements/dev.lock
UV_VERSION ?= 0.13.9
# where `make lock` finds the CPU wheel of TORCH_VERSION (a folder, or https://download.pytorch.org/whl/cpu)
TORCH_WHEELS ?= /opt/wheels

# The lane on another torch: its own venv, and the live tests that prove the capture works on that release, where
# the doctor hooks into torch: a recording made again finds what the checked-in one says and re-reads as the live run
# (recapture); the bootstrap's hooks leave the program as in a plain run (fidelity); the in-process capture of the
# pytest plugin; guard timing and the depyf dump; config experiments (--try-fixes); ranks under torchrun (check);
# and torch's own behaviour that a rule's advice or a fix relies on (the tests marked torch_rerun, whose answers on
# the pinned torch are recorded for `make test`).
LANE_VENV = .venv-$(TORCH_VERSION)
LANE_LIVE_TESTS ?= tests/capture/test_recapture.py tests/capture/test_fidelity.py tests/cli/test_pytest_plugin.py \
	tests/analysis/test_guards.py tests/events/test_depyf_dump.py tests/capture/test_try_fixes.py tests/cli/test_check.py \
	tests/capture/test_advice_measured.py tests/capture/test_recompile_fixes_apply.py tests/capture/test_config_switches.py

# The canary lane for torch 2.16's likely default (torch #186100): the live capture tests with
# torch._dynamo.config.nested_graph_breaks = True set in every captured process (capture/canary.py reads
# TORCHCOMPILE_DOCTOR_DYNAMO_CONFIG), in the lane's venv of TORCH_VERSION (CI: the newest, 2.15.0, beside its lane).
# The README's "Supported torch" says what it changes.
CANARY_CONFIG ?= nested_graph_breaks=True
CANARY_LIVE_TESTS ?= tests/capture/test_recapture.py tests/capture/test_fidelity.py

.PHONY: install lock browser run test test-fast test-lane test-canary lint bench fixbench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The lock first (hashes checked), then torch pinned here (the CPU wheel on this machine; an unpinned torch
# would pull the CUDA build), then the package itself, built with the locked setuptools and nothing else.
$(VENV)/.installed: pyproject.toml $(LOCK) $(BIN)/python
	$(BIN)/pip install -q --require-hashes -r $(LOCK)
	$(BIN)/pip install -q "torch==$(TORCH_VERSION)"
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .
	touch $@

install: $(VENV)/.installed

# Re-resolve the test extra of pyproject.toml (with requirements/constraints.in) into $(LOCK): after changing
# a dependency, to take a newer release on purpose, or when a locked release is yanked. Review the diff.
# torch is resolved as the CPU build of TORCH_VERSION, so what it brings (sympy, networkx, ...) is locked at
# versions it accepts; torch itself stays out of the lock.
lock: $(BIN)/python
	$(BIN)/pip install -q --upgrade --target $(VENV)/lock-tools "uv==$(UV_VERSION)"  # beside the venv's packages
	printf 'torch==%s+cpu\n' "$(TORCH_VERSION)" > $(VENV)/torch-constraint.txt
	$(VENV)/lock-tools/bin/uv pip compile pyproject.toml --extra test -c requirements/constraints.in -c $(VENV)/torch-constraint.txt \
		--no-emit-package torch --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
		--find-links $(TORCH_WHEELS) --custom-compile-command "make lock" --quiet -o $(LOCK)

# Chromium for the HTML page's browser tests (tests/renderers/test_html_browser.py): Debian's package, installed when missing;
# as root (CI) with apt-get, else with sudo -n where that works; otherwise those tests are skipped and say why.
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	elif sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; \
	else echo "make browser: no chromium and no root to install it; the browser tests will be skipped"; fi

run: install
	$(BIN)/doctor explain $(SAMPLE) --backend eager

# worksteal: an idle worker takes tests queued on the other, so the run ends with both busy. torch_rerun: what torch
# alone answers, recorded on the pinned torch (read by fast tests) and run live by the lanes of other torches.
# Bytecode written (where the shell says PYTHONDONTWRITEBYTECODE, as on this project's machines): the package and the
# test modules are compiled once, not in each worker and each of the ~100 processes the slow tests start (measured:
# collection 8.5 -> 5.0 CPU-s a worker, a `doctor explain` 0.25 CPU-s less).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
test: install browser
	$(PYTEST) -q -n $(JOBS) --dist worksteal -p no:cacheprovider -m "not torch_rerun"

test-fast: install
	$(PYTEST) -q -n $(JOBS) --dist worksteal -p no:cacheprovider \
		-m "not slow and not inductor and not browser and not torch_rerun"

# A lane on another supported torch (CI: the newest, 2.15.0): a venv of its own (.venv-2.15.0) with the lock, that
# torch and the package, then the offline suite (every recorded capture re-read under that torch, each release's
# recordings in tests/data/torch_versions read with its own GB registry) and the live tests of LANE_LIVE_TESTS.
# torch comes from the local wheels where they have it, else from PyPI: its CUDA build (about 3 GB, run on the CPU),
# with the local pip configuration that caps torch at what lies on disk set aside for that one install.
$(LANE_VENV)/.installed: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(LANE_VENV)
	$(LANE_VENV)/bin/pip install -q --require-hashes -r $(LOCK)
	$(LANE_VENV)/bin/pip install -q "torch==$(TORCH_VERSION)" 2>/dev/null || \
		PIP_CONFIG_FILE=/dev/null $(LANE_VENV)/bin/pip install -q "torch==$(TORCH_VERSION)"
	$(LANE_VENV)/bin/pip install -q --no-deps --no-build-isolation -e .
	$(LANE_VENV)/bin/pip check
	touch $@

test-lane: $(LANE_VENV)/.installed
	$(LANE_VENV)/bin/python -m pytest -q -n $(JOBS) --dist worksteal -p no:cacheprovider -m "not slow and not inductor"
	$(LANE_VENV)/bin/python -m pytest -q -n $(JOBS) --dist worksteal -p no:cacheprovider -m "slow and not inductor" \
		$(LANE_LIVE_TESTS)

test-canary: $(LANE_VENV)/.installed
	TORCHCOMPILE_DOCTOR_DYNAMO_CONFIG="$(CANARY_CONFIG)" $(LANE_VENV)/bin/python -m pytest -q -n $(JOBS) --dist worksteal \
		-p no:cacheprovider -m "slow and not inductor" $(CANARY_LIVE_TESTS)

# ruff (style, imports, McCabe <= 20), mypy --strict, and radon: no block of the package worse than grade C.
lint: install
	$(BIN)/ruff check torchcompile_doctor tests bench
	$(BIN)/ruff format --check torchcompile_doctor tests bench
	$(BIN)/mypy --strict
	@worse=$$($(BIN)/radon cc -n D -s torchcompile_doctor); if [ -n "$$worse" ]; then echo "radon: blocks worse than C:"; echo "$$worse"; exit 1; fi

bench: install
	$(BIN)/python bench/run.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/page.py
	$(BIN)/python bench/textlog.py
	$(BIN)/python bench/fix_cost.py

# The team's fix benchmark (bench/fixbench.py, issue 33): `doctor fix --apply` on each small program of
# bench/fixbench, judged by torch's own counts against the by-hand fix; one program at a time. The held-out
# quarter (FIXBENCH_SET=heldout) is never used to tune transforms. FIXBENCH_ARGS: e.g. --resume, --json.
FIXBENCH_SET ?= dev
FIXBENCH_ARGS ?=
fixbench: install
	OMP_NUM_THREADS=1 $(BIN)/python bench/fixbench.py --set $(FIXBENCH_SET) $(FIXBENCH_ARGS)

clean:
	rm -rf $(VENV) .venv-*/ *.egg-info .pytest_cache
