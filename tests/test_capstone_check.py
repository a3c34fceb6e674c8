"""mishran.capstone.check: the measurable rows of the capstone rubric, scored from real `--out` JSON files.

tests/data/capstone/ holds five real, tiny runs of the capstone CLI on a CPU (torch 2.13.0+cpu), all with
`--cpu --size tiny --steps 6 --eval-every 3 --eval-chars 600 --micro-batch 4 --warmup 1`, and
  fp32_s0.json          --precision fp32 --seed 0 --checkpoint ck.pt --save-at 3
  fp32_s0_resumed.json  --precision fp32 --seed 0 --resume ck.pt          (a fresh process)
  fp32_s1.json          --precision fp32 --seed 1
  bf16_s0.json          --precision bf16 --seed 0
  bf16_s1.json          --precision bf16 --seed 1
Six steps do not beat the bigram; a test that needs a beaten bigram lowers one run's held-out bpc.
Two more are real GPU runs, the T4 configuration of docs/colab.md on an H200 behaving as a T4
(MISHRAN_SIMULATE_CC=7.5, torch 2.11.0+cu130, 2026-12-02): `--size gpu --steps 1200 --eval-every 200 --micro-batch 32
--accumulation-steps 2 --lr 1e-3 --dropout 0.2`, t4sim_fp16.json with `--precision fp16` (GradScaler) and
t4sim_fp32.json with `--precision fp32`.
"""
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mishran.capstone import check as cc

DATA = Path(__file__).resolve().parent / "data" / "capstone"
FILES = ("fp32_s0", "fp32_s0_resumed", "fp32_s1", "bf16_s0", "bf16_s1")


@pytest.fixture
def runs():
    """Fresh copies of the five real runs, by name."""
    return {name: cc.load_run(DATA / f"{name}.json") for name in FILES}


def _pick(runs, *names):
    return [copy.deepcopy(runs[n]) for n in names]


def test_the_real_runs_load_and_finished(runs):
    assert all(cc.finished(r) for r in runs.values())
    assert [n for n, r in runs.items() if r.resumed] == ["fp32_s0_resumed"]
    assert runs["fp32_s0_resumed"].data["start_step"] == 3


def test_full_set_scores_design_and_resume_but_not_an_unbeaten_bigram(runs):
    parts = cc.check_runs(list(runs.values()))
    assert [p.points for p in parts] == [0, cc.PRECISION_POINTS, cc.RESUME_POINTS]
    assert [p.measurable for p in parts] == [20, 12, 12]
    text = cc.report(list(runs.values()), parts)
    assert "মাপা অংশে মোট: 24/44" in text and "বাকি 56 নম্বর" in text
    assert "পিছিয়ে" in parts[0].lines[0] and "বিটে বিটে এক" in "\n".join(parts[2].lines)


def test_a_run_below_the_bigram_gets_the_whole_row(runs):
    best = copy.deepcopy(runs["bf16_s1"])
    best.data["heldout_bpc"] = best.data["bigram_bpc"] - 0.25
    part = cc.score_bigram([runs["fp32_s0"], best])
    assert part.points == 20 and "bf16_s1.json" in part.lines[0] and "0.250 bpc কম" in part.lines[0]


def test_a_resumed_run_does_not_count_for_the_bigram(runs):
    resumed = copy.deepcopy(runs["fp32_s0_resumed"])
    resumed.data["heldout_bpc"] = resumed.data["bigram_bpc"] - 1
    assert cc.score_bigram([runs["fp32_s1"], resumed]).points == 0


def test_noise_from_two_seeds_decides_the_verdict(runs):
    part = cc.score_precision(list(runs.values()))
    fp32 = abs(runs["fp32_s0"].bpc - runs["fp32_s1"].bpc)
    bf16 = abs(runs["bf16_s0"].bpc - runs["bf16_s1"].bpc)
    gap = abs(runs["fp32_s0"].bpc - runs["bf16_s0"].bpc)
    text = "\n".join(part.lines)
    assert f"fp32 {fp32:.4f}" in text and f"bf16 {bf16:.4f}" in text and f"{gap:.4f} bpc" in text
    assert f"= {gap / max(fp32, bf16):.1f}" in text and "run-ভেদের মধ্যে" in text
    far = _pick(runs, "fp32_s0", "fp32_s1", "bf16_s0", "bf16_s1")
    for run in far[2:]:                                       # both bf16 seeds ten noises away, same spread
        run.data["heldout_bpc"] += 10 * max(fp32, bf16) + gap
    assert "অনেক বড়" in "\n".join(cc.score_precision(far).lines)


@pytest.mark.parametrize("names, level", [
    (("fp32_s0", "fp32_s1", "bf16_s0", "bf16_s1"), "both_two_seeds"),
    (("fp32_s0", "fp32_s1", "bf16_s0"), "one_two_seeds"),
    (("fp32_s0", "bf16_s0"), "one_seed"),
])
def test_partial_credit_follows_the_seeds(runs, names, level):
    assert cc.score_precision(_pick(runs, *names)).points == cc.PRECISION_LEVELS[level]


def test_a_different_budget_or_one_precision_gets_little_or_nothing(runs):
    fp32_s0, fp32_s1, bf16_s0, bf16_s1 = _pick(runs, "fp32_s0", "fp32_s1", "bf16_s0", "bf16_s1")
    for run in (bf16_s0, bf16_s1):
        run.config["lr"] = 1e-3                  # mixed precision trained with another learning rate
    part = cc.score_precision([fp32_s0, fp32_s1, bf16_s0, bf16_s1])
    assert part.points == cc.PRECISION_LEVELS["other_budget"] and "একই বাজেটে নয়" in part.lines[0]
    assert cc.score_precision([fp32_s0, fp32_s1]).points == 0


def test_an_unfinished_run_is_left_out(runs):
    fp32_s0, fp32_s1, bf16_s0, bf16_s1 = _pick(runs, "fp32_s0", "fp32_s1", "bf16_s0", "bf16_s1")
    bf16_s1.data["losses"] = bf16_s1.data["losses"][:4]       # stopped at step 4 of 6
    assert not cc.finished(bf16_s1)
    assert cc.score_precision([fp32_s0, fp32_s1, bf16_s0, bf16_s1]).points == cc.PRECISION_LEVELS["one_two_seeds"]
    assert "শেষ হয়নি (4/6 step)" in cc.report([bf16_s1])


def test_resume_must_be_bit_exact(runs):
    full, resumed = _pick(runs, "fp32_s0", "fp32_s0_resumed")
    resumed.data["losses"][1] += 1e-12                        # one loss off in the last bits
    part = cc.score_resume([full, resumed])
    assert part.points == 0 and "হুবহু এক নয়" in part.lines[0] and "1e-12" in part.lines[0]


def test_resume_on_the_notebook_cell_or_another_config_gets_less(runs):
    full, resumed, other = _pick(runs, "fp32_s0", "fp32_s0_resumed", "fp32_s1")
    assert cc.score_resume([full, resumed, other]).points == cc.RESUME_POINTS     # fp32 s1 has the same knobs
    for run in (full, resumed):
        run.config.update(cc.NOTEBOOK_RESUME_CELL)
    part = cc.score_resume([full, resumed, other])
    assert part.points == cc.RESUME_OTHER_CONFIG and "CPU ঘরের config" in "\n".join(part.lines)
    lone_full, lone_resumed, bf16 = _pick(runs, "fp32_s0", "fp32_s0_resumed", "bf16_s0")
    part = cc.score_resume([lone_full, lone_resumed, bf16])              # no other fp32 run with these knobs
    assert part.points == cc.RESUME_OTHER_CONFIG and "মেলে না" in "\n".join(part.lines)


def test_resume_needs_its_partner_and_a_resumed_run(runs):
    part = cc.score_resume(_pick(runs, "fp32_s0_resumed", "fp32_s1"))
    assert part.points == 0 and "পেলাম না" in part.lines[0]
    part = cc.score_resume(_pick(runs, "fp32_s0", "fp32_s1"))
    assert part.points == 0 and "--resume" in part.lines[0]


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, words", [
    ("এটা JSON নয় {", "not a JSON file"),
    ("[1, 2]", "not a run record"),
    (None, "missing fields): curve"),
    ("CONFIG", "missing fields): config.seed"),
])
def test_bad_input_gets_a_bengali_error(tmp_path, text, words):
    real = json.loads((DATA / "fp32_s0.json").read_text(encoding="utf-8"))
    if text is None:
        del real["curve"]
        text = json.dumps(real)
    elif text == "CONFIG":
        del real["config"]["seed"]
        text = json.dumps(real)
    path = _write(tmp_path, "bad.json", text)
    with pytest.raises(cc.CheckError, match=r"[\u0980-\u09ff]") as err:
        cc.load_run(path)
    assert words in str(err.value) and "bad.json" in str(err.value)
    with pytest.raises(cc.CheckError, match="file not found"):
        cc.load_run(tmp_path / "nowhere.json")


def test_command_line(tmp_path, capsys):
    assert cc.main([str(DATA / f"{n}.json") for n in FILES]) == 0
    out = capsys.readouterr().out
    assert out.startswith("মিশ্রণ পাঠ ০৮") and "3. হুবহু resume: 12/12" in out
    assert cc.main([str(DATA / "fp32_s0.json"), str(_write(tmp_path, "x.json", "{}"))]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("ভুল: ") and "missing fields" in captured.err


@pytest.mark.parametrize("args, words", [
    (["nowhere.json"], "file not found"),
    ([str(DATA / "fp32_s0.json"), "nowhere.json"], "nowhere.json: ফাইল পাওয়া গেল না"),
    ([], "the following arguments are required: runs"),
])
def test_the_command_line_answers_a_missing_file_in_one_line(tmp_path, args, words):
    env = {**os.environ, "PYTHONPATH": str(DATA.parents[2] / "src")}
    proc = subprocess.run([sys.executable, "-m", "mishran.capstone.check", *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""
    assert words in proc.stderr.strip().splitlines()[-1]


def test_the_t4_runs_beat_the_bigram_but_one_seed_cannot_tell_precision_from_noise():
    fp16, fp32 = (cc.load_run(DATA / f"t4sim_{p}.json") for p in ("fp16", "fp32"))
    assert cc.finished(fp16) and cc.finished(fp32) and not fp16.resumed
    assert fp16.data["loss_scales"] and not fp16.data["skipped_steps"]           # FP16 with a GradScaler
    bigram, precision, resume = cc.check_runs([fp16, fp32])
    assert bigram.points == 20 and "t4sim_fp32.json" in bigram.lines[0] and "1.257 bpc কম" in bigram.lines[0]
    assert precision.measurable == 12 and 0 < precision.points < 12          # one seed: partial credit only
    assert "0.0191 bpc" in precision.lines[0] and "দ্বিতীয় seed নেই" in precision.lines[1]
    assert resume.points == 0
