# মিশ্রণ — two commands do everything: `make lab` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
# Which torch to install. Users get any torch >= 2.4; CI sets TORCH_SPEC=torch==2.13.0 (the CPU build on disk).
TORCH_SPEC ?= torch>=2.4
PY  := $(VENV)/bin/python
PIP := $(PY) -m pip
FIRST_LESSON := notebooks/00_orientation.ipynb

.PHONY: lab test unit notebooks lint clean-notebooks colab venv help

help:
	@echo "make lab   — .venv তৈরি/হালনাগাদ করে JupyterLab খোলে (lesson 00)"
	@echo "make test  — unit tests + nbval দিয়ে সব notebook চালায়"

venv: $(VENV)/.stamp

# Re-install when the project's dependency list changes.
$(VENV)/.stamp: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "$(TORCH_SPEC)"
	$(PIP) install -q -e ".[lab,test]"
	touch $@

lab: venv
	$(VENV)/bin/jupyter lab $(FIRST_LESSON)

unit: venv
	$(PY) -m pytest -q tests

notebooks: venv
	@start=$$(date +%s); \
	$(PY) -m pytest -q --nbval-lax -p no:randomly notebooks; rc=$$?; \
	echo "notebooks: $$(( $$(date +%s) - start )) s in all"; exit $$rc

test: unit notebooks

lint:
	$(PYTHON) ../shared/tools/course_lint.py notebooks/

# For authors: execute notebooks and store them clean (outputs kept only where nbval checks them).
clean-notebooks: venv
	$(PY) tools/nbclean.py --execute notebooks/*.ipynb

# For authors: rewrite every Open-in-Colab badge and setup cell from the URL in pyproject.toml.
colab: venv
	$(PY) tools/colab.py notebooks/*.ipynb
