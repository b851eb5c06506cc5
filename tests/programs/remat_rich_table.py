# rich as notebooks use it to lay out jaxprs: a console forced into Jupyter
# mode shows nothing without IPython; a plain console prints text with its
# markup taken out.
import jax
import jax.numpy as jnp
from rich.console import Console
from rich.table import Table
import rich.text


def layer(w, v):
    return jnp.tanh(w @ v)


w = jnp.full((3, 3), 0.5)
v = jnp.arange(3.0)
forward = jax.make_jaxpr(jax.checkpoint(layer))(w, v).jaxpr
text = rich.text.Text.from_ansi(str(forward))

table = Table(show_header=False, show_lines=True, padding=(1, 2, 0, 2), box=None)
table.add_row("[bold green]forward:", "[bold green]shapes:")
table.add_row(text, rich.text.Text.from_ansi("f32[3]"))
print(type(table).__name__, table.row_count)

notebook = Console(width=200, force_jupyter=True)
notebook.print(table)
notebook.print("[bold]this goes to a notebook's display")
print(notebook.is_jupyter, notebook.width)


def as_html(self):
    return self.html


rich.jupyter.JupyterRenderable._repr_html_ = as_html
shown = rich.jupyter.JupyterRenderable("<b>x</b>", "x")
print(shown._repr_html_(), shown.text)

plain = Console(width=60)
plain.print("[bold red]loss[/bold red] after", 3, "steps:", 0.25)
plain.print("a [italic]nested [b]tag[/b][/italic] and \\[escaped] [1, 2]")
plain.print("x", "y", sep="-", end="!\n")
plain.print(rich.text.Text("plain [not markup]"))
print(plain.is_jupyter, plain.width)

t = rich.text.Text.from_ansi("in (b,)")
print(str(t), len(t), repr(t), t.plain == "in (b,)", type(t).__name__)
print(text.plain.split("\n")[0])
result = [str(t), len(text.plain) > 0]
