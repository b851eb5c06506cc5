//! `lax.Precision`: the enumeration `DEFAULT`, `HIGH`, `HIGHEST` (0, 1,
//! 2) that the matrix products take as `precision=`. JAX's members print
//! as `Precision.HIGHEST` (repr) and `HIGHEST` (str), and
//! `Precision('highest')` looks a member up by one of its aliases, so the
//! type is written here rather than as a plain `enum.Enum`. On the CPU
//! every precision computes the same float32 product (see `lax_dot`).

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

const NAMES: [&str; 3] = ["DEFAULT", "HIGH", "HIGHEST"];

/// A member of `Precision`.
pub struct Member(usize);

impl Object for Member {
    fn type_name(&self) -> String {
        "Precision".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "name" | "_name_" => Some(Obj::str(NAMES[self.0])),
            "value" | "_value_" => Some(Obj::Int(self.0 as i64)),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("Precision.{}", NAMES[self.0]))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(NAMES[self.0].into())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<Member>().is_some_and(|m| m.0 == self.0))
    }
}

/// The class: its members as attributes, and a call that finds a member
/// by value, member or alias.
struct Precision {
    members: Vec<Obj>,
}

impl Object for Precision {
    fn type_name(&self) -> String {
        "EnumType".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match NAMES.iter().position(|n| *n == name) {
            Some(i) => Some(self.members[i].clone()),
            None if name == "__name__" => Some(Obj::str("Precision")),
            None => None,
        })
    }

    fn call(&self, _: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(self.lookup(&args))
    }

    fn callable(&self) -> bool {
        true
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<enum 'Precision'>".into())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(obj.downcast::<Member>().is_some())
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.members.clone()))
    }
}

impl Precision {
    fn lookup(&self, a: &Args) -> Result<Obj> {
        let v = a.req(Some(0), "value", "Precision")?;
        let index = match &v {
            o if o.downcast::<Member>().is_some() => return Ok(v.clone()),
            Obj::Int(i) => usize::try_from(*i).ok().filter(|&i| i < 3),
            Obj::Str(s) => match &**s {
                "default" | "bfloat16" | "fastest" => Some(0),
                "high" | "bfloat16_3x" | "tensorfloat32" => Some(1),
                "highest" | "float32" => Some(2),
                _ => None,
            },
            _ => None,
        };
        match index {
            Some(i) => Ok(self.members[i].clone()),
            None => bail!(
                ValueError,
                "{} is not a valid Precision",
                crate::python::format::repr_of(&v)
            ),
        }
    }
}

/// The `Precision` class object.
pub fn class() -> Obj {
    let members = (0..NAMES.len()).map(|i| Obj::lib(Member(i))).collect();
    Obj::lib(Precision { members })
}
