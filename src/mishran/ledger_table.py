"""`python -m mishran.ledger_table`: এই যন্ত্রে প্রতিটি mode-এর এক ধাপের মেমরির খাতা, সারণি আর JSON (পাঠ ০৬-এর মাপ)।

খাতা মাপে mishran.memory.measure_step; এখানে শুধু কমান্ড লাইন, যাতে মাপার মডিউলটি ছোট থাকে।
"""
from __future__ import annotations

import torch

from .memory import measure_step
from .util import package_version

__all__ = ["DEFAULT_RUNS", "main"]

DEFAULT_RUNS = ("fp32", "amp_fp16", "amp_bf16", "ds_bf16:0", "ds_bf16:1", "ds_bf16:2", "ds_fp16:1", "ds_fp16:2")


def main(argv=None) -> list[dict]:
    """`python -m mishran.ledger_table`: এই যন্ত্রে প্রতিটি mode-এর খাতা ছাপে (পাঠ ০৬-এর মাপ), --json দিলে ফাইলেও লেখে।

    ডিফল্ট মাপ পাঠ ০৬-এর: GPU-তে TinyGPT 12 স্তর × 384, ব্যাচ 32 × 256; CPU-তে 2 স্তর × 64, ব্যাচ 8 × 64।
    CPU-তে ds_fp16 বাদ যায় (DeepSpeed-এর CPU accelerator FP16 নেয় না)।
    """
    import argparse
    import json
    import platform

    from .data import CharDataset
    from .models import GPTConfig, TinyGPT

    cuda = torch.cuda.is_available()
    p = argparse.ArgumentParser(prog="python -m mishran.ledger_table", description=main.__doc__.splitlines()[0])
    for name, gpu, cpu in [("n-layer", 12, 2), ("n-embd", 384, 64), ("n-head", 6, 4), ("block-size", 256, 64),
                           ("batch", 32, 8)]:
        p.add_argument(f"--{name}", type=int, default=gpu if cuda else cpu)
    p.add_argument("--runs", nargs="*", default=list(DEFAULT_RUNS), help="mode বা mode:zero_stage")
    p.add_argument("--json", default=None, help="ফল এই JSON ফাইলে লেখো")
    args = p.parse_args(argv)
    device = "cuda" if cuda else "cpu"
    data = CharDataset()
    cfg = GPTConfig(vocab_size=data.vocab_size, block_size=args.block_size, n_layer=args.n_layer,
                    n_head=args.n_head, n_embd=args.n_embd)
    x, y = data.get_batch("train", args.batch, args.block_size, device=device,
                          generator=torch.Generator().manual_seed(0))
    results = []
    for run in args.runs:
        mode, _, stage = run.partition(":")
        if mode == "ds_fp16" and not cuda:
            print(f"{run}: বাদ — CPU accelerator FP16 নেয় না")
            continue
        led = measure_step(TinyGPT(cfg, seed=0).to(device), (x, y), mode=mode, zero_stage=int(stage or 0))
        print(led, flush=True)
        results.append(led.as_dict())
    meta = {"device": torch.cuda.get_device_name(0) if cuda else platform.processor() or "CPU",
            "torch": torch.__version__, "deepspeed": package_version("deepspeed"), "config": vars(args)}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "ledgers": results}, f, ensure_ascii=False, indent=1, default=str)
    return results


if __name__ == "__main__":
    main()
