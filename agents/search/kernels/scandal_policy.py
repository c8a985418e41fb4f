"""Rollouts of a numpy `BatchedScandal` by a learned policy, compiled row by row with numba.

Each row: `scandal_moves`' mask and moves, the observation as ``BatchObserver.write`` writes
it, and the legal action of highest logit of a `Snapshot`'s network, as ``LearnedRollout``
picks (``tests/scandal/test_rollout_policy.py``).
"""

# The kernels unpack the whole tuple of engine arrays, each using some of them.
# ruff: noqa: RUF059

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.search.kernels import base
from cardsuite.agents.search.kernels.base import RolloutTables, available, check_rows, inline, jit
from cardsuite.agents.search.kernels.scandal_moves import apply_row, mask_row
from cardsuite.errors import UsageError
from scandal_env.batched.consts import BUILD, DRAW, MELD, OVER

__all__ = ["PolicyNet", "available", "compiled_policy_rollouts", "play_out_policy"]

#: The observation's pieces, in the order of the offsets `ObsLayout` passes.
PIECES = (
    "hand", "opp_known", "laid_by", "melded_by", "building", "build_scandal", "discard_in",
    "discard_top", "discard_depth", "hand_sizes", "stock_size", "stock_public", "scores",
    "hand_points", "to_act", "dealer", "phase", "duty", "forbidden", "turn",
)  # fmt: skip


@dataclass(frozen=True)
class PolicyNet:
    """An MLP actor as the kernels read it (float32): the first layer's weight transposed,
    the biases, the later layers' weights, ReLU (else tanh), and `Snapshot.input_map`."""

    first: np.ndarray
    biases: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]
    relu: bool
    src: np.ndarray
    factor: np.ndarray
    const: np.ndarray

    @classmethod
    def of(cls, snapshot: Any, scale: np.ndarray, obs_size: int) -> PolicyNet:
        """The network of a `Snapshot` on observations of ``obs_size`` entries times ``scale``;
        UsageError: fewer than two layers, or an input map that does not fit."""
        layers = snapshot.layers()
        if len(layers) < 2:
            raise UsageError("compiled policy rollouts need an MLP of at least two layers")
        src, factor, const = snapshot.input_map(np.asarray(scale, np.float32))
        w0 = np.asarray(layers[0][0], np.float32)
        if w0.shape[1] != len(src) or int(np.max(src, initial=-1)) >= obs_size:
            raise UsageError(
                f"compiled policy rollouts: the input map ({len(src)} entries) does not fit "
                f"the first layer {w0.shape} or the observation ({obs_size})"
            )
        return cls(
            first=np.ascontiguousarray(w0.T),
            biases=tuple(np.ascontiguousarray(b, np.float32) for _, b in layers),
            weights=tuple(np.ascontiguousarray(w, np.float32) for w, _ in layers[1:]),
            relu=snapshot.activation == "relu",
            src=np.ascontiguousarray(src, np.int64),
            factor=np.ascontiguousarray(factor, np.float32),
            const=np.ascontiguousarray(const, np.float32),
        )

    @property
    def arrays(self) -> tuple[Any, ...]:
        """The fields as the kernels take them."""
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))


class ObsLayout:
    """The offsets and scale factors of one engine's observation (``BatchObserver``'s)."""

    def __init__(self, engine: Any) -> None:
        """Read the observer of ``engine`` (a numpy `BatchedScandal`)."""
        observer = engine.observer
        sl = observer.spec.slices
        self.off = np.array([sl[name].start for name in PIECES], dtype=np.int64)
        self.size = int(observer.spec.size)
        inv = (observer.inv_n, observer.inv_target, observer.inv_turns)
        self.fl = np.array([*inv, float(max(1, observer.n - 1))], dtype=np.float64)


@inline
def _observe_row(g, obs, off, fl, st):  # type: ignore[no-untyped-def]
    """Write row ``g``'s observation by its player to act into ``obs`` (``BatchObserver.write``)."""
    (hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal, pile_arr,
     pile_pos, pile_len, stock_arr, stock_len, stock_public, cur, dealer, phase, duty, forbidden,
     turn, scores, hand_end, game_over) = st  # fmt: skip
    p, n = hands.shape[1], hands.shape[2]
    ns = meld_owner.shape[1]
    me = cur[g]
    obs[:] = 0.0
    o_hand, o_opp, o_laid, o_meld, o_build, o_bs = off[0], off[1], off[2], off[3], off[4], off[5]
    o_in, o_top, o_depth, o_hs, o_ss, o_sp = off[6], off[7], off[8], off[9], off[10], off[11]
    o_sc, o_hp, o_ta, o_dl, o_ph, o_du, o_fb, o_tu = (
        off[12], off[13], off[14], off[15], off[16], off[17], off[18], off[19],
    )  # fmt: skip
    inv_n, inv_target, inv_turns = fl[0], fl[1], fl[2]
    depth_scale = np.float32(fl[3])
    plen = pile_len[g]
    for c in range(n):
        if hands[g, me, c]:
            obs[o_hand + c] = 1.0
        if build[g, c]:
            obs[o_build + c] = 1.0
        pos = pile_pos[g, c]
        if pos >= 0:
            obs[o_in + c] = 1.0
            if pos == plen - 1:
                obs[o_top + c] = 1.0
            obs[o_depth + c] = np.float32(plen - 1 - pos) / depth_scale
    for i in range(p):
        q = (me + i) % p
        if i > 0:
            base = o_opp + (i - 1) * n
            for c in range(n):
                if known[g, q, c]:
                    obs[base + c] = 1.0
        base = o_laid + i * n
        for c in range(n):
            if placed_by[g, c] == q:
                obs[base + c] = 1.0
        base = o_meld + i * ns
        for s in range(ns):
            if meld_owner[g, s] == q:
                obs[base + s] = 1.0
        obs[o_hs + i] = counts[g, q] * inv_n
        obs[o_sc + i] = scores[g, q] * inv_target
        obs[o_hp + i] = table_pts[g, q] / 100.0
    bs = build_scandal[g]
    if bs >= 0:
        obs[o_bs + bs] = 1.0
    obs[o_ss] = stock_len[g] * inv_n
    if stock_public[g]:
        obs[o_sp] = 1.0
    obs[o_ta] = 1.0
    obs[o_dl + (dealer[g] - me) % p] = 1.0
    ph = phase[g]
    if ph == DRAW:
        obs[o_ph] = 1.0
    elif ph == MELD:
        obs[o_ph + 1] = 1.0
    elif ph == BUILD:
        obs[o_ph + 2] = 1.0
    if duty[g] >= 0:
        obs[o_du + duty[g]] = 1.0
    if forbidden[g] >= 0:
        obs[o_fb + forbidden[g]] = 1.0
    obs[o_tu] = turn[g] * inv_turns


@functools.partial(jit, fastmath=True)  # reassociated float sums (SIMD), as BLAS sums
def _hidden(x, first, biases, weights, relu, nz_idx, nz_val, h_a, h_b):  # type: ignore[no-untyped-def]
    """The last hidden layer's activations of input ``x`` (returned: ``h_a`` or ``h_b``)."""
    k = 0
    for j in range(x.shape[0]):
        if x[j] != 0.0:
            nz_idx[k] = j
            nz_val[k] = x[j]
            k += 1
    b0 = biases[0]
    width = b0.shape[0]
    h = h_a[:width]
    for o in range(width):
        h[o] = b0[o]
    for t in range(k):  # the first layer over the non-zero inputs
        row = first[nz_idx[t]]
        v = nz_val[t]
        for o in range(width):
            h[o] += row[o] * v
    nl = len(weights)
    for li in range(nl):  # the activation of layer li, then layer li + 1 (not the output)
        for o in range(h.shape[0]):
            h[o] = max(h[o], np.float32(0.0)) if relu else np.tanh(h[o])
        if li == nl - 1:
            break
        w = weights[li]
        b = biases[li + 1]
        nxt = (h_b if li % 2 == 0 else h_a)[: w.shape[0]]
        for o in range(w.shape[0]):
            s = b[o]
            wr = w[o]
            for i in range(w.shape[1]):
                s += wr[i] * h[i]
            nxt[o] = s
        h = nxt
    return h


@functools.partial(jit, fastmath=True)
def _pick(mask, h, w_out, b_out):  # type: ignore[no-untyped-def]
    """The legal action of highest logit (the lowest among equals; -1: none legal)."""
    best = -1
    best_z = np.float32(0.0)
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        z = b_out[a]
        wr = w_out[a]
        for i in range(h.shape[0]):
            z += wr[i] * h[i]
        if best < 0 or z > best_z:
            best, best_z = a, z
    return best


@jit
def _play_rows_policy(m, cutoff, lay, tabs, off, fl, net, st, obs, steps):  # type: ignore[no-untyped-def]
    first, biases, weights, relu, src, factor, const = net
    ns = st[4].shape[1]
    phase = st[16]
    mask = np.zeros(lay[7], dtype=np.bool_)
    bg = np.zeros(ns, dtype=np.int64)
    nt = np.zeros(ns, dtype=np.int64)
    ti = np.zeros(ns, dtype=np.int64)
    d_in = src.shape[0]
    x = np.zeros(d_in, dtype=np.float32)
    nz_idx = np.zeros(d_in, dtype=np.int64)
    nz_val = np.zeros(d_in, dtype=np.float32)
    widest = biases[0].shape[0]
    for li in range(len(weights)):
        widest = max(widest, weights[li].shape[0])
    h_a = np.zeros(widest, dtype=np.float32)
    h_b = np.zeros(widest, dtype=np.float32)
    w_out = weights[len(weights) - 1]
    b_out = biases[len(biases) - 1]
    for g in range(m):
        k = 0
        while cutoff == 0 or k < cutoff:
            if phase[g] == OVER:
                break
            mask_row(g, mask, lay, tabs, st, bg, nt, ti)
            _observe_row(g, obs, off, fl, st)
            for j in range(d_in):
                s = src[j]
                x[j] = const[j] if s < 0 else obs[s] * factor[j] + const[j]
            h = _hidden(x, first, biases, weights, relu, nz_idx, nz_val, h_a, h_b)
            a = _pick(mask, h, w_out, b_out)
            if a < 0:  # no legal move: cannot happen in a running hand
                break
            apply_row(g, a, lay, tabs, st)
            k += 1
        steps[g] = k


def play_out_policy(
    engine: Any,
    m: int,
    cutoff: int,
    net: PolicyNet,
    tables: RolloutTables | None = None,
    layout: ObsLayout | None = None,
) -> np.ndarray:
    """``[m]`` the moves each of rows ``0 .. m-1`` of ``engine`` played by ``net``, at most
    ``cutoff`` (0: to the end of the hand); UsageError: `check_rows`."""
    m = int(m)
    t = check_rows("play_out_policy", engine, m, tables)
    lay = layout if layout is not None else ObsLayout(engine)
    steps = np.zeros(m, dtype=np.int64)
    obs = np.zeros(lay.size, dtype=np.float32)
    _play_rows_policy(m, int(cutoff), t.lay, t.tabs, lay.off, lay.fl, net.arrays,
                      base.state_arrays(engine), obs, steps)  # fmt: skip
    return steps


def compiled_policy_rollouts(
    engine: Any, snapshot: Any, scale: np.ndarray
) -> Callable[..., None] | None:
    """Scandal's ``LeafEngine.compiled_policy``: `runner` of `play_out_policy`, or None."""
    if not base.compilable(engine):
        return None
    net = PolicyNet.of(snapshot, scale, int(engine.obs_dim))
    tables, layout = RolloutTables(engine), ObsLayout(engine)
    return base.runner(engine, lambda m, cutoff: play_out_policy(engine, m, cutoff, net, tables,
                                                            layout))  # fmt: skip
