"""এই মেশিন কী পারে: ডিভাইস, compute capability, FP16/BF16/TF32/FP8, Colab কি না (পাঠ ০০)।

পাঠগুলো torch.cuda সরাসরি জিজ্ঞেস না করে এখানকার supports(), use_tf32(), gpu_capability(), device_name() ডাকে;
capability → feature-এর নিয়ম আলাদা (capability_features), যাতে T4, V100, A100, H100 ছাড়াই test করা যায়।

অনুকরণ (simulation): MISHRAN_SIMULATE_CC=7.5 দিলে সব সিদ্ধান্ত এমনভাবে চলে যেন GPU-টি sm_75 (Colab-এর T4), হিসাব
চলে আসল GPU-তেই — T4-এর পথ পরীক্ষা করতে আর দেখাতে। শুধু সমান বা পুরোনো GPU-র অনুকরণ চলে। সেই GPU যা পারে না এমন
পথ ধরার পাহারা mishran.older_gpu_guard-এ; এই মডিউল সেটি import করে না।
"""
from __future__ import annotations

import importlib.util
import os
import platform
import re
from dataclasses import dataclass, field

import torch

from mishran.checks import device_type
from mishran.versions import package_version

__all__ = ["PEAK_TFLOPS", "PEAK_SOURCE", "peak_tflops", "FEATURES", "SIMULATE_ENV", "DeviceReport",
           "capability_features", "default_device", "device_name", "device_report", "gpu_capability", "is_colab",
           "simulated_capability", "supports", "use_tf32"]

SIMULATE_ENV = "MISHRAN_SIMULATE_CC"
FEATURES = {"fp16_tensor_cores": (7, 0), "bf16": (8, 0), "tf32": (8, 0), "fp8": (8, 9), "sparsity_2_4": (8, 0)}
"""hardware-এর feature → যে NVIDIA compute capability থেকে আছে (পাঠ ০০): FP16 tensor core Volta sm_70 থেকে; BF16, TF32
আর 2:4 sparsity Ampere sm_80 থেকে; FP8 Ada sm_89 ও Hopper sm_90 থেকে।"""


def capability_features(capability) -> dict:
    """compute capability (major, minor) থেকে কোন feature hardware-এ আছে (পাঠ ০০): {feature: True/False}।"""
    return {name: tuple(capability) >= since for name, since in FEATURES.items()}


def simulated_capability() -> tuple | None:
    """MISHRAN_SIMULATE_CC (যেমন "7.5") থেকে (7, 5); না থাকলে None। ভুল লেখা হলে স্পষ্ট ValueError।"""
    raw = os.environ.get(SIMULATE_ENV, "").strip()
    if not raw:
        return None
    found = re.fullmatch(r"(?:sm_)?(\d+)\.(\d+)|sm_(\d)(\d)", raw)         # 7.5, sm_7.5 বা sm_75
    if found is None:
        raise ValueError(f"{SIMULATE_ENV}={raw!r} বোঝা গেল না (cannot parse); লেখো major.minor, যেমন "
                         f"{SIMULATE_ENV}=7.5 (T4) বা 7.0 (V100)")
    major, minor = (int(g) for g in found.groups() if g is not None)
    return (major, minor)


def gpu_capability() -> tuple | None:
    """যে capability মেনে কোর্স চলে: অনুকরণ চালু থাকলে সেটি (GPU ছাড়াও, যাতে CPU-তে সিদ্ধান্তগুলো দেখা যায়), নইলে
    প্রথম GPU-র আসলটি; GPU না থাকলে None।"""
    sim = simulated_capability()
    real = tuple(torch.cuda.get_device_capability(0)) if torch.cuda.is_available() else None
    if sim is not None and real is not None and sim > real:
        raise ValueError(f"{SIMULATE_ENV}={sim[0]}.{sim[1]} আসল GPU-র (sm_{real[0]}{real[1]}) চেয়ে নতুন; "
                         "শুধু সমান বা পুরোনো GPU-র অনুকরণ চলে (can only simulate an older GPU)")
    return sim or real


def supports(feature: str, device: str | None = None) -> bool:
    """এই ডিভাইসের hardware-এ feature (FEATURES-এর একটি) আছে কি না (পাঠ ০০)।

    GPU-তে capability দেখে (অনুকরণ মেনে) — torch.cuda.is_bf16_supported() নয়, যে T4-এও True বলে (emulation গোনে)।
    CPU-তে শুধু 'bf16' হতে পারে True (AVX512-BF16/AMX নির্দেশ থাকলে)।
    """
    if not isinstance(feature, str) or feature not in FEATURES:
        raise ValueError(f"অচেনা feature {feature!r} (unknown feature); চেনা: {', '.join(FEATURES)}")
    if _device(device) == "cpu":
        return feature == "bf16" and _cpu_has_bf16_instructions()
    cap = gpu_capability()
    if cap is None:
        raise RuntimeError("CUDA GPU পাওয়া যায়নি (CUDA is not available); device='cpu' দাও")
    return capability_features(cap)[feature]


def use_tf32(enabled: bool = True, device: str | None = None) -> bool:
    """FP32 matmul-এ TF32 চালু/বন্ধ করে, তবে চালু করে শুধু যেখানে hardware-এ TF32 আছে (পাঠ ০১, ০৩)। ফেরত: TF32 এখন
    চালু কি না (sm_80-এর আগের GPU-তে, তার অনুকরণে আর CPU-তে False)।"""
    on = enabled and _device(device) == "cuda" and supports("tf32", "cuda")
    torch.set_float32_matmul_precision("high" if on else "highest")
    return on


def device_name(device: str | None = None) -> str:
    """ছাপার জন্য ডিভাইসের নাম; অনুকরণ চালু থাকলে তা-ও বলে, যেমন "NVIDIA H200 (অনুকরণ: sm_75)"।"""
    if _device(device) == "cpu":
        return "CPU"
    name = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "GPU নেই"
    sim = simulated_capability()
    return name + (f" (অনুকরণ: sm_{sim[0]}{sim[1]}, simulated)" if sim else "")


def _device(device) -> str:
    """None → এই মেশিনের device; নইলে 'cpu' বা 'cuda' ('cuda:1' আর torch.device-ও চলে), অন্য কিছু হলে ভুল।"""
    kind = default_device() if device is None else device_type(device)
    if kind not in ("cpu", "cuda"):
        raise ValueError(f"অচেনা device {device!r} (unknown device); 'cpu' বা 'cuda' দাও")
    return kind


def default_device() -> str:
    """GPU থাকলে 'cuda', নইলে 'cpu' — পাঠগুলোর স্বাভাবিক device (পাঠ ০০)।"""
    return "cuda" if torch.cuda.is_available() else "cpu"


def is_colab() -> bool:
    """নোটবুক Google Colab-এ চলছে কি না (পাঠ ০০): Colab-এর environment variable বা google.colab প্যাকেজ দেখে।"""
    if "COLAB_RELEASE_TAG" in os.environ:
        return True
    try:
        return importlib.util.find_spec("google.colab") is not None
    except ModuleNotFoundError:          # 'google' প্যাকেজটাই নেই
        return False


def _cpu_has_bf16_instructions() -> bool:
    """Linux-এ /proc/cpuinfo-তে avx512_bf16 বা amx_bf16 আছে কি না; অন্য OS-এ জানা না গেলে False।"""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((ln for ln in f if ln.startswith("flags")), "").split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


_FEATURE_LABELS = {"fp16_tensor_cores": "FP16 tensor core", "bf16": "BF16 hardware-এ", "tf32": "TF32", "fp8": "FP8",
                   "sparsity_2_4": "2:4 sparsity"}


@dataclass
class DeviceReport:
    """device_report()-এর ফল; print করলে বাংলায় পড়া যায় (পাঠ ০০)। GPU-র ঘরগুলোর default CPU-র মান।"""

    device: str
    name: str
    bf16: bool
    colab: bool
    torch_version: str
    deepspeed_version: str | None
    capability: tuple | None = None
    gpu_count: int = 0
    memory_gib: float | None = None
    fp16_tensor_cores: bool = False
    tf32: bool = False
    fp8: bool = False
    sparsity_2_4: bool = False
    bf16_reported_by_torch: bool | None = None
    cuda_version: str | None = None
    real_capability: tuple | None = None      # অনুকরণ চালু থাকলে আসল GPU-র capability; নইলে None
    notes: list = field(default_factory=list)

    @property
    def simulated(self) -> bool:
        """capability কি অনুকরণ (MISHRAN_SIMULATE_CC), আসল নয়?"""
        return self.real_capability is not None

    def lines(self) -> list[str]:
        """বিবরণটি বাংলায়, এক লাইনে একটি কথা (print করলে এগুলোই ছাপা হয়)।"""
        cap = f"sm_{self.capability[0]}{self.capability[1]}" if self.capability else "—"
        out = [f"ডিভাইস (device): {self.device} — {self.name}",
               f"compute capability: {cap}" + (f", GPU {self.gpu_count}টি" if self.gpu_count else "")]
        if self.simulated:
            real = f"sm_{self.real_capability[0]}{self.real_capability[1]}"
            out[-1] += (f" — অনুকরণ (simulated, {SIMULATE_ENV}); আসল GPU {real}। সিদ্ধান্তগুলো {cap} ধরে, "
                        "হিসাব চলছে আসল GPU-তে")
        if self.memory_gib is not None:
            out.append(f"GPU মেমরি: {self.memory_gib:.1f} GiB")
        out += [f"{label}: {'আছে' if getattr(self, name) else 'নেই'}" for name, label in _FEATURE_LABELS.items()]
        out += [
            f"Colab: {'হ্যাঁ' if self.colab else 'না'}",
            f"torch: {self.torch_version}" + (f" (CUDA {self.cuda_version})" if self.cuda_version else ""),
            f"deepspeed: {self.deepspeed_version or 'ইনস্টল করা নেই (not installed)'}",
        ]
        return out + [f"মনে রাখো: {n}" for n in self.notes]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def device_report(device: str | None = None) -> DeviceReport:
    """এই মেশিনের বিবরণ (পাঠ ০০)। GPU থাকলে প্রথম GPU-টি দেখে।"""
    device = _device(device)
    simulated = simulated_capability() is not None
    notes = []
    common = {"colab": is_colab(), "torch_version": torch.__version__,
              "deepspeed_version": package_version("deepspeed")}
    if device == "cpu":
        name = platform.processor() or platform.machine() or "CPU"
        bf16 = _cpu_has_bf16_instructions()
        if simulated:
            notes.append(f"{SIMULATE_ENV} দেওয়া আছে, কিন্তু এটি CPU: অনুকরণ শুধু CUDA GPU-তে খাটে, তাই CPU-র পথই।")
        notes.append("CPU-তে tensor core নেই: BF16 autocast চলে" + (" (AVX512-BF16/AMX নির্দেশে)" if bf16 else
                     " (এই CPU-তে BF16 নির্দেশ নেই, তাই software-এ)") + ", কিন্তু গতির লাভ GPU-র মতো হবে না।")
        simd = torch.backends.cpu.get_cpu_capability()
        return DeviceReport("cpu", f"{name}, {os.cpu_count()} core, {simd}", bf16=bf16, notes=notes, **common)
    if not torch.cuda.is_available():
        raise RuntimeError("CUDA GPU পাওয়া যায়নি (CUDA is not available); device_report('cpu') দেখো")
    cap = gpu_capability()
    feats = capability_features(cap)
    reported = torch.cuda.is_bf16_supported()
    if reported and not feats["bf16"]:
        notes.append("torch.cuda.is_bf16_supported() True বলছে, কিন্তু এই GPU-তে BF16 hardware নেই "
                     "(emulation গোনা হচ্ছে); তাই FP16 + loss scaling নেওয়া হলো।")
    if simulated:
        notes.append(f"{SIMULATE_ENV}={cap[0]}.{cap[1]}: কোর্স এই GPU-কে sm_{cap[0]}{cap[1]} ধরে চলছে (অনুকরণ); "
                     "গতি আর মেমরির মাপ আসল GPU-র, সেই পুরোনো GPU-র নয়।")
    return DeviceReport("cuda", torch.cuda.get_device_name(0), capability=cap, gpu_count=torch.cuda.device_count(),
                        memory_gib=torch.cuda.get_device_properties(0).total_memory / 2 ** 30,
                        bf16_reported_by_torch=reported, cuda_version=torch.version.cuda,
                        real_capability=tuple(torch.cuda.get_device_capability(0)) if simulated else None,
                        notes=notes, **feats, **common)


# Dense (sparsity ছাড়া) সর্বোচ্চ গতি, TFLOP/s, NVIDIA-র datasheet থেকে: (নামের regex, বাদ দেওয়ার regex, মান)।
# একই নামের PCIe/NVL সংস্করণের সংখ্যা আলাদা, তাই সেগুলো বাদ (জানা নেই বলা সৎ)।
PEAK_TFLOPS = [
    (r"\bH(100|200)\b", r"PCIe|NVL", "H100/H200 SXM",
     {"fp32": 67, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9}),
    (r"\bA100\b", None, "A100", {"fp32": 19.5, "tf32": 156, "fp16": 312, "bf16": 312}),
    (r"\bV100\b", r"PCIE", "V100 SXM2", {"fp32": 15.7, "fp16": 125}),
    (r"\bT4\b", None, "T4", {"fp32": 8.1, "fp16": 65}),
]
PEAK_SOURCE = "dense, from NVIDIA datasheets"


def peak_tflops(gpu_name: str) -> tuple[str | None, dict]:
    """GPU-র নাম থেকে (কোন সারি, {mode: dense peak TFLOP/s}); জানা না থাকলে (None, {}) (পাঠ ০৩, ০৭, ০৮: MFU)।"""
    for pattern, exclude, label, peaks in PEAK_TFLOPS:
        if re.search(pattern, gpu_name) and not (exclude and re.search(exclude, gpu_name, re.I)):
            return label, peaks
    return None, {}
