"""Clean: an fp32 nn.TransformerEncoder trained and evaluated under CPU bf16 autocast; in eval under no_grad it takes
nn's fused fast path (torch._transformer_encoder_layer_fwd). No fault, no warning expected."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    proj = nn.Linear(16, 32)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True), 2,
                                    enable_nested_tensor=False)
    head = nn.Linear(32, 3)
    model = nn.Sequential(proj, encoder)
    opt = torch.optim.AdamW([*model.parameters(), *head.parameters()], lr=1e-3)
    x, y = torch.randn(8, 10, 16), torch.randint(0, 3, (8,))
    for _ in range(2):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(head(model(x).mean(1)).float(), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(x)
    print("clean run ok", tuple(out.shape), out.dtype, f"{loss.item():.3f}")


if __name__ == "__main__":
    main()
