# jax.scipy.spatial.transform: Rotation's constructors and representations
# (Euler angles, matrices, rotation vectors, MRPs, quaternions), composition,
# application to vectors, indexing, and Slerp between key rotations, on
# single rotations and batches, eagerly, under jit and under vmap.
import jax
import jax.numpy as jnp
from jax.scipy.spatial.transform import Rotation, Slerp

r = Rotation.from_euler('z', 90, degrees=True)
print(r.as_rotvec())
print(r.as_matrix())
r2 = Rotation.from_euler('x', 90, degrees=True)
r3 = r * r2
print(r3.as_matrix())
print(r3.as_quat())
print(r3)
rots = jnp.array([[90, 0, 0], [0, 45, 0], [0, 0, -30]])
key_rotations = Rotation.from_euler('zxy', rots, degrees=True)
print(key_rotations.as_quat())
slerp = Slerp.init([0, 1, 2], key_rotations)
interp_rots = slerp([0, 0.5, 1, 1.5, 2])
print(interp_rots.as_euler('zxy'))
print(slerp(0.25).as_quat())
print(Rotation.from_euler('XYZ', jnp.array([0.1, -0.4, 1.3])).as_euler('ZXZ', degrees=True))
m = Rotation.from_rotvec(jnp.array([[0.3, -0.2, 0.5], [1e-4, 0., 2e-4], [-2.0, 1.0, 0.5]]))
print(m.as_quat(), m.magnitude(), len(m))
print(m.as_rotvec(degrees=True))
print(m.as_mrp())
print(Rotation.from_mrp(m.as_mrp()).as_quat())
print(Rotation.from_matrix(m.as_matrix()).as_quat())
print(Rotation.from_matrix(jnp.array([[0., -1, 0], [1, 0, 0], [0, 0, 1]])).as_quat())
print(m.inv().as_quat(canonical=True, scalar_first=True))
print(m[1:].as_quat(), m[0].single, m.single)
v = jnp.array([[1., 2., 3.], [0., -1., 0.5], [4., 0., 0.]])
print(m.apply(v))
print(m.apply(v, inverse=True))
print(m[0].apply(jnp.array([1., 0., 0.])))
print(Rotation.from_quat(jnp.array([1., 2., 3., 4.])).as_quat())
print(Rotation.from_quat(jnp.array([0., 0., -1., 0.])).as_quat(canonical=True))
print(Rotation.identity().as_quat(), Rotation.identity().as_matrix())
print(Rotation.concatenate([m, Rotation(r3.quat[None])]).as_quat())
print(jax.jit(lambda q: Rotation.from_quat(q).as_euler('xyz'))(jnp.array([0.1, 0.2, 0.3, 0.9])))
print(jax.vmap(lambda x: Rotation.from_rotvec(x).as_matrix())(v))
for bad in [lambda: Rotation.from_euler('xx', [1., 2.]), lambda: Rotation.from_euler('xY', [1., 2.]),
            lambda: r3.as_euler('xy'), lambda: len(r3), lambda: r3[0],
            lambda: Slerp.init([0, 1], r3)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
print(type(r3).__name__, r3.single, isinstance(r3, tuple))
leaves, tree = jax.tree_util.tree_flatten(slerp)
print(len(leaves), [l.shape for l in leaves])
result = slerp(jnp.array([0.2, 1.7])).as_matrix()
