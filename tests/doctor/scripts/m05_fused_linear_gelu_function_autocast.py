"""MLP regressor whose hidden layer uses a hand-fused Linear+GELU autograd.Function
(saves the pre-activation instead of two intermediate tensors).  Trained with bf16
autocast on the CPU."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FusedLinearGELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        pre = x.matmul(weight.t()) + bias
        ctx.save_for_backward(x, weight, pre)
        return F.gelu(pre)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, pre = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(pre / math.sqrt(2.0)))
        pdf = torch.exp(-0.5 * pre * pre) / math.sqrt(2.0 * math.pi)
        g = grad_out * (cdf + pre * pdf)
        grad_x = g.matmul(weight)
        grad_w = g.reshape(-1, g.shape[-1]).t().matmul(x.reshape(-1, x.shape[-1]))
        grad_b = g.reshape(-1, g.shape[-1]).sum(0)
        return grad_x, grad_w, grad_b


class FusedMLPLayer(nn.Module):
    def __init__(self, din, dout):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(dout, din))
        self.bias = nn.Parameter(torch.zeros(dout))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, x):
        return FusedLinearGELU.apply(x, self.weight, self.bias)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(16, 64)
        self.fc1 = FusedMLPLayer(64, 128)
        self.fc2 = nn.Linear(128, 64)
        self.out = nn.Linear(64, 1)

    def forward(self, x):
        h = self.embed(x)
        h = h + self.fc2(self.fc1(h))
        return self.out(h).squeeze(-1)


X = torch.randn(1024, 16)
w_true = torch.randn(16)
Y = torch.sin(X @ w_true) + 0.1 * torch.randn(1024)

model = Regressor()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(5):
    for i in range(0, 1024, 128):
        xb, yb = X[i:i + 128], Y[i:i + 128]
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            pred = model(xb)
        loss = F.mse_loss(pred.float(), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("epoch", epoch, "mse", loss.item())
