"""পাঠ ১০ (তোমার নিজের মডেল) অনুশীলনীর যাচাই: সারণি থেকে FP16-এ প্রথম overflow, loss scale বেছে নেওয়া, মেমরির বাজেটে
কী FP32-এ রাখা, আর লুকানো ভুলের মডেল সারানো। সত্য আসে torch-এর নিজের autocast চালিয়ে (hook দিয়ে প্রথম inf খুঁজে),
gradient-এর সব উপাদান গুনে, আর KeepFP32 দিয়ে প্রতিটি পরিকল্পনা চালিয়ে — check-up-এর রায় দেখে নয়।
"""
from __future__ import annotations

import functools
import math

import torch
from torch import nn

from mishran.checkup.keep import KeepFP32
from mishran.measure.memory import SavedTensorCounter
from mishran.numerics.formats import get_format

from .core import Verdict, blank_verdict, choice_answer, dict_answer, say

__all__ = ["MysteryNet", "mystery_batch", "check_first_overflow", "ScaleNet", "scale_batch", "check_scale_window",
           "BudgetNet", "budget_batch", "PLANS", "plan_bytes", "budget_bytes", "check_keep_plan", "Sharpen",
           "PlantedNet", "planted_batch", "check_planted_fix"]

_FP16 = get_format("fp16")


def _fill(linear: nn.Linear, weight: float, bias: float) -> None:
    with torch.no_grad():
        linear.weight.fill_(weight)
        linear.bias.fill_(bias)


class MysteryNet(nn.Module):
    """অনুশীলনী ১০.১-এর মডেল: embed → norm → proj → act → up → head। মাপগুলো হাতে বসানো, যাতে প্রতিটি module-এর
    FP32-এর বৃহত্তম |মান| জানা থাকে: embed 120000 (Embedding-এর ওজন), proj 65510, up ≈ 70751, head ছোট।"""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(8, 4)
        self.norm = nn.LayerNorm(4, elementwise_affine=False)
        self.proj = nn.Linear(4, 4)
        self.act = nn.ReLU()
        self.up = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)
        with torch.no_grad():
            self.embed.weight.copy_(torch.linspace(-1.2e5, 1.2e5, 32).reshape(8, 4))
        _fill(self.proj, 0.0, 65510.0)          # সব output ঠিক 65510
        _fill(self.up, 0.27, 0.0)               # 4 × 0.27 × 65510 ≈ 70751 (FP32-এ)
        _fill(self.head, 1e-5, 0.0)

    def forward(self, idx):
        """token-এর সূচক → একটি scalar (output-এর গড়), যাতে loss_fn ছাড়াই check-up চলে।"""
        return self.head(self.up(self.act(self.proj(self.norm(self.embed(idx)))))).mean()


def mystery_batch() -> torch.Tensor:
    """১০.১-এর batch: ৮টি token-এর সূচক।"""
    return torch.arange(8).reshape(2, 4)


def _nonfinite_outputs_fp16(model: nn.Module, batch) -> list:
    """torch-এর নিজের FP16 autocast (CPU) চালিয়ে, hook দিয়ে: যে leaf module-গুলোর output-এ inf/NaN, চলার ক্রমে —
    (নাম, output-এর dtype, শুধু −inf কি না)।"""
    found: list = []

    def seen(name, out):
        if not torch.isfinite(out).all():
            only_minus = bool((torch.isfinite(out) | (out == -math.inf)).all())
            found.append((name, out.dtype, only_minus))

    leaves = [(n, m) for n, m in model.named_modules() if not list(m.children())]
    hooks = [m.register_forward_hook(lambda mod, i, out, n=n: seen(n, out)) for n, m in leaves]
    try:
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
            model(batch)
    finally:
        for h in hooks:
            h.remove()
    return found


def _first_nonfinite_fp16(model: nn.Module, batch) -> str | None:
    """torch-এর নিজের FP16 autocast (CPU) চালিয়ে, hook দিয়ে: কোন leaf module-এর output-এ প্রথম inf/NaN।"""
    found = _nonfinite_outputs_fp16(model, batch)
    return found[0][0] if found else None


def check_first_overflow(answer) -> Verdict:
    """অনুশীলনী ১০.১: MysteryNet-কে T4-এ FP16 autocast-এ চালালে প্রথম কোন module-এর output inf হবে (module-এর নাম)।"""
    names = [n for n, _ in MysteryNet().named_modules() if n]
    name, early = choice_answer(answer, names, "module-এর নাম", fold=str.lower)
    if early is not None:
        return early
    truth = _first_nonfinite_fp16(MysteryNet(), mystery_batch())
    if name == truth:
        return say(True, "ঠিক module — সারণির শুধু 'বড় সংখ্যা' দেখে নয়, কোন module ১৬-বিটে চলে আর কোথায় inf শুরু হয়, "
                         "দুটোই ভেবেছ।")
    hints = {
        "embed": "Embedding autocast-এর তালিকায় নেই: তার output FP32-এই থাকে (পাঠ ০৩), আর পরের LayerNorm মানগুলো ছোট "
                 "করে দেয়।",
        "proj": "65510 কি FP16-এ inf? পাঠ ০১: 65504-এর পরের ধাপ 65536, আর inf হয় শুধু 65520 বা তার বেশি হলে — "
                "65510 গোল হয়ে 65504।",
        "norm": "LayerNorm-এর output-এর মাপ ১-এর কাছে: ইনপুট যত বড়ই হোক।",
        "act": "ReLU নতুন বড় মান বানায় না, শুধু ঋণাত্মকগুলো শূন্য করে: তার ইনপুট proj-এর output — আর সেটা FP16-এ "
               "কী হয়েছিল?",
    }
    return say(False, hints.get(name, "এর output-এর মান FP16-এর পরিসরে আঁটে। সারণিতে FP32-এর বৃহত্তম |মান| আর "
                                      "module-এর ধরন আবার দেখো।"))


class ScaleNet(nn.Module):
    """অনুশীলনী ১০.২-এর মডেল: `amp`-এর ওজনের gradient ~1 (বড়: 2**16 দিয়ে গুণ করলে 65504 ছাড়ায়), আর `tiny`-র ওজনের
    gradient ~10⁻⁸ (ছোট: scale ১-এ FP16-এ শূন্য) — তাই loss scale-এর জানালা সীমিত। সব ওজন হাতে বসানো।"""

    def __init__(self):
        super().__init__()
        self.amp = nn.Linear(8, 8)
        self.tiny = nn.Linear(8, 1)
        with torch.no_grad():
            self.amp.weight.copy_(torch.linspace(-1, 1, 64).reshape(8, 8))
            self.amp.bias.fill_(0.1)
            self.tiny.weight.copy_(torch.linspace(0.5, 1.5, 8).reshape(1, 8))
            self.tiny.bias.zero_()

    def forward(self, x):
        """x → loss: `amp`-এর output-এর বর্গের গড় (বড় gradient) + `tiny`-র খুব ছোট ভারের অংশ।"""
        h = self.amp(x)
        return 2.0 * h.square().mean() + 1e-8 * self.tiny(h.detach()).sum()


def scale_batch() -> torch.Tensor:
    """১০.২-এর batch।"""
    return torch.linspace(-1, 1, 32).reshape(4, 8)


ACTIVATION = "activation gradient"
"""_scale_grads()-এ module-এর output-এর gradient-এর নাম (parameter নয়)।"""


@functools.lru_cache(maxsize=1)
def _scale_grads() -> dict:
    """ScaleNet-এর FP32 gradient: প্রতিটি parameter-এর, আর 'activation gradient' (amp-এর output-এর) — torch নিজে।"""
    model, x = ScaleNet(), scale_batch()
    seen: list = []
    h = model.amp(x)
    h.register_hook(seen.append)
    (2.0 * h.square().mean() + 1e-8 * model.tiny(h.detach()).sum()).backward()
    grads = {n: p.grad.detach() for n, p in model.named_parameters()}
    return {**grads, ACTIVATION: seen[0].detach()}


def _overflowing(k: int) -> list[str]:
    """2**k-এ যে gradient-গুলোর বৃহত্তম |g| × 2**k 65504 ছোঁয় বা ছাড়ায় (ওজনের আর activation-এর)।"""
    return [n for n, g in _scale_grads().items() if float(g.abs().max()) * 2.0 ** k >= _FP16.max]


def _zeroed(k: int) -> dict:
    """2**k-এ যে parameter-এর শূন্য-নয় gradient-এর 1%-এর বেশি FP16-এ শূন্য হয় (torch-এর নিজের .half()): নাম → ভাগ।"""
    shares = {n: float(((g * 2.0 ** k).half() == 0)[g != 0].float().mean())
              for n, g in _scale_grads().items() if n != ACTIVATION}
    return {n: share for n, share in shares.items() if share > 0.01}


@functools.lru_cache(maxsize=1)
def _scale_window() -> tuple[int, int]:
    """(k_low, k_high): 2**k-এ কোনো gradient (ওজনের বা activation-এর) 65504 ছোঁয় না, আর কোনো ওজনের gradient-এর
    1%-এর বেশি FP16-এ শূন্য হয় না — সব উপাদান torch-এর নিজের .half() দিয়ে গুনে।"""
    k_low = next(k for k in range(0, 40) if not _zeroed(k))
    k_high = next(k for k in range(40, -1, -1) if not _overflowing(k))
    return k_low, k_high


def _edge_mistake(edge: str, k: int) -> str:
    """জানালার একটি প্রান্ত (2**k) কোন শর্ত ভাঙে, আর কোন রাশিটা ভাঙে — উত্তরের সংখ্যা না বলে; না ভাঙলে ফাঁকা।"""
    broken = _overflowing(k)
    if broken:
        what = ", ".join("module-এর output-এর gradient (activation gradient)" if n == ACTIVATION
                         else f"`{n}`-এর gradient" for n in broken)
        default = " PyTorch-এর default 2**16 তাই এই মডেলে প্রথম কয়েকটি ধাপ বাদ দেবে।" if k == 16 else ""
        return (f"{edge} = 2**{k}-এ {what}: বৃহত্তম |g| × 2**{k} ≥ 65504 (overflow)।{default} সারণির 'বৃহত্তম |g|' "
                "থেকে গুণ করে 65504-এর সঙ্গে মেলাও।")
    zeroed = _zeroed(k)
    if zeroed:
        name, share = max(zeroed.items(), key=lambda item: item[1])
        return (f"{edge} = 2**{k}-এ `{name}`-এর শূন্য-নয় gradient-এর {100 * share:.3g}% এখনো FP16-এ শূন্য "
                "(underflow): তার histogram-এর সবচেয়ে নিচের খোপ 2**k-এ কোথায় সরে, আর 2**-25-এর সঙ্গে মেলাও।")
    return ""


def check_scale_window(answer) -> Verdict:
    """অনুশীলনী ১০.২: ScaleNet-এর নিরাপদ scale-এর জানালার দুই প্রান্ত, ২-এর ঘাতে — answer = {"smallest": 2.0**a,
    "largest": 2.0**b}: যে সবচেয়ে ছোট আর সবচেয়ে বড় ঘাতে কোনো gradient 65504 ছোঁয় না আর কোনো parameter-এর
    শূন্য-নয় gradient-এর 1%-এর বেশি FP16-এ শূন্য হয় না। ভুলে বলে কোন রাশিটা (কোন gradient) ভাঙে।"""
    answer, early = dict_answer(answer, ("smallest", "largest"),
                                need='{"smallest": 2.0**a, "largest": 2.0**b} চাই, দুটোই সংখ্যা (numbers)')
    if early is not None:
        return early
    if any(v <= 0 or not math.log2(v).is_integer() for v in answer.values()):
        return say(False, "দুই প্রান্তই ২-এর ঘাত নাও (a power of two), যেমন 2.0**10: তাহলে গুণ-ভাগে mantissa-র একটি বিটও "
                          f"বদলায় না (পাঠ ০২); পেয়েছি {answer!r}।", form=True)
    small, big = (round(math.log2(answer[key])) for key in ("smallest", "largest"))
    if small > big:
        return say(False, f"smallest (2**{small}) largest (2**{big})-এর চেয়ে বড়: দুটো জায়গা বদল হয়ে গেছে কি?", form=True)
    for edge, k in (("smallest", small), ("largest", big)):
        mistake = _edge_mistake(edge, k)
        if mistake:
            return say(False, mistake)
    k_low, k_high = _scale_window()
    if small > k_low:
        return say(False, f"smallest = 2**{small} চলে, কিন্তু 2**{small - 1}-ও চলে: নিচের প্রান্ত আরও নিচে। প্রতিটি "
                          "parameter-এর histogram-এর সবচেয়ে নিচের খোপটাকে 2**-25-এর ওপরে তুলতে ঠিক কত লাগে?")
    if big < k_high:
        return say(False, f"largest = 2**{big} চলে, কিন্তু 2**{big + 1}-ও কোনো gradient-কে 65504-এ পৌঁছায় না: ওপরের "
                          "প্রান্ত আরও ওপরে। বৃহত্তম |g| (ওজনের আর activation-এর) দিয়ে 65504 ভাগ করো।")
    return say(True, "দুই প্রান্তই ঠিক: এক ঘাত নিচে গেলে কোনো ছোট gradient মুছে যায়, এক ঘাত ওপরে গেলে কোনো বড় "
                     "gradient overflow করে। এর ভেতরের যেকোনো ঘাত init_scale হিসেবে চলে।")


class _Scores(nn.Module):
    """q·kᵀ, 1/√d ছাড়া।"""

    def forward(self, q, k):
        return q @ k.transpose(-1, -2)


class _Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qk, self.scores, self.out = nn.Linear(d, 2 * d), _Scores(), nn.Linear(d, d)

    def forward(self, x):
        q, k = self.qk(x).chunk(2, -1)
        return self.out(self.scores(q, k).softmax(-1) @ x)


class _Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn, self.norm = _Attn(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.mlp(self.norm(x))


class BudgetNet(nn.Module):
    """অনুশীলনী ১০.৩-এর মডেল: inp → block (attn: qk, scores, out; norm; mlp) → head। qk-র ওজন বড়, তাই scores FP16-এ
    overflow করে।"""

    def __init__(self, d: int = 64):
        super().__init__()
        with torch.random.fork_rng(devices=[]):          # শিক্ষার্থীর RNG-তে হাত না দিয়ে, প্রতিবার একই ওজন
            torch.manual_seed(0)
            self.inp, self.block, self.head = nn.Linear(16, d), _Block(d), nn.Linear(d, 4)
        with torch.no_grad():
            self.block.attn.qk.weight.mul_(130)

    def forward(self, x):
        """(batch, token, 16) → প্রতিটি নমুনার ৪টি logit।"""
        return self.head(self.block(self.inp(x)).mean(1))


def budget_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """১০.৩-এর batch: (x, y), cross-entropy-র জন্য।"""
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 32, 16, generator=g), torch.randint(0, 4, (8,), generator=g)


PLANS = {"A": ["block"], "B": ["block.attn"], "C": ["block.attn.scores"], "D": []}
"""১০.৩-এর পরিকল্পনা: কোন module-গুলো FP32-এ (KeepFP32)। D: কিছুই না, শুধু loss scale কমানো।"""


def _plan_run(keep: list) -> tuple[int, bool]:
    """একটি পরিকল্পনার FP16 step: backward-এর জন্য রাখা বাইট, আর output সসীম কি না।"""
    model, (x, y) = BudgetNet(), budget_batch()
    with KeepFP32(model, keep), torch.autocast("cpu", dtype=torch.float16), SavedTensorCounter(model) as saved:
        out = model(x)
        nn.functional.cross_entropy(out, y)
    return saved.activations + saved.cast_cache, bool(torch.isfinite(out).all())


def plan_bytes() -> dict:
    """প্রতিটি পরিকল্পনায় backward-এর জন্য রাখা বাইট (activation + cast cache), FP16 autocast-এ, মাপা।"""
    return {plan: _plan_run(keep)[0] for plan, keep in PLANS.items()}


def budget_bytes() -> int:
    """১০.৩-এর বাজেট: C আর B-এর মাঝামাঝি (মেপে, তাই torch-এর সংস্করণ বদলালেও প্রশ্ন একই থাকে)।"""
    sizes = plan_bytes()
    return (sizes["B"] + sizes["C"]) // 2


def check_keep_plan(answer) -> Verdict:
    """অনুশীলনী ১০.৩: বাজেটের মধ্যে থেকে overflow দূর করে এমন পরিকল্পনা ('A', 'B', 'C' বা 'D')।"""
    plan, early = choice_answer(answer, tuple(PLANS), "পরিকল্পনা", fold=str.upper)
    if early is not None:
        return early
    size, finite = _plan_run(PLANS[plan])
    if finite and size <= budget_bytes():
        return say(True, "overflow-টা যেখানে জন্মায়, শুধু সেটুকু FP32-এ: বাকি সব ১৬-বিটেই থাকে।")
    if plan == "D":
        return say(False, "loss scale শুধু backward-এর gradient-কে গুণ করে; forward-এর inf তাতে যায় না (পাঠ ০২)।")
    return say(False, "overflow যায় ঠিকই, কিন্তু বাজেট ছাড়ায়: বড় module FP32-এ রাখলে তার ভেতরের সব activation-ও FP32।")


class Sharpen(nn.Module):
    """score-কে তীক্ষ্ণ করা: × factor (এক ধরনের উল্টো temperature)।"""

    def __init__(self, factor: float):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        """x-কে factor দিয়ে গুণ।"""
        return x * self.factor


class PlantedNet(nn.Module):
    """অনুশীলনী ১০.৪-এর মডেল: token-গুলোর ওপর attention-এর মতো ভারযুক্ত গড়; কোথাও একটি সংখ্যার ভুল লুকানো —
    check-up দিয়ে খুঁজে বের করো।"""

    def __init__(self, d: int = 32, classes: int = 4):
        super().__init__()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(1)
            self.embed = nn.Linear(16, d)
            self.score = nn.Linear(d, 1)
            self.head = nn.Linear(d, classes)
        self.sharpen = Sharpen(1e5)
        with torch.no_grad():
            self.score.weight.mul_(4.0)

    def forward(self, x):
        """(batch, token, 16) → ৪টি logit: token-গুলোর ভারযুক্ত যোগফল থেকে।"""
        h = torch.tanh(self.embed(x))
        w = torch.softmax(self.sharpen(self.score(h).squeeze(-1)), -1)
        return self.head((w.unsqueeze(-1) * h).sum(1))


def planted_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """১০.৪-এর batch: (x, y)।"""
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 24, 16, generator=g), torch.randint(0, 4, (8,), generator=g)


def _still_nonfinite(model: nn.Module, x) -> str:
    """অনুশীলনী ১০.৪-এর সারানো মডেল FP16 autocast-এ এখনো inf/NaN দিলে (বা চলতেই না পারলে) তার ব্যাখ্যা; নইলে ফাঁকা।"""
    try:
        found = _nonfinite_outputs_fp16(model, x)
    except Exception as err:  # noqa: BLE001 — শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return f"তোমার মডেল FP16 autocast-এ চলল না: {type(err).__name__}: {err}"
    if not found:
        return ""
    where, dtype, only_minus = found[0]
    why = ["−inf-ও inf: softmax হয়তো বাঁচে, কিন্তু activation-এ inf থাকা চলবে না"] if only_minus else []
    if dtype == torch.float16:
        why.append("সেখানে output এখনো float16: autocast বন্ধ করলেও গুণের ইনপুট নিজে যে dtype-এ, গুণ সেই dtype-এই "
                   "হয় — ইনপুটটা কোন dtype-এ আসছে?")
    note = f" ({'; '.join(why)})" if why else ""
    return f"FP16 autocast-এ এখনো inf/NaN, প্রথমে '{where}'-এ{note}। check-up আবার চালিয়ে দেখো।"


def check_planted_fix(model) -> Verdict:
    """অনুশীলনী ১০.৪: সারানো মডেল (PlantedNet-এর মতো একই parameter): FP32-এ একই ফল, আর FP16 autocast-এ কোথাও inf নেই।"""
    if model is ... or model is None:
        return blank_verdict()
    if isinstance(model, type) and issubclass(model, nn.Module):
        return say(False, f"class দিয়েছ; তার বস্তু (instance) দাও: {model.__name__}()", form=True)
    if not isinstance(model, nn.Module):
        return say(False, f"একটি nn.Module চাই (a model), যেমন FixedNet(); পেয়েছি {type(model).__name__}।", form=True)
    planted = PlantedNet()
    try:
        model.load_state_dict(planted.state_dict())
    except RuntimeError:
        return say(False, "parameter-গুলো PlantedNet-এর মতো হওয়া চাই (same state_dict): মডেলটা বদলাও না, শুধু ভুলটা "
                          "সারাও।", form=True)
    x, _ = planted_batch()
    try:
        with torch.no_grad():
            want, got = planted(x), model(x)
    except Exception as err:  # noqa: BLE001 — শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return say(False, f"তোমার মডেল FP32-এ চলল না (failed in FP32): {type(err).__name__}: {err}")
    if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-5, atol=1e-6):
        return say(False, "FP32-এ তোমার মডেলের ফল PlantedNet-এর থেকে আলাদা: সারানোটা অঙ্কটা বদলে দিয়েছে। এমন বদল খোঁজো যা "
                          "FP32-এ একই সংখ্যা দেয়।")
    if any("forward" in vars(m) for m in model.modules()):
        return say(False, "KeepFP32 পরামর্শের সোজা পথ — এখানে module-এর নিজের কোড সারাও, যাতে সে নিজেই FP16 autocast-এ "
                          "নিরাপদ থাকে (তার হিসাব কোন dtype-এ হয়, ভাবো)।")
    still = _still_nonfinite(model, x)
    if still:
        return say(False, still)
    return say(True, "FP32-এ একই ফল, FP16-এ কোথাও inf নেই।")
