//! Elementwise operations: unary math, binary arithmetic and comparisons with
//! NumPy broadcasting and promotion, `where`, and dtype conversion.

use super::{Array, Buffer, DType};

impl Array {
    /// `x.astype(dtype)`: float to int truncates toward zero (saturating, NaN
    /// to 0); anything to bool is `x != 0`; bool to number is 0/1.
    pub fn astype(&self, dtype: DType) -> Array {
        if self.dtype() == dtype {
            return self.clone();
        }
        let buffer = match (self.buffer(), dtype) {
            (Buffer::F32(d), DType::I32) => Buffer::I32(d.iter().map(|&v| v as i32).collect()),
            (Buffer::F32(d), DType::Bool) => Buffer::Bool(d.iter().map(|&v| v != 0.0).collect()),
            (Buffer::I32(d), DType::F32) => Buffer::F32(d.iter().map(|&v| v as f32).collect()),
            (Buffer::I32(d), DType::Bool) => Buffer::Bool(d.iter().map(|&v| v != 0).collect()),
            (Buffer::Bool(d), DType::F32) => {
                Buffer::F32(d.iter().map(|&v| v as u8 as f32).collect())
            }
            (Buffer::Bool(d), DType::I32) => Buffer::I32(d.iter().map(|&v| v as i32).collect()),
            _ => unreachable!("same-dtype conversion returned above"),
        };
        Array::from_buffer(self.shape(), buffer).expect("conversion keeps the element count")
    }
}
