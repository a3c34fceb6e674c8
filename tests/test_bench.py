"""mishran.measure.bench: `python -m mishran.measure.bench` times training steps per precision and reports honestly."""
import json
import re
import subprocess
import sys
import time
import types

import pytest
import torch

from mishran import hardware, timer
from mishran.engines import amp
from mishran.measure import bench, memory, profiler
from mishran.models import reference
from mishran.precision import NAMES

M = bench.MODES

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
        assert len(r["losses"]) == 1 + 2 and r["final_loss"] == r["losses"][-1]      # warm-up + measured
        assert r["tflops"] == pytest.approx(out["flops_per_step"] / r["step_s"] / 1e12)
    assert out["results"][0]["speedup_vs_fp32"] == 1.0
    assert out["flops_per_step"] > 0 and out["parameters"] > 0 and out["peak_source"] is None


def test_compare_loop_measures_an_overhead_that_is_really_there(capsys, monkeypatch):
    """Oracle: make mishran.engines.amp's loop slower by a known sleep per step; the overhead must show it."""
    real_train = amp.train
    pause = 0.2                 # far above the noise of a loaded machine

    def slow_train(model, optimizer, batches, config, **kw):
        for _ in range(config.steps):
            time.sleep(pause)
        return real_train(model, optimizer, batches, config, **kw)

    monkeypatch.setattr(bench, "train", slow_train)
    out = bench.main([*TINY, "--modes", "bf16", "--compare-loop", "--json"])
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(out.to_dict()))
    (c,) = out.compare_loop
    assert c.mode == "bf16" and c.plain_step_s > 0
    assert c.train_step_s - c.plain_step_s >= 0.5 * pause              # the sleep is seen, not hidden
    assert c.overhead_percent > 0


def test_mishran_train_loop_is_about_as_fast_as_the_hand_written_one():
    # same model, batch and precision; best of 5 alternating runs each; a loop that did extra work per step
    # (a sync, a copy of the weights, a second backward) would cost far more than this margin. A busy shared
    # machine can stall one measurement for a while, so up to three attempts: a real overhead shows in every one.
    sizes = reference.BenchSizes(layers=1, d_model=64, batch=4, seq=16, vocab=64, steps=4, warmup=2)
    ratios = []
    for _ in range(3):
        c = bench.compare_loop(M["fp32"], sizes, "cpu", repeats=5)
        ratios.append(c.train_step_s / c.plain_step_s)
        if ratios[-1] < 1.3:
            break
    assert min(ratios) < 1.3, ratios


def test_the_table_names_the_device_and_says_what_was_skipped(capsys):
    bench.main([*TINY, "--modes", "fp32,tf32"])
    text = capsys.readouterr().out
    assert "ডিভাইস (device)" in text and "ms/step" in text and "speedup" in text
    assert re.search(r"^FP32\s+\d", text, re.M)
    assert re.search(r"^TF32\s+বাদ \(skipped\)", text, re.M)
    assert "peak memory মাপা হয়নি" in text                          # CPU: no memory counter, said plainly


def test_flops_are_counted_with_attention_and_match_the_formula():
    s = reference.BenchSizes(layers=2, d_model=64, batch=3, seq=16, vocab=50, steps=1, warmup=0)
    B, T, d, L, V = s.batch, s.seq, s.d_model, s.layers, s.vocab
    # per layer: QKV and output projections 8·B·T·d², MLP 16·B·T·d², attention 4·B·T²·d; head 2·B·T·d·V
    forward = L * (24 * B * T * d * d + 4 * B * T * T * d) + 2 * B * T * d * V
    assert reference.count_flops(s) == 3 * forward                     # backward = 2 × forward


# Published datasheet figures (TFLOP/s), written here from the documents, not from the code. NVIDIA prints the
# tensor-core rates "with sparsity"; the dense rate the bench compares against is half of that.
#   H100 SXM (also the H200 SXM's rates): "NVIDIA H100 Tensor Core GPU" datasheet — FP32 67, TF32 989*,
#     BF16 1,979*, FP16 1,979*, FP8 3,958* (* with sparsity).
#   A100 SXM/PCIe: "NVIDIA A100 Tensor Core GPU" datasheet — FP32 19.5, TF32 156 | 312*, BF16/FP16 312 | 624*.
#   V100 SXM2: "NVIDIA Tesla V100" datasheet — single precision 15.7, tensor performance 125.
#   T4: "NVIDIA T4" datasheet — single precision 8.1, mixed precision (FP16/FP32) 65.
DATASHEET_DENSE = {
    "NVIDIA H200": {"fp32": 67, "tf32": 989 / 2, "bf16": 1979 / 2, "fp16": 1979 / 2, "fp8": 3958 / 2},
    "NVIDIA H100 80GB HBM3": {"fp32": 67, "tf32": 989 / 2, "bf16": 1979 / 2, "fp16": 1979 / 2, "fp8": 3958 / 2},
    "NVIDIA A100-SXM4-80GB": {"fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312},
    "NVIDIA A100-PCIE-40GB": {"fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312},
    "Tesla V100-SXM2-16GB": {"fp32": 15.7, "fp16": 125},
    "Tesla T4": {"fp32": 8.1, "fp16": 65},
}


@pytest.mark.parametrize("name", DATASHEET_DENSE)
def test_peak_table_agrees_with_the_datasheets_within_rounding(name):
    label, peaks = hardware.peak_tflops(name)
    assert label is not None
    for mode, sheet in DATASHEET_DENSE[name].items():
        assert peaks.get(mode) == pytest.approx(sheet, rel=2e-3), (name, mode)   # 989.4 vs 1979/2 = 989.5
    assert set(peaks) == set(DATASHEET_DENSE[name])           # no mode the datasheet does not give


@pytest.mark.parametrize("name", ["NVIDIA H100 PCIe", "NVIDIA H200 NVL", "Tesla V100-PCIE-32GB",
                                  "NVIDIA GeForce RTX 4090", "NVIDIA L4", "cpu"])
def test_parts_with_other_clocks_or_unknown_parts_have_no_peak(name):
    # PCIe and NVL boards run at other clocks and power limits: their rates differ, so the table says nothing
    assert hardware.peak_tflops(name) == (None, {})


def test_half_precision_doubles_tf32_and_fp8_doubles_bf16_on_hopper():
    _, h = hardware.peak_tflops("NVIDIA H200")
    assert h["bf16"] == h["fp16"] == pytest.approx(2 * h["tf32"], rel=1e-3)
    assert h["fp8"] == pytest.approx(2 * h["bf16"], rel=1e-3)


def test_tf32_setting_is_restored():
    torch.set_float32_matmul_precision("medium")
    try:
        with bench._fp32_matmul(M["tf32"]):
            assert torch.get_float32_matmul_precision() == "high"
        with bench._fp32_matmul(M["fp32"]):
            assert torch.get_float32_matmul_precision() == "highest"
        assert torch.get_float32_matmul_precision() == "medium"
    finally:
        torch.set_float32_matmul_precision("highest")


def test_bad_mode_is_a_bengali_error(capsys):
    with pytest.raises(SystemExit):
        bench.main([*TINY, "--modes", "fp32,fp64"])
    err = capsys.readouterr().err
    assert "unknown mode" in err and re.search(r"[\u0980-\u09FF]", err)


@pytest.mark.parametrize("argv, words", [
    (["--steps", "abc"], "not a whole number"), (["--steps", "0"], "must be a positive integer"),
    (["--layers", "2.5"], "not a whole number"), (["--warmup", "-1"], "must be >= 0"),
    (["--warmup", "x"], "not a whole number"),
])
def test_bad_numbers_are_a_bengali_and_english_error_without_internal_names(capsys, argv, words):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--device", "cpu", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert words in err and re.search(r"[\u0980-\u09FF]", err)
    assert "positive_int" not in err and "non_negative_int" not in err and "invalid" not in err


@pytest.mark.parametrize("module, argv", [
    ("mishran.measure.bench", ["--device", "cpu", "--warmup", "-1"]),
    ("mishran.measure.bench", ["--device", "cpu", "--modes", "fp32,fp64"]),
    ("mishran.measure.profiler", ["--device", "cpu", "--modes", "bf16-fast"]),
    ("mishran.measure.memory", ["--batch", "0"]),
    ("mishran.measure.memory", ["--runs", "fp32", "ds_bf16:3"]),
])
def test_each_measuring_command_line_answers_a_bad_value_in_one_line_with_status_2(module, argv):
    done = subprocess.run([sys.executable, "-m", module, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and re.search(r"[\u0980-\u09FF]", done.stderr.splitlines()[-1])
    assert done.stdout == ""


def test_optimizer_implementations_start_from_the_same_model_and_agree():
    sizes = reference.BenchSizes(layers=1, d_model=32, batch=2, seq=8, vocab=32, steps=3, warmup=1)
    out = bench.run(sizes, "cpu", ["bf16", "bf16-loop", "bf16-foreach", "bf16-fused"])
    losses = {r.mode: r.losses for r in out.results}
    assert {r.mode: r.adamw for r in out.results} == {
        "bf16": "loop", "bf16-loop": "loop", "bf16-foreach": "foreach", "bf16-fused": "fused"}  # CPU default: loop
    first = {m: v[0] for m, v in losses.items()}
    assert len(set(first.values())) == 1                        # same seed: same weights and batch, same loss
    for m, v in losses.items():                                 # same AdamW maths, only the kernels differ
        assert v == pytest.approx(losses["bf16-loop"], rel=1e-4), m
        assert v[-1] < v[0]                                     # and it trains
    assert [r.speedup_vs_bf16 for r in out.results][0] == 1.0


def test_groups_expand_and_fp8_is_skipped_on_a_cpu_with_a_reason(capsys):
    out = bench.main([*TINY, "--modes", "fp8-tensorwise,fp8-rowwise", "--json"])
    capsys.readouterr()
    assert out.results == []
    assert [s.mode for s in out.skipped] == ["fp8-tensorwise", "fp8-rowwise"]
    assert all("FP8" in s.why and "CPU" in s.why for s in out.skipped)
    assert bench.parse_modes("speed") == list(bench.GROUPS["speed"])
    assert bench.parse_modes("precision,bf16-fused") == [*bench.GROUPS["precision"], "bf16-fused"]


def test_a_mode_is_a_precision_name_and_its_switches_and_its_name_is_the_command_line_spelling():
    assert list(M) == ["fp32", "tf32", "fp16", "bf16", "bf16-loop", "bf16-foreach", "bf16-fused", "bf16-compile",
                       "fp8-tensorwise", "fp8-rowwise"]
    assert all(m.precision in NAMES and m.name == name for name, m in M.items())
    assert M["bf16-fused"] == bench.Mode("bf16", optimizer="fused") and M["tf32"] == bench.Mode("fp32", tf32=True)
    assert M["fp8-rowwise"] == bench.Mode("bf16", "fused", compile=True, fp8="rowwise")
    assert [M[n].peak_key for n in ("tf32", "fp16", "fp8-rowwise")] == ["tf32", "fp16", "bf16"]
    assert bench.as_mode("bf16-compile") is M["bf16-compile"] and bench.as_mode(M["fp16"]) is M["fp16"]
    with pytest.raises(ValueError, match="unknown mode"):
        bench.as_mode("bf16_fused")


def test_a_bench_result_survives_json_and_the_recorded_h200_results_read_back():
    sizes = reference.BenchSizes(layers=1, d_model=32, batch=2, seq=8, vocab=32, steps=1, warmup=0)
    out = bench.run(sizes, "cpu", ["fp32", "tf32"], compare=True)
    back = bench.BenchResult.from_dict(json.loads(json.dumps(out.to_dict())))
    assert back == out and back.sizes == sizes and back.compare_loop[0].mode == "fp32"
    assert [s.mode for s in back.skipped] == ["tf32"] and back.by_mode()["fp32"].speedup_vs_fp32 == 1.0
    assert [s.mode for s in bench.run(sizes, "cpu", "tf32").skipped] == ["tf32"]    # one mode, not a list: fine
    recorded = profiler.reference_figures()["bench"]["1024"]
    assert bench.BenchResult.from_dict(recorded).to_dict() == {**recorded, "compare_loop": None}


def _report(**kw):
    base = dict(device="cuda", name="NVIDIA X", capability=(9, 0), tf32=True, bf16=True, fp8=True)
    return types.SimpleNamespace(**{**base, **kw})


def test_skip_reasons_follow_the_hardware_report(monkeypatch):
    def skip(name, device, report):
        return bench.skip_reason(M[name], device, report)

    assert "sm_86" in skip("fp8-rowwise", "cuda", _report(capability=(8, 6), fp8=False))
    assert skip("bf16-fused", "cuda", _report()) is None
    monkeypatch.setattr(bench.importlib.util, "find_spec", lambda name: None)       # no torchao, no triton
    assert "torchao" in skip("fp8-tensorwise", "cuda", _report())
    assert "Triton" in skip("bf16-compile", "cuda", _report())
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)                   # no C++ compiler
    assert "C++" in skip("bf16-compile", "cpu", _report(device="cpu", capability=None))
    t4 = _report(capability=(7, 5), tf32=False, bf16=False, fp8=False, simulated=True)
    assert "BF16" in skip("bf16-fused", "cuda", t4) and "sm_75" in skip("tf32", "cuda", t4)
    assert skip("fp16", "cuda", t4) is None
    real_t4 = _report(capability=(7, 5), tf32=False, bf16=False, fp8=False, simulated=False)   # Colab's T4
    for mode in ("bf16", "bf16-fused", "bf16-compile"):
        why = skip(mode, "cuda", real_t4)
        assert "BF16 hardware নেই" in why and "sm_75" in why and "simulated" not in why
    assert skip("fp16", "cuda", real_t4) is None


def test_a_compile_or_fp8_failure_is_reported_not_raised(monkeypatch):
    real = bench.time_mode

    def broken(mode, sizes, device):
        if mode.name == "bf16-compile":
            raise RuntimeError("no working compiler here\nsecond line")
        return real(mode, sizes, device)

    monkeypatch.setattr(bench, "time_mode", broken)
    sizes = reference.BenchSizes(layers=1, d_model=32, batch=2, seq=8, vocab=32, steps=1, warmup=1)
    out = bench.run(sizes, "cpu", ["bf16", "bf16-compile"])
    assert [r.mode for r in out.results] == ["bf16"]
    (sk,) = out.skipped
    assert sk.mode == "bf16-compile" and "RuntimeError: no working compiler here" in sk.why
    monkeypatch.setattr(bench, "time_mode", lambda *a: (_ for _ in ()).throw(RuntimeError("plain mode bug")))
    with pytest.raises(RuntimeError, match="plain mode bug"):              # a plain mode's bug is not hidden
        bench.run(sizes, "cpu", ["bf16"])


def test_every_timed_step_is_mishran_train_amp_step(monkeypatch):
    """time_mode and both sides of compare_loop run the one step train() runs; nothing times a private copy."""
    from mishran.engines import amp as train_module

    calls = []
    real = train_module.amp_step

    def counting(*args, **kwargs):
        calls.append(len(args[4]) if isinstance(args[4], list) else kwargs.get("accumulation_steps", args[5]))
        return real(*args, **kwargs)

    monkeypatch.setattr(bench, "amp_step", counting)                 # what bench and speed call
    monkeypatch.setattr(train_module, "amp_step", counting)          # what train() calls
    sizes = reference.BenchSizes(layers=1, d_model=32, batch=2, seq=8, vocab=32, steps=3, warmup=2)
    r = bench.time_mode(M["fp32"], sizes, "cpu")
    assert len(calls) == len(r.losses) == 2 + 3                      # warm-up and measured steps
    calls.clear()
    bench.compare_loop(M["fp32"], sizes, "cpu", repeats=1)
    assert calls == [1] * (2 * 2 + 2 * 3)                            # both sides: warm-up, then one timed round


def test_the_clock_and_the_memory_release_have_one_home_each_and_take_any_device_spelling():
    for device in ("cpu", torch.device("cpu")):
        timer.sync(device)
        memory.release(device)
    assert isinstance(bench.has_cxx_compiler(), bool)
    assert {"repeat_step", "parse_modes", "as_mode", "has_cxx_compiler"} <= set(bench.__all__)
    assert not {"sync", "release"} & set(bench.__all__) and not hasattr(bench, "sync")
