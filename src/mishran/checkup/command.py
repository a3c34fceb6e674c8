"""`python -m mishran.checkup package.module:make_model --batch package.module:make_batch [--target t4]
[--out report.json]` — মডেলের precision check-up, command line থেকে (পাঠ ১০)।

make_model() একটি nn.Module, make_batch() একটি batch ফেরত দেয় (tensor, tuple বা dict); --loss দিলে loss_fn-ও একই
ধাঁচে (module:function, যেমন torch.nn.functional:cross_entropy) — class দিলে (যেমন torch.nn:CrossEntropyLoss) তার
বস্তু বানানো হয়, যেমন make_model-এর class থেকে মডেল। ভুল flag, না-পাওয়া module বা function, আর check-up-এর নিজের
ভুল (ValueError, TypeError, RuntimeError) → এক লাইনের বাংলা বার্তা আর exit status 2, traceback নয়।
"""
from __future__ import annotations

import argparse
import importlib

import torch

from mishran import cli
from mishran.checkup.run import checkup
from mishran.checkup.target import TARGETS

__all__ = ["factory", "main"]


def factory(text: str):
    """'package.module:function' → সেই function; না পেলে বাংলা + ইংরেজি বার্তায় ValueError (পাঠ ১০)।

    parse_args-এর পরে পড়া হয় (argparse-এর type হিসেবে নয়), যাতে --help বা ভুল flag কোনো module import না করে।
    """
    module_name, _, attr = text.partition(":")
    if not module_name or not attr:
        raise ValueError(f"'{text}' চলবে না: লেখো package.module:function (expected module:function)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"module '{module_name}' পাওয়া গেল না (module not found): {err} — ফাইলটি কি এই ফোল্ডারে, "
                         "বা PYTHONPATH-এ?") from None
    found = getattr(module, attr, None)
    if not callable(found):
        raise ValueError(f"'{module_name}'-এ '{attr}' নামের কোনো function নেই (no such function)")
    return found


def _parser() -> argparse.ArgumentParser:
    # --batch লাগবেই, কিন্তু argparse-এর required=True-র ভুলবার্তা ইংরেজিতে: তাই usage-এ নিজে লেখা, যাচাই main()-এ
    parser = argparse.ArgumentParser(
        prog="python -m mishran.checkup", description="মডেলের precision check-up",
        usage="%(prog)s model --batch BATCH [--loss LOSS] [--target TARGET] [--device {cpu,cuda}] [--steps STEPS] "
              "[--out OUT]")
    parser.add_argument("model", help="package.module:make_model — nn.Module ফেরত দেয় (function বা class)")
    parser.add_argument("--batch", default=None, help="package.module:make_batch — batch ফেরত দেয় (লাগবেই)")
    parser.add_argument("--loss", default=None, help="package.module:loss_fn, যেমন torch.nn.functional:cross_entropy; "
                        "class দিলে তার বস্তু বানানো হয় (না দিলে: মডেলের output-এর loss)")
    parser.add_argument("--target", type=str.lower, choices=list(TARGETS), default=None,
                        help="পরামর্শ কোন যন্ত্রের জন্য (না দিলে: এই যন্ত্র)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default=None, help="মডেল আর batch এখানে সরানো হয়")
    parser.add_argument("--steps", type=cli.non_negative_int, default=3,
                        help="সময় মাপার step-এর সংখ্যা; 0: সময় মাপা হয় না, শুধু সংখ্যার পরীক্ষা")
    parser.add_argument("--out", default=None, help="JSON ফাইল ('-': পর্দায়)")
    return parser


def main(argv=None) -> None:
    """command line পড়ে check-up চালায়, পরামর্শ ছাপে, আর --out দিলে JSON লেখে (পাঠ ১০)।"""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.batch is None:
        parser.error("--batch দাও (--batch is required): package.module:make_batch, যা মডেলের batch ফেরত দেয়")
    try:
        model, batch, loss_fn = _build(args)
        report = checkup(model, batch, loss_fn=loss_fn, target=args.target, steps=args.steps)
    except (ValueError, TypeError) as err:
        parser.error(" ".join(str(err).split()))
    except RuntimeError as err:            # torch-এর নিজের ভুল, বাংলা ছাড়া: কোথায় হলো তা বলে এক লাইনে
        parser.error("check-up চলল না (check-up failed): " + " ".join(f"{type(err).__name__}: {err}".split()))
    print(report.advice)
    cli.write_record(report, args.out)


def _build(args):
    """flag-গুলো থেকে মডেল, batch আর loss_fn; learner-এর factory নিজে ভাঙলে সেটাও এক লাইনের ValueError।"""
    made = []
    for text in (args.model, args.batch):
        make = factory(text)
        try:
            made.append(make())
        except Exception as err:  # noqa: BLE001 — শিক্ষার্থীর কোডের যেকোনো ভুল, এক লাইনে
            raise ValueError(f"{text}() চলল না (failed): {type(err).__name__}: {err}") from err
    model, batch = made
    if args.device == "cuda" and not torch.cuda.is_available():
        raise ValueError("এখানে CUDA GPU নেই (CUDA is not available): --device cpu দাও, বা --device বাদ দাও")
    if args.device:
        model, batch = model.to(args.device), _to(batch, args.device)
    return model, batch, _loss(args.loss) if args.loss else None


def _loss(text: str):
    """--loss: function হলে সেটাই; class হলে (torch.nn:CrossEntropyLoss) তার বস্তু, argument ছাড়া বানানো।"""
    found = factory(text)
    if not isinstance(found, type):
        return found
    try:
        return found()
    except Exception as err:  # noqa: BLE001 — শিক্ষার্থীর class-এর যেকোনো ভুল, এক লাইনে
        raise ValueError(f"--loss {text}: class-টির বস্তু argument ছাড়া বানানো গেল না (failed to instantiate): "
                         f"{type(err).__name__}: {err} — এমন function দাও যা (output, target) থেকে loss দেয়") from err


def _to(batch, device):
    if isinstance(batch, dict):
        return {k: _to(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to(v, device) for v in batch)
    return batch.to(device) if hasattr(batch, "to") else batch
