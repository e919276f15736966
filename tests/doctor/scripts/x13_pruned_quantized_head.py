import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

torch.manual_seed(13)

IN_DIM, N_CLASSES = 48, 6


def make_data(n, w_true):
    x = torch.randn(n, IN_DIM)
    logits = torch.tanh(x @ w_true[0]) @ w_true[1]
    return x, logits.argmax(1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(IN_DIM, 128), nn.LayerNorm(128), nn.GELU(),
                                    nn.Linear(128, 128), nn.LayerNorm(128), nn.GELU())

    def forward(self, x):
        return self.layers(x)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))

    def forward(self, x):
        return self.head(self.encoder(x))


def train(model, x, y, epochs, lr=2e-3):
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(epochs):
        for idx in torch.randperm(len(x)).split(128):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x[idx])
            loss = F.cross_entropy(logits.float(), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return loss.item()


def evaluate(encoder, head, x, y):
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits = head(encoder(x))
    return (logits.argmax(1) == y).float().mean().item()


def main():
    w_true = (torch.randn(IN_DIM, 32), torch.randn(32, N_CLASSES))
    x, y = make_data(5000, w_true)
    xv, yv = make_data(1000, w_true)
    model = Classifier()
    print(f"dense train loss {train(model, x, y, 6):.4f}")
    print(f"dense val acc {evaluate(model.encoder, model.head, xv, yv):.3f}")

    for layer in [*model.encoder.layers, *model.head]:
        if isinstance(layer, nn.Linear):
            prune.l1_unstructured(layer, name="weight", amount=0.5)
    print(f"finetune loss {train(model, x, y, 2, lr=5e-4):.4f}")
    for layer in [*model.encoder.layers, *model.head]:
        if isinstance(layer, nn.Linear):
            prune.remove(layer, "weight")
    sparsity = (model.head[0].weight == 0).float().mean().item()
    print(f"head sparsity {sparsity:.2f}")

    model.eval()
    qhead = torch.ao.quantization.quantize_dynamic(model.head, {nn.Linear}, dtype=torch.qint8)
    print(f"pruned fp32 val acc {evaluate(model.encoder, model.head, xv, yv):.3f}")
    print(f"pruned int8-head val acc {evaluate(model.encoder, qhead, xv, yv):.3f}")


if __name__ == "__main__":
    main()
