"""Draw the game pages' pictures: ``python docs/img/game_pictures.py`` (writes docs/img/*_table.png).

Each picture is the env's own ``render_mode="rgb_array"`` frame of a seeded
game, a few heuristic moves in, so the page shows what ``env.render()`` returns.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.image

import cardsuite

HERE = Path(__file__).resolve().parent
#: game -> (rule options, heuristic moves played before the picture)
PICTURES = {
    "scum": ({"num_players": 5}, 7),
    "scum_party": ({"num_players": 8}, 9),
    "scandal": ({"num_players": 3}, 10),
}


def draw(game: str, options: dict[str, int], moves: int) -> Path:
    """Play ``moves`` heuristic moves of a seeded game and save its rgb_array frame."""
    env = cardsuite.make(game, render_mode="rgb_array", **options)
    env.reset(seed=0)
    agents = {
        name: cardsuite.load_agent("heuristic", game, seat=name, seed=0, **options)
        for name in env.possible_agents
    }
    for _ in range(moves):
        name = env.agent_selection
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            break
        env.step(agents[name].act(obs["observation"], obs["action_mask"], {"agent": name, **info}))
    out = HERE / f"{game}_table.png"
    matplotlib.image.imsave(out, env.render())
    env.close()
    return out


if __name__ == "__main__":
    for game, (options, moves) in PICTURES.items():
        print(draw(game, options, moves))
