# মিশ্রণ — two commands do everything: `make lab` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
# Which torch to install. Users get any torch >= 2.4; CI sets TORCH_SPEC=torch==2.13.0 (the CPU build on disk).
# Extra pip arguments for torch alone, e.g. TORCH_PIP_ARGS="--index-url https://download.pytorch.org/whl/cpu".
TORCH_SPEC ?= torch>=2.4
TORCH_PIP_ARGS ?=
PY  := $(VENV)/bin/python
PIP := $(PY) -m pip
FIRST_LESSON := notebooks/00_orientation.ipynb
LINT := ../shared/tools/course_lint.py
# Extra JupyterLab options, e.g. LAB_ARGS="--no-browser --port 8899". As root (a container), Jupyter needs --allow-root.
LAB_ARGS ?= $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: lab test unit notebooks lint clean-notebooks colab help student

help:
	@echo "make lab   — .venv তৈরি/হালনাগাদ করে JupyterLab খোলে (lesson 00)"
	@echo "make test  — unit tests + nbval দিয়ে সব notebook চালায়"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q $(TORCH_PIP_ARGS) "$(TORCH_SPEC)"

# Re-install when the project's dependency list changes. `lab` needs less than `test` (no pytest, no DeepSpeed).
# torchao (FP8, lesson 07) only where FP8 tensor cores exist (Ada sm_89, Hopper sm_90): mishran.hardware decides.
$(VENV)/.stamp-lab: pyproject.toml | $(PY)
	$(PIP) install -q -e ".[lab]"
	@if $(PY) -c "from mishran.hardware import supports; raise SystemExit(not supports('fp8', 'cuda'))" 2>/dev/null; \
	then $(PIP) install -q -e ".[lab,fp8]"; else echo "FP8 GPU নেই: torchao বাদ (পাঠ ০৭ CPU-তে অনুকরণ দেখায়)"; fi
	touch $@

$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PIP) install -q -e ".[lab,test]"
	touch $@ $(VENV)/.stamp-lab

lab: $(VENV)/.stamp-lab
	$(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(LAB_ARGS) $(FIRST_LESSON)

unit: $(VENV)/.stamp-test
	$(PY) -m pytest -q tests

notebooks: $(VENV)/.stamp-test
	@start=$$(date +%s); \
	$(PY) -m pytest -q --nbval-lax notebooks; rc=$$?; \
	echo "notebooks: $$(( $$(date +%s) - start )) s in all"; exit $$rc

test: unit notebooks

# For authors: measure the notebooks against the course conventions (the tool lives beside the checkout).
lint:
	@if [ -f $(LINT) ]; then $(PYTHON) $(LINT) notebooks/; else echo "course_lint.py not found at $(LINT)"; fi

# For authors: execute notebooks and store them clean (outputs kept only where nbval checks them).
clean-notebooks: $(VENV)/.stamp-test
	$(PY) tools/nbclean.py --execute notebooks/*.ipynb

# For teachers: solution-free copies of every lesson in out/student/ (see docs/teachers_guide.md).
student:
	$(PYTHON) tools/student.py --out out/student notebooks/[0-9][0-9]_*.ipynb

# For authors: rewrite every Open-in-Colab badge and setup cell from the URL in pyproject.toml.
colab:
	$(PYTHON) tools/colab.py notebooks/*.ipynb
