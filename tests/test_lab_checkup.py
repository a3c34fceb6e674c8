"""mishran.lab.checkup: the check-up report drawn and tabled, held against models whose trouble is known by
construction and against torch's own FP16 rounding — not against the report's own numbers copied back.

The oracles: torch.finfo for the formats' limits; float16 casts for which gradients round to zero; a plain FP32
forward and backward (no check-up) for each module's largest output and each gradient's log2 bucket; the model's
own named_modules() for the module names; torch's CPU autocast for which reduction runs in FP16."""
import math
import re
import warnings
from collections import Counter
from html.parser import HTMLParser

import matplotlib
import pytest
import torch
from checkup_models import TinyGradient
from torch import nn

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from mishran.checkup.run import checkup  # noqa: E402
from mishran.lab.checkup import gradient_range_figure, module_range_figure, show_checkup  # noqa: E402
from mishran.lab.display import Rich  # noqa: E402
from mishran.lab.figures import setup_bengali  # noqa: E402

FP16 = torch.finfo(torch.float16)
BENGALI = re.compile(r"[\u0980-\u09FF]")


class _Times(nn.Module):
    """Multiplies by a fixed factor: with 1e6, a Linear's O(1) output becomes ~1e6, past FP16's max."""

    def __init__(self, factor: float):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

    def forward(self, x):
        return x + self.mlp(x)


class _Nested(nn.Module):
    """Names like a transformer's: h.0.mlp.0, h.1.mlp.0, ... — the same last parts under different blocks."""

    def __init__(self):
        super().__init__()
        self.h = nn.ModuleList([_Block() for _ in range(3)])
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        for block in self.h:
            x = block(x)
        return self.head(x)


def _batch(n=8, features=4):
    return torch.rand(n, features, generator=torch.Generator().manual_seed(0)) + 0.5


def _mean(out):
    return out.mean()


def _overflowing():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), _Times(1e6), nn.Linear(8, 1))


@pytest.fixture(scope="module", autouse=True)
def _font():
    setup_bengali()


@pytest.fixture(scope="module")
def overflow():
    model, x = _overflowing(), _batch()
    return model, x, checkup(model, x, loss_fn=_mean, target="t4", steps=0)


@pytest.fixture(scope="module")
def underflow():
    torch.manual_seed(0)
    model, x = TinyGradient(), _batch()
    return model, x, checkup(model, x, target="t4", steps=0)


def _bars(ax):
    """The first bar container of the axes: the figure's data bars (the bands are axvspan, not bars)."""
    return list(ax.containers[0])


def _fp32_grads(model, x, loss_fn=None):
    """A plain FP32 step, no check-up: the oracle's gradients."""
    model.zero_grad(set_to_none=True)
    out = model(x)
    (loss_fn(out) if loss_fn else out).backward()
    grads = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    model.zero_grad(set_to_none=True)
    return grads


def _zero_threshold_log2() -> int:
    """The largest power of two that FP16 rounds to zero, found by torch's own cast (not by formats)."""
    return max(k for k in range(-40, 0) if torch.tensor(2.0 ** k).half().item() == 0.0)


# ---- module_range_figure ---------------------------------------------------------------------------------------

def test_the_overflowing_module_is_the_one_highlighted_bar(overflow):
    model, x, report = overflow
    with torch.no_grad():
        outputs = {"0": model[0](x)}
        outputs["1"] = model[1](outputs["0"])
        outputs["2"] = model[2](outputs["1"])
    assert outputs["1"].abs().max() > FP16.max > outputs["0"].abs().max()        # by construction
    fig = module_range_figure(report)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    colors = [to_hex(b.get_facecolor()) for b in _bars(ax)]
    odd = [labels[i] for i, c in enumerate(colors) if colors.count(c) == 1]
    assert odd == ["1"]
    ends = {label: b.get_x() + b.get_width() for label, b in zip(labels, _bars(ax), strict=True)}
    for name, out in outputs.items():
        assert ends[name] == pytest.approx(float(out.abs().max()), rel=1e-5)
    assert list(ends.values()) == sorted(ends.values(), reverse=True)            # largest on top
    plt.close(fig)


def test_a_module_near_fp16s_max_is_highlighted_apart_from_overflow():
    """×3e4 on outputs in [0.5, 1.5]: finite in FP16, but within a factor of four of 65504."""
    model = nn.Sequential(nn.Linear(4, 8), _Times(3e4), nn.Linear(8, 1))
    with torch.no_grad():
        model[0].weight.fill_(0.25), model[0].bias.zero_()
        model[2].weight.fill_(1e-4), model[2].bias.zero_()
    x = _batch()
    with torch.no_grad():
        biggest = float(model[1](model[0](x)).abs().max())
    assert FP16.max / 4 < biggest < FP16.max
    report = checkup(model, x, loss_fn=_mean, target="t4", steps=0)
    fig = module_range_figure(report)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    colors = [to_hex(b.get_facecolor()) for b in _bars(ax)]
    assert [labels[i] for i, c in enumerate(colors) if colors.count(c) == 1] == ["1"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("near max" in t for t in legend) and not any(t.startswith("overflow") for t in legend)
    plt.close(fig)


def test_the_format_lines_sit_at_the_formats_limits(overflow):
    fig = module_range_figure(overflow[2])
    xs = {float(line.get_xdata()[0]) for line in fig.axes[0].lines}
    assert {FP16.max, torch.finfo(torch.float8_e4m3fn).max, FP16.tiny} <= xs
    plt.close(fig)


def test_top_limits_the_bars_and_the_title_counts_the_rest():
    """Ten Linear layers; the Sequential's output is its last layer's, so it is one container left out."""
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(10)])
    report = checkup(model, _batch(), loss_fn=_mean, target="t4", steps=0)
    fig = module_range_figure(report, top=4)
    ax = fig.axes[0]
    assert len(_bars(ax)) == 4
    modules = len(list(model.named_modules()))                                   # 11
    assert f"{modules - 1 - 4}টি ছোট মানের module" in ax.get_title("left")
    assert "1টি container" in ax.get_title("left")
    plt.close(fig)


def test_short_names_name_exactly_one_module_and_never_start_with_a_number():
    torch.manual_seed(0)
    model = _Nested()
    report = checkup(model, _batch(), loss_fn=_mean, target="t4", steps=0)
    fig = module_range_figure(report, top=50)
    names = [n for n, _ in model.named_modules()]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == len(set(labels)) > 6
    for label in labels:
        tail = label.lstrip("…")
        owners = [n for n in names if n == tail or n.endswith("." + tail)] if not label.startswith("(") else [""]
        assert len(owners) == 1, (label, owners)
        assert not tail[0].isdigit() or tail == names[names.index(owners[0])], label
    plt.close(fig)


# ---- gradient_range_figure -------------------------------------------------------------------------------------

def test_the_histogram_holds_every_nonzero_gradient_in_its_log2_bucket(underflow):
    model, x, report = underflow
    grads = torch.cat([g.reshape(-1) for g in _fp32_grads(model, x)]).double()
    nonzero = grads[grads != 0].abs()
    buckets = Counter(torch.ceil(torch.log2(nonzero)).long().tolist())          # |g| ≤ 2**b, > 2**(b-1)
    fig = gradient_range_figure(report)
    drawn = {round(b.get_x() + b.get_width()): b.get_height() for b in _bars(fig.axes[0])}
    assert sum(drawn.values()) == nonzero.numel()
    assert drawn == dict(buckets)
    plt.close(fig)


def test_the_second_panel_is_the_first_shifted_by_the_scale(underflow):
    report = underflow[2]
    k = math.log2(report.loss_scale.init_scale)
    assert k == round(k) and k > 0                      # tiny gradients: a scale above 1 is recommended
    fig = gradient_range_figure(report)
    one, scaled = _bars(fig.axes[0]), _bars(fig.axes[1])
    assert [b.get_height() for b in one] == [b.get_height() for b in scaled]
    assert [b.get_x() + k for b in one] == [b.get_x() for b in scaled]
    plt.close(fig)


def test_the_lines_mark_fp16s_zero_threshold_max_and_the_activation_gradient(underflow):
    report = underflow[2]
    k = math.log2(report.loss_scale.init_scale)
    fig = gradient_range_figure(report)
    for ax, shift in zip(fig.axes[:2], (0, k), strict=True):
        xs = sorted(float(line.get_xdata()[0]) for line in ax.lines)
        activation = math.log2(report.loss_scale.max_activation_grad) + shift
        assert xs == pytest.approx(sorted([_zero_threshold_log2(), math.log2(FP16.max), activation]))
    plt.close(fig)


def _percent(text: str) -> float:
    return float(re.search(r"([\d.e+-]+)%", text).group(1))


def test_the_panels_state_the_underflow_share_that_torch_rounding_gives(underflow):
    model, x, report = underflow
    grads = torch.cat([g.reshape(-1) for g in _fp32_grads(model, x)])
    nonzero = grads[grads != 0]
    fig = gradient_range_figure(report)
    for ax, scale in zip(fig.axes[:2], (1.0, report.loss_scale.init_scale), strict=True):
        lost = float(((nonzero * scale).half() == 0).double().mean())            # torch's own FP16 rounding
        assert _percent(ax.get_title("left")) == pytest.approx(100 * lost, rel=1e-2, abs=1e-9)
    assert _percent(fig.axes[0].get_title("left")) > 50                          # 64 tiny of 84 gradients
    plt.close(fig)


def test_bengali_text_in_the_figures_is_never_mathtext_and_has_every_glyph(overflow):
    """mathtext ($...$) draws its whole line without Bengali shaping: Bengali labels hold none, and no glyph is
    missing from the font (the powers of two are superscript digits)."""
    for make in (module_range_figure, gradient_range_figure):
        fig = make(overflow[2])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fig.canvas.draw()
        texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
        assert any(BENGALI.search(t) for t in texts)
        assert not [t for t in texts if BENGALI.search(t) and "$" in t]
        plt.close(fig)


# ---- show_checkup ----------------------------------------------------------------------------------------------

class _Tables(HTMLParser):
    """Every table's rows of cell texts, read back from the HTML."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    @property
    def rows(self) -> list:
        return [r for t in self.tables for r in t]

    def table(self, header_cell: str) -> dict:
        """The table whose first row holds header_cell, as {first cell: the other cells}."""
        found = next(t for t in self.tables if header_cell in t[0])
        return {r[0]: r[1:] for r in found[1:]}

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _shown(report, monkeypatch, **kw):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    assert show_checkup(report, **kw) is None
    return shown


def test_show_checkup_shows_tables_two_figures_and_the_advice(overflow, monkeypatch):
    model, x, report = overflow
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
        reduced = model(x).mean()
    assert reduced.dtype == torch.float16                       # CPU autocast leaves the mean in FP16: flagged
    tables, fig1, fig2, advice = _shown(report, monkeypatch)
    assert isinstance(tables, Rich) and isinstance(advice, Rich)
    assert isinstance(fig1, matplotlib.figure.Figure) and isinstance(fig2, matplotlib.figure.Figure)
    parser = _Tables()
    parser.feed(tables._repr_html_())
    rows = {r[0]: r[1:] for r in parser.tables[0]}               # the summary: no header
    # a T4 has no BF16; FP16 breaks, and keeping '1' in FP32 does not mend it (its output feeds another FP16 Linear,
    # tests/test_checkup.py shows it with torch's own FP16): FP32
    assert rows["সুপারিশ (recommended precision)"][0].startswith("FP32")
    assert rows["FP32-এ রাখো (keep_fp32)"] == ["1 — রেখেও সারে না (still broken)"]   # the ×1e6 module, tried
    assert parser.table("op")["aten.mean"][1:] == ["float16", "1", "FP16"]
    agreement = parser.table("প্রথম inf/NaN")
    assert not math.isfinite(float(agreement["FP16"][0]))         # the FP16 loss
    assert agreement["FP16"][-2:] == ["1", "1"]                    # overflow; first inf/NaN
    assert "FP32-এ রাখাই যথেষ্ট নয়" in advice._repr_html_() and "keep_fp32" in repr(advice)
    for line in ("সুপারিশ (recommended precision) | FP32", "FP32-এ রাখো (keep_fp32) | 1 — রেখেও", "aten.mean | reduction"):
        assert line in repr(tables)                              # the plain-text form holds the same


def test_show_checkup_lists_the_underflowing_parameter_with_its_share(underflow, monkeypatch):
    model, x, report = underflow
    names = [n for n, p in model.named_parameters()]
    grad = _fp32_grads(model, x)[names.index("tiny")]
    assert bool((grad.half() == 0).all()) and bool((grad != 0).all())
    tables = _shown(report, monkeypatch)[0]
    parser = _Tables()
    parser.feed(tables._repr_html_())
    assert parser.table("parameter")["tiny"][:2] == ["64", "100%"]


def test_show_checkup_keeps_tables_to_top_and_says_how_many_are_left(overflow, monkeypatch):
    model, _, report = overflow
    tables = _shown(report, monkeypatch, top=1)[0]
    modules = len(list(model.named_modules()))                  # every module ran, so every one has an error row
    # the whole model's output is its last Linear's output: the same numbers, so that row is folded, as in the figure
    assert f"আরও {modules - 2}টি সারি দেখানো হয়নি" in tables._repr_html_()
    assert "1টি সারি বাদ: container বা Dropout" in tables._repr_html_()


def test_the_worst_table_folds_a_dropout_and_a_container_that_repeat_their_module(monkeypatch):
    torch.manual_seed(0)
    inner = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1))
    model = nn.Sequential(inner, nn.GELU(), nn.Linear(8, 1))
    report = checkup(model, _batch(), loss_fn=_mean, target="t4", steps=0)
    parser = _Tables()
    parser.feed(_shown(report, monkeypatch, top=12)[0]._repr_html_())
    shown = list(parser.table("আপেক্ষিক ত্রুটি"))
    # the comparison step turns dropout off, so '0.1' (Dropout) repeats '0.0' and '0' (container) repeats it too;
    # the whole model repeats '2'
    assert "0.0" in shown and "2" in shown and not {"0.1", "0", "(পুরো মডেল)"} & set(shown), shown


@pytest.mark.parametrize("top", [0, -3, 2.5, "5", None, True])
def test_a_bad_top_is_refused_in_bengali(overflow, top, monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj: None)
    for fn in (show_checkup, module_range_figure):
        with pytest.raises(ValueError, match="top.*positive integer"):
            fn(overflow[2], top=top)


def test_the_summary_says_the_models_mode(monkeypatch):
    """A model checked in eval mode gives another verdict (no dropout, BatchNorm on its running averages): the summary
    says which mode it was, and what to do for a training verdict."""
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1))
    x = torch.randn(16, 4)
    for training, said in ((True, "train"), (False, "model.train()")):
        model.train(training)
        report = checkup(model, (x, torch.zeros(16, 1)), loss_fn=torch.nn.MSELoss(), steps=0)
        parser = _Tables()
        parser.feed(_shown(report, monkeypatch)[0]._repr_html_())
        mode = {r[0]: r[1:] for r in parser.tables[0]}["মডেলের mode"][0]
        assert said in mode and report.training is training and model.training is training
