"""Rollouts of a numpy `BatchedScandal` by a learned policy, compiled row by row with numba.

A guided search (``search:pretrained:scandal2``, `cardsuite.agents.search.guided`)
scores its leaves by playing the wrapped network for every player to the end
of the hand or the cutoff. In the lockstep loop each rollout step observes
every row on the engine (mask and observation) and runs the network in
numpy, a few hundred small array operations per step whose fixed cost, not
their width, is what a step costs. The rows do not interact, so
`play_out_policy` plays each row on its own in compiled scalar code:

* the legal mask and the move are `cardsuite.agents.search.kernels.scandal_heuristic`'s (the mask
  of ``scandal_env.masks.legal_mask``, the move as ``BatchedScandal.step``
  applies it);
* the observation of the player to act is written as
  ``BatchObserver.write`` writes it (`_observe_row`: the same float32 bits,
  ``tests/scandal/test_rollout_policy.py``);
* the network is an MLP (`PolicyNet`): its input is the observation read
  through an input map (entry ``j`` = ``obs[src[j]] * factor[j] + const[j]``:
  the table's observation scale, or a size-generic agent's padding and
  scale), its first layer summed over the non-zero inputs only (most entries
  are 0/1 flags and zeros), and only the legal moves' logits are computed.
  The move is the legal action of highest logit, as ``LearnedRollout`` picks.

The logits are the numpy forward pass's up to float32 rounding (the sums run
in another order than BLAS's), so a move can differ from the lockstep
loop's only where two legal logits tie to the last bits; the test checks the
moves and end states against the lockstep loop on positions of real play.

numba is optional (the ``fast`` extra): without it `available` is False and
the search plays its policy rollouts in the lockstep loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.search.kernels.scandal_heuristic import (
    RolloutTables,
    _apply_row,
    _inline,
    _jit,
    _mask_row,
    available,
)
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
    """An MLP actor as the compiled rollouts read it.

    Attributes:
        first: ``[D_in, H]`` the first layer's weight, transposed (float32,
            one row per input entry: summed over the non-zero inputs).
        biases: per layer, ``[out]`` float32.
        weights: the later layers' ``[out, in]`` float32 weights.
        relu: hidden activation ReLU (else tanh).
        src, factor, const: the input map, ``x[j] = obs[src[j]] * factor[j] +
            const[j]`` (``src[j] = -1``: ``const[j]`` alone).
    """

    first: np.ndarray
    biases: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]
    relu: bool
    src: np.ndarray
    factor: np.ndarray
    const: np.ndarray

    @classmethod
    def of(cls, snapshot: Any, scale: np.ndarray, obs_size: int) -> PolicyNet:
        """The network of a `Snapshot` at a table whose observations have ``obs_size`` entries.

        ``snapshot.input_map(scale)`` gives the input map (``scale``: the
        table's observation scale, what a caller multiplies the observation
        by before ``snapshot.logits``).

        Raises:
            UsageError: a network of fewer than two layers, or an input map
                that does not fit the first layer or the observation.
        """
        from cardsuite.errors import UsageError

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


class ObsLayout:
    """The offsets and scale factors of one engine's observation (``BatchObserver``'s)."""

    def __init__(self, engine: Any) -> None:
        """Read the observer of ``engine`` (a numpy `BatchedScandal`)."""
        observer = engine.observer
        sl = observer.spec.slices
        self.off = np.array([sl[name].start for name in PIECES], dtype=np.int64)
        self.size = int(observer.spec.size)
        self.fl = np.array(
            [
                observer.inv_n,
                observer.inv_target,
                observer.inv_turns,
                float(max(1, observer.n - 1)),
            ],
            dtype=np.float64,
        )


# ---------------------------------------------------------------- the observation
@_inline
def _observe_row(  # type: ignore[no-untyped-def]
    g, obs, off, fl, hands, known, counts, placed_by, meld_owner, table_pts, build,
    build_scandal, pile_pos, pile_len, stock_len, stock_public, cur, dealer, phase, duty,
    forbidden, turn, scores,
):  # fmt: skip
    """Write row ``g``'s observation by its player to act into ``obs`` (``BatchObserver.write``)."""
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


# ---------------------------------------------------------------- the network
def _fast(f: Callable[..., Any]) -> Callable[..., Any]:
    """Compiled with reassociated float sums (SIMD), as BLAS sums in its own order."""
    return _jit(f, fastmath=True)


@_fast
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


@_fast
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


# ---------------------------------------------------------------- the rollouts
@_jit
def _play_rows_policy(  # type: ignore[no-untyped-def]
    m, cutoff, lay, tabs, off, fl, first, biases, weights, relu, src, factor, const, max_turns,
    target, hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal,
    pile_arr, pile_pos, pile_len, stock_arr, stock_len, stock_public, cur, dealer, phase, duty,
    forbidden, turn, scores, hand_end, game_over, obs, steps,
):  # fmt: skip
    ns = meld_owner.shape[1]
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
            _mask_row(g, mask, lay, tabs, hands, counts, meld_owner, build, build_scandal,
                      pile_arr, pile_len, stock_len, cur, phase, duty, forbidden, bg, nt, ti)  # fmt: skip
            _observe_row(g, obs, off, fl, hands, known, counts, placed_by, meld_owner,
                         table_pts, build, build_scandal, pile_pos, pile_len, stock_len,
                         stock_public, cur, dealer, phase, duty, forbidden, turn, scores)  # fmt: skip
            for j in range(d_in):
                s = src[j]
                x[j] = const[j] if s < 0 else obs[s] * factor[j] + const[j]
            h = _hidden(x, first, biases, weights, relu, nz_idx, nz_val, h_a, h_b)
            a = _pick(mask, h, w_out, b_out)
            if a < 0:  # no legal move: cannot happen in a running hand
                break
            _apply_row(g, a, lay, tabs, max_turns, target, hands, known, counts, placed_by,
                       meld_owner, table_pts, build, build_scandal, pile_arr, pile_pos, pile_len,
                       stock_arr, stock_len, stock_public, cur, phase, duty, forbidden, turn,
                       scores, hand_end, game_over)  # fmt: skip
            k += 1
        steps[g] = k


@_jit
def _logits_row(x, first, biases, weights, relu, logits):  # type: ignore[no-untyped-def]
    """Every logit of one network input ``x`` (for the tests: the forward pass checked alone)."""
    d_in = x.shape[0]
    nz_idx = np.zeros(d_in, dtype=np.int64)
    nz_val = np.zeros(d_in, dtype=np.float32)
    widest = biases[0].shape[0]
    for li in range(len(weights)):
        widest = max(widest, weights[li].shape[0])
    h = _hidden(x, first, biases, weights, relu, nz_idx, nz_val,
                np.zeros(widest, dtype=np.float32), np.zeros(widest, dtype=np.float32))  # fmt: skip
    w_out = weights[len(weights) - 1]
    b_out = biases[len(biases) - 1]
    for a in range(logits.shape[0]):
        z = b_out[a]
        for i in range(h.shape[0]):
            z += w_out[a, i] * h[i]
        logits[a] = z


@_jit
def _observe_rows(  # type: ignore[no-untyped-def]
    m, off, fl, hands, known, counts, placed_by, meld_owner, table_pts, build, build_scandal,
    pile_pos, pile_len, stock_len, stock_public, cur, dealer, phase, duty, forbidden, turn,
    scores, out,
):  # fmt: skip
    for g in range(m):
        _observe_row(g, out[g], off, fl, hands, known, counts, placed_by, meld_owner, table_pts,
                     build, build_scandal, pile_pos, pile_len, stock_len, stock_public, cur,
                     dealer, phase, duty, forbidden, turn, scores)  # fmt: skip


def observe_rows(engine: Any, m: int, layout: ObsLayout | None = None) -> np.ndarray:
    """``[m, D]`` float32: rows ``0 .. m-1`` observed by their players to act, compiled.

    The bits ``BatchObserver.write`` gives.

    Raises:
        UsageError: numba is not installed, or a torch engine.
    """
    _check(engine)
    lay = layout if layout is not None else ObsLayout(engine)
    e = engine
    out = np.zeros((int(m), lay.size), dtype=np.float32)
    _observe_rows(
        int(m), lay.off, lay.fl, e.hands, e.known, e.counts, e.placed_by, e.meld_owner,
        e.table_pts, e.build, e.build_scandal, e.pile_pos, e.pile_len, e.stock_len,
        e.stock_public, e.cur, e.dealer, e.phase, e.duty, e.forbidden, e.turn, e.scores, out,
    )  # fmt: skip
    return out


def net_logits(net: PolicyNet, obs: np.ndarray) -> np.ndarray:
    """``[B, A]`` float32 logits of raw observations ``obs`` ``[B, D]`` by the compiled forward pass."""
    _check(None)
    out = np.zeros((obs.shape[0], net.biases[-1].shape[0]), dtype=np.float32)
    for i, row in enumerate(np.asarray(obs, np.float32)):
        x = np.where(net.src >= 0, row[np.maximum(net.src, 0)] * net.factor, 0.0) + net.const
        _logits_row(x.astype(np.float32), net.first, net.biases, net.weights, net.relu, out[i])
    return out


def _check(engine: Any) -> None:
    from cardsuite.errors import UsageError

    if not available():
        raise UsageError("compiled policy rollouts need numba (pip install 'cardsuite[fast]')")
    if engine is not None and engine.xp.name != "numpy":
        raise UsageError("compiled policy rollouts play numpy engines only")


def play_out_policy(
    engine: Any,
    m: int,
    cutoff: int,
    net: PolicyNet,
    tables: RolloutTables | None = None,
    layout: ObsLayout | None = None,
) -> np.ndarray:
    """Play rows ``0 .. m-1`` of ``engine`` with the policy ``net``, each for at most ``cutoff`` moves.

    Every player's move is the legal action of highest logit of ``net`` on
    that player's observation, as ``LearnedRollout`` picks in the lockstep
    loop (module doc). A row stops at the end of its hand, or after ``cutoff``
    moves (0: to the end of the hand).

    Returns:
        ``[m]`` the moves each row played.

    Raises:
        UsageError: numba is not installed, a torch engine, an engine that
            plays whole games (``episode="game"``), or ``m`` out of range.
    """
    from cardsuite.errors import UsageError

    _check(engine)
    t = tables if tables is not None else RolloutTables(engine)
    if not t.hand_only:
        raise UsageError(
            'play_out_policy plays one hand per row: build the engine with episode="hand"'
        )
    lay = layout if layout is not None else ObsLayout(engine)
    m = int(m)
    if not 0 <= m <= engine.num_games:
        raise UsageError(f"play_out_policy: m must be in 0..{engine.num_games}, got {m}")
    e = engine
    steps = np.zeros(m, dtype=np.int64)
    obs = np.zeros(lay.size, dtype=np.float32)
    _play_rows_policy(
        m, int(cutoff), t.lay, t.tabs, lay.off, lay.fl, net.first, net.biases, net.weights,
        net.relu, net.src, net.factor, net.const, t.max_turns, t.target, e.hands, e.known,
        e.counts, e.placed_by, e.meld_owner, e.table_pts, e.build, e.build_scandal, e.pile_arr,
        e.pile_pos, e.pile_len, e.stock_arr, e.stock_len, e.stock_public, e.cur, e.dealer,
        e.phase, e.duty, e.forbidden, e.turn, e.scores, e.hand_end, e.game_over, obs, steps,
    )  # fmt: skip
    return steps


def compiled_policy_rollouts(
    engine: Any, snapshot: Any, scale: np.ndarray
) -> Callable[..., None] | None:
    """A search's compiled rollouts by a learned network on ``engine``, or None where they cannot run.

    The ``compiled_policy`` part of Scandal's ``LeafEngine``: the returned
    ``run(states, cutoff, loaded=False)`` writes the leaf ``states`` into rows
    ``0 ..`` (not again when the caller has just ``loaded`` them) and plays
    them out with `play_out_policy`. None without numba, on a torch engine or
    one that plays whole games.

    Args:
        engine: the rollouts' `BatchedScandal`.
        snapshot: the network (a `Snapshot`: ``layers()``, ``activation``,
            ``input_map(scale)``).
        scale: the table's observation scale (what the search multiplies an
            observation by before the wrapped agent's ``logits``).
    """
    if not available() or engine.xp.name != "numpy" or engine.config.episode != "hand":
        return None
    from scandal_env.batched.bridge import write_states

    net = PolicyNet.of(snapshot, scale, int(engine.obs_dim))
    tables = RolloutTables(engine)
    layout = ObsLayout(engine)

    def run(states: list[Any], cutoff: int, loaded: bool = False) -> None:
        if not loaded:
            write_states(engine, states)
        play_out_policy(engine, len(states), cutoff, net, tables, layout)

    return run
