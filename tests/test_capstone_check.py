"""mishran.capstone.check: the measurable rows of the capstone rubric, scored from real `--out` JSON files.

tests/data/capstone/ holds five real, tiny runs of the capstone CLI on a CPU (torch 2.13.0+cpu), all with
`--cpu --size tiny --steps 6 --eval-every 3 --eval-chars 600 --micro-batch 4 --warmup 1`, and
  fp32_s0.json          --precision fp32 --seed 0 --checkpoint ck.pt --save-at 3
  fp32_s0_resumed.json  --precision fp32 --seed 0 --resume ck.pt          (a fresh process)
  fp32_s1.json          --precision fp32 --seed 1
  bf16_s0.json          --precision bf16 --seed 0
  bf16_s1.json          --precision bf16 --seed 1
(rewritten 2026-12 with the digests: each file's `digest`, the writer's `checkpoint_sha256` and the resumed run's
`resumed_from_sha256`). Six steps do not beat the bigram; a test that needs a beaten bigram lowers one run's held-out
bpc and signs the file again (`_sign`), standing in for a real run with that number. Two more are real GPU runs,
the T4 configuration of docs/colab.md on an H200 behaving as a T4
(MISHRAN_SIMULATE_CC=7.5, torch 2.11.0+cu130, 2026-12-02): `--size gpu --steps 1200 --eval-every 200 --micro-batch 32
--accumulation-steps 2 --lr 1e-3 --dropout 0.2`, t4sim_fp16.json with `--precision fp16` (GradScaler) and
t4sim_fp32.json with `--precision fp32`; they were written before runs carried a digest.
"""
import copy
import json
import os
import re
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


def _sign(*edited):
    """A changed copy stands in for a real run with those numbers: give it the digest such a run would write."""
    for run in edited:
        run.data["digest"] = cc.record_digest(run.data)
    return edited


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
    _sign(best)
    part = cc.score_bigram([runs["fp32_s0"], best])
    assert part.points == 20 and "bf16_s1.json" in part.lines[0] and "0.250 bpc কম" in part.lines[0]


def test_a_resumed_run_does_not_count_for_the_bigram(runs):
    resumed = copy.deepcopy(runs["fp32_s0_resumed"])
    resumed.data["heldout_bpc"] = resumed.data["bigram_bpc"] - 1
    _sign(resumed)
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
    _sign(*far)
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
    _sign(bf16_s0, bf16_s1)
    part = cc.score_precision([fp32_s0, fp32_s1, bf16_s0, bf16_s1])
    assert part.points == cc.PRECISION_LEVELS["other_budget"] and "একই বাজেটে নয়" in part.lines[0]
    assert cc.score_precision([fp32_s0, fp32_s1]).points == 0


def test_an_unfinished_run_is_left_out(runs):
    fp32_s0, fp32_s1, bf16_s0, bf16_s1 = _pick(runs, "fp32_s0", "fp32_s1", "bf16_s0", "bf16_s1")
    bf16_s1.data["losses"] = bf16_s1.data["losses"][:4]       # stopped at step 4 of 6
    _sign(bf16_s1)
    assert not cc.finished(bf16_s1)
    assert cc.score_precision([fp32_s0, fp32_s1, bf16_s0, bf16_s1]).points == cc.PRECISION_LEVELS["one_two_seeds"]
    assert "শেষ হয়নি (4/6 step)" in cc.report([bf16_s1])


def test_resume_must_be_bit_exact(runs):
    full, resumed = _pick(runs, "fp32_s0", "fp32_s0_resumed")
    resumed.data["losses"][1] += 1e-12                        # one loss off in the last bits
    _sign(resumed)
    part = cc.score_resume([full, resumed])
    assert part.points == 0 and "হুবহু এক নয়" in part.lines[0] and "1e-12" in part.lines[0]


def test_resume_on_the_notebook_cell_or_another_config_gets_less(runs):
    full, resumed, other = _pick(runs, "fp32_s0", "fp32_s0_resumed", "fp32_s1")
    assert cc.score_resume([full, resumed, other]).points == cc.RESUME_POINTS     # fp32 s1 has the same knobs
    for run in (full, resumed):
        run.config.update(cc.NOTEBOOK_RESUME_CELL)
    _sign(full, resumed)
    part = cc.score_resume([full, resumed, other])
    assert part.points == cc.RESUME_OTHER_CONFIG and "CPU ঘরের config" in "\n".join(part.lines)
    lone_full, lone_resumed, bf16 = _pick(runs, "fp32_s0", "fp32_s0_resumed", "bf16_s0")
    part = cc.score_resume([lone_full, lone_resumed, bf16])              # no other fp32 run with these knobs
    assert part.points == cc.RESUME_OTHER_CONFIG and "মেলে না" in "\n".join(part.lines)


def test_resume_needs_its_partner_and_a_resumed_run(runs):
    part = cc.score_resume(_pick(runs, "fp32_s0_resumed", "fp32_s1"))
    assert part.points == 0 and "পেলাম না" in part.lines[0] and "checkpoint_sha256" in part.lines[0]
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
    # written before runs carried a digest: unverified, they score nothing, and the report says why
    assert not fp16.verified and cc.score_bigram([fp16, fp32]).points == 0 and "not verified" in cc.report([fp16])
    _sign(fp16, fp32)
    assert fp16.data["loss_scales"] and not fp16.data["skipped_steps"]           # FP16 with a GradScaler
    bigram, precision, resume = cc.check_runs([fp16, fp32])
    assert bigram.points == 20 and "t4sim_fp32.json" in bigram.lines[0] and "1.257 bpc কম" in bigram.lines[0]
    assert precision.measurable == 12 and 0 < precision.points < 12          # one seed: partial credit only
    assert "0.0191 bpc" in precision.lines[0] and "দ্বিতীয় seed নেই" in precision.lines[1]
    assert resume.points == 0


# ---------------------------------------------------------------- runs that prove themselves

def test_a_hand_edited_json_is_not_a_run(runs):
    """The classic forgery: copy the full run, call it resumed from step 3, keep its own losses (which then match bit
    for bit), and lower another run's held-out bpc. Without a new digest neither counts, and the report says so."""
    full, fp32_s1 = _pick(runs, "fp32_s0", "fp32_s1")
    forged = copy.deepcopy(full)
    forged.name = "forged_resumed.json"
    forged.config["resume_from"], forged.config["checkpoint_path"] = "ck.pt", None
    forged.data["start_step"] = 3
    forged.data["losses"] = full.data["losses"][3:]
    forged.data["resumed_from_sha256"] = full.data["checkpoint_sha256"]      # even with the right checkpoint digest
    assert forged.resumed and not forged.verified and full.verified
    part = cc.score_resume([full, forged, fp32_s1])
    assert part.points == 0 and "digest মেলে না" in part.lines[0]
    fp32_s1.data["heldout_bpc"] = fp32_s1.data["bigram_bpc"] - 0.5          # "beats the bigram", by hand
    assert cc.score_bigram([fp32_s1]).points == 0
    assert "not verified" in cc.report([fp32_s1])
    assert cc.score_bigram(list(_sign(fp32_s1))).points == cc.BIGRAM_POINTS  # the same number from a real run counts


def test_the_digest_covers_every_field_and_survives_the_file(runs, tmp_path):
    real = runs["fp32_s0"]
    assert real.verified and len(real.data["digest"]) == 64
    for key in ("losses", "curve", "config", "device", "sample"):
        edited = copy.deepcopy(real)
        edited.data[key] = None
        assert not edited.verified, key
    # written again as a teacher's editor might (another indent, keys reordered): still the same run
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(dict(reversed(list(real.data.items()))), ensure_ascii=False, indent=4),
                    encoding="utf-8")
    assert cc.load_run(path).verified


TERM_PLAN = DATA.parents[2] / "docs" / "term_plan.md"
TINY = "--cpu --size tiny --micro-batch 4 --steps 6 --eval-every 3 --eval-chars 600 --warmup 1 --sample-tokens 5"


def _term_plan_commands(tmp_path):
    """The bash block of docs/term_plan.md that runs a team's capstone, with a tiny CPU budget for $C and step 3 for
    the checkpoint: bash expands its loops, and a `python` function records each command's arguments."""
    text = TERM_PLAN.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```bash\n(.*?)```", text, re.S) if "mishran.capstone.check" in b)
    assert re.search(r'^C="[^"]+"$', block, re.M) and "--save-at 300" in block
    block = re.sub(r'^C="[^"]+"$', f'C="{TINY}"', block, flags=re.M).replace("--save-at 300", "--save-at 3")
    script = "python() { printf '%s\\0' \"$@\" >> calls; printf '\\n' >> calls; }\n" + block
    subprocess.run(["bash", "-c", script], cwd=tmp_path, check=True, timeout=60)
    calls = (tmp_path / "calls").read_text(encoding="utf-8").split("\0\n")
    return [c.split("\0") for c in calls if c]


def test_the_term_plans_own_commands_score_the_resume_against_the_checkpoints_writer(tmp_path, monkeypatch):
    """Run as docs/term_plan.md says (tiny, on the CPU): five runs, the resumed one, then the checker. On a GPU the run
    without --deterministic (dal_bf16_s0.json, same switches as the writer and first in name order) differs from the
    writer in the last bits; here that is made so, and the resume must still be compared with its writer."""
    import torch

    from mishran.capstone import training

    monkeypatch.chdir(tmp_path)
    for var in ("DS_ACCELERATOR", "CUBLAS_WORKSPACE_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    commands = _term_plan_commands(tmp_path)
    assert [c[:2] for c in commands] == [["-m", "mishran.capstone"]] * 6 + [["-m", "mishran.capstone.check"]]
    deterministic = torch.are_deterministic_algorithms_enabled()
    try:
        for args in commands[:-1]:
            training.main(args[2:])
    finally:
        torch.use_deterministic_algorithms(deterministic)
    files = sorted(tmp_path.glob("dal_*.json"))
    assert [f.name for f in files] == ["dal_bf16_s0.json", "dal_bf16_s1.json", "dal_fp32_s0.json",
                                       "dal_fp32_s1.json", "dal_full.json", "dal_resumed.json"]
    twin = json.loads((tmp_path / "dal_bf16_s0.json").read_text(encoding="utf-8"))
    twin["losses"][4] += 1e-7                     # what a GPU run without --deterministic shows
    twin["digest"] = cc.record_digest(twin)       # ... written by that run itself
    (tmp_path / "dal_bf16_s0.json").write_text(json.dumps(twin, ensure_ascii=False), encoding="utf-8")
    runs = [cc.load_run(f) for f in files]
    assert all(r.verified for r in runs)
    part = cc.score_resume(runs)
    assert part.points == cc.RESUME_POINTS, part.lines
    assert "dal_resumed.json বনাম dal_full.json" in part.lines[0]
    assert cc.main(commands[-1][2:] if commands[-1][2:] != ["dal_*.json"] else [str(f) for f in files]) == 0
