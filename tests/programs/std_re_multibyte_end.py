# `$` next to text that ends in a character of several bytes: Python's `$`
# also matches before a final newline, and the text's last character is not
# always one byte.
import re

for text in ["a1b2c¡", "x\ny¡", "¡\n", "ab\n¡\n", "é"]:
    print(repr(text), re.search(r"\w$", text), re.findall(r"(?m)\w$", text), re.sub("$", "!", text))
result = len(re.findall("¡$", "x\n¡"))
