# Set-up and everyday commands. `make demo` and `make test` are the README's two commands.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,bench]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/ssdco whatif configs/pm9a3-960.toml --controller c01

test: $(BIN)/.installed
	$(BIN)/python -m pytest

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/whatif_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
