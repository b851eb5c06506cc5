//! `collections.abc`: the abstract container classes, which
//! `isinstance` answers by what an object can do (a dict is a `Mapping`, a
//! list a `Sequence`, anything iterable an `Iterable`), and which
//! annotations subscript (`Callable[[int], int]`).

use std::rc::Rc;

use crate::modules::Builder;
use crate::python::object::Object;
use crate::python::value::{Class, Obj};

/// Which abstract class, and so which objects are its instances.
#[derive(Clone, Copy)]
enum Abc {
    Iterable,
    Iterator,
    Sized,
    Container,
    Callable,
    Hashable,
    Sequence,
    MutableSequence,
    Mapping,
    MutableMapping,
    Set,
    MutableSet,
}

const ALL: &[(&str, Abc)] = &[
    ("Iterable", Abc::Iterable),
    ("Iterator", Abc::Iterator),
    ("Generator", Abc::Iterator),
    ("Sized", Abc::Sized),
    ("Container", Abc::Container),
    ("Collection", Abc::Sized),
    ("Callable", Abc::Callable),
    ("Hashable", Abc::Hashable),
    ("Sequence", Abc::Sequence),
    ("MutableSequence", Abc::MutableSequence),
    ("Mapping", Abc::Mapping),
    ("MutableMapping", Abc::MutableMapping),
    ("Set", Abc::Set),
    ("MutableSet", Abc::MutableSet),
];

struct AbcClass(Abc);

fn has(o: &Obj, name: &str) -> bool {
    matches!(o, Obj::Instance(i) if i.class.lookup(name).is_some())
}

/// The builtin types that are iterable, sized containers (NumPy's arrays
/// too, whose class defines `__iter__` and `__len__` even for 0-d ones).
fn builtin_collection(o: &Obj) -> bool {
    o.type_name() == "numpy.ndarray"
        || matches!(
            o,
            Obj::List(_)
                | Obj::Tuple(_)
                | Obj::Str(_)
                | Obj::Dict(_)
                | Obj::Set(_)
                | Obj::Range(..)
                | Obj::Array(_)
        )
}

impl Object for AbcClass {
    fn type_name(&self) -> String {
        "ABCMeta".into()
    }

    fn instancecheck(&self, o: &Obj) -> Option<bool> {
        let generator = o.behaviour().is_some_and(|b| b.is_iterator());
        let frozen = matches!(o, Obj::Set(s) if s.borrow().frozen);
        Some(match self.0 {
            Abc::Iterable => generator || has(o, "__iter__") || builtin_collection(o),
            Abc::Iterator => generator || has(o, "__next__"),
            Abc::Sized | Abc::Container => has(o, "__len__") || builtin_collection(o),
            Abc::Callable => {
                has(o, "__call__")
                    || matches!(
                        o,
                        Obj::Func(_)
                            | Obj::Native(_)
                            | Obj::Method(_)
                            | Obj::Class(_)
                            | Obj::Type(_)
                    )
            }
            Abc::Hashable => {
                let mutable_set = matches!(o, Obj::Set(_)) && !frozen;
                !(mutable_set || matches!(o, Obj::List(_) | Obj::Dict(_) | Obj::Array(_)))
            }
            Abc::Sequence => matches!(
                o,
                Obj::List(_) | Obj::Tuple(_) | Obj::Str(_) | Obj::Range(..)
            ),
            Abc::MutableSequence => matches!(o, Obj::List(_)),
            Abc::Mapping | Abc::MutableMapping => matches!(o, Obj::Dict(_)),
            Abc::Set => matches!(o, Obj::Set(_)),
            Abc::MutableSet => matches!(o, Obj::Set(_)) && !frozen,
        })
    }
}

/// The `collections.abc` module.
pub fn module() -> Obj {
    let mut b = Builder::new("collections.abc");
    for &(name, abc) in ALL {
        let mut class = Class::new(name, vec![], vec![]);
        class.native = Some(Rc::new(AbcClass(abc)));
        b.attr(name, Obj::Class(Rc::new(class)));
    }
    b.build()
}
