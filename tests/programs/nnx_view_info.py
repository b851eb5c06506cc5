from flax import nnx

# view_info lists each module class with a set_view once, sorted by name.
class Gate(nnx.Module):
  def __init__(self, open_: bool = False):
    self.open_ = open_
    self.scale = 1.0

  def set_view(self, open_: bool | None = None, scale: float = 1.0, *, label: str = 'g'):
    """Sets the gate's mode.

    Args:
      open_: whether the gate passes
        its input through unchanged.
      scale: factor applied when open.
      label: a name
        spread over
        three lines.
    Returns:
      nothing.
    """
    if open_ is not None:
      self.open_ = open_


class Block(nnx.Module):
  def __init__(self, rngs):
    self.norm = nnx.BatchNorm(3, rngs=rngs)
    self.drop = nnx.Dropout(0.5)
    self.gate = Gate()
    self.more = nnx.List([nnx.Dropout(0.1), Gate()])


block = Block(nnx.Rngs(0))
print(nnx.view_info(block))
print('--')
print(nnx.view_info(block, only=nnx.Dropout))
print('--')
print(repr(nnx.view_info(nnx.Linear(2, 2, rngs=nnx.Rngs(1)))))
view = nnx.view(block, open_=True, deterministic=True)
print(view.gate.open_, block.gate.open_, view.drop.deterministic)
result = nnx.view_info(Gate())
