print(hash(1), hash(-1), hash(2**61), hash((1,2)) == hash((1,2)), id([]) != 0)
print(chr(65), ord("A"))
try:
    chr(0x110000)
except ValueError as e:
    print(e)
try:
    ord("ab")
except TypeError as e:
    print(e)
try:
    hash([])
except TypeError as e:
    print(e)
x = [1]
print(id(x) == id(x), id(x) == id([1]))
result = [hash(7), hash(2**61), ord("z")]
