from jax import tree_util as tu


class Node:
    def __init__(self, v, name):
        self.v, self.name = v, name


tu.register_pytree_node(Node, lambda n: ((n.v,), n.name), lambda name, ch: Node(ch[0], name))
out = tu.tree_map(lambda p, q: p + q, [Node(1, "first")], [Node(2, "second")])
