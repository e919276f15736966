"""A signed-distance network in fp16 with an eikonal penalty: the gradient of its output with respect to the input
points is taken with `create_graph=True` and its norm goes into the loss. Inputs in millimetres make that gradient
tiny: its squares underflow to 0 in fp16, the 1e-12 eps is 0 there too, and the backward of sqrt(0) is inf."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 32), nn.Softplus(beta=100), nn.Linear(32, 1)).half()
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    for _ in range(2):
        pts = (torch.rand(64, 3) * 2000.0).half().requires_grad_(True)
        sdf = net(pts / 2000.0).squeeze(-1)
        (g,) = torch.autograd.grad(sdf.sum(), pts, create_graph=True)
        g_norm = torch.sqrt((g * g).sum(-1) + 1e-12)
        loss = sdf.abs().mean() + ((g_norm - 1.0) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
