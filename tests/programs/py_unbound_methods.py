# Methods taken from builtin types (dict.get, str.join, list.__getitem__):
# functions of the receiver, with CPython's error for a wrong receiver.
d = {"b": 2, "a": 1}
print(sorted(dict.keys(d)), dict.get(d, "a"), dict.get(d, "z", 0), sorted(dict.items(d)))
dict.__setitem__(d, "c", 3)
print(d, dict.__getitem__(d, "c"), dict.__contains__(d, "c"), dict.__len__(d))
print(str.join("-", ["x", "y"]), str.upper("ab"), list.index([5, 6, 7], 7))
print(list(map(str.strip, [" a ", "b "])), list.__repr__([1, "2"]))
try:
    dict.keys([1])
except TypeError as e:
    print(e)
result = dict.get(d, "c")
