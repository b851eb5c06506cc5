# NumPy's spellings of dtypes (type strings with byte orders, one-letter
# codes, C names) in jnp and np, a dtype's attributes, byte orders made
# and swapped back, and np.can_cast's rules.
import jax.numpy as jnp
import numpy as np

for s in ['<i2', 'i2', '=i4', '|u1', 'u1', 'f8', '<f8', 'i8', 'c8', 'b1', '?', 'f2', 'h', 'H', 'e', 'F', 'intc', 'short', 'ubyte', 'half', 'single']:
    print(s, repr(jnp.dtype(s)), repr(np.dtype(s)), jnp.dtype(s) == np.dtype(s))
print(jnp.zeros(2, '<i2').dtype, jnp.array([3, 300], dtype='u2'), jnp.ones(2, 'f2').dtype, jnp.arange(3, dtype='=i4').dtype)
print(jnp.dtype('<i2') == jnp.int16, np.dtype('f4') == jnp.float32)

for s in ['int16', 'uint8', 'bool', 'float32', 'complex64', 'float16', 'int8', 'uint32']:
    d = jnp.dtype(s)
    print(s, repr(d.byteorder), repr(d.char), d.descr, d.itemsize, d.kind, d.num, d.ndim, d.shape,
          repr(d.base), d.isbuiltin, d.alignment, d.metadata, d.str, d.isnative, d.names, d.fields,
          d.subdtype, d.hasobject, d.flags)
x = jnp.arange(3, dtype=jnp.int16)
print(x.dtype.char, x.dtype.kind, x.dtype.str, jnp.ones(2).dtype.num, np.dtype('f8').char, np.dtype('i8').num)

big = jnp.dtype('>f4')
print(repr(big), str(big), big.byteorder, big.isnative, big.str, big.descr, big.name, repr(big.base))
print(big == jnp.float32, big == np.dtype('>f4'), big == jnp.dtype('<f4'))
back = big.newbyteorder()
print(repr(back), str(back), back.byteorder, back.isnative, back == jnp.float32, jnp.zeros(2, back).dtype)
print(repr(np.dtype('<i2').newbyteorder()), repr(np.dtype('i2').newbyteorder('B')), repr(np.dtype('i2').newbyteorder('<')))
print(repr(np.dtype('i2').newbyteorder('=')), repr(big.newbyteorder('|')), repr(np.dtype('u1').newbyteorder('>')))
print(repr(np.dtype('>i1')), repr(np.dtype('>?')), repr(np.dtype(big)))

names = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64',
         'float16', 'float32', 'float64', 'complex64', 'complex128']
for casting in ['safe', 'same_kind']:
    for a in names:
        print(casting, a, ''.join('1' if np.can_cast(a, b, casting) else '.' for b in names))
print(np.can_cast('f4', 'f4', 'no'), np.can_cast('<f4', '>f4', 'no'), np.can_cast('<f4', '>f4', 'equiv'))
print(np.can_cast('f4', 'f8', 'equiv'), np.can_cast('f8', 'i1', 'unsafe'), jnp.can_cast(jnp.int8, jnp.float16))
print(jnp.can_cast(jnp.float32, jnp.bfloat16), jnp.can_cast(jnp.bfloat16, jnp.float32), jnp.can_cast(jnp.int8, jnp.bfloat16))
print(jnp.can_cast(jnp.bfloat16, jnp.float16), jnp.can_cast(jnp.float32, jnp.bfloat16, 'same_kind'))
print(jnp.issubdtype('f4', jnp.floating), jnp.issubdtype('<i2', jnp.integer), jnp.promote_types('<i2', '=u1'))

for bad in [lambda: jnp.dtype('i3'), lambda: jnp.dtype('<float32'), lambda: np.can_cast(1, 'f4'),
            lambda: np.can_cast('f4', 'f8', 'sometimes'), lambda: np.dtype('i2').newbyteorder('x'),
            lambda: jnp.zeros(2, '>f4')]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, str(e).split(' in zeros')[0])

# A dtype equals every spelling of itself, on either side of ==.
v = jnp.ones(3)
print(v.dtype == 'float32', 'float32' == v.dtype, v.dtype == 'f4', v.dtype == '<f4', v.dtype != 'float32')
print(v.dtype == 'int16', v.dtype == 'float64', jnp.dtype('int16') == 'i2', np.dtype('bool') == '?')
print(jnp.arange(3).dtype == 'int32', v.dtype == 'not a dtype')
result = jnp.array([1, 2], dtype='<u2').astype('f2')
