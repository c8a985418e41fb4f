"""Random-play fuzzing of every game family, checking observations against their spaces.

`fuzz_family` plays ``steps`` random legal actions through the strict
``raw_env`` of one family (``"scum"``: every rule variant and player count,
``"scum_party"``: several table layouts, ``"scandal"``: 2-6 players, hand and
game episodes), cycling through its variants episode by episode. At every
step it checks:

* the acting agent's observation lies in its declared space (dtype, shape,
  bounds) and its action mask is a non-empty 0/1 mask (every agent's
  observation at each reset and episode end);
* with probability ``illegal_rate``, an illegal action first: a masked-out id,
  an id out of range, or a non-integer (``1.5``, ``nan``, ``inf``, ``True``,
  ``"3"``). Each must raise ``IllegalActionError`` and leave the state
  exactly as it was (agent to act, observation, mask, global state).

Any other outcome raises `FuzzFailure` with the family, variant,
seed and step, enough to replay it. ``python -m tests.fuzz.run`` runs it by
hand; ``tests/fuzz/test_fuzz.py`` runs a bounded version in the default test
run and the full 10^6 steps per family under ``-m exhaustive``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardsuite.errors import IllegalActionError

Variant = tuple[str, Callable[[], Any], dict[str, Any] | None]  # name, env factory, reset options


def _scum(**config: Any) -> Callable[[], Any]:
    def make() -> Any:
        from scum_env import scum_v0

        return scum_v0.raw_env(**config)

    return make


def _party(**config: Any) -> Callable[[], Any]:
    def make() -> Any:
        from scum_env import scum_party_v0

        return scum_party_v0.raw_env(**config)

    return make


def _scandal(**config: Any) -> Callable[[], Any]:
    def make() -> Any:
        from scandal_env import scandal_v0

        return scandal_v0.raw_env(**config)

    return make


def scum_variants() -> list[Variant]:
    """Every Scum rule variant over 4-12 players, series (with and without trades) and games."""
    out: list[Variant] = []
    for n in (4, 5, 6, 7, 8, 10, 12):
        for trade_rules in ("english", "spanish"):
            for flags in ({}, {"carousel": True}, {"color_clash": True}, {"wild_queen": True}):
                config = {"num_players": n, "trade_rules": trade_rules, **flags}
                name = f"scum n={n} {trade_rules} {','.join(flags) or 'plain'}"
                out.append((name, _scum(**config), None))
                out.append((name + " trade", _scum(**config), {"trade": True}))
        out.append((f"scum n={n} game", _scum(num_players=n, episode="game", target_score=6), None))
    out.append(("scum all variants", _scum(num_players=6, carousel=True, color_clash=True,
                                           wild_queen=True, trade_rules="spanish"), {"trade": True}))  # fmt: skip
    return out


def party_variants() -> list[Variant]:
    """Scum Party: default 8 players, small and uneven tables, several rewards."""
    return [
        ("party n=8", _party(), None),
        ("party n=5 one hand", _party(num_players=5, num_hands=1), None),
        ("party n=9 uneven", _party(num_players=9, num_hands=3, reward="rank"), None),
        ("party n=12 final", _party(num_players=12, num_hands=2, reward="final"), None),
        ("party n=8 trade", _party(), {"trade": True}),
    ]


def scandal_variants() -> list[Variant]:
    """Scandal: 2-6 players, single hands and whole games."""
    out: list[Variant] = [(f"scandal n={n}", _scandal(num_players=n), None) for n in range(2, 7)]
    out.append(
        ("scandal n=3 game", _scandal(num_players=3, episode="game", target_score=200), None)
    )
    return out


FAMILIES: dict[str, Callable[[], list[Variant]]] = {
    "scum": scum_variants,
    "scum_party": party_variants,
    "scandal": scandal_variants,
}

NON_INTEGERS: tuple[Any, ...] = (1.5, float("nan"), float("inf"), True, "3", None, [0])


class FuzzFailure(AssertionError):
    """A broken invariant, with where to find it."""


@dataclass
class FuzzReport:
    """What a fuzz run did."""

    family: str
    steps: int = 0
    episodes: int = 0
    illegal_tried: int = 0
    obs_checked: int = 0
    seconds: float = 0.0
    per_variant: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """One summary line."""
        rate = self.steps / self.seconds if self.seconds else float("nan")
        return (
            f"{self.family}: {self.steps} steps, {self.episodes} episodes, "
            f"{self.illegal_tried} illegal actions refused, {self.obs_checked} observations "
            f"checked, {len(self.per_variant)} variants, {self.seconds:.1f} s ({rate:,.0f} steps/s)"
        )


def check_obs(env: Any, agent: str, where: str, acting: bool) -> dict[str, np.ndarray]:
    """``agent``'s observation, checked against its space; FuzzFailure if outside."""
    obs = env.observe(agent)
    space = env.observation_space(agent)
    box = space["observation"]
    x = obs["observation"]
    if x.dtype != box.dtype or x.shape != box.shape:
        raise FuzzFailure(f"{where}: {agent} observation has {x.dtype}{x.shape}, space {box}")
    low_bad = x < box.low
    high_bad = x > box.high
    if low_bad.any() or high_bad.any() or not np.isfinite(x).all():
        i = int(np.flatnonzero(low_bad | high_bad | ~np.isfinite(x))[0])
        name = _entry_name(env, i)
        raise FuzzFailure(
            f"{where}: {agent} observation[{i}] ({name}) = {x[i]} outside "
            f"[{box.low[i]}, {box.high[i]}]"
        )
    mask = obs["action_mask"]
    if mask.dtype != np.int8 or mask.shape != space["action_mask"].shape:
        raise FuzzFailure(f"{where}: {agent} mask has {mask.dtype}{mask.shape}")
    if ((mask != 0) & (mask != 1)).any():
        raise FuzzFailure(f"{where}: {agent} mask holds values other than 0 and 1")
    if acting and not mask.any():
        raise FuzzFailure(f"{where}: {agent} is to act but its mask is all zero")
    if not acting and mask.any():
        raise FuzzFailure(f"{where}: {agent} is not to act but its mask is not all zero")
    return obs


def _entry_name(env: Any, index: int) -> str:
    """The observation piece holding entry ``index`` (for messages)."""
    spec = getattr(env.unwrapped, "obs_spec", None)
    for name, part in getattr(spec, "slices", {}).items():
        if part.start <= index < part.stop:
            return f"{name}[{index - part.start}]"
    return "?"


def _snapshot(env: Any, obs: dict[str, np.ndarray]) -> tuple[Any, ...]:
    return (
        env.agent_selection,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        env.state().tobytes(),
        tuple(env._cumulative_rewards.values()),
    )


def _illegal_action(rng: np.random.Generator, mask: np.ndarray) -> Any:
    """A masked-out id, an id out of range, or a non-integer."""
    kind = rng.integers(3)
    illegal = np.flatnonzero(mask == 0)
    if kind == 0 and len(illegal):
        return int(illegal[rng.integers(len(illegal))])
    if kind == 1:
        return int(rng.choice([-1, len(mask), len(mask) + 7, 2**40]))
    return NON_INTEGERS[int(rng.integers(len(NON_INTEGERS)))]


def fuzz_family(
    family: str,
    steps: int,
    *,
    seed: int = 0,
    illegal_rate: float = 0.05,
    progress: Callable[[FuzzReport], None] | None = None,
) -> FuzzReport:
    """Play ``steps`` random legal steps of ``family``; FuzzFailure on any broken invariant."""
    variants = FAMILIES[family]()
    envs = [make() for _, make, _ in variants]
    rng = np.random.default_rng(seed)
    report = FuzzReport(family)
    start = time.perf_counter()
    last_progress = start
    episode = 0
    while report.steps < steps:
        k = episode % len(variants)
        name, _, options = variants[k]
        env = envs[k]
        deal_seed = seed * 1_000_003 + episode
        env.reset(seed=deal_seed, options=options)
        episode += 1
        report.episodes += 1
        where = f"{family} [{name}] seed {deal_seed}"
        for agent in env.possible_agents:
            check_obs(env, agent, f"{where} reset", agent == env.agent_selection)
            report.obs_checked += 1
        step = 0
        while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
            agent = env.agent_selection
            at = f"{where} step {step}"
            obs = check_obs(env, agent, at, acting=True)
            report.obs_checked += 1
            mask = obs["action_mask"]
            if rng.random() < illegal_rate:
                before = _snapshot(env, obs)
                action = _illegal_action(rng, mask)
                try:
                    env.step(action)
                except IllegalActionError:
                    pass
                else:
                    raise FuzzFailure(f"{at}: illegal action {action!r} was accepted")
                after = _snapshot(env, env.observe(agent))
                if after != before:
                    raise FuzzFailure(f"{at}: refused action {action!r} changed the state")
                report.illegal_tried += 1
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
            step += 1
            report.steps += 1
            report.per_variant[name] = report.per_variant.get(name, 0) + 1
        for agent in env.possible_agents:
            check_obs(env, agent, f"{where} end", acting=False)
            report.obs_checked += 1
        if progress is not None and time.perf_counter() - last_progress > 10:
            last_progress = time.perf_counter()
            report.seconds = last_progress - start
            progress(report)
    report.seconds = time.perf_counter() - start
    return report
