//! The element-wise folds of the reducing collectives.
//!
//! Both the fabric collectives and their single-thread counterparts reduce
//! through [`fold`], so they agree bit for bit: element `i` of a reduction over
//! a group is `((x0[i] op x1[i]) op x2[i]) op ...`, members taken in rank order
//! starting from rank 0, each step rounded to float32 (or wrapping in int32).

use crate::array::{Buffer, DType};

/// The reduction a collective applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `psum`: addition, wrapping for integers.
    Sum,
    /// `pmax`: the larger value; NaN if either is NaN.
    Max,
    /// `pmin`: the smaller value; NaN if either is NaN.
    Min,
}

impl ReduceOp {
    /// The collective's name in JAX.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "psum",
            ReduceOp::Max => "pmax",
            ReduceOp::Min => "pmin",
        }
    }

    /// The dtype of the reduction of `dtype` values: JAX's `psum` counts
    /// booleans into an int32, `pmax` and `pmin` keep them boolean.
    pub fn result_dtype(self, dtype: DType) -> DType {
        match (self, dtype) {
            (ReduceOp::Sum, DType::Bool) => DType::I32,
            _ => dtype,
        }
    }
}

/// `acc[i] = acc[i] op next[i]` on the words of `dtype` values
/// (see [`crate::Array::to_words`]). Booleans are the words 0 and 1, so their
/// sum, max and min are the int32 ones.
///
/// Panics if the slices differ in length; callers pair equal ranges.
pub fn fold(op: ReduceOp, dtype: DType, acc: &mut [u32], next: &[u32]) {
    assert_eq!(
        acc.len(),
        next.len(),
        "fold over ranges of different lengths"
    );
    // One loop per operation, so each is compiled with its operation inlined.
    match (dtype, op) {
        (DType::F32, ReduceOp::Sum) => fold_with(acc, next, add_f32),
        (DType::F32, ReduceOp::Max) => fold_with(acc, next, max_f32),
        (DType::F32, ReduceOp::Min) => fold_with(acc, next, min_f32),
        (DType::I32 | DType::Bool, ReduceOp::Sum) => fold_with(acc, next, add_i32),
        (DType::I32 | DType::Bool, ReduceOp::Max) => fold_with(acc, next, max_i32),
        (DType::I32 | DType::Bool, ReduceOp::Min) => fold_with(acc, next, min_i32),
        (DType::U32, ReduceOp::Sum) => fold_with(acc, next, add_i32),
        (DType::U32, ReduceOp::Max) => fold_with(acc, next, u32::max),
        (DType::U32, ReduceOp::Min) => fold_with(acc, next, u32::min),
        (DType::C64, _) => {
            unreachable!("complex64 values never reach the fabric: the primitives refuse them")
        }
        (narrow, _) => unreachable!(
            "{} values never reach the fabric: the collectives refuse them",
            narrow.name()
        ),
    }
}

/// [`fold`] with `next` taken straight from elements `start..` of an
/// array's buffer (as words: [`crate::Array::to_words`]), with no copy of it.
pub(crate) fn fold_from(op: ReduceOp, dtype: DType, acc: &mut [u32], next: &Buffer, start: usize) {
    let end = start + acc.len();
    match next {
        Buffer::F32(d) => fold_mapped(op, dtype, acc, &d[start..end], f32::to_bits),
        Buffer::I32(d) => fold_mapped(op, dtype, acc, &d[start..end], |v| v as u32),
        Buffer::U32(d) => fold_mapped(op, dtype, acc, &d[start..end], |v| v),
        Buffer::Bool(d) => fold_mapped(op, dtype, acc, &d[start..end], |v| v as u32),
        Buffer::C64(_) => {
            unreachable!("complex64 values never reach the fabric: the primitives refuse them")
        }
    }
}

#[inline(always)]
fn fold_mapped<T: Copy>(
    op: ReduceOp,
    dtype: DType,
    acc: &mut [u32],
    next: &[T],
    word: impl Fn(T) -> u32 + Copy,
) {
    match (dtype, op) {
        (DType::F32, ReduceOp::Sum) => fold_zip(acc, next, word, add_f32),
        (DType::F32, ReduceOp::Max) => fold_zip(acc, next, word, max_f32),
        (DType::F32, ReduceOp::Min) => fold_zip(acc, next, word, min_f32),
        (DType::I32 | DType::Bool, ReduceOp::Sum) => fold_zip(acc, next, word, add_i32),
        (DType::I32 | DType::Bool, ReduceOp::Max) => fold_zip(acc, next, word, max_i32),
        (DType::I32 | DType::Bool, ReduceOp::Min) => fold_zip(acc, next, word, min_i32),
        (DType::U32, ReduceOp::Sum) => fold_zip(acc, next, word, add_i32),
        (DType::U32, ReduceOp::Max) => fold_zip(acc, next, word, u32::max),
        (DType::U32, ReduceOp::Min) => fold_zip(acc, next, word, u32::min),
        (DType::C64, _) => {
            unreachable!("complex64 values never reach the fabric: the primitives refuse them")
        }
        (narrow, _) => unreachable!(
            "{} values never reach the fabric: the collectives refuse them",
            narrow.name()
        ),
    }
}

#[inline(always)]
fn fold_zip<T: Copy>(
    acc: &mut [u32],
    next: &[T],
    word: impl Fn(T) -> u32,
    f: impl Fn(u32, u32) -> u32,
) {
    for (a, &b) in acc.iter_mut().zip(next) {
        *a = f(*a, word(b));
    }
}

#[inline(always)]
fn fold_with(acc: &mut [u32], next: &[u32], f: impl Fn(u32, u32) -> u32) {
    for (a, &b) in acc.iter_mut().zip(next) {
        *a = f(*a, b);
    }
}

#[inline(always)]
fn add_f32(a: u32, b: u32) -> u32 {
    (f32::from_bits(a) + f32::from_bits(b)).to_bits()
}

/// XLA's maximum: NaN wins, and of +0 and -0 the larger is +0 (the bitwise
/// AND of two equal values' bits keeps them, and clears the sign of ±0).
#[inline(always)]
fn max_f32(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x.is_nan() || x > y {
        a
    } else if y.is_nan() || y > x {
        b
    } else {
        a & b
    }
}

/// XLA's minimum: NaN wins, and of +0 and -0 the smaller is -0.
#[inline(always)]
fn min_f32(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x.is_nan() || x < y {
        a
    } else if y.is_nan() || y < x {
        b
    } else {
        a | b
    }
}

#[inline(always)]
fn add_i32(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

#[inline(always)]
fn max_i32(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

#[inline(always)]
fn min_i32(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

/// `pmean`'s division: the words of a `psum` of `dtype` (int32 sums
/// converted to float32 first, as `jnp.true_divide` does) divided by the group
/// size, as float32 words.
pub fn mean_words(sum: &[u32], dtype: DType, count: usize) -> Vec<u32> {
    let mut words = sum.to_vec();
    mean_in_place(&mut words, dtype, count);
    words
}

/// [`mean_words`] in place.
pub fn mean_in_place(words: &mut [u32], dtype: DType, count: usize) {
    let n = count as f32;
    match dtype {
        DType::F32 => {
            for w in words {
                *w = (f32::from_bits(*w) / n).to_bits();
            }
        }
        DType::I32 | DType::Bool => {
            for w in words {
                *w = ((*w as i32) as f32 / n).to_bits();
            }
        }
        DType::U32 => {
            for w in words {
                *w = (*w as f32 / n).to_bits();
            }
        }
        DType::C64 => {
            unreachable!("complex64 values never reach the fabric: the primitives refuse them")
        }
        narrow => unreachable!(
            "{} values never reach the fabric: the collectives refuse them",
            narrow.name()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn float_sums_fold_left_to_right() {
        // (1e8 + 1) + -1e8 rounds the 1 away; a tree or reversed order would not.
        let mut acc = f(&[1e8]);
        fold(ReduceOp::Sum, DType::F32, &mut acc, &f(&[1.0]));
        fold(ReduceOp::Sum, DType::F32, &mut acc, &f(&[-1e8]));
        assert_eq!(f32::from_bits(acc[0]), 0.0);
    }

    #[test]
    fn max_and_min_propagate_nan_and_order_signed_zeros() {
        let mut acc = f(&[1.0, -0.0, 0.0, 2.0]);
        fold(
            ReduceOp::Max,
            DType::F32,
            &mut acc,
            &f(&[f32::NAN, 0.0, -0.0, 3.0]),
        );
        assert!(f32::from_bits(acc[0]).is_nan());
        assert_eq!(acc[1..], f(&[0.0, 0.0, 3.0])[..]);
        let mut acc = f(&[1.0, -0.0, 0.0]);
        fold(
            ReduceOp::Min,
            DType::F32,
            &mut acc,
            &f(&[f32::NAN, 0.0, -0.0]),
        );
        assert!(f32::from_bits(acc[0]).is_nan());
        assert_eq!(acc[1..], f(&[-0.0, -0.0])[..]);
    }

    #[test]
    fn int_sums_wrap_and_compare_signed() {
        let mut acc = vec![i32::MAX as u32, (-5i32) as u32];
        fold(ReduceOp::Sum, DType::I32, &mut acc, &[1, 2]);
        assert_eq!(acc, vec![i32::MIN as u32, (-3i32) as u32]);
        let mut acc = vec![(-5i32) as u32];
        fold(ReduceOp::Max, DType::I32, &mut acc, &[3]);
        assert_eq!(acc, vec![3]);
    }

    #[test]
    fn means_divide_after_converting_ints() {
        let m = mean_words(&[56, (-3i32) as u32], DType::I32, 8);
        assert_eq!(m, f(&[7.0, -0.375]));
    }
}
