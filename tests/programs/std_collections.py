from collections import namedtuple, OrderedDict, defaultdict, Counter, deque
import collections
Point = namedtuple('Point', ['x', 'y'])
p = Point(1, y=2)
print(p, p.x, p.y, p[0], p[-1], p[:1], len(p), list(p))
a, b = p
print(a, b, Point._fields, p._asdict(), p._replace(x=10))
P3 = namedtuple('P3', 'x, y z', defaults=[0, 5])
print(P3(1), P3(1, 2, 3), P3._field_defaults, P3._make([7, 8, 9]))
print(repr(p), str(p), f"{p}", 2 in p, p.index(2), p.count(1))
print(isinstance(p, Point), type(p).__name__)
try:
    Point(1)
except TypeError as e:
    print("TypeError", e)
try:
    Point(1, 2, 3)
except TypeError as e:
    print("TypeError", e)
try:
    Point(1, z=3)
except TypeError as e:
    print("TypeError", e)
try:
    namedtuple('Bad', 'x x')
except ValueError as e:
    print("ValueError", e)
try:
    p._replace(z=1)
except ValueError as e:
    print("ValueError", e)
class Vec(namedtuple('Vec', 'x y')):
    def norm1(self):
        return abs(self.x) + abs(self.y)
v = Vec(3, -4)
print(v, v.norm1())
d = defaultdict(list)
d['a'].append(1)
d['b'].append(2)
d['a'].append(3)
print(d, d["a"], len(d), sorted(d.items()))
dd = defaultdict(int, {'x': 1})
dd['y'] += 2
print(dd)
od = OrderedDict([('b', 1), ('a', 2)])
od['c'] = 3
print(list(od.items()), list(od.keys()))
c = Counter('abracadabra')
print(c, c['a'], c['z'], c.most_common(2), len(c))
print(sorted(c.elements()), c.total())
c.update(['a', 'z'])
c.subtract({'b': 1})
print(c, c.most_common())
c2 = Counter({'x': 3, 'y': 1}); c3 = Counter(x=3, y=1)
print(c2 == c3, c2 == {'x': 3, 'y': 1}, list(c2), 'x' in c2, sorted(c2.items()), c2.get('q', 9))
print(Counter(), Counter([1, 1, 2]))
q = deque([1, 2, 3])
q.append(4); q.appendleft(0)
print(q, q.popleft(), q.pop(), q, len(q), q[0], q[-1], list(q))
q.extend([7, 8]); q.extendleft([-1, -2])
print(q)
q.rotate(2); print(q)
q.rotate(-3); print(q)
bounded = deque(maxlen=3)
for i in range(5):
    bounded.append(i)
print(bounded, bounded.maxlen, deque([1,2]) == deque([1,2]), 2 in bounded)
try:
    deque().pop()
except IndexError as e:
    print("IndexError", e)
total = 0
work = deque([3, 1, 2])
while len(work) > 0:
    total = total * 10 + work.popleft()
print(total)
result = [p.x + p.y, c['a'], len(q)]
