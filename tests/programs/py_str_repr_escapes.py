# repr of a str escapes what CPython escapes (control, format and
# separator characters, private-use and unassigned code points), picks its
# quotes as CPython does, and ascii() escapes every non-ASCII character.
samples = [
    "plain", "tab\there", "nul\x00", "del\x7f", "c1\x85\x9f", "nbsp\xa0", "soft\xad",
    "line\u2028para\u2029", "zw\u200b\u200d", "bom\ufeff", "ideo\u3000", "pua\ue000",
    "tag\U000e0041", "unassigned\u0378", "caf\xe9", "\u65e5\u672c", "emoji\U0001f600",
    "it's", 'say "hi"', "both ' and \"", "back\\slash", "cr\r nl\n",
]
for s in samples:
    print(repr(s), ascii(s))
print([("k\x01", "\u2028")], {"\x1b": 1})
print("%r %a" % ("\x07", "\xe9"), f"{'x' + chr(0x2066)!r} {'ü'!a}")
print(ascii(["\xff", 3]), ascii(1.5), len(repr("\U0010ffff")))
