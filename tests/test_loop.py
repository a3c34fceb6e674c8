"""mishran.engines.loop.run_steps: the one step loop of the capstone, the multi-GPU launcher and the FSDP2 demo.

The oracle is a loop written out by hand with plain torch (forward, backward, SGD step, the mean of the micro-batch
losses): run_steps must give the very same losses and weights, bit for bit, because it only calls the step it is
given. The hooks (before_step, after_step) are checked by the order of the calls they see.
"""
import copy

import pytest
import torch
import torch.nn.functional as F

from mishran.engines.loop import run_steps

STEPS, K, BATCH = 5, 3, 4


def _data(seed=0):
    g = torch.Generator().manual_seed(seed)
    return [[(torch.randn(BATCH, 6, generator=g), torch.randn(BATCH, 1, generator=g)) for _ in range(K)]
            for _ in range(STEPS)]


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))


def _step_fn(model, optimizer):
    """One optimizer step over the micro-batches; returns the sum of their losses (what run_steps expects)."""
    def step(micro_batches):
        total = torch.zeros(())
        for x, y in micro_batches:
            loss = F.mse_loss(model(x), y)
            (loss / len(micro_batches)).backward()
            total += loss.detach()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return total
    return step


def test_run_steps_gives_the_hand_written_loops_losses_and_weights_bit_for_bit():
    data = _data()
    by_hand_model = _model()
    model = copy.deepcopy(by_hand_model)
    opt = torch.optim.SGD(by_hand_model.parameters(), lr=0.1)
    by_hand = []
    for batches in data:
        losses = []
        for x, y in batches:
            loss = F.mse_loss(by_hand_model(x), y)
            (loss / K).backward()
            losses.append(loss.item())
        opt.step()
        opt.zero_grad(set_to_none=True)
        by_hand.append(sum(losses) / K)

    stream = iter(data)
    losses, seconds = run_steps(_step_fn(model, torch.optim.SGD(model.parameters(), lr=0.1)), lambda: next(stream),
                                STEPS, "cpu")
    assert losses == pytest.approx(by_hand, rel=1e-6, abs=0)
    assert not torch.equal(model[0].weight, _model()[0].weight)         # the steps did move the weights
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), by_hand_model.parameters(), strict=True))
    assert len(seconds) == STEPS and all(s > 0 for s in seconds)


def test_after_step_returning_true_stops_at_that_step():
    data, seen = _data(), []
    stream = iter(data)
    model = _model()

    def after(i):
        seen.append(i)
        return i == 2

    losses, seconds = run_steps(_step_fn(model, torch.optim.SGD(model.parameters(), lr=0.1)), lambda: next(stream),
                                STEPS, "cpu", after_step=after)
    assert seen == [0, 1, 2] and len(losses) == len(seconds) == 3
    assert next(stream) is data[3]                                      # no batches were drawn for step 3


def test_before_step_is_called_with_its_index_before_each_step():
    events = []
    model = _model()
    inner = _step_fn(model, torch.optim.SGD(model.parameters(), lr=0.1))

    def step(batches):
        events.append("step")
        return inner(batches)

    def next_batches():
        events.append("batches")
        return _data()[0]

    run_steps(step, next_batches, 3, "cpu", before_step=lambda i: events.append(i))
    assert events == [0, "batches", "step", 1, "batches", "step", 2, "batches", "step"]


def test_the_loss_is_the_mean_over_micro_batches_and_zero_steps_do_nothing():
    losses, seconds = run_steps(lambda batches: torch.tensor(float(sum(batches))), lambda: [1, 2, 3, 6], 2, "cpu")
    assert losses == [3.0, 3.0] and len(seconds) == 2
    assert run_steps(lambda b: 1 / 0, lambda: 1 / 0, 0, "cpu") == ([], [])
