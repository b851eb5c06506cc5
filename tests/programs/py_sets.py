print(list({3,1,2}), list({10,3,100,7}), list({-1,5,8}), list(set(range(20,0,-3))), {1.0, 2}, set(), frozenset({2,1}))
s={1,2,3}; print(s - {2}, s & {3,9}, s ^ {3, 4}, s | {0}, s.pop(), s)
print(list({1000, 8, 16, 24, 32, 40}), {x % 5 for x in range(12)}, len({1, 1.0, True}))
a = set()
for i in [5, 3, 5, 9, 1]:
    a.add(i)
print(a, 3 in a, 4 not in a, {1, 2} <= {1, 2, 3}, {1, 2} < {1, 2}, sorted({"b", "a"}))
a.discard(3); a.remove(9); print(a, a.union([7, 8], {0}), a.issubset({1, 5, 6}))
try:
    a.remove(42)
except KeyError as e:
    print("KeyError", e)
print(type(a).__name__, isinstance(a, set), {(1, 2), (1, 2)})
big = set(range(100, 0, -7))
print(sorted(big) == sorted(set(sorted(big))), len(big), list(big)[:5])
print({1, 2, 3} ^ {2, 3, 4, 5}, {5, 6, 7} | {1, 2}, frozenset([3, 1]) | {2})
result = [sorted({3, 1, 2}), len({1, 1.0, True}), list({10, 3, 100, 7})]
