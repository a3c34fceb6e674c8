import torch, torch.nn as nn, time
from mishran.checkup.run import checkup
class Block(nn.Module):
    def __init__(s, c):
        super().__init__(); s.c1=nn.Conv2d(c,c,3,padding=1,bias=False); s.b1=nn.BatchNorm2d(c); s.r=nn.ReLU(inplace=True)
        s.c2=nn.Conv2d(c,c,3,padding=1,bias=False); s.b2=nn.BatchNorm2d(c)
    def forward(s, x):
        out = s.r(s.b1(s.c1(x))); out = s.b2(s.c2(out)); out += x; return s.r(out)
def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3,64,3,padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        Block(64), nn.Conv2d(64,128,3,stride=2,padding=1), Block(128), nn.Conv2d(128,256,3,stride=2,padding=1), Block(256),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256,10))
def make_batch():
    g = torch.Generator().manual_seed(1)
    return torch.randn(8,3,32,32, generator=g), torch.randint(0,10,(8,), generator=g)
if __name__ == "__main__":
    m = make_model(); print(sum(p.numel() for p in m.parameters()))
    x, y = make_batch()
    t=time.time(); m.zero_grad(); nn.functional.cross_entropy(m(x), y).backward(); print("plain step", time.time()-t)
    sd = {k: v.clone() for k, v in m.state_dict().items()}; g = {n: p.grad.clone() for n,p in m.named_parameters()}
    rng = torch.get_rng_state()
    t=time.time(); r = checkup(m, (x, y), loss_fn=nn.CrossEntropyLoss(), steps=1); print("checkup", time.time()-t)
    print(all(torch.equal(v, m.state_dict()[k]) for k, v in sd.items()), all(torch.equal(g[n], p.grad) for n,p in m.named_parameters()), torch.equal(rng, torch.get_rng_state()))
    print(r.advice); print(r.costs, r.flops)
    for row in r.modules[:8]: print(row.name, row.kind, {p:(ru.rel_error, ru.added) for p,ru in row.runs.items()})
    print(r.keep_fp32, r.worst_modules)
