# Set-up and everyday commands. `make demo` and `make test` are the README's two commands.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

# The suite's Hypothesis examples: "ci" (pinned: the same examples on every run, as CI draws them) unless set.
HYPOTHESIS_PROFILE ?= ci

.PHONY: demo test browser fuzz bench accuracy study clean

# ssdco and its base dependencies: all the demo needs.
$(BIN)/.base: pyproject.toml
	@echo "make: installing ssdco into $(VENV) (NumPy, SciPy, numba, PuLP, networkx, tqdm, tomli-w, pyarrow)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# ... and every extra, for the tests, the plots, the benchmarks and the web page.
$(BIN)/.installed: $(BIN)/.base
	@echo "make: installing the test, plot, benchmark, sweep, HiGHS, serve and sensitivity extras"
	$(BIN)/python -m pip install --quiet -e '.[test,plot,bench,sweep,highs,serve,sensitivity]'
	touch $@

# A headless Chromium for the web page's browser test (tests/serve/test_browser.py): Debian's chromium, installed
# with apt-get where it is missing and this runs as root; elsewhere the test is skipped (CI makes it required).
browser:
	@if command -v chromium >/dev/null 2>&1 || [ -n "$$SSDCO_CHROMIUM" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make: installing Debian's chromium for the browser test"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq chromium >/dev/null 2>&1 \
	  || { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; } \
	  || echo "make: could not install chromium: the browser test will say so"; \
	else echo "make: no chromium (install it, or set SSDCO_CHROMIUM): the browser test is skipped"; fi

# The main job on the built-in PM9A3 example: the cheapest controller for the study's targets.
demo: $(BIN)/.base
	$(BIN)/ssdco optimize configs/pm9a3-960.toml --min-iops 500000 --core-mw 192 --dram-mw 800

test: $(BIN)/.installed browser
	HYPOTHESIS_PROFILE=$(HYPOTHESIS_PROFILE) $(BIN)/python -m pytest -n auto

# The property tests with fresh random examples (the "dev" profile, more of them): for finding new cases.
fuzz: $(BIN)/.installed
	HYPOTHESIS_PROFILE=dev $(BIN)/python -m pytest -n auto tests/model tests/ftl tests/network tests/optimizer tests/sim tests/validation

# The speed benchmarks (benchmarks/speed.py, every part; benchmarks/README.md says what each measures).
bench: $(BIN)/.installed
	$(BIN)/python benchmarks/speed.py

# The model-vs-DES campaign (a few minutes), then docs/accuracy.md rendered from its JSON.
accuracy: $(BIN)/.installed
	$(BIN)/python benchmarks/accuracy.py run --fast --confirm 1000000 --spread 0.001
	$(BIN)/python benchmarks/accuracy.py render

study: $(BIN)/.installed
	$(BIN)/ssdco study configs/pm9a3-960.toml

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
