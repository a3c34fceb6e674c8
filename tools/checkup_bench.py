"""The check-up's cost (docs/benchmarks.md): wall time and peak memory of one `mishran.checkup` call on GPT-2 small
(124M, batch 2 × 128 tokens), BERT-base (batch 2 × 128) and ResNet-18 (batch 8, 224²), each built from its transformers
config, beside one plain FP32 training step (forward, backward, AdamW) of the same model and batch.

    python tools/checkup_bench.py gpt2 [--device cuda] [--target t4] [--steps 3] [--plain]

One model per process, so the peak is that model's alone: on a CPU the process's peak resident memory (ru_maxrss),
on a GPU torch.cuda.max_memory_allocated. --plain measures the plain step instead of the check-up. Prints one JSON line.
"""
import argparse
import json
import resource
import time

import torch
from transformers import (
    BertConfig,
    BertForMaskedLM,
    GPT2Config,
    GPT2LMHeadModel,
    ResNetConfig,
    ResNetForImageClassification,
)
from transformers.utils import logging

from mishran.checkup.run import checkup
from mishran.timer import sync


def build(name: str):
    torch.manual_seed(0)
    if name == "gpt2":
        ids = torch.randint(0, 50257, (2, 128))
        return GPT2LMHeadModel(GPT2Config()), {"input_ids": ids, "labels": ids}
    if name == "bert":
        ids = torch.randint(0, 30522, (2, 128))
        return BertForMaskedLM(BertConfig()), {"input_ids": ids, "labels": ids}
    config = ResNetConfig(depths=[2, 2, 2, 2], layer_type="basic", hidden_sizes=[64, 128, 256, 512], num_labels=1000)
    return ResNetForImageClassification(config), {"pixel_values": torch.randn(8, 3, 224, 224),
                                                   "labels": torch.randint(0, 1000, (8,))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=["gpt2", "bert", "resnet18"])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--target", default=None)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--plain", action="store_true")
    args = parser.parse_args()
    logging.set_verbosity_error()
    model, batch = build(args.model)
    model = model.to(args.device).train()
    batch = {k: v.to(args.device) for k, v in batch.items()}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    sync(args.device)
    start = time.perf_counter()
    record = {"model": args.model, "device": args.device, "what": "plain" if args.plain else "checkup",
              "params_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 1)}
    if args.plain:
        opt = torch.optim.AdamW(model.parameters())
        model(**batch).loss.backward()
        opt.step()
    else:
        report = checkup(model, batch, target=args.target, steps=args.steps)
        record.update(target=report.target, recommended=report.recommended_precision,
                      init_scale=report.loss_scale.init_scale, keep_fp32=report.keep_fp32,
                      underflow_params_fp16=len(report.underflow_params["fp16"]),
                      step_ms={c.precision: c.step_seconds and round(c.step_seconds * 1e3, 1) for c in report.costs})
    sync(args.device)
    record["seconds"] = round(time.perf_counter() - start, 2)
    record["rss_before_gib"] = round(before, 3)
    record["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3)
    if args.device == "cuda":
        record["peak_cuda_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 3)
        record["gpu"] = torch.cuda.get_device_name()
    print(json.dumps(record, ensure_ascii=False))


if __name__ == "__main__":
    main()
