# Classes registered as pytree nodes, through tree functions and transformations.
import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax import tree_util as tu


class Box:
    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag

    def __repr__(self):
        return f"Box({self.a}, {self.b}, {self.tag})"


tu.register_pytree_node(Box, lambda x: ((x.a, x.b), x.tag), lambda tag, ch: Box(ch[0], ch[1], tag))
box = Box(1.0, [2.0, 3.0], "t")
print(tu.tree_structure(box), tu.tree_leaves(box))
print(tu.tree_flatten_with_path(box)[0])
print(tu.tree_map(lambda x: x * 10, box))
print(tu.tree_structure(box) == tu.tree_structure(Box(0, [0, 0], "t")), tu.tree_structure(box) == tu.tree_structure(Box(0, [0, 0], "u")))


@tu.register_pytree_node_class
class Scaled:
    def __init__(self, value, scale):
        self.value, self.scale = value, scale

    def tree_flatten(self):
        return (self.value,), self.scale

    @classmethod
    def tree_unflatten(cls, scale, children):
        return cls(children[0], scale)

    def __repr__(self):
        return f"Scaled({self.value}, {self.scale})"


print(tu.tree_structure(Scaled(1, 2)), tu.tree_map(lambda x: x + 1, Scaled(1, 2)))


class Keyed:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Keyed({self.x}, {self.y})"


tu.register_pytree_with_keys(
    Keyed,
    lambda k: (((tu.GetAttrKey("x"), k.x), (tu.DictKey("why"), k.y)), None),
    lambda aux, ch: Keyed(*ch),
)
print(tu.tree_flatten_with_path(Keyed(1, [2])))
print(tu.tree_map(lambda v: -v, Keyed(1, [2])))


class Tag:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Tag) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"Tag({self.name})"


tu.register_static(Tag)
print(tu.tree_structure([Tag("k"), 2]), tu.tree_leaves([Tag("k"), 2]), tu.tree_map(lambda x: x * 2, [Tag("k"), 2]))


@functools.partial(tu.register_dataclass, data_fields=["w"], meta_fields=["n"])
@dataclasses.dataclass
class Layer:
    w: object
    n: int


print(tu.tree_structure(Layer(1.0, 3)), tu.tree_flatten_with_path(Layer(1.0, 3))[0])


@dataclasses.dataclass
class Plain:
    x: int


print(tu.tree_leaves([Plain(1), 2]))

# The same flattening in the transformations.
g = jax.grad(lambda b: b.a * b.b[0] + b.b[1])(Box(jnp.array(2.0), [jnp.array(3.0), jnp.array(1.0)], "z"))
print(g.a, g.b[0].tolist(), g.b[1].tolist(), g.tag)
v = jax.vmap(lambda b: b.a * 2 + b.b[1])(Box(jnp.arange(3.0), [jnp.zeros(3), jnp.ones(3)], "z"))
print(v)
j = jax.jit(lambda s: Scaled(s.value * s.scale, s.scale))(Scaled(jnp.ones(2), 3))
print(j)
p = tu.Partial(lambda a, b: a * b, 3.0)
print(p(4.0), tu.tree_leaves(p), jax.jit(lambda f, x: f(x))(p, 2.0))
print(tu.tree_map(lambda x: x + 1, p)(1.0))
try:
    tu.register_pytree_node(Box, lambda x: ((), None), lambda a, c: Box(0, 0, 0))
except ValueError as e:
    print(e)
result = tu.tree_leaves(g)
