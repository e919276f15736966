import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn


class Lookahead:
    def __init__(self, params, k=5, alpha=0.5):
        self.params = [p for p in params if p.requires_grad]
        self.slow = [p.detach().clone() for p in self.params]
        self.k, self.alpha, self.counter = k, alpha, 0

    @torch.no_grad()
    def after_step(self):
        self.counter += 1
        if self.counter % self.k:
            return
        for p, s in zip(self.params, self.slow):
            s.lerp_(p.detach(), self.alpha)
            p.copy_(s)


class TabularNet(nn.Module):
    def __init__(self, n_num=12, n_cat=6, cat_card=20, d=64, n_classes=4):
        super().__init__()
        self.cat_emb = nn.ModuleList(nn.Embedding(cat_card, 8) for _ in range(n_cat))
        self.net = nn.Sequential(nn.Linear(n_num + 8 * n_cat, d), nn.LayerNorm(d), nn.SiLU(), nn.Dropout(0.1),
                                 nn.Linear(d, d), nn.LayerNorm(d), nn.SiLU(), nn.Linear(d, n_classes))

    def forward(self, x_num, x_cat):
        cats = [emb(x_cat[:, i]) for i, emb in enumerate(self.cat_emb)]
        return self.net(torch.cat([x_num] + cats, dim=1))


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x_num = torch.randn(n, 12, generator=g)
    x_cat = torch.randint(0, 20, (n, 6), generator=g)
    score = x_num[:, :4].sum(1) + (x_cat[:, 0] % 4).float() - 1.5
    y = torch.bucketize(score, torch.tensor([-1.5, 0.0, 1.5]))
    return torch.utils.data.TensorDataset(x_num, x_cat, y)


def main():
    torch.manual_seed(0)
    accelerator = Accelerator(mixed_precision="bf16", cpu=True, gradient_accumulation_steps=2)
    model = TabularNet()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.02)
    train_loader = torch.utils.data.DataLoader(make_data(2048, 0), batch_size=64, shuffle=True)
    val_loader = torch.utils.data.DataLoader(make_data(512, 1), batch_size=256)
    model, opt, train_loader, val_loader = accelerator.prepare(model, opt, train_loader, val_loader)
    lookahead = Lookahead(model.parameters(), k=5, alpha=0.5)
    ema = AveragedModel(accelerator.unwrap_model(model), multi_avg_fn=get_ema_multi_avg_fn(0.98))
    for epoch in range(3):
        model.train()
        for i, (x_num, x_cat, y) in enumerate(train_loader):
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(x_num, x_cat).float(), y)
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                opt.zero_grad()
            if accelerator.sync_gradients:
                lookahead.after_step()
                ema.update_parameters(accelerator.unwrap_model(model))
            if i % 10 == 0:
                accelerator.print(f"epoch {epoch} it {i:2d} loss {loss.item():.4f}")
        ema.eval()
        model.eval()
        tot, tot_ema, n = 0.0, 0.0, 0
        with torch.no_grad():
            for x_num, x_cat, y in val_loader:
                tot += F.cross_entropy(model(x_num, x_cat).float(), y, reduction="sum").item()
                tot_ema += F.cross_entropy(ema(x_num, x_cat).float(), y, reduction="sum").item()
                n += y.numel()
        accelerator.print(f"epoch {epoch} val loss {tot / n:.4f} ema val loss {tot_ema / n:.4f}")


if __name__ == "__main__":
    main()
