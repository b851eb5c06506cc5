//! JAX's type promotion lattice, with weak types, as it is without x64.
//!
//! The result of combining two types is their least upper bound in a
//! directed graph: bool below the weak int; the weak int below uint8 and
//! int8; each unsigned type below the next unsigned and the next wider
//! signed one (uint8 < int16, uint16 < int32, uint32 < int64); the integers
//! below the weak float; the weak float below bfloat16 and float16, which
//! meet at float32; float32 and the weak complex below complex64. Without
//! x64, int64 is int32; a weak result takes its kind's default type
//! (int32, float32, complex64) and stays weak.

use super::DType;

/// A node of the lattice: a dtype, or a weak kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Node {
    Bool,
    WeakInt,
    U8,
    U16,
    U32,
    I8,
    I16,
    I32,
    I64,
    WeakFloat,
    BF16,
    F16,
    F32,
    WeakComplex,
    C64,
}

/// The nodes directly above `n`.
fn above(n: Node) -> &'static [Node] {
    use Node::*;
    match n {
        Bool => &[WeakInt],
        WeakInt => &[U8, I8],
        U8 => &[U16, I16],
        U16 => &[U32, I32],
        U32 => &[I64],
        I8 => &[I16],
        I16 => &[I32],
        I32 => &[I64],
        I64 => &[WeakFloat],
        WeakFloat => &[BF16, F16, WeakComplex],
        BF16 | F16 => &[F32],
        F32 | WeakComplex => &[C64],
        C64 => &[],
    }
}

/// `n` and every node above it.
fn upset(n: Node) -> Vec<Node> {
    let mut seen = vec![n];
    let mut i = 0;
    while i < seen.len() {
        for &m in above(seen[i]) {
            if !seen.contains(&m) {
                seen.push(m);
            }
        }
        i += 1;
    }
    seen
}

fn node(d: DType, weak: bool) -> Node {
    match (d, weak) {
        (DType::Bool, _) => Node::Bool,
        (DType::C64, true) => Node::WeakComplex,
        (d, true) if d.is_float() => Node::WeakFloat,
        (d, true) if d.is_int() => Node::WeakInt,
        (DType::U8, _) => Node::U8,
        (DType::U16, _) => Node::U16,
        (DType::U32, _) => Node::U32,
        (DType::I8, _) => Node::I8,
        (DType::I16, _) => Node::I16,
        (DType::BF16, _) => Node::BF16,
        (DType::F16, _) => Node::F16,
        (DType::F32, _) => Node::F32,
        (DType::C64, _) => Node::C64,
        _ => Node::I32,
    }
}

fn dtype(n: Node) -> (DType, bool) {
    match n {
        Node::Bool => (DType::Bool, false),
        Node::WeakInt => (DType::I32, true),
        Node::U8 => (DType::U8, false),
        Node::U16 => (DType::U16, false),
        Node::U32 => (DType::U32, false),
        Node::I8 => (DType::I8, false),
        Node::I16 => (DType::I16, false),
        Node::I32 | Node::I64 => (DType::I32, false),
        Node::WeakFloat => (DType::F32, true),
        Node::BF16 => (DType::BF16, false),
        Node::F16 => (DType::F16, false),
        Node::F32 => (DType::F32, false),
        Node::WeakComplex => (DType::C64, true),
        Node::C64 => (DType::C64, false),
    }
}

impl DType {
    /// The dtype and weak bit of a binary operation's result from its
    /// operands' (`jnp.promote_types` and `jnp.result_type`): the least
    /// upper bound of the two in the lattice.
    pub fn join(self, weak: bool, other: DType, other_weak: bool) -> (DType, bool) {
        let (a, b) = (node(self, weak), node(other, other_weak));
        let (up_a, up_b) = (upset(a), upset(b));
        let common: Vec<Node> = up_a.into_iter().filter(|n| up_b.contains(n)).collect();
        // The least common bound is the one every other common bound is above.
        let least = common
            .iter()
            .copied()
            .find(|&n| common.iter().all(|&m| upset(n).contains(&m)));
        dtype(least.unwrap_or(Node::C64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_types_meet_as_in_jax() {
        let strong = |a: DType, b: DType| a.promote(b);
        assert_eq!(strong(DType::BF16, DType::F16), DType::F32);
        assert_eq!(strong(DType::I8, DType::U8), DType::I16);
        assert_eq!(strong(DType::U16, DType::I8), DType::I32);
        assert_eq!(strong(DType::U32, DType::I32), DType::I32);
        assert_eq!(strong(DType::I32, DType::BF16), DType::BF16);
        assert_eq!(DType::U8.join(false, DType::I32, true), (DType::U8, false));
        assert_eq!(
            DType::BF16.join(false, DType::F32, true),
            (DType::BF16, false)
        );
        assert_eq!(DType::I8.join(false, DType::F32, true), (DType::F32, true));
        assert_eq!(
            DType::F32.join(false, DType::C64, true),
            (DType::C64, false)
        );
    }
}
