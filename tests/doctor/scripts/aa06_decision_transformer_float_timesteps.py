"""Decision Transformer (transformers) trained in bf16 on trajectories from a NumPy maze-walker task,
sampling context windows with returns-to-go and timesteps."""
import numpy as np
import torch
from transformers import DecisionTransformerConfig, DecisionTransformerModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
STATE, ACT, K, EP_LEN = 6, 2, 10, 50
DTYPE = torch.bfloat16


def rollout_episode():
    s = rng.normal(size=STATE)
    states, actions, rewards = [], [], []
    for t in range(EP_LEN):
        a = np.tanh(-s[:ACT] + 0.3 * rng.normal(size=ACT))
        states.append(s.copy()); actions.append(a)
        s[:ACT] += 0.2 * a
        s[ACT:] = 0.9 * s[ACT:] + 0.1 * rng.normal(size=STATE - ACT)
        rewards.append(-np.sum(s[:ACT] ** 2))
    states, actions, rewards = map(np.array, (states, actions, rewards))
    rtg = np.cumsum(rewards[::-1])[::-1].copy()
    return dict(states=states, actions=actions, rewards=rewards, rtg=rtg)


dataset = [rollout_episode() for _ in range(64)]
all_states = np.concatenate([d["states"] for d in dataset])
s_mean, s_std = all_states.mean(0), all_states.std(0) + 1e-6
RTG_SCALE = 10.0


def get_batch(batch_size=16):
    s = np.zeros((batch_size, K, STATE), dtype=np.float32)
    a = np.zeros((batch_size, K, ACT), dtype=np.float32)
    rtg = np.zeros((batch_size, K, 1), dtype=np.float32)
    timesteps = np.zeros((batch_size, K))
    mask = np.zeros((batch_size, K), dtype=np.int64)
    for b in range(batch_size):
        ep = dataset[rng.integers(len(dataset))]
        start = rng.integers(0, EP_LEN - K)
        s[b] = (ep["states"][start:start + K] - s_mean) / s_std
        a[b] = ep["actions"][start:start + K]
        rtg[b, :, 0] = ep["rtg"][start:start + K] / RTG_SCALE
        timesteps[b] = np.arange(start, start + K)
        mask[b] = 1
    return (torch.from_numpy(s), torch.from_numpy(a), torch.from_numpy(rtg),
            torch.from_numpy(timesteps), torch.from_numpy(mask))


config = DecisionTransformerConfig(state_dim=STATE, act_dim=ACT, hidden_size=64, n_layer=2, n_head=2,
                                   n_inner=128, max_ep_len=EP_LEN, n_positions=3 * K,
                                   bos_token_id=None, eos_token_id=None)
model = DecisionTransformerModel(config).to(DTYPE)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)

for step in range(100):
    states, actions, rtg, timesteps, mask = get_batch()
    out = model(states=states.to(DTYPE), actions=actions.to(DTYPE), rewards=None,
                returns_to_go=rtg.to(DTYPE), timesteps=timesteps, attention_mask=mask, return_dict=True)
    pred = out.action_preds
    loss = ((pred - actions.to(DTYPE)) ** 2)[mask.bool()].mean()
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    if step % 25 == 0:
        print(f"step {step} action mse {loss.item():.4f}")
print("done")
