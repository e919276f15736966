"""S003: an SVD-based adapter init (PiSSA-style) of fp16 weights on CPU; `--qr` does the OLoRA-style QR instead."""
import sys
import torch
from _tiny import tiny_llama


def principal_init(linear, r=4, use_qr=False):
    w = linear.weight.data  # fp16 on CPU: no Half kernel for svd / qr
    if use_qr:
        q, _ = torch.linalg.qr(w)
        return q[:, :r]
    u, s, vh = torch.linalg.svd(w, full_matrices=False)
    return u[:, :r] * s[:r]


def main():
    model = tiny_llama(torch.float16)
    use_qr = "--qr" in sys.argv[1:]
    for layer in model.model.layers:
        principal_init(layer.self_attn.q_proj, use_qr=use_qr)


if __name__ == "__main__":
    main()
