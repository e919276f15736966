import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class EMAObserverFakeQuant(nn.Module):
    def __init__(self, momentum=0.02):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))

    def qparams(self):
        lo = torch.clamp(self.min_val, max=0.0)
        hi = torch.clamp(self.max_val, min=0.0)
        scale = torch.clamp((hi - lo) / 255.0, min=torch.finfo(torch.float32).eps)
        zero_point = torch.clamp(torch.round(-lo / scale), 0, 255).to(torch.int32)
        return scale, zero_point

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                lo, hi = x.detach().float().aminmax()
                if torch.isinf(self.min_val):
                    self.min_val.copy_(lo)
                    self.max_val.copy_(hi)
                else:
                    self.min_val.lerp_(lo, self.momentum)
                    self.max_val.lerp_(hi, self.momentum)
        scale, zp = self.qparams()
        return torch.fake_quantize_per_tensor_affine(x.float(), scale, zp, 0, 255)


class QATLinear(nn.Linear):
    def __init__(self, n_in, n_out):
        super().__init__(n_in, n_out)
        self.act_fq = EMAObserverFakeQuant()

    def weight_qparams(self):
        w = self.weight.detach().float()
        scale = w.abs().amax(dim=1).clamp(min=torch.finfo(torch.float32).eps) / 127.0
        return scale, torch.zeros_like(scale, dtype=torch.int32)

    def forward(self, x):
        x = self.act_fq(x)
        s, zp = self.weight_qparams()
        w = torch.fake_quantize_per_channel_affine(self.weight.float(), s, zp, 0, -127, 127)
        return F.linear(x, w, self.bias.float())


class Net(nn.Module):
    def __init__(self, n_in=32, hidden=128, n_classes=6):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = QATLinear(n_in, hidden), QATLinear(hidden, hidden), QATLinear(hidden, n_classes)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


@torch.no_grad()
def int8_reference(model, x):
    for i, layer in enumerate([model.fc1, model.fc2, model.fc3]):
        s_x, zp_x = layer.act_fq.qparams()
        s_w, _ = layer.weight_qparams()
        x_q = torch.clamp(torch.round(x / s_x) + zp_x, 0, 255).to(torch.int32)
        w_q = torch.clamp(torch.round(layer.weight / s_w[:, None]), -127, 127).to(torch.int32)
        acc = (x_q - zp_x) @ w_q.t()
        x = acc.to(torch.float32) * (s_x * s_w) + layer.bias
        if i < 2:
            x = F.relu(x)
    return x


def batch(n=256, n_in=32, n_classes=6):
    y = torch.randint(0, n_classes, (n,))
    x = torch.randn(n, n_in) * 0.5 + 2.0 * F.one_hot(y, n_in).float()
    return x, y


model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(120):
    x, y = batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"qat step {step:3d} loss {loss.item():.4f}")

model.eval()
x, y = batch(1024)
with torch.no_grad():
    fq_logits = model(x)
int_logits = int8_reference(model, x)
print(f"fake-quant eval loss {F.cross_entropy(fq_logits, y).item():.4f}")
print(f"int8 reference loss {F.cross_entropy(int_logits, y).item():.4f} max |diff| {(int_logits - fq_logits).abs().max().item():.4f}")

with tempfile.TemporaryDirectory() as tmp:
    blob = {}
    for name in ("fc1", "fc2", "fc3"):
        layer = getattr(model, name)
        s_w, _ = layer.weight_qparams()
        s_x, zp_x = layer.act_fq.qparams()
        blob[name] = {"w_int8": torch.round(layer.weight.detach() / s_w[:, None]).clamp(-127, 127).to(torch.int8),
                      "w_scale": s_w, "act_scale": s_x, "act_zero_point": zp_x, "bias": layer.bias.detach()}
    path = os.path.join(tmp, "mlp_int8.pt")
    torch.save(blob, path)
    print(f"exported int8 model: {os.path.getsize(path) / 1024:.1f} KiB")
