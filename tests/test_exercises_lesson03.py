"""Lesson 03 exercise checks (the AMP training loop): blanks never fail, right answers written independently of the
checks' references pass, each classic mistake is caught with a hint."""
import torch

from mishran.exercises import lesson03 as l03
from mishran.models.mlp import MLP


def _learner_amp_step(net, opt, grad_scaler, inputs, targets, device_type, dtype):
    """A learner's right answer, written here without looking at the check's reference: gradients cleared first by
    hand, the MSE as a loss module on the FP32 prediction, differently named variables."""
    for weight in net.parameters():
        weight.grad = None
    squared_error = torch.nn.MSELoss()
    with torch.amp.autocast(device_type=device_type, dtype=dtype):
        prediction = net(inputs)
    error = squared_error(prediction.float(), targets)
    grad_scaler.scale(error).backward()
    grad_scaler.step(opt)
    grad_scaler.update()
    return error


def test_lesson03_blank_answers_never_fail(capsys):
    assert not l03.check_scale_sequence([False], ...)
    assert not l03.check_max_micro_batch({"fp32": ..., "amp": ...})
    assert not l03.check_modern_amp_step(...)
    assert not l03.check_overflow_diagnosis(..., MLP(8, 64, 1, n_layers=3, seed=0), torch.zeros(1, 8))
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_modern_amp_step_passes_and_each_classic_mistake_is_caught(capsys):
    import torch.nn.functional as F
    assert l03.check_modern_amp_step(_learner_amp_step)

    def other_but_right(model, optimizer, scaler, x, y, device_type, dtype):
        """Written differently from the check's reference: torch.autocast, explicit unscale_ and a clip that
        never bites, zero_grad first. Still the same AMP step, so it must pass."""
        optimizer.zero_grad()
        with torch.autocast(device_type=device_type, dtype=dtype):
            out = model(x)
        loss = ((out.float() - y) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
        scaler.step(optimizer)
        scaler.update()
        return loss

    assert l03.check_modern_amp_step(other_but_right)

    def old_api(model, optimizer, scaler, x, y, device_type, dtype):
        with torch.cuda.amp.autocast():
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    def no_update(model, optimizer, scaler, x, y, device_type, dtype):
        with torch.amp.autocast(device_type, dtype=dtype):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        optimizer.zero_grad()
        return loss

    def plain_step(model, optimizer, scaler, x, y, device_type, dtype):
        with torch.amp.autocast(device_type, dtype=dtype):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        optimizer.step()                         # scaler.step নয়: overflow-এও ওজন বদলায়
        scaler.update()
        optimizer.zero_grad()
        return loss

    capsys.readouterr()
    assert not l03.check_modern_amp_step(old_api)
    assert "torch.cuda.amp" in capsys.readouterr().out
    assert not l03.check_modern_amp_step(no_update)
    assert "update" in capsys.readouterr().out
    assert not l03.check_modern_amp_step(plain_step)
    assert "scaler.step(optimizer)" in capsys.readouterr().out
    assert not l03.check_modern_amp_step(lambda *args: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_scale_sequence_matches_hand_worked_policy(capsys):
    pattern = [False, True, False, False, False, True, True, False, False, False]
    # by hand: growth_interval 3 → doubles on the 3rd clean step in a row; an overflow halves and resets
    hand = [1024, 512, 512, 512, 1024, 512, 256, 256, 256, 512]
    assert l03.check_scale_sequence(pattern, hand, init_scale=1024, growth_interval=3)
    assert not l03.check_scale_sequence(pattern, [1024, 512, 512, 1024, 1024, 512, 256, 256, 512, 512],
                                        init_scale=1024, growth_interval=3)
    assert "ধাপ 3" in capsys.readouterr().out                # names the first step that differs
    assert not l03.check_scale_sequence(pattern, ...)
    assert not l03.check_scale_sequence(pattern, [1.0] * 3)


def test_max_micro_batch_counts_sixteen_bytes_in_both(capsys):
    # 24e9 − 16 × 350e6 = 18.4e9 → 18 examples of 1 GB; AMP: (18.4e9 − 0.7e9) / 0.6e9 = 29.5 → 29
    assert l03.check_max_micro_batch({"fp32": 18, "amp": 29})
    # the "AMP halves the model" belief: (24e9 − 8 × 350e6) / 0.6e9 = 35
    assert not l03.check_max_micro_batch({"fp32": 18, "amp": 35})
    assert "autocast মডেল বদলায় না" in capsys.readouterr().out
    assert not l03.check_max_micro_batch({"fp32": ..., "amp": ...})
    assert not l03.check_max_micro_batch([18, 29])


def test_overflow_diagnosis_names_the_first_module_that_overflows_and_the_one_fix():
    net = MLP(8, 64, 1, n_layers=3, seed=0)                       # net.0 Linear, net.1 ReLU, net.2, net.3, net.4
    raw = torch.randn(32, 8, generator=torch.Generator().manual_seed(2)) * 30_000 + 60_000
    # The oracle, by hand in FP32: the inputs already pass FP16's largest value, so in FP16 autocast the first
    # Linear (net.0) gets inf inputs and gives inf; every module after it only passes the inf on.
    fp16_max = torch.finfo(torch.float16).max                                      # 65504
    assert raw.abs().max() > fp16_max and net.net[0](raw).abs().max() > fp16_max
    assert l03.check_overflow_diagnosis({"module": "net.0", "fix": "c"}, net, raw)
    for later in ("net.1", "net.2", "net.3", "net.4", "net", ""):                  # where the inf shows, not starts
        assert not l03.check_overflow_diagnosis({"module": later, "fix": "c"}, net, raw), later
    for fix in ("a", "b", "d"):                                                    # they act after the forward
        assert not l03.check_overflow_diagnosis({"module": "net.0", "fix": fix}, net, raw), fix
    assert l03.check_overflow_diagnosis({"module": "net.0", "fix": " (C) "}, net, raw)    # as the list writes it
    assert not l03.check_overflow_diagnosis({"module": "net.0", "fix": "e"}, net, raw)   # not a choice
    normalized = (raw - raw.mean(0)) / raw.std(0)                                  # fix c: nothing overflows,
    assert torch.isfinite(net(normalized)).all()
    assert not l03.check_overflow_diagnosis({"module": "net.0", "fix": "c"}, net, normalized)  # so no module is


def test_exercise_2_says_the_cast_copy_lives_until_backward_as_lesson_00_does():
    """Lesson 00 teaches that autocast's 16-bit copy of a weight lives for the autocast region and is saved for
    backward; exercise 03.2 (and the memory section it points to) once said it exists 'during forward' only."""
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "03_amp_training_loop.ipynb")
                       .read_text("utf-8"))["cells"]
    texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    prompt = next(t for t in texts if "**২. (মেমরির বাজেটে বাছাই)**" in t)
    assert "backward" in prompt and "autocast অঞ্চল" in prompt
    for text in texts:
        if "১৬-বিট কপি" in text:
            assert "forward-এর সময়" not in text, text[:80]
