import hashlib

# Digests of text made bytes, of bytes literals, fed at once or in pieces.
text = "0 1 7"
for name in ["md5", "sha1", "sha256", "sha512", "blake2b", "blake2s"]:
    h = hashlib.new(name, text.encode())
    print(name, h.name, h.digest_size, h.block_size, h.hexdigest())

s = hashlib.sha256()
s.update(b"tiny ")
t = s.copy()
s.update("nnx".encode("utf-8"))
print(s.hexdigest())
print(t.hexdigest() == hashlib.sha256(b"tiny ").hexdigest())

d = hashlib.blake2s(b"seed").digest()
print(len(d), d[:4], d[-3:], d[0], list(d[:3]))
print(int.from_bytes(d[:4], byteorder="big"), int.from_bytes(d[:4], "little"))
print(int.from_bytes(b"\xff\xfe", "big", signed=True), int.from_bytes([1, 2], "big"))
print(hashlib.blake2b(b"x", digest_size=16).hexdigest(), hashlib.md5(string=b"").hexdigest(), hashlib.new("blake2s", b"x", digest_size=4).hexdigest())
print(b"a'b", b'q"', b"\x00\n\t\\", b"ab" + b"cd", b"hi".hex(), b"hi".decode())
print(hashlib.sha1(b"abc").digest() == hashlib.new("sha1", b"abc").digest())

# A stable 32-bit hash of a path of ints, as a counter-based rng might use.
def stable_hash(path):
    return int.from_bytes(hashlib.blake2s(" ".join(str(x) for x in path).encode()).digest()[:4], byteorder="big")


print([stable_hash((0, k)) for k in range(4)])
result = [stable_hash((3,)), int.from_bytes(d[:2], "big")]
try:
    hashlib.sha256("text")
except TypeError as e:
    print("TypeError", e)

try:
    hashlib.blake2b(data=b"x")
except TypeError as e:
    print("TypeError", e)
hashlib.new("whirlpool-ish")
