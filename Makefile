# agentmemd — `make run` starts a demo daemon, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO := demo
SOCKET := $(DEMO)/agentmemd.sock
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test lint venv clean

$(BIN)/agentmemd: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test,bench]'
	touch $@

venv: $(BIN)/agentmemd

run: venv
	@mkdir -p $(DEMO)/data
	@$(BIN)/agentmemd init $(DEMO)/workspace --config $(DEMO)/agentmemd.toml
	@echo "agentmemd demo: data $(DEMO)/data, workspace $(DEMO)/workspace (edit its Markdown; it is indexed on save)"
	@echo "socket: $(SOCKET)"
	@echo "try, in another shell:  $(BIN)/agentmemd --socket $(SOCKET) add 'The user prefers short answers' --type preference && $(BIN)/agentmemd --socket $(SOCKET) pack 'how should I answer?' --budget 200"
	$(BIN)/agentmemd serve --data-dir $(DEMO)/data --socket $(SOCKET) --config $(DEMO)/agentmemd.toml

# Two workers, whole files each (module-scoped daemons stay in one worker): ~5 min instead of ~8.5.
test: venv lint
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# The layers contract (pyproject.toml) and the linter: complexity <= 15, import order, pyflakes, bugbear.
lint: venv
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) $(DEMO) build *.egg-info
