//! Python's dict: insertion-ordered entries with hashed lookup.
//!
//! Keys are hashed through [`HashKey`], a structural form in which values
//! Python considers equal are equal (`1`, `1.0` and `True` are one key, as
//! they are in Python; tuples hash by their items). Objects with no
//! structural form (library objects such as a `Mesh`, class instances) are
//! kept out of the index and found by a scan with [`key_eq`], which is rare
//! in programs and keeps their equality exactly Python's.

use std::collections::HashMap;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use super::value::Obj;

/// The hashed form of a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum HashKey {
    None,
    Int(i64),
    /// A float that is not an integer, by its bits.
    Float(u64),
    Str(Rc<str>),
    Tuple(Vec<HashKey>),
}

/// The hashed form of a key (None for objects compared by a scan).
pub(super) fn hash_key(o: &Obj) -> Option<HashKey> {
    Some(match o {
        Obj::None => HashKey::None,
        Obj::Bool(b) => HashKey::Int(*b as i64),
        Obj::Int(i) => HashKey::Int(*i),
        Obj::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => HashKey::Int(*f as i64),
        // All NaNs are one key here; Python keeps distinct NaN objects apart.
        Obj::Float(f) => HashKey::Float(if f.is_nan() { u64::MAX } else { f.to_bits() }),
        Obj::Str(s) => HashKey::Str(s.clone()),
        Obj::Tuple(t) => HashKey::Tuple(t.iter().map(hash_key).collect::<Option<_>>()?),
        // A NumPy scalar is the key of the Python number it equals.
        Obj::Lib(_) => return o.lib_scalar().and_then(|s| hash_key(&s)),
        _ => return None,
    })
}

/// Python's `TypeError` for a key that cannot be hashed (lists, dicts,
/// arrays), or Ok.
pub fn check_hashable(o: &Obj) -> Result<()> {
    match o {
        Obj::List(_) | Obj::Dict(_) => bail!(TypeError, "unhashable type: '{}'", o.type_name()),
        Obj::Array(_) => bail!(TypeError, "unhashable type: 'jaxlib._jax.ArrayImpl'"),
        Obj::Tuple(t) => t.iter().try_for_each(check_hashable),
        Obj::Set(st) if !st.borrow().frozen => bail!(TypeError, "unhashable type: 'set'"),
        Obj::Instance(i) => instance_hashable(i),
        _ => Ok(()),
    }
}

/// An instance hashes by identity unless its class says otherwise, as in
/// Python: a class that defines `__eq__` without `__hash__`, or sets
/// `__hash__ = None` (a plain dataclass), or extends `list`/`dict`, is
/// unhashable. Equality that a library defines (frozen dataclasses, named
/// tuples) is asked through the object protocol by [`key_eq`]. A class whose
/// own Python code defines `__hash__` or `__eq__` would need the interpreter
/// to hash and compare keys, which dicts and sets here do not call, so it is
/// refused rather than silently compared by identity.
fn instance_hashable(i: &super::value::Instance) -> Result<()> {
    let name = &i.class.name;
    let eq = i.class.lookup("__eq__");
    match (&eq, i.class.lookup("__hash__")) {
        (_, Some(Obj::None)) | (Some(Obj::Func(_)), None) => {
            bail!(TypeError, "unhashable type: '{name}'")
        }
        (_, Some(Obj::Func(_))) | (Some(Obj::Func(_)), Some(_)) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: instances of '{name}', whose class defines __hash__ or __eq__, as dict keys or set members"
        ),
        _ if matches!(i.base, Some(Obj::List(_) | Obj::Dict(_))) => {
            bail!(TypeError, "unhashable type: '{name}'")
        }
        _ => Ok(()),
    }
}

/// An ordered dictionary; keys compare by Python equality.
#[derive(Clone, Default)]
pub struct Dict {
    /// Entries in insertion order.
    pub items: Vec<(Obj, Obj)>,
    /// Positions in `items` of the keys that have a hashed form.
    index: HashMap<HashKey, usize>,
    /// `defaultdict`'s factory, called for a missing key on `d[key]`.
    pub default_factory: Option<Obj>,
    /// True for an `OrderedDict`, which flattens as a pytree in insertion
    /// order rather than in sorted key order.
    pub ordered: bool,
}

impl Dict {
    /// Where `key` is in `items`.
    fn position(&self, key: &Obj) -> Option<usize> {
        match hash_key(key) {
            Some(h) => self.index.get(&h).copied(),
            None => self.items.iter().position(|(k, _)| key_eq(k, key)),
        }
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &Obj) -> Option<Obj> {
        self.position(key).map(|i| self.items[i].1.clone())
    }

    /// True when `key` is present.
    pub fn contains(&self, key: &Obj) -> bool {
        self.position(key).is_some()
    }

    /// Inserts or replaces (an existing key keeps its place and its first
    /// spelling, as in Python: `d[1.0] = x` after `d[1] = y` keeps `1`).
    pub fn set(&mut self, key: Obj, value: Obj) {
        match self.position(&key) {
            Some(i) => self.items[i].1 = value,
            None => {
                if let Some(h) = hash_key(&key) {
                    self.index.insert(h, self.items.len());
                }
                self.items.push((key, value));
            }
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &Obj) -> Option<Obj> {
        let i = self.position(key)?;
        let (_, v) = self.items.remove(i);
        self.reindex();
        Some(v)
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.items.clear();
        self.index.clear();
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    fn reindex(&mut self) {
        self.index.clear();
        for (i, (k, _)) in self.items.iter().enumerate() {
            if let Some(h) = hash_key(k) {
                self.index.insert(h, i);
            }
        }
    }
}

impl FromIterator<(Obj, Obj)> for Dict {
    fn from_iter<I: IntoIterator<Item = (Obj, Obj)>>(iter: I) -> Dict {
        let mut d = Dict::default();
        for (k, v) in iter {
            d.set(k, v);
        }
        d
    }
}

/// Equality of keys as a dict compares them: numbers by value, strings,
/// None, tuples item by item, library objects by their `==`, anything else
/// by identity.
pub fn key_eq(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (Obj::Str(x), Obj::Str(y)) => x == y,
        (Obj::None, Obj::None) => true,
        (Obj::Tuple(x), Obj::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| key_eq(p, q))
        }
        // A class is a key only of the classes it equals (see
        // `Object::class_name`).
        (Obj::Lib(x), _) if x.class_name().is_some() || b.class_name().is_some() => {
            x.class_name().is_some() && b.class_name().is_some() && x.eq(a, b).unwrap_or(false)
        }
        (Obj::Lib(x), _) => x
            .eq(a, b)
            .unwrap_or(matches!(b, Obj::Lib(y) if Rc::ptr_eq(x, y))),
        (_, Obj::Lib(y)) if y.class_name().is_some() => false,
        (Obj::Instance(x), Obj::Instance(y)) => {
            Rc::ptr_eq(x, y) || x.class.native().and_then(|n| n.eq(a, b)).unwrap_or(false)
        }
        (Obj::Class(x), Obj::Class(y)) => Rc::ptr_eq(x, y),
        (Obj::Func(x), Obj::Func(y)) => Rc::ptr_eq(x, y),
        (Obj::Native(x), Obj::Native(y)) => Rc::ptr_eq(x, y),
        (Obj::Type(x), Obj::Type(y)) => x == y,
        (Obj::DType(x), Obj::DType(y)) => x == y,
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_numbers_are_one_key() {
        let mut d = Dict::default();
        d.set(Obj::Int(1), Obj::str("int"));
        d.set(Obj::Float(1.0), Obj::str("float"));
        d.set(Obj::Bool(true), Obj::str("bool"));
        assert_eq!(d.len(), 1);
        assert!(matches!(d.items[0].0, Obj::Int(1)));
        assert!(matches!(&d.get(&Obj::Int(1)), Some(Obj::Str(s)) if &**s == "bool"));
    }

    #[test]
    fn removal_keeps_order_and_lookup() {
        let mut d: Dict = (0..5).map(|i| (Obj::Int(i), Obj::Int(i * 10))).collect();
        assert!(matches!(d.remove(&Obj::Int(2)), Some(Obj::Int(20))));
        let keys: Vec<i64> = d
            .items
            .iter()
            .filter_map(|(k, _)| match k {
                Obj::Int(i) => Some(*i),
                _ => None,
            })
            .collect();
        assert_eq!(keys, vec![0, 1, 3, 4]);
        assert!(matches!(d.get(&Obj::Int(4)), Some(Obj::Int(40))));
        assert!(d.get(&Obj::Int(2)).is_none());
    }

    #[test]
    fn tuple_keys_hash_by_items() {
        let mut d = Dict::default();
        d.set(Obj::tuple(vec![Obj::Int(1), Obj::str("a")]), Obj::Int(7));
        let probe = Obj::tuple(vec![Obj::Float(1.0), Obj::str("a")]);
        assert!(matches!(d.get(&probe), Some(Obj::Int(7))));
    }

    #[test]
    fn lists_are_unhashable() {
        let e = check_hashable(&Obj::list(vec![])).err().map(|e| e.message);
        assert_eq!(e.as_deref(), Some("unhashable type: 'list'"));
    }
}
