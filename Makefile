# torus_lab: `make reproduce` regenerates every figure and data file; `make test` runs the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
KERNEL := torus-lab
PYTEST_WORKERS ?= 2

.PHONY: reproduce verify test docs quick bench fuzz lab lint kernel browser clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project metadata changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(VENV)/.installed $@

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $(VENV)/.installed $@

kernel: $(VENV)/.installed
	$(BIN)/python -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (torus_lab)" >/dev/null

reproduce: kernel
	$(BIN)/torus-lab reproduce --preset paper

# Re-run every experiment at the paper preset in a temporary folder; compare its science data with data/.
verify: kernel
	$(BIN)/torus-lab verify --preset paper

test: $(VENV)/.installed-test kernel browser docs
	$(BIN)/ruff check torus_lab tests benchmarks fuzz
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile -q

# API reference (numpydoc docstrings) + the Markdown pages of docs/ into docs/_build/html (git-ignored).
# Warnings are errors and every cross-reference must resolve (nitpicky, see docs/conf.py).
docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -b html -W --keep-going -n -q docs docs/_build/html

# The report test renders reports/index.html in headless Chromium (Debian's package, driven by Playwright).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the report test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium not found and not root: the browser test will be skipped"; fi; }

# Every experiment at the quick preset; like any non-paper preset it writes into scratch/<preset>/.
quick: kernel
	$(BIN)/torus-lab reproduce --preset quick

bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks

# Hostile arguments for every public function and class (tests/test_fuzz.py, FUZZ_EXAMPLES fresh random examples
# per parameter; `make test` runs 10 with a fixed seed), then coverage-guided fuzzing of CLI arguments, -p values,
# experiment YAML and parameter sets (fixed budget).
FUZZ_EXAMPLES ?= 40
FUZZ_RUNS ?= 100000
fuzz: $(VENV)/.installed-test
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -m fuzz tests/test_fuzz.py -n $(PYTEST_WORKERS) -q
	$(BIN)/python -m pip install --quiet "atheris>=2.3"
	mkdir -p scratch/fuzz
	$(BIN)/python fuzz/fuzz_inputs.py -atheris_runs=$(FUZZ_RUNS) -artifact_prefix=scratch/fuzz/

# Jupyter refuses to run as root unless told to (containers and CI machines often are root).
LAB_ARGS ?= $(if $(filter 0,$(shell id -u)),--allow-root,)
lab: kernel
	$(BIN)/jupyter lab --notebook-dir=. $(LAB_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check torus_lab tests benchmarks fuzz

clean-venv:
	rm -rf $(VENV)
