//! `jax.numpy` and `numpy`: array creation, elementwise and reduction
//! functions, shape manipulation, linear algebra and comparisons.
//!
//! Both modules share one implementation on shardlab arrays (float32, int32,
//! bool). `numpy` adds device arrays for building meshes and returns Python
//! bools from `allclose`/`array_equal`, as NumPy does.
//!
//! NumPy's own float64 / int64 / uint8 arrays live on the host: `numpy`'s
//! functions reach the 64-bit implementations (`hostfuncs`, `hostcreate`,
//! `hostmath`, `hostreduce`, `hostmove`, `hostattrs`) before the shared
//! 32-bit ones, and refuse by name what has no 64-bit implementation.
//!
//! The functions live in one file per group (`creation`, `elementwise`,
//! `reductions`, `shape`, `linalg`, `comparison`, `dtypes`); this file holds
//! the argument parsing they share and puts the modules together.

mod arraylike;
mod arrayprint;
mod calculus;
mod callables;
mod can_cast;
mod choice;
mod comparison;
mod complex_preds;
mod compose;
mod composed;
mod creation;
mod dtype_attrs;
mod dtype_queries;
pub mod dtypes;
mod editing;
mod einsum_interleaved;
mod elementwise;
pub(crate) mod fft;
mod finfo;
mod float_bits;
mod float_parts;
mod frombuffer;
mod grids;
mod histogramdd;
mod host;
mod hostattrs;
mod hostcreate;
mod hostfuncs;
mod hostmath;
mod hostmove;
mod hostreduce;
mod index_builders;
pub mod jax_dtypes;
mod jnp_grids;
pub mod jnp_scalar_types;
mod joining;
mod legacy;
mod linalg;
mod linspace;
mod math_more;
mod mt19937;
mod nan_reductions;
pub mod narrow_scalar;
pub mod ndarray;
mod nonzero;
mod packbits;
mod pad_modes;
mod partition;
mod poly_products;
mod polynomial;
mod predicates;
mod printoptions;
mod products;
mod quantiles;
mod ravel_index;
mod reductions;
mod rng;
mod rng_args;
pub mod scalar;
mod scalar_types;
mod searching;
mod selection;
mod set_ops;
mod shape;
pub mod special;
mod statistics;
mod testing;
mod ufunc;
mod ufunc_at;
mod ufunc_logsumexp;
mod ufunc_methods;
mod ufuncs_more;
mod unique;
mod unique_traced;
mod vectorize;
pub mod wide_types;
mod x64_warning;
mod ziggurat_f64;

pub(in crate::modules) use composed::call as jnp_call;
pub use creation::devices_getitem;
pub(in crate::modules) use creation::{full, like};
pub use dtypes::{cast_to, dtype_of};
pub(crate) use elementwise::where_values;

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::trace::Value;

use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

fn arr(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    to_value(&a.req(Some(i), name, func)?)
}

fn dtype_arg(a: &Args, index: Option<usize>) -> Result<Option<DType>> {
    match a.opt(index, "dtype") {
        None => Ok(None),
        Some(o) => Ok(Some(dtype_of(&o)?)),
    }
}

fn axes_arg(a: &Args, index: Option<usize>) -> Result<Option<Vec<i64>>> {
    match a.opt(index, "axis") {
        None => Ok(None),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => Ok(Some(
            iterate(&o)?.iter().map(to_int).collect::<Result<_>>()?,
        )),
        Some(o) => Ok(Some(vec![to_int(&o)?])),
    }
}

fn keepdims(a: &Args, index: Option<usize>) -> Result<bool> {
    match a.get(index, "keepdims") {
        None => Ok(false),
        Some(o) => crate::python::ops::truthy(&o, "keepdims"),
    }
}

/// A shape given as an int or a sequence of ints, checked: no negative
/// dimension, and a size the allocation limit allows.
pub(crate) fn shape_of(o: &Obj) -> Result<Vec<usize>> {
    // A number stands for the one-dimension tuple JAX makes of it.
    let (items, given) = match o {
        Obj::Tuple(_) | Obj::List(_) => (iterate(o)?, o.clone()),
        other => (vec![other.clone()], Obj::tuple(vec![other.clone()])),
    };
    crate::python::array::concrete_shape(&items, &given)?;
    let dims: Vec<i64> = items.iter().map(to_int).collect::<Result<_>>()?;
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        bail!(ValueError, "negative dimensions are not allowed, got {d}");
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    crate::python::array::check_shape(&shape)?;
    Ok(shape)
}

/// A `jax.numpy` function by name, for array methods (`x.sum()` is `jnp.sum(x)`).
pub fn jnp_function(interp: &mut Interp, name: &str) -> Result<Obj> {
    let m = super::import(interp, "jax.numpy")?;
    crate::python::ops::getattr(interp, &m, name)
}

/// NumPy's constants, and the names that stand for types.
fn constants(b: &mut Builder) {
    b.attr("pi", Obj::Float(std::f64::consts::PI))
        .attr("e", Obj::Float(std::f64::consts::E))
        .attr("inf", Obj::Float(f64::INFINITY))
        .attr("nan", Obj::Float(f64::NAN))
        .attr("newaxis", Obj::None)
        .attr("ndarray", Obj::Type("Array"));
}

/// Adds what `jax.numpy` and `numpy` share; `numpy` selects NumPy's
/// variants where they differ.
fn fill(b: &mut Builder, numpy: bool) {
    dtypes::register(b, numpy);
    constants(b);
    creation::register(b, numpy);
    linspace::register(b);
    reductions::register(b);
    elementwise::register(b, numpy);
    linalg::register(b, numpy);
    if !numpy {
        super::linalg::register_jnp(b);
        dtype_queries::register(b);
        #[cfg(feature = "jnp-compositions")]
        register_compositions(b);
    } else {
        dtype_queries::register_abstract(b);
    }
    shape::register(b);
    comparison::register(b, numpy);
    printoptions::register(b);
    predicates::register(b, numpy);
    can_cast::register(b);
}

/// jnp's functions written as compositions of lax operations, one file
/// per family (`numpy` has no 64-bit forms of them yet).
#[cfg(feature = "jnp-compositions")]
fn register_compositions(b: &mut Builder) {
    nan_reductions::register(b);
    complex_preds::register(b);
    composed::register(b);
    nonzero::register(b);
    packbits::register(b);
    searching::register(b);
    index_builders::register(b);
    joining::register(b);
    math_more::register(b);
    quantiles::register(b);
    ravel_index::register(b);
    unique::register(b);
    polynomial::register(b);
    set_ops::register(b);
    float_parts::register(b);
    products::register(b);
    selection::register(b);
    vectorize::register(b);
    callables::register(b);
    ufuncs_more::register(b);
    statistics::register(b);
    histogramdd::register(b);
    float_bits::register(b);
    calculus::register(b);
    editing::register(b);
    jnp_grids::register(b);
    poly_products::register(b);
    partition::register(b);
}

/// The `jax.numpy` module.
pub fn jnp_module(_: &mut Interp) -> Obj {
    let mut b = Builder::new("jax.numpy");
    fill(&mut b, false);
    b.func("dtype", |_, a| scalar_types::dtype(&a));
    b.func("frombuffer", frombuffer::frombuffer);
    for (name, t) in wide_types::types() {
        b.replace(name, t);
    }
    // NumPy's other names of the scalar types are the same objects in JAX
    // (`jnp.float_ is jnp.float64`).
    for (alias, name) in [
        ("float_", "float64"),
        ("double", "float64"),
        ("int_", "int64"),
        ("uint", "uint64"),
        ("complex_", "complex128"),
        ("cdouble", "complex128"),
        ("single", "float32"),
        ("csingle", "complex64"),
    ] {
        if let Some(t) = b.get(name) {
            b.attr(alias, t);
        }
    }
    b.attr("euler_gamma", Obj::Float(0.577_215_664_901_532_9));
    super::conv::register_numpy(&mut b);
    #[cfg(feature = "fft")]
    b.attr("fft", fft::module());
    let m = b.build();
    arraylike::wrap_module(&m);
    x64_warning::wrap_module(&m);
    let m = super::sharding::context::placing_functions(m);
    ufunc::install(&m);
    m
}

/// NumPy's other names of its scalar types, on a 64-bit Linux machine
/// (`np.intp` is `np.int64`, `np.intc` is `np.int32`).
const NUMPY_ALIASES: [(&str, &str); 13] = [
    ("half", "float16"),
    ("int_", "int64"),
    ("uint", "uint64"),
    ("intp", "int64"),
    ("uintp", "uint64"),
    ("csingle", "complex64"),
    ("cdouble", "complex128"),
    ("byte", "int8"),
    ("ubyte", "uint8"),
    ("short", "int16"),
    ("ushort", "uint16"),
    ("intc", "int32"),
    ("uintc", "uint32"),
];

/// Makes a module's functions take and return NumPy host arrays, as the
/// `numpy` module's do.
pub fn wrap_host_module(m: &Obj) {
    ndarray::wrap_module(m);
}

/// The `numpy` module.
pub fn np_module(_: &mut Interp) -> Obj {
    let mut b = Builder::new("numpy");
    fill(&mut b, true);
    #[cfg(feature = "numpy-testing")]
    b.attr("testing", testing::module());
    #[cfg(feature = "numpy-random")]
    b.attr("random", rng::module());
    b.func("unpackbits", |_, a| unpackbits(&a));
    b.func("dtype", |_, a| scalar_types::dtype(&a));
    b.attr("mgrid", grids::Grid::mgrid());
    b.attr("ogrid", grids::Grid::ogrid());
    let m = b.build();
    ndarray::wrap_module(&m);
    if let Obj::Module(module) = &m {
        let copyto = Obj::native("copyto", ndarray::copyto);
        let mut attrs = module.attrs.borrow_mut();
        attrs.push(("copyto".into(), copyto));
        attrs.push(("True_".into(), scalar::NpScalar::obj(host::Kind::Bool, 1.0)));
        attrs.push((
            "False_".into(),
            scalar::NpScalar::obj(host::Kind::Bool, 0.0),
        ));
        if let Some(slot) = attrs.iter_mut().find(|(k, _)| k == "ndarray") {
            slot.1 = Obj::lib(ndarray::NdArrayType);
        }
        // NumPy's own scalar types replace JAX's names for them: calling
        // one makes a NumPy scalar (`np.float32(3)` is `np.float32(3.0)`,
        // not a JAX array), and `type(x)` of a scalar is one of them.
        for (name, kind) in [
            ("float64", host::Kind::Float64),
            ("double", host::Kind::Float64),
            ("int64", host::Kind::Int64),
            ("uint8", host::Kind::UInt8),
            ("float32", host::Kind::Float32),
            ("single", host::Kind::Float32),
            ("int32", host::Kind::Int32),
            ("uint32", host::Kind::UInt32),
            ("bool_", host::Kind::Bool),
            ("bool", host::Kind::Bool),
        ] {
            attrs.retain(|(k, _)| k != name);
            attrs.push((name.into(), scalar_types::HostType::type_obj(kind)));
        }
        // NumPy's C-style names of the same types (`np.intc is np.int32`).
        for (alias, name) in NUMPY_ALIASES {
            let found = attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, t)| t.clone());
            if let Some(t) = found {
                attrs.push((alias.into(), t));
            }
        }
    }
    m
}

/// `np.unpackbits(a, axis)` of an array of bytes (0..=255), most
/// significant bit first, of a JAX array of bytes; the result is held as
/// int32 (NumPy's uint8 arrays unpack on the host, see `hostfuncs`).
fn unpackbits(a: &crate::python::value::Args) -> crate::error::Result<Obj> {
    use crate::python::array::to_value;
    let x = to_value(&a.req(Some(0), "a", "unpackbits")?)?;
    let Value::Concrete(x) = x else {
        crate::bail!(TypeError, "unpackbits needs a concrete array");
    };
    let shape = x.shape().to_vec();
    let axis = match a.opt(Some(1), "axis") {
        Some(Obj::Int(i)) => crate::ops::norm_axis(i, shape.len())?,
        Some(_) => crate::bail!(TypeError, "an integer is required for the axis"),
        None => crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.unpackbits without axis"
        ),
    };
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    let mut data = vec![0i32; x.size() * 8];
    for o in 0..outer {
        for j in 0..n {
            for i in 0..inner {
                let byte = x.get_f64((o * n + j) * inner + i) as i64 as u8;
                for bit in 0..8 {
                    let at = (o * n * 8 + j * 8 + bit) * inner + i;
                    data[at] = ((byte >> (7 - bit)) & 1) as i32;
                }
            }
        }
    }
    let mut out_shape = shape.clone();
    out_shape[axis] = n * 8;
    Ok(Obj::Array(Value::Concrete(crate::array::Array::from_i32(
        &out_shape, data,
    )?)))
}

/// The attributes of an engine dtype object that NumPy's dtype has.
pub fn dtype_attr(d: crate::array::DType, name: &str) -> Result<Option<Obj>> {
    dtype_attrs::attr(d.name(), '=', name)
}
