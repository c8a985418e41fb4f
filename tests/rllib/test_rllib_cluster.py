"""Multi-node: a real two-node Ray cluster on this machine, joined with ``--address``.

``ray.cluster_utils.Cluster`` starts a head node and a second node (each its
own raylet and object store, 1 CPU, a small object store). The trainer joins
it the way a user does (``--address HOST:PORT``), its two env runners (one
CPU each) can only fit one per node, and the trainer's placement line, read
from the runners' own node ids, must name both nodes. One batched iteration
is trained. Bounded: about a minute on the 2-core machine.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed")

import ray
from ray.cluster_utils import Cluster

from cardsuite.agents.learned.rllib import RLlibAgent
from cardsuite.train.rllib import trainer

STORE = 100 * 1024 * 1024  # bytes of object store per node (Ray's minimum is 75 MiB)


@pytest.fixture()
def two_nodes() -> Any:
    """A head node and one more node, 1 CPU each."""
    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "object_store_memory": STORE, "include_dashboard": False},
    )
    cluster.add_node(num_cpus=1, object_store_memory=STORE)
    cluster.wait_for_nodes()
    yield cluster
    if ray.is_initialized():
        ray.shutdown()
    cluster.shutdown()


def _tokens(tmp_path: Path, address: str, *extra: str) -> list[str]:
    return [
        "--address", address,
        "--iterations", "1",
        "--num-env-runners", "2",
        "--num-envs-per-env-runner", "32",
        "--run-dir", str(tmp_path / "run"),
        "--players", "4",
        "--set", "sampler=batched",
        "--set", "game=scum",
        "--set", "num_cpus_per_env_runner=1",
        "--set", "train_batch_size=512",
        "--set", "minibatch_size=256",
        "--set", "update_epochs=1",
        "--set", "hidden=32",
        "--set", "layers=1",
        "--set", "eval_deals=0",
        *extra,
    ]  # fmt: skip


@pytest.mark.slow
def test_two_node_cluster_runs_env_runners_on_both_nodes(
    two_nodes: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Join with --address; one env runner per node; one trained iteration; the agent loads."""
    node_ids = {n.node_id for n in two_nodes.list_all_nodes()}
    assert len(node_ids) == 2
    assert trainer.run(None, _tokens(tmp_path, two_nodes.address)) == 0
    out = capsys.readouterr().out
    match = re.search(r"env runners per node: (\{.*\})", out)
    assert match, out
    placement = ast.literal_eval(match.group(1))
    assert set(placement) == node_ids  # both nodes host a runner
    assert sorted(placement.values()) == [1, 1]
    assert re.search(r"iter 1/1  env steps \d+", out), out
    agent = RLlibAgent.load(tmp_path / "run", "scum", seed=0)
    assert agent.meta.num_actions == 71


@pytest.mark.slow
def test_two_node_cluster_three_iterations_with_league_refresh(
    two_nodes: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Longer: three iterations, a League sync with the runners of both nodes every iteration."""
    tokens = _tokens(tmp_path, two_nodes.address, "--set", "snapshot_every=512")
    tokens[tokens.index("--iterations") + 1] = "3"
    assert trainer.run(None, tokens) == 0
    out = capsys.readouterr().out
    assert out.count("snapshot of main at step") == 3
    assert "iter 3/3" in out and "league 5" in out  # heuristic, random, snapshots 0, 1, 2
