import sys, time
sys.path.insert(0, "src"); sys.path.insert(0, "/tmp")
import torch, torch.nn as nn
sys.path.insert(0, "tests/_gpu_probe_tmp")
from resnet import make_model, make_batch
from mishran.checkup.run import checkup
m = make_model().cuda(); x, y = (t.cuda() for t in make_batch())
for i in range(3):
    torch.cuda.synchronize(); t = time.time(); m.zero_grad(); nn.functional.cross_entropy(m(x), y).backward(); torch.cuda.synchronize(); print("plain", time.time() - t)
m.zero_grad(set_to_none=True)
for tgt in (None, "t4"):
    t = time.time(); r = checkup(m, (x, y), loss_fn=nn.CrossEntropyLoss(), target=tgt); print("checkup", tgt, time.time() - t)
    print(r.advice); print(r.costs); print(r.loss, r.grad_cosine)
    print([(o.op, o.dtype, o.flagged) for o in r.ops if o.kind != "other"][:12])
