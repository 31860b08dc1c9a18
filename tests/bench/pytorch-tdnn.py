#!/usr/bin/env python3
"""The benchmark TDNN (tests/data/bench/tdnn.config) in PyTorch, as the peer
for compute-bench and train-bench: plain Conv1d layers with the same splicing
(dilated kernels), ReLU + BatchNorm, a 3000-way log-softmax, in FP32 (TF32
off). Prints inference frames/s over whole utterances and training frames/s
of plain SGD on minibatches of 8-frame sequences with the network's context,
on the CPU or a GPU. PyTorch is optional: this script is never a build or
test dependency.

Usage: pytorch-tdnn.py [--device=cpu|cuda] [--threads=N] [--num-utts=200]
                       [--frames=500] [--minibatch=256] [--num-minibatches=8]
                       [--reps=2]
"""
import argparse
import time

import torch
import torch.nn as nn

# (kernel size, dilation) per layer: offsets -2..2, (-1,0,1) x2, (-3,0,3) x2,
# (-6,-3,0) (a shifted 3-tap kernel of dilation 3).
LAYERS = [(5, 1), (3, 1), (3, 1), (3, 3), (3, 3), (3, 3)]
CONTEXT = sum((k - 1) * d for k, d in LAYERS)  # 26 = 16 left + 10 right


class Tdnn(nn.Module):
    def __init__(self, feat_dim=40, hidden=1024, num_pdfs=3000):
        super().__init__()
        layers, dim = [], feat_dim
        for k, d in LAYERS:
            layers += [nn.Conv1d(dim, hidden, k, dilation=d), nn.ReLU(),
                       nn.BatchNorm1d(hidden, affine=False)]
            dim = hidden
        self.body = nn.Sequential(*layers)
        self.out = nn.Conv1d(hidden, num_pdfs, 1)

    def forward(self, x):  # x: (batch, feat_dim, frames + CONTEXT)
        return torch.log_softmax(self.out(self.body(x)), dim=1)


def sync(device):
    if device.type == 'cuda':
        torch.cuda.synchronize()


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--device', default='cpu')
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--num-utts', type=int, default=200)
    p.add_argument('--frames', type=int, default=500)
    p.add_argument('--minibatch', type=int, default=256)
    p.add_argument('--num-minibatches', type=int, default=8)
    p.add_argument('--reps', type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device(a.device)
    torch.manual_seed(0)
    model = Tdnn().to(device)
    print('pytorch-tdnn: torch %s on %s, %d thread(s), best of %d'
          % (torch.__version__, device, a.threads, a.reps))

    # Inference: one utterance at a time, whole, in eval mode.
    utts = [torch.randn(1, 40, a.frames + CONTEXT) for _ in range(a.num_utts)]
    model.eval()
    best = 1e30
    with torch.no_grad():
        model(utts[0].to(device)).cpu()
        for _ in range(a.reps):
            sync(device)
            t = time.time()
            for u in utts:
                model(u.to(device)).cpu()
            sync(device)
            best = min(best, time.time() - t)
    print('  inference: %.3f s  %.1f frames/s'
          % (best, a.num_utts * a.frames / best))

    # Training: plain SGD, minibatches of 8-frame sequences with context.
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    batches = [(torch.randn(a.minibatch, 40, 8 + CONTEXT, device=device),
                torch.randint(0, 3000, (a.minibatch, 8), device=device))
               for _ in range(a.num_minibatches)]
    loss_fn = nn.NLLLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    step(*batches[0])
    best = 1e30
    for _ in range(a.reps):
        sync(device)
        t = time.time()
        for x, y in batches:
            step(x, y)
        sync(device)
        best = min(best, time.time() - t)
    frames = a.num_minibatches * a.minibatch * 8
    print('  training:  %.3f s  %.1f frames/s' % (best, frames / best))


if __name__ == '__main__':
    main()
