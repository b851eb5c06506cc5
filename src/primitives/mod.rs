//! The primitive table: every operation a jaxpr can contain.
//!
//! Each family lives in one file holding, side by side, its shape rule
//! (`abstract_eval`), its implementation on arrays (`apply`), its forward-mode
//! rule (`jvp`) and its reverse-mode rule (`vjp`, the transpose for linear
//! primitives). There are no batching rules: `vmap` runs its body once per
//! batch element in lockstep, the same way one thread simulates many devices
//! (see `exec`), so every primitive is batched for free.
//!
//! The jvp and vjp rules are written with the user-level operations of `ops`,
//! on [`Value`]s: applied under a trace they emit equations, applied to
//! concrete arrays they compute. That is what makes `grad` of `grad`, and
//! `grad` outside a `shard_map` as well as inside it, one mechanism.

pub mod bits;
pub mod callback;
pub mod collectives;
pub mod constraint;
pub mod control;
pub mod conv;
mod conv_gemm;
pub mod cumulative;
pub mod custom;
pub mod debug;
pub mod decomp;
pub mod device_put;
pub mod dot;
pub mod elementwise;
pub mod fft;
pub mod jit;
pub mod linalg;
pub mod lu;
pub mod maps;
pub mod narrow;
pub mod placement;
pub mod placement_scan;
pub mod placement_slicing;
pub mod placement_vmap;
pub mod reduce;
pub mod remat;
pub mod sort;
pub mod structural;
pub mod weak;
pub mod window;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use callback::HostCallbackParams;
pub use collectives::CollectiveKind;
pub use constraint::ConstraintParams;
pub use control::{CondParams, ScanParams, WhileParams};
pub use conv::ConvParams;
pub use cumulative::CumOp;
pub use custom::{CustomJvpParams, CustomVjpParams};
pub use debug::DebugPrintParams;
pub use device_put::{DevicePutParams, PutTarget};
pub use jit::JitParams;
pub use linalg::LinalgOp;
pub use maps::{MapKind, MapParams, ShardMapParams};
pub use remat::{Policy, RematParams};
pub use window::{WindowOp, WindowParams};

use crate::array::{Array, BinaryOp, DType, ReduceOp, UnaryOp};
use crate::error::Result;
use crate::ir::Aval;
use crate::trace::Value;

/// The named axes bound where an equation is traced.
#[derive(Debug, Clone, Default)]
pub struct AxisEnv {
    /// Every bound axis name with its size.
    pub sizes: BTreeMap<String, usize>,
    /// The bound axes whose VMA is tracked (shard_map with check_vma=True).
    pub tracked: crate::ir::AxisSet,
    /// The bound axes that a vmap binds.
    pub vmapped: crate::ir::AxisSet,
}

/// A primitive with its parameters.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum Prim {
    /// An elementwise function of one operand.
    Unary(UnaryOp),
    /// An elementwise function of two operands, NumPy-broadcast.
    Binary(BinaryOp),
    /// `x ** n` for a fixed integer `n`.
    IntegerPow(i32),
    /// `where(cond, x, y)`, broadcast over all three.
    Select,
    /// `lax.clamp(min, x, max)`: `x` limited to `[min, max]` (the bounds
    /// scalars or shaped as `x`).
    Clamp,
    /// Change of element type, to a weakly typed result or not
    /// (`convert_element_type`'s `new_dtype` and `weak_type`).
    Convert(DType, bool),
    /// Reduction over `axes` (no keepdims: reshape afterwards).
    Reduce {
        /// Which reduction.
        op: ReduceOp,
        /// Axes removed.
        axes: Vec<usize>,
    },
    /// A cumulative reduction along `axis` (`lax.cumsum`, ...).
    Cumulative {
        /// Which reduction.
        op: CumOp,
        /// The axis scanned.
        axis: usize,
        /// True to run from the last element to the first.
        reverse: bool,
    },
    /// Index of the maximum (or minimum, with `min`) along `axis`.
    ArgReduce {
        /// True for argmin.
        min: bool,
        /// The axis removed.
        axis: usize,
    },
    /// Same elements, new shape.
    Reshape(Vec<usize>),
    /// Permutation of axes.
    Transpose(Vec<usize>),
    /// lax.broadcast_in_dim: operand dimension i becomes output dimension `dims[i]`.
    BroadcastInDim {
        /// Output shape.
        shape: Vec<usize>,
        /// Where each operand dimension goes.
        dims: Vec<usize>,
    },
    /// Concatenation of all operands along `axis`.
    Concatenate(usize),
    /// Static strided slice, as lax.slice.
    Slice {
        /// Start of each dimension.
        starts: Vec<usize>,
        /// End (exclusive) of each dimension.
        limits: Vec<usize>,
        /// Step of each dimension.
        strides: Vec<usize>,
    },
    /// Slice of `sizes` at start indices given as scalar operands (clamped).
    DynamicSlice(Vec<usize>),
    /// Writes operand 1 into operand 0 at start indices given as scalar operands.
    DynamicUpdateSlice,
    /// Zero-or-value padding, low and high per dimension.
    Pad {
        /// Elements added before each dimension.
        lo: Vec<usize>,
        /// Elements added after each dimension.
        hi: Vec<usize>,
    },
    /// Reverses the given axes.
    Rev(Vec<usize>),
    /// The identity, with a zero derivative (`lax.stop_gradient`).
    StopGradient,
    /// Integer-array indexing of operand 0 along `axis` by operand 1.
    Take(usize),
    /// Transpose of `Take`: adds operand 1 (updates) into zeros of `shape` at operand 0's indices.
    ScatterAdd {
        /// The axis indexed.
        axis: usize,
        /// The result's shape.
        shape: Vec<usize>,
    },
    /// lax.dot_general.
    DotGeneral {
        /// Contracted dimensions of lhs and rhs.
        contracting: (Vec<usize>, Vec<usize>),
        /// Batch dimensions of lhs and rhs.
        batch: (Vec<usize>, Vec<usize>),
        /// Where the result lives when the caller said so (`out_sharding=`),
        /// which settles a contraction over split dimensions. JAX does not
        /// print it: the result's type shows it.
        out_sharding: Option<Arc<crate::sharding::NamedSharding>>,
    },
    /// lax.conv_general_dilated.
    Conv(Arc<ConvParams>),
    /// lax.reduce_window with a sum or a maximum.
    ReduceWindow(Arc<WindowParams>),
    /// `cholesky` or `triangular_solve` (see [`linalg`]).
    Linalg(LinalgOp),
    /// `lax.fft` over the trailing `lengths.len()` axes.
    Fft {
        /// Which transform.
        typ: crate::array::fft::FftType,
        /// The transform's length along each of those axes.
        lengths: Vec<usize>,
    },
    /// The Threefry-2x32 cipher on (key1, key2, count1, count2), two results.
    Threefry2x32,
    /// The bits of each element read as another 32-bit dtype.
    BitcastConvert(DType),
    /// lax.sort of the operands by the first, stably, along `dimension`.
    Sort {
        /// The dimension sorted.
        dimension: usize,
    },
    /// A collective over named axes (psum, all_gather, ...).
    Collective(CollectiveKind),
    /// shard_map: a body run on every device of a mesh.
    ShardMap(Arc<ShardMapParams>),
    /// pmap or vmap: a body mapped over one axis.
    Map(Arc<MapParams>),
    /// A jitted function's program, called.
    Jit(Arc<JitParams>),
    /// A `jax.checkpoint` function's program, called (JAX's `remat2`).
    Remat(Arc<RematParams>),
    /// `checkpoint_name`: the identity, labelling its value for a policy.
    Name(Arc<String>),
    /// lax.cond / lax.switch: one of several programs, chosen by an index.
    Cond(Arc<CondParams>),
    /// lax.while_loop: a program repeated while a predicate holds.
    While(Arc<WhileParams>),
    /// lax.scan: a program run once per index of a leading axis.
    Scan(Arc<ScanParams>),
    /// The identity that fixes where its result lives
    /// (`with_sharding_constraint`, `reshard`).
    ShardingConstraint(Arc<ConstraintParams>),
    /// `jax.device_put` of traced values: the identity that puts each
    /// operand where its target says.
    DevicePut(Arc<DevicePutParams>),
    /// `jax.debug.print` of values known only when the program runs.
    DebugPrint(Arc<DebugPrintParams>),
    /// A `jax.custom_jvp` function under differentiation.
    CustomJvp(Arc<CustomJvpParams>),
    /// A `jax.custom_vjp` function under differentiation.
    CustomVjp(Arc<CustomVjpParams>),
    /// `jax.pure_callback` or `io_callback` of values known only when the
    /// program runs.
    HostCallback(Arc<HostCallbackParams>),
}

impl Prim {
    /// The name JAX gives this primitive in a jaxpr.
    pub fn name(&self) -> String {
        match self {
            Prim::Unary(op) => elementwise::unary_name(*op).to_string(),
            Prim::Binary(op) => elementwise::binary_name(*op).to_string(),
            Prim::IntegerPow(_) => "integer_pow".into(),
            Prim::Select => "select_n".into(),
            Prim::Clamp => "clamp".into(),
            Prim::Convert(..) => "convert_element_type".into(),
            Prim::Reduce { op, .. } => reduce::reduce_name(*op).into(),
            Prim::Cumulative { op, .. } => op.name().into(),
            Prim::ArgReduce { min, .. } => if *min { "argmin" } else { "argmax" }.into(),
            Prim::Reshape(_) => "reshape".into(),
            Prim::Transpose(_) => "transpose".into(),
            Prim::BroadcastInDim { .. } => "broadcast_in_dim".into(),
            Prim::Concatenate(_) => "concatenate".into(),
            Prim::Slice { .. } => "slice".into(),
            Prim::DynamicSlice(_) => "dynamic_slice".into(),
            Prim::DynamicUpdateSlice => "dynamic_update_slice".into(),
            Prim::Pad { .. } => "pad".into(),
            Prim::Rev(_) => "rev".into(),
            Prim::StopGradient => "stop_gradient".into(),
            Prim::Take(_) => "gather".into(),
            Prim::ScatterAdd { .. } => "scatter-add".into(),
            Prim::DotGeneral { .. } => "dot_general".into(),
            Prim::Conv(_) => "conv_general_dilated".into(),
            Prim::ReduceWindow(w) => w.name().into(),
            Prim::Sort { .. } => "sort".into(),
            Prim::Threefry2x32 => "threefry2x32".into(),
            Prim::BitcastConvert(_) => "bitcast_convert_type".into(),
            Prim::Linalg(op) => op.name().into(),
            Prim::Fft { .. } => "fft".into(),
            Prim::Collective(c) => c.name().into(),
            Prim::ShardMap(_) => "shard_map".into(),
            Prim::Map(m) => m.kind.name().into(),
            Prim::Jit(_) => "jit".into(),
            Prim::Remat(_) => "remat2".into(),
            Prim::Name(_) => "name".into(),
            Prim::Cond(_) => "cond".into(),
            Prim::While(_) => "while".into(),
            Prim::Scan(_) => "scan".into(),
            Prim::ShardingConstraint(c) => c.name().into(),
            Prim::DevicePut(_) => "device_put".into(),
            Prim::DebugPrint(d) if d.check.is_some() => "check".into(),
            Prim::DebugPrint(d) if d.callback.is_some() => "debug_callback".into(),
            Prim::DebugPrint(d) if d.inspect.is_some() => "inspect_sharding".into(),
            Prim::DebugPrint(_) => "debug_print".into(),
            Prim::CustomJvp(_) => "custom_jvp_call".into(),
            Prim::CustomVjp(_) => "custom_vjp_call".into(),
            Prim::HostCallback(h) => h.name().into(),
        }
    }

    /// The parameters as `key=value` pairs, for the jaxpr printer.
    pub fn params(&self) -> Vec<(String, String)> {
        match self {
            Prim::IntegerPow(n) => vec![("y".into(), n.to_string())],
            // lax.conj refuses real operands, so its input is complex64.
            Prim::Unary(UnaryOp::Conj) => vec![("input_dtype".into(), "complex64".into())],
            Prim::Convert(d, weak) => vec![
                ("new_dtype".into(), d.name().into()),
                ("weak_type".into(), py_bool(*weak).into()),
            ],
            Prim::Reduce { .. } | Prim::Cumulative { .. } | Prim::ArgReduce { .. } => {
                self.reduction_params()
            }
            Prim::Reshape(_)
            | Prim::Transpose(_)
            | Prim::BroadcastInDim { .. }
            | Prim::Concatenate(_)
            | Prim::Slice { .. }
            | Prim::DynamicSlice(_)
            | Prim::Pad { .. }
            | Prim::Rev(_)
            | Prim::Take(_)
            | Prim::ScatterAdd { .. } => self.structural_params(),
            Prim::DotGeneral {
                contracting, batch, ..
            } => dot_general_params(contracting, batch),
            Prim::Conv(c) => c.params(),
            Prim::Linalg(op) => op.params(),
            Prim::Fft { typ, lengths } => fft::params(*typ, lengths),
            Prim::ReduceWindow(w) => w.params(),
            Prim::BitcastConvert(d) => vec![("new_dtype".into(), d.name().into())],
            Prim::Sort { dimension } => vec![
                ("dimension".into(), dimension.to_string()),
                ("is_stable".into(), "True".into()),
                ("num_keys".into(), "1".into()),
            ],
            Prim::Name(n) => vec![("name".into(), n.to_string())],
            Prim::Cond(_) => vec![],
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::Select
            | Prim::Clamp
            | Prim::DynamicUpdateSlice
            | Prim::Threefry2x32
            | Prim::StopGradient => vec![],
            Prim::Collective(_)
            | Prim::ShardMap(_)
            | Prim::Map(_)
            | Prim::Jit(_)
            | Prim::Remat(_)
            | Prim::While(_)
            | Prim::Scan(_)
            | Prim::ShardingConstraint(_)
            | Prim::DevicePut(_)
            | Prim::DebugPrint(_)
            | Prim::CustomJvp(_)
            | Prim::CustomVjp(_)
            | Prim::HostCallback(_) => self.nested_params(),
        }
    }

    /// The parameters of the reductions along axes.
    fn reduction_params(&self) -> Vec<(String, String)> {
        match self {
            // Of the reductions only reduce_sum takes an out_sharding.
            Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            } => vec![
                ("axes".into(), tuple_repr(axes)),
                ("out_sharding".into(), "None".into()),
            ],
            Prim::Reduce { axes, .. } => vec![("axes".into(), tuple_repr(axes))],
            Prim::Cumulative { axis, reverse, .. } => vec![
                ("axis".into(), axis.to_string()),
                ("reverse".into(), py_bool(*reverse).into()),
            ],
            Prim::ArgReduce { axis, .. } => vec![
                ("axes".into(), tuple_repr(&[*axis])),
                ("index_dtype".into(), "int32".into()),
            ],
            _ => vec![],
        }
    }

    /// The parameters of the primitives that move elements without
    /// computing new ones.
    fn structural_params(&self) -> Vec<(String, String)> {
        match self {
            Prim::Reshape(s) => vec![
                ("dimensions".into(), "None".into()),
                ("new_sizes".into(), tuple_repr(s)),
                ("sharding".into(), "None".into()),
            ],
            Prim::Transpose(p) => vec![("permutation".into(), tuple_repr(p))],
            // JAX leaves out the shape (the result's type says it) and
            // dimensions when there are none.
            Prim::BroadcastInDim { dims, .. } if dims.is_empty() => vec![],
            Prim::BroadcastInDim { dims, .. } => {
                vec![("broadcast_dimensions".into(), tuple_repr(dims))]
            }
            Prim::Concatenate(a) => vec![("dimension".into(), a.to_string())],
            Prim::Slice {
                starts,
                limits,
                strides,
            } => vec![
                ("start_indices".into(), tuple_repr(starts)),
                ("limit_indices".into(), tuple_repr(limits)),
                ("strides".into(), tuple_repr(strides)),
            ],
            Prim::DynamicSlice(s) => vec![("slice_sizes".into(), tuple_repr(s))],
            Prim::Pad { lo, hi } => vec![
                ("low".into(), tuple_repr(lo)),
                ("high".into(), tuple_repr(hi)),
            ],
            Prim::Rev(a) => vec![("dimensions".into(), tuple_repr(a))],
            Prim::Take(a) | Prim::ScatterAdd { axis: a, .. } => {
                vec![("axis".into(), a.to_string())]
            }
            _ => vec![],
        }
    }

    /// The parameters of the primitives that carry their own parameter
    /// records: control flow, sharding, callbacks and custom rules.
    fn nested_params(&self) -> Vec<(String, String)> {
        match self {
            Prim::Collective(c) => c.params(),
            Prim::ShardMap(p) => p.params(),
            Prim::Map(m) => m.params(),
            Prim::Jit(j) => j.params(),
            Prim::Remat(r) => r.params(),
            Prim::While(w) => w.params(),
            Prim::Scan(p) => p.params(),
            Prim::ShardingConstraint(c) => c.params(),
            Prim::DevicePut(d) => d.params(),
            Prim::DebugPrint(d) => d.params(),
            Prim::CustomJvp(c) => c.params(),
            Prim::CustomVjp(c) => c.params(),
            Prim::HostCallback(h) => h.params(),
            _ => vec![],
        }
    }

    /// The shape rule: output avals from input avals, or the error JAX would
    /// raise at trace time.
    pub fn abstract_eval(&self, ins: &[Aval], env: &AxisEnv) -> Result<Vec<Aval>> {
        let mut outs = self.abstract_eval_unchecked(ins, env)?;
        let complex = ins.iter().chain(&outs).any(|a| a.dtype == DType::C64);
        if complex && !self.models_complex() {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: complex64 in {}",
                self.name()
            );
        }
        if ins.iter().any(|a| a.dtype == DType::U32) && !self.models_u32() {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: uint32 in {}",
                self.name()
            );
        }
        narrow::refusal(self, ins, &outs)?;
        if let Some(w) = weak::rule(self, ins) {
            outs.iter_mut().for_each(|a| a.weak = w);
        }
        // One limit on every result, so a broadcast, an outer product, a
        // concatenation or a gather fails before its buffer is allocated.
        for a in &outs {
            crate::array::check_alloc(&a.shape, a.dtype)?;
        }
        Ok(outs)
    }

    fn abstract_eval_unchecked(&self, ins: &[Aval], env: &AxisEnv) -> Result<Vec<Aval>> {
        match self {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow(_)
            | Prim::Select
            | Prim::Clamp
            | Prim::Convert(..) => elementwise::abstract_eval(self, ins),
            Prim::Reduce { .. } | Prim::ArgReduce { .. } => reduce::abstract_eval(self, ins),
            Prim::Cumulative { .. } => cumulative::abstract_eval(self, ins),
            Prim::DotGeneral { .. } => dot::abstract_eval(self, ins),
            Prim::Conv(_) => conv::abstract_eval(self, ins),
            Prim::ReduceWindow(_) => window::abstract_eval(self, ins),
            Prim::Sort { .. } => sort::abstract_eval(self, ins),
            Prim::Threefry2x32 | Prim::BitcastConvert(_) => bits::abstract_eval(self, ins),
            Prim::Linalg(_) => linalg::abstract_eval(self, ins),
            Prim::Fft { .. } => fft::abstract_eval(self, ins),
            Prim::Collective(c) => collectives::abstract_eval(c, ins, env),
            Prim::ShardMap(p) => p.abstract_eval(ins),
            Prim::Map(m) => m.abstract_eval(ins),
            Prim::Jit(j) => j.abstract_eval(ins),
            Prim::Remat(r) => r.abstract_eval(ins),
            Prim::Name(_) => Ok(ins.to_vec()),
            Prim::Cond(c) => c.abstract_eval(ins),
            Prim::While(w) => w.abstract_eval(ins),
            Prim::Scan(p) => p.abstract_eval(ins),
            Prim::ShardingConstraint(c) => c.abstract_eval(ins),
            Prim::DevicePut(d) => d.abstract_eval(ins),
            Prim::DebugPrint(d) => d.abstract_eval(ins),
            Prim::CustomJvp(c) => c.abstract_eval(ins),
            Prim::CustomVjp(c) => c.abstract_eval(ins),
            Prim::HostCallback(h) => h.abstract_eval(ins),
            _ => structural::abstract_eval(self, ins),
        }
    }

    /// Whether shardlab computes this primitive on complex64 operands as JAX
    /// does. Every other primitive refuses them (at trace time and eagerly),
    /// so a complex value never reaches code written for real ones.
    fn models_complex(&self) -> bool {
        use crate::array::{BinaryOp as B, UnaryOp as U};
        match self {
            Prim::Unary(op) => matches!(
                op,
                U::Neg
                    | U::Conj
                    | U::Real
                    | U::Imag
                    | U::Abs
                    | U::Exp
                    | U::Log
                    | U::Sin
                    | U::Cos
                    | U::Sqrt
                    | U::IsFinite
                    | U::Tan
                    | U::Tanh
                    | U::Sinh
                    | U::Cosh
                    | U::Asin
                    | U::Acos
                    | U::Atan
                    | U::Asinh
                    | U::Acosh
                    | U::Atanh
                    | U::Sign
                    | U::Log1p
                    | U::Expm1
            ),
            Prim::Binary(op) => matches!(
                op,
                B::Add | B::Sub | B::Mul | B::Div | B::Eq | B::Ne | B::Complex
            ),
            Prim::Reduce { op, .. } => matches!(op, ReduceOp::Sum | ReduceOp::Prod),
            Prim::DotGeneral { .. } | Prim::Linalg(_) | Prim::Fft { .. } => true,
            // vmap runs its body once per index and stacks the results,
            // which moves complex values as it moves any other.
            Prim::Map(m) => m.kind == MapKind::Vmap,
            Prim::IntegerPow(_)
            | Prim::Select
            | Prim::Convert(..)
            | Prim::Reshape(_)
            | Prim::Transpose(_)
            | Prim::BroadcastInDim { .. }
            | Prim::Concatenate(_)
            | Prim::Slice { .. }
            | Prim::DynamicSlice(_)
            | Prim::DynamicUpdateSlice
            | Prim::Pad { .. }
            | Prim::Rev(_)
            | Prim::StopGradient
            | Prim::Take(_)
            | Prim::Jit(_) => true,
            _ => false,
        }
    }

    /// Whether shardlab computes this primitive on uint32 operands as JAX
    /// does: everything but the contractions and windows, which refuse them.
    fn models_u32(&self) -> bool {
        !matches!(
            self,
            Prim::DotGeneral { .. }
                | Prim::Conv(_)
                | Prim::ReduceWindow(_)
                | Prim::Binary(crate::array::BinaryOp::Complex)
                | Prim::Cumulative {
                    op: cumulative::CumOp::LogSumExp,
                    ..
                }
        )
    }

    /// Runs a device-local primitive on arrays. Collectives and maps need the
    /// devices and are run by `exec` instead. Narrow operands and results
    /// are computed wide and fitted to their types in `narrow::apply`.
    pub fn apply(&self, ins: &[Array]) -> Result<Vec<Array>> {
        let narrow_param = matches!(self, Prim::Convert(d, _) if d.is_narrow());
        if narrow_param || ins.iter().any(|a| a.dtype().is_narrow()) {
            return narrow::apply(self, ins);
        }
        self.apply_wide(ins)
    }

    fn apply_wide(&self, ins: &[Array]) -> Result<Vec<Array>> {
        match self {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow(_)
            | Prim::Clamp
            | Prim::Select
            | Prim::Convert(..) => elementwise::apply(self, ins),
            Prim::Reduce { .. } | Prim::ArgReduce { .. } => reduce::apply(self, ins),
            Prim::Cumulative { .. } => cumulative::apply(self, ins),
            Prim::DotGeneral { .. } => dot::apply(self, ins),
            Prim::Conv(_) => conv::apply(self, ins),
            Prim::ReduceWindow(_) => window::apply(self, ins),
            Prim::Sort { .. } => sort::apply(self, ins),
            Prim::Threefry2x32 | Prim::BitcastConvert(_) => bits::apply(self, ins),
            Prim::Linalg(_) => linalg::apply(self, ins),
            Prim::Fft { .. } => fft::apply(self, ins),
            // Values pass through a constraint unchanged.
            Prim::ShardingConstraint(_) | Prim::DevicePut(_) => Ok(ins.to_vec()),
            p if p.needs_evaluator() => {
                crate::bail!(
                    RuntimeError,
                    "{} cannot run outside an evaluator",
                    self.name()
                )
            }
            Prim::Name(_) => Ok(ins.to_vec()),
            _ => structural::apply(self, ins),
        }
    }

    /// Differentiation through complex64 values is modelled for the
    /// holomorphic elementwise functions, `real`/`imag`/`conj`/`complex`,
    /// conversions, sums and data movement; anything else refuses.
    fn refuse_complex_derivative(&self, primals: &[Value], outs: &[Value]) -> Result<()> {
        use crate::array::UnaryOp as U;
        let modelled = match self {
            Prim::Unary(op) => !matches!(op, U::Abs | U::IsFinite),
            Prim::Binary(_) | Prim::Jit(_) => true,
            _ => self.models_complex(),
        };
        if !modelled && primals.iter().chain(outs).any(|v| v.dtype() == DType::C64) {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: complex64 in differentiation of {}",
                self.name()
            );
        }
        // The derivative rules build float32 tangents; a narrow float's
        // cotangent would not keep its type.
        let mut dtypes = primals.iter().chain(outs).map(|v| v.dtype());
        if let Some(d) = dtypes.find(|d| d.is_narrow() && d.is_float()) {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: {} in differentiation of {}",
                d.name(),
                self.name()
            );
        }
        Ok(())
    }

    /// Forward mode: tangents of the outputs from the primals and the tangents
    /// of the inputs (`None` is a symbolic zero).
    pub fn jvp(
        &self,
        primals: &[Value],
        tangents: &[Option<Value>],
        outs: &[Value],
    ) -> Result<Vec<Option<Value>>> {
        self.refuse_complex_derivative(primals, outs)?;
        match self {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow(_)
            | Prim::Clamp
            | Prim::Select
            | Prim::Convert(..) => elementwise::jvp(self, primals, tangents, outs),
            Prim::Reduce { .. } | Prim::ArgReduce { .. } => {
                reduce::jvp(self, primals, tangents, outs)
            }
            Prim::Cumulative { .. } => cumulative::jvp(self, tangents),
            Prim::DotGeneral { .. } => dot::jvp(self, primals, tangents),
            Prim::Conv(_) => conv::jvp(self, primals, tangents),
            Prim::ReduceWindow(_) => window::jvp(self, tangents),
            Prim::Sort { .. } => sort::no_derivative(primals),
            Prim::Threefry2x32 | Prim::BitcastConvert(_) => bits::no_derivative(outs.len()),
            Prim::Linalg(_) => linalg::jvp(self, primals, tangents, outs),
            Prim::Fft { .. } => fft::jvp(self, tangents),
            Prim::Collective(c) => collectives::jvp(c, primals, tangents),
            Prim::ShardMap(p) => p.jvp(primals, tangents),
            Prim::Map(m) => m.jvp(primals, tangents),
            Prim::Jit(j) => j.jvp(primals, tangents),
            Prim::Remat(r) => r.jvp(primals, tangents),
            // The tangent is not named.
            Prim::Name(_) => Ok(tangents.to_vec()),
            Prim::Cond(c) => c.jvp(primals, tangents),
            Prim::While(w) => w.jvp(primals, tangents),
            Prim::Scan(p) => p.jvp(primals, tangents),
            Prim::ShardingConstraint(c) => constraint::constrained(c, tangents),
            Prim::DevicePut(d) => d.jvp(tangents),
            // The print happens again, on the primal values; it has no outputs.
            Prim::DebugPrint(_) => {
                crate::trace::bind(self.clone(), primals)?;
                Ok(vec![])
            }
            Prim::CustomJvp(c) => c.jvp(primals, tangents),
            Prim::CustomVjp(_) => Err(custom::custom_vjp_jvp_error()),
            Prim::HostCallback(h) => Err(h.jvp_error()),
            _ => structural::jvp(self, primals, tangents),
        }
    }

    /// Reverse mode: cotangents of the inputs from the primals, the outputs and
    /// the cotangents of the outputs (`None` is a symbolic zero; a `None` input
    /// cotangent means "not differentiable" or zero).
    pub fn vjp(
        &self,
        primals: &[Value],
        outs: &[Value],
        cts: &[Option<Value>],
    ) -> Result<Vec<Option<Value>>> {
        self.refuse_complex_derivative(primals, outs)?;
        match self {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow(_)
            | Prim::Clamp
            | Prim::Select
            | Prim::Convert(..) => elementwise::vjp(self, primals, outs, cts),
            Prim::Reduce { .. } | Prim::ArgReduce { .. } => reduce::vjp(self, primals, outs, cts),
            Prim::Cumulative { .. } => cumulative::vjp(self, primals, cts),
            Prim::DotGeneral { .. } => dot::vjp(self, primals, cts),
            Prim::Conv(_) => conv::vjp(self, primals, cts),
            Prim::ReduceWindow(_) => window::vjp(self, primals, cts),
            Prim::Sort { .. } => sort::no_derivative(primals),
            Prim::Threefry2x32 | Prim::BitcastConvert(_) => bits::no_derivative(primals.len()),
            Prim::Linalg(_) => linalg::vjp(self, primals, outs, cts),
            Prim::Fft { .. } => fft::vjp(self, cts),
            Prim::Collective(c) => collectives::vjp(c, primals, cts),
            Prim::ShardMap(p) => p.vjp(primals, cts),
            Prim::Map(m) => m.vjp(primals, cts),
            Prim::Jit(j) => j.vjp(primals, cts),
            Prim::Remat(r) => r.vjp(primals, cts),
            Prim::Name(_) => Ok(cts.to_vec()),
            Prim::Cond(c) => c.vjp(primals, cts),
            Prim::While(w) => w.vjp(),
            Prim::Scan(p) => p.vjp(primals, outs, cts),
            Prim::ShardingConstraint(c) => constraint::constrained(c, cts),
            Prim::DevicePut(d) => d.vjp(),
            Prim::DebugPrint(_) => Ok(vec![None; primals.len()]),
            Prim::CustomJvp(c) => c.vjp(primals, cts),
            Prim::CustomVjp(c) => c.vjp(primals, cts),
            Prim::HostCallback(h) => Err(h.jvp_error()),
            _ => structural::vjp(self, primals, cts),
        }
    }

    /// True for primitives whose operands are combined elementwise or
    /// contracted together, so mixing an invariant and a varying operand
    /// needs an implicit `pvary` on the invariant one (as JAX inserts).
    pub fn joins_vma(&self) -> bool {
        !self.needs_evaluator()
    }

    /// The programs this equation runs (a jit's body, a cond's branches, a
    /// loop's predicate and step, a map's body).
    pub fn sub_jaxprs(&self) -> Vec<&crate::ir::Jaxpr> {
        match self {
            Prim::ShardMap(p) => vec![&p.body],
            Prim::Map(m) => vec![&m.body],
            Prim::Jit(j) => vec![&j.body],
            Prim::Remat(r) => vec![&r.body],
            Prim::Cond(c) => c.branches.iter().collect(),
            Prim::While(w) => vec![&w.cond, &w.body],
            Prim::Scan(s) => vec![&s.body],
            Prim::CustomJvp(c) => vec![&c.call, &c.rule],
            Prim::CustomVjp(c) => vec![&c.fwd, &c.bwd],
            _ => vec![],
        }
    }

    /// True for primitives that run programs or talk to other devices (or
    /// to the run's output): only an evaluator can run them, never `apply`.
    pub fn needs_evaluator(&self) -> bool {
        matches!(
            self,
            Prim::Collective(_)
                | Prim::ShardMap(_)
                | Prim::Map(_)
                | Prim::Jit(_)
                | Prim::Remat(_)
                | Prim::Cond(_)
                | Prim::While(_)
                | Prim::Scan(_)
                | Prim::DebugPrint(_)
                | Prim::CustomJvp(_)
                | Prim::CustomVjp(_)
                | Prim::HostCallback(_)
        )
    }
}

/// Broadcast result of several avals' VMAs: the union.
pub fn join_vma(ins: &[Aval]) -> crate::ir::AxisSet {
    ins.iter().flat_map(|a| a.vma.iter().cloned()).collect()
}

/// A list of axes or sizes as Python prints a tuple: `(3,)`, `(1, 2)`.
fn tuple_repr(v: &[usize]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    if s.len() == 1 {
        format!("({},)", s[0])
    } else {
        format!("({})", s.join(", "))
    }
}

/// Python's spelling of a bool.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// dot_general's dimension numbers print as nested tuples of lists.
fn dot_general_params(
    contracting: &(Vec<usize>, Vec<usize>),
    batch: &(Vec<usize>, Vec<usize>),
) -> Vec<(String, String)> {
    let brackets = |v: &[usize]| {
        let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        format!("[{}]", s.join(", "))
    };
    vec![
        (
            "dimension_numbers".into(),
            format!(
                "(({}, {}), ({}, {}))",
                brackets(&contracting.0),
                brackets(&contracting.1),
                brackets(&batch.0),
                brackets(&batch.1)
            ),
        ),
        ("preferred_element_type".into(), "float32".into()),
    ]
}
