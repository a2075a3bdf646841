#!/usr/bin/env python3
"""A PyTorch twin of palace's policy/value network, for speed comparisons.

The architecture is nn/model's (config.go, forward.go): an input of PLANES
planes of 10x9; a stem 3x3 convolution + batch norm + ReLU; BLOCKS residual
blocks of conv3x3-BN-ReLU-conv3x3-BN, plus the block's input, ReLU (no
squeeze-excitation, no global pooling); a policy head of a 1x1 convolution to
POLICY_CHANNELS + BN + ReLU, flattened in [channel][square] order, and a
dense layer to POLICY_SIZE logits; a WDL head of a 1x1 convolution to
VALUE_CHANNELS + BN + ReLU, flattened, a dense layer to VALUE_HIDDEN units
+ ReLU and a dense layer to 3 logits. Convolutions have no bias (batch norm's
beta is it). Weights are random: only the speed is compared.

Modes (one JSON object a line on stdout):
  params  the parameter count as palace counts it (`palace net info`): every
          weight, bias, batch-norm gamma and beta, and the batch norms'
          running mean and variance, which palace's checkpoints hold.
  infer   positions/s at each --batch, batch norm folded into the
          convolutions as palace's inference does, under torch.inference_mode.
  train   samples/s of forward + backward + SGD-momentum steps at one batch:
          the losses of nn/gnet (policy cross-entropy against a distribution
          over the policy slots, WDL cross-entropy against 3 probabilities, L2
          c*sum(w^2) over convolution and dense weights, here as SGD's
          weight_decay 2c on those weights), batch norm in training mode.

--bf16 runs either mode on PyTorch's fastest CPU path: bf16 autocast
(torch.autocast("cpu", dtype=torch.bfloat16): convolutions and dense layers
in bf16, accumulated in float32, float32 master weights) and channels-last
tensors (oneDNN's preferred layout).

Only torch and the standard library. Usage:
  python3 scripts/torch_twin.py --mode infer --blocks 6 --channels 64 --batch 1,8,32 --seconds 3
  python3 scripts/torch_twin.py --mode train --blocks 6 --channels 64 --batch 64 --threads 2 [--bf16]
"""

import contextlib

import argparse
import json
import os
import sys
import time

# The thread count has to reach the BLAS library before torch loads it:
# Debian's torch calls the system BLAS (OpenBLAS), whose own threads
# torch.set_num_threads does not govern; they would spin on the other core
# of a "single-thread" process.
_pre = argparse.ArgumentParser(add_help=False)
_pre.add_argument("--threads", type=int, default=1)
_threads = str(max(1, _pre.parse_known_args()[0].threads))
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = _threads

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit("torch_twin.py: PyTorch is not installed for %s (apt-get install python3-torch)" % sys.executable)

RANKS, FILES = 10, 9
SQUARES = RANKS * FILES
BN_EPS = 1e-5  # model.BNEpsilon


class ConvBN(nn.Module):
    """A convolution without bias and its batch norm; fold() turns the pair
    into one convolution with bias, as model.NewNet does."""

    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=BN_EPS, momentum=0.1)
        self.folded = None

    def fold(self):
        s = self.bn.weight / torch.sqrt(self.bn.running_var + BN_EPS)
        c = nn.Conv2d(self.conv.in_channels, self.conv.out_channels, self.conv.kernel_size,
                      padding=self.conv.padding, bias=True)
        with torch.no_grad():
            c.weight.copy_(self.conv.weight * s.view(-1, 1, 1, 1))
            c.bias.copy_(self.bn.bias - self.bn.running_mean * s)
        self.folded = c

    def forward(self, x):
        if self.folded is not None:
            return self.folded(x)
        return self.bn(self.conv(x))


class Block(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.c1 = ConvBN(ch, ch, 3)
        self.c2 = ConvBN(ch, ch, 3)

    def forward(self, x):
        return F.relu(self.c2(F.relu(self.c1(x))) + x)


class Twin(nn.Module):
    def __init__(self, planes, blocks, filters, policy_channels, value_channels, value_hidden, policy_size):
        super().__init__()
        self.stem = ConvBN(planes, filters, 3)
        self.blocks = nn.Sequential(*[Block(filters) for _ in range(blocks)])
        self.pconv = ConvBN(filters, policy_channels, 1)
        self.pfc = nn.Linear(policy_channels * SQUARES, policy_size)
        self.vconv = ConvBN(filters, value_channels, 1)
        self.vfc1 = nn.Linear(value_channels * SQUARES, value_hidden)
        self.vfc2 = nn.Linear(value_hidden, 3)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        # NCHW flattening is palace's [channel][square] order.
        p = self.pfc(torch.flatten(F.relu(self.pconv(x)), 1))
        v = F.relu(self.vfc1(torch.flatten(F.relu(self.vconv(x)), 1)))
        return p, self.vfc2(v)

    def fold(self):
        for m in self.modules():
            if isinstance(m, ConvBN):
                m.fold()

    def palace_params(self):
        """Floats in palace's checkpoint: parameters plus BN running stats."""
        n = sum(p.numel() for p in self.parameters())
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                n += m.running_mean.numel() + m.running_var.numel()
        return n


def build(a):
    torch.manual_seed(a.seed)
    m = Twin(a.planes, a.blocks, a.channels, a.policy_channels, a.value_channels, a.value_hidden, a.policy_size)
    # Batch norm statistics that are not the identity, so folding is real work
    # done once and the folded net is what runs.
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.1, 0.1)
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
    return m


def emit(obj):
    print(json.dumps(obj), flush=True)


def run_for(fn, seconds, min_rounds):
    """Calls fn until seconds have passed and at least min_rounds ran;
    returns (rounds, elapsed)."""
    rounds, start = 0, time.perf_counter()
    while True:
        fn()
        rounds += 1
        el = time.perf_counter() - start
        if el >= seconds and rounds >= min_rounds:
            return rounds, el


def precision(a):
    """The autocast context of --bf16 (nothing without it)."""
    if a.bf16:
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def layout(a, t):
    """t in channels-last under --bf16, as PyTorch's fastest path wants."""
    return t.contiguous(memory_format=torch.channels_last) if a.bf16 else t


def infer(a, m, batches):
    m.eval()
    m.fold()
    if a.bf16:
        m = m.to(memory_format=torch.channels_last)
    fwd = m
    with torch.inference_mode(), precision(a):
        if a.jit:
            ex = layout(a, torch.zeros(1, a.planes, RANKS, FILES))
            fwd = torch.jit.freeze(torch.jit.trace(m, ex))
        for batch in batches:
            # Palace's bench feeds 0,1,0,1,...; any 0/1 planes do.
            x = layout(a, (torch.arange(batch * a.planes * SQUARES) % 2).float().view(batch, a.planes, RANKS, FILES))
            run_for(lambda: fwd(x), a.warmup, 2)
            rounds, el = run_for(lambda: fwd(x), a.seconds, 2)
            emit({"mode": "infer", "blocks": a.blocks, "channels": a.channels, "batch": batch,
                  "bf16": a.bf16, "threads": torch.get_num_threads(), "positions": rounds * batch, "seconds": round(el, 4),
                  "positions_per_s": rounds * batch / el})


def train(a, m, batch):
    m.train()
    if a.bf16:
        m = m.to(memory_format=torch.channels_last)
    g = torch.Generator().manual_seed(a.seed)
    x = layout(a, (torch.rand(batch, a.planes, RANKS, FILES, generator=g) < 1 / 3).float())
    pt = torch.rand(batch, a.policy_size, generator=g) * (torch.rand(batch, a.policy_size, generator=g) < 0.5)
    pt[torch.arange(batch), torch.arange(batch) % a.policy_size] += 0.01
    pt = pt / pt.sum(1, keepdim=True)
    wt = torch.rand(batch, 3, generator=g)
    wt = wt / wt.sum(1, keepdim=True)
    # L2 c*sum(w^2) on convolution and dense weights: gradient 2c*w.
    decay = [p for n, p in m.named_parameters() if n.endswith("weight") and ".bn." not in n]
    rest = [p for n, p in m.named_parameters() if not (n.endswith("weight") and ".bn." not in n)]
    opt = torch.optim.SGD([{"params": decay, "weight_decay": 2 * a.l2}, {"params": rest, "weight_decay": 0}],
                          lr=1e-3, momentum=0.9)

    def step():
        opt.zero_grad(set_to_none=True)
        with precision(a):
            p, v = m(x)
        p, v = p.float(), v.float()
        loss = -(pt * F.log_softmax(p, 1)).sum(1).mean() - (wt * F.log_softmax(v, 1)).sum(1).mean()
        loss.backward()
        opt.step()

    run_for(step, a.warmup, 2)
    rounds, el = run_for(step, a.seconds, 3)
    emit({"mode": "train", "blocks": a.blocks, "channels": a.channels, "batch": batch,
          "bf16": a.bf16, "threads": torch.get_num_threads(), "samples": rounds * batch, "seconds": round(el, 4),
          "samples_per_s": rounds * batch / el})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["params", "infer", "train"], default="infer")
    ap.add_argument("--blocks", type=int, default=6, help="residual blocks (default 6)")
    ap.add_argument("--channels", "--filters", type=int, default=64, help="3x3 filters per convolution (default 64)")
    ap.add_argument("--planes", type=int, default=80, help="input planes (palace's encoding: 80)")
    ap.add_argument("--policy-size", type=int, default=2581, help="policy slots (palace's encoding: 2581)")
    ap.add_argument("--policy-channels", type=int, default=4)
    ap.add_argument("--value-channels", type=int, default=2)
    ap.add_argument("--value-hidden", type=int, default=64)
    ap.add_argument("--batch", default="1,8,32", help="comma-separated batch sizes (train: the first)")
    ap.add_argument("--seconds", type=float, default=3.0, help="measured seconds per batch size")
    ap.add_argument("--warmup", type=float, default=0.5, help="unmeasured seconds before each measurement")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--l2", type=float, default=1e-4, help="train: nn/gnet's L2 coefficient c")
    ap.add_argument("--jit", action="store_true", help="infer: torch.jit.trace + freeze the folded net")
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast and channels-last tensors: PyTorch's fastest CPU path")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    batches = [int(b) for b in a.batch.split(",") if b.strip()]
    if not batches or min(batches) < 1:
        ap.error("--batch %r: want positive sizes" % a.batch)
    m = build(a)
    if a.mode == "params":
        emit({"mode": "params", "blocks": a.blocks, "channels": a.channels, "params": m.palace_params(),
              "torch": torch.__version__})
    elif a.mode == "infer":
        infer(a, m, batches)
    else:
        train(a, m, batches[0])


if __name__ == "__main__":
    main()
