import jax
import jax.numpy as jnp

x = jnp.arange(1, 9, dtype=jnp.float32) / 7
b = x.astype(jnp.bfloat16)
print(b)
print(repr(b))
print(repr(jnp.bfloat16(1.5)), jnp.bfloat16(2.0))
print(repr(jnp.array([1.5, 2, 1000.25, 1e-5], dtype=jnp.bfloat16)))
print(b.dtype, b.dtype.itemsize, b.nbytes)


def chain(a):
    return (a * a + a) * 3 - a / 3


print("eager", chain(b))
print("jit", jax.jit(chain)(b))
print("sin", jnp.sin(b) * b, jnp.exp(b) / 3)
print("sum", repr(jnp.sum(b)), repr(jnp.mean(b)), repr(jnp.max(b)))
print(jax.make_jaxpr(jnp.sum)(b))
print(jax.make_jaxpr(lambda a: a * 2)(b))
m = (jnp.arange(12.0).reshape(3, 4) / 7).astype(jnp.bfloat16)
print("dot", m @ m.T)
h = x.astype(jnp.float16)
print(repr(h))
print(h * 1000, repr(h * 1e5))
print(repr(jnp.zeros(3, jnp.float16)), repr(jnp.float16(0.1)))
print(repr(b + jnp.float16(1)), repr(b.astype(jnp.float32) + b))
print(repr(jnp.array([300.7, -5.5, 1e10]).astype(jnp.bfloat16)))
fi = jnp.finfo(jnp.bfloat16)
print(fi.eps, fi.max, fi.tiny, fi.bits, jnp.finfo(jnp.float16).eps)
