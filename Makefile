# Two commands do all the set-up (see README.md):
#   make book   create .venv, install everything, execute the chapters and build the HTML book
#   make test   the full test suite (unit, equivalence, learning, notebooks, book build)
# and `make lab` opens the chapters in JupyterLab, `make browser-test` checks the executed book and every slider
# chapter in a real browser (Debian's chromium).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Which torch build to install: cpu (default, from PyTorch's CPU wheel index) or cuda (PyPI's torch, which on
# Linux is the CUDA build: `make book TORCH=cuda` on a GPU machine, in a fresh clone or after rm -rf .venv).
TORCH  ?= cpu
TORCH_INDEX_cpu  := --index-url https://download.pytorch.org/whl/cpu
ifeq ($(shell uname -s),Darwin)
TORCH_INDEX_cpu  :=  # PyPI's macOS torch is the CPU build
endif
TORCH_INDEX_cuda :=
TORCH_PIN := $(shell grep -o 'torch==[0-9.]*' pyproject.toml | head -1)
ifeq ($(filter $(TORCH),cpu cuda),)
$(error TORCH must be cpu or cuda, got '$(TORCH)')
endif
export TF_CPP_MIN_LOG_LEVEL ?= 2
export PYTHONHASHSEED ?= 0

.PHONY: venv book chapter book-shifted test browser-test lab lint assignments grade clean

venv: $(STAMP)

# torch is installed first, alone and without its dependencies, from TORCH_INDEX: only that one request goes
# to the torch index (with one retry: an unreachable index costs a second, where pip's default five retries
# per package would cost minutes over every package), and a failed request stops here instead of taking
# PyPI's CUDA build. The second install takes everything else, torch's dependencies included, from PyPI.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "rlkit needs Python >= 3.11, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --retries 1 --no-deps $(TORCH_INDEX_$(TORCH)) '$(TORCH_PIN)'
	$(BIN)/python -m pip install --quiet -e '.[all]'
	touch $(STAMP)

# The chapters are executed first, one per core, into the cache the build reads (_ext/execute_chapters.py);
# the build then only renders. A cell that fails on this machine shows its error in its page (allow_errors in
# _config.yml): the reader still gets the book, and the report after the build lists each failed cell with the
# command that re-runs its chapter. `make test` runs every cell under nbval and fails on any of them, and so does
# `make book` where CI is set (a workflow that publishes the book must not publish a failed cell).
book: $(STAMP)
	$(BIN)/python _ext/execute_chapters.py _build
	$(BIN)/jupyter-book build . -W
	@echo
	@$(BIN)/python _ext/book_report.py _build $(if $(CI),--strict)
	@echo
	@echo "The book is built. Open it in a browser: file://$(CURDIR)/_build/html/index.html"

# One chapter, every cell, as CI runs it: make chapter NB=10_dqn
chapter: $(STAMP)
	@test -n "$(NB)" || { echo "usage: make chapter NB=<chapter, e.g. 10_dqn>"; exit 2; }
	$(BIN)/python -m pytest --nbval-lax -p no:cacheprovider notebooks/$(basename $(notdir $(NB))).ipynb

# The chapters executed as on another machine: every seed shifted by each K (RLKIT_SEED_OFFSET, see
# rlkit/seeding.py). make book-shifted K="1 2 3" [NB=10_dqn] runs every cell of every chapter (or of NB).
K  ?= 1 2 3
NB ?=
book-shifted: $(STAMP)
	@set -e; for k in $(K); do \
		echo "== RLKIT_SEED_OFFSET=$$k"; \
		RLKIT_SEED_OFFSET=$$k $(BIN)/python -m pytest -n 2 --dist loadfile --nbval-lax -p no:cacheprovider \
			$(if $(NB),$(foreach n,$(NB),notebooks/$(basename $(notdir $(n))).ipynb),notebooks); \
	done

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile --nbval-lax --durations=40 tests notebooks

# The executed book (`make book`) and every slider chapter in JupyterLab, in Debian's chromium.
browser-test: book
	RLKIT_BOOK_HTML=$(CURDIR)/_build/html RLKIT_ALL_SLIDERS=1 $(BIN)/python -m pytest -n 2 --dist loadfile tests/browser/test_book.py tests/browser/test_lab.py

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

# The source files the chapters show (their literalinclude directives): they fit the book's
# 85-column code column, so they are linted and formatted at 85 columns, and pyproject.toml keeps
# the 120-column format pass off them (see CONTRIBUTING.md, "Checks").
SHOWN = $(shell sed -n 's|.*literalinclude} \.\./\([^ \\"]*\).*|\1|p' notebooks/*.ipynb | sort -u)

lint: $(STAMP)
	$(BIN)/ruff check rlkit course tests benchmarks _ext
	$(BIN)/ruff format --check rlkit course tests benchmarks _ext
	$(BIN)/ruff check --no-force-exclude --line-length 85 $(SHOWN)
	$(BIN)/ruff format --check --no-force-exclude --line-length 85 $(SHOWN)

# One otter-grader assignment per chapter exercise in _build/assignments/<chapter>/: student/ (hand it out),
# autograder/ (autograder.zip with the hidden tests, and the solution notebook). See book/teaching.md.
assignments: $(STAMP)
	$(BIN)/python -m classroom.assign

# Grade a folder of submitted notebooks without Docker: make grade SUBMISSIONS=dir (writes dir/grades.csv)
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<folder of submitted notebooks>"; exit 2; }
	$(BIN)/python -m classroom.grade $(SUBMISSIONS)

clean:
	rm -rf _build .pytest_cache
