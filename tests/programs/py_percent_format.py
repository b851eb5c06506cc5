# printf-style formatting: positional and mapping keys, flags, widths,
# precisions, and CPython's errors for arguments left over or missing.
print("%d items at %.2f each: %s" % (3, 1.5, "ok"))
print("%(name)s has %(n)03d points (%(n)x in hex, %(r).1e)" % {"name": "w", "n": 42, "r": 12345.678})
print("%-6s|%6s|%+d|% d|%5.1f%%" % ("ab", "cd", 5, 7, 99.44))
print("%r %s %i %c" % ("q", [1, 2], 7.9, "z"))
print("%s" % [1, 2], "%s" % (None,), "abc" % [1], "abc" % {"k": 1})
errors = []
for fmt, args in [("%s %s", (1,)), ("%s", (1, 2)), ("abc", 5), ("%(k)s", {"j": 1}), ("%(k)s", (1,))]:
    try:
        fmt % args
    except (TypeError, KeyError) as e:
        errors.append(f"{type(e).__name__}: {e}")
print(errors)
result = len(errors)
