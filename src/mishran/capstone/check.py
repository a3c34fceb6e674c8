"""পাঠ ০৮ (capstone): `python -m mishran.capstone --out`-এর লেখা run-এর JSON পড়ে মূল্যায়নের মাপা যায় এমন অংশে
নম্বর দেয়, বাংলায় — শিক্ষকের নির্দেশিকার সমাপনী প্রকল্পের সারণির নিয়মে।

    python -m mishran.capstone.check fp32_s0.json bf16_s0.json fp32_s1.json bf16_s1.json resumed.json

যা মাপে: held-out bpc bigram-এর চেয়ে কম কি না; FP32 বনাম ১৬-বিটের পার্থক্য দুই seed-এর পার্থক্যের (run-ভেদ,
noise) তুলনায় কত; resume করা run, যে run তার checkpoint লিখেছিল তার সঙ্গে, বিটে বিটে মেলে কি না, নিজের config-এ।
বাকি নম্বর শিক্ষকের। শুধু standard library: torch বা GPU লাগে না।

প্রতিটি run নিজের JSON-এ একটি digest লেখে (বাকি সব ঘরের sha256), আর checkpoint লিখলে বা পড়লে সেই ফাইলেরও sha256।
digest না মিললে (হাতে বদলানো ফাইল, বা digest-এর আগের সংস্করণের লেখা) run-টি কোনো নম্বরে ধরা হয় না; resume-এর জোড়া
ঠিক হয় checkpoint-এর sha256 দিয়ে, একই সুইচের প্রথম run দিয়ে নয়। digest গোপন চাবি নয়: এই ফাইল পড়ে কেউ নতুন digest
হিসাব করে নিতে পারে — তাই এটা হাতে বদলানো ধরে, জেনেশুনে জাল করা নয় (docs/teachers_guide.md বলে তখন কী করবেন)।
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["REQUIRED", "NOTEBOOK_RESUME_CELL", "CheckError", "Run", "Part", "record_digest", "file_sha256",
           "load_run", "finished", "score_bigram", "score_precision", "score_resume", "check_runs", "report", "main"]

# training.run যা সবসময় লেখে, আর এই যাচাই যা পড়ে
REQUIRED = ("config", "precision", "engine", "global_batch", "start_step", "losses", "curve", "heldout_bpc",
            "bigram_bpc")
CONFIG_REQUIRED = ("size", "precision", "micro_batch", "accumulation_steps", "steps", "lr", "dropout", "seed")

# পাঠ ০৮-এর অংশ ৮-এর CPU ঘরের resume, অপরিবর্তিত: এটা দেখানো নিজের config-এ resume নয়
NOTEBOOK_RESUME_CELL = {"size": "tiny", "precision": "fp32", "micro_batch": 4, "accumulation_steps": 2,
                        "steps": 12, "dropout": 0.1}

# সারণির নম্বর: প্রতিটি অংশে মাপা যায় যতটুকু (বাকিটা শিক্ষকের)
BIGRAM_POINTS, PRECISION_POINTS, RESUME_POINTS = 20, 12, 12
RESUME_OTHER_CONFIG = 8
PRECISION_LEVELS = {"both_two_seeds": 12, "one_two_seeds": 9, "one_seed": 6, "other_budget": 3}
SIXTEEN_BIT = ("bf16", "fp16")


class CheckError(ValueError):
    """ফাইলটি পড়া গেল না বা capstone-এর run নয়; বার্তা বাংলায়, কী করতে হবে সহ (পাঠ ০৮)।"""


@dataclass
class Run:
    """একটি run-এর ফাইলের নাম আর তার JSON (পাঠ ০৮)।"""

    name: str
    data: dict

    @property
    def config(self) -> dict:
        """run-এর সুইচগুলো (CapstoneConfig, dict হিসেবে)।"""
        return self.data["config"]

    @property
    def resumed(self) -> bool:
        """checkpoint থেকে চালু হওয়া run কি না।"""
        return bool(self.config.get("resume_from")) and self.data["start_step"] > 0

    @property
    def bpc(self) -> float:
        """শেষ held-out bpc।"""
        return self.data["heldout_bpc"]

    @property
    def verified(self) -> bool:
        """ফাইলের digest তার বাকি ঘরগুলোর সঙ্গে মেলে: run যা লিখেছিল, ফাইলটা তা-ই।"""
        return self.data.get("digest") == record_digest(self.data)


@dataclass
class Part:
    """মূল্যায়নের একটি সারি: শিরোনাম, মাপা নম্বর, মাপা যায় এমন সর্বোচ্চ, সারির মোট, আর কারণের লাইনগুলো (পাঠ ০৮)।"""

    title: str
    points: int
    measurable: int
    row_total: int
    lines: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- digest

def record_digest(data: dict) -> str:
    """run-এর JSON-এর 'digest' ছাড়া বাকি সব ঘরের sha256, ঘরের নামের ক্রমে (পাঠ ০৮)। training-এর to_dict() এটা
    লেখে, এই যাচাই আবার হিসাব করে মেলায়; একটি সংখ্যা বদলালেও মেলে না।"""
    body = {k: v for k, v in data.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path) -> str:
    """একটি ফাইলের (যেমন checkpoint-এর) sha256 (পাঠ ০৮)।"""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- পড়া

def load_run(path) -> Run:
    """একটি `--out` JSON পড়ে যাচাই করে; ভুল হলে CheckError, বাংলায় (পাঠ ০৮)।"""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CheckError(f"{path}: ফাইল পাওয়া গেল না (file not found); পথটা আবার দেখো।") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CheckError(f"{path}: ফাইল পড়া গেল না (cannot read: {err}); `--out`-এর লেখা JSON ফাইল দাও।") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CheckError(f"{path}: এটা JSON নয় (not a JSON file: line {err.lineno}); "
                         "`python -m mishran.capstone ... --out run.json`-এর লেখা ফাইল দাও।") from None
    if not isinstance(data, dict):
        raise CheckError(f"{path}: JSON-এর ভেতরে একটি object ({{...}}) চাই, পেয়েছি {type(data).__name__} "
                         "(not a run record); `--out`-এর লেখা ফাইল দাও।")
    _require(path, data, REQUIRED, "")
    if not isinstance(data["config"], dict) or not isinstance(data["losses"], list) \
            or not isinstance(data["start_step"], int):
        raise CheckError(f"{path}: 'config' একটি object, 'losses' একটি list আর 'start_step' পূর্ণসংখ্যা হওয়ার কথা "
                         "(malformed run); ফাইলটি হাতে বদলানো হয়নি তো? run-টা আবার চালাও।")
    _require(path, data["config"], CONFIG_REQUIRED, "config.")
    return Run(path.name, data)


def _require(path, data: dict, keys, prefix: str) -> None:
    missing = [prefix + k for k in keys if k not in data]
    if missing:
        raise CheckError(f"{path}: দরকারি ঘর নেই (missing fields): {', '.join(missing)}; এটা কি "
                         "`python -m mishran.capstone --out`-এর লেখা ফাইল? না হলে run-টা --out দিয়ে আবার চালাও।")


def finished(run: Run) -> bool:
    """run শেষ step পর্যন্ত চলেছে আর তার held-out bpc একটি সসীম সংখ্যা (পাঠ ০৮)।"""
    done = run.data["start_step"] + len(run.data["losses"]) == run.config["steps"]
    bpc = run.data["heldout_bpc"]
    return done and isinstance(bpc, (int, float)) and math.isfinite(bpc)


# ---------------------------------------------------------------- ১. bigram-কে হারানো

def score_bigram(runs: list[Run]) -> Part:
    """সবচেয়ে ভালো শেষ-হওয়া run-এর held-out bpc bigram-এর চেয়ে কম হলে পুরো নম্বর (পাঠ ০৮)।"""
    part = Part("bigram-কে হারানো", 0, BIGRAM_POINTS, 20)
    main_runs = [r for r in runs if finished(r) and not r.resumed and r.verified]
    if not main_runs:
        part.lines.append("শেষ-হওয়া কোনো run নেই (resume করা run বাদে), তাই মাপার কিছু নেই।")
        return part
    best = min(main_runs, key=lambda r: r.bpc)
    margin = best.data["bigram_bpc"] - best.bpc
    head = f"সবচেয়ে ভালো run {best.name}: held-out bpc {best.bpc:.3f}, bigram {best.data['bigram_bpc']:.3f} — "
    if margin > 0:
        part.points = BIGRAM_POINTS
        part.lines.append(f"{head}bigram-এর চেয়ে {margin:.3f} bpc কম।")
    else:
        part.lines += [f"{head}এখনো {-margin:.3f} bpc পিছিয়ে।",
                       "না হারালে কারণ (ছোট মডেল, অল্প step) সংখ্যা দিয়ে বলতে পারলে শিক্ষক ১০ দিতে পারেন।"]
    return part


# ---------------------------------------------------------------- ২. FP32 বনাম ১৬-বিট, run-ভেদের তুলনায়

def _budget(run: Run) -> tuple:
    """একই বাজেট মানে একই যন্ত্র, মডেল, step, global batch, শেখার হার, dropout, engine আর মাপার অংশ।"""
    c = run.config
    return (run.data.get("device"), c["size"], c["steps"], run.data["global_batch"], c["lr"], c["dropout"],
            run.data["engine"], c.get("eval_chars"))


def _by_seed(runs: list[Run], precision: str) -> dict[int, float]:
    return {r.config["seed"]: r.bpc for r in runs if r.data["precision"] == precision}


def _spread(bpcs: dict[int, float]) -> float | None:
    return max(bpcs.values()) - min(bpcs.values()) if len(bpcs) >= 2 else None


def _compare(group: list[Run], mixed: str) -> tuple[int, list[str]]:
    """এক বাজেটের run-গুলোয় FP32 বনাম `mixed`: নকশার নম্বর আর ফলের লাইন।"""
    full, half = _by_seed(group, "fp32"), _by_seed(group, mixed)
    shared = sorted(set(full) & set(half))
    if not shared:
        return PRECISION_LEVELS["other_budget"], [f"fp32 আর {mixed} আছে, কিন্তু কোনো seed দুটোতে এক নয়।"]
    seed = shared[0]
    gap = abs(full[seed] - half[seed])
    noise = {p: _spread(b) for p, b in (("fp32", full), (mixed, half)) if _spread(b) is not None}
    lines = [f"একই বাজেট আর seed {seed}-এ: fp32 {full[seed]:.4f}, {mixed} {half[seed]:.4f} — "
             f"precision-এর পার্থক্য {gap:.4f} bpc।"]
    if not noise:
        lines.append("দ্বিতীয় seed নেই, তাই run-ভেদ মাপা হয়নি: পার্থক্যটা আসল না noise, বলা যায় না।")
        return PRECISION_LEVELS["one_seed"], lines
    lines += [f"দুই seed-এর পার্থক্য (run-ভেদ): {', '.join(f'{p} {v:.4f}' for p, v in noise.items())} bpc।",
              _verdict(gap, max(noise.values()))]
    if len(noise) == 2:
        return PRECISION_LEVELS["both_two_seeds"], lines
    return PRECISION_LEVELS["one_two_seeds"], [*lines, "অন্য precision-এও দ্বিতীয় seed চালালে run-ভেদের মাপ পাকা হয়।"]


def _verdict(gap: float, noise: float) -> str:
    ratio = gap / noise if noise > 0 else math.inf
    words = ("run-ভেদের মধ্যে — precision-এর আলাদা প্রভাব এই মাপে দেখা যায় না।" if ratio <= 1 else
             "সীমানায় — আরও seed চালিয়ে দেখা দরকার।" if ratio <= 2 else
             "run-ভেদের চেয়ে অনেক বড় — আসল পার্থক্য হতে পারে; কারণ খোঁজো (FP16-এ বাদ-পড়া ধাপ, loss scale, "
             "অল্প step-এ রেখা তখনো খাড়া)।")
    return f"পার্থক্য ÷ run-ভেদ = {'∞' if math.isinf(ratio) else f'{ratio:.1f}'}: {words}"


def score_precision(runs: list[Run]) -> Part:
    """FP32 বনাম ১৬-বিট: একই বাজেট, একই seed, আর দুই seed দিয়ে মাপা run-ভেদ; নকশার নম্বর (পাঠ ০৮)।"""
    part = Part("FP32 বনাম mixed precision", 0, PRECISION_POINTS, 20)
    main_runs = [r for r in runs if finished(r) and not r.resumed and r.verified]
    precisions = {r.data["precision"] for r in main_runs}
    mixed = [p for p in SIXTEEN_BIT if p in precisions]
    if "fp32" not in precisions or not mixed:
        part.lines.append(f"তুলনার জন্য fp32 আর একটি ১৬-বিট (bf16/fp16) run চাই; পেয়েছি: "
                          f"{', '.join(sorted(precisions)) or 'কিছুই না'}।")
        return part
    groups: dict[tuple, list[Run]] = {}
    for run in main_runs:
        groups.setdefault(_budget(run), []).append(run)
    best = (PRECISION_LEVELS["other_budget"],
            ["fp32 আর ১৬-বিট run আছে, কিন্তু একই বাজেটে নয় (যন্ত্র, size, step, global batch, lr, dropout, "
             "engine বা মাপার অংশ আলাদা) — তুলনাটা ন্যায্য নয়।"])
    for group in groups.values():
        for precision in mixed:
            if {"fp32", precision} <= {r.data["precision"] for r in group}:
                best = max(best, _compare(group, precision), key=lambda pair: pair[0])
    part.points, part.lines = best[0], list(best[1])
    part.lines.append("সময় আর মেমরির লাভ সংখ্যায়, আর সিদ্ধান্তটা এই অনুপাত থেকে কি না — শিক্ষক দেখবেন (৮ নম্বর)।")
    return part


# ---------------------------------------------------------------- ৩. হুবহু resume

KNOBS = ("size", "precision", "micro_batch", "accumulation_steps", "lr", "dropout", "seed", "zero_stage")
OWN = KNOBS[:6]                # নিজের config: seed আর zero_stage ছাড়া


def _knobs(run: Run, keys=KNOBS) -> tuple:
    return tuple(run.config.get(k) for k in keys)


def _writer(resumed: Run, runs: list[Run]) -> Run | None:
    """যে run resume-এর checkpoint-টা লিখেছিল (তার checkpoint_sha256 = resume-এর resumed_from_sha256), digest মেলে এমন।"""
    digest = resumed.data.get("resumed_from_sha256")
    for run in runs:
        if run is not resumed and run.verified and digest and run.data.get("checkpoint_sha256") == digest:
            return run
    return None


def _writer_problem(resumed: Run, writer: Run | None) -> str | None:
    """জোড়া তুলনার যোগ্য না হলে কারণ (বাংলায়), নইলে None।"""
    if not resumed.verified:
        return (f"{resumed.name}: digest মেলে না — ফাইলটা run-এর লেখার পরে বদলেছে (বা digest-এর আগের সংস্করণের "
                "লেখা); resume-এর জোড়া আবার চালিয়ে নতুন JSON দাও।")
    if writer is None:
        return (f"{resumed.name}: যে run এর checkpoint লিখেছিল, তাকে পেলাম না (কোনো JSON-এর checkpoint_sha256 এর "
                "resumed_from_sha256-এর সঙ্গে মেলে না); `--checkpoint ck.pt --save-at N` দিয়ে চলা run-এর JSON-ও দাও।")
    need = resumed.data["start_step"] + len(resumed.data["losses"])
    if writer.data["start_step"] != 0 or len(writer.data["losses"]) < need:
        return (f"{resumed.name}: checkpoint-এর লেখক {writer.name} resume-এর শেষ step ({need}) পর্যন্ত চলেনি; "
                "পুরো একটানা run-এর JSON দাও।")
    return None


def _is_notebook_cell(run: Run) -> bool:
    return all(run.config.get(k) == v for k, v in NOTEBOOK_RESUME_CELL.items())


def _own_config(run: Run, runs: list[Run]) -> bool:
    """resume-এর config শিক্ষার্থীর অন্য কোনো (resume-এর জোড়া নয় এমন) run-এর সুইচের সঙ্গে মেলে কি না।"""
    return any(_knobs(r, OWN) == _knobs(run, OWN) for r in runs
               if not r.resumed and not r.config.get("checkpoint_path") and r.verified)


def score_resume(runs: list[Run]) -> Part:
    """resume করা run-এর প্রতিটি loss একটানা run-এর সঙ্গে বিটে বিটে এক কি না, আর তা নিজের config-এ কি না (পাঠ ০৮)।"""
    part = Part("হুবহু resume", 0, RESUME_POINTS, 15)
    resumed = [r for r in runs if r.resumed]
    if not resumed:
        part.lines.append("resume করা কোনো run নেই (config.resume_from আর start_step > 0): "
                          "`--checkpoint ck.pt --save-at N` দিয়ে একটানা run, তারপর `--resume ck.pt` দিয়ে নতুন run চালাও।")
        return part
    for run in resumed:
        writer = _writer(run, runs)
        problem = _writer_problem(run, writer)
        if problem:
            part.lines.append(problem)
            continue
        part.points = max(part.points, _score_pair(run, writer, runs, part.lines))
    part.lines.append("checkpoint-এ কী কী রাখতে হয় (মডেল, optimizer, scaler, step, random অবস্থা), লেখায় বলা আছে কি না "
                      "— শিক্ষক দেখবেন (৩ নম্বর)।")
    return part


def _score_pair(run: Run, partner: Run, runs: list[Run], lines: list[str]) -> int:
    start = run.data["start_step"]
    before = partner.data["losses"][start:start + len(run.data["losses"])]
    diffs = [abs(a - b) for a, b in zip(before, run.data["losses"], strict=True)]
    if before != run.data["losses"]:
        lines.append(f"{run.name} বনাম {partner.name}: step {start} থেকে {len(diffs)}টি loss, হুবহু এক নয় — "
                     f"সবচেয়ে বড় পার্থক্য {max(diffs):.3g}। GPU-তে `--deterministic` দিয়ে আবার চালাও; "
                     "কারণ খুঁজে বলতে পারলে শিক্ষক ৫ দিতে পারেন।")
        return 0
    lines.append(f"{run.name} বনাম {partner.name} (যে run checkpoint-টা লিখেছিল): step {start} থেকে {len(diffs)}টি "
                 "loss বিটে বিটে এক।")
    if _is_notebook_cell(run):
        lines.append("কিন্তু এটা পাঠের অংশ ৮-এর CPU ঘরের config, অপরিবর্তিত — নিজের config-এ resume চাই।")
        return RESUME_OTHER_CONFIG
    if not _own_config(run, runs):
        lines.append("কিন্তু config তোমার অন্য কোনো run-এর সঙ্গে মেলে না — নিজের মূল config-এ resume চাই "
                     "(size, precision, micro-batch, accumulation, lr, dropout একই)।")
        return RESUME_OTHER_CONFIG
    lines.append("config তোমার নিজের অন্য run-এর সঙ্গে মেলে।")
    return RESUME_POINTS


# ---------------------------------------------------------------- সব মিলিয়ে

def check_runs(runs: list[Run]) -> list[Part]:
    """তিনটি মাপা সারি: bigram, FP32 বনাম ১৬-বিট, resume (পাঠ ০৮)।"""
    return [score_bigram(runs), score_precision(runs), score_resume(runs)]


def _run_line(run: Run) -> str:
    c, d = run.config, run.data
    state = "শেষ হয়েছে" if finished(run) else \
        f"শেষ হয়নি ({d['start_step'] + len(d['losses'])}/{c['steps']} step) — মূল্যায়নে ধরা হলো না"
    if not run.verified:
        state = ("digest মেলে না (হাতে বদলানো, বা digest-এর আগের সংস্করণের লেখা; not verified) — মূল্যায়নে ধরা "
                 "হলো না")
    bpc = f"{d['heldout_bpc']:.3f}" if isinstance(d["heldout_bpc"], (int, float)) else "—"
    extra = f", resume: step {d['start_step']} থেকে" if run.resumed else ""
    return (f"  {run.name}: {d['engine']}, {d['precision']}, seed {c['seed']}, size {c['size']}, "
            f"{c['steps']} step, global batch {d['global_batch']}{extra} — {state}; held-out bpc {bpc} "
            f"(bigram {d['bigram_bpc']:.3f})")


def report(runs: list[Run], parts: list[Part] | None = None) -> str:
    """বাংলায় পুরো প্রতিবেদন: প্রতিটি run, প্রতিটি মাপা সারির নম্বর আর কারণ, আর মোট (পাঠ ০৮)।"""
    parts = check_runs(runs) if parts is None else parts
    out = ["মিশ্রণ পাঠ ০৮ — সমাপনী প্রকল্পের মাপা অংশ", "", "run-গুলো:", *(_run_line(r) for r in runs), ""]
    for i, part in enumerate(parts, 1):
        out.append(f"{i}. {part.title}: {part.points}/{part.measurable} "
                   f"(সারির {part.row_total} নম্বরের মধ্যে মাপা যায় {part.measurable})")
        out += [f"   - {line}" for line in part.lines]
    got, most = sum(p.points for p in parts), sum(p.measurable for p in parts)
    out += ["", f"মাপা অংশে মোট: {got}/{most}। বাকি {100 - most} নম্বর (ব্যাচ আর মেমরির পরিকল্পনা, মাপার সততা, "
                "নমুনা পড়া, ব্যাখ্যার ভাষা, আর ওপরের সারিগুলোর ব্যাখ্যার অংশ) শিক্ষকের বিচারে।"]
    return "\n".join(out)


def main(argv=None) -> int:
    """কমান্ড লাইন: ফাইলগুলো পড়ে প্রতিবেদন ছাপে; ভুল ফাইলে বাংলা বার্তা আর exit code 2 (পাঠ ০৮)।"""
    p = argparse.ArgumentParser(prog="python -m mishran.capstone.check",
                                description="মিশ্রণ পাঠ ০৮: capstone-এর --out JSON থেকে মূল্যায়নের মাপা অংশ")
    p.add_argument("runs", nargs="+", help="`python -m mishran.capstone --out`-এর লেখা JSON ফাইল")
    args = p.parse_args(argv)
    try:
        runs = [load_run(path) for path in args.runs]
    except CheckError as err:
        print(f"ভুল: {err}", file=sys.stderr)
        return 2
    print(report(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
