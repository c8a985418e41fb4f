#!/usr/bin/env python3
"""A cardsuite bot in plain Python (no cardsuite import): the JSON-lines protocol of docs/protocol.md.

Run it in a tournament:

    cardsuite tournament --game scum --players 4 --agents "exec:python3 examples/bots/random_bot.py" heuristic

It answers every message with one line: ``{}`` to ``reset`` and ``close``,
``{"action": N}`` to ``act`` (here: the legal action with the lowest id whose
text starts with "play", else a random legal one).
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "reset":
            rng.seed(message["seed"])  # reproducible games
            answer = {}
        elif message["type"] == "act":
            legal = message["legal"]
            plays = [move for move in legal if move["text"].startswith("play")]
            answer = {"action": (plays[0] if plays else rng.choice(legal))["id"]}
        else:  # "close"
            print("{}", flush=True)
            return
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
