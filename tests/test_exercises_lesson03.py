"""Lesson 03 exercise checks (the AMP training loop): blanks never fail, right answers written independently of the
checks' references pass, each wrong answer a hint anticipates is rejected with that hint. The oracles are torch
itself (the loop run as printed and with a line moved; AdamW's state and step on a BF16 weight) and hand sums."""
import math

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


# Wrong AMP steps, one per hint of check_modern_amp_step that the classic mistakes (tested below) do not reach.

def _no_autocast(model, optimizer, scaler, x, y, device_type, dtype):
    loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss


def _returns_nothing(model, optimizer, scaler, x, y, device_type, dtype):
    _learner_amp_step(model, optimizer, scaler, x, y, device_type, dtype)     # the loss is not returned


def _no_step(model, optimizer, scaler, x, y, device_type, dtype):
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    return loss


def _unscaled_backward(model, optimizer, scaler, x, y, device_type, dtype):
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()                          # not scaled, yet scaler.step divides by the scale
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss


def _bypasses_scaler(model, optimizer, scaler, x, y, device_type, dtype):
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    optimizer.step()                         # the scaled gradient goes straight into the weights
    optimizer.zero_grad()
    return loss


def _skips_by_hand(model, optimizer, scaler, x, y, device_type, dtype):
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = torch.nn.functional.mse_loss(model(x), y)
    if not torch.isfinite(loss):             # skips the bad batch itself: the scaler never learns of it
        return loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss


def test_modern_amp_step_rejects_each_mistake_its_hints_name(capsys):
    """Each hint of check_modern_amp_step, in the order the check reads the run, met by the mistake it names."""
    capsys.readouterr()
    for wrong, hint in ((_no_autocast, "torch.amp.autocast(device_type, dtype=dtype)-এর ভেতরে"),
                        (_returns_nothing, "loss (একটি সংখ্যার tensor) ফেরত"), (_no_step, "ওজন একটুও বদলায়নি"),
                        (_unscaled_backward, "did not use scaler.scale"),      # torch's own refusal, passed on
                        (_bypasses_scaler, "optimizer.step() সরাসরি ডাকলে scale-গুণ gradient"),
                        (_skips_by_hand, "overflow-এর পর scale 1024, হওয়ার কথা 512")):
        assert not l03.check_modern_amp_step(wrong), wrong.__name__
        assert hint in capsys.readouterr().out, wrong.__name__


def test_lesson03_blank_answers_never_fail(capsys):
    assert not l03.check_epoch_loop_bug(...)
    assert not l03.check_memory_choice({"setup": ..., "batch": ...})
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


def _moved_first(loop: str, line: int) -> str:
    """The loop with its line `line` (1-based) moved before everything else, out of every loop."""
    lines = loop.splitlines()
    return "\n".join([lines[line - 1].strip(), *lines[:line - 1], *lines[line:]])


def test_epoch_loop_bug_is_the_scaler_made_every_epoch_as_torch_shows(capsys):
    loop = l03.EPOCH_LOOP
    lines = loop.splitlines()
    assert lines[2].strip() == "scaler = torch.amp.GradScaler(device)"        # line 3, the answer
    # The oracle is torch: run the loop as printed, then with each suspect line moved out of the epoch loop.
    seen = l03.run_epoch_loop(loop)
    assert all(seen["skipped"]), seen                                          # every epoch loses its first steps
    assert all(s[0] < 65536 for s in seen["scales"]), seen                     # each epoch restarts from 65536
    fixed = l03.run_epoch_loop(_moved_first(loop, 3))
    assert fixed["skipped"][0] == seen["skipped"][0] and not any(fixed["skipped"][1:]), fixed
    # the distractor: one batch order for all epochs instead of a new one each epoch changes nothing of the symptom
    one_order = l03.run_epoch_loop(loop.replace("torch.Generator().manual_seed(epoch)", "torch.Generator()"))
    assert all(one_order["skipped"][1:]), one_order

    capsys.readouterr()
    assert l03.check_epoch_loop_bug(3)
    assert l03.check_epoch_loop_bug("3") and l03.check_epoch_loop_bug(3.0)
    right = capsys.readouterr().out
    assert "লাইন 3" not in right and "3" not in right                           # the verdict does not restate it
    hints = {1: "model.train()", 2: "শুধু গোনে", 4: "shuffle", 5: "ব্যাচ আসে এখান থেকে", 14: "খাতায়"}
    for line in range(1, len(lines) + 1):
        if line == 3:
            continue
        assert not l03.check_epoch_loop_bug(line), line
        out = capsys.readouterr().out
        assert "এখনো হয়নি" in out and hints.get(line, "epoch-এ একবার চলে") in out, (line, out)
    for odd in (0, 15, -3, 3.5, "তিন", [3], math.inf):
        assert not l03.check_epoch_loop_bug(odd), odd
        assert "line number" in capsys.readouterr().out, odd


def test_memory_choice_counts_bytes_per_weight_and_lost_updates(capsys):
    b = l03.MEMORY_BUDGET
    assert (b["params"], b["gpu_bytes"], b["need"], b["lr"]) == (350e6, 24e9, 24, 1e-4)
    # By hand: FP32 (24 − 16 × 0.35) / 1.0 = 18.4 → 18 < 24; autocast (24 − 18 × 0.35) / 0.6 = 29.5 → 29;
    # all-BF16 (24 − 8 × 0.35) / 0.5 = 42.4 → 42, but its weights cannot take AdamW's small steps.
    # torch, independently: AdamW keeps two moments in the parameter's dtype — 8 bytes per weight in FP32, 4 in BF16
    for dtype, state in ((torch.float32, 8), (torch.bfloat16, 4)):
        w = torch.nn.Parameter(torch.ones(10, dtype=dtype))
        w.grad = torch.ones_like(w)
        opt = torch.optim.AdamW([w], lr=b["lr"])
        opt.step()
        moments = [v for v in opt.state[w].values() if v.dim() > 0]
        assert sum(v.numel() * v.element_size() for v in moments) / w.numel() == state
        # and one step of about lr (1e-4) is lost on a BF16 weight of 1 (its neighbours are 2^-7 apart), not in FP32
        assert (w.detach() == 1).all() == (dtype == torch.bfloat16)
    assert torch.finfo(torch.bfloat16).eps / 2 > b["lr"]

    capsys.readouterr()
    assert l03.check_memory_choice({"setup": "b", "batch": 29})
    assert l03.check_memory_choice({"setup": " (B) ", "batch": "29"})
    assert "29" not in capsys.readouterr().out
    wrong = {("a", 18): "FP32-এ AdamW-এর model state", ("a", 24): "ধরে কি",
             ("c", 42): "LayerNorm", ("c", 24): "1 − 0.0001",
             ("b", 30): "cast cache",                             # forgot the 16-bit copy, or rounded 29.5 up
             ("b", 35): "autocast মডেল বদলায় না",                   # the "AMP halves the model" belief: 21.2 / 0.6
             ("b", 34): "autocast মডেল বদলায় না",                   # the same belief, with the cast copy: 20.5 / 0.6
             ("b", 18): "নিচের দিকে", ("b", 28): "নিচের দিকে"}
    for (setup, micro), hint in wrong.items():
        assert not l03.check_memory_choice({"setup": setup, "batch": micro}), (setup, micro)
        out = capsys.readouterr().out
        assert "এখনো হয়নি" in out and hint in out, (setup, micro, out)
    for odd in ({"setup": "d", "batch": 29}, {"setup": "b", "batch": 29.5},
                {"setup": "b", "batch": "উনত্রিশ"}, {"fp32": 18, "amp": 29}, [18, 29]):
        assert not l03.check_memory_choice(odd), odd
    assert not l03.check_memory_choice({"setup": ..., "batch": 29})


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
