import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(3)
keys = jax.random.split(key, 4)
rows = jax.vmap(lambda k: jax.random.normal(k, ()))(keys)
print(rows)
pairs = jax.vmap(lambda k: jax.random.split(k))(keys)
print(pairs.shape)
print(pairs[1])


def body(carry, _):
    k, total = carry
    k, sub = jax.random.split(k)
    x = jax.random.normal(sub, (2,))
    return (k, total + x.sum()), x


(kf, total), xs = jax.lax.scan(body, (key, 0.0), None, length=4)
print(kf)
print(total)
print(xs)


def loop(i, c):
    k, acc = c
    k = jax.random.fold_in(k, i)
    return k, acc + jax.random.uniform(k, (3,))


kl, acc = jax.lax.fori_loop(0, 5, loop, (key, jnp.zeros(3)))
print(kl)
print(acc)


def loss(w, k):
    noise = jax.random.normal(k, w.shape)
    return jnp.sum((w + noise) ** 2)


g = jax.grad(loss)(jnp.arange(3.0), key)
print(g)
g2 = jax.grad(loss)(jnp.ones(3), jax.random.fold_in(key, 2))
print(g2)
result = [rows, pairs, kf, total, xs, kl, acc, g, g2]
