# Two entry points: `make test` and `make demo`. Each sets up what it needs on a fresh machine
# (venv, Docker engine, images) and reuses it on the next run.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

export LITELLM_LOCAL_MODEL_COST_MAP := True
export DO_NOT_TRACK := 1
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS := 60

.PHONY: test demo venv engine browser postgres images bench doctor server clean

venv: $(STAMP)

# uv installs what pip would (the same 191 distributions and versions, compared with pip freeze) in
# 23 s against pip's 61 s: it fetches in parallel. The venv's own pip stays for whoever wants it.
$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	@echo "venv: installing clawmark and its test dependencies into $(VENV) with uv (errors only)"
	@$(PY) -m pip install -qq --disable-pip-version-check uv
	@$(VENV)/bin/uv pip install -q --python $(PY) --compile-bytecode -e '.[test]'
	@touch $(STAMP)

engine:
	@bash scripts/engine-up.sh

browser:
	@bash scripts/browser-up.sh

postgres:
	@bash scripts/postgres-up.sh

images: venv engine
	$(VENV)/bin/clawmark images build --all --jobs 4

# The venv (uv) and the engine (apt) are installed side by side, as each waits on its own
# downloads; run-tests.sh builds the images itself, beside the tests that need none, and installs
# the browser, PostgreSQL and the registry beside them.
test:
	@$(MAKE) --no-print-directory -j2 venv engine
	bash scripts/run-tests.sh $(PYTEST_ARGS)

# Only the images the demo's cells use; the demo prints its leaderboard and the report's path last.
DEMO_IMAGES := python workstation claw-nanobot claw-mini-swe-agent
demo:
	@$(MAKE) --no-print-directory -j2 venv engine
	@$(VENV)/bin/clawmark images build --jobs 3 $(DEMO_IMAGES)
	@$(VENV)/bin/clawmark demo

bench: venv engine images
	$(PY) bench/run_all.py

server: venv
	$(VENV)/bin/clawmark server start

doctor: venv
	$(VENV)/bin/clawmark doctor

clean:
	rm -rf $(VENV) .pytest_cache .clawmark
