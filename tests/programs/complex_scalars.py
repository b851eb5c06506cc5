# Python complex numbers: literals, arithmetic with ints and floats, parts,
# conjugate, abs, equality and CPython's repr.
z = 3 - 1.5j
w = complex(0.25, 2)
print(z, w, -0.0 + 2j, complex(-0.0, -1), 4e21 + 0.5j, 7j)
print(z + w, z - 2, 3 * w, z * w, z / w, w / 4)
print(z ** 3, w ** -2, (1 + 1j) ** 0.5, 2 ** (1 + 1j), z ** 0)
print(abs(z), abs(-2j), z.real, z.imag, w.conjugate(), (5.0).imag)
print(z == 3 - 1.5j, 2 + 0j == 2, z != w, isinstance(w, complex), type(z).__name__)
print(-z, +w, bool(0j), bool(1e-300j), [1j, (2, -1j)], complex(2), complex(1j, 1j))
try:
    z / 0
except ZeroDivisionError as e:
    print("ZeroDivisionError:", e)
try:
    print(z < w)
except TypeError as e:
    print("TypeError:", e)
try:
    int(z)
except TypeError as e:
    print("TypeError:", e)
result = [z.real, z.imag, abs(z * w)]
