"""Scandal: a rummy-like melding game of political scandals, as an RL environment."""
