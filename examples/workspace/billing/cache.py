"""A sharded, size-bounded LRU cache for priced catalogue entries.

Sharding keeps lock contention down on the hot path: a request only ever takes the
lock of the one shard its key hashes to.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any


@dataclass
class _Entry:
    value: Any
    tag: str | None


@dataclass(frozen=True)
class CacheStats:
    entries: int
    capacity: int
    hits: int
    misses: int
    evictions: int

    @property
    def hit_rate(self) -> float:
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0


class ShardedLRUCache:
    """Size-bounded LRU cache split into independently locked shards, with a tag index.

    Invariant: every key lives in exactly one shard, chosen by
    ``hash(key) % shard_count``, and each shard holds at most ``_per_shard`` entries.
    ``_evict`` must be called with that shard's lock held.

    Invariant: a key is removed from the shard's tag index (``self._index``) *before*
    it is removed from the shard's map (``self._shards``). ``get_tagged`` resolves a tag
    to keys through the index and then reads each key from the map; a key present in
    the index and absent from the map would raise KeyError there. The reverse state, a
    key in the map that no index entry points to, is harmless.
    """

    DEFAULT_SHARDS = 8
    DEFAULT_CAPACITY = 4096
    MIN_PER_SHARD = 1

    __slots__ = (
        "_shards",
        "_locks",
        "_index",
        "_capacity",
        "_shard_count",
        "_per_shard",
        "_hits",
        "_misses",
        "_evictions",
    )

    def __init__(self, capacity: int = DEFAULT_CAPACITY, shard_count: int = DEFAULT_SHARDS) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity}")
        if shard_count < 1:
            raise ValueError(f"shard_count must be positive, got {shard_count}")
        self._capacity = capacity
        self._shard_count = shard_count
        self._per_shard = max(self.MIN_PER_SHARD, -(-capacity // shard_count))
        self._shards: list[OrderedDict[Hashable, _Entry]] = [
            OrderedDict() for _ in range(shard_count)
        ]
        self._locks = [threading.Lock() for _ in range(shard_count)]
        self._index: list[dict[str, set[Hashable]]] = [{} for _ in range(shard_count)]
        self._hits = [0] * shard_count
        self._misses = [0] * shard_count
        self._evictions = [0] * shard_count

    def __len__(self) -> int:
        return sum(len(shard) for shard in self._shards)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._shards[self._shard_for(key)]

    def _shard_for(self, key: Hashable) -> int:
        """The one shard ``key`` may live in."""
        return hash(key) % self._shard_count

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The cached value for ``key`` (marking it most recently used), else ``default``."""
        shard = self._shard_for(key)
        with self._locks[shard]:
            entries = self._shards[shard]
            entry = entries.get(key)
            if entry is None:
                self._misses[shard] += 1
                return default
            entries.move_to_end(key)
            self._hits[shard] += 1
            return entry.value

    def get_tagged(self, tag: str) -> dict[Hashable, Any]:
        """Every cached value carrying ``tag``. Lock-free: relies on the index invariant."""
        found: dict[Hashable, Any] = {}
        for shard, index in enumerate(self._index):
            for key in tuple(index.get(tag, ())):
                found[key] = self._shards[shard][key].value
        return found

    def put(self, key: Hashable, value: Any, *, tag: str | None = None) -> None:
        """Insert or replace ``key``, evicting least recently used entries as needed."""
        shard = self._shard_for(key)
        with self._locks[shard]:
            entries = self._shards[shard]
            index = self._index[shard]
            old = entries.get(key)
            if old is not None and old.tag is not None and old.tag != tag:
                index[old.tag].discard(key)
            entries[key] = _Entry(value, tag)
            entries.move_to_end(key)
            if tag is not None:
                index.setdefault(tag, set()).add(key)
            while len(entries) > self._per_shard:
                self._evict(shard)

    def get_or_load(
        self, key: Hashable, loader: Callable[[], Any], *, tag: str | None = None
    ) -> Any:
        """The cached value, or ``loader()`` stored under ``key`` when absent.

        The loader runs outside the shard lock, so two racing callers may both load;
        the second ``put`` wins, which is acceptable for idempotent price lookups.
        """
        sentinel = object()
        value = self.get(key, sentinel)
        if value is not sentinel:
            return value
        value = loader()
        self.put(key, value, tag=tag)
        return value

    def invalidate_tag(self, tag: str) -> int:
        """Drop every entry carrying ``tag``; index first, then map. Returns the count."""
        dropped = 0
        for shard in range(self._shard_count):
            with self._locks[shard]:
                keys = self._index[shard].pop(tag, set())
                for key in keys:
                    if self._shards[shard].pop(key, None) is not None:
                        dropped += 1
        return dropped

    def delete(self, key: Hashable) -> bool:
        shard = self._shard_for(key)
        with self._locks[shard]:
            entry = self._shards[shard].get(key)
            if entry is None:
                return False
            if entry.tag is not None:
                self._index[shard][entry.tag].discard(key)
            del self._shards[shard][key]
            return True

    def _evict(self, shard: int) -> None:
        """Drop the least recently used entry of ``shard``. Caller holds its lock."""
        entries = self._shards[shard]
        key, entry = next(iter(entries.items()))
        if entry.tag is not None:
            keys = self._index[shard].get(entry.tag)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._index[shard][entry.tag]
        del entries[key]
        self._evictions[shard] += 1

    def clear(self) -> None:
        for shard in range(self._shard_count):
            with self._locks[shard]:
                self._index[shard].clear()
                self._shards[shard].clear()

    def shard_sizes(self) -> list[int]:
        """Entries per shard, to spot a skewed key distribution."""
        return [len(shard) for shard in self._shards]

    def stats(self) -> CacheStats:
        """A point-in-time summary across all shards."""
        return CacheStats(
            entries=len(self),
            capacity=self._per_shard * self._shard_count,
            hits=sum(self._hits),
            misses=sum(self._misses),
            evictions=sum(self._evictions),
        )
