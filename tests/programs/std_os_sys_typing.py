# The standard modules a JAX script's header imports: os, sys, typing,
# __future__, abc, string and time.
from __future__ import annotations

import abc
import os
import string
import sys
import time
from typing import Any, Callable, Dict, Generic, List, NamedTuple, Optional, Protocol, Tuple, TypeVar, Union, cast

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp

print(jax.device_count(), os.cpu_count() >= 1)
print(os.environ.get("SHARDLAB_UNSET_VARIABLE"), os.environ.get("SHARDLAB_UNSET_VARIABLE", "dflt"), os.getenv("SHARDLAB_UNSET_VARIABLE", 3))
os.environ["SHARDLAB_TEST_VAR"] = "1"
print(os.environ["SHARDLAB_TEST_VAR"], "SHARDLAB_TEST_VAR" in os.environ, os.environ.setdefault("SHARDLAB_TEST_VAR", "2"))
print(os.path.join("ckpt", "step_10", "params.npz"), os.path.join("/x", "/y", "z"), os.path.join("a/", "b"))
print(os.path.basename("/a/b/c.txt"), os.path.dirname("/a/b/c.txt"), os.path.dirname("c.txt"), os.path.split("a/b/"))
print(os.path.splitext("a/b.tar.gz"), os.path.splitext(".bashrc"), os.path.normpath("/a/./b/../c//d"))
print(os.path.exists("surely/missing/file.npy"), os.path.isfile("x.npy"), os.sep)

print(sys.platform, sys.maxsize, sys.float_info.epsilon, sys.version_info[:2], sys.version_info >= (3, 8))
print(sys.float_info.max, sys.float_info.dig, sys.getrecursionlimit())
written = sys.stdout.write("through sys.stdout\n")
sys.stdout.flush()
print(written)

print(string.ascii_letters, string.digits, repr(string.punctuation))

t0 = time.perf_counter()
time.sleep(0.001)
print(time.perf_counter() >= t0, time.time() > 1.6e9, isinstance(time.perf_counter_ns(), int))


class Model(abc.ABC):
    @abc.abstractmethod
    def apply(self, x):
        ...


class Linear(Model):
    def __init__(self, w: jax.Array, b: Optional[jax.Array] = None) -> None:
        self.w = w
        self.b = b

    def apply(self, x: jax.Array) -> jax.Array:
        y = x @ self.w
        return y if self.b is None else y + self.b


T = TypeVar("T")
Params = Dict[str, jax.Array]
print(T, Optional[int], Dict[str, int], Callable[[int], int], Union[int, str], Any, List, Tuple[int, ...])
print(cast(int, "not checked"))


class Box(Generic[T]):
    def __init__(self, item: T) -> None:
        self.item = item


class HasApply(Protocol):
    def apply(self, x: Any) -> Any: ...


class Batch(NamedTuple):
    x: jax.Array
    y: jax.Array
    weight: float = 1.0


m = Linear(jnp.ones((3, 2)), jnp.zeros(2))
print(m.apply(jnp.arange(3.0)), isinstance(m, Model), Box(5).item)
batch = Batch(jnp.arange(4.0), jnp.ones(4))
x, y, w = batch
print(batch.weight, batch[1], len(batch), w)
print(Batch(1, 2), Batch(1, 2)._replace(weight=0.5), Batch(1, 2)._fields)
doubled = jax.tree_util.tree_map(lambda a: a * 2, batch)
print(type(doubled).__name__, doubled.x, doubled.weight)
result = {"sum": float(doubled.x.sum() + doubled.y.sum()), "weight": doubled.weight}
