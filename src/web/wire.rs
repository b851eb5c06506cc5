//! What crosses between the coordinator and the device workers: arrays as raw
//! 32-bit words, programs as JSON.
//!
//! Arrays never go through JSON numbers: a float32 NaN or infinity has no JSON
//! form, and a decimal round trip would have to be proven exact for every
//! value. Each element is one `u32` word instead (the f32 or i32 bit pattern,
//! or 0/1 for bools; two words, real then imaginary, for complex64), so what
//! a device receives is bit for bit what was sent.
//! Literals inside a jaxpr use the same words, as a JSON list.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::array::{numel, Array, Buffer, DType};
use crate::err;
use crate::error::{ErrorKind, Result};

/// The elements of `a`, one word each.
pub fn array_words(a: &Array) -> Vec<u32> {
    match a.buffer() {
        Buffer::F32(d) => d.iter().map(|x| x.to_bits()).collect(),
        Buffer::I32(d) => d.iter().map(|&x| x as u32).collect(),
        Buffer::U32(d) => d.to_vec(),
        Buffer::Bool(d) => d.iter().map(|&b| u32::from(b)).collect(),
        Buffer::C64(d) => d
            .iter()
            .flat_map(|c| [c.re.to_bits(), c.im.to_bits()])
            .collect(),
    }
}

/// Appends the elements of `a` to `out`, one word each.
pub fn push_words(a: &Array, out: &mut Vec<u32>) {
    match a.buffer() {
        Buffer::F32(d) => out.extend(d.iter().map(|x| x.to_bits())),
        Buffer::I32(d) => out.extend(d.iter().map(|&x| x as u32)),
        Buffer::U32(d) => out.extend(d.iter().copied()),
        Buffer::Bool(d) => out.extend(d.iter().map(|&b| u32::from(b))),
        Buffer::C64(d) => out.extend(d.iter().flat_map(|c| [c.re.to_bits(), c.im.to_bits()])),
    }
}

/// Rebuilds an array of `shape` and `dtype` from its words. Fails when the
/// word count does not match the shape.
pub fn array_from_words(shape: &[usize], dtype: DType, words: &[u32]) -> Result<Array> {
    let per = if dtype == DType::C64 { 2 } else { 1 };
    if words.len() != numel(shape) * per {
        return Err(err!(
            RuntimeError,
            "an array of shape {shape:?} needs {} words, got {}",
            numel(shape) * per,
            words.len()
        ));
    }
    match dtype {
        DType::F32 => Array::from_f32(shape, words.iter().map(|&w| f32::from_bits(w)).collect()),
        DType::I32 => Array::from_i32(shape, words.iter().map(|&w| w as i32).collect()),
        DType::U32 => Array::from_u32(shape, words.to_vec()),
        DType::Bool => Array::from_bool(shape, words.iter().map(|&w| w != 0).collect()),
        DType::C64 => Array::from_buffer(
            shape,
            Buffer::C64(
                words
                    .chunks(2)
                    .map(|w| crate::array::complex::C64 {
                        re: f32::from_bits(w[0]),
                        im: f32::from_bits(w[1]),
                    })
                    .collect(),
            ),
        ),
        // A narrow array travels as the wide buffer it is kept in.
        d if d.is_float() => Ok(Array::from_f32(
            shape,
            words.iter().map(|&w| f32::from_bits(w)).collect(),
        )?
        .astype(d)),
        d => Ok(Array::from_i32(shape, words.iter().map(|&w| w as i32).collect())?.astype(d)),
    }
}

/// An array's serialised form: shape, type and words.
#[derive(Serialize, Deserialize)]
struct WireArray {
    shape: Vec<usize>,
    dtype: DType,
    words: Vec<u32>,
}

impl Serialize for Array {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        WireArray {
            shape: self.shape().to_vec(),
            dtype: self.dtype(),
            words: array_words(self),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Array {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Array, D::Error> {
        let w = WireArray::deserialize(d)?;
        array_from_words(&w.shape, w.dtype, &w.words).map_err(|e| D::Error::custom(e.message))
    }
}

/// Every error kind, for turning a kind's code back into the kind.
const KINDS: [ErrorKind; 29] = [
    ErrorKind::ValueError,
    ErrorKind::TypeError,
    ErrorKind::NameError,
    ErrorKind::IndexError,
    ErrorKind::KeyError,
    ErrorKind::AttributeError,
    ErrorKind::AssertionError,
    ErrorKind::ZeroDivisionError,
    ErrorKind::NotImplementedError,
    ErrorKind::ConcretizationTypeError,
    ErrorKind::RuntimeError,
    ErrorKind::Cancelled,
    ErrorKind::SyntaxError,
    ErrorKind::TracerBoolConversionError,
    ErrorKind::TracerArrayConversionError,
    ErrorKind::TracerIntegerConversionError,
    ErrorKind::NonConcreteBooleanIndexError,
    ErrorKind::JaxRuntimeError,
    // A device past its memory limit ends the run with MemoryError.
    ErrorKind::MemoryError,
    ErrorKind::TimeoutError,
    ErrorKind::RecursionError,
    ErrorKind::OverflowError,
    ErrorKind::ShardingTypeError,
    ErrorKind::TraceContextError,
    ErrorKind::ModifyScopeVariableError,
    ErrorKind::ScopeCollectionNotFound,
    ErrorKind::ScopeVariableNotFoundError,
    ErrorKind::InvalidRngError,
    ErrorKind::Exception,
];

/// A small number standing for `kind` in shared memory.
pub fn kind_code(kind: ErrorKind) -> i32 {
    KINDS.iter().position(|&k| k == kind).unwrap_or(10) as i32
}

/// The kind a [`kind_code`] stands for; RuntimeError for unknown codes.
pub fn kind_from_code(code: i32) -> ErrorKind {
    usize::try_from(code)
        .ok()
        .and_then(|i| KINDS.get(i).copied())
        .unwrap_or(ErrorKind::RuntimeError)
}
