"""mishran.numerics.communication (lesson 09, part 3): the ring reduce-scatter adds in NCCL's order and rounds
every hop, checked against a slow element-by-element loop written from the description; FSDP2's divide factors
against torch's own private function; the error sweep's trends; wire bytes by hand."""
import math
import re

import pytest
import torch

from mishran.numerics import communication as cp
from mishran.numerics.error import relative_error

BENGALI = re.compile(r"[\u0980-\u09FF]")
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def _round(value: float, dtype) -> float:
    """One Python float rounded to dtype (round-to-nearest-even), back as a Python float."""
    return torch.tensor(value, dtype=torch.float64).to(dtype).item()


def _slow_ring(rows, wire, total=None, round_hops=True):
    """Element by element, from the lesson's description: segment s (contiguous, ceil(n/W) long) starts at rank
    (s+1) % W, each next rank adds its own value; the partial sum is kept in `total` and rounded to `wire` before
    it is sent on (round_hops) — the last rank is s. Python floats hold every exact sum here (≤ 24-bit values)."""
    world, n = len(rows), len(rows[0])
    wire_t, total_t = DTYPES[wire], DTYPES[total or wire]
    held = [[_round(v, wire_t) for v in row] for row in rows]        # each rank holds its gradient in wire dtype
    seg = -(-n // world)
    out = []
    for j in range(n):
        s = j // seg
        order = [(s + 1 + k) % world for k in range(world)]
        assert order[-1] == s
        partial = held[order[0]][j]
        for r in order[1:]:
            partial = _round(partial + held[r][j], total_t)
            if round_hops:
                partial = _round(partial, wire_t)
        out.append(partial)
    return out


@pytest.mark.parametrize("world,n", [(2, 6), (3, 10), (5, 3), (4, 1), (7, 23), (1, 5)])
@pytest.mark.parametrize("wire", ["bf16", "fp16", "fp32"])
def test_ring_matches_a_slow_element_by_element_ring(world, n, wire):
    """n < W, n not divisible by W, W = 1: bit for bit the slow loop's result (values with spread-out exponents)."""
    gen = torch.Generator().manual_seed(world * 100 + n)
    grads = torch.randn(world, n, generator=gen, dtype=torch.float64) * torch.logspace(-3, 1, n, dtype=torch.float64)
    got = cp.ring_reduce_scatter(grads, wire)
    assert got.dtype == DTYPES[wire] and got.shape == (n,)
    assert got.double().tolist() == _slow_ring(grads.tolist(), wire)


def test_the_ring_order_matters_and_is_the_one_described():
    """Values picked so that BF16 gives a different sum in another order: 256 + 1 + 1 = 256 (each 1 is lost) when
    256 comes first, 258 when the ones are added first. One element, W = 3: segment 0 starts at rank 1."""
    grads = torch.tensor([[256.0], [1.0], [1.0]])       # order 1, 2, 0: 1 + 1 = 2, + 256 = 258
    assert cp.ring_reduce_scatter(grads, "bf16").item() == 258.0
    grads = torch.tensor([[1.0], [256.0], [1.0]])       # order 1, 2, 0: 256 + 1 → 256, + 1 → 256
    assert cp.ring_reduce_scatter(grads, "bf16").item() == 256.0
    assert cp.direct_reduce_scatter(grads, "bf16", "fp32").item() == 258.0   # FP32 sums, no rounding on the way


def test_fp32_sums_in_the_ring_do_not_help_the_direct_algorithm_does():
    """Adding two BF16 numbers in FP32 and rounding to BF16 before sending is a BF16 addition: bit for bit the same
    ring. Only when partial sums do not travel (direct) do FP32 sums keep the digits."""
    grads = cp.gradient_sample(64, n=512, seed=3)
    plain = cp.ring_reduce_scatter(grads, "bf16")
    assert torch.equal(cp.ring_reduce_scatter(grads, "bf16", "fp32"), plain)
    direct = cp.direct_reduce_scatter(grads, "bf16", "fp32")
    assert direct.dtype == torch.float32
    exact = grads.to(torch.bfloat16).double().sum(0)           # the BF16 inputs, summed exactly
    assert torch.allclose(direct.double(), exact, rtol=0, atol=64 * 2 ** -24 * exact.abs().max().item())
    assert relative_error(direct, exact) < relative_error(plain, exact) / 10


def test_fp32_ring_sum_is_the_float64_sum_within_fp32_rounding():
    grads = cp.gradient_sample(128, n=1000, seed=1)
    ring = cp.ring_reduce_scatter(grads, "fp32").double()
    exact = grads.sum(0)
    bound = 128 * 2 ** -24 * grads.abs().sum(0)               # W roundings, each ≤ u × |partial|
    assert (ring - exact).abs().le(bound + 2 ** -24 * exact.abs() * 2).all()
    assert relative_error(ring, exact) < 1e-6


def test_fsdp_divide_factors_equal_torchs_own_private_function():
    from torch.distributed import ReduceOp
    from torch.distributed.fsdp._fully_shard._fsdp_collectives import _get_gradient_divide_factors

    class Group:                                     # the function only asks the group for its size
        def __init__(self, n):
            self.n = n

        def size(self):
            return self.n

    for world in (1, 2, 3, 6, 8, 12, 96, 1000, 1024, 4096):
        for name, dtype in DTYPES.items():
            pre, post, op, _ = _get_gradient_divide_factors(Group(world), None, dtype, "cuda")
            got = cp.fsdp_divide_factors(world, name)
            assert got["op"] == ("avg" if op == ReduceOp.AVG else "sum"), (world, name)
            assert got["pre"] == pre and got["post"] == post, (world, name, got, pre, post)
            if name == "fp16":
                assert got["pre"] * got["post"] == world
    assert cp.fsdp_divide_factors(8, torch.bfloat16)["op"] == "avg"


def test_the_docstring_cites_the_lines_it_read():
    """The line numbers in the docstring are where _get_gradient_divide_factors is in torch 2.13, the version CI
    installs (the GPU machine's torch 2.11 has the same rule at other lines: docs/benchmarks.md, section 8)."""
    import inspect

    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"the docstring cites torch 2.13's lines; this is torch {torch.__version__}")

    from torch.distributed.fsdp._fully_shard import _fsdp_collectives as coll

    lines, start = inspect.getsourcelines(coll._get_gradient_divide_factors)
    cited = re.search(r":(\d+)–(\d+), _get_gradient_divide_factors", cp.fsdp_divide_factors.__doc__)
    assert cited and int(cited[1]) == start and start + len(lines) - 1 >= int(cited[2]) >= start + len(lines) - 3


def test_reduced_mean_avg_and_pre_post():
    grads = cp.gradient_sample(8, n=300, seed=2)
    exact = grads.mean(0)
    avg = cp.reduced_mean(grads, "bf16")
    # PreMulSum(1/8) and dividing the sum by 8 at the end are the same for a power of two (exact scaling)
    assert torch.equal(avg, cp.ring_reduce_scatter(grads, "bf16") / 8)
    # FP16: ÷4 before the ring, ÷2 after (8 = 4 × 2), by hand with the slow ring
    pre_post = cp.reduced_mean(grads, "fp16", divide="pre_post")
    by_hand = torch.tensor(_slow_ring((grads.to(torch.float16) / 4).tolist(), "fp16"), dtype=torch.float16) / 2
    assert torch.equal(pre_post, by_hand)
    assert relative_error(cp.reduced_mean(grads, "fp32"), exact) < 1e-6
    # W = 3 is not a power of two: 1/3 is rounded to BF16 and multiplies each input (NCCL's PreMulSum)
    three = torch.tensor([[3.0], [3.0], [3.0]])
    assert cp.reduced_mean(three, "bf16").item() == _round(3 * _round(3.0 * _round(1 / 3, torch.bfloat16),
                                                                      torch.bfloat16), torch.bfloat16)


@pytest.fixture(scope="module")
def sweep():
    return cp.error_sweep(n=2 ** 11)


def test_bf16_error_grows_with_the_number_of_ranks(sweep):
    bf16 = sweep["errors"]["bf16"]
    assert sweep["worlds"] == [2 ** k for k in range(1, 11)]
    assert all(b > a for a, b in zip(bf16, bf16[1:], strict=False))        # strictly growing with W
    assert bf16[-1] >= 10 * bf16[0] and 1e-3 < bf16[0] < 1e-2 and bf16[-1] > 0.05
    assert max(sweep["errors"]["fp32"]) < 1e-6
    # the floor: rounding the exact mean to BF16 once costs about u/√3-ish, the same at every W
    floor = sweep["bf16_rounding_floor"]
    assert all(5e-4 < f < 3e-3 for f in floor) and bf16[0] > 0.9 * min(floor)


def test_bf16_wire_with_fp32_sums_is_much_better_at_1024(sweep):
    errors = sweep["errors"]
    assert errors["bf16_wire_fp32_sum"][-1] < errors["bf16"][-1] / 100
    assert errors["bf16_wire_fp32_sum"][-1] < sweep["bf16_rounding_floor"][-1]     # below one BF16 rounding
    assert errors["fp16"][-1] < errors["bf16"][-1]


def test_smallest_safe_dtype_picks_the_cheapest_within_tolerance(sweep):
    errs, worlds = sweep["errors"], sweep["worlds"]
    for world in (8, 1024):
        i = worlds.index(world)
        for tol in (1e-1, 1e-2, 1e-3, 1e-5):
            if min(e[i] for e in errs.values()) > tol:
                with pytest.raises(ValueError, match="no scheme meets"):
                    cp.smallest_safe_dtype(world, tol, sweep)
                continue
            got = cp.smallest_safe_dtype(world, tol, sweep)
            assert errs[got][i] <= tol
            # no scheme within tolerance is cheaper: wire bytes first (by hand: fp32 4, others 2)
            cheaper = [s for s in errs if errs[s][i] <= tol and cp.scheme_cost(cp.SCHEMES[s]) <
                       cp.scheme_cost(cp.SCHEMES[got])]
            assert not cheaper
    assert cp.smallest_safe_dtype(8, 1e-2, sweep) == "bf16"
    assert cp.smallest_safe_dtype(1024, 1e-5, sweep) == "fp32"
    assert [cp.scheme_cost(cp.SCHEMES[s])[0] for s in ("fp32", "bf16", "fp16", "bf16_wire_fp32_sum")] == [4, 2, 2, 2]


def test_wire_bytes_by_hand():
    # 1,000,000 BF16 values over 8 ranks: each sends 7 of its 8 shards of 125,000 values × 2 bytes
    assert cp.wire_bytes(1_000_000, 8, "bf16") == 7 * 125_000 * 2 == 1_750_000
    assert cp.wire_bytes(1_000_000, 8, "fp32", "all_reduce") == 2 * 7 * 125_000 * 4
    assert cp.wire_bytes(10, 4, "fp16", "all_gather") == 3 * 3 * 2          # padded: shards of ceil(10/4) = 3
    assert cp.wire_bytes(5, 1, "fp32") == 0
    # per step: the weights all-gathered twice (forward, and backward after resharding) in param_dtype, the gradients
    # reduce-scattered once in reduce_dtype; 124,439,808 / 8 = 15,554,976 per shard, 7 shards sent
    rows = {(r["param_dtype"], r["reduce_dtype"]): r for r in cp.wire_table(124_439_808, 8)}
    shard7 = 7 * 15_554_976
    assert rows["fp32", "fp32"]["total"] == (2 * 4 + 4) * shard7 and rows["fp32", "fp32"]["saving_vs_fp32"] == 0
    assert rows["bf16", "fp32"]["all_gather"] == 2 * 2 * shard7 and rows["bf16", "fp32"]["reduce_scatter"] == 4 * shard7
    assert rows["bf16", "fp32"]["saving_vs_fp32"] == pytest.approx(1 - 8 / 12)
    assert rows["bf16", "bf16"]["saving_vs_fp32"] == 0.5


def test_gradient_sample_is_signal_plus_noise_times_scale():
    a = cp.gradient_sample(4, n=20000, signal=2.0, noise=0.5, scale=1e-2, seed=7)
    assert a.dtype == torch.float64 and a.shape == (4, 20000)
    assert torch.equal(a, cp.gradient_sample(4, n=20000, signal=2.0, noise=0.5, scale=1e-2, seed=7))
    common = a.mean(0) - (a - a.mean(0)).mean(0)
    assert math.isclose(a.std().item(), 1e-2 * math.hypot(2.0, 0.5), rel_tol=0.02)
    assert math.isclose((a[0] - a[1]).std().item(), 1e-2 * 0.5 * math.sqrt(2), rel_tol=0.02)
    assert common.shape == (20000,)


BAD_CALLS = [          # the learner's door: ring_reduce_scatter and error_sweep check what they are given
    (lambda: cp.ring_reduce_scatter(torch.ones(3), "bf16"), ValueError),
    (lambda: cp.ring_reduce_scatter([[1.0]], "bf16"), TypeError),
    (lambda: cp.ring_reduce_scatter(torch.ones(2, 2, dtype=torch.int64), "bf16"), TypeError),
    (lambda: cp.ring_reduce_scatter(torch.ones(2, 0), "bf16"), ValueError),
    (lambda: cp.ring_reduce_scatter(torch.ones(5000, 1), "bf16"), ValueError),
    (lambda: cp.ring_reduce_scatter(torch.tensor([[1.0], [math.nan]]), "bf16"), ValueError),
    (lambda: cp.ring_reduce_scatter(torch.tensor([[1.0], [math.inf]]), "bf16"), ValueError),
    (lambda: cp.ring_reduce_scatter(torch.ones(2, 2), "tf32"), ValueError),
    (lambda: cp.ring_reduce_scatter(torch.ones(2, 2), "bf16", "fp8"), ValueError),
    (lambda: cp.error_sweep(worlds=(4, 2)), ValueError),
    (lambda: cp.error_sweep(worlds=()), ValueError),
    (lambda: cp.error_sweep(worlds=8), TypeError),
    (lambda: cp.error_sweep(worlds=(4,), n=0), ValueError),
    (lambda: cp.error_sweep(worlds=(4096,), n=2 ** 20), ValueError),
    (lambda: cp.error_sweep(worlds=(4,), n=8, seed=-1), ValueError),
    (lambda: cp.error_sweep(worlds=(4,), n=8, scale=math.nan), ValueError),
    (lambda: cp.error_sweep(worlds=(4,), n=8, noise=-1.0), ValueError),
    (lambda: cp.error_sweep(worlds=(4,), n=8, signal="1"), TypeError),
]


@pytest.mark.parametrize("call,error", BAD_CALLS)
def test_bad_input_gives_a_bengali_error(call, error):
    with pytest.raises(error) as caught:
        call()
    assert BENGALI.search(str(caught.value)), str(caught.value)
