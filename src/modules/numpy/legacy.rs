//! NumPy's legacy random API: `np.random.seed`, `np.random.RandomState`,
//! and the module-level draws (`rand`, `randn`, `randint`, `choice`,
//! `permutation`, `shuffle`, ...) made from one global `RandomState`, with
//! the streams of NumPy's MT19937 (see [`super::mt19937`]).
//!
//! The global state is an object held by the `numpy.random` module, which
//! is built once per run, so each run starts afresh. Draws follow the
//! convention of `default_rng`: single draws are Python numbers, arrays of
//! floats are float32 and arrays of integers int32 here (NumPy's are
//! float64 and int64; the float32 values are NumPy's float64 values
//! rounded, as `jnp.asarray` rounds them).

use std::cell::RefCell;

use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{iterate, truthy};
use crate::python::value::{Args, Obj};
use crate::{bail, err};

use super::super::Builder;
use super::host::{broadcast_index, broadcast_shapes, float_array, int_array, HostArray, Kind};
use super::mt19937::{Legacy, Mt19937};
use super::rng::size_arg;

/// The seed of a generator nobody seeded. NumPy seeds it from the operating
/// system's entropy, so no program can rely on its draws; shardlab seeds it
/// with 0 so that runs repeat.
const UNSEEDED: u32 = 0;

type State = RefCell<Legacy>;
type Method = fn(&State, &Args) -> Result<Obj>;

/// A `numpy.random.RandomState`.
pub struct RandomState(State);

impl Object for RandomState {
    fn type_name(&self) -> String {
        "RandomState".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let Some(&(_, f)) = METHODS.iter().find(|(n, _)| *n == name) else {
            return Ok(None);
        };
        Ok(Some(bound(this.clone(), name, "RandomState", f)))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "RandomState(MT19937) at 0x{:X}",
            self as *const RandomState as usize
        ))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some("RandomState(MT19937)".into())
    }
}

/// `method` as a function of the `RandomState` in `this`.
/// A keyword the method never read is refused as `numpy.random`'s function
/// of the same name refuses it (the methods have its signature).
fn bound(this: Obj, name: &str, owner: &str, f: Method) -> Obj {
    let checked = format!("numpy.random.{name}");
    Obj::native(format!("{owner}.{name}"), move |_, a| {
        let rs = this
            .downcast::<RandomState>()
            .ok_or_else(|| err!(TypeError, "expected a RandomState"))?;
        let out = f(&rs.0, &a)?;
        crate::modules::real_api::check_keywords(&checked, &a)?;
        Ok(out)
    })
}

const METHODS: &[(&str, Method)] = &[
    ("seed", seed),
    ("rand", rand),
    ("randn", randn),
    ("random_sample", random_sample),
    ("random", random_sample),
    ("standard_normal", standard_normal),
    ("normal", normal),
    ("uniform", uniform),
    ("standard_exponential", standard_exponential),
    ("exponential", exponential),
    ("randint", randint),
    ("tomaxint", tomaxint),
    ("choice", super::choice::choice),
    ("permutation", permutation),
    ("shuffle", shuffle),
    ("get_state", get_state),
    ("set_state", set_state),
];

/// Adds `seed`, `RandomState` and the module-level draws to `numpy.random`.
pub fn install(b: &mut Builder) {
    let global = Obj::lib(RandomState(RefCell::new(Legacy::new(UNSEEDED))));
    for &(name, f) in METHODS {
        b.attr(name, bound(global.clone(), name, "numpy.random", f));
    }
    for name in ["sample", "ranf"] {
        b.attr(
            name,
            bound(global.clone(), name, "numpy.random", random_sample),
        );
    }
    b.func("RandomState", |_, a| {
        let g = seeded(a.opt(Some(0), "seed"))?;
        Ok(Obj::lib(RandomState(RefCell::new(g))))
    });
}

/// The generator `seed` makes: an integer through Knuth's initialisation,
/// a sequence of integers through `init_by_array`.
fn seeded(seed: Option<Obj>) -> Result<Legacy> {
    let Some(seed) = seed else {
        return Ok(Legacy::new(UNSEEDED));
    };
    let arr = HostArray::from_obj(&seed).map_err(|_| {
        err!(
            TypeError,
            "Cannot cast array data from dtype('O') to dtype('int64') according to the rule 'safe'"
        )
    })?;
    let cast_error = |what: &str| {
        err!(
            TypeError,
            "Cannot cast {what} from dtype('{}') to dtype('int64') according to the rule 'safe'",
            arr.kind.name()
        )
    };
    let in_range = |x: f64| (0.0..=u32::MAX as f64).contains(&x);
    // Arrays are squeezed first, so a one-element array seeds as its element;
    // lists always go through init_by_array.
    let array = matches!(seed, Obj::Array(_)) || super::ndarray::is_ndarray(&seed);
    let squeezed = array && arr.size() == 1;
    if squeezed || arr.shape.is_empty() {
        if arr.kind.is_float() {
            return Err(cast_error("scalar"));
        }
        if !in_range(arr.data[0]) {
            bail!(ValueError, "Seed must be between 0 and 2**32 - 1");
        }
        return Ok(Legacy::new(arr.data[0] as u32));
    }
    if arr.size() == 0 {
        bail!(ValueError, "Seed must be non-empty");
    }
    if arr.kind.is_float() {
        return Err(cast_error("array data"));
    }
    if arr.shape.len() != 1 {
        bail!(ValueError, "Seed array must be 1-d");
    }
    if !arr.data.iter().all(|&x| in_range(x)) {
        bail!(ValueError, "Seed must be between 0 and 2**32 - 1");
    }
    let key: Vec<u32> = arr.data.iter().map(|&x| x as u32).collect();
    Ok(Legacy::from_mt(Mt19937::from_array(&key)))
}

fn seed(st: &State, a: &Args) -> Result<Obj> {
    *st.borrow_mut() = seeded(a.opt(Some(0), "seed"))?;
    Ok(Obj::None)
}

/// `get_state()`: NumPy's legacy tuple `('MT19937', key, pos, has_gauss,
/// cached_gaussian)`, the key a uint32 array of 624 words.
fn get_state(st: &State, a: &Args) -> Result<Obj> {
    if let Some(legacy) = a.opt(Some(0), "legacy") {
        if !truthy(&legacy, "legacy")? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: RandomState.get_state(legacy=False)"
            );
        }
    }
    let g = st.borrow();
    let (mt, gauss) = g.parts();
    let (key, pos) = mt.state();
    let key = crate::array::Array::from_u32(&[key.len()], key.to_vec())?;
    let key = super::ndarray::wrap(Obj::Array(crate::trace::Value::Concrete(key)));
    Ok(Obj::tuple(vec![
        Obj::str("MT19937"),
        key,
        Obj::Int(pos as i64),
        Obj::Int(gauss.is_some() as i64),
        Obj::Float(gauss.unwrap_or(0.0)),
    ]))
}

/// `set_state(state)` with the tuple `get_state` gives (3 or 5 items).
fn set_state(st: &State, a: &Args) -> Result<Obj> {
    let state = a.req(Some(0), "state", "set_state")?;
    let Obj::Tuple(items) = &state else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: RandomState.set_state of a dict"
        );
    };
    if items.len() != 3 && items.len() != 5 {
        bail!(ValueError, "state must be a dict or a tuple.");
    }
    if !matches!(&items[0], Obj::Str(s) if &**s == "MT19937") {
        bail!(
            ValueError,
            "set_state can only be used with legacy MT19937 state instances."
        );
    }
    let key = crate::python::array::to_value(&items[1])?;
    let key = crate::ops::convert(&key, crate::array::DType::U32)?;
    let key = key.concrete_for(crate::trace::Conversion::Array)?;
    let key = key.u32_data()?;
    let pos = to_int(&items[2])?;
    let gauss = match items.get(3) {
        Some(has) if to_int(has)? != 0 => Some(crate::python::builtins::to_float(&items[4])?),
        _ => None,
    };
    let mt = usize::try_from(pos)
        .ok()
        .and_then(|p| Mt19937::from_state(key, p))
        .ok_or_else(|| err!(ValueError, "state must be 624 elements"))?;
    *st.borrow_mut() = Legacy::from_parts(mt, gauss);
    Ok(Obj::None)
}

/// Draws from `draw` with broadcast parameters (NumPy's `cont`): a Python
/// float when there is no size and every parameter is a scalar, else an
/// array of the size, or of the parameters' broadcast shape.
pub(super) fn cont(
    st: &State,
    size: Option<Vec<usize>>,
    params: &[HostArray],
    draw: impl Fn(&mut Legacy, &[f64]) -> f64,
) -> Result<Obj> {
    let mut g = st.borrow_mut();
    let scalars = params.iter().all(|p| p.shape.is_empty());
    let shapes: Vec<&[usize]> = params.iter().map(|p| p.shape.as_slice()).collect();
    let shape = match size {
        None if scalars => {
            let vals: Vec<f64> = params.iter().map(|p| p.data[0]).collect();
            return Ok(Obj::Float(draw(&mut g, &vals)));
        }
        None => broadcast_shapes(&shapes)?,
        Some(s) => {
            let mut all = vec![s.as_slice()];
            all.extend(&shapes);
            if broadcast_shapes(&all)? != s {
                bail!(
                    ValueError,
                    "shape mismatch: objects cannot be broadcast to a single shape"
                );
            }
            s
        }
    };
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut vals = vec![0.0; params.len()];
    for i in 0..n {
        for (v, p) in vals.iter_mut().zip(params) {
            *v = p.data[broadcast_index(&p.shape, &shape, i)];
        }
        out.push(draw(&mut g, &vals));
    }
    float_array(&shape, &out)
}

/// A float parameter, array-like or scalar.
fn param(a: &Args, index: usize, name: &str, default: f64) -> Result<HostArray> {
    match a.opt(Some(index), name) {
        None => Ok(HostArray::scalar(default, Kind::Float64)),
        Some(o) => HostArray::from_obj(&o),
    }
}

/// The shape given as separate integers (`rand(2, 3)`), or None.
fn dims_args(a: &Args, func: &str) -> Result<Option<Vec<usize>>> {
    if let Some((k, _)) = a.kw.first() {
        bail!(
            TypeError,
            "{func}() got an unexpected keyword argument '{k}'"
        );
    }
    if a.pos.is_empty() {
        return Ok(None);
    }
    let dims: Vec<i64> = a.pos.iter().map(to_int).collect::<Result<_>>()?;
    if dims.iter().any(|&d| d < 0) {
        bail!(ValueError, "negative dimensions are not allowed");
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    crate::python::array::check_shape(&shape)?;
    Ok(Some(shape))
}

fn random_sample(st: &State, a: &Args) -> Result<Obj> {
    cont(st, size_arg(a, 0)?, &[], |g, _| g.double())
}

fn rand(st: &State, a: &Args) -> Result<Obj> {
    cont(st, dims_args(a, "rand")?, &[], |g, _| g.double())
}

fn randn(st: &State, a: &Args) -> Result<Obj> {
    cont(st, dims_args(a, "randn")?, &[], |g, _| g.gauss())
}

fn standard_normal(st: &State, a: &Args) -> Result<Obj> {
    cont(st, size_arg(a, 0)?, &[], |g, _| g.gauss())
}

fn normal(st: &State, a: &Args) -> Result<Obj> {
    let loc = param(a, 0, "loc", 0.0)?;
    let scale = param(a, 1, "scale", 1.0)?;
    if scale.data.iter().any(|&s| s < 0.0) {
        bail!(ValueError, "scale < 0");
    }
    cont(st, size_arg(a, 2)?, &[loc, scale], |g, p| {
        p[0] + p[1] * g.gauss()
    })
}

fn uniform(st: &State, a: &Args) -> Result<Obj> {
    let low = param(a, 0, "low", 0.0)?;
    let high = param(a, 1, "high", 1.0)?;
    let shape = broadcast_shapes(&[&low.shape, &high.shape])?;
    let range: Vec<f64> = (0..shape.iter().product())
        .map(|i| {
            high.data[broadcast_index(&high.shape, &shape, i)]
                - low.data[broadcast_index(&low.shape, &shape, i)]
        })
        .collect();
    if !range.iter().all(|r| r.is_finite()) {
        bail!(OverflowError, "Range exceeds valid bounds");
    }
    let range = HostArray {
        shape,
        data: range,
        kind: Kind::Float64,
    };
    cont(st, size_arg(a, 2)?, &[low, range], |g, p| {
        p[0] + p[1] * g.double()
    })
}

fn standard_exponential(st: &State, a: &Args) -> Result<Obj> {
    cont(st, size_arg(a, 0)?, &[], |g, _| g.exponential())
}

fn exponential(st: &State, a: &Args) -> Result<Obj> {
    let scale = param(a, 0, "scale", 1.0)?;
    if scale.data.iter().any(|&s| s < 0.0) {
        bail!(ValueError, "scale < 0");
    }
    cont(st, size_arg(a, 1)?, &[scale], |g, p| p[0] * g.exponential())
}

/// An integer bound of `randint`: an int, or a float truncated as `int()`
/// truncates it.
fn int_bound(o: &Obj) -> Result<i64> {
    let arr = HostArray::from_obj(o)?;
    if !arr.shape.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: randint with array bounds"
        );
    }
    let x = arr.data[0];
    if !x.is_finite() {
        bail!(ValueError, "cannot convert float {x} to integer");
    }
    Ok(x.trunc() as i64)
}

/// `randint`'s dtype: None when not given (the result is then a Python int
/// or an int64 array). NumPy draws 8- and 16-bit integers and bools from
/// shared 32-bit words, which this does not, so those are refused.
fn int_dtype(dtype: Option<Obj>) -> Result<Option<Kind>> {
    let Some(o) = dtype else {
        return Ok(None);
    };
    match super::scalar_types::kind_of_dtype(&o) {
        Some(k @ (Kind::Int64 | Kind::Int32 | Kind::UInt32)) => Ok(Some(k)),
        Some(k @ (Kind::Float32 | Kind::Float64)) => {
            bail!(
                TypeError,
                "Unsupported dtype dtype('{}') for randint",
                k.name()
            )
        }
        Some(k) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: randint with dtype {}",
            k.name()
        ),
        None => bail!(
            NotImplementedError,
            "not supported by shardlab yet: randint with dtype {}",
            crate::python::format::repr_of(&o)
        ),
    }
}

fn randint(st: &State, a: &Args) -> Result<Obj> {
    let first = int_bound(&a.req(Some(0), "low", "randint")?)?;
    let (low, high) = match a.opt(Some(1), "high") {
        Some(h) => (first, int_bound(&h)?),
        None => (0, first),
    };
    let size = size_arg(a, 2)?;
    let kind = int_dtype(a.opt(Some(3), "dtype"))?;
    let (min, max) = match kind {
        Some(Kind::Int32) => (i32::MIN as i64, i32::MAX as i64 + 1),
        Some(Kind::UInt32) => (0, u32::MAX as i64 + 1),
        _ => (i64::MIN, i64::MAX),
    };
    if let Some(k) = kind.filter(|_| low < min) {
        bail!(ValueError, "low is out of bounds for {}", k.name());
    }
    if let Some(k) = kind.filter(|_| high > max) {
        bail!(ValueError, "high is out of bounds for {}", k.name());
    }
    if let Some(s) = &size {
        if s.iter().product::<usize>() == 0 {
            return host_ints(s, &[], kind.unwrap_or(Kind::Int64));
        }
    }
    let top = high as i128 - 1;
    if low as i128 > top {
        bail!(
            ValueError,
            "{}",
            if low == 0 { "high <= 0" } else { "low >= high" }
        );
    }
    let rng = (top - low as i128) as u64;
    let mut g = st.borrow_mut();
    let mut draw = || (low as i128 + g.bounded(rng) as i128) as i64;
    match (size, kind) {
        (None, None) => Ok(Obj::Int(draw())),
        (None, Some(k)) => Ok(super::scalar::NpScalar::obj(k, draw() as f64)),
        (Some(shape), k) => {
            let v: Vec<i64> = (0..shape.iter().product::<usize>())
                .map(|_| draw())
                .collect();
            host_ints(&shape, &v, k.unwrap_or(Kind::Int64))
        }
    }
}

/// A NumPy integer array of `kind`.
fn host_ints(shape: &[usize], data: &[i64], kind: Kind) -> Result<Obj> {
    crate::python::array::check_size(data.len())?;
    Ok(Obj::lib(super::ndarray::NdArray::host_array(HostArray {
        shape: shape.to_vec(),
        data: data.iter().map(|&x| x as f64).collect(),
        kind,
    })))
}

fn tomaxint(st: &State, a: &Args) -> Result<Obj> {
    let mut g = st.borrow_mut();
    match size_arg(a, 0)? {
        None => Ok(Obj::Int(g.positive_int())),
        Some(shape) => {
            let v: Vec<i64> = (0..shape.iter().product::<usize>())
                .map(|_| g.positive_int())
                .collect();
            int_array(&shape, &v)
        }
    }
}

/// `permutation(n)`: a shuffled `arange(n)`.
pub(super) fn permuted_range(g: &mut Legacy, n: i64) -> Vec<i64> {
    let mut v: Vec<i64> = (0..n.max(0)).collect();
    g.shuffle(&mut v);
    v
}

fn permutation(st: &State, a: &Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "permutation")?;
    let mut g = st.borrow_mut();
    if let Obj::Int(_) | Obj::Bool(_) = x {
        let n = to_int(&x)?;
        crate::python::array::check_size(n.max(0) as usize)?;
        let v = permuted_range(&mut g, n);
        return int_array(&[v.len()], &v);
    }
    let arr = HostArray::from_obj(&x)?;
    let Some(&rows) = arr.shape.first() else {
        bail!(IndexError, "x must be an integer or at least 1-dimensional");
    };
    let mut order: Vec<usize> = (0..rows).collect();
    g.shuffle(&mut order);
    let inner = arr.size() / rows.max(1);
    let data: Vec<f64> = order
        .iter()
        .flat_map(|&r| arr.data[r * inner..(r + 1) * inner].iter().copied())
        .collect();
    super::hostfuncs::wrap_host(HostArray { data, ..arr })
}

fn shuffle(st: &State, a: &Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "shuffle")?;
    match &x {
        Obj::List(l) => {
            st.borrow_mut().shuffle(&mut l.borrow_mut());
            Ok(Obj::None)
        }
        Obj::Array(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: shuffling an array in place (arrays here are immutable; x = np.random.permutation(x) draws the same order)"
        ),
        Obj::Lib(_) if super::ndarray::is_ndarray(&x) => {
            // The rows move in the order a permutation of their numbers takes.
            let arr = HostArray::from_obj(&x)?;
            let Some(&rows) = arr.shape.first() else {
                bail!(ValueError, "shuffle of a 0-d array");
            };
            let mut order: Vec<usize> = (0..rows).collect();
            st.borrow_mut().shuffle(&mut order);
            let inner = arr.size() / rows.max(1);
            let data: Vec<f64> = order
                .iter()
                .flat_map(|&r| arr.data[r * inner..(r + 1) * inner].iter().copied())
                .collect();
            let shuffled = super::hostfuncs::wrap_host(HostArray { data, ..arr })?;
            if let Some(n) = x.downcast::<super::ndarray::NdArray>() {
                n.store_obj(&shuffled, "assignment destination is read-only")?;
            }
            Ok(Obj::None)
        }
        other => {
            let n = iterate(other)
                .map_err(|_| {
                    err!(
                        TypeError,
                        "object of type '{}' has no len()",
                        other.type_name()
                    )
                })?
                .len();
            if n < 2 {
                return Ok(Obj::None);
            }
            // NumPy draws the first index before the swap fails.
            st.borrow_mut().bounded(n as u64 - 1);
            bail!(
                TypeError,
                "'{}' object does not support item assignment",
                other.type_name()
            )
        }
    }
}

/// Whether `replace=` asks for draws with replacement (the default).
pub(super) fn replace_arg(a: &Args) -> Result<bool> {
    match a.get(Some(2), "replace") {
        Some(o) => truthy(&o, "replace"),
        None => Ok(true),
    }
}
