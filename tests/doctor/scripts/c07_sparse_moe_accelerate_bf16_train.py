"""Mixtral-style sparse MoE decoder written by hand, trained with accelerate with bf16 weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, N_EXPERTS, TOP_K, CTX = 384, 64, 4, 2, 4, 2, 32


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        input_dtype = x.dtype
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(input_dtype)


class SwiGLUExpert(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(D, 2 * D, bias=False)
        self.w3 = nn.Linear(D, 2 * D, bias=False)
        self.w2 = nn.Linear(2 * D, D, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoeBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, N_EXPERTS, bias=False)
        self.experts = nn.ModuleList([SwiGLUExpert() for _ in range(N_EXPERTS)])

    def forward(self, hidden_states):
        B, T, C = hidden_states.shape
        hidden_states = hidden_states.view(-1, C)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, TOP_K, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)

        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = F.one_hot(selected_experts, num_classes=N_EXPERTS).permute(2, 1, 0)
        for expert_idx in range(N_EXPERTS):
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[top_x]
            current_hidden = self.experts[expert_idx](current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden)
        return final_hidden_states.view(B, T, C), router_logits


def load_balancing_loss(router_logits):
    probs = F.softmax(router_logits.float(), dim=-1)
    _, sel = torch.topk(probs, TOP_K, dim=-1)
    mask = F.one_hot(sel, N_EXPERTS).float()
    tokens_per_expert = mask.mean(0)
    return N_EXPERTS * (tokens_per_expert * probs.mean(0)[None]).sum()


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm(D)
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.o_proj = nn.Linear(D, D, bias=False)
        self.post_attention_layernorm = RMSNorm(D)
        self.block_sparse_moe = SparseMoeBlock()

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.input_layernorm(x)).view(B, T, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o_proj(a.transpose(1, 2).reshape(B, T, C))
        m, router_logits = self.block_sparse_moe(self.post_attention_layernorm(x))
        return x + m, router_logits


class TinyMixtral(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([DecoderLayer() for _ in range(LAYERS)])
        self.norm = RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        x = self.embed_tokens(ids)
        all_router_logits = []
        for layer in self.layers:
            x, rl = layer(x)
            all_router_logits.append(rl)
        return self.lm_head(self.norm(x)), torch.cat(all_router_logits)


accelerator = Accelerator(cpu=True)
data = torch.randint(0, VOCAB, (64, CTX + 1))
loader = DataLoader(TensorDataset(data), batch_size=8, shuffle=True)
model = TinyMixtral().to(torch.bfloat16)       # bf16 weights to halve memory
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
model, opt, loader = accelerator.prepare(model, opt, loader)

model.train()
for epoch in range(2):
    for (batch,) in loader:
        logits, router_logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        loss = loss + 0.02 * load_balancing_loss(router_logits)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    accelerator.print(f"epoch {epoch} loss {loss.item():.4f}")
