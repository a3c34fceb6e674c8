"""পাঠ ০৫ (DeepSpeed engine) অনুশীলনীর যাচাই: কম GPU-তে config, শুরুর বাদ-পড়া ধাপ, ZeRO-র মেমরি, সীমানার লুপ।

উত্তর কোথাও লেখা নেই: config-এর ব্যাচ আসে DeepSpeed-এর নিজের DeepSpeedConfig থেকে, বাদ-পড়া ধাপ DeepSpeed-এর
নিয়মের loss scaler চালিয়ে, লুপের ফল একটি আসল engine চালিয়ে।
"""
from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass

import torch

from mishran.engines.deepspeed_config import zero_model_state_bytes
from mishran.numerics import formats
from mishran.numerics.scaling import DeepSpeedLossScaler

from .core import Verdict, blank_verdict, check_fields, check_number, choice_answer, dict_answer, is_blank, say

__all__ = ["BOUNDARY_ONLY_LOOP", "CONFIGS_FOR_8_GPUS", "check_boundary_only_loop", "check_config_on_fewer_gpus",
           "check_initial_skipped_steps", "check_smallest_zero_stage"]

# ---------------------------------------------------------------- ০৫.১: একই config, কম GPU

CONFIGS_FOR_8_GPUS = {
    "A": {"train_batch_size": 512, "train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 4},
    "B": {"train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 4},
    "C": {"train_batch_size": 512, "train_micro_batch_size_per_gpu": 16},
    "D": {"train_batch_size": 512, "gradient_accumulation_steps": 4},
}
"""অনুশীলনী ০৫.১: ৮টি GPU-র জন্য লেখা চারটি config-এর ব্যাচের অংশ — ৮টিতে চারটিই একই: ৫১২ = ১৬ × ৪ × ৮।"""


@dataclass
class _DataParallelOnly:
    """DeepSpeedConfig-কে world size জানানোর সবচেয়ে ছোট mpu: শুধু data parallel-এর মাপ।"""

    world_size: int

    def get_data_parallel_world_size(self) -> int:
        return self.world_size


def _deepspeed_batch(config: dict, world_size: int) -> dict | str:
    """DeepSpeed নিজে এই config থেকে world_size-টি GPU-তে কোন ব্যাচ বানায়: {"train_batch_size",
    "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"}, বা সে আপত্তি করলে তার বার্তা।"""
    from deepspeed.runtime.config import DeepSpeedConfig

    from mishran.engines.deepspeed_engine import setup_single_process

    setup_single_process()                       # DeepSpeedConfig world size পড়ে distributed অংশ চালু থাকলে তবেই
    try:
        resolved = DeepSpeedConfig(copy.deepcopy(config), mpu=_DataParallelOnly(world_size))
    except AssertionError as err:
        return str(err)
    return {k: getattr(resolved, k) for k in ("train_batch_size", "train_micro_batch_size_per_gpu",
                                               "gradient_accumulation_steps")}


def _describe(result: dict | str) -> str:
    if isinstance(result, str):
        return f"DeepSpeed আপত্তি করে (AssertionError): {result.split('. ')[-1]}"
    return (f"DeepSpeed বানায় train_batch_size {result['train_batch_size']}, প্রতি GPU-তে micro-batch "
            f"{result['train_micro_batch_size_per_gpu']}, k = {result['gradient_accumulation_steps']}")


def check_config_on_fewer_gpus(answer, gpus: int = 2, max_micro: int = 16, target: int = 512) -> Verdict:
    """অনুশীলনী ০৫.১: CONFIGS_FOR_8_GPUS-এর কোনটি gpus-টি GPU-তেও কার্যকর ব্যাচ target রাখে, micro-batch max_micro-র
    বেশি না করে (বিকল্প A–D); সত্যটা DeepSpeed-এর নিজের DeepSpeedConfig থেকে।"""
    key, early = choice_answer(answer, CONFIGS_FOR_8_GPUS, fold=str.upper)
    if early is not None:
        return early
    results = {k: _deepspeed_batch(c, gpus) for k, c in CONFIGS_FOR_8_GPUS.items()}
    good = [k for k, r in results.items() if isinstance(r, dict) and r["train_batch_size"] == target
            and r["train_micro_batch_size_per_gpu"] <= max_micro]
    got = results[key]
    if key in good:
        return say(True, f"{key}: {_describe(got)}। যে key দাওনি, DeepSpeed সেটা বাকি দুটি আর GPU-র সংখ্যা থেকে "
                          "ভরে দেয়; তাই কার্যকর ব্যাচ আর micro-batch লিখে k বাদ রাখলে config যেকোনো GPU-সংখ্যায় চলে।")
    if isinstance(got, dict) and got["train_batch_size"] != target:
        why = "কার্যকর ব্যাচ নীরবে বদলে গেছে — learning rate যে ব্যাচের জন্য ঠিক করেছিলে, সেটা আর নেই।"
    elif isinstance(got, dict):
        why = f"কার্যকর ব্যাচ ঠিক আছে, কিন্তু প্রতি GPU-তে micro-batch {max_micro}-এর বেশি — মেমরিতে ধরবে না।"
    else:
        why = "তিনটি key-ই দিলে DeepSpeed নিজে কিছু ভরে না, শুধু গুণফল মেলায়।"
    return say(False, f"{key}: {gpus}টি GPU-তে {_describe(got)}। {why} বাকি বিকল্পগুলোয় DeepSpeed কোন key নিজে ভরে, "
                      "আর কোন গুণফল থেকে?")


def _fp16_overflows(grad_max: float, scale: float) -> bool:
    """grad_max × scale FP16-এ রাখলে inf হয় কি না (FP16-এর rounding মেনে)।"""
    return math.isinf(formats.round_to(abs(grad_max) * scale, "fp16"))


def _initial_skipped_steps(grad_max: float, initial_scale_power: int = 32, hysteresis: int = 2) -> int:
    """শুরুতে কয়টি ধাপ বাদ পড়ে, যদি overflow হয় ঠিক তখন যখন grad_max × scale FP16-এ inf।"""
    scaler = DeepSpeedLossScaler(init_scale=2.0 ** initial_scale_power, scale_window=10 ** 9, hysteresis=hysteresis)
    skipped = 0
    while _fp16_overflows(grad_max, scaler.scale):
        scaler.update(True)
        skipped += 1
    return skipped


def check_initial_skipped_steps(grad_max: float, answer, initial_scale_power: int = 32, hysteresis: int = 2) -> Verdict:
    """অনুশীলনী ০৫.২: initial_scale_power থেকে নামতে নামতে DeepSpeed (ZeRO 1/2) শুরুতে কয়টি ধাপ বাদ দেয়।"""
    expected = _initial_skipped_steps(grad_max, initial_scale_power, hysteresis)
    hint = (f"প্রথমে খোঁজো কোন 2-এর ঘাত S-এ {grad_max:g} × S FP16-এ রাখলে inf হয় না — মনে রাখো, "
            f"{formats.FORMATS['fp16'].max:g}-এর একটু ওপরের মান rounding-এ আবার {formats.FORMATS['fp16'].max:g}-এ নামে, "
            f"inf হয় 65520 থেকে (পাঠ ০১)। 2^{initial_scale_power} থেকে সেখানে নামতে কয়টি অর্ধেক করা লাগে? তার "
            f"সঙ্গে hysteresis: প্রথম {hysteresis - 1}টি overflow-এ scale কমে না, শুধু ধাপ বাদ যায়।")
    return check_number(answer, expected, f"|g|max = {grad_max:g}, initial_scale_power {initial_scale_power}, "
                                          f"hysteresis {hysteresis}-এ শুরুতে বাদ-পড়া ধাপ", hint)


def check_smallest_zero_stage(num_params: float, world_size: int, budget_gb: float, answer) -> Verdict:
    """অনুশীলনী ০৫.৩ (মেমরির বাজেটে বাছাই): model state budget_gb-এ (10^9 বাইট) ধরে এমন সবচেয়ে ছোট ZeRO stage।"""
    if is_blank(answer):
        return blank_verdict()
    per_gpu = {s: zero_model_state_bytes(int(num_params), s, int(world_size))["total"] for s in range(4)}
    fits = [s for s, b in per_gpu.items() if b <= budget_gb * 1e9]
    if not fits:
        raise ValueError("কোনো stage-এই ধরে না (no stage fits); বাজেট বা GPU বাড়াও")
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or answer not in per_gpu:
        return say(False, f"ZeRO stage হবে 0, 1, 2 বা 3; পেয়েছি {answer!r}।", form=True)
    if answer == min(fits):
        return say(True, "এর আগের stage-এ ধরে না, এটাতে ধরে। বড় stage-ও ধরত, কিন্তু প্রতিটি ধাপে বেশি যোগাযোগ "
                          "(stage ৩-এ ওজনও প্রতি স্তরে আনা-নেওয়া) — তাই যেটা ধরে তার মধ্যে সবচেয়ে ছোট।")
    if answer not in fits:
        return say(False, f"stage {answer}-এ ধরে না। প্রতি ওজনে ১৬ বাইট (২ + ২ + ১২); stage ১ ভাগ করে শুধু ১২-কে, "
                           "stage ২ তার সঙ্গে gradient-এর ২-কে, stage ৩ সবকিছু। প্রতি GPU-র বাইট বাজেটের সঙ্গে মেলাও।")
    return say(False, f"stage {answer}-এ ধরে, কিন্তু তার চেয়ে ছোট একটি stage-এও ধরে — সেটা কম যোগাযোগে চলে।")


# ---------------------------------------------------------------- ০৫.৪: শুধু সীমানায় step()

BOUNDARY_ONLY_LOOP = """\
for x, y in micro_batches:
    _, loss = engine(x, y)
    engine.backward(loss)
    if engine.is_gradient_accumulation_boundary():
        engine.step()
        engine.zero_grad()
"""
"""অনুশীলনী ০৫.৪: পাঠ ০৪-এর অভ্যাসে লেখা লুপ — optimizer-এর ধাপ শুধু সীমানায়।"""


@functools.lru_cache(maxsize=8)      # একই প্রশ্নে আবার চেষ্টা করলে engine আবার বানাতে হয় না
def _run_boundary_only_loop(accumulation_steps: int, n_micro: int) -> dict:
    """BOUNDARY_ONLY_LOOP একটি আসল FP32 engine-এ চালিয়ে: optimizer-এর কয়টি ধাপ হলো, আর শেষে .grad-এ কয়টি
    micro-batch-এর gradient (হাতে (loss / k).backward() জমিয়ে মিলিয়ে দেখা)।"""
    from mishran.engines import deepspeed_config, deepspeed_engine
    from mishran.models.gpt import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=16, block_size=8, n_layer=1, n_head=2, n_embd=16), seed=0)
    by_hand = copy.deepcopy(model)
    config = deepspeed_config.config_for_device(micro_batch=2, accumulation_steps=accumulation_steps, precision="fp32")
    engine = deepspeed_engine.initialize(model, config, replace_current=False)
    try:
        by_hand.to(engine.device)
        g = torch.Generator().manual_seed(0)
        batches = [tuple(torch.randint(0, 16, (2, 8), generator=g).to(engine.device) for _ in range(2))
                   for _ in range(n_micro)]
        exec(BOUNDARY_ONLY_LOOP, {"engine": engine, "micro_batches": batches})   # শিক্ষার্থী যে লুপ ছাপা দেখে
        held = None
        for n, (x, y) in enumerate(batches, start=1):
            _, loss = by_hand(x, y)
            (loss / accumulation_steps).backward()
            same = all(p.grad is not None and q.grad is not None and torch.allclose(p.grad, q.grad, rtol=1e-4,
                                                                                      atol=1e-7)
                       for p, q in zip(engine.module.parameters(), by_hand.parameters(), strict=True))
            held = n if same else held
        return {"steps": engine.global_steps, "grads": held or 0}
    finally:
        deepspeed_engine.release(engine)


def check_boundary_only_loop(answer, accumulation_steps: int = 4, n_micro: int = 12) -> Verdict:
    """অনুশীলনী ০৫.৪: BOUNDARY_ONLY_LOOP-এ n_micro-টি micro-batch-এর পরে optimizer-এর কয়টি ধাপ, আর .grad-এ কয়টি
    micro-batch-এর gradient; উত্তর {"steps": ..., "grads": ...}, সত্যটা একটি আসল engine চালিয়ে।"""
    values, early = dict_answer(answer, ("steps", "grads"), need="দুটোই সংখ্যা চাই (numbers)")
    if early is not None:
        return early
    truth = _run_boundary_only_loop(accumulation_steps, n_micro)
    hints = {"steps": "steps: engine কোন ছোট ধাপে আছে, তা সে জানে কীভাবে — কোন ডাকে তার গোনা (micro_steps) বাড়ে? "
                      "is_gradient_accumulation_boundary() সেই গোনা দেখেই উত্তর দেয়।",
             "grads": "grads: engine.backward() প্রতিবার .grad-এ যোগ করে; gradient মোছা হয় কোথায়, আর এই লুপে সেই "
                      "জায়গায় কখনো পৌঁছানো যায় কি?"}
    return check_fields(values, truth, hints,
                        "engine নিজের ছোট ধাপ গোনে engine.step()-এর ভেতরে; সীমানার আগে step() না ডাকলে গোনা বাড়ে না, "
                        "সীমানাও আসে না — optimizer-এর ধাপ হয় না, আর gradient মোছে না বলে জমতেই থাকে। k = ১ "
                        "হলে লুপটা ঠিক চলত বলে ভুলটা চোখে পড়ে শুধু k > ১-এ। তাই প্রতিটি micro-batch-এ engine.step()।")
