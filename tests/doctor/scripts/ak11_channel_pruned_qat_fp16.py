import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class PerChannelFakeQuantLinear(nn.Linear):
    def __init__(self, n_in, n_out, bits=4, stochastic=True):
        super().__init__(n_in, n_out)
        self.qmax = 2 ** (bits - 1) - 1
        self.stochastic = stochastic

    def quant_weight(self):
        w = self.weight
        scale = w.detach().abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / self.qmax
        v = w / scale
        if self.stochastic and self.training:
            q = torch.floor(v + torch.rand_like(v))
        else:
            q = torch.round(v)
        q = q.clamp(-self.qmax - 1, self.qmax) * scale
        return w + (q - w).detach()

    def forward(self, x):
        return F.linear(x, self.quant_weight(), self.bias)


class QMLP(nn.Module):
    def __init__(self, n_in=48, hidden=192, n_out=6):
        super().__init__()
        self.fc1 = PerChannelFakeQuantLinear(n_in, hidden)
        self.fc2 = PerChannelFakeQuantLinear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


@torch.no_grad()
def prune_output_channels(layer, next_layer, ratio):
    norms = layer.weight.norm(dim=1)
    k = int(ratio * norms.numel())
    drop = norms.argsort()[:k]
    layer.weight[drop] = 0.0
    layer.bias[drop] = 0.0
    next_layer.weight[:, drop] = 0.0
    return drop


def data(n=256, n_in=48, n_out=6):
    x = torch.randn(n, n_in)
    y = (x[:, :n_out] * 2 + x[:, n_out:2 * n_out].sign()).argmax(1)
    return x, y


model = QMLP()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(80):
    x, y = data()
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"fp32 qat loss {loss.item():.4f}")

dropped = prune_output_channels(model.fc1, model.fc2, ratio=0.25)
print(f"pruned {dropped.numel()} / {model.fc1.out_features} channels of fc1")

model = model.to(torch.float16)
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
for step in range(40):
    x, y = data()
    logits = model(x.half())
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    with torch.no_grad():
        model.fc1.weight.grad[dropped] = 0
        model.fc1.bias.grad[dropped] = 0
    opt.step()
    if step % 10 == 0:
        print(f"fp16 finetune step {step:2d} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    x, y = data(1024)
    logits = model(x.half()).float()
print(f"eval loss {F.cross_entropy(logits, y).item():.4f} acc {(logits.argmax(1) == y).float().mean().item():.3f}")
