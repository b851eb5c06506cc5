# Walking a traced program: the jaxpr's variables, equations and
# primitives, evaluated one equation at a time with primitive.bind, and run
# backwards to invert a function.
import jax
import jax.numpy as jnp
from jax import lax
from jax.extend import core
from jax._src.util import safe_map


def g(t):
    return jnp.exp(jnp.tanh(t)) * 2.0 + 1.5


closed = jax.make_jaxpr(g)(jnp.ones(4))
prog = closed.jaxpr
print(prog)
print(closed.literals, closed.consts, prog.constvars)
print(len(prog.invars), len(prog.outvars), len(prog.eqns))
print([str(e.primitive) for e in prog.eqns])
print([e.primitive.name for e in prog.eqns])
print([e.primitive.multiple_results for e in prog.eqns])
print([e.params for e in prog.eqns])
print([type(a) is core.Literal for e in prog.eqns for a in e.invars])
print([float(a.val) for e in prog.eqns for a in e.invars if type(a) is core.Literal])
print(prog.invars[0].aval, prog.eqns[0].outvars[0].aval)
print(prog.eqns[0].invars[0] is prog.invars[0])
print(prog.eqns[0].primitive == lax.tanh_p, prog.eqns[1].primitive == lax.exp_p)
print(isinstance(prog.eqns[0].invars[0], core.Var))


def run(jaxpr, consts, *args):
    env = {}

    def read(var):
        if type(var) is core.Literal:
            return var.val
        return env[var]

    def write(var, val):
        env[var] = val

    safe_map(write, jaxpr.invars, args)
    safe_map(write, jaxpr.constvars, consts)
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*safe_map(read, eqn.invars), **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        safe_map(write, eqn.outvars, outs)
    return safe_map(read, jaxpr.outvars)


x = jnp.array([0.1, -0.7, 1.3, 2.0])
print(run(prog, closed.literals, x))
print(g(x))
print(jax.jit(lambda u: run(prog, [], u)[0])(x))

inverses = {lax.exp_p: jnp.log, lax.tanh_p: jnp.arctanh}


def invert(f):
    def wrapped(y):
        cj = jax.make_jaxpr(f)(y)
        env = {}
        for v, val in zip(cj.jaxpr.outvars, [y]):
            env[v] = val
        for eqn in cj.jaxpr.eqns[::-1]:
            env[eqn.invars[0]] = inverses[eqn.primitive](env[eqn.outvars[0]])
        return env[cj.jaxpr.invars[0]]
    return wrapped


h = lambda t: jnp.exp(jnp.tanh(t))
y = h(x)
print(invert(h)(y))
print(jax.make_jaxpr(invert(h))(y))
print(jax.vmap(jax.grad(invert(h)))(jnp.array([0.5, 1.1, 1.9, 2.5])))
print(jnp.arctanh(jnp.array([-0.99, -0.594, -0.3, 0.0, 0.2, 0.594, 0.9, 1.5])))
print(lax.exp_p.bind(x, accuracy=None), lax.add_p.bind(x, x))
print(safe_map(lambda a, b: a * b, [1, 2, 3], [4, 5, 6]))
try:
    safe_map(lambda a, b: a, [1, 2], [1])
except ValueError as e:
    print("ValueError")
result = run(prog, [], x)[0]
