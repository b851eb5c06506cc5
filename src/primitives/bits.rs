//! Primitives on the bits of words, which the PRNG is built from:
//!
//! - `threefry2x32`: the Threefry-2x32 block cipher, elementwise over four
//!   uint32 operands (two key words, two counter words) with two uint32
//!   results. Key words are usually scalars and counters shaped, so operands
//!   broadcast as in NumPy (JAX binds it that way in `random_bits`).
//! - `bitcast_convert_type`: the same 32 bits read as another 32-bit dtype,
//!   which turns random mantissa bits into floats.
//!
//! Neither has a derivative: their operands and results are integers, and a
//! float reinterpreted from bits does not vary smoothly with them.

use crate::array::broadcast::broadcast_shapes;
use crate::array::{Array, Buffer, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::{join_vma, Prim};
use crate::trace::Value;

/// Shape rule: `threefry2x32` takes four uint32 operands broadcast together
/// and gives two of that shape; `bitcast_convert_type` keeps the shape.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let vma = join_vma(ins);
    match prim {
        Prim::Threefry2x32 => {
            if ins.len() != 4 || ins.iter().any(|a| a.dtype != DType::U32) {
                bail!(
                    TypeError,
                    "Arguments to threefry2x32 must have uint32 type, got {}",
                    ins.iter()
                        .map(|a| a.dtype.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            let mut shape = ins[0].shape.clone();
            for a in &ins[1..] {
                shape = broadcast_shapes(&shape, &a.shape)?;
            }
            let out = Aval {
                shape,
                dtype: DType::U32,
                vma,
                weak: false,
            };
            Ok(vec![out.clone(), out])
        }
        Prim::BitcastConvert(to) => {
            let from = ins[0].dtype;
            let words = |d: DType| matches!(d, DType::F32 | DType::I32 | DType::U32);
            if !words(from) || !words(*to) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: bitcast_convert_type from {} to {}",
                    from.name(),
                    to.name()
                );
            }
            Ok(vec![Aval {
                shape: ins[0].shape.clone(),
                dtype: *to,
                vma,
                weak: false,
            }])
        }
        _ => bail!(RuntimeError, "not a bit primitive: {}", prim.name()),
    }
}

/// Implementation on arrays.
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    match prim {
        Prim::Threefry2x32 => threefry(ins),
        Prim::BitcastConvert(to) => {
            let words = ins[0].to_words();
            let buf = match to {
                DType::U32 => Buffer::U32(words.into()),
                DType::I32 => Buffer::I32(words.into_iter().map(|w| w as i32).collect()),
                DType::F32 => Buffer::F32(words.into_iter().map(f32::from_bits).collect()),
                _ => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: bitcast_convert_type to {}",
                    to.name()
                ),
            };
            Ok(vec![Array::from_buffer(ins[0].shape(), buf)?])
        }
        _ => bail!(RuntimeError, "not a bit primitive: {}", prim.name()),
    }
}

/// The cipher on every element of the broadcast operands.
fn threefry(ins: &[Array]) -> Result<Vec<Array>> {
    let mut shape = ins[0].shape().to_vec();
    for a in &ins[1..] {
        shape = broadcast_shapes(&shape, a.shape())?;
    }
    let words: Vec<Vec<u32>> = ins
        .iter()
        .map(|a| Ok(a.broadcast_to(&shape)?.to_words()))
        .collect::<Result<_>>()?;
    let [k1, k2, c1, c2] = [&words[0], &words[1], &words[2], &words[3]];
    let (mut hi, mut lo) = (Vec::with_capacity(c1.len()), Vec::with_capacity(c1.len()));
    for (((&a, &b), &x), &y) in k1.iter().zip(k2).zip(c1).zip(c2) {
        let [h, l] = crate::random::threefry2x32([a, b], [x, y]);
        hi.push(h);
        lo.push(l);
    }
    Ok(vec![
        Array::from_u32(&shape, hi)?,
        Array::from_u32(&shape, lo)?,
    ])
}

/// No derivative flows through bits: integer operands have none, and a
/// float made from bits is treated as a constant (JAX's rule for
/// `bitcast_convert_type` from integers).
pub fn no_derivative(n: usize) -> Result<Vec<Option<Value>>> {
    Ok(vec![None; n])
}
