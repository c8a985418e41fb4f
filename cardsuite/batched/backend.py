"""A tiny array namespace over numpy and torch: one engine design, two backends.

The batched engine is written once against [`Backend`][cardsuite.batched.backend.Backend]. Everything that
reads the same in numpy and torch (arithmetic, comparisons, ``&``/``|``/``~``,
slicing, integer and boolean indexing) is written directly on the arrays; the
few calls whose names or signatures differ (gathers, reductions, sorting,
dtype casts) go through the backend's methods. Index arrays are always int64
(torch requires it for gathers and indexing). Both backends compute the same
integers in the same order, so numpy and torch runs of one seed are identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardsuite.errors import ConfigError

Array = Any  # a numpy.ndarray or a torch.Tensor, by backend

BACKENDS = ("numpy", "torch")


class Backend:
    """The numpy backend; `TorchBackend` overrides what differs."""

    name = "numpy"

    def __init__(self) -> None:
        """Set up the dtypes of this backend."""
        self.int8: Any = np.int8
        self.int16: Any = np.int16
        self.int32: Any = np.int32
        self.int64: Any = np.int64
        self.bool: Any = np.bool_
        self.float32: Any = np.float32
        self.float64: Any = np.float64
        self.device: Any = "cpu"

    # ------------------------------------------------------------ creation
    def asarray(self, x: Any, dtype: Any) -> Array:
        """``x`` as an array of ``dtype`` on this backend's device."""
        return np.asarray(x, dtype=dtype)

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> Array:
        """A new all-zero array."""
        return np.zeros(shape, dtype=dtype)

    def full(self, shape: tuple[int, ...], value: float, dtype: Any) -> Array:
        """A new array filled with ``value``."""
        return np.full(shape, value, dtype=dtype)

    def arange(self, n: int) -> Array:
        """``0 .. n-1`` as int64."""
        return np.arange(n, dtype=np.int64)

    # ------------------------------------------------------------ casting and copies
    def astype(self, x: Array, dtype: Any) -> Array:
        """``x`` cast to ``dtype`` (a new array)."""
        return x.astype(dtype)

    def copy(self, x: Array) -> Array:
        """A copy of ``x``."""
        return x.copy()

    def small(self, x: Array) -> Array:
        """A bool array as int8 without a copy (numpy casts int8 to float much faster)."""
        return x.view(np.int8) if x.dtype == np.bool_ else x

    def to_numpy(self, x: Array) -> np.ndarray:
        """``x`` as a numpy array on the host."""
        return np.asarray(x)

    # ------------------------------------------------------------ gathers and reductions
    def take_along(self, x: Array, idx: Array, axis: int) -> Array:
        """``x`` gathered with ``idx`` along ``axis`` (same number of dims)."""
        return np.take_along_axis(x, idx, axis=axis)

    def take_rows(self, table: Array, idx: Array) -> Array:
        """Rows ``table[idx]`` of a 2-D table (fast path of integer indexing)."""
        return np.take(table, idx, axis=0)

    def take_flat(self, x: Array, idx: Array) -> Array:
        """Elements of contiguous ``x`` at flat positions ``idx`` (any shape)."""
        return np.take(x.reshape(-1), idx)

    def sum(self, x: Array, axis: int) -> Array:
        """Sum along ``axis`` (integers sum as int64)."""
        return x.sum(axis=axis)

    def amax(self, x: Array, axis: int) -> Array:
        """Maximum along ``axis``."""
        return x.max(axis=axis)

    def argmax(self, x: Array, axis: int) -> Array:
        """Index of the first maximum along ``axis`` (int64)."""
        return x.argmax(axis=axis)

    def argmin(self, x: Array, axis: int) -> Array:
        """Index of the first minimum along ``axis`` (int64)."""
        return x.argmin(axis=axis)

    def cumsum(self, x: Array, axis: int) -> Array:
        """Cumulative sum along ``axis``."""
        return x.cumsum(axis=axis)

    def any(self, x: Array) -> bool:
        """Whether any element is true (a host bool)."""
        return bool(x.any())

    def nonzero(self, mask: Array) -> Array:
        """Indices of the true entries of a 1-D mask (int64)."""
        return np.flatnonzero(mask)

    def where(self, cond: Array, a: Any, b: Any) -> Array:
        """Elementwise ``a`` where ``cond`` else ``b``."""
        return np.where(cond, a, b)

    def minimum(self, a: Array, b: Any) -> Array:
        """Elementwise minimum."""
        return np.minimum(a, b)

    def argsort(self, x: Array, axis: int) -> Array:
        """Stable argsort along ``axis`` (ties keep index order)."""
        return np.argsort(x, axis=axis, kind="stable")

    def bincount(self, x: Array, minlength: int) -> Array:
        """Counts of each value of a 1-D non-negative int array."""
        return np.bincount(x, minlength=minlength)

    def concat(self, xs: list[Array], axis: int) -> Array:
        """Arrays joined along ``axis``."""
        return np.concatenate(xs, axis=axis)

    def nbytes(self, x: Array) -> int:
        """Bytes held by ``x``."""
        return int(x.nbytes)


class TorchBackend(Backend):
    """The torch backend, on any device (``"cpu"``, ``"cuda"``, ``"cuda:1"``...).

    Each method does what `Backend`'s does, on tensors.
    """

    name = "torch"

    def __init__(self, device: str = "cpu") -> None:
        """Bind to ``device``; ConfigError if torch or the device is missing."""
        try:
            import torch
        except ImportError:
            raise ConfigError("backend 'torch' needs torch installed (pip install torch)") from None
        self.torch = torch
        try:
            self.device = torch.device(device)
            torch.zeros(1, device=self.device)
        except (RuntimeError, AssertionError) as err:
            raise ConfigError(f"torch device {device!r} is not available: {err}") from None
        self.int8 = torch.int8
        self.int16 = torch.int16
        self.int32 = torch.int32
        self.int64 = torch.int64
        self.bool = torch.bool
        self.float32 = torch.float32
        self.float64 = torch.float64

    def asarray(self, x: Any, dtype: Any) -> Array:
        if isinstance(x, self.torch.Tensor):
            return x.to(device=self.device, dtype=dtype)
        return self.torch.as_tensor(np.array(x), device=self.device).to(dtype)

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> Array:
        return self.torch.zeros(shape, dtype=dtype, device=self.device)

    def full(self, shape: tuple[int, ...], value: float, dtype: Any) -> Array:
        return self.torch.full(shape, value, dtype=dtype, device=self.device)

    def arange(self, n: int) -> Array:
        return self.torch.arange(n, dtype=self.torch.int64, device=self.device)

    def astype(self, x: Array, dtype: Any) -> Array:
        return x.to(dtype)

    def copy(self, x: Array) -> Array:
        return x.clone()

    def small(self, x: Array) -> Array:
        """``x`` unchanged (torch casts bool to float fast)."""
        return x

    def to_numpy(self, x: Array) -> np.ndarray:
        return np.asarray(x.detach().cpu().numpy())

    def take_along(self, x: Array, idx: Array, axis: int) -> Array:
        return self.torch.gather(x, axis, idx)

    def take_rows(self, table: Array, idx: Array) -> Array:
        return self.torch.index_select(table, 0, idx.reshape(-1)).reshape(*idx.shape, -1)

    def take_flat(self, x: Array, idx: Array) -> Array:
        return x.reshape(-1)[idx]

    def sum(self, x: Array, axis: int) -> Array:
        return x.sum(dim=axis)

    def amax(self, x: Array, axis: int) -> Array:
        return x.amax(dim=axis)

    def argmax(self, x: Array, axis: int) -> Array:
        if x.dtype == self.torch.bool:
            x = x.to(self.torch.int8)
        return x.argmax(dim=axis)

    def argmin(self, x: Array, axis: int) -> Array:
        return x.argmin(dim=axis)

    def cumsum(self, x: Array, axis: int) -> Array:
        return x.cumsum(dim=axis).to(x.dtype)

    def any(self, x: Array) -> bool:
        """Whether any element is true (syncs with the device)."""
        return bool(x.any().item())

    def nonzero(self, mask: Array) -> Array:
        return self.torch.nonzero(mask).reshape(-1)

    def where(self, cond: Array, a: Any, b: Any) -> Array:
        return self.torch.where(cond, a, b)

    def minimum(self, a: Array, b: Any) -> Array:
        if not isinstance(b, self.torch.Tensor):
            return a.clamp(max=b)
        return self.torch.minimum(a, b)

    def argsort(self, x: Array, axis: int) -> Array:
        return self.torch.argsort(x, dim=axis, stable=True)

    def bincount(self, x: Array, minlength: int) -> Array:
        return self.torch.bincount(x, minlength=minlength)

    def concat(self, xs: list[Array], axis: int) -> Array:
        return self.torch.cat(xs, dim=axis)

    def nbytes(self, x: Array) -> int:
        return int(x.element_size() * x.nelement())


def get_backend(name: str = "numpy", device: str | None = None) -> Backend:
    """The backend called ``name`` (``"numpy"`` or ``"torch"``) on ``device``.

    ``device`` applies to torch only (default ``"cpu"``); numpy runs on the CPU.
    """
    if name == "numpy":
        if device not in (None, "cpu"):
            raise ConfigError(f"backend 'numpy' runs on the CPU only, got device {device!r}")
        return Backend()
    if name == "torch":
        return TorchBackend(device or "cpu")
    raise ConfigError(f"unknown backend {name!r}; use one of {', '.join(BACKENDS)}")
