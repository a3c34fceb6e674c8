"""mishran.measure.profiler: where a step's time goes (torch.profiler), MFU, matmul timing."""
import pytest
import torch

from mishran.measure import flops, profiler
from mishran.models import reference as bench

SMALL = bench.BenchSizes(layers=1, d_model=64, batch=2, seq=16, vocab=64, steps=1, warmup=1)


@pytest.mark.parametrize("name, category", [
    ("aten::mm", "matmul"), ("aten::addmm", "matmul"), ("AddmmBackward0", "matmul"), ("aten::_scaled_mm", "matmul"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32", "matmul"), ("aten::_scaled_dot_product_flash_attention", "attention"),
    ("aten::_fused_adamw_", "optimizer"), ("aten::_foreach_addcdiv_", "optimizer"),
    ("triton_poi_fused_add_gelu_0", "other"), ("aten::native_layer_norm", "other"), ("aten::copy_", "other"),
    ("aten::mul_", "other"),
])
def test_ops_fall_into_the_expected_category(name, category):
    assert profiler.categorize(name) == category


def test_any_op_inside_the_optimizer_step_counts_as_optimizer():
    assert profiler.categorize("aten::mul_", in_optimizer=True) == "optimizer"


def test_profile_splits_a_cpu_step_and_puts_adamw_under_optimizer():
    loop = profiler.profile_step("bf16-loop", SMALL, "cpu", steps=2)
    fused = profiler.profile_step("bf16-fused", SMALL, "cpu", steps=2)
    for p in (loop, fused):
        cats = p.by_category
        assert set(cats) == set(profiler.CATEGORIES) and cats["matmul"] > 0 and cats["optimizer"] > 0
        # self times are disjoint pieces of the measured steps: together they cannot exceed the wall time
        assert sum(cats.values()) <= p.wall_s * 1.05
        assert p.top == p.ops[:12] and profiler.StepProfile(**p.to_dict()) == p
    # the for-loop AdamW runs elementwise ops one parameter at a time; the fused one is a single op per step
    assert ("aten::_fused_adamw_", "optimizer") in {(n, c) for n, _, c in fused.ops}
    assert not any(n == "aten::_fused_adamw_" for n, _, _ in loop.ops)
    assert ("aten::addcdiv_", "optimizer") in {(n, c) for n, _, c in loop.ops}     # Adam's update, per tensor


def test_mfu_is_achieved_flops_over_peak():
    assert flops.mfu(2e12, 1.0, 4.0) == 0.5                 # 2 TFLOP in 1 s on a 4 TFLOP/s chip
    assert flops.mfu(2e12, 1.0, 4.0, world_size=2) == 0.25  # the same work spread over two such chips
    assert flops.mfu(1e12, 0.5, None) is None and flops.mfu(1e12, 0.5, 0) is None
    with pytest.raises(ValueError, match="positive"):
        flops.mfu(1e12, 0.0, 4.0)


def test_time_matmul_reports_the_flops_of_the_shape():
    r = profiler.time_matmul(32, 48, 16, dtype=torch.float32, repeats=2)
    assert r.shape == (32, 48, 16)
    assert r.tflops == pytest.approx(2 * 32 * 48 * 16 / r.seconds / 1e12)


def test_the_h200_figures_the_lesson_shows_are_complete_and_consistent():
    ref = profiler.reference_figures()
    assert ref is not None and ref["device"]["name"] == "NVIDIA H200" and ref["device"]["torchao"]
    for width, want in {"1024": {"bf16", "bf16-loop", "bf16-foreach", "bf16-fused", "bf16-compile",
                                 "fp8-tensorwise", "fp8-rowwise"},
                        "4096": {"bf16-compile", "fp8-tensorwise", "fp8-rowwise"}}.items():
        out = ref["bench"][width]
        assert want <= {r["mode"] for r in out["results"]}
        sizes = bench.BenchSizes(**out["sizes"])
        assert out["flops_per_step"] == bench.count_flops(sizes)             # recounted here, on the meta device
        for r in out["results"]:                                             # each figure follows from the times
            assert r["tflops"] == pytest.approx(out["flops_per_step"] / r["step_s"] / 1e12)
            assert r["fraction_of_peak"] == pytest.approx(r["tflops"] / 989.4)
    profiles = [profiler.StepProfile(**p) for p in ref["speed"]["profiles"]]      # the recorded runs read back typed
    assert {p.mode for p in profiles} >= {"bf16-loop", "bf16-foreach", "bf16-fused", "bf16-compile"}
    assert all(p.ops == [] and len(p.top) == 12 for p in profiles)
    assert all(profiler.MatmulTime(**r).tflops > 0 for r in ref["speed"]["matmul"])
    assert all(profiler.VocabStep(**r).step_s > 0 for r in ref["speed"]["vocab"])
    assert ref["compile_run"]["first_step_s"] > ref["compile_run"]["step_s"]   # the first step holds the compile


def test_fp8_matmul_share_is_the_mlp_part_of_the_linear_flops():
    # by hand, per token: attention's in/out projections 3d² + d², the MLP 4d² + 4d², the head d·V; forward and
    # backward scale all alike, and attention's own bmm is not a Linear: share = 8d²·L / (12d²·L + d·V)
    sizes = bench.BenchSizes(layers=1, d_model=64, batch=2, seq=16, vocab=1024, steps=1, warmup=1)
    assert profiler.fp8_matmul_share(sizes) == pytest.approx(8 * 64 / (12 * 64 + 1024))          # 2/7
    wide = bench.BenchSizes(layers=8, d_model=4096, batch=8, seq=1024, vocab=8192, steps=1, warmup=1)
    assert profiler.fp8_matmul_share(wide) == pytest.approx(64 * 4096 / (96 * 4096 + 8192))      # the lesson's 65%


def test_fp8_step_bound_is_amdahls_law():
    # half the step is matmul, 60% of that goes to FP8 at 2x: 0.5 + 0.2 + 0.3 / 2 = 0.85 of the time
    assert profiler.fp8_step_bound(0.5, 0.6) == pytest.approx(1 / 0.85)
    assert profiler.fp8_step_bound(1.0, 1.0, 2.0) == pytest.approx(2.0)       # everything in FP8: the full 2x
    assert profiler.fp8_step_bound(0.5, 0.6, 4.0) == pytest.approx(1 / (0.7 + 0.3 / 4))
    assert profiler.fp8_step_bound(0.0, 0.6) == 1.0                           # no matmul, no gain


def test_fp8_recipes_say_which_gradients_are_e5m2_and_where_fast_accumulation_is_on(monkeypatch):
    # torchao 0.18.0's Float8LinearConfig: tensorwise keeps grad_output in E5M2, rowwise in E4M3; both recipes
    # run the forward gemm with use_fast_accum=True and the two backward gemms without; only rowwise rounds
    # scales to powers of two. Without torchao the lesson shows this table, written from that source.
    monkeypatch.setattr(profiler.importlib.util, "find_spec", lambda name: None)
    rows, where = profiler.fp8_recipes()
    table = {label: (tw, rw) for label, tw, rw in rows}
    assert "0.18.0" in where
    assert table["gradient-এর (grad_output) FP8"] == ("e5m2", "e4m3fn")
    assert table["forward-এর গুণে use_fast_accum"] == ("True", "True")
    assert table["backward, grad_input-এর গুণে use_fast_accum"] == ("False", "False")
    assert table["backward, grad_weight-এর গুণে use_fast_accum"] == ("False", "False")
    assert table["round_scales_to_power_of_2"] == ("False", "True")
    assert [label for label, _ in profiler.FP8_RECIPE_FIELDS] == [r[0] for r in rows]


def test_the_h200_offload_figures_lesson_06_shows_are_complete():
    ref = profiler.reference_figures("06")
    assert ref["device"]["name"] == "NVIDIA H200" and ref["date"] and ref["device"]["cpu_cores"] == 16
    off = ref["offload"]
    # DeepSpeedCPUAdam 1.9x the plain ZeRO-2 step, torch's AdamW on the CPU 2.3x; both save the same GPU memory
    assert round(off["cpu_adam"]["step_ms"] / off["no_offload"]["step_ms"], 1) == 1.9
    assert round(off["torch_adamw"]["step_ms"] / off["no_offload"]["step_ms"], 1) == 2.3
    assert off["cpu_adam"]["peak_mib"] < off["no_offload"]["peak_mib"] and off["cpu_adam"]["build_s"] > 0
    assert profiler.reference_figures("05") is None                          # nothing recorded for lesson 05
