"""Clean: a normal amplora run (DoRA on a bf16 model, bf16-true policy): train, then generate outside any
autocast, as a sampling callback would. amplora enforces the policy at the model boundary: no fault, no warning."""
import sys
import torch
import amplora
from _tiny import batch, tiny_llama


def main():
    method = sys.argv[1] if len(sys.argv) > 1 else "dora"
    model = tiny_llama(torch.bfloat16)
    amplora.apply(model, method=method, r=4, alpha=8, precision="bf16-true")
    opt = torch.optim.AdamW([p for _, p in amplora.trainable_parameters(model)], lr=1e-3)
    ids = batch()
    for _ in range(2):
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    out = model.generate(ids[:1, :4], max_new_tokens=3, do_sample=False)
    print("amplora run ok", tuple(out.shape), f"{loss.item():.3f}")


if __name__ == "__main__":
    main()
