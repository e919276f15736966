import math
import torch
import torch.nn as nn

torch.manual_seed(0)
DTYPE = torch.float16
LOSS_SCALE = 2.0 ** 16


def eight_gaussians(n):
    centers = torch.tensor([[math.cos(a), math.sin(a)] for a in torch.arange(8) * math.pi / 4]) * 2.0
    idx = torch.randint(0, 8, (n,))
    return centers[idx] + 0.05 * torch.randn(n, 2)


def mlp(inp, out, hidden=128):
    return nn.Sequential(
        nn.Linear(inp, hidden), nn.LeakyReLU(0.2),
        nn.Linear(hidden, hidden), nn.LeakyReLU(0.2),
        nn.Linear(hidden, out),
    )


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.shape[0], 1, dtype=real.dtype)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interp)
    grads = torch.autograd.grad(scores, interp, grad_outputs=torch.ones_like(scores), create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def scaled_step(loss, params, opt):
    opt.zero_grad(set_to_none=True)
    (loss * LOSS_SCALE).backward()
    for p in params:
        if p.grad is not None:
            p.grad.div_(LOSS_SCALE)
    opt.step()


def main():
    gen, critic = mlp(16, 2).to(DTYPE), mlp(2, 1).to(DTYPE)
    g_opt = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.5, 0.9), eps=1e-4)
    c_opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9), eps=1e-4)
    lam, n_critic, batch = 10.0, 5, 128
    for it in range(60):
        for _ in range(n_critic):
            real = eight_gaussians(batch).to(DTYPE)
            with torch.no_grad():
                fake = gen(torch.randn(batch, 16, dtype=DTYPE))
            w_dist = critic(real).mean() - critic(fake).mean()
            gp = gradient_penalty(critic, real, fake)
            c_loss = -w_dist + lam * gp
            scaled_step(c_loss, list(critic.parameters()), c_opt)

        fake = gen(torch.randn(batch, 16, dtype=DTYPE))
        g_loss = -critic(fake).mean()
        scaled_step(g_loss, list(gen.parameters()), g_opt)
        if it % 20 == 0:
            print(f"iter {it} critic {c_loss.item():.4f} gp {gp.item():.4f} gen {g_loss.item():.4f}")

    with torch.no_grad():
        samples = gen(torch.randn(1024, 16, dtype=DTYPE)).float()
    print("sample radius", samples.norm(dim=1).mean().item())
    print("final critic loss", c_loss.item(), "gen loss", g_loss.item())


if __name__ == "__main__":
    main()
