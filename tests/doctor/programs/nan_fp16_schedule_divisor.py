"""A diffusion sampler whose noise schedule is fp16: the cumulative product of alphas at the first step is
0.9999, which rounds to 1 in fp16, so 1 - alpha_bar is 0 and the fp32 sample divided by its square root is inf;
the script prints NaN statistics and exits 0."""
import torch


def main():
    betas = torch.linspace(1e-4, 0.02, 100, dtype=torch.float16)
    alpha_bar = torch.cumprod(1.0 - betas, dim=0)
    x = torch.randn(64, 2)
    with torch.no_grad():
        for t in (50, 10, 0):
            a = alpha_bar[t]
            x0 = x * 0.5
            noise = (x - a.sqrt() * x0) / (1 - a).sqrt()
            x = x0 + 0.1 * noise
    print(f"sample mean {x.mean():.3f} std {x.std():.3f}")


if __name__ == "__main__":
    main()
