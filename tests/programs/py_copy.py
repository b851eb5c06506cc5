# copy.copy and copy.deepcopy: what is shared and what is new.
import copy

import jax.numpy as jnp

hparams = {"memory_size": 15, "steps": [1, 2], "nested": {"lr": 0.1}}
shallow = copy.copy(hparams)
deep = copy.deepcopy(hparams)
shallow["memory_size"] = 3
shallow["steps"].append(3)
deep["nested"]["lr"] = 0.5
deep["steps"].append(99)
print(hparams)
print(shallow)
print(deep)
print(shallow["nested"] is hparams["nested"], deep["nested"] is hparams["nested"])

shared = [1, 2]
pair = [shared, shared]
pair_copy = copy.deepcopy(pair)
print(pair_copy[0] is pair_copy[1], pair_copy[0] is shared)

loop = [1]
loop.append(loop)
loop_copy = copy.deepcopy(loop)
print(loop_copy[1] is loop_copy, loop_copy[1] is loop)

t = (1, "a", (2.5, None))
print(copy.deepcopy(t) is t, copy.copy(t) is t)
t2 = (1, [2])
t2_copy = copy.deepcopy(t2)
print(t2_copy is t2, t2_copy == t2, t2_copy[1] is t2[1])

s = {1, 2}
print(copy.copy(s) is s, copy.copy(s) == s, copy.deepcopy(frozenset(s)))

x = jnp.arange(3.0)
print(copy.deepcopy(x) is x, copy.deepcopy({"w": x})["w"] is x)


class Point:
    def __init__(self, x, tags):
        self.x = x
        self.tags = tags

    def __repr__(self):
        return f"Point({self.x}, {self.tags})"


p = Point(1, ["a"])
q = copy.copy(p)
r = copy.deepcopy(p)
q.x = 2
q.tags.append("b")
r.tags.append("c")
print(p, q, r, type(r).__name__, q.tags is p.tags, r.tags is p.tags)


class Tracked:
    def __init__(self, n):
        self.n = n

    def __copy__(self):
        print("__copy__ called")
        return Tracked(self.n + 100)

    def __deepcopy__(self, memo):
        print("__deepcopy__ called with", type(memo).__name__)
        return Tracked(-self.n)


print(copy.copy(Tracked(1)).n, copy.deepcopy([Tracked(2)])[0].n)


class Bag(list):
    pass


b = Bag([[1], [2]])
b.label = "bag"
b2 = copy.deepcopy(b)
b2[0].append(5)
print(b, b2, type(b2).__name__, b2.label, b2[1] is b[1])
