//! n-d arrays of f32, i32, u32, bool or complex64: the values every device
//! computes on. complex64 is modelled for the operations that list it (see
//! `Prim::models_complex`); every other operation refuses it.
//!
//! An [`Array`] is always contiguous and row-major; its buffer sits behind an
//! `Arc`, so cloning an array (which the evaluators do constantly when a value
//! feeds several equations) is a reference-count bump. Operations live in the
//! submodules, one family per file; each returns a new array.

use std::fmt;
use std::sync::Arc;

use crate::bail;
use crate::error::Result;
use crate::sharding::Placement;

pub mod broadcast;
pub mod complex;
mod complex_fns;
pub mod create;
pub mod dtype_strings;
pub mod eigh;
pub mod elementwise;
pub mod fft;
pub mod format;
pub mod householder;
pub mod index;
mod lattice;
mod libm_f32;
mod libm_tan_cbrt;
pub mod linalg;
pub mod lu;
pub mod matmul;
pub mod narrow;
pub mod reduce;
mod reduce_order;
pub mod shape_ops;
pub mod special;
pub mod special_fns;
mod strided;
pub mod svd;
pub mod xla_math;
pub mod xla_trig;

pub use broadcast::broadcast_shapes;
pub use complex::C64;
pub use elementwise::{BinaryOp, UnaryOp};
pub use format::{format_jax_repr, format_numpy};
pub use reduce::ReduceOp;
pub use shape_ops::fmt_shape;

/// Element type of an array. JAX's default floating type on CPU is float32 and
/// its default integer type int32 (x64 disabled), which is what shardlab mirrors.
///
/// The narrow types (bfloat16, float16, int8, int16, uint8, uint16) are held
/// in the buffer of a wider one ([`DType::storage`]) with the array's dtype
/// beside it; `narrow` rounds every value that enters such an array. The
/// order is by kind (bool, unsigned, signed, floating, complex), then width;
/// promotion is [`DType::join`], not this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum DType {
    /// Python `bool` / `jnp.bool_`.
    Bool,
    /// `jnp.uint8`.
    U8,
    /// `jnp.uint16`.
    U16,
    /// `jnp.uint32`: PRNG key data and counters.
    U32,
    /// `jnp.int8`.
    I8,
    /// `jnp.int16`.
    I16,
    /// `jnp.int32`.
    I32,
    /// `jnp.bfloat16`: float32's exponent with 8 significant bits.
    BF16,
    /// `jnp.float16`: IEEE half precision.
    F16,
    /// `jnp.float32`.
    F32,
    /// `jnp.complex64`: a float32 real and imaginary part.
    C64,
}

impl DType {
    /// The name JAX prints, e.g. `float32`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U32 => "uint32",
            DType::I32 => "int32",
            DType::F32 => "float32",
            DType::C64 => "complex64",
            DType::BF16 => "bfloat16",
            DType::F16 => "float16",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
        }
    }

    /// The short name used in jaxprs, e.g. `f32`.
    pub fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U32 => "u32",
            DType::I32 => "i32",
            DType::F32 => "f32",
            DType::C64 => "c64",
            DType::BF16 => "bf16",
            DType::F16 => "f16",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::U8 => "u8",
            DType::U16 => "u16",
        }
    }

    /// Bytes per element (`x.dtype.itemsize`).
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::BF16 | DType::F16 | DType::I16 | DType::U16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::C64 => 8,
        }
    }

    /// The type whose buffer holds this one's values: float32 for the
    /// narrow floats, int32 for the narrow integers (every uint8 and uint16
    /// value is an int32 one), the type itself otherwise.
    pub fn storage(self) -> DType {
        match self {
            DType::BF16 | DType::F16 => DType::F32,
            DType::I8 | DType::I16 | DType::U8 | DType::U16 => DType::I32,
            d => d,
        }
    }

    /// True for the types held in a wider buffer.
    pub fn is_narrow(self) -> bool {
        self.storage() != self
    }

    /// The result type of a binary operation between strongly typed
    /// operands (see [`DType::join`]).
    pub fn promote(self, other: DType) -> DType {
        self.join(false, other, false).0
    }

    /// [`DType::promote`] with the weak bits of both operands: a weak
    /// Python int gives way to uint32 (`u + 1` stays uint32).
    pub fn promote_weak(self, weak: bool, other: DType, other_weak: bool) -> DType {
        self.join(weak, other, other_weak).0
    }

    /// True for the integer dtypes.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::I32 | DType::U32 | DType::I8 | DType::I16 | DType::U8 | DType::U16
        )
    }

    /// True for the unsigned integer dtypes.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U32 | DType::U8 | DType::U16)
    }

    /// True for the real floating dtypes (float32, bfloat16, float16).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::BF16 | DType::F16)
    }

    /// True for the floating and complex dtypes: those JAX differentiates.
    pub fn is_inexact(self) -> bool {
        self.is_float() || self == DType::C64
    }
}

/// The elements of an array, by type.
#[derive(Clone, PartialEq)]
pub enum Buffer {
    /// float32 elements.
    F32(Arc<[f32]>),
    /// int32 elements.
    I32(Arc<[i32]>),
    /// uint32 elements.
    U32(Arc<[u32]>),
    /// bool elements.
    Bool(Arc<[bool]>),
    /// complex64 elements.
    C64(Arc<[C64]>),
}

impl Buffer {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::F32(d) => d.len(),
            Buffer::I32(d) => d.len(),
            Buffer::U32(d) => d.len(),
            Buffer::Bool(d) => d.len(),
            Buffer::C64(d) => d.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::F32(_) => DType::F32,
            Buffer::I32(_) => DType::I32,
            Buffer::U32(_) => DType::U32,
            Buffer::Bool(_) => DType::Bool,
            Buffer::C64(_) => DType::C64,
        }
    }
}

/// A contiguous row-major n-d array.
///
/// At top level an array is a global value that may also know where JAX
/// would keep it (its [`Placement`]: `x.sharding`); the data is always the
/// whole array. Arrays inside the evaluators are one device's local data
/// and carry no placement.
///
/// Like every JAX value, an array is weakly typed or not (`weak_type`): a
/// Python scalar turned into an array is weak, and a weak operand gives way
/// to a strongly typed one in promotion (`x * 2.0` keeps `x`'s dtype). The
/// bit rides beside the data; the operations of this module never read it.
#[derive(Clone, PartialEq)]
pub struct Array {
    shape: Vec<usize>,
    buffer: Buffer,
    placement: Option<Arc<Placement>>,
    /// For an array unreduced over some mesh axes (see
    /// [`crate::sharding::PartitionSpec::unreduced`]), what each device
    /// holds, by mesh position: partial values whose sum is the data. None
    /// when shardlab did not derive them.
    partials: Option<Arc<Vec<Array>>>,
    weak: bool,
    /// The narrow dtype this array's wider buffer holds values of (see
    /// [`DType::storage`]), or None when the buffer's type is the dtype.
    narrow: Option<DType>,
}

/// Number of elements of a shape (1 for a scalar). A count past `usize`
/// saturates, so an overflowing shape reads as too large, never as small.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |n, &d| n.saturating_mul(d))
}

/// Most elements one array may hold: 2^27, 512 MiB of float32. Every
/// primitive's result is checked against it before it is computed.
pub const MAX_ELEMENTS: usize = 1 << 27;

/// Fails with NumPy's `MemoryError` when an array of `shape` and `dtype`
/// would hold more than [`MAX_ELEMENTS`] elements (its size in exact
/// arithmetic, however large the dimensions).
pub fn check_alloc(shape: &[usize], dtype: DType) -> Result<()> {
    // XLA multiplies the dimensions in order in 64 bits and refuses a shape
    // whose running product overflows, even when a later dimension is 0;
    // shardlab's own size arithmetic relies on the same bound. (A shape
    // without a 0 that overflows is far past the size limit below.)
    let fits = shape.iter().try_fold(1i64, |p, &d| {
        i64::try_from(d).ok().and_then(|d| p.checked_mul(d))
    });
    if fits.is_none() && shape.contains(&0) {
        crate::bail!(
            ValueError,
            "overflow in static extent product: dimensions={:?}",
            shape
        );
    }
    let n = shape
        .iter()
        .fold(1u128, |n, &d| n.saturating_mul(d as u128));
    if n <= MAX_ELEMENTS as u128 {
        return Ok(());
    }
    let width = dtype.itemsize() as u128;
    crate::bail!(
        MemoryError,
        "Unable to allocate {} for an array with shape {} and data type {} \
         (shardlab holds at most {MAX_ELEMENTS} elements per array)",
        size_text(n.saturating_mul(width)),
        shape_tuple(shape),
        dtype.name()
    )
}

/// A shape as Python prints the tuple: `(3,)`, `(2, 4)`.
pub fn shape_tuple(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", dims.join(", "))
        }
    }
}

/// A byte count as NumPy's allocation errors print it: three significant
/// digits of the largest binary unit it reaches (`7.45 GiB`).
fn size_text(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut unit = 0;
    let mut n = bytes as f64;
    while n >= 1024.0 && unit + 1 < UNITS.len() {
        n /= 1024.0;
        unit += 1;
    }
    let digits = if unit == 0 || n >= 100.0 {
        0
    } else if n >= 10.0 {
        1
    } else {
        2
    };
    format!("{n:.digits$} {}", UNITS[unit])
}

/// Row-major strides, in elements, of a contiguous array of `shape`.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

impl Array {
    /// Builds an f32 array; fails if `data` does not have `numel(shape)` elements.
    pub fn from_f32(shape: &[usize], data: Vec<f32>) -> Result<Array> {
        Self::check_len(shape, data.len())?;
        Ok(Array {
            shape: shape.to_vec(),
            buffer: Buffer::F32(data.into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        })
    }

    /// Builds an i32 array; fails if `data` does not have `numel(shape)` elements.
    pub fn from_i32(shape: &[usize], data: Vec<i32>) -> Result<Array> {
        Self::check_len(shape, data.len())?;
        Ok(Array {
            shape: shape.to_vec(),
            buffer: Buffer::I32(data.into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        })
    }

    /// Builds a u32 array; fails if `data` does not have `numel(shape)` elements.
    pub fn from_u32(shape: &[usize], data: Vec<u32>) -> Result<Array> {
        Self::check_len(shape, data.len())?;
        Ok(Array {
            shape: shape.to_vec(),
            buffer: Buffer::U32(data.into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        })
    }

    /// Builds a bool array; fails if `data` does not have `numel(shape)` elements.
    pub fn from_bool(shape: &[usize], data: Vec<bool>) -> Result<Array> {
        Self::check_len(shape, data.len())?;
        Ok(Array {
            shape: shape.to_vec(),
            buffer: Buffer::Bool(data.into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        })
    }

    /// Builds an array from a buffer; fails if the lengths disagree.
    pub fn from_buffer(shape: &[usize], buffer: Buffer) -> Result<Array> {
        Self::check_len(shape, buffer.len())?;
        Ok(Array {
            shape: shape.to_vec(),
            buffer,
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        })
    }

    /// Where JAX would keep this array; `None` is the default device.
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_deref()
    }

    /// The same data with another placement.
    pub fn with_placement(mut self, placement: Option<Arc<Placement>>) -> Array {
        self.placement = placement;
        self.partials = None;
        self
    }

    /// The same array with what each device holds under an unreduced
    /// placement (set the placement first: a new placement drops them).
    pub fn with_partials(mut self, partials: Option<Vec<Array>>) -> Array {
        self.partials = partials.map(Arc::new);
        self
    }

    /// What each device holds under an unreduced placement, by mesh
    /// position, when known.
    pub fn partials(&self) -> Option<&[Array]> {
        self.partials.as_deref().map(Vec::as_slice)
    }

    /// True for a weakly typed array (`weak_type=True` in its repr).
    pub fn is_weak(&self) -> bool {
        self.weak
    }

    /// The same data, weakly typed or not.
    pub fn with_weak(mut self, weak: bool) -> Array {
        self.weak = weak;
        self
    }

    /// The placement, shared (to give it to another array).
    pub fn placement_rc(&self) -> Option<Arc<Placement>> {
        self.placement.clone()
    }

    fn check_len(shape: &[usize], len: usize) -> Result<()> {
        if numel(shape) != len {
            bail!(
                ValueError,
                "cannot build an array of shape {:?} ({} elements) from {} values",
                shape,
                numel(shape),
                len
            );
        }
        Ok(())
    }

    /// A 0-d f32 array.
    pub fn scalar_f32(v: f32) -> Array {
        Array {
            shape: vec![],
            buffer: Buffer::F32(vec![v].into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        }
    }

    /// A 0-d i32 array.
    pub fn scalar_i32(v: i32) -> Array {
        Array {
            shape: vec![],
            buffer: Buffer::I32(vec![v].into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        }
    }

    /// A 0-d complex64 array.
    pub fn scalar_c64(v: C64) -> Array {
        Array {
            shape: vec![],
            buffer: Buffer::C64(vec![v].into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        }
    }

    /// A 0-d bool array.
    pub fn scalar_bool(v: bool) -> Array {
        Array {
            shape: vec![],
            buffer: Buffer::Bool(vec![v].into()),
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        }
    }

    /// An array of `shape` and `dtype` filled with `value` (converted to dtype).
    pub fn full(shape: &[usize], value: f64, dtype: DType) -> Array {
        let n = numel(shape);
        let buffer = match dtype {
            DType::F32 => Buffer::F32(vec![value as f32; n].into()),
            DType::I32 => Buffer::I32(vec![value as i32; n].into()),
            // An integral value wraps as a Python int converted to
            // uint32 by JAX's weak promotion (`x + -1`); a fraction
            // truncates as a float conversion does.
            DType::U32 if value.fract() == 0.0 => Buffer::U32(vec![value as i64 as u32; n].into()),
            DType::U32 => Buffer::U32(vec![value as u32; n].into()),
            DType::Bool => Buffer::Bool(vec![value != 0.0; n].into()),
            DType::C64 => Buffer::C64(vec![C64::real(value as f32); n].into()),
            narrow => return narrow::full(shape, value, narrow),
        };
        Array {
            shape: shape.to_vec(),
            buffer,
            placement: None,
            partials: None,
            weak: false,
            narrow: None,
        }
    }

    /// Zeros of `shape` and `dtype`.
    pub fn zeros(shape: &[usize], dtype: DType) -> Array {
        Self::full(shape, 0.0, dtype)
    }

    /// The dimensions.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        numel(&self.shape)
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.narrow.unwrap_or(self.buffer.dtype())
    }

    /// Whether `other` is this very array (Python's `is`): the same
    /// elements in memory, shape and placement. A copy of an [`Array`] is
    /// the same array; an operation's result never shares its operand's
    /// elements under the same shape.
    /// The same array in a buffer of its own: equal, but not `is` this one
    /// (what `copy.copy` and `copy.deepcopy` of a JAX array give).
    pub fn with_own_buffer(&self) -> Array {
        let mut a = self.clone();
        a.buffer = match &self.buffer {
            Buffer::F32(b) => Buffer::F32(Arc::from(&b[..])),
            Buffer::I32(b) => Buffer::I32(Arc::from(&b[..])),
            Buffer::U32(b) => Buffer::U32(Arc::from(&b[..])),
            Buffer::Bool(b) => Buffer::Bool(Arc::from(&b[..])),
            Buffer::C64(b) => Buffer::C64(Arc::from(&b[..])),
        };
        a
    }

    pub fn is_same(&self, other: &Array) -> bool {
        let same_data = self.shares_buffer(other);
        let same_place = match (&self.placement, &other.placement) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        same_data && same_place && self.shape == other.shape && self.weak == other.weak
    }

    /// Whether both arrays hold the very same elements in memory.
    pub fn shares_buffer(&self, other: &Array) -> bool {
        match (&self.buffer, &other.buffer) {
            (Buffer::F32(a), Buffer::F32(b)) => Arc::ptr_eq(a, b),
            (Buffer::I32(a), Buffer::I32(b)) => Arc::ptr_eq(a, b),
            (Buffer::U32(a), Buffer::U32(b)) => Arc::ptr_eq(a, b),
            (Buffer::Bool(a), Buffer::Bool(b)) => Arc::ptr_eq(a, b),
            (Buffer::C64(a), Buffer::C64(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The elements.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// The f32 elements, or a TypeError naming the actual dtype.
    pub fn f32_data(&self) -> Result<&[f32]> {
        match &self.buffer {
            Buffer::F32(d) => Ok(d),
            _ => bail!(
                TypeError,
                "expected a float32 array, got {}",
                self.dtype().name()
            ),
        }
    }

    /// The i32 elements, or a TypeError naming the actual dtype.
    pub fn i32_data(&self) -> Result<&[i32]> {
        match &self.buffer {
            Buffer::I32(d) => Ok(d),
            _ => bail!(
                TypeError,
                "expected an int32 array, got {}",
                self.dtype().name()
            ),
        }
    }

    /// The u32 elements, or a TypeError naming the actual dtype.
    pub fn u32_data(&self) -> Result<&[u32]> {
        match &self.buffer {
            Buffer::U32(d) => Ok(d),
            _ => bail!(
                TypeError,
                "expected a uint32 array, got {}",
                self.dtype().name()
            ),
        }
    }

    /// The bool elements, or a TypeError naming the actual dtype.
    pub fn bool_data(&self) -> Result<&[bool]> {
        match &self.buffer {
            Buffer::Bool(d) => Ok(d),
            _ => bail!(
                TypeError,
                "expected a bool array, got {}",
                self.dtype().name()
            ),
        }
    }

    /// Every element as f64 (exact for the real dtypes), row-major. A
    /// complex64 element gives its real part, as NumPy's cast to a real type
    /// does; code that must keep the imaginary part reads the buffer.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match &self.buffer {
            Buffer::F32(d) => d.iter().map(|&v| v as f64).collect(),
            Buffer::I32(d) => d.iter().map(|&v| v as f64).collect(),
            Buffer::U32(d) => d.iter().map(|&v| v as f64).collect(),
            Buffer::Bool(d) => d.iter().map(|&v| v as u8 as f64).collect(),
            Buffer::C64(d) => d.iter().map(|v| v.re as f64).collect(),
        }
    }

    /// Element `i` (row-major flat index) as f64 (a complex's real part).
    pub fn get_f64(&self, i: usize) -> f64 {
        match &self.buffer {
            Buffer::F32(d) => d[i] as f64,
            Buffer::I32(d) => d[i] as f64,
            Buffer::U32(d) => d[i] as f64,
            Buffer::Bool(d) => d[i] as u8 as f64,
            Buffer::C64(d) => d[i].re as f64,
        }
    }

    /// The complex64 elements, or a TypeError naming the actual dtype.
    pub fn c64_data(&self) -> Result<&[C64]> {
        match &self.buffer {
            Buffer::C64(d) => Ok(d),
            _ => bail!(
                TypeError,
                "expected a complex64 array, got {}",
                self.dtype().name()
            ),
        }
    }

    /// The same elements under a new shape with the same element count.
    pub fn with_shape(&self, shape: &[usize]) -> Result<Array> {
        if numel(shape) != self.size() {
            bail!(
                TypeError,
                "cannot reshape array of shape {:?} (size {}) into shape {:?} (size {})",
                self.shape,
                self.size(),
                shape,
                numel(shape)
            );
        }
        Ok(Array {
            shape: shape.to_vec(),
            buffer: self.buffer.clone(),
            placement: None,
            partials: None,
            weak: false,
            narrow: self.narrow,
        })
    }

    /// Each element's bits as a u32 word (f32 bits, i32 bits, bool as 0/1):
    /// the form in which devices exchange arrays through the fabric. A
    /// complex64 element is two words, real then imaginary part.
    pub fn to_words(&self) -> Vec<u32> {
        match &self.buffer {
            Buffer::F32(d) => d.iter().map(|v| v.to_bits()).collect(),
            Buffer::I32(d) => d.iter().map(|&v| v as u32).collect(),
            Buffer::U32(d) => d.to_vec(),
            Buffer::Bool(d) => d.iter().map(|&v| v as u32).collect(),
            Buffer::C64(d) => d
                .iter()
                .flat_map(|v| [v.re.to_bits(), v.im.to_bits()])
                .collect(),
        }
    }

    /// The inverse of [`Array::to_words`].
    pub fn from_words(shape: &[usize], dtype: DType, words: &[u32]) -> Result<Array> {
        if dtype.is_narrow() {
            let wide = Array::from_words(shape, dtype.storage(), words)?;
            return Ok(wide.fit(dtype));
        }
        let buffer = match dtype {
            DType::F32 => Buffer::F32(words.iter().map(|&w| f32::from_bits(w)).collect()),
            DType::I32 => Buffer::I32(words.iter().map(|&w| w as i32).collect()),
            DType::U32 => Buffer::U32(words.into()),
            DType::Bool => Buffer::Bool(words.iter().map(|&w| w != 0).collect()),
            DType::C64 => Buffer::C64(
                words
                    .chunks(2)
                    .map(|w| {
                        C64::new(
                            f32::from_bits(w[0]),
                            f32::from_bits(*w.get(1).unwrap_or(&0)),
                        )
                    })
                    .collect(),
            ),
            narrow => bail!(RuntimeError, "{} is held in a wider buffer", narrow.name()),
        };
        Array::from_buffer(shape, buffer)
    }

    /// True when both arrays have the same shape, dtype and bits (NaNs with
    /// equal bits compare equal, unlike `==`).
    pub fn bitwise_eq(&self, other: &Array) -> bool {
        self.shape == other.shape
            && self.dtype() == other.dtype()
            && self.to_words() == other.to_words()
    }
}

/// Applies `$e` to the typed elements `$d` of a buffer, rebuilding a buffer of
/// the same dtype from what `$e` returns (anything that collects into `Arc<[T]>`).
macro_rules! map_buffer {
    ($buf:expr, $d:ident => $e:expr) => {
        match $buf {
            $crate::array::Buffer::F32($d) => $crate::array::Buffer::F32($e),
            $crate::array::Buffer::I32($d) => $crate::array::Buffer::I32($e),
            $crate::array::Buffer::U32($d) => $crate::array::Buffer::U32($e),
            $crate::array::Buffer::Bool($d) => $crate::array::Buffer::Bool($e),
            $crate::array::Buffer::C64($d) => $crate::array::Buffer::C64($e),
        }
    };
}

impl Array {
    /// An array of `shape` whose element `k` is `self`'s flat element `idx[k]`.
    pub(crate) fn gather_flat(&self, shape: &[usize], idx: &[usize]) -> Array {
        debug_assert_eq!(numel(shape), idx.len());
        let buffer = map_buffer!(&self.buffer, d => idx.iter().map(|&i| d[i]).collect());
        Array {
            shape: shape.to_vec(),
            buffer,
            placement: None,
            partials: None,
            weak: false,
            narrow: self.narrow,
        }
    }
}

impl Array {
    /// The strided view (`shape`, `strides`, `offset`) of `self`, copied into
    /// a new row-major array; strides may be zero (broadcasting) or negative
    /// (reversal). Every data-movement operation reduces to this.
    pub(crate) fn gather_view(&self, shape: &[usize], strides: &[isize], offset: isize) -> Array {
        let buffer = map_buffer!(&self.buffer, d => strided::gather(d, shape, strides, offset));
        Array {
            shape: shape.to_vec(),
            buffer,
            placement: None,
            partials: None,
            weak: false,
            narrow: self.narrow,
        }
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Array({}{:?}, {:?})",
            self.dtype().short_name(),
            self.shape,
            self.to_f64_vec()
        )
    }
}
