import os
import tempfile

import numpy as np
import torch
import torch.nn as nn


class SoftProductQuantizer(nn.Module):
    def __init__(self, dim=64, num_subspaces=4, codebook_size=32, tau=0.5):
        super().__init__()
        assert dim % num_subspaces == 0
        self.m = num_subspaces
        self.d_sub = dim // num_subspaces
        self.tau = tau
        self.codebooks = nn.Parameter(torch.randn(num_subspaces, codebook_size, self.d_sub))

    def assign(self, x):
        xs = x.view(x.shape[0], self.m, self.d_sub).transpose(0, 1)
        sim = torch.bmm(xs, self.codebooks.transpose(1, 2))
        w = torch.exp(sim / self.tau)
        return w / w.sum(dim=-1, keepdim=True), xs

    def forward(self, x):
        soft, xs = self.assign(x)
        soft_rec = torch.bmm(soft, self.codebooks)
        hard_idx = soft.argmax(dim=-1)
        hard = torch.nn.functional.one_hot(hard_idx, self.codebooks.shape[1]).to(soft.dtype)
        hard_rec = torch.bmm(hard, self.codebooks)
        rec = soft_rec + (hard_rec - soft_rec).detach()
        rec = rec.transpose(0, 1).reshape(x.shape)
        return rec, hard_idx.t()


def build_embedding_store(path, n=2048, dim=64, clusters=48, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 1.0, size=(clusters, dim))
    labels = rng.integers(0, clusters, size=n)
    emb = centers[labels] + 0.3 * rng.normal(size=(n, dim))
    np.save(path, emb.astype(np.float16))


def main():
    torch.manual_seed(0)
    store = os.path.join(tempfile.mkdtemp(prefix="emb_store_"), "embeddings_fp16.npy")
    build_embedding_store(store)
    emb = torch.from_numpy(np.load(store))
    loader = torch.utils.data.DataLoader(emb, batch_size=256, shuffle=True)

    pq = SoftProductQuantizer().to(emb.dtype)
    opt = torch.optim.SGD(pq.parameters(), lr=0.5, momentum=0.9)

    for epoch in range(3):
        total, n = 0.0, 0
        for x in loader:
            rec, codes = pq(x)
            loss = (rec.float() - x.float()).pow(2).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.shape[0]
            n += x.shape[0]
        print(f"epoch {epoch}: reconstruction {total / n:.4f}")

    with torch.no_grad():
        _, codes = pq(emb[:512])
        q = emb[:16].float() @ emb[:512].float().t()
        lut = torch.bmm(emb[:16].float().view(16, 4, 16).transpose(0, 1), pq.codebooks.float().transpose(1, 2))
        approx = lut.gather(2, codes.t().unsqueeze(1).expand(-1, 16, -1)).sum(0)
        recall = (approx.argmax(1) == q.argmax(1)).float().mean()
    print(f"codes shape {tuple(codes.shape)} top-1 recall@512 {recall.item():.3f}")


if __name__ == "__main__":
    main()
