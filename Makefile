# মিশ্রণ — two commands do everything: `make lab` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
# Which torch to install. Users get any torch >= 2.11 (tested: docs/versions.md); CI sets TORCH_SPEC=torch==2.13.0 (the CPU build on disk).
# Extra pip arguments for torch alone, e.g. TORCH_PIP_ARGS="--index-url https://download.pytorch.org/whl/cpu".
# Not given: `tools/torch_check.py --choose` picks them when the torch step runs — on Linux without an NVIDIA GPU the
# CPU build's index (PyPI's Linux torch is the CUDA build, several GB of no use there), otherwise none — and the step
# says which it chose. Given, even empty (TORCH_PIP_ARGS=""), they are used as they are.
TORCH_SPEC ?= torch>=2.11
TORCH_AUTO := $(filter undefined,$(origin TORCH_PIP_ARGS))
TORCH_PIP_ARGS ?=
TORCH_ARGS_SH = $(if $(TORCH_AUTO),$$($(PYTHON) tools/torch_check.py --choose 2>/dev/null),$(TORCH_PIP_ARGS))
PY  := $(VENV)/bin/python
PIP := $(PY) -m pip
# Who installs the packages: pip, or uv's pip interface when UV names a uv program (`make test UV=uv`). Both install
# the same packages from the same pyproject.toml; uv resolves and unpacks them several times faster (CI uses it: 14 s
# from a cold cache on 2 cores; pip took 112 s). uv does not read pip's configuration files: .ci/run shows how a
# machine's local indexes are handed to it.
UV ?=
INSTALL := $(if $(UV),$(UV) pip install --python $(PY),$(PIP) install)
FIRST_LESSON := notebooks/00_orientation.ipynb
LINT := tools/course_lint.py
# Extra JupyterLab options, e.g. LAB_ARGS="--no-browser --port 8899". As root (a container), Jupyter needs
# --allow-root: added separately, so it stays whatever LAB_ARGS says.
LAB_ARGS ?=
ROOT_ARGS := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)
# pytest-xdist workers for the unit tests, the notebooks and the browser tests: CI's machine has 2 cores, and each
# test process then keeps to one torch thread (tests/conftest.py). TEST_JOBS=1: one process, as plain pytest.
TEST_JOBS ?= 2
XDIST := $(if $(filter-out 0 1,$(TEST_JOBS)),-n $(TEST_JOBS))
# When this make started: `make test` reports how long the install took, if it ran.
MAKE_START := $(shell date +%s)
# What was asked for torch is kept in $(VENV)/.torch-request: TORCH_SPEC and the pip arguments (given or chosen), a
# line each; the torch step installs what it says.

.PHONY: lab test unit notebooks notebooks-left lint clean-notebooks colab host help student answer-key lint-code python-check site browser-test FORCE

help:  ## এই তালিকা: প্রতিটি target আর সে কী করে
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-zA-Z_-]+):.*## /\1\t/' | \
	awk -F'\t' '{printf "make %-16s %s\n", $$1, $$2}'

# Python >= 3.10 is checked before anything is downloaded.
python-check:  ## Python 3.10 বা নতুন কি না দেখে (কিছু নামানোর আগে)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || { \
	echo "মিশ্রণ-এর জন্য Python 3.10 বা নতুন লাগবে (Python >= 3.10 required); $(PYTHON) হলো" \
	"'$$($(PYTHON) --version 2>&1)'। নতুন Python দিয়ে চালাও, যেমন: make PYTHON=python3.12"; exit 1; }

# The torch step is atomic: the stamp is written only after torch imports, so a failed or interrupted install
# (a wrong TORCH_SPEC, a dropped connection) is retried next time instead of leaving a half-made .venv behind.
# What was asked for torch is remembered; a changed request re-runs the torch step and says so. Unless only
# TORCH_SPEC changed and the installed torch already meets it (CI's torch==2.13.0, then a plain `make lab` with
# torch>=2.11): then the request is rewritten with the torch step's own time, so nothing after it re-installs.
$(VENV)/.torch-request: FORCE
	@mkdir -p $(VENV)
	@args="$(TORCH_ARGS_SH)"; new="$$(printf '%s\n%s' "$(TORCH_SPEC)" "$$args")"; \
	if [ -f $@ ] && [ "$$(cat $@)" != "$$new" ]; then \
	  echo "torch-এর অনুরোধ বদলেছে (TORCH_SPEC/TORCH_PIP_ARGS changed): আগে '$$(echo $$(cat $@))', এখন '$$(echo $$new)'"; \
	  if [ -f $(VENV)/.stamp-torch ] && [ "$$(sed -n 2p $@)" = "$$args" ] && \
	     have="$$($(PY) tools/torch_check.py --satisfies "$(TORCH_SPEC)" 2>/dev/null)" && [ -n "$$have" ]; then \
	    echo "$$new" > $@; touch -r $(VENV)/.stamp-torch $@; echo "$$have"; exit 0; fi; \
	fi; \
	[ -f $@ ] && [ "$$(cat $@)" = "$$new" ] || echo "$$new" > $@

$(VENV)/.stamp-torch: $(VENV)/.torch-request | python-check
	@rm -f $@
	@if [ ! -x $(PY) ]; then set -x; $(PYTHON) -m venv $(VENV) && $(INSTALL) -q --upgrade pip; fi
	@$(if $(TORCH_AUTO),$(PYTHON) tools/torch_check.py --choose >/dev/null;) \
	args="$$(sed -n 2p $(VENV)/.torch-request)"; set -x; $(INSTALL) -q $$args "$(TORCH_SPEC)"
	@$(PY) tools/torch_check.py "$(TORCH_SPEC)" "$$(sed -n 2p $(VENV)/.torch-request)"
	@touch $@

# Re-install when the project's dependency list changes. `lab` needs less than `test` (no pytest, no DeepSpeed).
# torchao (FP8, lesson 07) only where FP8 tensor cores exist (Ada sm_89, Hopper sm_90): mishran.hardware decides.
$(VENV)/.stamp-lab: pyproject.toml $(VENV)/.stamp-torch
	$(INSTALL) -q -e ".[lab]"
	@if $(PY) -c "from mishran.hardware import supports; raise SystemExit(not supports('fp8', 'cuda'))" 2>/dev/null; \
	then $(INSTALL) -q -e ".[lab,fp8]"; else echo "FP8 GPU নেই: torchao বাদ (পাঠ ০৭ CPU-তে অনুকরণ দেখায়)"; fi
	touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-torch
	$(INSTALL) -q -e ".[lab,test]"
	@echo $(MAKE_START) > $(VENV)/.installed-by
	touch $@ $(VENV)/.stamp-lab

lab: $(VENV)/.stamp-lab  ## .venv তৈরি/হালনাগাদ করে JupyterLab-এ পাঠ ০০ খোলে (LAB_ARGS="--port 8899" ইত্যাদি)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(ROOT_ARGS) $(LAB_ARGS) $(FIRST_LESSON)

# $(call timed,NAME,COMMAND): runs COMMAND and keeps its exit status; under `make test` (MISHRAN_PHASES names a
# file) it also adds the row "NAME, seconds, status" to the table printed at the end.
timed = s=$$(date +%s); $(2); rc=$$?; [ -z "$$MISHRAN_PHASES" ] || \
	printf '%s\t%s\t%s\n' "$(1)" "$$(( $$(date +%s) - s ))" "$$rc" >> "$$MISHRAN_PHASES"; exit $$rc

# ruff over the code (rules in pyproject.toml): zero findings, before any test runs.
lint-code: $(VENV)/.stamp-test  ## ruff দিয়ে src/ tests/ tools/ conftest.py setup.py যাচাই (শূন্য finding)
	@$(call timed,ruff,$(PY) -m ruff check src tests tools conftest.py setup.py)

# Unit tests, two test files at a time (pytest-xdist; a file stays in one process, with its module fixtures).
unit: $(VENV)/.stamp-test  ## শুধু unit tests (tests/)
	@$(call timed,unit tests,$(PY) -m pytest -q $(XDIST) $(if $(XDIST),--dist loadfile) tests)

# One notebook at a time, with every core: the 120 s budget is per lesson as a learner runs it, and two lessons
# sharing CI's two cores pushed lesson 05 over it (122.5 s with xdist, one torch thread each).
notebooks: $(VENV)/.stamp-test  ## nbval দিয়ে সব notebook চালায় (প্রতিটি CPU-তে ১২০ s-এর মধ্যে)
	@$(call timed,notebooks (nbval),$(PY) -m pytest -q --nbval-lax notebooks)

# nbval for the lessons the browser test did not pass (out/browser/verified/ lists those it did: they ran there
# with every check nbval makes). Without Chromium that is every lesson; when all passed there, nothing runs.
VERIFIED ?= out/browser/verified
notebooks-left: $(VENV)/.stamp-test  ## nbval, শুধু browser-এ যে পাঠ পাস করেনি (Chromium না থাকলে সব)
	@left=$$(for nb in notebooks/[0-9][0-9]_*.ipynb; do [ -f $(VERIFIED)/$${nb##*/} ] || echo $$nb; done); \
	if [ -z "$$left" ]; then echo "nbval: every lesson passed in JupyterLab with nbval's checks ($(VERIFIED)/)"; \
	  [ -z "$$MISHRAN_PHASES" ] || printf 'notebooks (nbval)\t0\t0\n' >> "$$MISHRAN_PHASES"; \
	else echo "nbval runs the lessons JupyterLab did not pass:" $$left; \
	  $(call timed,notebooks (nbval),$(PY) -m pytest -q --nbval-lax $$left); fi

# `make test`: ruff, then two lanes. The browser lane runs each lesson once, in JupyterLab, with every check nbval
# makes (checked outputs, the 120 s limit, errors) plus the widgets and fonts; then nbval only for the lessons that
# did not pass there; then the website. The unit tests run beside it at a lower CPU priority (nice), so they use
# what the browser lane leaves idle and the lessons' timed runs keep the machine first. Every phase runs even after
# one failed; then a table of each phase's time and status. The exit status is the first failing phase's.
UNIT_NICE ?= 10
test: $(VENV)/.stamp-test  ## ruff; পাশাপাশি unit tests আর browser-এ পাঠ (nbval-এর যাচাইসহ) ও ওয়েবসাইট; শেষে প্রতিটি ধাপের সময়
	@t="$(abspath $(VENV))/.test-phases"; log="$(abspath $(VENV))/.unit-tests.log"; : > "$$t"; : > "$$t.unit"; \
	if [ "$$(cat $(VENV)/.installed-by 2>/dev/null)" = "$(MAKE_START)" ]; then \
	  printf 'install\t%s\t0\n' "$$(( $$(date +%s) - $(MAKE_START) ))" >> "$$t"; fi; rm -f $(VENV)/.installed-by; \
	export MISHRAN_PHASES="$$t"; $(MAKE) --no-print-directory lint-code; \
	( MISHRAN_PHASES="$$t.unit" nice -n $(UNIT_NICE) $(MAKE) --no-print-directory unit > "$$log" 2>&1 ) & unit=$$!; \
	echo "unit tests: started beside the browser lane (nice $(UNIT_NICE)); their output follows when they end"; \
	$(MAKE) --no-print-directory -k browser-test notebooks-left; \
	wait $$unit; echo; echo "── unit tests ──"; cat "$$log"; rm -f "$$log"; cat "$$t.unit" >> "$$t"; rm -f "$$t.unit"; \
	echo; echo "make test: each phase's time (the unit tests ran beside the browser lane)"; \
	awk -F'\t' '{ printf "  %-20s %5d s   %s\n", $$1, $$2, ($$3 == 0 ? "ok" : "FAILED (exit " $$3 ")") }' "$$t"; \
	all=$$(( $$(date +%s) - $(MAKE_START) )); printf '  %-20s %5d s   (%d min %02d s)\n' "in all" $$all $$((all / 60)) $$((all % 60)); \
	first=$$(awk -F'\t' '$$3 != 0 { print $$3; exit }' "$$t"); rm -f "$$t"; exit $${first:-0}

# The course website: tools/build_site.py runs every lesson once (nbclient) and renders it with
# nbconvert's lab template plus a small one of ours (site/templates/mishran). Chosen over Jupyter Book:
# nbconvert comes with JupyterLab already, builds offline (the widget manager and MathJax are two npm
# tarballs, fetched once into build/site-vendor/) and quickly on 2 cores; Jupyter Book 2 downloads its theme
# at build time, Jupyter Book 1 adds Sphinx and some 20 packages for the same pages.
SITE_DIR ?= out/site
# STUDENT=1: the site for learners, from the handouts (no solutions), in out/site-student/.
site: $(VENV)/.stamp-test  ## কোর্সের ওয়েবসাইট out/site/-এ: সব পাঠ CPU-তে চালিয়ে স্থির HTML, docs, index (STUDENT=1: সমাধান ছাড়া)
	$(PY) tools/build_site.py $(if $(filter 1,$(STUDENT)),--student --out out/site-student,--out $(SITE_DIR))

# Chromium (Debian's, through Playwright) drives JupyterLab: every lesson Run All, saved, every widget touched
# once; the site is then built from those saved lessons (each lesson runs once for both) and every page of
# it opened. Screenshots in out/browser/. Needs `apt-get install chromium fonts-beng npm` (README).
# Lessons run one at a time, as a learner runs them (each has a 180 s budget, lesson 05 is the longest); the site's
# pages are spread over TEST_JOBS browsers (each worker has its own Chromium).
browser-test: $(VENV)/.stamp-test  ## browser-এ প্রতিটি পাঠ (JupyterLab), তারপর ওয়েবসাইট বানিয়ে যাচাই
	@( $(call timed,browser: lessons,MISHRAN_BROWSER=1 $(PY) -m pytest -q tests/browser/test_lessons_in_browser.py) ); rc=$$?; \
	( $(call timed,site build,$(PY) tools/build_site.py --out $(SITE_DIR) --executed out/browser/executed) ) && \
	( $(call timed,browser: site,MISHRAN_BROWSER=1 MISHRAN_SITE_DIR="$(abspath $(SITE_DIR))" \
	  $(PY) -m pytest -q $(XDIST) $(if $(XDIST),--dist worksteal) tests/browser/test_site_in_browser.py) ) && exit $$rc

# For authors: measure the notebooks against the course conventions (standard library only: no .venv needed).
lint:  ## (লেখকদের) tools/course_lint.py দিয়ে notebook-এর রীতি মাপে
	$(PYTHON) $(LINT) notebooks/

# For authors: execute notebooks and store them clean (outputs kept only where nbval checks them).
clean-notebooks: $(VENV)/.stamp-test  ## (লেখকদের) notebook চালিয়ে পরিষ্কার করে রাখে (nbclean)
	$(PY) tools/nbclean.py --execute notebooks/*.ipynb

# For teachers: solution-free handouts of every lesson in handouts/, to commit to the teacher's fork: their badges
# open handouts/NN_*.ipynb at pyproject's ref (docs/teachers_guide.md). GRADED=1: checks only record answers.
HANDOUTS ?= handouts
# Every teacher's target sets up the .venv first, as `make lab` does (nbformat, the course's checks): on a fresh
# clone, or with no venv active, each works by itself.
student: $(VENV)/.stamp-lab  ## (শিক্ষকদের) সমাধান ছাড়া হ্যান্ডআউট handouts/-এ (GRADED=1: ঠিক-ভুল না বলে উত্তর জমা রাখে)
	$(PY) tools/student.py $(if $(filter 1,$(GRADED)),--graded) --out $(HANDOUTS) notebooks/[0-9][0-9]_*.ipynb

# For teachers: every exercise's question and its solution cell, in one Markdown file to print or share.
answer-key: $(VENV)/.stamp-lab  ## (শিক্ষকদের) সব অনুশীলনীর প্রশ্ন আর সমাধান এক ফাইলে: out/answer_key.md
	$(PY) tools/student.py --answer-key out/answer_key.md notebooks/[0-9][0-9]_*.ipynb

# For authors: rewrite every Open-in-Colab badge and setup cell from the URL and ref in pyproject.toml.
colab:  ## (লেখকদের) সব Open-in-Colab badge আর setup ঘর pyproject-এর URL আর ref থেকে
	$(PYTHON) tools/colab.py notebooks/*.ipynb

# For teachers: the whole course at a fork and a pin, e.g. make host REPO=https://github.com/you/mishran REF=class-2027
# (pyproject.toml's URL and ref, every badge and setup cell; then `make student` for the handouts).
host:  ## (শিক্ষকদের) পুরো কোর্স নিজের fork আর একটি tag/commit-এ: make host REPO=... REF=...
	@[ -n "$(REPO)" ] || [ -n "$(REF)" ] || { echo "REPO আর/বা REF দিন (give REPO and/or REF), যেমন:" \
	  "make host REPO=https://github.com/আপনার-নাম/mishran REF=class-2027"; exit 2; }
	@$(MAKE) --no-print-directory $(VENV)/.stamp-lab
	$(PY) tools/colab.py $(if $(REPO),--repo "$(REPO)") $(if $(REF),--ref "$(REF)") notebooks/*.ipynb

FORCE:
