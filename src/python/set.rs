//! Python's `set` and `frozenset`.
//!
//! A set iterates (and prints) in the order of its hash table's slots, so
//! to print `{3, 1, 2}` as CPython does (`{1, 2, 3}`) the table here is
//! CPython's: the same hash of integers (the value modulo 2**61 - 1), the
//! same initial size, linear probing then perturbation, and the same
//! growth. Strings hash randomly in CPython (a different order every run);
//! here they hash by a fixed function, so a program's set of strings prints
//! in one of the orders CPython could print.

use std::hash::{Hash, Hasher};

use crate::error::Result;

use super::dict::{check_hashable, hash_key, key_eq};
use super::value::Obj;

const MIN_SIZE: usize = 8;
const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;
const MODULUS: i64 = (1 << 61) - 1;

/// CPython's hash of an object with a deterministic hash (integers), or a
/// fixed one (CPython's string hashes change from run to run).
pub fn py_hash(o: &Obj) -> i64 {
    // A NumPy scalar hashes as the Python number it equals.
    if let Some(s) = o.lib_scalar() {
        return py_hash(&s);
    }
    let int = match o {
        Obj::Bool(b) => Some(*b as i64),
        Obj::Int(i) => Some(*i),
        Obj::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => Some(*f as i64),
        _ => None,
    };
    match int {
        Some(i) => {
            let h = i.rem_euclid(MODULUS);
            let h = if i < 0 {
                -((-i).rem_euclid(MODULUS))
            } else {
                h
            };
            if h == -1 {
                -2
            } else {
                h
            }
        }
        None => {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            hash_key(o).hash(&mut s);
            (s.finish() >> 1) as i64
        }
    }
}

#[derive(Clone)]
enum Slot {
    Empty,
    Dummy,
    Full(Obj, i64),
}

/// A set: CPython's open-addressed table.
#[derive(Clone)]
pub struct Set {
    table: Vec<Slot>,
    used: usize,
    fill: usize,
    /// A `frozenset`.
    pub frozen: bool,
}

impl Default for Set {
    fn default() -> Set {
        Set {
            table: vec![Slot::Empty; MIN_SIZE],
            used: 0,
            fill: 0,
            frozen: false,
        }
    }
}

impl Set {
    /// An empty set, or an empty frozenset.
    pub fn empty(frozen: bool) -> Set {
        Set {
            frozen,
            ..Set::default()
        }
    }

    fn mask(&self) -> usize {
        self.table.len() - 1
    }

    /// The slot holding `key`, or the slot where it would go.
    fn find(&self, key: &Obj, hash: i64) -> (usize, bool) {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut free: Option<usize> = None;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in 0..=probes {
                match &self.table[i + j] {
                    Slot::Empty => return (free.unwrap_or(i + j), false),
                    Slot::Dummy => {
                        free.get_or_insert(i + j);
                    }
                    Slot::Full(k, h) => {
                        if *h == hash && key_eq(k, key) {
                            return (i + j, true);
                        }
                    }
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    /// True when `key` is a member.
    pub fn contains(&self, key: &Obj) -> bool {
        self.find(key, py_hash(key)).1
    }

    /// Adds `key` (a hashable object).
    pub fn add(&mut self, key: Obj) -> Result<()> {
        check_hashable(&key)?;
        let hash = py_hash(&key);
        let (i, found) = self.find(&key, hash);
        if found {
            return Ok(());
        }
        if matches!(self.table[i], Slot::Empty) {
            self.fill += 1;
        }
        self.table[i] = Slot::Full(key, hash);
        self.used += 1;
        if self.fill * 5 >= self.mask() * 3 {
            let minused = if self.used > 50_000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(minused);
        }
        Ok(())
    }

    fn resize(&mut self, minused: usize) {
        let mut size = MIN_SIZE;
        while size <= minused {
            size <<= 1;
        }
        let old = std::mem::replace(&mut self.table, vec![Slot::Empty; size]);
        self.fill = 0;
        self.used = 0;
        for slot in old {
            if let Slot::Full(k, h) = slot {
                let (i, _) = self.find(&k, h);
                self.table[i] = Slot::Full(k, h);
                self.fill += 1;
                self.used += 1;
            }
        }
    }

    /// Removes `key`, saying whether it was there.
    pub fn discard(&mut self, key: &Obj) -> bool {
        let (i, found) = self.find(key, py_hash(key));
        if found {
            self.table[i] = Slot::Dummy;
            self.used -= 1;
        }
        found
    }

    /// Removes and returns an element (CPython's: the first full slot).
    pub fn pop(&mut self) -> Option<Obj> {
        let i = self
            .table
            .iter()
            .position(|s| matches!(s, Slot::Full(..)))?;
        let Slot::Full(k, _) = std::mem::replace(&mut self.table[i], Slot::Dummy) else {
            return None;
        };
        self.used -= 1;
        Some(k)
    }

    /// The elements in table order.
    pub fn items(&self) -> Vec<Obj> {
        self.table
            .iter()
            .filter_map(|s| match s {
                Slot::Full(k, _) => Some(k.clone()),
                _ => None,
            })
            .collect()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.used
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Adds every element of `other`, as CPython's `set_merge` does: a
    /// table big enough for both first, then `other`'s elements in its
    /// table order (which is what `set(s)`, a set display of constants and
    /// `s.copy()` do, and why their order can differ from adding one by one).
    pub fn merge(&mut self, other: &Set) -> Result<()> {
        if other.used == 0 {
            return Ok(());
        }
        if (self.fill + other.used) * 5 >= self.mask() * 3 {
            self.resize((self.used + other.used) * 2);
        }
        for x in other.items() {
            self.add(x)?;
        }
        Ok(())
    }

    /// A set of `items`, added in order.
    pub fn from_items(items: Vec<Obj>) -> Result<Set> {
        let mut s = Set::default();
        for x in items {
            s.add(x)?;
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(s: &Set) -> Vec<i64> {
        s.items()
            .iter()
            .map(|o| match o {
                Obj::Int(i) => *i,
                _ => -999,
            })
            .collect()
    }

    #[test]
    fn small_ints_iterate_in_cpythons_order() {
        // CPython 3.11: list({3, 1, 2}) == [1, 2, 3];
        // list({10, 3, 100, 7}) == [10, 3, 100, 7] (slots 2, 3, 4, 7 of 8);
        // list({-1, 5, 8}) == [8, 5, -1];
        // list({1000, 8, 16, 24, 32, 40}) == [32, 16, 1000, 8, 40, 24]: a
        // display of constants is a frozenset (a 32-slot table after its fifth
        // element) merged into a new set of 16 slots.
        let s = Set::from_items(vec![Obj::Int(3), Obj::Int(1), Obj::Int(2)]).ok();
        assert_eq!(s.as_ref().map(ints), Some(vec![1, 2, 3]));
        let s = Set::from_items([10, 3, 100, 7].map(Obj::Int).to_vec()).ok();
        assert_eq!(s.as_ref().map(ints), Some(vec![10, 3, 100, 7]));
        let s = Set::from_items([-1, 5, 8].map(Obj::Int).to_vec()).ok();
        assert_eq!(s.as_ref().map(ints), Some(vec![8, 5, -1]));
        let frozen = Set::from_items([1000, 8, 16, 24, 32, 40].map(Obj::Int).to_vec());
        assert_eq!(
            frozen.as_ref().ok().map(ints),
            Some(vec![32, 1000, 8, 40, 16, 24])
        );
        let mut merged = Set::default();
        assert!(frozen.and_then(|f| merged.merge(&f)).is_ok());
        assert_eq!(ints(&merged), vec![32, 16, 1000, 8, 40, 24]);
    }

    #[test]
    fn membership_and_removal() {
        let mut s = Set::default();
        for i in 0..100 {
            assert!(s.add(Obj::Int(i)).is_ok());
        }
        assert_eq!(s.len(), 100);
        assert!(s.contains(&Obj::Float(42.0)));
        assert!(s.discard(&Obj::Int(42)));
        assert!(!s.contains(&Obj::Int(42)));
        assert_eq!(s.len(), 99);
    }
}
