# Two commands do all the set-up (see README.md):
#   make book   create .venv, install everything, execute the chapters and build the HTML book
#   make test   the full test suite (unit, equivalence, learning, notebooks, book build)
# and `make lab` opens the chapters in JupyterLab.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export TF_CPP_MIN_LOG_LEVEL ?= 2
export PYTHONHASHSEED ?= 0

.PHONY: venv book test lab lint assignments grade clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "rlkit needs Python >= 3.11, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all]'
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -W
	@echo
	@echo "The book is built. Open it in a browser: file://$(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile --nbval-lax tests notebooks

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

# The source files the chapters show (their literalinclude directives): they fit the book's
# 85-column code column, so they are linted and formatted at 85 columns, and pyproject.toml keeps
# the 120-column format pass off them (see CONTRIBUTING.md, "Checks").
SHOWN = $(shell sed -n 's|.*literalinclude} \.\./\([^ \\"]*\).*|\1|p' notebooks/*.ipynb | sort -u)

lint: $(STAMP)
	$(BIN)/ruff check rlkit tests benchmarks
	$(BIN)/ruff format --check rlkit tests benchmarks
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
