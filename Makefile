# Set-up and everyday commands. `make demo` and `make test` are the README's two commands.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test bench study clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,bench,sweep,highs]'
	touch $@

# The main job on the built-in PM9A3 example: the cheapest controller for the study's targets.
demo: $(BIN)/.installed
	$(BIN)/ssdco optimize configs/pm9a3-960.toml --min-iops 500000 --core-mw 192 --dram-mw 800

test: $(BIN)/.installed
	$(BIN)/python -m pytest -n auto

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/whatif_speed.py
	$(BIN)/python benchmarks/write_buffer_speed.py
	$(BIN)/python benchmarks/des_speed.py
	$(BIN)/python benchmarks/optimize_speed.py
	$(BIN)/python benchmarks/model_vs_des.py
	$(BIN)/python benchmarks/write_buffer_vs_des.py
	$(BIN)/python benchmarks/periodic_vs_des.py
	$(BIN)/python benchmarks/schedule_chain_vs_des.py
	$(BIN)/python benchmarks/schedule_chain_steps.py
	$(BIN)/python benchmarks/schedule_chain_budget.py
	$(BIN)/python benchmarks/schedule_chain_grid_check.py
	$(BIN)/python benchmarks/schedule_chain_speed.py
	$(BIN)/python benchmarks/schedule_chain_solve.py
	$(BIN)/python benchmarks/routed_stage_vs_des.py
	$(BIN)/python -m benchmarks.monotonicity

study: $(BIN)/.installed
	$(BIN)/ssdco study configs/pm9a3-960.toml

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
