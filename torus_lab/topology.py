"""Torus, mesh and hypercube topologies: coordinates, channels, distances, faults and path checks.

A k-ary n-cube (torus) has nodes ``(x_0, ..., x_{n-1})`` with ``0 <= x_i < K_i`` and links
``x <-> x +/- e_i (mod K_i)``.  Radix may differ per dimension (mixed radix ``K_0 x ... x K_{n-1}``,
Upadhyay et al., Definition 1).  Conventions (``docs/conventions.md#topology``, ``docs/conventions.md#radix-two``):

* dimensions are 0-based; node ids are mixed-radix numbers with dimension 0 the least significant digit
  (the rightmost digit of Demaine & Srinivas' address strings);
* a bidirectional link is two directed *channels* ``(node, dim, sign)`` with ``sign`` in ``{-1, +1}``;
* radix 2 in a dimension gives **one** link per neighbour pair: the channel ``0 -> 1`` is ``+`` and
  ``1 -> 0`` is ``-`` (a hypercube has ``n * 2**n`` channels, not twice that), and there is no wraparound;
* a :class:`Mesh` drops the wraparound links; ``bidirectional=False`` keeps only ``+`` channels
  (the unidirectional torus of the virtual-mesh paper).

Examples
--------
>>> t = Torus(2, 4)
>>> t.num_nodes, t.num_channels
(16, 64)
>>> t.lee_distance((0, 0), (3, 2))
3
>>> Torus(3, 2).num_channels   # hypercube Q3: 12 links, 24 channels
24
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from torus_lab._memory import check_memory, network_size
from torus_lab._validate import check_instance, check_int, check_sequence, check_str, is_int

__all__ = [
    "MAX_NODES",
    "Torus",
    "Mesh",
    "NETWORK_KINDS",
    "make_network",
    "Faults",
    "TIE_RULES",
    "random_node_faults",
    "random_link_faults",
    "connected_link_faults",
    "is_walk",
    "is_simple",
    "path_length",
    "first_shared_vertex",
    "are_vertex_disjoint",
    "avoids_faults",
    "bfs_distances",
    "minimal_path_count",
    "minimal_path_counts",
    "lee_ball",
    "definition_torus_properties",
]

#: Tie rules of :meth:`Torus.signed_offset` when ``K`` is even and the two ways round are equally long.
TIE_RULES = ("+", "-")

Node = tuple[int, ...]


#: Largest number of nodes of a topology: node ids are int64 and ids times ``2 * dims`` index the channel slots.
MAX_NODES = 2**62
#: Peak bytes per node and dimension of building the channel table (coordinates, the existence and target grids,
#: the slot map and the four channel arrays): 172-178 measured with tracemalloc on Torus(2, 1000), Torus(6, 8),
#: Torus(12, 3) and Mesh(3, 50), plus a margin.
_CHANNEL_TABLE_BYTES = 192
#: Peak bytes per channel of grouping the channels into links (:meth:`Torus._link_table`: the two end arrays, the
#: sort order, the group marks and starts, the gather index and the result, 8 bytes each, plus a margin).
_LINK_TABLE_BYTES = 96
#: Largest number of dimensions (every radix is at least 2, so ``2**dims <= MAX_NODES``).
MAX_DIMS = 62


def _check_int(name: str, value: object, minimum: int) -> int:
    """Return ``value`` as an int, refusing bools, non-integers and values below ``minimum``."""
    return check_int(name, value, minimum)


def _check_sign(sign: object) -> int:
    if isinstance(sign, bool) or sign not in (-1, 1):
        raise ValueError(f"sign must be -1 or +1, got {sign!r}")
    return int(sign)  # type: ignore[call-overload]


def _check_dims(dims: object) -> int:
    dims = check_int("dims", dims, 1)
    if dims > MAX_DIMS:
        raise ValueError(
            f"dims = {dims} is too large: with every radix >= 2 the topology has at least 2**{dims} nodes, "
            f"above the limit MAX_NODES = 2**62 (node ids are int64)"
        )
    return dims


def _check_radices(radix: object, dims: int) -> tuple[int, ...]:
    """The per-dimension radices of ``radix`` (one int or one per dimension), at most MAX_NODES nodes in all."""
    if isinstance(radix, np.ndarray) and radix.ndim == 0:
        radix = radix.item()
    if is_int(radix):
        radices = (check_int("radix", radix, 2),) * dims
    elif isinstance(radix, (Sequence, np.ndarray)) and not isinstance(radix, (str, bytes, bytearray, memoryview)):
        if len(radix) != dims:
            raise ValueError(f"radix has {len(radix)} entries {tuple(radix)!r} but dims = {dims}")
        radices = tuple(check_int(f"radix[{i}]", r, 2) for i, r in enumerate(radix))
    else:
        raise TypeError(f"radix must be an int or a sequence of ints, got {radix!r} ({type(radix).__name__})")
    nodes = math.prod(radices)
    if nodes > MAX_NODES:
        shown = radices[0] if len(set(radices)) == 1 else radices
        raise ValueError(
            f"radix {shown!r} with dims = {dims} gives about 2**{math.log2(nodes):.1f} nodes, above the limit "
            "MAX_NODES = 2**62 (node ids are int64)"
        )
    return radices


class Torus:
    """A k-ary n-cube (torus), optionally with mixed radix or without wraparound.

    Parameters
    ----------
    dims : int
        Number of dimensions ``n >= 1``.
    radix : int or sequence of int
        Nodes per dimension, ``K >= 2``; one int for all dimensions or one per dimension.
    bidirectional : bool, default True
        ``False`` keeps only the ``+`` channels (unidirectional torus; not allowed for a mesh).

    Raises
    ------
    TypeError
        If ``dims`` or a radix is not an int (Python or numpy integer; bools, floats, strings and bytes are
        refused).
    ValueError
        If ``dims < 1``, a radix is ``< 2``, the number of radices differs from ``dims``, or the topology
        would have more than :data:`MAX_NODES` ``= 2**62`` nodes (so that node ids fit int64; this also caps
        ``dims`` at 62).

    Notes
    -----
    Channel ids are stable: channels are numbered in the order ``(node id, dim, sign)`` with ``-``
    before ``+``, skipping slots that do not exist (radix-2 duplicates, mesh borders, the ``-`` side of
    a unidirectional torus).  The channel table is built on first use, so a large torus that is only
    used for coordinates and distances costs nothing; its memory (``_CHANNEL_TABLE_BYTES`` per node and
    dimension at the peak) is checked first (``torus_lab._memory``, limit ``TORUS_LAB_MEMORY_LIMIT``).

    Examples
    --------
    >>> t = Torus(2, (4, 3))
    >>> t.coords(t.node_id((3, 2)))
    (3, 2)
    >>> t.neighbors((0, 0))
    [(3, 0), (1, 0), (0, 2), (0, 1)]
    """

    wraparound: bool = True

    def __init__(self, dims: int, radix: int | Sequence[int], *, bidirectional: bool = True) -> None:
        self.n = _check_dims(dims)
        radices = _check_radices(radix, self.n)
        if isinstance(bidirectional, np.bool_):
            bidirectional = bool(bidirectional)
        if not isinstance(bidirectional, bool):
            raise TypeError(f"bidirectional must be a bool, got {bidirectional!r}")
        if not bidirectional and not self.wraparound:
            raise ValueError("a mesh must be bidirectional (bidirectional=False is for tori only)")
        self.radices: tuple[int, ...] = radices
        self.bidirectional = bidirectional
        self.num_nodes = math.prod(radices)
        self.strides = np.cumprod((1,) + radices[:-1]).astype(np.int64)
        self._radix_array = np.asarray(radices, dtype=np.int64)
        self._channels: dict[str, np.ndarray] | None = None  # built on first use (a 7-ary 8-cube has 29 M)
        self._all_coords: np.ndarray | None = None  # built on first use by all_coords

    # ------------------------------------------------------------------ basic facts
    @property
    def k(self) -> int:
        """The common radix; raises ValueError for a mixed-radix topology."""
        if len(set(self.radices)) != 1:
            raise ValueError(f"mixed radix {self.radices!r} has no single k")
        return self.radices[0]

    @property
    def is_hypercube(self) -> bool:
        """True when every radix is 2."""
        return all(r == 2 for r in self.radices)

    @property
    def kind(self) -> str:
        """``"torus"`` or ``"mesh"``."""
        return "torus" if self.wraparound else "mesh"

    def __repr__(self) -> str:
        radix = self.radices[0] if len(set(self.radices)) == 1 else self.radices
        extra = "" if self.bidirectional else ", bidirectional=False"
        return f"{type(self).__name__}({self.n}, {radix!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Torus)
            and type(other) is type(self)
            and other.radices == self.radices
            and other.bidirectional == self.bidirectional
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.radices, self.bidirectional))

    def __reduce__(self):  # pickling for process pools and dask
        return (_rebuild_topology, (type(self), self.n, self.radices, self.bidirectional))

    # ------------------------------------------------------------------ nodes
    def check_node(self, node: Iterable[int], name: str = "node") -> Node:
        """Return ``node`` as a tuple of ints after checking its length and range.

        Examples
        --------
        >>> Torus(2, 5).check_node([4, 0])
        (4, 0)
        """
        if isinstance(node, (str, bytes)) or not isinstance(node, (Iterable, np.ndarray)):
            raise TypeError(f"{name} must be a sequence of {self.n} ints, got {node!r}")
        if isinstance(node, np.ndarray) and node.ndim != 1:
            raise ValueError(f"{name} must be a sequence of {self.n} ints, got an array of shape {node.shape}")
        coords = tuple(node)
        if len(coords) != self.n:
            raise ValueError(f"{name} {coords!r} has {len(coords)} coordinates, expected {self.n}")
        out = []
        for i, x in enumerate(coords):
            if not is_int(x):
                raise TypeError(f"{name} {coords!r}: coordinate {i} is not an int ({x!r})")
            if not 0 <= x < self.radices[i]:
                raise ValueError(
                    f"{name} {coords!r}: coordinate {i} = {x} out of range 0..{self.radices[i] - 1}"
                )
            out.append(int(x))
        return tuple(out)

    def _check_coord_array(self, coords: np.ndarray, name: str = "coords") -> np.ndarray:
        coords = np.asarray(coords)
        if coords.ndim == 0 or coords.shape[-1] != self.n:
            raise ValueError(f"{name} must have last axis of length {self.n}, got shape {coords.shape}")
        if not np.issubdtype(coords.dtype, np.integer):
            raise TypeError(f"{name} must hold integers, got dtype {coords.dtype}")
        bad = (coords < 0) | (coords >= self._radix_array)
        if bad.any():
            first = tuple(int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"{name}{list(first)} = {int(coords[first])} out of range for radices {self.radices}")
        return coords.astype(np.int64, copy=False)

    def node_id(self, coords: Iterable[int] | np.ndarray) -> int | np.ndarray:
        """Node id of a coordinate tuple (int) or of an array ``(..., n)`` of coordinates (array).

        Examples
        --------
        >>> t = Torus(2, 4)
        >>> t.node_id((1, 2))
        9
        >>> t.node_id(np.array([[0, 0], [3, 3]])).tolist()
        [0, 15]
        """
        if isinstance(coords, np.ndarray) and coords.ndim >= 2:
            return self._check_coord_array(coords) @ self.strides
        node = self.check_node(coords, "coords")
        return int(np.dot(node, self.strides))

    def coords(self, node_ids: int | np.ndarray) -> Node | np.ndarray:
        """Coordinates of a node id (tuple) or of an array of ids (array ``(..., n)``).

        Examples
        --------
        >>> Torus(2, 4).coords(9)
        (1, 2)
        """
        if isinstance(node_ids, np.ndarray) and node_ids.ndim >= 1:
            if not np.issubdtype(node_ids.dtype, np.integer):
                raise TypeError(f"node ids must be integers, got dtype {node_ids.dtype}")
            if node_ids.size and node_ids.dtype.kind == "u" and node_ids.max() >= self.num_nodes:
                bad = node_ids[node_ids >= self.num_nodes][0]
                raise ValueError(f"node id {int(bad)} out of range 0..{self.num_nodes - 1}")
            ids = node_ids.astype(np.int64, copy=False)
            if ids.size and (ids.min() < 0 or ids.max() >= self.num_nodes):
                bad = ids[(ids < 0) | (ids >= self.num_nodes)][0]
                raise ValueError(f"node id {int(bad)} out of range 0..{self.num_nodes - 1}")
            return (ids[..., None] // self.strides) % self._radix_array
        node_id = _check_int("node id", node_ids, 0)
        if node_id >= self.num_nodes:
            raise ValueError(f"node id {node_id} out of range 0..{self.num_nodes - 1}")
        return tuple(int(v) for v in (node_id // self.strides) % self._radix_array)

    def all_coords(self) -> np.ndarray:
        """Array ``(num_nodes, n)`` of every node's coordinates, in node-id order (a fresh copy: the table is
        computed once per topology, since studies ask for it thousands of times).

        >>> Torus(2, 3).all_coords()[5].tolist()
        [2, 1]
        """
        if self._all_coords is None:
            self._all_coords = self.coords(np.arange(self.num_nodes))
        return self._all_coords.copy()

    def nodes(self) -> list[Node]:
        """Every node as a coordinate tuple, in node-id order."""
        return [tuple(int(v) for v in row) for row in self.all_coords()]

    # ------------------------------------------------------------------ neighbours and channels
    def _step(self, coord: int, dim: int, sign: int) -> int | None:
        """Coordinate after one hop from ``coord`` along ``sign``, or None if there is no such link."""
        radix = self.radices[dim]
        if radix == 2:
            return 1 if (coord == 0 and sign == 1) else 0 if (coord == 1 and sign == -1) else None
        if sign == -1 and not self.bidirectional:
            return None
        nxt = coord + sign
        if 0 <= nxt < radix:
            return nxt
        return nxt % radix if self.wraparound else None

    def neighbor(self, node: Iterable[int], dim: int, sign: int) -> Node | None:
        """The node one hop from ``node`` along ``sign * e_dim``, or None if that channel does not exist.

        Examples
        --------
        >>> Torus(1, 5).neighbor((0,), 0, -1)
        (4,)
        >>> Mesh(1, 5).neighbor((0,), 0, -1) is None
        True
        """
        node = self.check_node(node)
        dim = self._check_dim(dim)
        sign = _check_sign(sign)
        nxt = self._step(node[dim], dim, sign)
        if nxt is None:
            return None
        return node[:dim] + (nxt,) + node[dim + 1 :]

    def neighbors(self, node: Iterable[int]) -> list[Node]:
        """Out-neighbours of ``node``, dimension by dimension, ``-`` before ``+``, without duplicates."""
        node = self.check_node(node)
        out = []
        for dim in range(self.n):
            for sign in (-1, 1):
                nxt = self._step(node[dim], dim, sign)
                if nxt is not None:
                    out.append(node[:dim] + (nxt,) + node[dim + 1 :])
        return out

    def _check_dim(self, dim: object) -> int:
        dim = _check_int("dim", dim, 0)
        if dim >= self.n:
            raise ValueError(f"dim {dim} out of range 0..{self.n - 1}")
        return dim

    def _step_array(self, coords: np.ndarray, dim: int, sign: int) -> np.ndarray:
        """Vectorised :meth:`_step` over a coordinate column; -1 where the channel does not exist."""
        radix = self.radices[dim]
        if radix == 2:
            return np.where(coords == (0 if sign == 1 else 1), 1 - coords, -1)
        if sign == -1 and not self.bidirectional:
            return np.full_like(coords, -1)
        nxt = coords + sign
        inside = (nxt >= 0) & (nxt < radix)
        return np.where(inside, nxt, nxt % radix if self.wraparound else -1)

    def _channel_table(self) -> dict[str, np.ndarray]:
        """The channel arrays, built on first use and cached (read-only)."""
        if self._channels is not None:
            return self._channels
        check_memory(_CHANNEL_TABLE_BYTES * self.num_nodes * self.n, f"the channel table of {network_size(self)}")
        coords = self.all_coords()
        exists = np.zeros((self.num_nodes, self.n, 2), dtype=bool)
        target = np.zeros((self.num_nodes, self.n, 2), dtype=np.int64)
        node_ids = np.arange(self.num_nodes, dtype=np.int64)
        for dim in range(self.n):
            for sign_index, sign in enumerate((-1, 1)):
                nxt = self._step_array(coords[:, dim], dim, sign)
                exists[:, dim, sign_index] = nxt >= 0
                target[:, dim, sign_index] = node_ids + (nxt - coords[:, dim]) * self.strides[dim]
        flat = exists.ravel()
        slot = np.full(flat.size, -1, dtype=np.int64)
        slot[flat] = np.arange(int(flat.sum()), dtype=np.int64)
        grid_node, grid_dim, grid_sign = np.meshgrid(node_ids, np.arange(self.n), np.array([-1, 1]), indexing="ij")
        table = {
            "src": grid_node.ravel()[flat],
            "dst": target.ravel()[flat],
            "dim": grid_dim.ravel()[flat].astype(np.int64),
            "sign": grid_sign.ravel()[flat].astype(np.int64),
            "slot": slot,
        }
        for array in table.values():
            array.setflags(write=False)
        self._channels = table
        return table

    def _link_table(self) -> tuple[np.ndarray, np.ndarray]:
        """The links as groups of channel ids (read-only; cached per process for the last few topologies, by value):
        ``(offsets, channels)``, link ``i`` being ``channels[offsets[i]:offsets[i + 1]]``.

        A bidirectional link is every channel joining the same two nodes (either way); on a unidirectional torus
        each channel is a link.  Links are in the order of their lowest channel id, the channels of a link in
        increasing order (the order :func:`random_link_faults` numbers the links in).

        >>> offsets, channels = Torus(1, 3)._link_table()
        >>> [channels[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]
        [[0, 5], [1, 2], [3, 4]]
        """
        return _cached_link_table(type(self), self.radices, self.bidirectional)

    @property
    def channel_src(self) -> np.ndarray:
        """Source node id of every channel."""
        return self._channel_table()["src"]

    @property
    def channel_dst(self) -> np.ndarray:
        """Destination node id of every channel."""
        return self._channel_table()["dst"]

    @property
    def channel_dim(self) -> np.ndarray:
        """Dimension of every channel."""
        return self._channel_table()["dim"]

    @property
    def channel_sign(self) -> np.ndarray:
        """Sign (-1 or +1) of every channel."""
        return self._channel_table()["sign"]

    @property
    def _channel_slot(self) -> np.ndarray:
        return self._channel_table()["slot"]

    @property
    def num_channels(self) -> int:
        """Number of directed channels."""
        return len(self._channel_table()["src"])

    def channel_id(self, node: Iterable[int] | int, dim: int, sign: int) -> int:
        """Stable id of the channel leaving ``node`` (tuple or id) along ``sign * e_dim``.

        Raises ValueError if that channel does not exist (mesh border, radix-2 duplicate, ``-`` side of a
        unidirectional torus).

        Examples
        --------
        >>> t = Torus(2, 4)
        >>> t.channel(t.channel_id((1, 2), 1, -1))
        ((1, 2), 1, -1)
        """
        node_id = self.node_id(node) if not isinstance(node, numbers.Integral) else self._check_node_id(node)
        dim = self._check_dim(dim)
        sign = _check_sign(sign)
        cid = int(self._channel_slot[(node_id * self.n + dim) * 2 + (sign > 0)])
        if cid < 0:
            raise ValueError(f"no channel from node {self.coords(node_id)} along dim {dim} sign {sign:+d}")
        return cid

    def channel_ids(self, node_ids: np.ndarray, dims: np.ndarray, signs: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`channel_id`; missing channels give -1."""
        slots = (np.asarray(node_ids) * self.n + np.asarray(dims)) * 2 + (np.asarray(signs) > 0)
        return self._channel_slot[slots]

    def _check_node_id(self, node_id: object) -> int:
        node_id = _check_int("node id", node_id, 0)
        if node_id >= self.num_nodes:
            raise ValueError(f"node id {node_id} out of range 0..{self.num_nodes - 1}")
        return node_id

    def channel(self, channel_id: int) -> tuple[Node, int, int]:
        """The ``(node, dim, sign)`` view of a channel id."""
        cid = _check_int("channel id", channel_id, 0)
        if cid >= self.num_channels:
            raise ValueError(f"channel id {cid} out of range 0..{self.num_channels - 1}")
        return self.coords(int(self.channel_src[cid])), int(self.channel_dim[cid]), int(self.channel_sign[cid])

    def channel_between(self, a: Iterable[int], b: Iterable[int]) -> int:
        """Id of the channel from node ``a`` to its neighbour ``b``; ValueError if they are not adjacent."""
        a_t, b_t = self.check_node(a, "a"), self.check_node(b, "b")
        a_id = self.node_id(a_t)
        for dim in range(self.n):
            for sign_index in (0, 1):
                cid = int(self._channel_slot[(a_id * self.n + dim) * 2 + sign_index])
                if cid >= 0 and self.channel_dst[cid] == self.node_id(b_t):
                    return cid
        raise ValueError(f"nodes {a_t} and {b_t} are not joined by a channel")

    @property
    def channel_slots(self) -> np.ndarray:
        """Read-only array mapping slot ``(node_id * n + dim) * 2 + (sign > 0)`` to a channel id, or -1."""
        return self._channel_slot

    def wraparound_mask(self) -> np.ndarray:
        """Boolean array over channel ids, True for wraparound channels (vectorised :meth:`is_wraparound`).

        Examples
        --------
        >>> Torus(1, 5).wraparound_mask().tolist()
        [True, False, False, False, False, False, False, False, False, True]
        """
        radix = self._radix_array[self.channel_dim]
        coord = (self.channel_src // self.strides[self.channel_dim]) % radix
        closes_ring = ((self.channel_sign == 1) & (coord == radix - 1)) | ((self.channel_sign == -1) & (coord == 0))
        return (radix > 2) & closes_ring

    def is_wraparound(self, channel_id: int) -> bool:
        """True for a channel that closes a ring (``K-1 -> 0`` along ``+`` or ``0 -> K-1`` along ``-``)."""
        node, dim, sign = self.channel(channel_id)
        radix = self.radices[dim]
        return radix > 2 and ((sign == 1 and node[dim] == radix - 1) or (sign == -1 and node[dim] == 0))

    # ------------------------------------------------------------------ distances
    def _pair_arrays(self, a, b) -> tuple[np.ndarray, np.ndarray, bool]:
        scalar = not (isinstance(a, np.ndarray) and a.ndim >= 2) and not (isinstance(b, np.ndarray) and b.ndim >= 2)
        if scalar:
            return np.asarray(self.check_node(a, "a")), np.asarray(self.check_node(b, "b")), True
        return self._check_coord_array(np.asarray(a), "a"), self._check_coord_array(np.asarray(b), "b"), False

    def signed_offset(self, a, b, *, tie: str = "+") -> tuple[int, ...] | np.ndarray:
        """Shortest signed offset from ``a`` to ``b`` in each dimension.

        In a torus dimension with radix ``K`` and forward distance ``f = (b - a) mod K`` the offset is
        ``f`` if ``f < K - f`` and ``f - K`` if ``f > K - f``.  When ``K`` is even and ``f = K/2`` both
        ways are shortest and ``tie`` decides: ``"+"`` gives ``+K/2``, ``"-"`` gives ``-K/2``.  A radix-2
        dimension always gives ``b - a`` (its one link); a mesh gives ``b - a``; a unidirectional torus
        gives ``f``.

        Parameters
        ----------
        a, b : node tuple or array ``(..., n)``
        tie : {"+", "-"}

        Examples
        --------
        >>> Torus(2, 4).signed_offset((0, 0), (2, 3))
        (2, -1)
        >>> Torus(2, 4).signed_offset((0, 0), (2, 3), tie="-")
        (-2, -1)
        """
        if tie not in TIE_RULES:
            raise ValueError(f"tie must be one of {TIE_RULES}, got {tie!r}")
        a_arr, b_arr, scalar = self._pair_arrays(a, b)
        diff = b_arr - a_arr
        if self.wraparound:
            radix = self._radix_array
            forward = diff % radix
            if self.bidirectional:
                backward = radix - forward
                offset = np.where(forward < backward, forward, -backward)
                tie_mask = forward == backward
                offset = np.where(tie_mask, forward if tie == "+" else -backward, offset)
            else:
                offset = forward
            offset = np.where(radix == 2, diff, offset)
        else:
            offset = diff
        return tuple(int(v) for v in offset) if scalar else offset

    def lee_distance(self, a, b) -> int | np.ndarray:
        """Length of a shortest path from ``a`` to ``b`` (Lee distance; Manhattan distance on a mesh).

        Examples
        --------
        >>> Torus(3, 5).lee_distance((0, 0, 0), (4, 2, 3))
        5
        >>> Mesh(3, 5).lee_distance((0, 0, 0), (4, 2, 3))
        9
        """
        offset = self.signed_offset(a, b)
        if isinstance(offset, tuple):
            return int(sum(abs(v) for v in offset))
        return np.abs(offset).sum(axis=-1)

    @property
    def diameter(self) -> int:
        """Largest distance between two nodes."""
        if not self.wraparound:
            return sum(r - 1 for r in self.radices)
        if not self.bidirectional:
            return sum(r - 1 for r in self.radices)
        return sum(r // 2 for r in self.radices)

    # ------------------------------------------------------------------ subtori
    def in_subtorus(self, nodes, dim: int, value: int) -> bool | np.ndarray:
        """Whether nodes lie in the subtorus ``{v : v[dim] = value}`` (tuple -> bool, array -> bool array).

        Examples
        --------
        >>> Torus(3, 5).in_subtorus((1, 2, 3), 1, 2)
        True
        """
        dim = self._check_dim(dim)
        value = _check_int("value", value, 0)
        if value >= self.radices[dim]:
            raise ValueError(f"value {value} out of range 0..{self.radices[dim] - 1} for dim {dim}")
        if isinstance(nodes, np.ndarray) and nodes.ndim >= 2:
            return self._check_coord_array(nodes)[..., dim] == value
        return self.check_node(nodes)[dim] == value

    def subtorus_nodes(self, dim: int, value: int) -> np.ndarray:
        """Node ids of the subtorus ``{v : v[dim] = value}``, ascending."""
        return np.flatnonzero(self.in_subtorus(self.all_coords(), dim, value))

    # ------------------------------------------------------------------ graph views
    def to_networkx(self, faults: Faults | None = None):
        """The topology as a ``networkx.DiGraph`` on coordinate tuples (one edge per channel), minus faults."""
        import networkx as nx

        if faults is not None and not isinstance(faults, Faults):
            raise TypeError(f"faults must be a Faults or None, got {faults!r}")
        if faults is not None:
            faults.validate(self)
        graph = nx.DiGraph()
        nodes = self.nodes()
        faulty = faults.nodes if faults else frozenset()
        graph.add_nodes_from(v for v in nodes if v not in faulty)
        for cid in range(self.num_channels):
            if faults and cid in faults.links:
                continue
            a, b = nodes[self.channel_src[cid]], nodes[self.channel_dst[cid]]
            if a in faulty or b in faulty:
                continue
            graph.add_edge(a, b, channel=cid)
        return graph


class Mesh(Torus):
    """An n-dimensional mesh: a :class:`Torus` without wraparound links.

    Examples
    --------
    >>> m = Mesh(2, 3)
    >>> m.num_channels, m.diameter
    (24, 4)
    """

    wraparound = False


@functools.lru_cache(maxsize=4)
def _cached_link_table(cls: type, radices: tuple[int, ...], bidirectional: bool) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Torus._link_table` of the topology with these settings (keyed by value, so every instance of one
    network shares it, and built on an instance of its own, so the cache holds no channel table)."""
    topology = _rebuild_topology(cls, len(radices), radices, bidirectional)
    check_memory(_LINK_TABLE_BYTES * topology.num_channels, f"the link table of {network_size(topology)}")
    channel_ids = np.arange(topology.num_channels, dtype=np.int64)
    if not topology.bidirectional:
        offsets, channels = np.arange(topology.num_channels + 1, dtype=np.int64), channel_ids
    else:
        low = np.minimum(topology.channel_src, topology.channel_dst)
        high = np.maximum(topology.channel_src, topology.channel_dst)
        order = np.lexsort((channel_ids, high, low))  # by node pair, then channel id
        low, high = low[order], high[order]
        starts_group = np.ones(order.size, dtype=bool)
        starts_group[1:] = (low[1:] != low[:-1]) | (high[1:] != high[:-1])
        group_start = np.flatnonzero(starts_group)
        group_size = np.diff(np.append(group_start, order.size))
        by_lowest_channel = np.argsort(order[group_start], kind="stable")
        offsets = np.concatenate([[0], np.cumsum(group_size[by_lowest_channel])]).astype(np.int64)
        channels = order[_ranges(group_start[by_lowest_channel], group_size[by_lowest_channel])]
    offsets.setflags(write=False)
    channels.setflags(write=False)
    return offsets, channels


def _rebuild_topology(cls: type, dims: int, radices: tuple[int, ...], bidirectional: bool) -> Torus:
    if cls is Mesh:
        return Mesh(dims, radices)
    return cls(dims, radices, bidirectional=bidirectional)


#: Kinds of :func:`make_network`: a mesh, a bidirectional torus, a unidirectional torus.
NETWORK_KINDS = ("mesh", "bidirectional", "unidirectional")


def make_network(kind: str, k: int, dims: int = 2) -> Torus:
    """``Mesh(dims, k)``, ``Torus(dims, k)`` or ``Torus(dims, k, bidirectional=False)`` by ``kind``.

    Examples
    --------
    >>> make_network("unidirectional", 4), make_network("mesh", 3)
    (Torus(2, 4, bidirectional=False), Mesh(2, 3))
    """
    if not isinstance(kind, str) or kind not in NETWORK_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, NETWORK_KINDS))}, got {kind!r}")
    k = check_int("k", k, minimum=2)
    dims = check_int("dims", dims, minimum=1)
    if kind == "mesh":
        return Mesh(dims, k)
    return Torus(dims, k, bidirectional=kind == "bidirectional")


# ---------------------------------------------------------------------- faults
@dataclass(frozen=True)
class Faults:
    """A set of faulty nodes (coordinate tuples) and faulty channels (channel ids).

    A faulty bidirectional link is two faulty channels; :func:`random_link_faults` fails both.  Any iterable
    of nodes / channel ids is accepted and stored as a frozenset; every method that takes a topology first
    checks the faults against it (:meth:`validate`): a node outside the topology or a channel id outside
    ``0..num_channels - 1`` (negative ids included) is refused with a ValueError naming it and the valid range.

    Examples
    --------
    >>> t = Torus(2, 4)
    >>> f = Faults(nodes=frozenset({(1, 1)}))
    >>> int(f.node_mask(t).sum())
    1
    >>> Faults(links={64}).link_mask(t)
    Traceback (most recent call last):
    ...
    ValueError: faulty link: channel id 64 out of range 0..63 of Torus(2, 4)
    """

    nodes: frozenset = frozenset()
    links: frozenset = frozenset()

    def __post_init__(self) -> None:
        for name in ("nodes", "links"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, (Iterable, np.ndarray)) or (
                    isinstance(value, np.ndarray) and value.ndim == 0):
                raise TypeError(f"Faults.{name} must be a set of {'nodes' if name == 'nodes' else 'channel ids'}, "
                                f"got {value!r}")  # fmt: skip
        nodes = []
        for node in self.nodes:
            if isinstance(node, (str, bytes, bytearray)) or not isinstance(node, (Iterable, np.ndarray)) or (
                    isinstance(node, np.ndarray) and node.ndim != 1):
                raise TypeError(f"Faults.nodes must hold coordinate tuples, got {node!r}")
            nodes.append(tuple(check_int(f"Faults.nodes: faulty node {node!r}: coordinate", x) for x in node))
        links = [check_int("Faults.links: faulty link (channel id)", cid) for cid in self.links]
        object.__setattr__(self, "nodes", frozenset(nodes))
        object.__setattr__(self, "links", frozenset(links))

    def node_mask(self, topology: Torus) -> np.ndarray:
        """Boolean array over node ids, True where the node is faulty."""
        self.validate(topology)
        mask = np.zeros(topology.num_nodes, dtype=bool)
        for node in self.nodes:
            mask[topology.node_id(node)] = True
        return mask

    def link_mask(self, topology: Torus) -> np.ndarray:
        """Boolean array over channel ids, True where the channel is faulty."""
        self.validate(topology)
        mask = np.zeros(topology.num_channels, dtype=bool)
        mask[list(self.links)] = True
        return mask

    def validate(self, topology: Torus) -> Faults:
        """Check every node and channel against ``topology``; returns self.

        Raises
        ------
        TypeError
            If ``topology`` is not a :class:`Torus` (or :class:`Mesh`).
        ValueError
            For a faulty node outside the topology or a channel id outside ``0..num_channels - 1``.
        """
        if not isinstance(topology, Torus):
            raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
        for node in sorted(self.nodes):
            topology.check_node(node, "faulty node")
        if self.links:
            bad = sorted(cid for cid in self.links if not 0 <= cid < topology.num_channels)
            if bad:
                raise ValueError(f"faulty link: channel id {bad[0]} out of range 0..{topology.num_channels - 1} "
                                 f"of {topology!r}")  # fmt: skip
        return self


def _fault_count(total: int, count: int | None, rate: float | None, what: str) -> int:
    if (count is None) == (rate is None):
        raise ValueError(f"give exactly one of count and rate for {what} faults, got count={count!r}, rate={rate!r}")
    if count is not None:
        count = _check_int("count", count, 0)
        if count > total:
            raise ValueError(f"count {count} exceeds the {total} candidate {what}s")
        return count
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 <= rate <= 1:
        raise ValueError(f"rate must be a number in [0, 1], got {rate!r}")
    return int(round(rate * total))


def _as_generator(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if seed is None or not is_int(seed):
        raise TypeError(f"seed must be an int, a SeedSequence or a Generator, got {seed!r}")
    return np.random.default_rng(np.random.SeedSequence(check_int("seed", seed, minimum=0)))


def random_node_faults(
    topology: Torus,
    *,
    count: int | None = None,
    rate: float | None = None,
    seed: int | np.random.SeedSequence | np.random.Generator,
    exclude: Iterable[Iterable[int]] = (),
) -> Faults:
    """Uniformly random faulty nodes: exactly ``count``, or ``round(rate * candidates)``.

    Parameters
    ----------
    topology : Torus
    count, rate : exactly one of them
    seed : int, SeedSequence or Generator
    exclude : nodes that must stay fault-free (they are not candidates)

    Examples
    --------
    >>> t = Torus(2, 8)
    >>> f = random_node_faults(t, rate=0.25, seed=1)
    >>> len(f.nodes)
    16
    >>> f == random_node_faults(t, rate=0.25, seed=1)
    True
    """
    _check_topology("topology", topology)
    excluded = {topology.node_id(topology.check_node(v, "exclude node")) for v in check_sequence("exclude", exclude)}
    candidates = np.array([v for v in range(topology.num_nodes) if v not in excluded], dtype=np.int64)
    how_many = _fault_count(len(candidates), count, rate, "node")
    chosen = _as_generator(seed).choice(candidates, size=how_many, replace=False)
    return Faults(nodes=frozenset(topology.coords(int(v)) for v in chosen))


def random_link_faults(
    topology: Torus,
    *,
    count: int | None = None,
    rate: float | None = None,
    seed: int | np.random.SeedSequence | np.random.Generator,
) -> Faults:
    """Uniformly random faulty bidirectional links (both channels of each chosen link fail).

    On a unidirectional torus each link is a single channel.

    Examples
    --------
    >>> f = random_link_faults(Torus(3, 2), count=2, seed=7)
    >>> len(f.links)
    4
    """
    _check_topology("topology", topology)
    offsets, channels = topology._link_table()
    how_many = _fault_count(len(offsets) - 1, count, rate, "link")
    chosen = _as_generator(seed).choice(len(offsets) - 1, size=how_many, replace=False)
    chosen = np.asarray(chosen, dtype=np.int64)
    return Faults(links=frozenset(channels[_ranges(offsets[chosen], offsets[chosen + 1] - offsets[chosen])].tolist()))


def connected_link_faults(topology: Torus, count: int, rng: np.random.Generator, tries: int = 1000) -> Faults:
    """``count`` uniformly random faulty links that leave the network connected (rejection sampling).

    Demaine & Srinivas' fault experiments (IJHSC 1996, Section 6, Fig. 4) draw only connected fault sets; draws
    come from ``rng`` (:func:`random_link_faults` with it as the seed) until one leaves every node reachable from
    node 0, at most ``tries`` times.

    Examples
    --------
    >>> f = connected_link_faults(Torus(3, 2), 2, np.random.default_rng(0))
    >>> len(f.links)
    4
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    check_int("count", count, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_int("tries", tries, minimum=1)
    if count == 0:
        return Faults()
    for _ in range(tries):
        faults = random_link_faults(topology, count=count, seed=rng)
        if (bfs_distances(topology, topology.coords(0), faults) >= 0).all():
            return faults
    raise ValueError(f"no connected fault set with {count} links found in {tries} tries on {topology!r}")


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The concatenated index ranges ``starts[i] .. starts[i] + sizes[i] - 1``.

    >>> _ranges(np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    ends = np.cumsum(sizes)
    return np.repeat(starts - (ends - sizes), sizes) + np.arange(ends[-1] if len(ends) else 0)


# ---------------------------------------------------------------------- paths
def _check_topology(name: str, topology: object) -> Torus:
    """``topology`` after checking it is a :class:`Torus` (or :class:`Mesh`)."""
    return check_instance(name, topology, Torus, "a Torus or Mesh")  # type: ignore[return-value]


def _path_nodes(name: str, path: object) -> list[Node]:
    """The vertices of ``path`` as int tuples, refusing anything that is not a sequence of int sequences."""
    nodes = []
    for i, vertex in enumerate(check_sequence(name, path)):
        if isinstance(vertex, (str, bytes, bytearray)) or not isinstance(vertex, (Iterable, np.ndarray)):
            raise TypeError(f"{name}[{i}] must be a sequence of ints, got {vertex!r}")
        nodes.append(tuple(check_int(f"{name}[{i}] coordinate", x) for x in vertex))
    return nodes


def is_walk(topology: Torus, path: Sequence[Iterable[int]]) -> bool:
    """True if ``path`` is a non-empty sequence of valid nodes, each joined to the next by a channel.

    Examples
    --------
    >>> t = Torus(2, 5)
    >>> is_walk(t, [(0, 0), (4, 0), (4, 1)])
    True
    >>> is_walk(t, [(0, 0), (2, 0)])
    False
    """
    _check_topology("topology", topology)
    path = check_sequence("path", path)
    if len(path) == 0:
        return False
    try:
        nodes = [topology.check_node(v) for v in path]
    except (TypeError, ValueError):
        return False
    return all(b in topology.neighbors(a) for a, b in itertools.pairwise(nodes))


def is_simple(path: Sequence[Iterable[int]]) -> bool:
    """True if no vertex repeats in ``path``."""
    nodes = _path_nodes("path", path)
    return len(set(nodes)) == len(nodes)


def path_length(path: Sequence[Iterable[int]]) -> int:
    """Number of hops (edges) of ``path``: ``len(path) - 1``; 0 for a single vertex."""
    path = _path_nodes("path", path)
    if len(path) == 0:
        raise ValueError("path is empty")
    return len(path) - 1


def first_shared_vertex(paths: Sequence[Sequence[Iterable[int]]]) -> tuple[Node, int, int] | None:
    """The first vertex lying on two different paths, as ``(vertex, i, j)`` with ``i < j``, or None."""
    paths = [_path_nodes(f"paths[{i}]", path) for i, path in enumerate(check_sequence("paths", paths))]
    owner: dict[Node, int] = {}
    for j, path in enumerate(paths):
        for v in {tuple(u) for u in path}:
            if v in owner:
                return v, owner[v], j
        for v in path:
            owner.setdefault(tuple(v), j)
    return None


def are_vertex_disjoint(paths: Sequence[Sequence[Iterable[int]]]) -> bool:
    """True if no vertex lies on two of ``paths`` (a vertex repeated inside one path does not count).

    Examples
    --------
    >>> are_vertex_disjoint([[(0,), (1,)], [(2,), (3,)]])
    True
    """
    return first_shared_vertex(paths) is None


def avoids_faults(topology: Torus, path: Sequence[Iterable[int]], faults: Faults) -> bool:
    """True if ``path`` visits no faulty node and uses no faulty channel."""
    _check_topology("topology", topology)
    check_instance("faults", faults, Faults).validate(topology)
    nodes = [topology.check_node(v, f"path[{i}]") for i, v in enumerate(check_sequence("path", path))]
    if any(v in faults.nodes for v in nodes):
        return False
    if faults.links:
        for a, b in itertools.pairwise(nodes):
            if topology.channel_between(a, b) in faults.links:
                return False
    return True


def bfs_distances(topology: Torus, source: Iterable[int], faults: Faults | None = None) -> np.ndarray:
    """Hop distance from ``source`` to every node id (-1 where unreachable), avoiding ``faults``.

    A plain reference BFS over the channel table (level by level, one array step per distance), used by tests,
    oracles and the connectivity test of random fault sets.

    Examples
    --------
    >>> bfs_distances(Torus(1, 5), (0,)).tolist()
    [0, 1, 2, 2, 1]
    """
    _check_topology("topology", topology)
    start = topology.node_id(topology.check_node(source, "source"))
    if faults is not None:
        check_instance("faults", faults, Faults)
    node_bad = faults.node_mask(topology) if faults else np.zeros(topology.num_nodes, dtype=bool)
    link_bad = faults.link_mask(topology) if faults else np.zeros(topology.num_channels, dtype=bool)
    dist = np.full(topology.num_nodes, -1, dtype=np.int64)
    if node_bad[start]:
        return dist
    # level by level: the channels out of the frontier (a node's are its row of the slot table), those usable,
    # and the nodes they reach for the first time
    out_channels = topology.channel_slots.reshape(topology.num_nodes, -1)
    usable = ~link_bad & ~node_bad[topology.channel_dst]
    dist[start] = 0
    frontier, level = np.array([start], dtype=np.int64), 0
    while frontier.size:
        level += 1
        channels = out_channels[frontier].ravel()
        channels = channels[channels >= 0]
        reached = topology.channel_dst[channels[usable[channels]]]
        frontier = np.unique(reached[dist[reached] < 0])
        dist[frontier] = level
    return dist


def minimal_path_count(topology: Torus, a, b, *, tie: str = "both") -> int:
    """Number of minimal paths from ``a`` to ``b`` (``tie="both"``: both ways round count at offset k/2).

    The multinomial of the per-dimension distances, doubled per dimension where both ways round are minimal
    (``tie="both"``, bidirectional tori of even radix > 2); a fully adaptive routing realizes them all (the
    virtual-mesh paper's full adaptivity, Upadhyay, Varavithya & Mohapatra, Section 4).

    >>> minimal_path_count(Torus(2, 4), (0, 0), (2, 1)), minimal_path_count(Torus(2, 4), (0, 0), (2, 1), tie="+")
    (6, 3)
    >>> minimal_path_count(Mesh(2, 4), (0, 0), (3, 3))
    20
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    a, b = topology.check_node(a, "a"), topology.check_node(b, "b")
    check_str("tie", tie, ("+", "-", "both"))
    return _minimal_path_count(topology, a, b, tie)


def minimal_path_counts(topology: Torus, b, *, tie: str = "both") -> list[int]:
    """:func:`minimal_path_count` from every node to ``b``, indexed by node id (one check for all of them).

    >>> minimal_path_counts(Torus(1, 4), (2,)), minimal_path_counts(Torus(1, 4), (2,), tie="+")
    ([2, 1, 1, 1], [1, 1, 1, 1])
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    b = topology.check_node(b, "b")
    check_str("tie", tie, ("+", "-", "both"))
    return [_minimal_path_count(topology, a, b, tie) for a in topology.nodes()]


def _minimal_path_count(topology: Torus, a: tuple[int, ...], b: tuple[int, ...], tie: str) -> int:
    """:func:`minimal_path_count` on checked arguments."""
    dists, ways = [], 1
    for dim in range(topology.n):
        k = topology.radices[dim]
        if not topology.wraparound:
            dists.append(abs(b[dim] - a[dim]))
            continue
        f = (b[dim] - a[dim]) % k
        if not topology.bidirectional:
            dists.append(f)
            continue
        dists.append(min(f, k - f))
        if f and f == k - f and k > 2 and tie == "both":
            ways *= 2
    total = math.factorial(sum(dists))
    for d in dists:
        total //= math.factorial(d)
    return total * ways


def lee_ball(centre: Sequence[int], k: int) -> list[tuple[int, ...]]:
    """The distinct vertices within Lee distance 2 of ``centre`` in the ``(n, k)``-torus, the centre first.

    Offsets in order: none, one coordinate by -2, -1, 1, 2 (lowest dimension first), then two coordinates by
    +-1; a vertex reached twice (small ``k``) is listed once.  The clustered instance families of Bossard &
    Kaneko's evaluation (``"ball"`` and ``"surrounded"``, :func:`torus_lab.studies.disjoint_paths.run`) draw
    among these uniformly without replacement.

    Examples
    --------
    >>> len(lee_ball((0, 0), 5)), lee_ball((0, 0), 5)[:3]
    (13, [(0, 0), (3, 0), (4, 0)])
    >>> len(lee_ball((0, 0, 0), 3))  # the offsets -2 and 1 meet on a ring of 3
    19
    """
    k = check_int("k", k, minimum=2)
    centre = tuple(check_int(f"centre[{i}]", v, minimum=0, maximum=k - 1)
                   for i, v in enumerate(check_sequence("centre", centre, min_length=1)))  # fmt: skip
    n = len(centre)
    offsets = [()]
    offsets += [((d, step),) for d in range(n) for step in (-2, -1, 1, 2)]
    offsets += [((d, a), (e, b)) for d in range(n) for e in range(d + 1, n) for a in (-1, 1) for b in (-1, 1)]
    ball: dict[tuple[int, ...], None] = {}
    for moves in offsets:
        vertex = list(centre)
        for d, step in moves:
            vertex[d] = (vertex[d] + step) % k
        ball.setdefault(tuple(vertex), None)
    return list(ball)


def definition_torus_properties(n: int, k: int) -> dict[str, int | bool]:
    """Order, degree, diameter and links of the ``(n, k)``-torus measured on the graph built from its definition
    (Bossard & Kaneko, Definition 1: a vertex's neighbours differ by +-1 mod ``k`` in one coordinate), not from
    :class:`Torus`: an independent check of Table 1's formulas ``k^n``, ``2n``, ``n floor(k/2)``, ``n k^n``.

    The diameter is the BFS eccentricity of vertex 0 (the torus is vertex-transitive); ``regular`` tells whether
    every vertex has the same degree.

    Examples
    --------
    >>> definition_torus_properties(2, 5)
    {'order': 25, 'degree': 4, 'diameter': 4, 'links': 50, 'regular': True}
    """
    n = check_int("n", n, minimum=1, maximum=16)
    k = check_int("k", k, minimum=3)
    if k**n > 2**16:
        raise ValueError(f"k = {k} with n = {n} gives k**n = {k**n} vertices, above the 65,536 measured here")
    strides = [k**d for d in range(n)]

    def neighbours(v: int) -> set[int]:
        out = set()
        for s in strides:
            x = (v // s) % k
            out.update((v + (((x + 1) % k) - x) * s, v + (((x - 1) % k) - x) * s))
        return out

    order = k**n
    degrees = [len(neighbours(v)) for v in range(order)]
    distance, frontier = {0: 0}, [0]
    while frontier:
        nxt = []
        for v in frontier:
            for w in neighbours(v):
                if w not in distance:
                    distance[w] = distance[v] + 1
                    nxt.append(w)
        frontier = nxt
    degree = max(degrees)
    return {"order": order, "degree": degree, "diameter": max(distance.values()), "links": sum(degrees) // 2,
            "regular": min(degrees) == degree}
