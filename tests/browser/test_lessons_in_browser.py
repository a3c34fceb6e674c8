"""Every lesson as a learner meets it: opened in JupyterLab in Chromium, Run All from the Run menu, and read
off the page. Fails on any traceback (a cell's error, or one a widget callback sends), a cell not run, a lesson
whose Run All takes longer than the course's per-lesson limit (120 s on a CPU, as under nbval), a checked cell
(tag nbval-check-output) whose saved output is not the stored one (nbval's comparison), a widget shown as text
or "Error displaying widget", a widget whose output does not change after one real interaction, or Bengali text
drawn without a Bengali font. So a lesson that passes here has had every check `make notebooks` (nbval) makes, and
`make test` runs nbval only for the lessons that did not pass here (out/browser/verified/ lists those that did).

Screenshots (first screen of each lesson, each widget after its interaction) go to out/browser/.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import time

import pytest
from browser_support import (
    EXECUTED,
    INSTALL_FONT,
    VERIFIED,
    bengali_font_families,
    bengali_fonts_used,
    checked_output_mismatches,
    lesson_names,
    lesson_source_dir,
    solution_output_leaks,
)

# How long Run All may take: the course's per-lesson limit on a CPU, the same that conftest.py holds nbval's run
# to (MISHRAN_NOTEBOOK_LIMIT_S, 120 s). The test waits a little longer (WAIT_S) so that a slow lesson is reported
# with its time rather than as "still running". A busier machine may raise both: MISHRAN_BROWSER_BUDGET_S=300.
LESSON_BUDGET_S = float(os.environ.get("MISHRAN_BROWSER_BUDGET_S", os.environ.get("MISHRAN_NOTEBOOK_LIMIT_S", 120)))
WAIT_S = LESSON_BUDGET_S * 1.5
WIDGET_BUDGET_S = 60           # from one interaction to its changed output
ANSI = re.compile(r"\x1b\[[0-9;]*m")
WIDGET_AS_TEXT = re.compile(r"^\s*[A-Z]\w*\((children|value|layout|description|options|outputs|min|max)=", re.M)


class KernelTraffic:
    """What the kernel sends to the page over the websocket (Jupyter's v1 binary protocol or JSON):
    error messages and tracebacks on stderr, including those from widget callbacks, which JupyterLab shows
    only in its log console."""

    def __init__(self, page):
        self.problems: list[str] = []
        self.executed = 0                           # execute_input messages: one per cell the kernel ran
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame) if "/channels" in ws.url else None)

    @staticmethod
    def parse(payload) -> dict | None:
        try:
            if isinstance(payload, str):
                msg = json.loads(payload)
                return {"channel": msg.get("channel"), "type": msg["header"]["msg_type"], "content": msg["content"]}
            n = int.from_bytes(payload[:8], "little")
            offsets = [int.from_bytes(payload[8 + 8 * i:16 + 8 * i], "little") for i in range(n)] + [len(payload)]
            parts = [payload[offsets[i]:offsets[i + 1]] for i in range(n)]
            return {"channel": parts[0].decode(), "type": json.loads(parts[1])["msg_type"],
                    "content": json.loads(parts[4])}
        except (ValueError, KeyError, IndexError, TypeError):
            return None

    def _frame(self, payload) -> None:
        msg = self.parse(payload)
        if msg is None or msg["channel"] != "iopub":
            return
        c = msg["content"]
        if msg["type"] == "execute_input":
            self.executed += 1
        elif msg["type"] == "error":
            tb = ANSI.sub("", "\n".join(c.get("traceback", [])))
            self.problems.append(f"{c.get('ename')}: {c.get('evalue')}\n{tb[-1500:]}")
        elif msg["type"] == "stream" and c.get("name") == "stderr" and "Traceback (most recent call last)" in \
                c.get("text", ""):
            self.problems.append("traceback on stderr:\n" + ANSI.sub("", c["text"])[-1500:])

    def take(self) -> list[str]:
        found, self.problems = self.problems, []
        return found


STATE_JS = """
() => {
  const cells = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')];
  const prompts = cells.map(c => (c.querySelector('.jp-InputPrompt')?.textContent || '').trim());
  const bar = [...document.querySelectorAll('.jp-StatusBar-TextItem')].map(e => e.textContent).join(' | ');
  return {prompts, bar};
}
"""

RUNNING_CELLS_JS = """
() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')]
  .filter(c => (c.querySelector('.jp-InputPrompt')?.textContent || '').includes('*'))
  .map(c => (c.querySelector('.cm-content')?.innerText || '').split('\\n').slice(0, 3).join(' / '))
"""

OUTPUT_PROBLEMS_JS = """
(asText) => {
  const re = new RegExp(asText, 'm');
  const found = [];
  for (const o of document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')) {
    const mime = o.getAttribute('data-mime-type') || '';
    const text = o.innerText || '';
    if (mime === 'application/vnd.jupyter.stderr' && text.includes('Traceback'))
      found.push('traceback in an output: ' + text.slice(-600));
    if (mime === 'text/plain' && re.test(text)) found.push('widget shown as text: ' + text.slice(0, 200));
  }
  const outs = [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')].map(o => o.innerText).join(' ');
  if (outs.includes('Error displaying widget')) found.push('"Error displaying widget" in an output');
  return found;
}
"""

# Top-level widget outputs (not the outputs inside an ipywidgets Output widget).
WIDGETS = ".jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output:has(.jupyter-widgets)"

SIGNATURE_JS = """
(el) => {
  // what the widget shows, leaving out the control that was just used (a slider's own readout, say)
  const c = el.cloneNode(true);
  c.querySelectorAll('[data-mishran-control]').forEach(n => n.remove());
  const imgs = [...c.querySelectorAll('img')].map(i => i.getAttribute('src') || '');
  return c.textContent + '\\n' + imgs.join('\\n');
}
"""


def kernel_idle(state: dict) -> bool:
    """The status bar's kernel item says "… | Idle" once the kernel is connected and has nothing to do."""
    return re.search(r"\|\s*Idle\b", state["bar"]) is not None


def wait_idle(page, timeout_s: float) -> tuple[bool, dict]:
    """Polls until no cell shows [*] and the kernel is idle, twice in a row."""
    deadline, calm, state = time.monotonic() + timeout_s, 0, {}
    while time.monotonic() < deadline:
        state = page.evaluate(STATE_JS)
        calm = calm + 1 if kernel_idle(state) and not any("*" in p for p in state["prompts"]) else 0
        if calm >= 2:
            return True, state
        page.wait_for_timeout(500)
    return False, state


def wait_started(page, timeout_s: float) -> bool:
    """After Run All: some cell shows [*] or a number."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(re.search(r"\[(\*|\d+)\]", p) for p in page.evaluate(STATE_JS)["prompts"]):
            return True
        page.wait_for_timeout(200)
    return False


def mark_control(widget):
    """One control to use, the first a person would reach for: a text box, a dropdown, a slider, a checkbox,
    a button. Marks its widget element (data-mishran-control) and returns (kind, locator) or None."""
    candidates = [("text", ".widget-text input, .widget-textarea textarea"), ("dropdown", ".widget-dropdown select"),
                  ("slider", ".widget-slider .noUi-handle, .widget-slider input[type=range]"),
                  ("checkbox", ".widget-checkbox input[type=checkbox]"), ("button", "button.jupyter-button")]
    for kind, selector in candidates:
        loc = widget.locator(selector)
        for i in range(loc.count()):
            el = loc.nth(i)
            if el.is_visible() and el.is_enabled():
                el.evaluate("e => (e.closest('.widget-inline-hbox, .widget-button, .jupyter-widgets') || e)"
                            ".setAttribute('data-mishran-control', '1')")
                return kind, el
    return None


def interact(page, kind: str, el) -> str:
    """One real interaction, as a person would do it; returns what was done."""
    if kind == "text":
        old = el.input_value()
        try:
            new = "65504" if float(old.replace(",", "")) != 65504 else "0.1"
        except ValueError:
            new = "65504"
        el.click()
        el.fill(new)
        el.press("Enter")
        return f"typed {new!r} (was {old!r}) + Enter"
    if kind == "dropdown":
        options = el.evaluate("s => [...s.options].map(o => o.value)")
        old = el.input_value()
        new = options[(options.index(old) + 1) % len(options)] if old in options else options[0]
        el.select_option(new)
        return f"chose option {new!r} (was {old!r})"
    if kind == "slider":
        el.scroll_into_view_if_needed()
        box = el.bounding_box()
        track = el.evaluate("h => { const t = h.closest('.slider, .noUi-target') || h.parentElement;"
                            " const r = t.getBoundingClientRect(); return [r.left, r.width]; }")
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        dx = track[1] / 4 if x < track[0] + track[1] * 0.6 else -track[1] / 4
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + dx / 2, y, steps=4)
        page.mouse.move(x + dx, y, steps=4)
        page.mouse.up()
        return f"dragged the slider by {dx:+.0f} px"
    el.click()
    return f"clicked the {kind}"


class LabPage:
    """One JupyterLab page for the lessons, as a learner keeps one tab open: the app loads once, and each lesson is
    opened from the file browser (a double click) and closed after it. A lesson that fails leaves the page behind:
    the next one starts in a freshly loaded JupyterLab."""

    def __init__(self, lab, browser):
        self.lab, self.browser, self.page, self.kernel = lab, browser, None, None

    def open(self, lesson: str):
        if self.page is None:
            self.page = self.browser.new_page(viewport={"width": 1400, "height": 900})
            self.kernel = KernelTraffic(self.page)
            self.page.goto(self.lab.url("lab/workspaces/lessons/tree/notebooks", "reset"))
        self.page.locator(".jp-DirListing-itemText", has_text=re.compile(f"^{re.escape(lesson)}$")).dblclick()
        self.page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        self.kernel.take()                                   # nothing from an earlier lesson counts against this one
        self.kernel.executed = 0
        return self.page, self.kernel

    def close(self, failed: bool) -> None:
        """The lesson's kernel shut down and its tab closed (its changes discarded: the copy was saved already)."""
        self.lab.shutdown_kernels()
        if failed or self.page is None:
            if self.page is not None:
                self.page.close()
            self.page = None
            return
        self.page.locator(".lm-TabBar-tab.jp-mod-current .lm-TabBar-tabCloseIcon").first.click()
        # either the tab closes at once, or JupyterLab asks about unsaved changes (a widget touched after saving)
        self.page.wait_for_function("() => !document.querySelector('.jp-Notebook') || "
                                    "document.querySelector('.jp-Dialog')", timeout=30_000)
        discard = self.page.locator(".jp-Dialog .jp-Dialog-button", has_text=re.compile(r"Discard|Don.t Save"))
        if discard.count():
            discard.first.click()
        self.page.wait_for_function("() => !document.querySelector('.jp-Notebook')", timeout=30_000)


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    holder = LabPage(lab, browser)
    yield holder
    if holder.page is not None:
        holder.page.close()


@pytest.mark.parametrize("lesson", lesson_names())
def test_lesson_in_jupyterlab(lesson, lab_page, shots, record_property):
    stem = lesson.removesuffix(".ipynb")
    times = {}
    t0 = time.monotonic()
    failed = True
    try:
        page, kernel = lab_page.open(lesson)
        ok, state = wait_idle(page, 90)
        assert ok, f"{lesson}: the kernel did not become idle after opening ({state.get('bar')})"
        times["open"] = time.monotonic() - t0

        # Run All, from the menu a learner uses
        t1 = time.monotonic()
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        assert wait_started(page, 30), f"{lesson}: Run All did not start any cell within 30 s"
        ok, state = wait_idle(page, WAIT_S)
        times["run all"] = time.monotonic() - t1
        if not ok:
            still = page.evaluate(RUNNING_CELLS_JS)
            pytest.fail(f"{lesson}: still running after {WAIT_S:.0f} s; cells not finished: {still[:3]}")
        page.wait_for_timeout(500)
        problems = kernel.take()
        assert not problems, f"{lesson}: the kernel sent errors:\n" + "\n---\n".join(problems)
        # every code cell ran once, in order: each visible prompt shows its position ([1] … [N]; a solution cell
        # hides its prompt but takes its number), and the kernel announced one execute_input per code cell
        prompts = state["prompts"]
        wrong = [(i, p) for i, p in enumerate(prompts) if p and p.replace("\xa0", " ") != f"[{i + 1}]:"]
        assert not wrong, f"{lesson}: cells not run once in order (Run All stopped?): {wrong[:5]}"
        assert kernel.executed == len(prompts), (f"{lesson}: {len(prompts)} code cells, but the kernel ran "
                                                 f"{kernel.executed}")

        # widgets: rendered (no "Loading widget...", no text fallback), then one interaction each
        page.wait_for_function("() => ![...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]"
                               ".some(o => o.innerText.includes('Loading widget...'))", timeout=30_000)
        problems = page.evaluate(OUTPUT_PROBLEMS_JS, WIDGET_AS_TEXT.pattern)
        assert not problems, f"{lesson}:\n" + "\n".join(problems)
        page.locator(".jp-Notebook .jp-Cell").first.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"{stem}_first.png"))

        # save (Ctrl+S, widget state included) and keep the executed copy for the website
        page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})
        page.keyboard.press("Control+s")
        page.wait_for_function("() => !document.querySelector('.jp-mod-current.jp-mod-dirty, "
                               ".lm-TabBar-tab.jp-mod-current.jp-mod-dirty')", timeout=30_000)
        EXECUTED.mkdir(parents=True, exist_ok=True)
        shutil.copy2(lab_page.lab.root / "notebooks" / lesson, EXECUTED / lesson)
        mismatches = checked_output_mismatches(EXECUTED / lesson, lesson_source_dir() / lesson)
        assert not mismatches, f"{lesson}: checked outputs differ from the stored ones:\n" + "\n".join(mismatches)
        leaks = solution_output_leaks(EXECUTED / lesson)
        assert not leaks, f"{lesson}: hidden solution cells printed more than a checker's verdict: {leaks}"

        # Bengali with a Bengali font, in the prose and in a cell's printed output
        bn_families = bengali_font_families()
        assert bn_families, f"no font with Bengali glyphs on this machine: {INSTALL_FONT}"
        for scope, mark in ((".jp-MarkdownOutput h1, .jp-MarkdownOutput p, .jp-MarkdownOutput li", "md"),
                            (".jp-OutputArea-output pre", "out")):
            fonts = bengali_fonts_used(page, scope, mark)
            if fonts is None:
                continue
            used = {f["familyName"] for f in fonts if f["glyphCount"]}
            assert used & bn_families, (f"{lesson}: Bengali text ({scope}) drawn with {sorted(used)}, none of which "
                                        f"has Bengali glyphs (those that do: {sorted(bn_families)})")

        t2 = time.monotonic()
        widgets = page.locator(WIDGETS)
        done = []
        for i in range(widgets.count()):
            w = widgets.nth(i)
            w.scroll_into_view_if_needed()
            control = mark_control(w)
            if control is None:
                done.append(f"widget {i}: nothing to interact with (display only)")
                continue
            before = w.evaluate(SIGNATURE_JS)
            action = interact(page, *control)
            deadline, after = time.monotonic() + WIDGET_BUDGET_S, before
            while time.monotonic() < deadline and after == before:
                page.wait_for_timeout(300)
                after = w.evaluate(SIGNATURE_JS)
            wait_idle(page, WIDGET_BUDGET_S)
            w.screenshot(path=str(shots / f"{stem}_widget{i}.png"))
            problems = kernel.take() + page.evaluate(OUTPUT_PROBLEMS_JS, WIDGET_AS_TEXT.pattern)
            assert not problems, f"{lesson}, widget {i} after '{action}':\n" + "\n---\n".join(problems)
            assert after != before, (f"{lesson}, widget {i}: nothing in its output changed within "
                                     f"{WIDGET_BUDGET_S} s after '{action}' (screenshot {stem}_widget{i}.png)")
            done.append(f"widget {i}: {action} → output changed")
        times["widgets"] = time.monotonic() - t2
        print(f"\n{lesson}: " + ("; ".join(done) if done else "no widgets"))
        assert times["run all"] <= LESSON_BUDGET_S, (f"{lesson}: Run All took {times['run all']:.1f} s, over the "
                                                     f"course's {LESSON_BUDGET_S:.0f} s a lesson on a CPU")
        VERIFIED.mkdir(parents=True, exist_ok=True)
        (VERIFIED / lesson).touch()
        failed = False
    finally:
        times["total"] = time.monotonic() - t0
        record_property("browser_times", {stem: times})          # printed at the end (conftest.py)
        if failed and lab_page.page is not None:
            try:
                lab_page.page.screenshot(path=str(shots / f"{stem}_FAILED.png"))
            except Exception:                      # the page may be gone; the assertion says why
                pass
        lab_page.close(failed)

