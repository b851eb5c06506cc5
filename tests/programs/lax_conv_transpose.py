# lax.conv_transpose: SAME and VALID padding with strides, explicit and
# consistent padding, kernel dilation, transpose_kernel (the gradient of a
# forward convolution), other layouts; and precision= on convolutions.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(2 * 3 * 3 * 2, dtype=jnp.float32).reshape(2, 3, 3, 2) / 10
k = jnp.cos(jnp.arange(3 * 3 * 2 * 4, dtype=jnp.float32)).reshape(3, 3, 2, 4)
for pad in ["SAME", "VALID"]:
    for s in [(1, 1), (2, 2), (2, 1)]:
        y = lax.conv_transpose(x, k, s, pad)
        print(pad, s, y.shape, y[0, :, :, 0].round(4))
print(lax.conv_transpose(x, k, (2, 2), ((1, 2), (0, 1)))[1, :, :, 3].round(4))
print(lax.conv_transpose(x, k, (2, 2), ((1, 1), (0, 1)), use_consistent_padding=True).shape)
print(lax.conv_transpose(x, k, (1, 1), "SAME", rhs_dilation=(2, 1))[0, :, :, 1].round(4))
x1 = jnp.sin(jnp.arange(10.0)).reshape(1, 5, 2)
k1 = jnp.ones((3, 2, 1))
print(lax.conv_transpose(x1, k1, (3,), "VALID")[0, :, 0])
xc = jnp.transpose(x, (0, 3, 1, 2))
kc = jnp.transpose(k, (3, 2, 0, 1))
yc = lax.conv_transpose(xc, kc, (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))
print(yc.shape, jnp.allclose(yc, jnp.transpose(lax.conv_transpose(x, k, (2, 2), "SAME"), (0, 3, 1, 2))))

# transpose_kernel=True makes conv_transpose the gradient of a strided forward convolution.
w = jnp.sin(jnp.arange(3 * 3 * 4 * 2, dtype=jnp.float32)).reshape(3, 3, 4, 2)
inp = jnp.ones((1, 6, 6, 4))
fwd = lambda v: lax.conv_general_dilated(v, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
out, vjp = jax.vjp(fwd, inp)
ct = jnp.cos(jnp.arange(out.size, dtype=jnp.float32)).reshape(out.shape)
print(jnp.abs(vjp(ct)[0] - lax.conv_transpose(ct, w, (2, 2), "SAME", transpose_kernel=True)).max() < 1e-5)

g = jax.jit(lambda x, k: lax.conv_transpose(x, k, (2, 2), "SAME", precision=lax.Precision.HIGHEST))
print(g(x, k)[1, 2].round(4))
print(jax.grad(lambda k: lax.conv_transpose(x, k, (2, 2), "VALID").sum())(k)[1, 1].round(4))
print(jax.vmap(lambda a: lax.conv_transpose(a[None], k, (2, 2), "SAME")[0, 0, 0])(x).round(4))
print(lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                               precision=lax.Precision.HIGHEST)[0, 1].round(4))
print(lax.conv(xc, kc, (1, 1), "VALID", precision="highest").shape)

print(lax.padtype_to_pads((7, 8), (3, 2), (2, 3), "SAME"), lax.padtype_to_pads((7, 8), (3, 2), (2, 3), "same_lower"))
print(lax.padtype_to_pads((5,), (4,), (1,), "VALID"))

result = lax.conv_transpose(x, k, (2, 2), "SAME")[0, :, :, 2]
