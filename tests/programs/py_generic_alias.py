# Subscripted builtin types (types.GenericAlias): their text, their use in
# annotations and as type aliases, calling them, and isinstance's refusal.
print(dict[str, int], list[int], tuple[int, ...], set[str], frozenset[int])
print(tuple[()], list[list[int]], dict[str, list[float]], tuple[int, str])


def first(xs: list[int], table: dict[str, int] = None) -> tuple[int, ...]:
    return tuple(xs[:1])


print(first([4, 5]))
Table = dict[str, int]
print(Table, repr(Table), type(Table), Table.__origin__, Table.__args__)
print(Table(), list[int]([1, 2]), Table(a=1), tuple[int, ...]([3]))
for kind in (dict[str, int], list[int], (int, tuple[int, ...])):
    try:
        isinstance({}, kind)
    except TypeError as e:
        print("TypeError:", e)
print(list[int] == list[int], list[int] == list[str], list[int] | None, int | list[str])
