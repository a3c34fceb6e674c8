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


# ---------- পাঠ ০২: loss scaling simulator ----------

from mishran.scaling import DeepSpeedLossScaler, DynamicLossScaler, simulate  # noqa: E402
from mishran.widgets import (loss_scale_simulator, simulate_timeline, timeline_html,  # noqa: E402
                             timeline_summary)


def test_simulator_timeline_is_scaling_simulate_on_the_same_overflows():
    rows = simulate_timeline("pytorch", interval=7, p_overflow=0.05, steps=300, seed=3)
    flags = [r["found_inf"] for r in rows]
    assert 5 < sum(flags) < 40                                   # p = 0.05 over 300 steps
    assert rows == simulate(DynamicLossScaler(growth_interval=7), flags)
    ds = simulate_timeline("deepspeed", interval=7, hysteresis=3, p_overflow=0.05, steps=300, seed=3)
    assert [r["found_inf"] for r in ds] == flags                 # the same seed gives the same spikes to both policies
    assert ds == simulate(DeepSpeedLossScaler(scale_window=7, hysteresis=3), flags)


def test_simulator_is_deterministic_and_seed_matters():
    a = simulate_timeline("deepspeed", 20, 2, 0.03, 200, seed=1)
    assert a == simulate_timeline("deepspeed", 20, 2, 0.03, 200, seed=1)
    assert [r["found_inf"] for r in a] != [r["found_inf"] for r in simulate_timeline("deepspeed", 20, 2, 0.03, 200,
                                                                                     seed=2)]


def test_simulator_with_an_overflow_threshold_rides_just_below_it():
    rows = simulate_timeline("pytorch", interval=10, p_overflow=0.0, steps=400, overflow_above=2.0 ** 20)
    assert max(r["scale"] for r in rows if r["stepped"]) == 2.0 ** 20
    assert all(r["found_inf"] == (r["scale"] > 2.0 ** 20) for r in rows)
    s = timeline_summary(rows)
    assert s["overflows"] == s["skipped"] == s["backoffs"] > 0 and s["max_scale"] == 2.0 ** 21


def test_simulator_summary_reports_where_deepspeed_stops():
    rows = simulate_timeline("deepspeed", interval=5, hysteresis=1, p_overflow=1.0, steps=50, init_scale=4.0)
    s = timeline_summary(rows)
    assert s["error"].startswith("Current loss scale already at minimum") and s["steps"] == 3    # 4 → 2 → 1 → stop
    assert "DeepSpeed থেমে গেছে" in timeline_html(rows, "deepspeed")


def test_simulator_rejects_unknown_policy_and_bad_probability():
    with pytest.raises(ValueError, match="policy"):
        simulate_timeline("apex")
    with pytest.raises(ValueError, match="probability"):
        simulate_timeline(p_overflow=1.5)


def test_simulator_widget_redraws_when_a_control_changes(monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    box = loss_scale_simulator(policy="pytorch", interval=50, p_overflow=0.01, steps=200, overflow_above_log2=None)
    controls, summary, out = box.children
    policy, interval, hysteresis, p, above, steps, seed = controls.children
    assert "PyTorch" in summary.value and hysteresis.disabled
    policy.value = "deepspeed"
    assert "DeepSpeed" in summary.value and "hysteresis খরচ" in summary.value and not hysteresis.disabled
    steps.value = 500
    assert "500টি ধাপ" in summary.value
    above.value = 18
    rows = simulate_timeline("deepspeed", interval.value, hysteresis.value, p.value, 500, seed.value,
                             overflow_above=2.0 ** 18)
    assert summary.value == timeline_html(rows, "deepspeed")
