//! The text of a `GraphDef`, as Flax prints the one its graph flatten
//! makes: the nodes met depth first (a `NodeDef` per module, a
//! `GenericPytree` node for each module's `PytreeState`, a `VariableDef`
//! per variable, a `NodeRef` for a module or variable met again), the
//! attributes of every module in sorted order (`Static` values,
//! `NodeAttr` for nodes, `LeafAttr` for arrays) and the number of leaves.
//! Graphs holding containers of data or variables with metadata of their
//! own are refused by name.

use super::*;

#[derive(Default)]
struct Flat {
    nodes: Vec<String>,
    attributes: Vec<String>,
    leaves: usize,
    seen: Vec<(usize, usize)>,
    next_index: usize,
}

fn refuse(what: &str) -> crate::error::Error {
    err!(
        NotImplementedError,
        "not supported by shardlab yet: the text of a GraphDef of {what}"
    )
}

impl Flat {
    /// The index of a node met before, or a new one for it.
    fn index(&mut self, id: usize) -> std::result::Result<usize, usize> {
        match self.seen.iter().find(|(k, _)| *k == id) {
            Some((_, at)) => Err(*at),
            None => {
                let at = self.next_index;
                self.next_index += 1;
                self.seen.push((id, at));
                Ok(at)
            }
        }
    }

    fn node_ref(&mut self, index: usize) {
        self.nodes.push(format!("NodeRef(\n  index={index}\n)"));
    }

    fn variable(&mut self, v: &Rc<Instance>) -> Result<()> {
        let index = match self.index(Rc::as_ptr(v) as usize) {
            Ok(i) => i,
            Err(i) => {
                self.node_ref(i);
                return Ok(());
            }
        };
        if v.attrs.borrow().iter().any(|(k, _)| k != "value") {
            return Err(refuse("a variable with metadata of its own"));
        }
        self.nodes.push(format!(
            "VariableDef(\n  type='{}',\n  index={index},\n  outer_index=None,\n  metadata=PrettyMapping({{\n    'hijax': False,\n    'ref': False,\n    'eager_sharding': True\n  }})\n)",
            v.class.name
        ));
        self.leaves += 1;
        Ok(())
    }

    fn module(&mut self, m: &Rc<Instance>) -> Result<()> {
        let index = match self.index(Rc::as_ptr(m) as usize) {
            Ok(i) => i,
            Err(i) => {
                self.node_ref(i);
                return Ok(());
            }
        };
        if !pytree::is_pytree(m) {
            return Err(refuse("an object that is not a pytree"));
        }
        let attrs: Vec<(String, Obj)> = m
            .attrs
            .borrow()
            .iter()
            .filter(|(k, _)| !k.starts_with("_nnx"))
            .cloned()
            .collect();
        let all = m.attrs.borrow().clone();
        let nodes_text = pytree::pytree_nodes_text(&all, &|k| {
            attrs
                .iter()
                .any(|(n, v)| n == k && pytree::is_child(m, n, v))
        });
        let mut keys: Vec<String> = attrs.iter().map(|(k, _)| k.clone()).collect();
        keys.push("_pytree__nodes".into());
        keys.push("_pytree__state".into());
        keys.sort();
        self.nodes.push(format!(
            "NodeDef(\n  type='{name}',\n  index={index},\n  outer_index=None,\n  num_attributes={},\n  metadata={name}\n)",
            keys.len(),
            name = m.class.name
        ));
        for key in keys {
            let q = repr_of(&Obj::str(&key));
            match key.as_str() {
                "_pytree__nodes" => {
                    self.attributes
                        .push(format!("({q}, Static(value={nodes_text}))"));
                }
                "_pytree__state" => {
                    self.attributes.push(format!("({q}, NodeAttr())"));
                    self.nodes.push(
                        "NodeDef(\n  type='GenericPytree',\n  index=None,\n  outer_index=None,\n  num_attributes=0,\n  metadata=({}, PyTreeDef(CustomNode(PytreeState[(False, False)], [])))\n)"
                            .into(),
                    );
                }
                _ => {
                    let v = attrs
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, v)| v.clone())
                        .unwrap_or(Obj::None);
                    self.attribute(m, &q, &key, &v)?;
                }
            }
        }
        Ok(())
    }

    fn attribute(&mut self, m: &Rc<Instance>, q: &str, key: &str, v: &Obj) -> Result<()> {
        if !pytree::is_child(m, key, v) {
            self.attributes
                .push(format!("({q}, Static(value={}))", repr_of(v)));
            return Ok(());
        }
        match v {
            Obj::Instance(i) if is_variable(i) => {
                self.attributes.push(format!("({q}, NodeAttr())"));
                self.variable(i)
            }
            Obj::Instance(i) if is_nnx_module(i) => {
                self.attributes.push(format!("({q}, NodeAttr())"));
                self.module(i)
            }
            Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_) | Obj::Instance(_) => Err(refuse(
                &format!("a module holding a {} of data", v.type_name()),
            )),
            _ => {
                self.attributes.push(format!("({q}, LeafAttr())"));
                self.leaves += 1;
                Ok(())
            }
        }
    }
}

/// `repr` of the GraphDef of `node` (the copy a GraphDef keeps).
pub(super) fn graphdef_text(node: &Obj) -> Result<String> {
    let Obj::Instance(m) = node else {
        return Err(refuse(&format!("a {}", node.type_name())));
    };
    if !is_nnx_module(m) {
        return Err(refuse(&format!("a {}", m.class.name)));
    }
    let mut flat = Flat::default();
    flat.module(m)?;
    Ok(format!(
        "GraphDef(nodes=[{}], attributes=[{}], num_leaves={})",
        flat.nodes.join(", "),
        flat.attributes.join(", "),
        flat.leaves
    ))
}
