"""Helpers that write meshes and PartitionSpecs as program text."""

MESHES = {
    "1d": ((8,), ("x",)),
    "2d": ((2, 4), ("x", "y")),
    "2d42": ((4, 2), ("x", "y")),
    "3d": ((2, 2, 2), ("x", "y", "z")),
    "1dev": ((1,), ("x",)),
}


def mesh_line(key):
    shape, names = MESHES[key]
    n = 1
    for s in shape:
        n *= s
    devs = "np.array(jax.devices()[:%d])" % n
    if len(shape) > 1:
        devs += ".reshape(%s)" % ", ".join(str(s) for s in shape)
    return "mesh = Mesh(%s, %s)" % (devs, tup(names))


def tup(names):
    if len(names) == 1:
        return "(%r,)" % names[0]
    return "(" + ", ".join(repr(n) for n in names) + ")"


def axis_text(ax):
    """'x' or ('x', 'y') as Python text."""
    if isinstance(ax, str):
        return repr(ax)
    return tup(ax)


def axes_of(ax):
    return (ax,) if isinstance(ax, str) else tuple(ax)


def entry_text(e):
    if e is None:
        return "None"
    if isinstance(e, str):
        return repr(e)
    if len(e) == 1:
        return repr(e[0])
    return "(" + ", ".join(repr(a) for a in e) + ")"


def spec_text(spec):
    spec = list(spec)
    while spec and spec[-1] is None:
        spec.pop()
    return "P(" + ", ".join(entry_text(e) for e in spec) + ")"


def remove_axes(spec, axes):
    out = []
    for e in spec:
        if e is None:
            out.append(None)
        elif isinstance(e, str):
            out.append(None if e in axes else e)
        else:
            kept = tuple(a for a in e if a not in axes)
            out.append(kept if len(kept) > 1 else (kept[0] if kept else None))
    return out


def size_of(key, ax):
    shape, names = MESHES[key]
    n = 1
    for a in axes_of(ax):
        n *= shape[names.index(a)]
    return n


def global_shape(key, spec, block):
    shape, names = MESHES[key]
    out = []
    for i, b in enumerate(block):
        e = spec[i] if i < len(spec) else None
        m = 1
        for a in (() if e is None else axes_of(e)):
            m *= shape[names.index(a)]
        out.append(b * m)
    return tuple(out)
