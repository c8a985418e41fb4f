"""Worker processes and progress bars for the arena's long runs."""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.connection
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any, TypeVar

from tqdm import tqdm

Work = TypeVar("Work")
Result = TypeVar("Result")

#: The thread pools a worker's numerical libraries start (OpenBLAS, OpenMP, and
#: so torch, MKL): one thread each in a tournament's workers.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def exit_with_parent() -> None:
    """In a worker (the pool's ``initializer``): exit once the parent is gone (a SIGKILL'd run)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


@contextmanager
def one_thread_per_worker() -> Iterator[None]:
    """Within: workers spawned now start BLAS and OpenMP with one thread (unless the user set one).

    BLAS threads beside busy workers made small matrix products 100 times slower.
    """
    unset = [name for name in THREAD_VARIABLES if name not in os.environ]
    os.environ.update(dict.fromkeys(unset, "1"))
    try:
        yield
    finally:
        for name in unset:
            os.environ.pop(name, None)


def run_chunks(
    play: Callable[[Any, list[Work]], list[Result]],
    setup: Any,
    work: Sequence[Work],
    workers: int,
    bar: tqdm[Any],
) -> list[Result]:
    """``play(setup, chunk)`` over fixed chunks of ``work`` in spawned processes (any order back)."""
    size = max(1, math.ceil(len(work) / (workers * 4)))
    chunks = [list(work[i : i + size]) for i in range(0, len(work), size)]
    results: list[Result] = []
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=exit_with_parent
    ) as pool:
        with one_thread_per_worker():  # the workers are spawned by the first submit
            pending: set[Future[list[Result]]] = {
                pool.submit(play, setup, chunk) for chunk in chunks
            }
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                chunk_results = future.result()
                results.extend(chunk_results)
                bar.update(len(chunk_results))
    return results


def progress_bar(total: int, desc: str, show: bool, unit: str = "game") -> tqdm[Any]:
    """A tqdm bar on stderr, never among the tables on stdout (a line every 10 s in a log
    file), or a silent one unless ``show``."""
    interval = 0.1 if sys.stderr.isatty() else 10.0
    return tqdm(total=total, desc=desc, unit=unit, mininterval=interval, disable=not show,
                file=sys.stderr)  # fmt: skip
