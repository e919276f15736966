"""fp16 trainable adapter params with a GradScaler: 'Attempting to unscale FP16 gradients.'"""
import torch
from torch import nn
from _tiny import batch, tiny_llama


class HalfLoRA(nn.Module):
    def __init__(self, base: nn.Linear, r=4):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False, dtype=base.weight.dtype)  # fp16 like the model
        self.lora_B = nn.Linear(r, base.out_features, bias=False, dtype=base.weight.dtype)
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x))


def main():
    model = tiny_llama(torch.float16).requires_grad_(False)
    attn = model.model.layers[1].self_attn
    attn.v_proj = HalfLoRA(attn.v_proj)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=1e-2)
    scaler = torch.amp.GradScaler("cpu")
    ids = batch()
    loss = model(input_ids=ids, labels=ids).loss
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()


if __name__ == "__main__":
    main()
