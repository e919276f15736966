"""Arithmetic on a float8 tensor on the CPU: float8 is a storage format, the multiply has no float8 kernel."""
import torch


def main():
    scale = torch.tensor(0.5)
    w = torch.randn(16, 16).to(torch.float8_e4m3fn)
    w_scaled = w * scale.to(torch.float8_e4m3fn)  # dequantizing in float8 instead of upcasting first
    print(w_scaled.float().sum())


if __name__ == "__main__":
    main()
