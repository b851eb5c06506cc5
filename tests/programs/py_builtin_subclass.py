# Classes that extend dict and list: the builtin's methods and operators act
# on the instance's own value wherever the class defines nothing.
import jax
import jax.numpy as jnp


class Namespace(dict):
    __setattr__ = dict.__setitem__
    __getattr__ = dict.__getitem__


ns = Namespace(lr=0.1, steps=3)
ns.decay = 0.9
print(ns, len(ns), ns.lr, ns["steps"], "decay" in ns, "x" in ns)
print(isinstance(ns, dict), isinstance(ns, list), type(ns).__name__)
print(sorted(ns), list(ns.items()), ns.get("missing", -1), dict(ns) == {"lr": 0.1, "steps": 3, "decay": 0.9})
try:
    ns.momentum
except KeyError as e:
    print("KeyError:", e)
for key in ns:
    print("key", key)
ns.update(steps=4)
del ns["decay"]
print(ns, ns.pop("lr"), ns, ns.copy(), type(ns.copy()).__name__)


class Logged(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.writes = 0

    def __setitem__(self, key, value):
        self.writes += 1
        super().__setitem__(key, value)

    def __repr__(self):
        return f"Logged({dict.__repr__(self)}, writes={self.writes})"


log = Logged([("a", 1)], b=2)
log["c"] = 3
log["a"] = 10
print(log, log == {"a": 10, "b": 2, "c": 3}, {**log}, str(log))
print(dict(**log))


class Defaults(dict):
    def __missing__(self, key):
        return key * 2


dd = Defaults(a="x")
print(dd["a"], dd["bb"], len(dd), dd.get("bb"))


class Stack(list):
    def peek(self):
        return self[-1]


s = Stack([1, 2])
s.append(3)
s += [4]
print(s, s.peek(), len(s), s[1:3], isinstance(s, list), sum(s), list(reversed(s)))
print(type(s).__name__, s == [1, 2, 3, 4], s + [5], type(s + [5]).__name__, bool(Stack()), max(*s))
s.extend(range(2))
s.sort()
print(s, s.index(4), s.count(1), [x * 10 for x in s])


class Record(list):
    def __init__(self, name):
        super().__init__()
        self.name = name


r = Record("losses")
r.append(0.5)
print(r.name, r, len(r))


@jax.tree_util.register_pytree_with_keys_class
class Params(dict):
    __setattr__ = dict.__setitem__
    __getattr__ = dict.__getitem__

    def tree_flatten_with_keys(self):
        keys = tuple(sorted(self))
        return tuple((jax.tree_util.DictKey(k), self[k]) for k in keys), keys

    @classmethod
    def tree_unflatten(cls, keys, values):
        return cls(zip(keys, values))


p = Params(w=jnp.arange(3.0), b=jnp.float32(0.5))
p.inner = Params(k=jnp.ones(2))


def loss(p):
    return (p.w * p.w).sum() + p.b * 3.0 + p.inner.k.sum()


g = jax.grad(loss)(p)
print(type(g).__name__, g)
print(jax.tree_util.tree_structure(p))
print([jax.tree_util.keystr(k) for k, _ in jax.tree_util.tree_flatten_with_path(p)[0]])
print(jax.jit(lambda p: p.w + p.b)(p))
# An unregistered dict subclass is a leaf, as in JAX.
print(jax.tree.leaves(Namespace(a=jnp.ones(2))))
