# The legacy RNG refuses what NumPy refuses, with NumPy's messages, and
# draws nothing when it does, except for shuffling a tuple, where NumPy
# draws the first index before the swap fails.
import numpy as np

np.random.seed(3)


def attempt(f, *args, **kwargs):
    try:
        print("ok", f(*args, **kwargs))
    except (ValueError, TypeError, IndexError) as e:
        print(type(e).__name__ + ":", e)


attempt(np.random.seed, -1)
attempt(np.random.seed, 2**32)
attempt(np.random.seed, 1.5)
attempt(np.random.seed, [])
attempt(np.random.seed, [[1, 2]])
attempt(np.random.randint, 0)
attempt(np.random.randint, 5, 5)
attempt(np.random.randint, -3)
attempt(np.random.randint, 0, 10, (2, 0))
attempt(np.random.choice, 0)
attempt(np.random.choice, [])
attempt(np.random.choice, [[1, 2]])
attempt(np.random.choice, 2.5)
attempt(np.random.choice, 3, p=[0.5, 0.5])
attempt(np.random.choice, 2, p=[0.5, 0.6])
attempt(np.random.choice, 2, p=[-0.5, 1.5])
attempt(np.random.choice, 3, 5, False)
attempt(np.random.choice, 3, 3, False, [0.5, 0.5, 0.0])
attempt(np.random.choice, 5, 0)
attempt(np.random.normal, 0, -1)
attempt(np.random.permutation, 2.5)
attempt(np.random.shuffle, (1, 2, 3))
attempt(np.random.rand, -1)
attempt(np.random.RandomState, 2**32)
# Only the tuple shuffle drew.
print(np.random.randint(0, 1000))

# Weighted draws without replacement, and seeds given as arrays.
rs = np.random.RandomState(np.array([5]))
print(rs.choice(6, size=4, replace=False, p=[0.05, 0.1, 0.4, 0.2, 0.05, 0.2]))
print(rs.choice([10, 20, 30], size=(2, 2)))
print(np.random.RandomState([0]).randint(0, 2**31, size=3))
print(np.random.RandomState(0).randint(0, 2**31, size=3))
result = np.random.RandomState(2**32 - 1).randint(-1000, 1000, size=6)
