"""পাঠ ০৮: mishran.capstone.literature (batch), mishran.capstone.evaluation (bpc, top-k নমুনা, MFU),
mishran.capstone (run, নতুন process-এ হুবহু resume)। সংকলন দুটি নিজেরা (provenance, markup, প্রতিলিপি, খণ্ড ধরে
ভাগ): tests/test_literature.py।"""
import json
import math
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
import torch.nn as nn

from mishran import cli, precision
from mishran.capstone import check as capstone_check
from mishran.capstone import evaluation, literature, training
from mishran.data import BatchStream
from mishran.engines import deepspeed_engine as ds
from mishran.measure import flops
from mishran.models.gpt import GPT_SIZES, GPTConfig, TinyGPT

ROOT = Path(__file__).resolve().parents[1]


def test_bits_per_char_by_hand():
    assert evaluation.bits_per_char(3 * math.log(2), 3) == pytest.approx(1.0)
    # bigram, alpha = 1: train 0 1 0 1 1 → সারি 0: [1, 1+2], সারি 1: [1+1, 1+1]
    # held-out 0 1 1: -log2(3/4) - log2(1/2), দুই অক্ষরে
    got = evaluation.bigram_bpc(torch.tensor([0, 1, 0, 1, 1]), torch.tensor([0, 1, 1]), 2, alpha=1.0)
    assert got == pytest.approx((-math.log2(3 / 4) - math.log2(1 / 2)) / 2)


class _Uniform(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.vocab = vocab
        self.w = nn.Parameter(torch.zeros(()))

    def forward(self, idx, targets=None):
        return torch.zeros(*idx.shape, self.vocab) + self.w, None


def test_heldout_bpc_of_a_uniform_model_is_log2_vocab():
    ids = torch.randint(0, 37, (1000,), generator=torch.Generator().manual_seed(0))
    # 999 লক্ষ্য, block 64: শেষ টুকরোটা অপূর্ণ — সেটাও ঠিক গোনা চাই
    assert evaluation.heldout_bpc(_Uniform(37), ids, 64) == pytest.approx(math.log2(37), rel=1e-6)


def test_heldout_bpc_matches_a_direct_sum():
    torch.manual_seed(0)
    model = TinyGPT(GPTConfig(vocab_size=11, block_size=8, n_layer=1, n_head=2, n_embd=16), seed=1)
    ids = torch.randint(0, 11, (21,))
    nll = 0.0
    for s in range(0, 20, 8):                      # পাশাপাশি টুকরো: 0–7, 8–15, 16–19
        x, y = ids[s:s + 8][: len(ids) - 1 - s], ids[s + 1:s + 9]
        logp = torch.log_softmax(model(x[None])[0][0], -1)
        nll -= logp[torch.arange(len(y)), y].sum().item()
    assert evaluation.heldout_bpc(model, ids, 8) == pytest.approx(nll / 20 / math.log(2), rel=1e-5)


def test_sampling_with_top_k_stays_in_the_top_k():
    data = literature.LiteratureData(literature.load_pieces()[:40])
    model = TinyGPT(GPTConfig(vocab_size=data.vocab_size, block_size=32, n_layer=1, n_head=2, n_embd=32), seed=3)
    prompt = "আমি"
    for k in (1, 3):
        text = evaluation.sample(model, data.tokenizer, prompt, max_new_tokens=25, temperature=1.5, top_k=k, seed=k)
        ids = data.tokenizer.encode(prompt + text)
        for t in range(len(prompt), len(ids)):
            ctx = torch.tensor([ids[max(0, t - 32):t]])
            with torch.no_grad():
                logits = model(ctx)[0][0, -1]
            top = torch.topk(logits, k).indices.tolist()
            assert ids[t] in top, (k, t)
    # top_k ছাড়া উঁচু temperature-এ অনেক আলাদা অক্ষর আসে (তাই ওপরের পরীক্ষাটা ফাঁপা নয়)
    free = evaluation.sample(model, data.tokenizer, prompt, max_new_tokens=60, temperature=1.5, top_k=None, seed=0)
    assert len(set(free)) > 3


def test_vocabulary_share_counts_words():
    got = evaluation.vocabulary_share("আমি ভাত খাই। কলম্বাস কাটা", "আমি রোজ ভাত খাই")
    assert got == {"words": 4, "known": 3, "share": 0.75}


def test_resume_in_a_fresh_process_is_exact(tmp_path, launch_module):
    # with a learning-rate warm-up and cosine decay: the rate is a function of the step, so nothing else is saved
    common = ["--cpu", "--size", "tiny", "--precision", "fp32", "--micro-batch", "4", "--accumulation-steps", "2",
              "--steps", "8", "--eval-every", "4", "--eval-chars", "2000", "--dropout", "0.1", "--warmup", "0",
              "--lr-warmup", "3", "--lr-decay"]
    ckpt = tmp_path / "ckpt.pt"

    def launch(*extra):
        out = tmp_path / f"r{len(list(tmp_path.iterdir()))}.json"
        return launch_module("mishran.capstone", [*common, *extra], out, cwd=tmp_path, timeout=300)

    full = launch("--checkpoint", str(ckpt), "--save-at", "4")
    resumed = launch("--resume", str(ckpt))
    assert len(full["losses"]) == 8 and resumed["start_step"] == 4 and len(resumed["losses"]) == 4
    assert resumed["losses"] == full["losses"][4:]            # বিটে বিটে একই, approx নয়
    assert resumed["curve"] == [c for c in full["curve"] if c["step"] > 4]
    # the best checkpoint travels in the checkpoint: the resumed run reports the whole run's best
    assert (resumed["heldout_bpc"], resumed["best_step"]) == (full["heldout_bpc"], full["best_step"])
    assert full["heldout_bpc"] == min(c["bpc"] for c in full["curve"])
    # একই seed-এ শুরু থেকে আবার চালালে এই loss আসে না: resume সত্যিই checkpoint থেকে চলছে
    assert full["losses"][:4] != full["losses"][4:]
    # mishran.capstone.check reads these very files (what the CLI writes) and finds the pair bit-exact
    pair = [capstone_check.load_run(p) for p in sorted(tmp_path.glob("r*.json"))]
    assert "বিটে বিটে এক" in "\n".join(capstone_check.score_resume(pair).lines)


def test_top_k_one_is_the_same_for_every_seed():
    data = literature.LiteratureData(literature.load_pieces()[:40])
    model = TinyGPT(GPTConfig(vocab_size=data.vocab_size, block_size=32, n_layer=1, n_head=2, n_embd=32), seed=3)
    texts = {evaluation.sample(model, data.tokenizer, "আমি", 20, temperature=2.0, top_k=1, seed=s) for s in range(3)}
    assert len(texts) == 1


def test_two_ranks_see_exactly_the_one_gpu_batch():
    data = literature.LiteratureData(literature.load_pieces()[:40])
    one = BatchStream(data, micro_batch=3, accumulation_steps=4, block_size=16, seed=5)
    ranks = [BatchStream(data, micro_batch=3, accumulation_steps=2, block_size=16, world_size=2, rank=r,
                                  seed=5) for r in range(2)]
    for _ in range(3):                              # তিনটি optimizer step
        x_one = torch.stack([one()[0] for _ in range(4)])                       # (accum 4, micro 3, T)
        x_two = torch.stack([torch.stack([s()[0] for _ in range(2)]) for s in ranks], 1)   # (2, rank, 3, T)
        # এক GPU-র ৪টি micro-batch = দুই GPU-র ২ × ২টি, একই নমুনা; মোট ১২টি আলাদা জায়গা থেকে
        assert torch.equal(x_one.reshape(-1, 16), x_two.reshape(-1, 16))
    assert ranks[0].global_batch == one.global_batch == 12
    assert not torch.equal(ranks[0]()[0], ranks[1]()[0])     # দুই rank একই নমুনা নেয় না


@pytest.mark.parametrize("name", ["auto", None, *precision.NAMES])
def test_capstone_config_and_cli_take_every_precision_name(name):
    assert training.CapstoneConfig(precision=name).precision == (name or "auto")
    if name:
        assert training.parse_args(["--precision", name]).precision == name


def test_an_unknown_precision_is_refused_not_run_as_fp32():
    with pytest.raises(ValueError, match="unknown precision"):
        training.CapstoneConfig(precision="fp8")


@pytest.mark.parametrize("switch, value, error, words", [
    ("size", "huge", ValueError, "must be one of tiny, small, gpu, h200"),
    ("corpus", "big", ValueError, "must be one of small, full"),
    ("micro_batch", 0, ValueError, "must be an integer >= 1"),
    ("steps", 2.5, ValueError, "must be an integer >= 0"),
    ("zero_stage", 4, ValueError, "must be an integer in 0..3 or None"),
    ("seed", -1, ValueError, "must be an integer >= 0"),
    ("lr", float("nan"), ValueError, "must be a positive finite number"),
    ("lr", 2 ** 2000, ValueError, "must be a positive finite number"),         # finite as an int, not as a float
    ("temperature", -(2 ** 2000), ValueError, "must be a positive finite number"),
    ("dropout", 1.0, ValueError, r"must be in \[0, 1\)"),
    ("top_k", True, ValueError, "must be an integer >= 1 or None"),
    ("prompt", 3, TypeError, "must be a str"),
    ("checkpoint_path", 3, TypeError, "must be a path or None"),
    ("compile", "yes", TypeError, "must be True or False"),
    ("device", "gpu", ValueError, "unknown device"),
])
def test_a_wrong_switch_is_named_in_bengali(switch, value, error, words):
    with pytest.raises(error, match=words) as err:
        training.CapstoneConfig(**{switch: value})
    assert any("\u0980" <= ch <= "\u09ff" for ch in str(err.value))


def test_an_empty_prompt_and_a_non_bool_return_model_are_refused_in_bengali(forty):
    model = TinyGPT(GPTConfig(vocab_size=forty.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8), seed=0)
    with pytest.raises(ValueError, match="prompt must be a non-empty str") as err:
        evaluation.sample(model, forty.tokenizer, "")
    assert "অক্ষর" in str(err.value)
    with pytest.raises(TypeError, match="return_model a bool"):
        training.run(training.CapstoneConfig(), data=forty, return_model=torch.tensor([1.0, 2.0]))


@pytest.mark.parametrize("switch", ["resume_from", "compile"])
def test_resume_and_compile_belong_to_the_pytorch_loop(switch):
    with pytest.raises(ValueError, match=f"{switch} is implemented for zero_stage=None only"):
        training.CapstoneConfig(zero_stage=1, **{switch: "ck.pt" if switch == "resume_from" else True})


def _command(module, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("args, words", [
    (["--steps", "-5"], "must be a positive integer"),
    (["--lr", "nan"], "must be finite"),
    (["--dropout", "1.5"], r"must be in [0, 1)"),                        # the config's own rule, the same one line
    (["--zero-stage", "1", "--resume", "ck.pt"], "resume_from is implemented for zero_stage=None only"),
])
def test_a_bad_flag_gives_one_bengali_line_and_status_2(args, words):
    proc = _command("mishran.capstone", "--cpu", *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""
    last = proc.stderr.strip().splitlines()[-1]
    assert words in last and any("\u0980" <= ch <= "\u09ff" for ch in last), proc.stderr


def test_an_unknown_choice_is_argparses_own_line():
    proc = _command("mishran.capstone", "--size", "huge")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "invalid choice: 'huge'" in proc.stderr


def test_the_result_is_typed_and_its_json_is_what_the_checker_reads(forty, tmp_path):
    cfg = training.CapstoneConfig(size="tiny", precision="fp32", micro_batch=4, steps=2, eval_every=2,
                                  eval_chars=300, sample_tokens=3, device="cpu", warmup=0)
    result = training.run(cfg, data=forty)
    assert isinstance(result, training.CapstoneResult) and result.config is cfg and len(result.losses) == 2
    cli.write_record(result, tmp_path / "r.json")
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert written["config"] == asdict(cfg) and written["heldout_bpc"] == result.heldout_bpc
    # every key a recorded run of the CLI has (tests/data/capstone), and none of DeepSpeed's on the PyTorch path
    recorded = json.loads((ROOT / "tests" / "data" / "capstone" / "fp32_s0.json").read_text(encoding="utf-8"))
    assert set(recorded) <= set(written) and not {"zero_stage", "backend", "ds_config"} & set(written)
    assert capstone_check.finished(capstone_check.load_run(tmp_path / "r.json"))


def test_speed_figures_take_the_peak_of_the_precision_that_ran():
    h200 = "NVIDIA H200"
    bf16 = evaluation.speed_figures([9.0, 1.0, 1.0], 1, 1000, 6_000_000, "bf16", h200, world_size=2)
    fp32 = evaluation.speed_figures([9.0, 1.0, 1.0], 1, 1000, 6_000_000, "fp32", h200, world_size=2)
    assert bf16["tokens_per_s"] == 1000.0                        # the warm-up step is left out
    assert (bf16["peak_tflops_per_gpu"], fp32["peak_tflops_per_gpu"]) == (989.4, 67)
    assert bf16["mfu"] == pytest.approx(1000 * 6e6 / (989.4e12 * 2))
    assert evaluation.speed_figures([1.0], 0, 10, 6, "bf16", None)["mfu"] is None      # CPU: no known peak


@pytest.fixture
def spy_speed(monkeypatch):
    """What precision the MFU figure was given, and how many DeepSpeed steps ran."""
    seen = {"precision": [], "engine_steps": []}
    real_speed, real_step = evaluation.speed_figures, ds.engine_step

    def speed(*args, **kwargs):
        seen["precision"].append(args[4])
        return real_speed(*args, **kwargs)

    def step(engine, batches):
        seen["engine_steps"].append(len(batches))
        return real_step(engine, batches)
    monkeypatch.setattr(training, "speed_figures", speed)
    monkeypatch.setattr(ds, "engine_step", step)
    return seen


SMALL_RUN = dict(size="tiny", micro_batch=4, accumulation_steps=2, steps=2, eval_every=2, eval_chars=300,
                 sample_tokens=5, warmup=0)


@pytest.mark.parametrize("zero_stage", [None, 0])
def test_a_run_decides_precision_once_for_its_report_config_and_mfu(spy_speed, zero_stage):
    pytest.importorskip("deepspeed")
    data = literature.LiteratureData(literature.load_pieces()[:40])
    out = training.run(training.CapstoneConfig(precision="auto", zero_stage=zero_stage, **SMALL_RUN), data=data)
    decided = precision.resolve("auto", "cuda" if torch.cuda.is_available() else "cpu")
    assert out.precision == decided and spy_speed["precision"] == [decided]
    if zero_stage is None:
        assert out.engine == "pytorch" and spy_speed["engine_steps"] == []
    else:                                          # DeepSpeed: the config enables that same precision, one step each
        assert out.engine == "deepspeed" and precision.from_ds_config(out.ds_config) == decided
        assert spy_speed["engine_steps"] == [2, 2] and len(out.losses) == 2


# ---------------------------------------------------------------- best checkpoint, early stopping, learning rate

@pytest.fixture(scope="module")
def forty():
    return literature.LiteratureData(literature.load_pieces()[:40])


def test_the_run_returns_the_best_heldout_model_not_the_last(forty):
    # lr 0.05 on the tiny model: held-out bpc is lowest after the first step, then rises (a run that overshoots)
    cfg = training.CapstoneConfig(size="tiny", precision="fp32", micro_batch=4, steps=8, eval_every=1,
                                  eval_chars=600, sample_tokens=2, lr=0.05, device="cpu", warmup=0)
    report, model = training.run(cfg, data=forty, return_model=True)
    bpcs = [c["bpc"] for c in report.curve]
    assert report.best_step != 8 and report.final_bpc == bpcs[-1] > min(bpcs)     # the last is not the best
    assert report.heldout_bpc == min(bpcs) == bpcs[report.best_step - 1]
    # measured again, independently, on the model the run handed back: it is the best one's weights
    assert evaluation.heldout_bpc(model, forty.val_data, 64, "cpu", "fp32", max_chars=600) == report.heldout_bpc
    assert all(c["train_bpc"] > 0 for c in report.curve)


# ---------------------------------------------------------------- the DeepSpeed path under ZeRO-3

# The "gpu" size: its larger weights (384 × 1536) are over DeepSpeed's stage3_param_persistence_threshold (1e5
# elements), so ZeRO-3 really splits them across ranks (the tiny model's weights would all stay whole on every rank).
# lr 0.05 overshoots, as above: the best evaluation is not the last one.
ZERO3_ARGS = dict(size="gpu", zero_stage=3, accumulation_steps=1, steps=3, eval_every=1, eval_chars=256,
                  sample_tokens=5, lr=0.05, warmup=0)


@pytest.fixture(scope="module")
def zero3_one_rank():
    pytest.importorskip("deepspeed")
    data = literature.LiteratureData()
    report, model = training.run(training.CapstoneConfig(micro_batch=2, device="cpu", **ZERO3_ARGS), data=data,
                                 return_model=True)
    return report, model, data


def test_zero3_hands_back_the_best_weights_whole(zero3_one_rank):
    report, model, data = zero3_one_rank
    bpcs = [c["bpc"] for c in report.curve]
    assert report.zero_stage == 3 and report.best_step != 3 and report.heldout_bpc == min(bpcs) < bpcs[-1]
    # a plain model that no engine holds (a ZeRO-3 module's weights carry DeepSpeed's ds_id), every weight whole
    assert type(model) is TinyGPT and not any(hasattr(p, "ds_id") for p in model.parameters())
    assert model.num_parameters() == report.num_params > 10_000_000
    # the best step's weights, measured again: with torch's own linear now (the run's ZeRO-3 engine evaluated through
    # DeepSpeed's, which adds the bias apart, so BF16 rounds a little differently); the other steps are 2.4 and 11 away
    again = evaluation.heldout_bpc(model, data.val_data, model.config.block_size, "cpu", "fp32", max_chars=256)
    assert again == pytest.approx(report.heldout_bpc, rel=1e-3)


def test_zero3_on_two_ranks_evaluates_on_both_and_agrees_with_one(tmp_path, zero3_one_rank, launch_module):
    # before every rank took part in the evaluation, rank 0's forward waited for rank 1's shards forever
    args = ["--cpu", "--micro-batch", "1"]
    for key, value in ZERO3_ARGS.items():
        args += [f"--{key.replace('_', '-')}", value]
    r = launch_module("mishran.capstone", args, tmp_path / "z3_n2.json", ranks=2, timeout=180)
    one = zero3_one_rank[0]
    assert (r["world_size"], r["zero_stage"], r["global_batch"]) == (2, 3, one.global_batch)
    # the first loss comes before any update: the same weights and the same two samples, one on each rank (after that,
    # lr 0.05 amplifies BF16's different summing order, and the runs part)
    assert r["losses"][0] == pytest.approx(one.losses[0], rel=1e-3)
    assert [c["step"] for c in r["curve"]] == [1, 2, 3]
    assert r["heldout_bpc"] == min(c["bpc"] for c in r["curve"]) and r["best_step"] is not None
    assert r["flops_per_token"] == one.flops_per_token and len(r["sample"]["text"]) == 5


def test_patience_stops_the_run_after_that_many_evaluations_without_a_new_best(forty):
    cfg = training.CapstoneConfig(size="tiny", precision="fp32", micro_batch=4, steps=8, eval_every=1,
                                  eval_chars=600, sample_tokens=2, lr=0.05, device="cpu", warmup=0, patience=2)
    report = training.run(cfg, data=forty)
    bpcs = [c["bpc"] for c in report.curve]
    best = bpcs.index(min(bpcs))
    assert report.stopped_early and len(report.losses) == len(bpcs) == best + 3 < 8


def test_best_checkpoint_keeps_a_copy_of_the_best_weights():
    net = nn.Linear(2, 1)
    best = evaluation.BestCheckpoint(patience=2)
    nn.init.constant_(net.weight, 1.0)
    assert best.update(net, 10, 3.0)
    nn.init.constant_(net.weight, 2.0)
    assert best.update(net, 20, 2.0)
    nn.init.constant_(net.weight, 3.0)
    assert not best.update(net, 30, 2.5) and not best.stop
    assert not best.update(net, 40, 2.0) and best.stop            # equal is not better; two without a new best
    best.restore(net)
    assert torch.equal(net.weight, torch.full((1, 2), 2.0)) and (best.step, best.bpc) == (20, 2.0)
    again = evaluation.BestCheckpoint()
    again.load_state_dict(best.state_dict())
    assert (again.step, again.bpc, again.since) == (20, 2.0, 2)


def test_learning_rate_warms_up_then_follows_a_cosine_to_a_tenth():
    cfg = training.CapstoneConfig(lr=1.0, steps=14, lr_warmup=4, lr_decay=True)
    lr_at = training.lr_schedule(cfg)
    # warm-up (s + 1)/4; cosine over steps 4..14: half-way (step 9) is 0.1 + 0.9/2, the end a tenth
    expected = {0: 0.25, 1: 0.5, 3: 1.0, 4: 1.0, 9: 0.55, 14: 0.1, 20: 0.1}
    assert {s: round(lr_at(s), 12) for s in expected} == expected
    flat = training.lr_schedule(training.CapstoneConfig(lr=0.5, steps=14, lr_warmup=2))
    assert [flat(s) for s in (0, 1, 2, 13)] == [0.25, 0.5, 0.5, 0.5]


def test_train_sets_the_scheduled_rate_before_each_step():
    from mishran.engines.amp import TrainConfig, train
    net = nn.Linear(2, 1)
    opt = torch.optim.SGD(net.parameters(), lr=9.0)
    seen = []

    def batch():                                    # drawn after the rate for this step is set
        seen.append(opt.param_groups[0]["lr"])
        return torch.ones(3, 2), torch.zeros(3, 1)

    train(net, opt, batch, TrainConfig(steps=4), start_step=5, loss_fn=nn.functional.mse_loss,
          lr_at=lambda step: step / 100)
    assert seen == [0.05, 0.06, 0.07, 0.08]


def test_the_recorded_h200_runs_agree_with_themselves_and_with_the_formulas():
    """The H200 record lesson 08 shows: each number recomputed from the run's own curve and config (not copied)."""
    rec = training.recorded_h200()
    for name, r in rec["runs"].items():
        bpcs = [c["bpc"] for c in r["curve"]]
        assert r["heldout_bpc"] == min(bpcs) and r["final_bpc"] == bpcs[-1], name
        assert r["curve"][bpcs.index(min(bpcs))]["step"] == r["best_step"], name
        assert math.isclose(r["margin_vs_bigram"], r["bigram_bpc"] - r["heldout_bpc"]), name
        size = GPT_SIZES[r["config"]["size"]]
        model = TinyGPT(GPTConfig(vocab_size=r["vocab_size"], **size))
        assert model.num_parameters() == r["num_params"] and flops.flops_per_token(model) == r["flops_per_token"]
        one_second = r["tokens_per_s"] * r["flops_per_token"]                 # the FLOPs of one second
        assert math.isclose(r["mfu"], flops.mfu(one_second, 1.0, r["peak_tflops_per_gpu"]), rel_tol=1e-9)
        assert r["config"]["corpus"] == ("small" if name.endswith("small") else "full")
    # the two corpora, as built today, are the ones these runs read
    for name, corpus in (("bf16", "full"), ("bf16_small", "small")):
        data = literature.LiteratureData(corpus=corpus)
        assert (len(data.train_data), len(data.val_data)) == (rec["runs"][name]["train_chars"],
                                                               rec["runs"][name]["heldout_chars"])
    assert rec["resume"]["exact"] and rec["resume"]["resumed_losses"] == rec["resume"]["full_losses_from_checkpoint"]


def test_a_resumed_run_reports_the_best_from_before_the_checkpoint(forty, tmp_path):
    # lr 0.05: the best held-out comes at step 1, before the checkpoint at step 4; the resumed run never beats it
    common = dict(size="tiny", precision="fp32", micro_batch=4, steps=8, eval_every=1, eval_chars=600,
                  sample_tokens=2, lr=0.05, device="cpu", warmup=0)
    ckpt = str(tmp_path / "ckpt.pt")
    full = training.run(training.CapstoneConfig(**common, checkpoint_path=ckpt, save_at=4), data=forty)
    resumed, model = training.run(training.CapstoneConfig(**common, resume_from=ckpt), data=forty, return_model=True)
    assert full.best_step < 4 and resumed.losses == full.losses[4:]
    assert (resumed.heldout_bpc, resumed.best_step) == (full.heldout_bpc, full.best_step)
    assert evaluation.heldout_bpc(model, forty.val_data, 64, "cpu", "fp32", max_chars=600) == resumed.heldout_bpc


def _bigram_bits(train: torch.Tensor, held: torch.Tensor, vocab: int, alpha: float) -> float:
    """An independent add-alpha bigram (counted here with bincount, not with evaluation.bigram_bpc)."""
    counts = torch.bincount(train[:-1] * vocab + train[1:], minlength=vocab * vocab).double().view(vocab, vocab)
    probs = (counts + alpha) / (counts.sum(1, keepdim=True) + alpha * vocab)
    return -torch.log2(probs[held[:-1], held[1:]]).mean().item()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lesson_08s_cpu_run_beats_the_bigram_on_the_same_heldout_text(seed):
    """Lesson 08's own CPU config (training.CPU_LESSON_KNOBS, what the notebook runs) must end below the bigram's
    bits per character on the same first eval_chars of the held-out text, by a clear margin, for every seed tried."""
    data = literature.LiteratureData()
    knobs = dict(training.CPU_LESSON_KNOBS, seed=seed, sample_tokens=5, device="cpu")
    report, model = training.run(training.CapstoneConfig(**knobs), data=data, return_model=True)
    held = data.val_data[:knobs["eval_chars"] + 1]
    bigram = min(_bigram_bits(data.train_data, held, data.vocab_size, a) for a in (0.01, 0.1, 0.5, 1.0))
    assert math.isclose(report.bigram_bpc, bigram, rel_tol=1e-9)
    # the model's bits on the same text, summed here over blocks of its context (dropout off, FP32)
    block, bits, n = model.config.block_size, 0.0, 0
    with torch.no_grad():
        model.eval()
        for start in range(0, len(held) - 1, block):
            x = held[start:start + block]
            y = held[start + 1:start + 1 + block]
            x = x[:len(y)]
            logits, _ = model(x[None])
            bits += nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]).double(), y,
                                                reduction="sum").item() / math.log(2)
            n += len(y)
    assert math.isclose(bits / n, report.heldout_bpc, rel_tol=1e-3)
    assert bigram - bits / n > 0.2, (seed, bigram, bits / n)
