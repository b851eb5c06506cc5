# str.split and rsplit with a separator and maxsplit, strip with chars, and
# splitlines at every line boundary Python knows.
text = "  alpha beta\tgamma  delta  "
print(text.split())
print(text.split(None, 1))
print(text.split(maxsplit=2))
print(text.rsplit(None, 1))
print(text.rsplit(maxsplit=2))
print(text.split(" "))
print("a,b,,c".split(","))
print("a,b,,c".split(",", 1))
print("a,b,,c".rsplit(",", 1))
print("a::b::c".rsplit("::"))
print("".split(), "".split(","), "   ".split(), "x".split(None, 0))
print("xxhixx".strip("x"), "xxhixx".lstrip("x"), "xxhixx".rstrip("x"))
print("<[tag]>".strip("<>[]"), repr("  pad\n".strip()), repr("abc".strip("")))
lines = "one\ntwo\r\nthree\rfour\x0bfive\x0csix\u2028seven\n"
print(lines.splitlines())
print(lines.replace("\u2028", "|").splitlines(True))
print(len("a\u2028b\u2029c\x85d\x1ce".splitlines()))
print("no break".splitlines(), "".splitlines(), "\n\n".splitlines())
try:
    "abc".split("")
except ValueError as e:
    print("ValueError", e)
try:
    "abc".strip(3)
except TypeError as e:
    print("TypeError", e)
