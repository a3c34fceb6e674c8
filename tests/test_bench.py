"""mishran.bench: `python -m mishran.bench` times training steps per precision and reports honestly."""
import json
import re

import pytest
import torch

from mishran import bench

TINY = ["--device", "cpu", "--layers", "1", "--d-model", "32", "--batch", "2", "--seq", "8", "--vocab", "32",
        "--steps", "2", "--warmup", "1"]


def test_json_gives_the_expected_fields_with_positive_times(capsys):
    bench.main([*TINY, "--modes", "fp32,bf16", "--json"])
    out = json.loads(capsys.readouterr().out)                       # stdout is JSON and nothing else
    assert out["device"]["device"] == "cpu" and out["device"]["torch"] == torch.__version__
    assert out["sizes"] == {"layers": 1, "d_model": 32, "batch": 2, "seq": 8, "vocab": 32, "steps": 2, "warmup": 1}
    assert [r["mode"] for r in out["results"]] == ["fp32", "bf16"]
    for r in out["results"]:
        assert r["step_s"] > 0 and r["tflops"] > 0 and r["speedup_vs_fp32"] > 0
        assert r["peak_memory_bytes"] is None                       # not measured on CPU, and it says so
        assert r["peak_tflops"] is None and r["fraction_of_peak"] is None
    assert out["results"][0]["speedup_vs_fp32"] == 1.0
    assert out["flops_per_step"] > 0 and out["parameters"] > 0 and out["peak_source"] is None


def test_compare_loop_reports_both_loops_and_the_overhead(capsys):
    out = bench.main([*TINY, "--modes", "bf16", "--compare-loop", "--json"])
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(out))
    (c,) = out["compare_loop"]
    assert c["mode"] == "bf16" and c["plain_step_s"] > 0 and c["train_step_s"] > 0
    assert c["overhead_percent"] == pytest.approx(100 * (c["train_step_s"] / c["plain_step_s"] - 1))


def test_the_table_names_the_device_and_says_what_was_skipped(capsys):
    bench.main([*TINY, "--modes", "fp32,tf32"])
    text = capsys.readouterr().out
    assert "ডিভাইস (device)" in text and "ms/step" in text and "speedup" in text
    assert re.search(r"^FP32\s+\d", text, re.M)
    assert re.search(r"^TF32\s+বাদ \(skipped\)", text, re.M)
    assert "peak memory মাপা হয়নি" in text                          # CPU: no memory counter, said plainly


def test_flops_are_counted_with_attention_and_match_the_formula():
    s = bench.BenchSizes(layers=2, d_model=64, batch=3, seq=16, vocab=50, steps=1, warmup=0)
    B, T, d, L, V = s.batch, s.seq, s.d_model, s.layers, s.vocab
    # per layer: QKV and output projections 8·B·T·d², MLP 16·B·T·d², attention 4·B·T²·d; head 2·B·T·d·V
    forward = L * (24 * B * T * d * d + 4 * B * T * T * d) + 2 * B * T * d * V
    assert bench.count_flops(s) == 3 * forward                     # backward = 2 × forward


@pytest.mark.parametrize("name, mode, peak", [
    ("NVIDIA H200", "bf16", 989.4), ("NVIDIA H100 80GB HBM3", "tf32", 494.7), ("NVIDIA H200", "fp32", 67),
    ("NVIDIA A100-SXM4-80GB", "tf32", 156), ("NVIDIA A100-PCIE-40GB", "fp16", 312),
    ("Tesla T4", "fp16", 65), ("Tesla T4", "bf16", None), ("Tesla V100-SXM2-16GB", "fp16", 125),
    ("Tesla V100-SXM2-16GB", "tf32", None),
    ("NVIDIA H100 PCIe", "bf16", None), ("NVIDIA H200 NVL", "bf16", None), ("Tesla V100-PCIE-32GB", "fp16", None),
    ("NVIDIA GeForce RTX 4090", "fp16", None),
])
def test_peak_table_is_dense_datasheet_numbers_and_unknown_parts_stay_unknown(name, mode, peak):
    assert bench.peak_tflops(name)[1].get(mode) == peak


def test_tf32_setting_is_restored():
    torch.set_float32_matmul_precision("medium")
    try:
        with bench._fp32_matmul("tf32"):
            assert torch.get_float32_matmul_precision() == "high"
        with bench._fp32_matmul("fp32"):
            assert torch.get_float32_matmul_precision() == "highest"
        assert torch.get_float32_matmul_precision() == "medium"
    finally:
        torch.set_float32_matmul_precision("highest")


def test_bad_mode_is_a_bengali_error(capsys):
    with pytest.raises(SystemExit):
        bench.main([*TINY, "--modes", "fp32,fp64"])
    err = capsys.readouterr().err
    assert "unknown mode" in err and re.search(r"[\u0980-\u09FF]", err)
