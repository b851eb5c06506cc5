//! `PyTreeDef` objects: what `tree_structure` and `tree_flatten` return,
//! printing as JAX prints them and answering `num_leaves`, `num_nodes`,
//! `children()`, `unflatten(leaves)`, `flatten_up_to(tree)` and `==`.

use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::pytree::{flatten_up_to, unflatten, TreeDef};
use crate::python::value::{Args, Obj};

/// A tree structure as a Python object.
pub struct PyTreeDef {
    /// The structure.
    pub def: Rc<TreeDef>,
    text: String,
}

/// `PyTreeDef(...)`, with aux data printed by the program's `__str__`.
pub fn repr(i: &mut Interp, def: &TreeDef) -> Result<String> {
    def.repr_with(&mut |o| i.str(o))
}

/// The structure as a `PyTreeDef` object.
pub fn treedef_obj(i: &mut Interp, def: TreeDef) -> Result<Obj> {
    let text = repr(i, &def)?;
    Ok(Obj::lib(PyTreeDef {
        def: Rc::new(def),
        text,
    }))
}

/// The structure inside a `PyTreeDef` object.
pub fn of(o: &Obj, func: &str) -> Result<Rc<TreeDef>> {
    match o.downcast::<PyTreeDef>() {
        Some(t) => Ok(t.def.clone()),
        None => bail!(
            TypeError,
            "{func}() expects a PyTreeDef, got {}",
            o.type_name()
        ),
    }
}

/// Argument `index` (or `name`) as a structure.
pub fn arg(a: &Args, index: usize, name: &str, func: &str) -> Result<Rc<TreeDef>> {
    of(&a.req(Some(index), name, func)?, func)
}

/// The children's structures as a list of `PyTreeDef`s.
pub fn children(i: &mut Interp, def: &TreeDef) -> Result<Obj> {
    let mut out = vec![];
    for c in def.children() {
        out.push(treedef_obj(i, c.clone())?);
    }
    Ok(Obj::list(out))
}

/// `outer` with every leaf replaced by `inner`.
pub fn compose(outer: &TreeDef, inner: &TreeDef) -> TreeDef {
    let each = |c: &[TreeDef]| c.iter().map(|t| compose(t, inner)).collect();
    match outer {
        TreeDef::Leaf => inner.clone(),
        TreeDef::None => TreeDef::None,
        TreeDef::Tuple(c) => TreeDef::Tuple(each(c)),
        TreeDef::List(c) => TreeDef::List(each(c)),
        TreeDef::Dict(c) => TreeDef::Dict(
            c.iter()
                .map(|(k, t)| (k.clone(), compose(t, inner)))
                .collect(),
        ),
        TreeDef::Node(kind, c) => TreeDef::Node(kind.clone(), each(c)),
    }
}

impl Object for PyTreeDef {
    fn type_name(&self) -> String {
        "PyTreeDef".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let def = self.def.clone();
        Ok(Some(match name {
            "num_leaves" => Obj::Int(def.num_leaves() as i64),
            "num_nodes" => Obj::Int(def.num_nodes() as i64),
            "children" => Obj::native("PyTreeDef.children", move |i, _| children(i, &def)),
            "unflatten" => Obj::native("PyTreeDef.unflatten", move |i, a| {
                let leaves = i.iterate(&a.req(Some(0), "leaves", "unflatten")?)?;
                unflatten(i, &def, &leaves)
            }),
            "flatten_up_to" => Obj::native("PyTreeDef.flatten_up_to", move |i, a| {
                let tree = a.req(Some(0), "xs", "flatten_up_to")?;
                Ok(Obj::list(flatten_up_to(i, &def, &tree)?))
            }),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text.clone())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<PyTreeDef>()
                .is_some_and(|o| self.def.same(&o.def)),
        )
    }
}
