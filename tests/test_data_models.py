"""mishran.data and mishran.models.gpt: the course corpus, the character tokenizer, batches, TinyGPT and MLP."""
import math
import re
import unicodedata
from pathlib import Path

import pytest
import torch

from mishran.data import CharDataset, CharTokenizer, corpus_path, load_corpus, synthetic_regression
from mishran.models.gpt import GPTConfig, TinyGPT
from mishran.models.mlp import MLP

ROOT = Path(__file__).resolve().parent.parent
BENGALI_DIGITS = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    # One thread: steady timing on a shared 2-core machine; bit-for-bit results need a fixed thread count anyway.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def text():
    return load_corpus()


@pytest.fixture(scope="module")
def ds():
    return CharDataset()


def _bengali_share(text):
    chars = [ch for ch in text if not ch.isspace()]
    return sum("\u0980" <= ch <= "\u09ff" for ch in chars) / len(chars)


def _train(ds, steps, seed=0, dtype=None, batch_size=16, lr=3e-3):
    """A minimal AdamW loop; returns the list of losses (floats)."""
    model = TinyGPT(GPTConfig(vocab_size=ds.vocab_size), seed=seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    losses = []
    for _ in range(steps):
        x, y = ds.get_batch("train", batch_size, model.config.block_size, generator=g)
        with torch.autocast("cpu", dtype=dtype, enabled=dtype is not None):
            _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


# ---- corpus ---------------------------------------------------------------------------------------------------

def test_corpus_is_found_in_the_repository_data_folder():
    assert Path(corpus_path()) == ROOT / "data" / "bn_corpus.txt"


def test_corpus_has_at_least_30000_characters(text):
    assert len(text) >= 30_000


def test_corpus_is_at_least_90_percent_bengali(text):
    assert _bengali_share(text) >= 0.90


def test_corpus_file_is_stored_nfc_with_a_small_alphabet(text):
    raw = (ROOT / "data" / "bn_corpus.txt").read_text(encoding="utf-8")
    assert raw == unicodedata.normalize("NFC", raw) == text
    assert len(set(text)) < 110
    assert "\n\n" in text and "\r" not in text


def test_readme_states_the_computed_corpus_size(text):
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8").translate(BENGALI_DIGITS)
    assert re.search(r"মোট অক্ষর \(characters\): (\d+)", readme).group(1) == str(len(text))
    assert re.search(r"আলাদা অক্ষর \(distinct characters = `vocab_size`\): (\d+)", readme).group(1) == str(len(set(text)))
    assert re.search(r"বাংলা: (\d+)%", readme).group(1) == str(round(100 * _bengali_share(text)))
    assert f"{len(text)} characters, {len(set(text))} distinct characters" in readme


def test_load_corpus_normalizes_to_nfc(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("বাড়ি", encoding="utf-8")       # ড় as one code point, U+09DC
    assert load_corpus(f) == "বাড\u09bcি"      # NFC: ড + nukta


# ---- tokenizer and batches ------------------------------------------------------------------------------------

def test_tokenizer_round_trips_the_whole_corpus(text):
    tok = CharTokenizer(text)
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert tok.decode(torch.tensor(ids[:50])) == text[:50]
    assert tok.vocab_size == len(set(text)) and tok.chars == sorted(tok.chars)


def test_tokenizer_rejects_an_unknown_character():
    with pytest.raises(ValueError, match="unknown character"):
        CharTokenizer("আমি").encode("তুমি")


def test_split_is_90_10(ds, text):
    assert len(ds.train_data) + len(ds.val_data) == len(text)
    assert len(ds.train_data) == int(0.9 * len(text))


def test_batch_shapes_and_y_is_x_shifted_by_one(ds):
    for split in ("train", "val"):
        x, y = ds.get_batch(split, 8, 32, generator=torch.Generator().manual_seed(1))
        assert x.shape == y.shape == (8, 32) and x.dtype == y.dtype == torch.int64
        assert torch.equal(x[:, 1:], y[:, :-1])
    data = ds.train_data
    x, y = ds.get_batch("train", 4, 16, generator=torch.Generator().manual_seed(2))
    for row_x, row_y in zip(x, y, strict=True):   # each row is a real slice of the text, y one character later
        starts = [i for i in range(len(data) - 16) if torch.equal(data[i:i + 16], row_x)]
        assert any(torch.equal(data[i + 1:i + 17], row_y) for i in starts)


def test_same_generator_seed_gives_the_same_batches(ds):
    a = [ds.get_batch("train", 4, 16, generator=torch.Generator().manual_seed(7)) for _ in range(2)]
    assert torch.equal(a[0][0], a[1][0]) and torch.equal(a[0][1], a[1][1])
    other = ds.get_batch("train", 4, 16, generator=torch.Generator().manual_seed(8))
    assert not torch.equal(a[0][0], other[0])


def test_get_batch_rejects_a_bad_split(ds):
    with pytest.raises(ValueError, match="unknown split"):
        ds.get_batch("test", 2, 8)


# ---- TinyGPT --------------------------------------------------------------------------------------------------

def test_tinygpt_output_shapes(ds):
    model = TinyGPT(GPTConfig(vocab_size=ds.vocab_size), seed=0)
    x, y = ds.get_batch("train", 3, 64, generator=torch.Generator().manual_seed(0))
    logits, loss = model(x, y)
    assert logits.shape == (3, 64, ds.vocab_size) and loss.shape == ()
    logits, loss = model(x[:, :10])
    assert logits.shape == (3, 10, ds.vocab_size) and loss is None
    with pytest.raises(ValueError, match="too long"):
        model(torch.zeros(1, 65, dtype=torch.long))


def test_tinygpt_ties_embedding_and_output_weights(ds):
    model = TinyGPT(GPTConfig(vocab_size=ds.vocab_size), seed=0)
    assert model.lm_head.weight is model.transformer.wte.weight
    unique = {id(p): p.numel() for m in model.modules() for p in m.parameters(recurse=False)}
    assert model.num_parameters() == sum(unique.values())


def test_initial_loss_is_about_ln_vocab_size(ds):
    # Small initial weights: every character about equally likely, so the loss is ln(V)
    model = TinyGPT(GPTConfig(vocab_size=ds.vocab_size), seed=0)
    x, y = ds.get_batch("val", 16, 64, generator=torch.Generator().manual_seed(0))
    _, loss = model(x, y)
    assert loss.item() == pytest.approx(math.log(ds.vocab_size), abs=0.1)


def test_loss_decreases_over_60_adamw_steps(ds):
    losses = _train(ds, 60)
    assert sum(losses[-10:]) / 10 < losses[0] - 0.8


def test_same_seed_gives_identical_losses_bit_for_bit(ds):
    assert _train(ds, 8, seed=3) == _train(ds, 8, seed=3)
    assert _train(ds, 2, seed=3) != _train(ds, 2, seed=4)


def test_same_seed_gives_identical_weights_and_generated_text(ds):
    a, b = (TinyGPT(GPTConfig(vocab_size=ds.vocab_size), seed=5) for _ in range(2))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    start = torch.zeros(2, 1, dtype=torch.long)
    out = [m.eval().generate(start, 20, generator=torch.Generator().manual_seed(0)) for m in (a, b)]
    assert out[0].shape == (2, 21) and torch.equal(out[0], out[1])
    assert ds.tokenizer.decode(out[0][0])   # decodes to text


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_autocast_on_cpu_trains_with_finite_losses(ds, dtype):
    model = TinyGPT(GPTConfig(vocab_size=ds.vocab_size), seed=0)
    x, y = ds.get_batch("train", 4, 64, generator=torch.Generator().manual_seed(0))
    with torch.autocast("cpu", dtype=dtype):
        logits, loss = model(x, y)
    assert logits.dtype == dtype and loss.dtype == torch.float32   # matmuls in 16 bits, loss in FP32
    loss.backward()
    assert all(p.grad.dtype == torch.float32 and torch.isfinite(p.grad).all() for p in model.parameters())
    losses = _train(ds, 5, dtype=dtype, batch_size=4)
    assert all(math.isfinite(v) for v in losses)


# ---- MLP and synthetic data -----------------------------------------------------------------------------------

def test_mlp_shapes_and_seed():
    x, y = synthetic_regression(n=64, d=8, seed=0)
    assert x.shape == (64, 8) and y.shape == (64, 1) and x.dtype == torch.float32
    assert torch.equal(x, synthetic_regression(n=64, d=8, seed=0)[0])
    for n_layers in (1, 2, 4):
        mlp = MLP(8, 32, 1, n_layers=n_layers, seed=0)
        assert mlp(x).shape == (64, 1)
        assert sum(isinstance(m, torch.nn.Linear) for m in mlp.modules()) == n_layers
    a, b = MLP(8, 32, 1, seed=1), MLP(8, 32, 1, seed=1)
    assert torch.equal(a(x), b(x))
    with pytest.raises(ValueError):
        MLP(8, 32, 1, n_layers=0)


# ---- generate with top_k ---------------------------------------------------------------------------------------

def _untrained(vocab, seed=3):
    return TinyGPT(GPTConfig(vocab_size=vocab, block_size=16, n_layer=1, n_head=2, n_embd=16), seed=seed).eval()


def test_generate_with_top_k_1_is_greedy_argmax():
    model = _untrained(12)
    idx = torch.tensor([[1, 5, 2]])
    out = model.generate(idx, 25, top_k=1, generator=torch.Generator().manual_seed(0))
    seq = idx
    with torch.no_grad():                       # the oracle: the argmax of the last logits, step by step
        for _ in range(25):
            logits, _ = model(seq[:, -16:])
            seq = torch.cat([seq, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert torch.equal(out, seq)


@pytest.mark.parametrize("k", [2, 3])
def test_generate_with_top_k_only_samples_among_the_k_most_likely(k):
    model = _untrained(12)
    out = model.generate(torch.zeros(4, 1, dtype=torch.long), 30, temperature=2.0, top_k=k,
                         generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        for t in range(1, out.shape[1]):
            logits, _ = model(out[:, max(0, t - 16):t])
            allowed = logits[:, -1].topk(k).indices
            assert bool((allowed == out[:, t:t + 1]).any(dim=1).all()), t
    # without top_k, high temperature leaves that set at some step (so the check above can fail)
    free = model.generate(torch.zeros(4, 1, dtype=torch.long), 30, temperature=2.0,
                          generator=torch.Generator().manual_seed(1))
    outside = 0
    with torch.no_grad():
        for t in range(1, free.shape[1]):
            logits, _ = model(free[:, max(0, t - 16):t])
            outside += int((~(logits[:, -1].topk(k).indices == free[:, t:t + 1]).any(dim=1)).sum())
    assert outside > 0


def test_generate_rejects_bad_arguments_in_bengali_and_english():
    model = _untrained(12)
    start = torch.zeros(1, 1, dtype=torch.long)
    for kwargs, english in [({"temperature": 0.0}, "temperature must be >= 0.001"),
                            ({"max_new_tokens": -1}, "max_new_tokens must be an integer in"),
                            ({"max_new_tokens": 2 ** 2000}, "max_new_tokens must be an integer in")]:
        args = {"max_new_tokens": 2, **kwargs}
        with pytest.raises(ValueError, match=english):
            model.generate(start, **args)
