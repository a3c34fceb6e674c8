"""The check-up's door for the calls a learner gets wrong most often (a loss class instead of an instance, a loss_fn
that raises, a tuple batch without loss_fn, a DataLoader or numpy batch), on the command line too; and a 16-bit
step that cannot run at all (oneDNN has no FP16 LSTM on a CPU): the report says so instead of nan, and does not
recommend the precision that never ran."""
import json

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from mishran.checkup.command import main
from mishran.checkup.run import checkup
from mishran.lab.checkup import show_checkup

BENGALI = range(0x0980, 0x0A00)


def _bengali(text: str) -> bool:
    return any(ord(ch) in BENGALI for ch in text)


class _SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.head = nn.Conv2d(1, 4, 3, padding=1), nn.Linear(4, 10)

    def forward(self, x):
        return self.head(self.conv(x).mean((2, 3)))


class _SmallLSTM(nn.Module):
    def __init__(self, vocab=20):
        super().__init__()
        torch.manual_seed(0)
        self.emb, self.lstm, self.out = nn.Embedding(vocab, 8), nn.LSTM(8, 16, batch_first=True), nn.Linear(16, vocab)

    def forward(self, idx):
        return self.out(self.lstm(self.emb(idx))[0])              # (B, T, vocab)


def _images():
    g = torch.Generator().manual_seed(0)
    return torch.randn(4, 1, 8, 8, generator=g), torch.randint(0, 10, (4,), generator=g)


def _tokens():
    idx = torch.randint(0, 20, (2, 6), generator=torch.Generator().manual_seed(0))
    return idx, idx


def _flat_ce(logits, y):
    return nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())


# ---- the Python door -----------------------------------------------------------------------------------------------

def test_a_loss_class_instead_of_an_instance_is_named_with_the_call_to_make():
    with pytest.raises(TypeError, match=r"CrossEntropyLoss\(\)") as caught:
        checkup(_SmallCNN(), _images(), loss_fn=nn.CrossEntropyLoss, steps=0)
    assert _bengali(str(caught.value)) and "instance" in str(caught.value)


@pytest.mark.parametrize(("make", "batch", "said"), [
    (_SmallLSTM, _tokens(), ["(2, 6, 20)", "(2, 6)", "int64", "flatten(0, 1)"]),        # (B, T, C) logits
    (_SmallCNN, (_images()[0], _images()[1].float()), ["(4, 10)", "(4,)", "float32", "long"]),   # float labels
], ids=["sequence-logits", "float-labels"])
def test_an_error_inside_loss_fn_says_the_shapes_and_dtypes_to_match(make, batch, said):
    # the oracle: torch's own cross_entropy refuses these very tensors
    with pytest.raises(RuntimeError):
        nn.functional.cross_entropy(make()(batch[0]), batch[1])
    with pytest.raises(ValueError, match="loss_fn failed") as caught:
        checkup(make(), batch, loss_fn=nn.CrossEntropyLoss(), steps=0)
    text = str(caught.value)
    assert _bengali(text) and all(s in text for s in said), text


def test_a_tuple_batch_without_loss_fn_hints_at_model_star_batch():
    with pytest.raises(ValueError, match=r"model\(\*batch\)") as caught:
        checkup(_SmallCNN(), _images(), steps=0)
    text = str(caught.value)
    assert "loss_fn" in text and "(পুরো মডেল)" in text and "''" not in text


def test_a_failing_inner_module_is_named_without_the_tuple_hint():
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(3, 2))
    with pytest.raises(ValueError, match="'1'") as caught:
        checkup(model, torch.ones(2, 4), loss_fn=lambda out: out.mean(), steps=0)
    assert "model(*batch)" not in str(caught.value)


@pytest.mark.parametrize("batch", [DataLoader(TensorDataset(*_images()), batch_size=2), _images()[0].numpy(),
                                   (_images()[0].numpy(), _images()[1].numpy())], ids=["DataLoader", "numpy", "pair"])
def test_a_batch_with_no_tensors_says_how_to_get_one(batch):
    with pytest.raises(TypeError, match=r"next\(iter\(loader\)\)") as caught:
        checkup(_SmallCNN(), batch, loss_fn=nn.CrossEntropyLoss(), steps=0)
    assert "torch.from_numpy" in str(caught.value) and _bengali(str(caught.value))


# ---- a 16-bit step that cannot run -----------------------------------------------------------------------------------

def _fp16_lstm_runs_on_this_cpu() -> bool:
    """The oracle, by torch itself: does CPU FP16 autocast run an LSTM at all (oneDNN has no FP16 LSTM)?"""
    idx, _ = _tokens()
    model = _SmallLSTM()
    try:
        with torch.autocast("cpu", dtype=torch.float16):
            model(idx)
    except RuntimeError:
        return False
    return True


def test_an_emulated_step_that_cannot_run_gives_an_unknown_verdict_not_fp16(capsys):
    if _fp16_lstm_runs_on_this_cpu():
        pytest.skip("this torch runs an FP16 LSTM on the CPU: nothing fails here")
    report = checkup(_SmallLSTM(), _tokens(), loss_fn=_flat_ce, target="t4", steps=0)
    assert report.errors["fp16"] and "lstm" in report.errors["fp16"]
    assert report.recommended_precision == "unknown" and report.target_precision == "fp16"
    assert report.fp16_init_scale is None and report.ds_config == {} and report.keep_fp32 == []
    assert "আবার চালাও" in report.advice and "DeepSpeed" not in report.advice
    show_checkup(report, top=3)
    out = capsys.readouterr().out
    assert "চলেনি (failed)" in out and "অজানা (unknown)" in out and "nan" not in out.split("== খরচ")[0]
    json.dumps(report.to_dict())


class _NoBF16(nn.Module):
    """Like an op with no BF16 kernel on this device: refuses a bfloat16 input (autocast gives it one)."""

    def forward(self, x):
        if x.dtype == torch.bfloat16:
            raise RuntimeError('"addmm" not implemented for \'BFloat16\'')
        return x


def test_a_step_that_cannot_run_on_the_target_itself_falls_back_to_fp32():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), _NoBF16(), nn.Linear(8, 1))
    report = checkup(model, torch.ones(2, 4), loss_fn=lambda out: out.square().mean(), target="cpu", steps=0)
    assert not report.emulated and report.errors["bf16"] and "'1'" in report.errors["bf16"]
    assert report.recommended_precision == "fp32" and report.keep_fp32 == []
    verdict_line = report.advice.splitlines()[1]
    assert "FP32" in verdict_line and "চলেনি" in verdict_line


def test_when_every_step_runs_the_verdict_is_unchanged():
    # the rule of mishran.precision.for_device: a T4 gets FP16 (+ loss scaling), a CPU BF16
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 10))
    for target, expected in (("t4", "fp16"), ("cpu", "bf16")):
        report = checkup(model, _images()[0].flatten(1)[:, :4], loss_fn=lambda out: out.square().mean(),
                         target=target, steps=0)
        assert report.recommended_precision == expected and not any(report.errors.values())


# ---- the command line ------------------------------------------------------------------------------------------------

def _factories(tmp_path, monkeypatch):
    (tmp_path / "door_models.py").write_text(
        "import torch\n"
        "from torch import nn\n"
        "def make_model():\n    torch.manual_seed(0)\n    return nn.Linear(4, 3)\n"
        "def make_batch():\n    return torch.ones(2, 4), torch.tensor([0, 2])\n"
        "class NeedsArgs(nn.Module):\n    def __init__(self, weight):\n        super().__init__()\n"
        "class _Boom(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x):\n        return x.clone()\n"
        "    @staticmethod\n    def backward(ctx, g):\n        raise RuntimeError('a bug in the backward')\n"
        "class Broken(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.lin = nn.Linear(4, 3)\n"
        "    def forward(self, x):\n        return _Boom.apply(self.lin(x))\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


def _refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as end:
        main(argv)
    err = capsys.readouterr().err
    assert end.value.code == 2 and "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def test_the_command_line_makes_an_instance_of_a_loss_class(tmp_path, monkeypatch, capsys):
    _factories(tmp_path, monkeypatch)
    out = tmp_path / "r.json"
    main(["door_models:make_model", "--batch", "door_models:make_batch", "--loss", "torch.nn:CrossEntropyLoss",
          "--target", "T4", "--steps", "0", "--out", str(out)])
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["target"] == "t4" and record["recommended_precision"] == "fp16"
    # the loss is CrossEntropyLoss's own: the same as torch's cross_entropy on the same model and batch
    torch.manual_seed(0)
    want = nn.functional.cross_entropy(nn.Linear(4, 3)(torch.ones(2, 4)), torch.tensor([0, 2]))
    assert abs(record["loss"]["fp32"] - want.item()) < 1e-6


@pytest.mark.parametrize(("argv", "said"), [
    (["door_models:make_model", "--batch", "door_models:make_batch", "--loss", "door_models:NeedsArgs"],
     "instantiate"),
    (["door_models:Broken", "--batch", "door_models:make_batch", "--loss", "torch.nn:CrossEntropyLoss"],
     "a bug in the backward"),
    (["door_models:make_model", "--batch", "door_models:make_batch"], "--loss torch.nn:CrossEntropyLoss"),
    (["no_such_file:make_model", "--batch", "door_models:make_batch"], "PYTHONPATH"),
    (["door_models:make_model"], "--batch"),
], ids=["loss-class-needs-args", "runtime-error", "no-loss", "module-not-found", "no-batch"])
def test_the_command_line_turns_every_error_into_one_line(argv, said, tmp_path, monkeypatch, capsys):
    _factories(tmp_path, monkeypatch)
    line = _refused(argv, capsys)
    assert said in line and "error:" in line
    assert _bengali(line)                                  # the missing --batch too: Bengali, not argparse's English


def test_the_help_says_batch_is_required(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    usage = out.split("\n\n")[0]
    assert "--batch BATCH" in usage and "[--batch" not in usage and "না দিলে: এই যন্ত্র" in out


def test_a_loss_fn_with_a_batch_that_has_no_target_says_the_batch_is_inputs_and_target():
    """A lone tensor as the batch with loss_fn: loss_fn gets only the output — the message says the batch should be
    (inputs, target), not only that the loss failed."""
    with pytest.raises(ValueError) as caught:
        checkup(torch.nn.Linear(4, 3), torch.randn(8, 4), loss_fn=torch.nn.CrossEntropyLoss(), steps=0)
    said = str(caught.value)
    assert "(inputs, target)" in said and "loss_fn(output)" in said and "(8, 3)" in said
