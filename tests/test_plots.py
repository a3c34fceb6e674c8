"""mishran.lab.figures: Bengali text renders with a real Bengali font, shaped, with no missing glyph."""
import math
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.textpath import TextPath  # noqa: E402

from mishran.lab.figures import BENGALI_FONT, INF_LOG2, ZERO_LOG2, draw_timeline, setup_bengali, timeline_figure

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


def test_figures_take_the_empty_lists_a_cpu_run_gives(font):
    """On a CPU there is no CUDA peak (peak_bytes == []) and a BF16 run skips no step (skipped == []); an empty
    colors or styles dict means the defaults. The figures draw them as the lessons pass them."""
    import torch

    from mishran.lab.figures import (
        activation_memory_figure,
        capstone_scale_figure,
        loss_curves_figure,
        rounding_error_figure,
    )

    for fig in (activation_memory_figure([1, 2], [100, 200], 1000, "cpu", []),
                capstone_scale_figure([65536.0, 65536.0], [], title="bf16"),
                loss_curves_figure({"fp32": [1.0, 0.9]}, "cpu", styles={}),
                rounding_error_figure(torch.tensor([1e-3, 1.0], dtype=torch.float64), colors={})):
        assert fig.axes
        plt.close(fig)
    fig, ax = plt.subplots()
    draw_timeline([], ax)
    plt.close(fig)


def test_comm_error_figure_draws_each_scheme_the_floor_and_the_tolerance(font):
    """Lesson 09: one line per scheme at the sweep's numbers, the BF16 rounding floor dashed, the tolerance dotted,
    the legend outside the axes; log-log; Bengali text with no missing glyph."""
    from mishran.lab.figures import comm_error_figure
    from mishran.numerics.communication import error_sweep

    sweep = error_sweep(worlds=(2, 4, 8), n=64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = comm_error_figure(sweep, tolerance=1e-3)
        fig.canvas.draw()
    assert not [w for w in caught if "missing from" in str(w.message).lower()]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = {line.get_label(): line for line in ax.lines}
    assert list(lines["BF16, ring (bf16)"].get_ydata()) == sweep["errors"]["bf16"]
    assert list(lines["FP32, ring (fp32)"].get_xdata()) == [2, 4, 8]
    for key in sweep["errors"]:           # every legend entry names its scheme's key (exercise 09.3 answers with it)
        assert sum(f"({key})" in label for label in lines) == 1, key
    assert "direct" in next(label for label in lines if "(bf16_wire_fp32_sum)" in label)
    floor = next(line for label, line in lines.items() if "bf16_rounding_floor" in label)
    assert floor.get_linestyle() == "--" and list(floor.get_ydata()) == sweep["bf16_rounding_floor"]
    tol = next(line for label, line in lines.items() if "সহনসীমা" in label)
    assert set(tol.get_ydata()) == {1e-3}
    assert len(ax.lines) == len(sweep["errors"]) + 2
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1
    plt.close(fig)
    fig = comm_error_figure(sweep)                                      # no tolerance: no dotted line
    assert len(fig.axes[0].lines) == len(sweep["errors"]) + 1
    plt.close(fig)
    fig = comm_error_figure(sweep, tolerance=(1e-2, 1e-3))             # two tolerances: two dotted lines
    tols = sorted(line.get_ydata()[0] for line in fig.axes[0].lines if "সহনসীমা" in line.get_label())
    assert tols == [1e-3, 1e-2]
    plt.close(fig)


def test_capstone_precision_figure_draws_the_difference_at_the_common_steps(font):
    """Lesson 08: left, both curves and the bigram; right, second − first at the steps both measured (by hand)."""
    from mishran.lab.figures import capstone_precision_figure

    fp32 = [{"step": 100, "bpc": 3.0}, {"step": 200, "bpc": 2.5}, {"step": 300, "bpc": 2.25}]
    bf16 = [{"step": 100, "bpc": 3.125}, {"step": 200, "bpc": 2.5}, {"step": 300, "bpc": 2.0}]
    fig = capstone_precision_figure({"FP32": fp32, "BF16": bf16}, 3.5, "t")
    left, right = fig.axes
    assert {line.get_label() for line in left.lines} >= {"FP32", "BF16", "bigram (3.50)"}
    diff = next(line for line in right.lines if len(line.get_xdata()) == 3)
    assert list(diff.get_xdata()) == [100, 200, 300] and list(diff.get_ydata()) == [0.125, 0.0, -0.25]
    assert right.get_xlabel() == left.get_xlabel() == "ধাপ (step)"
    plt.close(fig)


def test_every_step_axis_of_the_course_says_one_word(font):
    """One label for the optimizer step across the course's figures, as docs/glossary.md fixes it: "ধাপ (step)"."""
    import inspect
    import re

    from mishran.lab import figures

    labels = re.findall(r'xlabel[=(]"([^"]*)"', inspect.getsource(figures))
    steps = [label for label in labels if "step" in label.lower() and "সময়" not in label]
    assert steps and set(steps) == {"ধাপ (step)"}, steps


def test_ring_figure_sends_each_segment_along_the_ring_order(font):
    """Lesson 09's ring: at hop h, segment s's partial sum (ranks s+1..s+h) travels from rank s+h to s+h+1; by hand
    for W = 4 (hop 1: s0 carries g1, s3 carries g0; hop 3: s0 carries g1+g2+g3); at the end rank r holds segment r."""
    from mishran.lab.figures import ring_reduce_scatter_figure

    fig = ring_reduce_scatter_figure(4)
    texts = [{t.get_text() for t in ax.texts} for ax in fig.axes]
    assert len(fig.axes) == 4
    assert {"s0: g1", "s1: g2", "s2: g3", "s3: g0"} <= texts[0]
    assert {"s0: g1+g2", "s3: g0+g1"} <= texts[1]
    assert {"s0: g1+g2+g3", "s1: g2+g3+g0"} <= texts[2]
    assert "rank 0\ns0: g1+g2+g3+g0" in texts[3] and "rank 2\ns2: g3+g0+g1+g2" in texts[3]
    plt.close(fig)


def test_rank_bytes_figure_draws_each_series_on_log_axes(font):
    from mishran.lab.figures import rank_bytes_figure

    fig = rank_bytes_figure([1, 2, 4], {"ZeRO-1": [16, 10, 7], "FSDP2": [16, 8, 4]}, "t")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [list(line.get_ydata()) for line in ax.lines] == [[16, 10, 7], [16, 8, 4]]
    assert [line.get_label() for line in ax.lines] == ["ZeRO-1", "FSDP2"]
    plt.close(fig)
