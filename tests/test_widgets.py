"""mishran.widgets: the bit-layout explorer's logic, without a browser."""
import math

import pytest

from mishran import formats
from mishran.widgets import bit_explorer, explore, explorer_html, parse_number


@pytest.mark.parametrize("text,value", [("0.1", 0.1), (" 65520 ", 65520.0), ("2**-24", 2.0 ** -24), ("1/4", 0.25),
                                        ("৬৫৫০৪", 65504.0), ("−3", -3.0), ("1,000", 1000.0), ("inf", math.inf)])
def test_parse_number(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1e", "2**"])
def test_parse_number_rejects_bad_text_in_bengali(text):
    with pytest.raises(ValueError, match="সংখ্যা"):
        parse_number(text)


def test_explore_rows_match_decode():
    rows = {r["format"]: r for r in explore(65520.0)}
    assert rows["FP16"]["kind"] == "inf" and math.isnan(rows["FP16"]["abs_error"])
    assert rows["BF16"]["value"] == formats.round_to(65520.0, "bf16")
    assert rows["FP8 E4M3"]["kind"] == "nan"
    r = {r["format"]: r for r in explore(0.1)}["FP16"]
    assert r["sign"] + r["exponent"] + r["mantissa"] == formats.decode(0.1, "fp16").bits
    assert r["abs_error"] == formats.round_to(0.1, "fp16") - 0.1
    assert math.isclose(r["rel_error"], abs(r["abs_error"]) / 0.1)


def test_html_colours_each_field_and_reports_errors():
    page = explorer_html("1e-8")
    for colour in ("#d62728", "#1f77b4", "#2ca02c"):
        assert colour in page
    assert "শূন্য (zero)" in page                                 # FP16 flushes 1e-8 to zero
    assert "subnormal" in explorer_html("3e-6")                     # and keeps 3e-6 only as a subnormal
    assert "not a number" in explorer_html("hello")


def test_widget_updates_when_the_learner_types():
    box, out = bit_explorer("1").children
    assert "1.0" in out.value
    box.value = "65520"
    assert "অসীম (inf)" in out.value
