"""The built course website (`make site`, out/site/) in Chromium: every page loads with no console error, no
failed or outside request, widgets drawn from their saved state, math typeset, Bengali drawn with the Hind
Siliguri web font shipped with the site, and no broken internal link (a missing page or a missing #anchor).
"""
from __future__ import annotations

import functools
import os
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest
from browser_support import REPO, bengali_fonts_used

SITE = Path(os.environ.get("MISHRAN_SITE_DIR", REPO / "out" / "site")).resolve()
SHIPPED_FONT = "Hind Siliguri"


def site_pages() -> list[str]:
    if not (SITE / "index.html").is_file():
        return []
    return sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html") if "_static" not in p.parts)


class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("id", "name") and v:
                self.ids.add(v)
            if tag == "a" and k == "href" and v:
                self.links.append(v)


@functools.cache
def parsed(rel: str) -> _Anchors:
    p = _Anchors()
    p.feed((SITE / rel).read_text(encoding="utf-8"))
    return p


def check_link(href: str, base: str) -> str | None:
    """None if href (absolute, as the browser resolved it) is fine; otherwise what is wrong."""
    if not href.startswith(base):
        return None                                  # outside the site: not ours to check offline
    url, frag = urldefrag(href)
    rel = unquote(urlparse(url).path).lstrip("/")
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    target = SITE / rel
    if not target.is_file():
        return f"{href}: no such file in the site"
    # as browsers do (HTML's "indicated part of the document"): the fragment as written, then percent-decoded
    if frag and rel.endswith(".html") and not {frag, unquote(frag)} & parsed(rel).ids:
        return f"{href}: no element with id '{unquote(frag)}' in {rel}"
    return None


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


def test_site_is_built():
    assert (SITE / "index.html").is_file(), f"no site in {SITE}: run `make site` first (make browser-test does)"
    lessons = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    built = sorted(p.stem for p in (SITE / "notebooks").glob("*.html"))
    assert built == lessons, f"the site's lessons {built} are not the repository's {lessons}: run `make site`"
    for doc in ("glossary", "teachers_guide", "troubleshooting", "colab", "benchmarks"):
        assert (SITE / "docs" / f"{doc}.html").is_file(), f"docs/{doc}.md is missing from the site"


def test_every_page_is_reachable_from_the_index():
    if not site_pages():
        pytest.fail(f"no site in {SITE}: run `make site` first")
    seen, todo = set(), ["index.html"]
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        for href in parsed(rel).links:
            absolute = urljoin(f"http://site/{rel}", href)
            if absolute.startswith("http://site/"):
                target = unquote(urlparse(urldefrag(absolute)[0]).path).lstrip("/")
                if target.endswith(".html") and (SITE / target).is_file():
                    todo.append(target)
    missing = sorted(set(site_pages()) - seen)
    assert not missing, f"pages no link leads to from index.html: {missing}"


PAGE_STATE_JS = """
async () => {
  await document.fonts.ready;
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    await window.MathJax.startup.promise;
  }
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const drawn = views.filter(s => s.parentElement.querySelector('[class*="widget-"]')).length;
  return {
    views: views.length, drawn,
    widgetErrors: [...document.querySelectorAll('.jupyter-widgets, .jp-OutputArea-output')]
      .some(e => (e.innerText || '').includes('Error displaying widget')),
    mathErrors: document.querySelectorAll('mjx-merror').length,
    mathDrawn: document.querySelectorAll('mjx-container').length,
    loadedFonts: [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family.replace(/"/g, '')),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  };
}
"""


class Requests:
    """The page's requests still under way. Playwright's "networkidle" at times never came here (lesson 05's page,
    1 load in 5 on a busy machine, for 120 s) after every request it had reported had finished; this waits for those
    requests to finish or fail, then for half a second without a new one."""

    def __init__(self, page):
        self.open: set = set()
        page.on("request", lambda r: self.open.add(r))
        page.on("requestfinished", lambda r: self.open.discard(r))
        page.on("requestfailed", lambda r: self.open.discard(r))

    def settle(self, page, quiet_ms: int = 500, timeout_ms: int = 30_000) -> bool:
        calm = waited = 0
        while waited < timeout_ms:
            calm = calm + 100 if not self.open else 0
            if calm >= quiet_ms:
                return True
            page.wait_for_timeout(100)
            waited += 100
        return False


@pytest.mark.parametrize("rel", site_pages() or ["index.html"])
def test_site_page_in_browser(rel, site_url, browser, shots):
    assert (SITE / rel).is_file(), f"no site in {SITE}: run `make site` first"
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text[:300]}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url[:200]} ({r.failure})"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url[:200]}") if r.status >= 400 else None)

    def only_the_site(route):
        url = route.request.url
        if url.startswith(site_url) or url.startswith("data:"):
            route.continue_()
        else:
            problems.append(f"loads from outside the site: {url[:200]}")
            route.abort()

    page.route("**/*", only_the_site)
    requests = Requests(page)
    try:
        page.goto(site_url + rel, wait_until="load")
        assert requests.settle(page), f"{rel}: requests still open 30 s after the page loaded: {requests.open}"
        for _ in range(40):                              # the widget manager draws after it loads
            state = page.evaluate(PAGE_STATE_JS)
            if state["drawn"] == state["views"]:
                break
            page.wait_for_timeout(250)
        stem = rel.removesuffix(".html").replace("/", "_")
        page.screenshot(path=str(shots / f"site_{stem}.png"))
        if state["views"]:
            page.locator(".jupyter-widgets").first.screenshot(path=str(shots / f"site_{stem}_widget.png"))

        assert state["drawn"] == state["views"], f"{rel}: {state['views'] - state['drawn']} widgets not drawn"
        assert not state["widgetErrors"], f"{rel}: 'Error displaying widget' on the page"
        assert not state["mathErrors"], f"{rel}: {state['mathErrors']} formulas MathJax could not typeset"
        if "tex-chtml-full.js" in (SITE / rel).read_text(encoding="utf-8"):   # the build saw $…$ in its prose
            assert state["mathDrawn"], f"{rel}: the page has $…$ but MathJax typeset nothing"
        broken = [why for href in state["links"] if (why := check_link(href, site_url))]
        assert not broken, f"{rel}: broken internal links:\n" + "\n".join(broken)
        assert SHIPPED_FONT in state["loadedFonts"], f"{rel}: the shipped {SHIPPED_FONT} web font did not load"
        fonts = bengali_fonts_used(page, "h1, h2, h3, p, li, td", "site")
        assert fonts is not None, f"{rel}: no Bengali text found on the page"
        used = {f["familyName"] for f in fonts if f["glyphCount"] and f["isCustomFont"]}
        assert SHIPPED_FONT in used, f"{rel}: Bengali text drawn with {fonts}, not the shipped {SHIPPED_FONT}"
        assert not problems, f"{rel}:\n" + "\n".join(problems)
    finally:
        page.close()


NAV_JS = """
() => {
  const nav = document.querySelector('nav.mishran-nav-top');
  const box = el => el.getBoundingClientRect();
  const shown = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const title = document.querySelector('h1');
  return {
    navBottom: box(nav).bottom, titleTop: title ? box(title).top : null, height: window.innerHeight,
    docLinks: [...nav.querySelectorAll('.mishran-menu a')].filter(shown).length,
    allDocLinks: nav.querySelectorAll('.mishran-menu a').length,
    button: shown(nav.querySelector('.mishran-menu-button')),
    scrollsSideways: document.documentElement.scrollWidth > window.innerWidth + 1,
  };
}
"""


def _first_lesson_page() -> str:
    lessons = sorted(p for p in site_pages() if p.startswith("notebooks/"))
    return lessons[1] if len(lessons) > 1 else (lessons or ["index.html"])[0]


@pytest.mark.parametrize("width", [390, 1300])
def test_the_navigation_folds_into_a_menu_on_a_phone(width, site_url, browser, shots):
    """On a phone (390 px) the helper pages hide behind a "☰ মেনু" button, so the lesson's title is on the first
    screen; tapping the button shows them. On a desktop every link stays in the bar and there is no button."""
    rel = _first_lesson_page()
    assert (SITE / rel).is_file(), f"no site in {SITE}: run `make site` first"
    page = browser.new_page(viewport={"width": width, "height": 844 if width == 390 else 1000})
    try:
        page.goto(site_url + rel, wait_until="load")
        state = page.evaluate(NAV_JS)
        page.screenshot(path=str(shots / f"site_nav_{width}.png"))
        assert state["allDocLinks"] >= 5, state
        assert not state["scrollsSideways"], f"{rel} at {width} px scrolls sideways"
        if width > 700:
            assert not state["button"] and state["docLinks"] == state["allDocLinks"], state
            return
        assert state["button"] and state["docLinks"] == 0, state
        assert state["titleTop"] is not None and state["titleTop"] < state["height"] / 2, \
            f"{rel} at {width} px: the title starts at {state['titleTop']:.0f} px of {state['height']}"
        page.locator("nav.mishran-nav-top .mishran-menu-button").click()
        opened = page.evaluate(NAV_JS)
        page.screenshot(path=str(shots / f"site_nav_{width}_open.png"))
        assert opened["docLinks"] == opened["allDocLinks"], opened
        page.locator("nav.mishran-nav-top .mishran-menu-button").click()
        assert page.evaluate(NAV_JS)["docLinks"] == 0
    finally:
        page.close()
