# Qualified names of methods, nested functions and classes, in reprs and in
# the messages of calls with the wrong arguments.
import jax
import jax.numpy as jnp


class Model:
    scale = 2.0

    def apply(self, x):
        def body(v):
            return v * self.scale
        return body

    class Config:
        def size(self):
            return 3


def factory():
    def step(a):
        return a
    class Local:
        def run(self):
            pass
    return step, Local


def short(r):
    return r.split(" at ")[0]


step, Local = factory()
print(short(repr(Model.apply)), short(repr(Model().apply(1.0))), short(repr(Model.Config.size)))
print(short(repr(step)), short(repr(Local.run)), Local, Local.__qualname__, Local.__name__)
print(Model.apply.__qualname__, Model.Config.__qualname__, short(repr(Local())))


def takes(a, b, c=1, *, d, e=2):
    return a


calls = [
    lambda: takes(),
    lambda: takes(1),
    lambda: takes(1, 2),
    lambda: takes(1, 2, 3, 4),
    lambda: takes(1, 2, d=4, f=5),
    lambda: takes(1, a=2, d=1),
    lambda: Model().apply(),
    lambda: step(1, 2),
]
for call in calls:
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)

# A method that jit cannot take as a static argument names itself.
try:
    jax.jit(Model.apply)(Model(), jnp.ones(2))
except TypeError as e:
    print("TypeError:", short(str(e)))
