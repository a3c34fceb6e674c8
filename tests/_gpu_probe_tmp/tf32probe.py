import torch, sys
sys.path.insert(0, "src")
from mishran.checkup.run import _exact_fp32
d = torch.device("cuda")
a = torch.randn(2048, 2048, device=d); b = torch.randn(2048, 2048, device=d)
exact = (a.double() @ b.double())
def err(): return float(((a @ b).double() - exact).norm() / exact.norm())
scen = sys.argv[1]
if scen == "legacy": torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True
elif scen == "new": torch.backends.cuda.matmul.fp32_precision = "tf32"; torch.backends.cudnn.conv.fp32_precision = "tf32"
elif scen == "high": torch.set_float32_matmul_precision("high")
print(scen, "before", err())
with _exact_fp32(d): print(scen, "inside", err())
print(scen, "after", err())
if scen == "legacy": print(torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
elif scen == "new": print(torch.backends.cuda.matmul.fp32_precision, torch.backends.cudnn.conv.fp32_precision)
elif scen == "high": print(torch.get_float32_matmul_precision())
