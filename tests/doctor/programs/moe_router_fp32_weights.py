"""A mixture-of-experts layer in bf16 whose router softmax runs in fp32 (`dtype=torch.float`) and is never cast back:
each expert's output, scaled by an fp32 routing weight, is accumulated with `index_add_` into a bf16 buffer."""
import torch
import torch.nn.functional as F
from torch import nn


class MoE(nn.Module):
    def __init__(self, dim=16, experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(experts))

    def forward(self, x):
        routing_weights = F.softmax(self.gate(x), dim=-1, dtype=torch.float)
        routing_weights, chosen = torch.topk(routing_weights, self.top_k, dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(chosen == e)
            expert_out = expert(x[token]) * routing_weights[token, slot, None]
            out.index_add_(0, token, expert_out)
        return out


def main():
    torch.manual_seed(0)
    moe = MoE().to(torch.bfloat16)
    moe(torch.randn(12, 16, dtype=torch.bfloat16)).sum().backward()


if __name__ == "__main__":
    main()
