"""Federated training of a BatchNorm MLP anomaly classifier over 5 simulated plants, with
secure-aggregation style pairwise integer masks on quantised model deltas. Clients train with
bf16 autocast; the server aggregates in float32/int64."""
import copy

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_CLIENTS, ROUNDS, FEAT = 5, 3, 24
SCALE = 2**16  # fixed-point scale for quantised deltas
MOD = 2**40    # arithmetic modulus for masked sums (fits easily in int64)


def client_data(k, n=256):
    x = rng.normal(0, 1, (n, FEAT)) + 0.2 * k
    w = np.linspace(-1, 1, FEAT)
    y = ((x @ w + 0.3 * rng.normal(size=n)) > 0.2 * k).astype(np.int64)
    return torch.tensor(x, dtype=torch.float32), torch.from_numpy(y)


def make_model():
    return nn.Sequential(
        nn.Linear(FEAT, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 32), nn.BatchNorm1d(32), nn.ReLU(),
        nn.Linear(32, 2),
    )


data = [client_data(k) for k in range(N_CLIENTS)]
global_model = make_model()


def local_update(model, X, y, steps=20):
    model = copy.deepcopy(model).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for s in range(steps):
        idx = torch.randint(0, len(X), (32,))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(X[idx])
        loss = nn.functional.cross_entropy(logits.float(), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.state_dict()


def pairwise_masks(shape, n_clients, round_seed):
    """mask_i = sum_{j>i} r_ij - sum_{j<i} r_ji  -> masks cancel in the sum."""
    masks = [torch.zeros(shape, dtype=torch.int64) for _ in range(n_clients)]
    for i in range(n_clients):
        for j in range(i + 1, n_clients):
            g = torch.Generator().manual_seed(round_seed * 1000 + i * 37 + j)
            r = torch.randint(0, MOD, shape, generator=g, dtype=torch.int64)
            masks[i] = (masks[i] + r) % MOD
            masks[j] = (masks[j] - r) % MOD
    return masks


for rnd in range(ROUNDS):
    g_sd = global_model.state_dict()
    float_keys = [k for k, v in g_sd.items() if v.is_floating_point()]
    client_sds = [local_update(global_model, X, y) for X, y in data]

    new_sd = {}
    for key in float_keys:
        deltas = [(sd[key] - g_sd[key]).float() for sd in client_sds]
        masks = pairwise_masks(g_sd[key].shape, N_CLIENTS, rnd)
        uploads = []
        for d, m in zip(deltas, masks):
            q = torch.round(d * SCALE).to(torch.int64) % MOD
            uploads.append((q + m) % MOD)
        total = torch.zeros_like(uploads[0])
        for u in uploads:
            total = (total + u) % MOD
        # back to signed range, then dequantise
        total = torch.where(total >= MOD // 2, total - MOD, total)
        mean_delta = total.to(torch.float64) / SCALE / N_CLIENTS
        plain = torch.stack(deltas).mean(0)
        assert torch.allclose(mean_delta.float(), plain, atol=1e-4), key
        new_sd[key] = g_sd[key] + mean_delta.to(g_sd[key].dtype)
    for key, v in g_sd.items():
        if not v.is_floating_point():  # num_batches_tracked: integer counter
            new_sd[key] = torch.stack([sd[key] for sd in client_sds]).max()
    global_model.load_state_dict(new_sd)

    global_model.eval()
    with torch.no_grad():
        accs = [(global_model(X).argmax(-1) == y).float().mean().item() for X, y in data]
        losses = [nn.functional.cross_entropy(global_model(X), y).item() for X, y in data]
    assert np.isfinite(losses).all()
    print(f"round {rnd}: mean acc {np.mean(accs):.3f} mean loss {np.mean(losses):.4f}")
