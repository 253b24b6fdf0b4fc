#!/usr/bin/python3
"""train/train_points.py: trains the point model on the views of
train/views.py and writes it as ONNX (run by OpenCV's dnn module through
cvshim), with its leave-one-source-out figures.

The model classifies the 26 x 26 pixel window round a position of a view
(2.2 cells, 12 px a cell: the point and half its neighbours): 0 empty
intersection, 1 black stone, 2 white stone, 3 no intersection (between the
lines, past the board, no board).
Its convolutions take no padding, so run over a whole view it answers at
every window 4 px apart: at each lattice point and at the thirds of a cell
between them (vision/model.c).

Leave-one-source-out: for each of imago, gomrade, goban-watcher and
stone-boxes a model is trained without it and read on its photos as they
are (the lattice points labelled there); then, for photos of a kind the
model has seen but not these ones, each goban-watcher game left out in
turn.  The temperature that calibrates the final model's probabilities is
fitted to those held-out readings.  Each held-out model is also written as
build/train/heldout-FOLD.onnx, so that `goscribe scan --model` reads the
photos it never saw with it (doc/evaluation.md).

usage: train/train_points.py [--views build/train/views.npz] [--out vision/points.onnx]
                             [--report FILE] [--epochs N] [--seed S] [--no-loso]
                             [--loso SOURCES] [--games GAMES]
"""
import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The window: 26 px, 2.2 cells.  An 18 px window (1.5 cells) saw a stone
# with too little round it: on goban-watcher, a source it never saw, black
# stones on the edge line (the board ends a third of a cell past it, on a
# dark table) and among black stones were read "none".  Leave-one-source-
# out goban-watcher at 6 epochs: 88.5 -> 90.8 % (34 px: 91.2 %, at half
# the speed again); goban-watcher game 2 left out 93.7 -> 95.9 %.
CELL, WIN = 12, 26
SOURCES = ["imago", "gomrade", "goban-watcher", "stone-boxes"]
GAMES = ["goban-watcher/game1", "goban-watcher/game2", "goban-watcher/game3"]  # photos' folders, left out in turn
ON_TOL = 4      # px (1/3 cell): a window this near a lattice point is that point's (a found grid is 0.1-0.3 cell off in places)
OFF_FROM = 6    # px (half a cell): a window this far from every lattice point sees none
CHANNELS = (16, 32, 48)
PLAIN = 0.3     # share of the windows trained on without their colours changed
# Each window is scaled on each axis by exp(U(-1/2, 1/2) * SCALE_SPREAD):
# 0.82-1.22.  Tried 0.8 (0.67-1.49, for boards whose stones fill more of a
# cell, and oblique views): leave-one-source-out at 12 epochs rose on
# every source (imago 99.88 -> 99.96 %, Gomrade 99.53 -> 99.58,
# goban-watcher 88.45 -> 91.62, stone-boxes 94.29 -> 94.97), but the
# product read worse: the model trained on everything marked more on the
# visible photos (198 -> 213), left 4 wrong points unmarked on the
# goban-watcher photos turned 90 degrees (1), and its less sure colours
# made count's ranges wider (median 0 -> 8); the source-held-out models read
# a Gomrade board a line off (51 points) and marked imago twice as often.
SCALE_SPREAD = 0.4
# Share of the windows mirrored left to right (the camera stays below the
# board; the lamp's side changes).  Without it the model learned the side
# the visible photos' lamps stand on: the seventh stop's model marked 1,344
# points of the goban-watcher photos mirrored against 81 as they are, and
# read the view's mirror image of photos it never saw worse than the view.
# Leave-one-source-out at 12 epochs, seed 1, without -> with:
# goban-watcher 91.30 -> 92.29 %, stone-boxes 95.36 -> 95.73 %, wrong
# points at 0.9 or more 289 -> 242 and 818 -> 750 (vision/points.md).
MIRROR = 0.5


class PointNet(nn.Module):
    """Four valid 3x3 convolutions with batch norm, two 2x2 poolings: a
    26 px window -> 4 class scores (1 x 1), 4 px a step over a view."""

    def __init__(self, c=CHANNELS):
        super().__init__()
        a, b, d = c
        self.f = nn.Sequential(
            nn.Conv2d(3, a, 3), nn.BatchNorm2d(a), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(a, b, 3), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(b, d, 3), nn.BatchNorm2d(d), nn.ReLU(),
            nn.Conv2d(d, d, 3), nn.BatchNorm2d(d), nn.ReLU(),
            nn.Conv2d(d, 4, 1))

    def forward(self, x):
        return self.f(x)


class Calibrated(nn.Module):
    """The exported model: logits over the temperature, softmax over the classes."""

    def __init__(self, net, t):
        super().__init__()
        self.net, self.t = net, t

    def forward(self, x):
        return torch.softmax(self.net(x) / self.t, dim=1)


IN_LO, IN_HI = -4.0, 2.0  # the input's range (log2 of sample over wood), as vision/view.c clips it
NOISE_FLOOR = 8.0         # grey levels added to sample and wood alike, as vision/view.c does
# A channel whose wood is under LIVE_HI grey levels is partly dead, under
# LIVE_LO wholly (as vision/view.c): a lamp of one colour leaves one so
# (goban-watcher: wood at 1-7 under the blue, cyan, green and pink lamps,
# 25 and more in every channel under the others), and what it shows is
# JPEG's colour blocks and noise, not the board.
LIVE_LO, LIVE_HI = 4.0, 24.0
LIVE_EPS = 1e-3  # the weight of a dead channel in the mean: a photo dark in all three keeps their mean


def to_input(bgr, wood):
    """The model's input, as vision/view.c makes it: log2 of each channel
    over the wood's, both raised by the noise floor; a channel the lamp
    leaves dark (its wood under LIVE_HI grey levels) is given, in its
    measure, the mean of the live ones.  bgr: (..., 3, H, W) float, wood:
    broadcastable (..., 3, 1, 1)."""
    x = torch.log2((bgr + NOISE_FLOOR) / (wood + NOISE_FLOOR)).clamp(IN_LO, IN_HI)
    live = ((wood - LIVE_LO) / (LIVE_HI - LIVE_LO)).clamp(0, 1)
    mean = ((live + LIVE_EPS) * x).sum(-3, keepdim=True) / (live + LIVE_EPS).sum(-3, keepdim=True)
    return live * x + (1 - live) * mean


def normalised(v):
    """A view's input (3 x H x W)."""
    bgr = torch.from_numpy(v["img"].astype(np.float32)).permute(2, 0, 1)
    return to_input(bgr, torch.from_numpy(v["wood"]).view(3, 1, 1))


def labels_at(v, x0, y0):
    """Labels of windows at view pixels (x0, y0) (arrays); -1 = not used."""
    lab, nv, nu = v["lab"], v["lab"].shape[0], v["lab"].shape[1]
    u = x0 / CELL + v["du"]
    w = y0 / CELL + v["dv"]
    iu, iv = np.rint(u).astype(int), np.rint(w).astype(int)
    du, dv = np.abs(u - iu) * CELL, np.abs(w - iv) * CELL
    inr = (iu >= 0) & (iu < nu) & (iv >= 0) & (iv < nv)
    known = np.where(inr, lab[np.clip(iv, 0, nv - 1), np.clip(iu, 0, nu - 1)], -1 if v["source"] == "stone-boxes" else 3)
    on = np.maximum(du, dv) <= ON_TOL
    off = np.maximum(du, dv) >= OFF_FROM
    # a window between lattice points is taken as "none" only where the
    # nearest point is empty or past the board: between touching stones,
    # where a stone set off its point looks much like one between two
    # points, the model is not asked (crowded boards of a source it never
    # saw were read "none" where their stones sat off their points)
    out = np.where(on, known, np.where(off & ((known == 0) | (known == 3)), 3, -1))
    # the nearest lattice point of the view must lie in the photo
    ju = np.clip(np.rint(x0 / CELL).astype(int), 0, nu - 1)
    jv = np.clip(np.rint(y0 / CELL).astype(int), 0, nv - 1)
    out[~v["inside"][jv, ju]] = -1
    return out


def draw(v, rng, n_on, n_off):
    """Window positions and labels drawn from view v: near lattice points and anywhere."""
    H, W = v["img"].shape[:2]
    nv, nu = v["lab"].shape
    # near the true lattice: view pixel of true point (i, j) is CELL * (i - du)
    i = rng.integers(0, nu, n_on)
    j = rng.integers(0, nv, n_on)
    x_on = np.rint(CELL * (i - v["du"])).astype(int) + rng.integers(-ON_TOL, ON_TOL + 1, n_on)
    y_on = np.rint(CELL * (j - v["dv"])).astype(int) + rng.integers(-ON_TOL, ON_TOL + 1, n_on)
    x_any = rng.integers(0, W - WIN + 1, n_off)
    y_any = rng.integers(0, H - WIN + 1, n_off)
    x0, y0 = np.r_[x_on, x_any], np.r_[y_on, y_any]
    ok = (x0 >= 0) & (y0 >= 0) & (x0 <= W - WIN) & (y0 <= H - WIN)
    x0, y0 = x0[ok], y0[ok]
    lab = labels_at(v, x0, y0)
    k = lab >= 0
    return x0[k], y0[k], lab[k]


def augment_colour(x, g):
    """Colours as other lamps, cameras and stones give them (log2 space):
    each channel's contrast and offset, channels mixed, swapped, or grey.
    Lamps of one colour (violet, green, red) and green stones make the
    stones' colours against the wood unlike any white light's; a model
    that must read them after these changes learns brightness and the
    difference from the wood rather than one set of colours."""
    b = x.shape[0]
    gamma = torch.exp(torch.randn(b, 3, 1, 1, generator=g) * 0.25)
    offset = torch.randn(b, 3, 1, 1, generator=g) * 0.15 + torch.randn(b, 1, 1, 1, generator=g) * 0.2
    x = x * gamma + offset
    mix = torch.rand(b, generator=g) < 0.4
    if mix.any():
        m = torch.eye(3) + torch.randn(int(mix.sum()), 3, 3, generator=g) * 0.3
        m = m / m.sum(2, keepdim=True).clamp(min=0.3)
        x[mix] = torch.einsum("bij,bjhw->bihw", m, x[mix])
    perm = torch.rand(b, generator=g) < 0.2
    if perm.any():
        x[perm] = x[perm][:, torch.randperm(3, generator=g)]
    grey = torch.rand(b, generator=g) < 0.25
    if grey.any():
        x[grey] = x[grey].mean(1, keepdim=True).expand(-1, 3, -1, -1)
    return x


def lamp(bgr, wood, g):
    """Raw windows as a lamp of one colour and another exposure show them:
    each channel scaled (a violet lamp leaves green nearly black), sensor
    noise, 8-bit steps and the white clip; the wood scaled alike (the view's
    median of it follows the lamp)."""
    b = bgr.shape[0]
    coloured = (torch.rand(b, 1, 1, 1, generator=g) < 0.6).float()
    gains = torch.exp(coloured * torch.empty(b, 3, 1, 1).uniform_(math.log(0.03), math.log(1.3), generator=g)
                      + (1 - coloured) * torch.randn(b, 3, 1, 1, generator=g) * 0.1)
    gains = gains / gains.amax(1, keepdim=True) * torch.empty(b, 1, 1, 1).uniform_(0.4, 1.4, generator=g)
    noisy = bgr * gains + torch.randn(bgr.shape, generator=g) * torch.rand(b, 1, 1, 1, generator=g) * 5
    return noisy.round().clamp(0, 255), wood * gains


def augment(bgr, wood, g):
    """Photometric and small geometric changes of a batch of raw windows
    (B, G, R and their wood): the model's input."""
    b = bgr.shape[0]
    # a share of the windows as the photos show them, so the model is sure
    # where they are plain (its doubt marks points for a user to check)
    plain = torch.rand(b, generator=g) < PLAIN
    lit, lit_wood = lamp(bgr, wood, g)
    x = to_input(torch.where(plain[:, None, None, None], bgr, lit),
                 torch.where(plain[:, None, None, None], wood, lit_wood))
    x = torch.where(plain[:, None, None, None], x, augment_colour(x, g))
    # light falling off across the window
    ramp = torch.linspace(-1, 1, WIN)
    a = torch.rand(b, generator=g) * 2 * math.pi
    grad = torch.cos(a)[:, None, None] * ramp[None, None, :] + torch.sin(a)[:, None, None] * ramp[None, :, None]
    x = x + torch.rand(b, 1, 1, 1, generator=g) * 0.3 * grad.unsqueeze(1)
    # rotation, a scale on each axis (stones larger or smaller for their
    # cells, drawn out by an oblique view) and a shift of up to 2 px
    ang = (torch.rand(b, generator=g) - 0.5) * math.radians(20)
    sx = torch.exp((torch.rand(b, generator=g) - 0.5) * SCALE_SPREAD)
    sy = torch.exp((torch.rand(b, generator=g) - 0.5) * SCALE_SPREAD)
    t = (torch.rand(b, 2, generator=g) - 0.5) * (4.0 / WIN)
    th = torch.stack([torch.stack([torch.cos(ang) * sx, -torch.sin(ang) * sy, t[:, 0]], 1),
                      torch.stack([torch.sin(ang) * sx, torch.cos(ang) * sy, t[:, 1]], 1)], 1)
    grid = F.affine_grid(th, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    # blur for some, noise for all
    blur = torch.rand(b, generator=g) < 0.3
    if blur.any():
        k = torch.tensor([0.25, 0.5, 0.25])
        k2 = (k[:, None] * k[None, :]).expand(3, 1, 3, 3)
        x[blur] = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k2, groups=3)
    x = x + torch.randn(x.shape, generator=g) * (torch.rand(b, 1, 1, 1, generator=g) * 0.1)
    # half of them mirrored left to right: the camera stays at the bottom,
    # the lamp's side and the shadows change sides, as between two rooms
    mirror = torch.rand(b, generator=g) < MIRROR
    x = torch.where(mirror[:, None, None, None], x.flip(3), x)
    return x.clamp(IN_LO, IN_HI)


def batches(views, tensors, rng, n_on, n_off, bs):
    """One epoch of (raw windows, their wood, labels) batches, shuffled."""
    xs, ys = [], []
    for k, v in enumerate(views):
        x0, y0, lab = draw(v, rng, n_on, n_off)
        xs.append(np.c_[np.full(len(x0), k), x0, y0])
        ys.append(lab)
    idx = np.concatenate(xs)
    lab = np.concatenate(ys)
    order = rng.permutation(len(lab))
    for s in range(0, len(order), bs):
        sel = order[s:s + bs]
        if len(sel) < 2:  # batch norm needs two windows; a last one alone is dropped
            continue
        win = torch.stack([tensors[i][:, y:y + WIN, x:x + WIN] for i, x, y in idx[sel]])
        wood = torch.stack([torch.from_numpy(views[i]["wood"]) for i in idx[sel][:, 0]]).view(-1, 3, 1, 1)
        yield win.float(), wood, torch.from_numpy(lab[sel].astype(np.int64))


def train(views, tensors, epochs, seed, log):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    g = torch.Generator().manual_seed(seed)
    net = PointNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps_per_epoch = None
    sched = None
    for ep in range(epochs):
        net.train()
        t0, tot, n, right = time.time(), 0.0, 0, 0
        bl = list(batches(views, tensors, rng, 40, 40, 256))
        if sched is None:
            steps_per_epoch = len(bl)
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * steps_per_epoch + 10)
        for x, wood, y in bl:
            x = augment(x, wood, g)
            out = net(x)[:, :, 0, 0]
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(y)
            n += len(y)
            right += (out.argmax(1) == y).sum().item()
        log("  epoch %d: loss %.4f, windows right %.2f %%, %.0f s" % (ep + 1, tot / n, 100 * right / n, time.time() - t0))
    return net.eval()


@torch.no_grad()
def read_view(net, t):
    """Logits at every lattice point of a view (4 x nv x nu)."""
    return net(t[None].float())[0][:, ::3, ::3]


@torch.no_grad()
def evaluate(net, views, tensors):
    """Per view: logits and labels at the true lattice points in the photo (views as they are)."""
    out = []
    for v, t in zip(views, tensors):
        if v["kind"] != "as is" or v["du"] != 0 or v["dv"] != 0:
            continue
        lg = read_view(net, normalised(v))
        lab = v["lab"]
        k = (lab >= 0) & v["inside"]
        out.append((v, lg.permute(1, 2, 0)[torch.from_numpy(k)], torch.from_numpy(lab[k].astype(np.int64))))
    return out


def figures(res, name):
    """Accuracy on the board's points, and what the none class says of them."""
    right = tot = boxes_right = boxes = 0
    p_none = []
    for v, lg, y in res:
        pr = lg.argmax(1)
        on = y < 3
        right += (pr[on] == y[on]).sum().item()
        tot += on.sum().item()
        st = (y == 1) | (y == 2)
        boxes_right += (pr[st] == y[st]).sum().item()
        boxes += st.sum().item()
        p_none.append(torch.softmax(lg[on], 1)[:, 3])
    pn = torch.cat(p_none) if p_none else torch.zeros(1)
    conf = np.zeros((4, 4), int)
    right3 = 0
    for v, lg, y in res:
        pr = lg.argmax(1)
        for t, q in zip(y.tolist(), pr.tolist()):
            conf[t, q] += 1
        on = y < 3
        right3 += (lg[on][:, :3].argmax(1) == y[on]).sum().item()
    return dict(name=name, points=tot, right=right, stones=boxes, stones_right=boxes_right, right3=right3,
                none_mean=pn.mean().item(), none_over_half=(pn > 0.5).float().mean().item(), conf=conf)


def fit_temperature(logits, labels):
    t = torch.ones(1, requires_grad=True)
    opt = torch.optim.LBFGS([t], lr=0.1, max_iter=100)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits / t.clamp(min=0.05), labels)
        loss.backward()
        return loss
    opt.step(closure)
    return float(t.clamp(min=0.05).item())


def export(net, t, path):
    m = Calibrated(net, t).eval()
    x = torch.zeros(1, 3, 11 * CELL + WIN, 11 * CELL + WIN)
    torch.onnx.export(m, x, path, opset_version=11, input_names=["view"], output_names=["classes"],
                      dynamic_axes={"view": {2: "height", 3: "width"}, "classes": {2: "rows", 3: "cols"}})


def report_fold(log, f, s):
    """The figures of one held-out fold, as vision/points.md gives them."""
    log("  held out %s: points %d/%d right (%.3f %%), stones %d/%d (%.3f %%), p(none) on points %.3f mean, "
        "%.2f %% over 0.5" % (s, f["right"], f["points"], 100 * f["right"] / max(f["points"], 1),
                             f["stones_right"], f["stones"], 100 * f["stones_right"] / max(f["stones"], 1),
                             f["none_mean"], 100 * f["none_over_half"]))
    log("  of the three colours alone: %d/%d (%.3f %%); confusion (rows truth, columns read: empty, black, "
        "white, none):\n%s" % (f["right3"], f["points"], 100 * f["right3"] / max(f["points"], 1),
                                "\n".join("    " + " ".join("%7d" % x for x in row) for row in f["conf"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--views", default=os.path.join(ROOT, "build", "train", "views.npz"))
    ap.add_argument("--out", default=os.path.join(ROOT, "vision", "points.onnx"))
    ap.add_argument("--report", default=os.path.join(ROOT, "build", "train", "report.txt"))
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-loso", action="store_true", help="train the final model only")
    ap.add_argument("--loso", default=",".join(SOURCES), help="the sources left out in turn (default: all four)")
    ap.add_argument("--games", default=",".join(GAMES), help="the photo folders left out in turn (default: the "
                    "three goban-watcher games; empty: none)")
    ap.add_argument("--no-final", action="store_true", help="the leave-one-source-out models only")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="torch threads (default: the cores)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    rep = open(a.report, "w")

    def log(s):
        print(s, file=sys.stderr)
        rep.write(s + "\n")
        rep.flush()
    views = list(np.load(a.views, allow_pickle=True)["views"])
    tensors = [torch.from_numpy(v["img"]).permute(2, 0, 1).contiguous() for v in views]  # raw B, G, R
    log("train_points: %d views (%s)" % (len(views), ", ".join(
        "%s %d" % (s, sum(v["source"] == s for v in views)) for s in SOURCES + ["negative"])))
    held_logits, held_labels = [], []
    if not a.no_loso:
        folds = [f for f in a.loso.split(",") + a.games.split(",") if f]
        for s in folds:
            held = (lambda v, s=s: s + "/" in v["name"]) if "/" in s else (lambda v, s=s: v["source"] == s)
            log("leave out %s:" % s)
            tr = [k for k, v in enumerate(views) if not held(v)]
            te = [k for k, v in enumerate(views) if held(v)]
            net = train([views[k] for k in tr], [tensors[k] for k in tr], a.epochs, a.seed, log)
            res = evaluate(net, [views[k] for k in te], [tensors[k] for k in te])
            report_fold(log, figures(res, s), s)
            export(net, 1.0, os.path.join(os.path.dirname(a.report), "heldout-%s.onnx" % s.replace("/", "-")))
            for _, lg, y in res:
                held_logits.append(lg)
                held_labels.append(y)
    t = 1.0
    if held_logits:
        t = fit_temperature(torch.cat(held_logits), torch.cat(held_labels))
        log("temperature (fitted to the held-out readings): %.3f" % t)
    if a.no_final:
        return
    log("the final model, every source:")
    net = train(views, tensors, a.epochs, a.seed, log)
    export(net, t, a.out)
    log("written %s (%d bytes, %d parameters)" % (a.out, os.path.getsize(a.out),
                                                  sum(p.numel() for p in net.parameters())))


if __name__ == "__main__":
    main()
