"""Neural linear-blend skinning: an MLP predicts per-vertex skinning weights for a toy 3-bone arm.

Stage 1 trains and saves a checkpoint (safetensors). Stage 2 re-creates the model on the meta
device (fast, no random init) and loads the checkpoint with assign=True, then fine-tunes on new poses.
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
N_BONES = 3
N_VERTS = 300


def rest_mesh():
    # cylinder-ish arm along x in [0, 3]
    x = torch.rand(N_VERTS) * 3.0
    t = torch.rand(N_VERTS) * 2 * math.pi
    return torch.stack([x, 0.2 * torch.cos(t), 0.2 * torch.sin(t)], -1)


def bind_matrices():
    B = torch.eye(4).repeat(N_BONES, 1, 1)
    B[:, 0, 3] = torch.arange(N_BONES, dtype=torch.float32)  # bone j starts at x=j
    return B


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return torch.tensor([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def forward_kinematics(angles):
    # chain of bones, each rotating around z at its joint
    T, out = torch.eye(4), []
    for j, a in enumerate(angles):
        joint = torch.eye(4)
        joint[0, 3] = 1.0 if j > 0 else 0.0
        T = T @ joint @ rot_z(a)
        out.append(T)
    return torch.stack(out)


class NeuralSkinning(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight_mlp = nn.Sequential(nn.Linear(3, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, N_BONES))
        # inverse bind matrices are derived from the skeleton, so they are not saved in the checkpoint
        self.register_buffer("inv_bind", torch.linalg.inv(bind_matrices()), persistent=False)

    def forward(self, verts, bone_T):
        w = F.softmax(self.weight_mlp(verts), dim=-1)  # (V, J)
        skin_T = bone_T @ self.inv_bind  # (J, 4, 4)
        vh = F.pad(verts, (0, 1), value=1.0)
        per_bone = torch.einsum("jab,vb->vja", skin_T, vh)[..., :3]
        return (w[..., None] * per_bone).sum(1)


def gt_weights(verts):
    d = torch.stack([(verts[:, 0] - (j + 0.5)).abs() for j in range(N_BONES)], -1)
    return F.softmax(-d * 6.0, -1)


def train(model, verts, steps, lr):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    gt_inv_bind = torch.linalg.inv(bind_matrices())
    for step in range(steps):
        angles = (torch.rand(N_BONES) - 0.5) * 1.5
        bone_T = forward_kinematics(angles.tolist())
        vh = F.pad(verts, (0, 1), value=1.0)
        target = (gt_weights(verts)[..., None] * torch.einsum("jab,vb->vja", bone_T @ gt_inv_bind, vh)[..., :3]).sum(1)
        pred = model(verts, bone_T)
        loss = F.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"  step {step:3d} vertex mse {loss.item():.6f}")
    return loss.item()


def main():
    verts = rest_mesh()
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "skinning.safetensors")
        print("stage 1: pretrain")
        model = NeuralSkinning()
        train(model, verts, 60, 3e-3)
        save_file(model.state_dict(), ckpt)

        print("stage 2: fine-tune from checkpoint")
        with torch.device("meta"):
            model2 = NeuralSkinning()
        missing, unexpected = model2.load_state_dict(load_file(ckpt), assign=True)
        print("missing:", missing, "unexpected:", unexpected)
        train(model2, verts, 40, 1e-3)


if __name__ == "__main__":
    main()
