"""একই যন্ত্রে কয়েকটি process-এর একটি gloo group: চালু করা, কাজ করানো, ঠিকভাবে বন্ধ করা (পাঠ ০৪ আর ০৯-এর ডেমো)।

    report = run_workers(work, world=2, args=(steps, micro))    # work(rank, world, steps, micro) → rank 0-এর dict

mishran.engines.ddp (পাঠ ০৪) আর mishran.engines.fsdp (পাঠ ০৯) দুটোই এভাবে চলে। কঠিন অংশগুলো:
- TCPStore (MASTER_PORT-এর ঠিকানা-বই) চালায় parent, port 0 দিয়ে: port নিজেই বেছে নেয় আর ধরে রাখে, তাই
  "খালি port খুঁজে ছেড়ে দেওয়া" আর store-এর তা ধরার মাঝে অন্য কেউ port নিতে পারে না।
- সব process এক মেশিনে, তাই gloo কথা বলে loopback-এ (নইলে কিছু container-এ connectFullMesh failed)।
- শেষের ক্রম: barrier → destroy_process_group() → os._exit(0)। DDP process group-এর reference রেখে দেয়, তাই gloo-র
  thread বেঁচে থাকে; স্বাভাবিক interpreter shutdown তাদের সঙ্গে পাল্লা দিয়ে কখনো কখনো SIGABRT-এ মরত
  (`terminate called without an active exception`)। os._exit সেই shutdown-টাই এড়ায়।
- process group চালু না হলে বা কোনো worker মরে গেলে একবার নতুন store আর port নিয়ে আবার চেষ্টা ("attempts")।
"""
from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from mishran.timer import mark, seconds_between

__all__ = ["STORE_TIMEOUT", "run_workers", "free_port"]


STORE_TIMEOUT = timedelta(seconds=120)
"""ব্যস্ত যন্ত্রে process-গুলোর দেখা হতে যতক্ষণ অপেক্ষা।"""


def _use_loopback() -> None:
    """সব process এক মেশিনে: gloo loopback-এই কথা বলুক।"""
    if "GLOO_SOCKET_IFNAME" not in os.environ and hasattr(socket, "if_nameindex"):
        names = [name for _, name in socket.if_nameindex()]
        loopback = next((n for n in ("lo", "lo0") if n in names), None)
        if loopback:
            os.environ["GLOO_SOCKET_IFNAME"] = loopback


def _worker(rank: int, world: int, port: int, work, args: tuple, out_path: Path):
    _use_loopback()
    torch.set_num_threads(1)                 # কয়েকটি process, অল্প core: একে অপরের সঙ্গে কাড়াকাড়ি নয়
    store = dist.TCPStore("127.0.0.1", port, world_size=world, is_master=False, timeout=STORE_TIMEOUT)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=STORE_TIMEOUT)
    try:
        report = work(rank, world, *args)
        if rank == 0:
            out_path.write_text(json.dumps(report), encoding="utf-8")
        dist.barrier()                       # rank 0 ফল লিখে ফেলেছে; সবাই একসঙ্গে শেষ করি
    finally:
        dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)                              # interpreter shutdown ছাড়াই (ওপরের docstring দেখো)


def run_workers(work, world: int, args: tuple = ()) -> dict:
    """world টি gloo process-এ work(rank, world, *args) চালায়; rank 0 যা ফেরত দেয় (JSON-যোগ্য dict), সেটাই ফেরত,
    সঙ্গে "attempts" আর "seconds" (পাঠ ০৪, ০৯)। work module-এর শীর্ষ স্তরের ফাংশন (নতুন process-এ pickle হয়)।"""
    start = mark("cpu")
    for attempt in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            out_path = Path(tmp) / "result.json"
            store = dist.TCPStore("127.0.0.1", 0, world_size=None, is_master=True, wait_for_workers=False,
                                  timeout=STORE_TIMEOUT)
            try:
                mp.spawn(_worker, args=(world, store.port, work, args, out_path), nprocs=world, join=True)
            except Exception as err:
                if attempt == 2:
                    raise
                print(f"process group চালু হয়নি বা একটি process মরে গেছে ({type(err).__name__}: "
                      f"{str(err)[-300:]}); নতুন port-এ আরেকবার।", file=sys.stderr)
                continue
            finally:
                del store
            report = json.loads(out_path.read_text(encoding="utf-8"))
            break
    return {**report, "attempts": attempt, "seconds": round(seconds_between(start, mark("cpu")), 2)}


def free_port() -> int:
    """এই যন্ত্রের একটি খালি TCP port, MASTER_PORT-এর জন্য (পাঠ ০৪-এর DDP ডেমো, পাঠ ০৫-এর DeepSpeed)।"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
