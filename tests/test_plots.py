"""mishran.plots: Bengali text renders with a real Bengali font, shaped, with no missing glyph."""
import math
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.textpath import TextPath  # noqa: E402

from mishran.plots import (  # noqa: E402
    BENGALI_FONT,
    INF_LOG2,
    ZERO_LOG2,
    draw_timeline,
    setup_bengali,
    timeline_figure,
)

TITLE = "মিশ্রণ: ক্ষুদ্রতম সংখ্যা, স্বয়ংক্রিয় প্রশিক্ষণ — যুক্তাক্ষর ও কার-চিহ্ন (FP16, BF16)"


@pytest.fixture(scope="module")
def font():
    return setup_bengali()


def test_setup_refuses_a_matplotlib_that_cannot_shape_bengali(monkeypatch):
    """Under 3.11 matplotlib draws Bengali letter by letter: setup_bengali stops with a Bengali + English message."""
    monkeypatch.setattr(matplotlib, "__version__", "3.10.8")
    with pytest.raises(RuntimeError, match="matplotlib>=3.11.*restart"):
        setup_bengali()
    monkeypatch.setattr(matplotlib, "__version__", "3.11.0rc1")
    assert setup_bengali() == BENGALI_FONT


def _timeline(scales):
    return [{"step": i, "scale": s, "event": "backoff" if i % 2 else None} for i, s in enumerate(scales)]


def test_timeline_draws_zero_and_inf_scales_on_labelled_lines(font):
    """A scale of 0 (FP32 underflow) and inf (DeepSpeed's float) have no log₂: they sit on lines labelled 0, inf."""
    fig, ax = plt.subplots()
    draw_timeline(_timeline([2.0 ** 16, 2.0 ** -149, 0.0, 0.0]), ax)
    fig.canvas.draw()
    ys = ax.lines[0].get_ydata()
    assert list(ys[:2]) == [16, -149] and ys[2] == ys[3] == ZERO_LOG2 < -149
    labels = {t.get_text() for t in ax.get_yticklabels()}
    assert "0" in labels
    fig2, ax2 = plt.subplots()
    draw_timeline(_timeline([2.0 ** 1000, math.inf]), ax2)
    fig2.canvas.draw()
    assert ax2.lines[0].get_ydata()[1] == INF_LOG2 > 1024
    assert "inf" in {t.get_text() for t in ax2.get_yticklabels()}
    plt.close(fig)
    plt.close(fig2)


def test_simulator_legend_sits_outside_the_curve(font):
    """The legend is drawn right of the axes, so however the scale falls, it covers no point of the curve."""
    scales = [2.0 ** (16 - k) for k in range(40)]
    fig = timeline_figure(_timeline(scales), "PyTorch", overflow_above_log2=20)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    plot_area = ax.get_window_extent()
    assert legend.x0 >= plot_area.x1                                   # wholly right of the axes
    assert legend.x1 <= fig.bbox.x1 + 1                                # and not cut off by the figure edge
    plt.close(fig)


def test_bengali_font_is_found(font):
    path = font_manager.findfont(font_manager.FontProperties(family=font), fallback_to_default=False)
    assert "HindSiliguri" in path and font == BENGALI_FONT


def test_bengali_figure_has_no_missing_glyph(font, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots()
        ax.set_title(TITLE)
        ax.set_xlabel("প্রশিক্ষণের ধাপ (step)")
        ax.plot([0, 1], [0, 1], label="FP32 − BF16")
        ax.legend()
        fig.savefig(tmp_path / "bn.png")
        plt.close(fig)
    missing = [str(w.message) for w in caught if "missing from" in str(w.message).lower()]
    assert not missing, missing
    assert (tmp_path / "bn.png").stat().st_size > 5000


def _width(text, font):
    path = TextPath((0, 0), text, size=40, prop=font_manager.FontProperties(family=font))
    return path.get_extents().width


def test_conjuncts_are_shaped_not_drawn_letter_by_letter(font):
    """Shaped, ক্ষ is one conjunct glyph, narrower than ক, ্ and ষ drawn one after another."""
    apart = sum(_width(ch, font) for ch in "ক্ষ")
    assert _width("ক্ষ", font) < 0.8 * apart
