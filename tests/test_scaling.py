"""mishran.numerics.scaling: the scalers follow torch's GradScaler and DeepSpeed's own scaler step for step;
underflow_report counts what storing in a format really does."""
import dataclasses
import json
import logging
import math
import random
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from mishran.numerics import scaling
from mishran.numerics.formats import FORMATS, round_to
from mishran.numerics.scaling import (
    DeepSpeedLossScaler,
    DynamicLossScaler,
    LossScaleAtMinimumError,
    StaticLossScaler,
    format_regions,
    log2_magnitudes,
    simulate,
    underflow_report,
)

FLT_MAX = torch.finfo(torch.float32).max


# ---------- torch.amp.GradScaler ----------

class CountingSGD(torch.optim.SGD):
    """SGD that counts how often its step really ran (GradScaler skips it on inf/NaN)."""

    def __init__(self, params, lr):
        super().__init__(params, lr=lr)
        self.calls = 0

    def step(self, closure=None):
        self.calls += 1
        return super().step(closure)


def _one_real_step(scaler, opt, p, c, overflow, rng):
    """A real forward/backward; on an overflow step the gradient really becomes inf or NaN."""
    opt.zero_grad(set_to_none=True)
    scale = scaler.get_scale()
    kinds = ["inf_loss", "nan_loss", "inf_in_grad"]
    if scale >= 2.0:
        kinds.append("fp32_overflow")        # scale × FLT_MAX overflows in the backward pass
    if scale >= 2.0 ** 14:
        kinds.append("fp16_overflow")        # the gradient passes through FP16 and overflows there
    kind = rng.choice(kinds) if overflow else "clean"
    if kind == "fp32_overflow":
        loss = (p * torch.full_like(p, FLT_MAX)).sum()
    elif kind == "fp16_overflow":
        loss = (p.half() * torch.tensor([4.0, 4.0], dtype=torch.float16)).float().sum()
    else:
        loss = (p * c).sum()
        if kind == "inf_loss":
            loss = loss * math.inf
        elif kind == "nan_loss":
            loss = loss + (p * math.nan).sum()
    scaler.scale(loss).backward()
    if kind == "inf_in_grad":
        p.grad[rng.randrange(2)] = rng.choice([math.inf, -math.inf])
    assert bool(torch.isfinite(p.grad).all()) == (not overflow), kind
    before, calls = p.detach().clone(), opt.calls
    scaler.step(opt)
    scaler.update()
    stepped = opt.calls == calls + 1
    if not stepped:
        assert torch.equal(p.detach(), before) or torch.isnan(before).any()
    return stepped


def _random_torch_config(rng):
    return dict(init_scale=rng.choice([2.0 ** 16, 2.0 ** 3, 1000.1, 2.0 ** 120, 3.0e38, 1.0]),
                growth_factor=rng.choice([2.0, 2.0, 1.5, 3.0, 1.0001]),
                backoff_factor=rng.choice([0.5, 0.5, 0.25, 0.3, 0.9]),
                growth_interval=rng.randint(1, 7))


def test_scaler_matches_torch_on_random_overflows():
    rng = random.Random(2)
    torch.manual_seed(0)
    compared = 0
    for _ in range(200):
        cfg = _random_torch_config(rng)
        theirs = torch.amp.GradScaler("cpu", **cfg)
        ours = DynamicLossScaler(**cfg)
        p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        c = torch.tensor([0.5, 0.25])
        opt = CountingSGD([p], lr=1e-3)
        prob = rng.choice([0.0, 0.05, 0.2, 0.5, 0.9])
        for _ in range(60):
            overflow = rng.random() < prob
            stepped = _one_real_step(theirs, opt, p, c, overflow, rng)
            assert ours.update(overflow) == stepped == (not overflow)
            assert ours.scale == theirs.get_scale(), (cfg, ours)
            assert ours.state_dict() == theirs.state_dict()
            compared += 1
    assert compared == 200 * 60


def test_scaler_float32_arithmetic_like_torch():
    # torch keeps the scale in a float32 tensor: products are rounded to float32, and growth that
    # would give inf is refused (the tracker still restarts).
    s = DynamicLossScaler(init_scale=3.0e38, growth_interval=1)
    assert s.scale == float(torch.tensor(3.0e38, dtype=torch.float32))
    s.update(False)
    assert s.scale == float(torch.tensor(3.0e38, dtype=torch.float32)) and s.growth_tracker == 0
    s = DynamicLossScaler(init_scale=1.0, backoff_factor=0.3)
    s.update(True)
    assert s.scale == float(torch.tensor(0.3, dtype=torch.float32)) != 0.3
    s = DynamicLossScaler(init_scale=2.0 ** -149, backoff_factor=0.5)
    s.update(True)
    assert s.scale == 0.0                    # no lower bound: float32 underflows to 0, as in torch


def test_growth_after_exactly_growth_interval_clean_steps():
    s = DynamicLossScaler(init_scale=1024, growth_interval=3)
    history = [(s.update(False), s.scale) for _ in range(6)]
    assert [scale for _, scale in history] == [1024, 1024, 2048, 2048, 2048, 4096]
    assert s.update(True) is False and s.scale == 2048 and s.growth_tracker == 0


def test_static_scaler_never_changes():
    s = StaticLossScaler(128)
    assert [s.update(f) for f in (False, True, True, False)] == [True, False, False, True]
    assert s.scale == 128.0 and s.skipped == 2


# ---------- DeepSpeed ----------

try:
    import deepspeed
    from deepspeed.runtime.fp16 import loss_scaler as ds_loss_scaler
    _DS_VERSION = tuple(int(v) for v in deepspeed.__version__.split("+")[0].split(".")[:3])
except ImportError:
    ds_loss_scaler, _DS_VERSION = None, None

# DeepSpeed's window arithmetic changed in 0.17.1 (PR #6976, stable_interval); the scaler follows the new rule.
needs_new_deepspeed = pytest.mark.skipif(
    _DS_VERSION is None or _DS_VERSION < (0, 17, 1),
    reason="needs deepspeed >= 0.17.1 (older versions grew the scale one clean step earlier)")


class _Captured(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def ds_log(monkeypatch):
    """DeepSpeed's scaler asks deepspeed.comm for the rank (rank 0 logs); no process group here."""
    monkeypatch.setattr(ds_loss_scaler.dist, "get_rank", lambda group=None: 0)
    handler = _Captured()
    ds_logger = ds_loss_scaler.logger
    old_level = ds_logger.level
    ds_logger.setLevel(logging.INFO)
    ds_logger.addHandler(handler)
    yield handler
    ds_logger.removeHandler(handler)
    ds_logger.setLevel(old_level)


def _random_ds_config(rng):
    """Valid configs only: hysteresis >= 1 and min_scale <= init_scale (the others are refused, tested below)."""
    init_scale = rng.choice([2 ** 16, 2 ** 4, 1, 96, 2 ** 10])
    return dict(init_scale=init_scale,
                scale_window=rng.randint(1, 6),
                hysteresis=rng.choice([1, 2, 2, 3, 4]),
                min_scale=rng.choice([m for m in [1, 1, 0.25, 3, 2 ** 10] if m <= init_scale]),
                consecutive_hysteresis=rng.random() < 0.5)


@needs_new_deepspeed
def test_scaler_matches_deepspeed_on_random_overflows(ds_log):
    rng = random.Random(3)
    raised = 0
    for _ in range(400):
        cfg = _random_ds_config(rng)
        theirs = ds_loss_scaler.DynamicLossScaler(init_scale=cfg["init_scale"], scale_window=cfg["scale_window"],
                                                  min_scale=cfg["min_scale"], delayed_shift=cfg["hysteresis"],
                                                  consecutive_hysteresis=cfg["consecutive_hysteresis"])
        ours = DeepSpeedLossScaler(**cfg)
        prob = rng.choice([0.05, 0.2, 0.5, 0.8])
        for _ in range(80):
            overflow = rng.random() < prob
            ds_log.messages.clear()
            try:
                theirs.update_scale(overflow)
                their_error = None
            except Exception as e:     # DeepSpeed raises a bare Exception at the minimum scale
                their_error = str(e)
            if their_error is not None:
                with pytest.raises(LossScaleAtMinimumError) as info:
                    ours.update(overflow)
                assert their_error in str(info.value) and their_error == scaling.DEEPSPEED_MIN_SCALE_MESSAGE
                assert ours.scale == theirs.cur_scale and ours.cur_iter == theirs.cur_iter
                raised += 1
                break
            # DeepSpeed's optimizer skips the step exactly when it reports an overflow
            assert ours.update(overflow) == (not overflow)
            assert ours.scale == theirs.cur_scale, cfg
            assert ours.cur_hysteresis == theirs.cur_hysteresis
            assert (ours.cur_iter, ours.last_overflow_iter) == (theirs.cur_iter, theirs.last_overflow_iter)
            assert ds_log.messages == ([ours.last_message] if ours.last_message else [])
    assert raised > 20                 # the error at the minimum was reached and compared many times


@needs_new_deepspeed
def test_deepspeed_overflow_lines(ds_log):
    s = DeepSpeedLossScaler()          # DeepSpeed's fp16 defaults: 2**16, window 1000, hysteresis 2, min 1
    s.update(True)
    assert s.last_message == ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, "
                              "but hysteresis is 2. Reducing hysteresis to 1") and s.scale == 65536
    s.update(True)
    assert s.last_message == ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, "
                              "reducing to 32768") and s.scale == 32768
    s.update(True)                     # hysteresis stays spent until the scale grows again
    assert s.last_message.endswith("reducing to 16384")
    s.update(False)
    assert s.last_message is None


def test_deepspeed_grows_after_window_plus_one_clean_steps():
    # stable_interval = cur_iter - last_overflow_iter - 1 (deepspeed/runtime/fp16/loss_scaler.py)
    s = DeepSpeedLossScaler(init_scale=1024, scale_window=3)
    s.update(True)
    s.update(True)                      # 1024 → 512 (hysteresis 2 spent first)
    scales = []
    for _ in range(7):
        s.update(False)
        scales.append(s.scale)
    assert scales == [512, 512, 512, 1024, 1024, 1024, 2048]
    assert s.cur_hysteresis == 2       # refilled when the scale grew


def test_deepspeed_raises_only_when_already_at_minimum():
    s = DeepSpeedLossScaler(init_scale=4, hysteresis=1, min_scale=3)
    s.update(True)
    assert s.scale == 3                 # max(4 / 2, 3)
    with pytest.raises(LossScaleAtMinimumError, match="Current loss scale already at minimum") as info:
        s.update(True)
    assert "min_loss_scale" in str(info.value) and "BF16" in str(info.value)
    assert s.scale == 3 and s.cur_iter == 1
    quiet = DeepSpeedLossScaler(init_scale=4, hysteresis=1, min_scale=3, raise_error_at_min_scale=False)
    assert [quiet.update(True) for _ in range(3)] == [False] * 3 and quiet.scale == 3


@needs_new_deepspeed
@pytest.mark.parametrize("module", ["unfused_optimizer", "fused_optimizer"])
def test_zero_stage0_fp16_optimizer_is_deepspeed_scaler_without_hysteresis(module):
    """ZeRO stage 0 FP16 optimizers have their own _update_scale: no hysteresis, no error at the minimum."""
    import importlib
    mod = importlib.import_module(f"deepspeed.runtime.fp16.{module}")
    cls = mod.FP16_UnfusedOptimizer if module == "unfused_optimizer" else mod.FP16_Optimizer
    rng = random.Random(4)
    for _ in range(100):
        cfg = _random_ds_config(rng)
        args = {"init_scale": cfg["init_scale"], "scale_window": cfg["scale_window"], "min_scale": cfg["min_scale"],
                "delayed_shift": cfg["hysteresis"], "consecutive_hysteresis": cfg["consecutive_hysteresis"]}
        fake = SimpleNamespace(verbose=False, loss_scale_config=ds_loss_scaler.LossScaleConfig(
            torch.float16, True, 0, args, profile=ds_loss_scaler.LossScaleProfile.UNFUSED))
        ours = DeepSpeedLossScaler(init_scale=cfg["init_scale"], scale_window=cfg["scale_window"],
                                   min_scale=cfg["min_scale"], hysteresis=1, raise_error_at_min_scale=False)
        prob = rng.choice([0.05, 0.3, 0.7])
        for _ in range(60):
            overflow = rng.random() < prob
            cls._update_scale(fake, overflow)
            ours.update(overflow)
            assert ours.scale == fake.loss_scale_config.cur_scale


# ---------- simulate ----------

def test_simulate_gives_a_timeline():
    rows = simulate(DynamicLossScaler(init_scale=2 ** 16, growth_interval=2), [False, False, True, False])
    assert [r["scale"] for r in rows] == [2 ** 16, 2 ** 16, 2 ** 17, 2 ** 16]
    assert [r["stepped"] for r in rows] == [True, True, False, True]
    assert [r["event"] for r in rows] == [None, "grow", "backoff", None]
    assert set(rows[0]) == {"step", "scale", "found_inf", "stepped", "new_scale", "event", "message", "error"}


def test_simulate_with_an_overflow_threshold_rides_below_it():
    rows = simulate(DynamicLossScaler(init_scale=1, growth_interval=5), lambda step, scale: scale > 2 ** 10,
                    steps=400)
    stepped_scales = {r["scale"] for r in rows if r["stepped"]}
    assert max(stepped_scales) == 2 ** 10 and max(r["scale"] for r in rows) == 2 ** 11


def test_simulate_stops_where_deepspeed_stops():
    rows = simulate(DeepSpeedLossScaler(init_scale=2, hysteresis=1, min_scale=1), [True] * 5)
    assert [r["new_scale"] for r in rows] == [1, 1] and rows[-1]["event"] == "error"
    assert rows[-1]["error"].startswith(scaling.DEEPSPEED_MIN_SCALE_MESSAGE)


# ---------- underflow_report ----------

def test_underflow_report_counts_each_region_of_fp16():
    f = FORMATS["fp16"]
    values = torch.tensor([
        f.min_normal, 1.0, 65504.0, 65519.0, -3.0,                # normal (65519 rounds down to 65504)
        f.min_normal - f.min_subnormal / 2,                       # a tie: goes to min_normal, which is even
        f.min_subnormal, 2 ** -20, -1.5 * f.min_subnormal / 2,    # subnormal (the last rounds up to 2^-24)
        f.min_subnormal / 2, 2 ** -30, -1e-12,                    # underflow to zero (2^-25 is a tie: goes to 0)
        65520.0, -1e6, math.inf, math.nan,                        # overflow
        0.0, -0.0,                                                # exact zeros
    ], dtype=torch.float64)
    r = underflow_report(values, "fp16")
    assert (r.normal, r.subnormal, r.underflow_to_zero, r.overflow, r.exact_zero, r.total) == (6, 3, 3, 4, 2, 18)
    assert math.isclose(sum(r.fractions.values()), 1.0) and r.fraction("subnormal") == 3 / 18
    assert r.nonzero == 16


def test_scale_moves_small_values_into_range_and_large_ones_out():
    g = torch.tensor([2.0 ** -30, 2.0 ** -20, 2.0 ** -16, 1.0], dtype=torch.float32)
    before = underflow_report(g, "fp16")
    assert (before.normal, before.subnormal, before.underflow_to_zero) == (1, 2, 1)
    after = underflow_report(g, "fp16", scale=2 ** 16)
    assert (after.normal, after.subnormal, after.underflow_to_zero, after.overflow) == (3, 0, 0, 1)  # 1 × 2^16 > 65504
    assert underflow_report(g, "bf16").normal == 4                 # BF16 has FP32's range


def test_product_is_computed_in_float64_before_storing():
    tiny = torch.tensor([2.0 ** -140], dtype=torch.float32)         # an FP32 subnormal
    r = underflow_report(tiny, "fp16", scale=2.0 ** 130)            # 2^130 is inf in FP32, the product is 2^-10
    assert r.normal == 1 and r.overflow == 0


def test_list_of_tensors_and_none_grads():
    grads = [torch.tensor([1e-6, 0.0], dtype=torch.float16), None, torch.tensor([[1e-3, 1e5]], dtype=torch.bfloat16),
             torch.tensor([2.0 ** -14], dtype=torch.float64)]
    r = underflow_report(grads, "fp16")
    assert r.total == 5 and r.exact_zero == 1 and r.normal == 2 and r.overflow == 1 and r.subnormal == 1
    assert underflow_report(iter(grads), "fp16") == r


def test_underflow_report_agrees_with_torch_casts():
    g = torch.Generator().manual_seed(0)
    x = torch.exp2(torch.empty(20_000).uniform_(-40, 20, generator=g))
    x = x * torch.where(torch.rand(20_000, generator=g) < 0.5, -1.0, 1.0)
    for k in (0, 8, 16, 24):
        stored = (x * 2.0 ** k).half().float()                     # power-of-two scale: exact in FP32
        r = underflow_report(x, "fp16", scale=2.0 ** k)
        assert r.overflow == int((~stored.isfinite()).sum())
        assert r.underflow_to_zero == int((stored == 0).sum())
        assert r.subnormal == int(((stored != 0) & (stored.abs() < 2.0 ** -14)).sum())
        assert r.normal == int((stored.isfinite() & (stored.abs() >= 2.0 ** -14)).sum())


def test_report_text_is_bengali_with_english_terms():
    text = str(underflow_report(torch.tensor([1.0, 1e-9, 0.0]), "fp16"))
    assert text.startswith("FP16-এ রাখলে (scale = 1): মোট 3টি মান")
    for term in ("normal", "subnormal", "underflow to zero", "overflow (inf/NaN)", "exact zero", "33.33%"):
        assert term in text


def test_log2_magnitudes_drops_zeros_and_non_finite():
    v = log2_magnitudes([torch.tensor([0.0, 2.0 ** -24, -8.0, math.inf, math.nan]), torch.tensor([0.5])])
    assert v.dtype == torch.float64 and v.dim() == 1 and v.tolist() == [-24.0, 3.0, -1.0]


def test_regions_come_from_the_format():
    r = format_regions("fp16")
    assert (r.log2_min_subnormal, r.log2_min_normal, r.log2_underflow_to_zero) == (-24.0, -14.0, -25.0)
    assert r.log2_max == math.log2(65504) and r.log2_overflow == math.log2(65520)
    b = format_regions("bf16")
    assert (b.log2_min_subnormal, b.log2_min_normal) == (-133.0, math.log2(torch.finfo(torch.bfloat16).tiny))


@pytest.mark.parametrize("fmt", ["fp16", "bf16", "fp8_e5m2"])
def test_region_bands_classify_like_rounding(fmt):
    f, r = FORMATS[fmt], format_regions(fmt)
    g = torch.Generator().manual_seed(1)
    lo, hi = r.log2_min_subnormal - 3, r.log2_max + 3
    x = torch.exp2(torch.empty(20_000, dtype=torch.float64).uniform_(lo, hi, generator=g))
    near_min_normal = (x < f.min_normal) & (x >= f.min_normal - f.min_subnormal / 2)
    x = x[~near_min_normal]
    logs = torch.log2(x)
    rep = underflow_report(x, fmt)
    for name, a, b in r.bands():
        inside = int(((logs > a) & (logs <= b)).sum()) if name != "normal" else int(((logs >= a) & (logs < b)).sum())
        assert inside == getattr(rep, name), name
    assert round_to(2.0 ** r.log2_underflow_to_zero, fmt) == 0.0



def test_rounding_to_zero_is_named_underflow_to_zero_never_flush():
    # flush to zero (FTZ/DAZ) is a hardware mode (lesson 01, 5.4); rounding a tiny value to 0 is underflow to zero
    r = underflow_report(torch.tensor([1.0, 1e-9, 1e-6, 0.0]), "fp16")
    names = (list(r.fractions) + list(scaling.KINDS) + [name for name, _, _ in format_regions("fp16").bands()]
             + [f.name for f in dataclasses.fields(scaling.UnderflowReport)]
             + [f.name for f in dataclasses.fields(scaling.FormatRegions)])
    assert not [n for n in names if "flush" in n.lower()]
    assert "flush" not in str(r).lower()
    assert r.underflow_to_zero == 1 and r.subnormal == 1
    assert "শূন্যে মুছে গেছে (underflow to zero)" in str(r)


def test_lessons_print_no_flush_label_outside_lesson_01s_ftz_section():
    root = Path(__file__).resolve().parents[1]
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if path.name.startswith("01_"):          # lesson 01 teaches the FTZ/DAZ mode itself
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            text = "".join(cell["source"]) + json.dumps(cell.get("outputs", []), ensure_ascii=False)
            assert not re.search(r"flush(ed)?[ _]to[ _]zero|log2_flush", text), (path.name, cell.get("id"))

# ---------- clear Bengali errors ----------

def test_bad_input_is_a_clear_bengali_error():
    with pytest.raises(ValueError, match=r"অচেনা ফরম্যাট 'fp17' \(unknown format\)"):
        underflow_report(torch.ones(3), "fp17")
    with pytest.raises(TypeError, match=r"tensor চায় \(a tensor or a list of tensors\)"):
        underflow_report(1e-8)
    with pytest.raises(TypeError, match=r"a list of tensors.*torch.tensor"):
        underflow_report([1e-8, 1e-5])
    with pytest.raises(TypeError, match=r"a numeric tensor"):
        underflow_report(torch.tensor([True, False]))
    with pytest.raises(ValueError, match=r"no values"):
        underflow_report([None, None])
    with pytest.raises(ValueError, match=r"ধনাত্মক সসীম সংখ্যা \(a positive finite number\)"):
        underflow_report(torch.ones(2), scale=0)
    with pytest.raises(ValueError, match=r"growth_factor হবে 1-এর চেয়ে বড়"):
        DynamicLossScaler(growth_factor=1.0)
    with pytest.raises(ValueError, match=r"growth_interval হবে ধনাত্মক পূর্ণসংখ্যা \(growth_interval must be"):
        DynamicLossScaler(growth_interval=0)
    with pytest.raises(ValueError, match=r"loss_scale_window.*must be a positive integer"):
        DeepSpeedLossScaler(scale_window=0)
    with pytest.raises(TypeError, match=r"found_inf হবে True/False"):
        StaticLossScaler().update("yes")
    with pytest.raises(TypeError, match=r"DynamicLossScaler দাও"):
        simulate(torch.amp.GradScaler("cpu"), [False])
    with pytest.raises(ValueError, match=r"steps="):
        simulate(StaticLossScaler(), lambda step, scale: False)


@pytest.mark.parametrize("hysteresis", [0, -1])
def test_hysteresis_below_one_is_refused(hysteresis):
    with pytest.raises(ValueError, match=r"hysteresis must be an integer >= 1") as err:
        DeepSpeedLossScaler(hysteresis=hysteresis)
    assert "কখনো কমে না" in str(err.value)


@needs_new_deepspeed
def test_why_hysteresis_zero_is_refused_deepspeed_never_lowers_the_scale(ds_log):
    """The peer itself: DeepSpeed's scaler with delayed_shift=0 skips every step and keeps its scale."""
    theirs = ds_loss_scaler.DynamicLossScaler(init_scale=2 ** 16, scale_window=1000, min_scale=1, delayed_shift=0,
                                              consecutive_hysteresis=False)
    for _ in range(20):
        theirs.update_scale(True)
    assert theirs.cur_scale == 2 ** 16 and theirs.cur_hysteresis < 0


def test_min_scale_above_the_initial_scale_is_refused():
    with pytest.raises(ValueError, match=r"min_scale must not exceed init_scale"):
        DeepSpeedLossScaler(init_scale=4, min_scale=8)
    assert DeepSpeedLossScaler(init_scale=4, min_scale=4).scale == 4              # equal is allowed


@pytest.mark.parametrize("steps", [-1, 2.5, "3", True])
def test_simulate_refuses_a_negative_or_non_integer_step_count(steps):
    with pytest.raises(ValueError, match=r"steps must be a non-negative integer"):
        simulate(StaticLossScaler(), [False] * 5, steps=steps)
    assert simulate(StaticLossScaler(), [False] * 5, steps=0) == []
