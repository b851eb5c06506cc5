# A long pure-Python loop: press Cancel to stop it.
total = 0
for i in range(100000000):
    total += i
result = total
