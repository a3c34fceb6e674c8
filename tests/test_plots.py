"""mishran.plots: Bengali text renders with a real Bengali font, shaped, with no missing glyph."""
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.textpath import TextPath  # noqa: E402

from mishran.plots import BENGALI_FONT, setup_bengali  # noqa: E402

TITLE = "মিশ্রণ: ক্ষুদ্রতম সংখ্যা, স্বয়ংক্রিয় প্রশিক্ষণ — যুক্তাক্ষর ও কার-চিহ্ন (FP16, BF16)"


@pytest.fixture(scope="module")
def font():
    return setup_bengali()


def test_matplotlib_can_shape_bengali():
    assert tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 11)


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
