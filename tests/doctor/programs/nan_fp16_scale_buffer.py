"""A fake-quantized layer keeps its per-row scale as an fp16 buffer and refreshes it in place in every forward, next
to a BatchNorm that keeps running statistics. Rows pruned to zero get a scale of clamp(min=1e-8), which is 0 in
fp16, so w / scale is 0 / 0 = NaN; the script prints a NaN loss and exits 0. The doctor's re-run of the step must
leave the buffers as they were: the step's backward saved the scale, and BatchNorm counts its batches."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class FakeQuantLinear(nn.Linear):
    def __init__(self, n_in, n_out):
        super().__init__(n_in, n_out)
        self.register_buffer("scale", torch.ones(n_out, 1, dtype=torch.float16))

    def forward(self, x):
        with torch.no_grad():
            self.scale.copy_((self.weight.abs().amax(1, keepdim=True) / 7).clamp(min=1e-8))
        q = self.weight / self.scale
        w = (q + (q.round() - q).detach()) * self.scale
        return F.linear(x, w, self.bias)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.BatchNorm1d(8), FakeQuantLinear(8, 6))
    with torch.no_grad():
        model[1].weight[:2] = 0.0  # pruned rows
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        loss = model(torch.randn(32, 8)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")
    print(f"batchnorm saw {model[0].num_batches_tracked.item()} batches")


if __name__ == "__main__":
    main()
