# NumPy's scalars: where they come from (indexing, reductions, calling a
# scalar type, arithmetic), how they print (repr names the dtype, str is the
# number) and how they behave as Python numbers (indices, float(), format
# specs, hashing, isinstance against NumPy's abstract classes).
import numpy as np
import jax.numpy as jnp

six = np.int64(6)
print(repr(six), str(six), type(six), six)
for t in [np.float32, np.float64, np.int32, np.bool_, np.uint32, np.int64, np.uint8]:
    v = t(3)
    print(repr(v), str(v), type(v), type(v).__name__)
counts = np.array([4, 5, 6])
print(repr(counts[0]), type(counts[1]), [repr(v) for v in counts])
print(repr(np.sum(counts)), repr(counts.sum()), repr(counts.mean()), repr(np.prod(counts)))
print(repr(np.max(counts)), repr(np.argmax(counts)), repr(counts.min()), repr(np.dot(counts, counts)))
print(repr(counts[2].item()), type(counts[2].item()), counts.tolist())
print(counts.dtype.type, repr(counts.dtype.type(9)), repr(np.dtype("float32").type(0.5)))
halves = np.array([1.5, 2.5], dtype=np.float32)
print(repr(halves[0]), repr(halves[0] * 2), repr(halves[0] * 2.0), repr(halves[0] + np.float64(1)))
print(repr(six + 1), repr(six * 1.5), repr(six / 4), repr(six // 4), repr(-six), repr(six ** 2))
print(repr(np.float32(0.1)), float(np.float32(0.1)), int(np.float64(3.7)), int(np.float32(-2.9)))
print(f"{np.float32(0.1)} {six} {six:5d} {np.float64(2.5):.3f} {np.int64(42):>6}|{np.float32(0.25):.1%}")
print("%d %s %r %.2f %5.1f" % (six, six, six, np.float32(1.25), np.float64(3.14159)))
print(repr(np.True_), repr(np.False_), repr(np.bool_(0)), repr(six == 6), repr(six < 7), repr(six != 6.0))
print(repr(np.float64(1e20)), repr(np.float32(1e-8)), repr(np.float64(np.inf)), repr(np.float32(np.nan)))
print(repr(np.float32(1e6)), repr(np.float32(123456.7)), repr(np.float32(16777217)), repr(np.float32(1e-4)))
print(repr(np.uint8(200) + 50), repr(np.int32(5) + 1), repr(np.int32(5) + np.int64(1)), repr(np.int64(3) / np.int64(2)))
print(repr(np.float32(1.5) + 1), repr(np.float64(0.1) + np.float32(0.2)), str(np.float32(1 / 3)))
print(np.int64(7) // 2, np.int64(7) % 3, np.float64(7) % 3, 2 ** np.int64(3), repr(np.int64(-7) // 2))
print(bool(np.float64(0)), not np.int64(0), float(np.int64(3)), repr(np.float64("2.5")))
print(repr(np.float64(2) ** 0.5), repr(-np.float32(0.0)), repr(abs(np.int64(-4))), repr(abs(np.float32(-1.5))))
print(repr(round(np.float64(2.567), 2)), repr(round(np.float32(2.5))), repr(round(np.float64(3.5))))
print(repr(max(np.int64(3), 4)), repr(max(np.array([3, 7, 2]))), repr(sum(np.array([1.5, 2.5]))))
print(np.float32(2).dtype, np.int64(2).dtype, np.float64(1).shape, np.int32(1).ndim, repr(np.float64(2.5).item()))
print(repr(np.float32(3.25).astype(np.int32)), repr(np.int64(3).astype(float)))

# As Python numbers: indices, range, repetition, dict keys, membership.
n = np.prod(counts.shape)
print(repr(n), list(range(n)), [0] * np.int64(2), (1, 2, 3)[np.int64(1)], "ab"[np.int32(1)])
print(counts[np.int64(2)], [10, 20, 30][np.int64(-1)], [1, 2, 3, 4][np.int64(1):np.int64(3)])
tally = {}
for v in np.array([1, 2, 1]):
    tally[v] = tally.get(v, 0) + 1
print(tally, tally[1], {np.int64(5): "five"}[5], hash(np.float64(1.5)) == hash(1.5))
print(np.int64(3) in [1, 2, 3], 3 in {np.int64(3)}, sorted([np.float64(2), 1.0, np.int64(0)]))

# isinstance against NumPy's abstract classes and the builtin types.
checks = [
    isinstance(six, np.integer),
    isinstance(six, np.floating),
    isinstance(np.float32(1), np.floating),
    isinstance(np.int32(1), np.signedinteger),
    isinstance(np.uint32(1), np.unsignedinteger),
    isinstance(np.bool_(1), np.number),
    isinstance(np.bool_(1), np.generic),
    isinstance(1, np.integer),
    isinstance(six, int),
    isinstance(np.float64(1), float),
    isinstance(np.float32(1), float),
]
print(checks)
print(type(six) is np.int64, type(np.float32(1)) == np.float32, type(np.float64(1)).__name__)

# Meeting JAX: a JAX array wins, with the 32-bit dtype JAX gives the scalar.
y = jnp.array([1.0, 2.0, 3.0])
print(repr(np.asarray(y).sum()), repr(np.asarray(y)[1]), repr(np.mean(y)), repr(np.sum(y)))
print(repr(y[np.int64(1)]), repr(y * np.float32(2)), repr(np.float64(2) * y))
print(repr(jnp.asarray(np.float64(2.5))), repr(jnp.asarray(np.int64(3))), repr(six + jnp.int32(1)))
print(repr(np.sqrt(np.float64(2))), repr(np.sqrt(2)), repr(np.exp(1.0)), jnp.zeros(n).shape)
print(repr(np.sum(np.ones((2, 2), dtype=np.float32))), repr(float(jnp.float32(2))))
try:
    np.uint32(-1)
except OverflowError as e:
    print("OverflowError:", e)
try:
    [1, 2][np.float64(1)]
except TypeError as e:
    print("TypeError:", e)
result = [np.int64(6), np.float32(0.5)]
