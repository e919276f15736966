import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D_IN, N_CLASSES = 32, 4


def make_model():
    return nn.Sequential(nn.Linear(D_IN, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, N_CLASSES))


W_tasks = {name: torch.randn(D_IN, N_CLASSES) for name in ("base", "A", "B")}


def batch(task, n=256):
    x = torch.randn(n, D_IN)
    return x, (x @ W_tasks[task]).argmax(-1)


def train(model, task, steps, lr):
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    for _ in range(steps):
        x, y = batch(task)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


@torch.no_grad()
def evaluate(model, task):
    x, y = batch(task, 4096)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x).float()
    return F.cross_entropy(logits, y).item(), (logits.argmax(-1) == y).float().mean().item()


base = make_model()
print(f"base loss {train(base, 'base', 150, 2e-3):.4f}")
W_tasks["A"] = W_tasks["base"] + 0.8 * W_tasks["A"]
W_tasks["B"] = W_tasks["base"] + 0.8 * W_tasks["B"]
finetuned = {}
for task in ("A", "B"):
    m = copy.deepcopy(base)
    print(f"finetune {task} loss {train(m, task, 150, 1e-3):.4f}")
    finetuned[task] = m

base_sd = {k: v.float() for k, v in base.state_dict().items()}
task_vecs = [{k: m.state_dict()[k].float() - base_sd[k] for k in base_sd} for m in finetuned.values()]


def task_arithmetic(lam=0.6):
    return {k: base_sd[k] + lam * sum(tv[k] for tv in task_vecs) for k in base_sd}


def ties(density=0.3, lam=1.0):
    merged = {}
    for k in base_sd:
        stacked = torch.stack([tv[k] for tv in task_vecs])
        flat = stacked.flatten(1)
        n_keep = max(1, int(density * flat.shape[1]))
        thresh = flat.abs().topk(n_keep, dim=1).values[:, -1:]
        trimmed = torch.where(flat.abs() >= thresh, flat, torch.zeros_like(flat))
        sign = torch.sign(trimmed.sum(0))
        agree = (torch.sign(trimmed) == sign) & (trimmed != 0)
        count = agree.sum(0).clamp(min=1).to(trimmed.dtype)
        merged[k] = base_sd[k] + lam * ((trimmed * agree).sum(0) / count).view_as(base_sd[k])
    return merged


def slerp(sd0, sd1, t=0.5, eps=1e-8):
    out = {}
    for k in sd0:
        a, b = sd0[k].flatten(), sd1[k].flatten()
        cos = (a @ b) / (a.norm() * b.norm()).clamp(min=eps)
        omega = torch.arccos(cos.clamp(-1 + 1e-6, 1 - 1e-6))
        if omega.abs() < 1e-4:
            v = (1 - t) * a + t * b
        else:
            v = (torch.sin((1 - t) * omega) * a + torch.sin(t * omega) * b) / torch.sin(omega)
        out[k] = v.view_as(sd0[k])
    return out


candidates = {
    "finetuned A": finetuned["A"].state_dict(),
    "finetuned B": finetuned["B"].state_dict(),
    "task arithmetic": task_arithmetic(),
    "ties": ties(),
    "slerp": slerp(finetuned["A"].state_dict(), finetuned["B"].state_dict()),
}
probe = make_model()
for name, sd in candidates.items():
    probe.load_state_dict(sd)
    (la, aa), (lb, ab) = evaluate(probe, "A"), evaluate(probe, "B")
    assert all(torch.isfinite(v).all() for v in sd.values())
    print(f"{name:16s} A: loss {la:.3f} acc {aa:.3f} | B: loss {lb:.3f} acc {ab:.3f}")
