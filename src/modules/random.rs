//! `jax.random`: PRNG keys and the samplers of `crate::random`, with the
//! arguments JAX's functions take.
//!
//! Legacy keys (`jax.random.PRNGKey`) are plain `uint32` arrays whose last
//! axis holds the two Threefry words, as in JAX, so they pass through
//! `jax.jit`, `vmap`, `scan` and `shard_map` like any array; a sampler given
//! a traced key draws with [`crate::random::traced`], in equations. Typed
//! keys (`jax.random.key`) are key objects ([`Keys`], type `PRNGKeyArray`)
//! holding the words of a batch of keys; they have the batch shape only and
//! print as JAX prints `key<fry>` arrays. A transformation (`jax.jit`,
//! `vmap`, `pmap`, `cond`, `while_loop`, `fori_loop`, `scan`, `lax.map`)
//! traces a typed key as its key data, `uint32[..., 2]`, remembering which
//! leaves were keys ([`keyed_values`]); inside, the function sees
//! [`TracedKeys`], and keys it returns become typed keys again
//! ([`keyed_objs`]). A vmapped key's batch axes are its data's leading axes.

use rustpython_parser::ast;

use crate::array::{Array, DType};
use crate::error::Result;
use crate::random::{self as rnd, distributions as dist, traced, Key};
use crate::trace::Value;
use crate::{bail, err};

use super::Builder;
use crate::python::array::{array_getitem, to_value};
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

/// A batch of keys.
#[derive(Clone, Debug)]
pub struct Keys {
    /// The keys, row-major over `batch`.
    pub keys: Vec<Key>,
    /// The batch shape (empty for a single key).
    pub batch: Vec<usize>,
    /// A typed key (`jax.random.key`) rather than raw `uint32` data.
    pub typed: bool,
}

impl Object for Keys {
    fn type_name(&self) -> String {
        "PRNGKeyArray".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax._src.random.prng")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let shape = self.shape();
        Ok(Some(match name {
            "shape" => shape_obj(&shape),
            "ndim" => Obj::Int(shape.len() as i64),
            "size" => Obj::Int(shape.iter().product::<usize>() as i64),
            "dtype" => Obj::str(if self.typed { "key<fry>" } else { "uint32" }),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(key_repr(self))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(key_str(self))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(key_items(self))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(key_getitem(self, key))
    }

    fn compare(&self, _: &Obj, op: &ast::CmpOp, other: &Obj, _: bool) -> Option<Result<Obj>> {
        Some(key_compare(self, op, other))
    }
}

/// `keys == other` / `!=` between typed key arrays: whether the key data
/// agree, elementwise over the batch (one side may be a single key).
fn key_compare(keys: &Keys, op: &ast::CmpOp, other: &Obj) -> Result<Obj> {
    let ne = match op {
        ast::CmpOp::Eq => false,
        ast::CmpOp::NotEq => true,
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: ordering comparisons of PRNG keys"
        ),
    };
    let Some(o) = other.downcast::<Keys>() else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: comparing a PRNG key array with a {}",
            other.type_name()
        )
    };
    let (n, m) = (keys.keys.len(), o.keys.len());
    let batch = match (keys.batch == o.batch, n, m) {
        (true, _, _) => keys.batch.clone(),
        (_, 1, _) if keys.batch.is_empty() => o.batch.clone(),
        (_, _, 1) if o.batch.is_empty() => keys.batch.clone(),
        _ => bail!(
            TypeError,
            "Incompatible shapes for broadcasting: shapes={}",
            crate::python::format::repr_of(&Obj::list(vec![
                shape_obj(&keys.batch),
                shape_obj(&o.batch)
            ]))
        ),
    };
    let len = n.max(m);
    let eq = (0..len)
        .map(|i| (keys.keys[i % n].0 == o.keys[i % m].0) != ne)
        .collect();
    Ok(arr(Array::from_bool(&batch, eq)?))
}

impl Keys {
    /// The shape Python sees: the batch shape of typed keys, plus a last
    /// axis of the two words for legacy keys.
    fn shape(&self) -> Vec<usize> {
        let mut shape = self.batch.clone();
        if !self.typed {
            shape.push(2);
        }
        shape
    }
}

fn shape_obj(shape: &[usize]) -> Obj {
    Obj::tuple(shape.iter().map(|&d| Obj::Int(d as i64)).collect())
}

/// The key object for `keys`: a `uint32` array of the words for legacy
/// keys, a `PRNGKeyArray` for typed ones.
pub fn key_obj(keys: Keys) -> Result<Obj> {
    if !keys.typed {
        let (vals, shape) = words(&keys);
        let data = vals.into_iter().map(|w| w as u32).collect();
        return Ok(arr(Array::from_u32(&shape, data)?));
    }
    Ok(Obj::lib(keys))
}

/// Typed keys inside a traced function (`jax.jit` of a function of keys):
/// their key data, a `uint32[..., 2]` value known only when the program
/// runs. `jax.random` draws from it in equations, as from a traced legacy
/// key, and keys derived from it stay typed.
#[derive(Clone, Debug)]
pub struct TracedKeys {
    /// The key data (`jax.random.key_data`).
    pub data: Value,
}

impl Object for TracedKeys {
    fn type_name(&self) -> String {
        "PRNGKeyArray".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax._src.random.prng")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let shape = self.data.shape();
        let batch = &shape[..shape.len().saturating_sub(1)];
        Ok(Some(match name {
            "shape" => shape_obj(batch),
            "ndim" => Obj::Int(batch.len() as i64),
            "size" => Obj::Int(batch.iter().product::<usize>() as i64),
            "dtype" => Obj::str("key<fry>"),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let shape = self.data.shape();
        let batch: Vec<String> = shape[..shape.len().saturating_sub(1)]
            .iter()
            .map(|d| d.to_string())
            .collect();
        // A staged trace (jit, scan, a loop) shows its tracers as
        // `JitTracer(type)`; other traces keep the generic text, as arrays do.
        let staged = match &self.data {
            Value::Traced(t) => crate::trace::tracer_text(t).starts_with("JitTracer("),
            Value::Concrete(_) => false,
        };
        let ty = format!("key<fry>[{}]", batch.join(","));
        Some(if staged {
            format!("JitTracer({ty})")
        } else {
            format!("Traced<{ty}>with<DynamicJaxprTrace>")
        })
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        let n = match self.data.shape().as_slice() {
            [_] => return Some(Err(err!(TypeError, "iteration over a 0-d key array"))),
            s => s[0],
        };
        Some(
            (0..n)
                .map(|r| traced_key_getitem(&self.data, &Obj::Int(r as i64)))
                .collect(),
        )
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(traced_key_getitem(&self.data, key))
    }
}

/// Indexing traced typed keys indexes the batch axes of their key data,
/// which lead; the words' axis stays whole.
fn traced_key_getitem(data: &Value, idx: &Obj) -> Result<Obj> {
    let items: Vec<&Obj> = match idx {
        Obj::Tuple(t) => t.iter().collect(),
        o => vec![o],
    };
    if items.iter().any(|o| matches!(o, Obj::Ellipsis)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: indexing traced PRNG keys with an ellipsis"
        );
    }
    let consumed = items.iter().filter(|o| !matches!(o, Obj::None)).count();
    if consumed + 1 > data.shape().len() {
        bail!(
            IndexError,
            "Too many indices for array: {} non-None/Ellipsis indices for dim {}.",
            consumed,
            data.shape().len() - 1
        );
    }
    typed_key_of(array_getitem(data, idx)?)
}

/// The key data of a typed key (concrete or traced) as a value, or None
/// for anything else.
pub fn typed_key_data(o: &Obj) -> Option<Value> {
    if let Some(t) = o.downcast::<TracedKeys>() {
        return Some(t.data.clone());
    }
    let k = o.downcast::<Keys>()?;
    let (vals, shape) = words(k);
    let data = vals.into_iter().map(|w| w as u32).collect();
    Array::from_u32(&shape, data).ok().map(Value::Concrete)
}

/// Pytree leaves as the values a transformation traces: typed keys enter as
/// their key data, and the mask says which leaves were keys, so that
/// [`keyed_objs`] can wrap them back (JAX traces key arrays as values of a
/// key dtype; shardlab traces their `uint32[..., 2]` data).
pub fn keyed_values(leaves: &[Obj]) -> Result<(Vec<Value>, Vec<bool>)> {
    let mut vals = Vec::with_capacity(leaves.len());
    let mut keys = Vec::with_capacity(leaves.len());
    for l in leaves {
        match typed_key_data(l) {
            Some(data) => {
                vals.push(data);
                keys.push(true);
            }
            None => {
                vals.push(to_value(l)?);
                keys.push(false);
            }
        }
    }
    Ok((vals, keys))
}

/// Values as leaves, the key data of the leaves `keys` marks wrapped back
/// into typed keys.
pub fn keyed_objs(vals: &[Value], keys: &[bool]) -> Result<Vec<Obj>> {
    vals.iter()
        .enumerate()
        .map(|(i, v)| {
            if keys.get(i).copied().unwrap_or(false) {
                typed_key_of(v.clone())
            } else {
                Ok(Obj::Array(v.clone()))
            }
        })
        .collect()
}

/// The typed key over key data `data`: a key object when it is concrete, a
/// [`TracedKeys`] under a trace.
pub fn typed_key_of(data: Value) -> Result<Obj> {
    match data {
        Value::Concrete(a) => {
            let keys = keys_of(&arr(a)).ok_or_else(|| {
                err!(
                    TypeError,
                    "key data must be uint32 with a trailing axis of 2"
                )
            })?;
            key_obj(Keys {
                typed: true,
                ..keys
            })
        }
        data => Ok(Obj::lib(TracedKeys { data })),
    }
}

/// A key known only when the program runs: a traced legacy `uint32` array,
/// or typed keys in a traced function (true in the second field).
pub(crate) fn traced_key(o: &Obj) -> Option<(Value, bool)> {
    match o {
        Obj::Array(v @ Value::Traced(_)) => Some((v.clone(), false)),
        _ => o.downcast::<TracedKeys>().map(|t| (t.data.clone(), true)),
    }
}

/// A traced key for sampler `func`, which takes a single key: JAX's error
/// for a batch of typed keys (raw key data is checked where it is drawn from).
fn traced_single(o: &Obj, func: &str) -> Result<Option<(Value, bool)>> {
    let Some((v, typed)) = traced_key(o) else {
        return Ok(None);
    };
    let shape = v.shape();
    if typed && shape.len() > 1 {
        bail!(
            ValueError,
            "{func} accepts a single key, but was given a key array of shape {} != (). Use jax.vmap for batching.",
            crate::python::format::repr_of(&shape_obj(&shape[..shape.len() - 1]))
        );
    }
    Ok(Some((v, typed)))
}

/// The key a sampler draws from in equations, or None to draw on the host:
/// a traced key, or, while a trace stages a program (jit, make_jaxpr,
/// eval_shape, map bodies), a concrete key's data too, so that the draw is
/// part of the program and computed only when it runs, as in JAX.
pub(crate) fn staged_single(o: &Obj, func: &str) -> Result<Option<(Value, bool)>> {
    if let Some(t) = traced_single(o, func)? {
        return Ok(Some(t));
    }
    if !crate::trace::staging() {
        return Ok(None);
    }
    let Some(keys) = keys_of(o) else {
        return Ok(None);
    };
    let key = single_key(o, func)?;
    let data = Array::from_u32(&[2], key.data().to_vec())?;
    Ok(Some((Value::Concrete(data), keys.typed)))
}

/// Derived keys in the kind of their parent: typed stay typed.
fn derived(data: Value, typed: bool) -> Result<Obj> {
    if typed {
        typed_key_of(data)
    } else {
        Ok(Obj::Array(data))
    }
}

/// A single legacy or typed key object.
pub fn one_key(k: Key, typed: bool) -> Result<Obj> {
    key_obj(Keys {
        keys: vec![k],
        batch: vec![],
        typed,
    })
}

/// The keys an object holds: a key object, or raw key data given as a
/// uint32 (or int32) array whose last axis has length 2.
pub fn keys_of(o: &Obj) -> Option<Keys> {
    match o {
        Obj::Lib(_) => o.downcast::<Keys>().cloned(),
        Obj::Array(Value::Concrete(a)) if a.dtype().is_int() => {
            let shape = a.shape();
            if shape.last() != Some(&2) {
                return None;
            }
            let words = a.to_words();
            Some(Keys {
                keys: words.chunks(2).map(|c| Key([c[0], c[1]])).collect(),
                batch: shape[..shape.len() - 1].to_vec(),
                typed: false,
            })
        }
        _ => None,
    }
}

/// The single key a sampler was given, or JAX's error.
pub fn single_key(o: &Obj, func: &str) -> Result<Key> {
    let Some(k) = keys_of(o) else {
        if traced_key(o).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.random.{func} with a traced key"
            );
        }
        bail!(
            TypeError,
            "{func} requires a PRNG key, got {}",
            crate::python::format::repr_of(o)
        );
    };
    if !k.batch.is_empty() {
        let mut shape = k.batch.clone();
        if !k.typed {
            shape.push(2);
        }
        bail!(
            ValueError,
            "{func} accepts a single key, but was given a key array of shape {} != (). Use jax.vmap for batching.",
            crate::python::format::repr_of(&shape_obj(&shape))
        );
    }
    Ok(k.keys[0])
}

fn key_getitem(keys: &Keys, idx: &Obj) -> Result<Obj> {
    let n = keys.keys.len();
    let positions = Value::Concrete(Array::from_i32(
        &keys.batch,
        (0..n as i32).collect::<Vec<_>>(),
    )?);
    let consumed = match idx {
        Obj::Tuple(t) => t
            .iter()
            .filter(|o| !matches!(o, Obj::None | Obj::Ellipsis))
            .count(),
        Obj::None | Obj::Ellipsis => 0,
        _ => 1,
    };
    if consumed > keys.batch.len() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: indexing the words of a PRNG key"
        );
    }
    // Which keys an index picks is host bookkeeping on concrete positions:
    // under a trace it must not become equations.
    let traced_index = match idx {
        Obj::Tuple(t) => t.iter().any(|o| matches!(o, Obj::Array(Value::Traced(_)))),
        o => matches!(o, Obj::Array(Value::Traced(_))),
    };
    let picked = if traced_index {
        array_getitem(&positions, idx)?
    } else {
        crate::trace::untraced(|| array_getitem(&positions, idx))?
    };
    let picked = picked.concrete("key indexing")?.clone();
    let sel: Vec<Key> = picked
        .i32_data()?
        .iter()
        .map(|&p| keys.keys[p as usize])
        .collect();
    key_obj(Keys {
        keys: sel,
        batch: picked.shape().to_vec(),
        typed: keys.typed,
    })
}

/// Iterating a batch of keys gives its rows.
fn key_items(keys: &Keys) -> Result<Vec<Obj>> {
    if keys.batch.is_empty() {
        if keys.typed {
            bail!(TypeError, "iteration over a 0-d key array");
        }
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: iterating over the words of a PRNG key"
        );
    }
    let n = keys.batch[0];
    (0..n)
        .map(|r| key_getitem(keys, &Obj::Int(r as i64)))
        .collect()
}

/// NumPy's layout of an integer array: right-aligned to a common width, rows
/// wrapped at 75 columns, nested brackets indented under `indent` columns.
fn format_ints(vals: &[u64], shape: &[usize], sep: &str, indent: usize) -> String {
    let width = vals.iter().map(|v| v.to_string().len()).max().unwrap_or(1);
    fn rec(
        vals: &[u64],
        shape: &[usize],
        sep: &str,
        indent: usize,
        depth: usize,
        width: usize,
        closing: usize,
    ) -> String {
        if shape.is_empty() {
            return format!("{:>width$}", vals.first().copied().unwrap_or(0));
        }
        let n = shape[0];
        let inner: usize = shape[1..].iter().product();
        let mut s = String::from("[");
        if shape.len() == 1 {
            let hang = " ".repeat(indent + depth + 1);
            let mut line = String::new();
            let start = indent + depth + 1;
            for (i, v) in vals.iter().enumerate().take(n) {
                let word = format!("{v:>width$}");
                let limit = if i + 1 == n {
                    75usize.saturating_sub(closing + 1)
                } else {
                    75
                };
                let cur = if line.is_empty() { start } else { line.len() };
                if cur + word.len() > limit && !line.trim().is_empty() {
                    s.push_str(line.trim_end());
                    s.push('\n');
                    line = hang.clone();
                }
                if line.is_empty() {
                    line = " ".repeat(start);
                }
                line.push_str(&word);
                if i + 1 < n {
                    line.push_str(sep);
                }
            }
            s.push_str(&line[start.min(line.len())..]);
            s.push(']');
            return s;
        }
        let gap = format!(
            "{}{}{}",
            sep.trim_end(),
            "\n".repeat(shape.len() - 1),
            " ".repeat(indent + depth + 1)
        );
        for i in 0..n {
            if i > 0 {
                s.push_str(&gap);
            }
            let last = if i + 1 == n { closing + 1 } else { 0 };
            s.push_str(&rec(
                &vals[i * inner..(i + 1) * inner],
                &shape[1..],
                sep,
                indent,
                depth + 1,
                width,
                last,
            ));
        }
        s.push(']');
        s
    }
    rec(vals, shape, sep, indent, 0, width, 0)
}

fn words(keys: &Keys) -> (Vec<u64>, Vec<usize>) {
    let mut shape = keys.batch.clone();
    shape.push(2);
    let vals = keys
        .keys
        .iter()
        .flat_map(|k| [k.0[0] as u64, k.0[1] as u64])
        .collect();
    (vals, shape)
}

/// `repr(key)`.
fn key_repr(keys: &Keys) -> String {
    let (vals, shape) = words(keys);
    if keys.typed {
        return format!(
            "Array({}, dtype=key<fry>) overlaying:\n{}",
            crate::python::format::repr_of(&shape_obj(&keys.batch)),
            format_ints(&vals, &shape, " ", 0)
        );
    }
    format!(
        "Array({}, dtype=uint32)",
        format_ints(&vals, &shape, ", ", 6)
    )
}

/// `str(key)`.
fn key_str(keys: &Keys) -> String {
    if keys.typed {
        return key_repr(keys);
    }
    let (vals, shape) = words(keys);
    format_ints(&vals, &shape, " ", 0)
}

pub(super) fn shape_arg(o: Option<Obj>) -> Result<Vec<usize>> {
    match o {
        None | Some(Obj::None) => Ok(vec![]),
        Some(o) => super::numpy::shape_of(&o),
    }
}

pub(super) fn float_dtype(a: &Args, index: usize, func: &str) -> Result<()> {
    if let Some(d) = a.opt(Some(index), "dtype") {
        if super::numpy::dtype_of(&d)? != DType::F32 {
            bail!(
                ValueError,
                "dtype argument to `{func}` must be a float dtype, got {}",
                crate::python::format::str_of(&d)
            );
        }
    }
    Ok(())
}

/// A scalar argument (a Python number or a 0-d concrete array).
fn scalar(o: &Obj, what: &str) -> Result<f64> {
    match o {
        Obj::Array(Value::Concrete(a)) if a.size() == 1 => Ok(a.get_f64(0)),
        Obj::Array(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random with a non-scalar or traced {what}"
        ),
        o => o
            .as_number()
            .ok_or_else(|| err!(TypeError, "{what} must be a number, got {}", o.type_name())),
    }
}

fn arr(a: Array) -> Obj {
    Obj::Array(Value::Concrete(a))
}

fn split(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "split")?;
    let shape = match a.get(Some(1), "num") {
        None => vec![2],
        Some(o) => shape_arg(Some(o))?,
    };
    // Splitting a concrete key stays on the host even while a program is
    // staged: it is cheap, and the keys it makes stay concrete for the
    // draws that only the host computes (permutation, choice).
    if let Some((v, typed)) = traced_single(&k, "split")? {
        return derived(traced::split(&v, &shape)?, typed);
    }
    let typed = keys_of(&k).map(|k| k.typed).unwrap_or(false);
    let key = single_key(&k, "split")?;
    let n: usize = shape.iter().product();
    key_obj(Keys {
        keys: key.split(n)?,
        batch: shape,
        typed,
    })
}

fn fold_in(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "fold_in")?;
    let data = a.req(Some(1), "data", "fold_in")?;
    let traced_data = matches!(data, Obj::Array(Value::Traced(_)));
    if traced_data {
        let (key, typed) = match traced_key(&k) {
            Some(t) => t,
            None => match typed_key_data(&k) {
                Some(d) => (d, true),
                None => (to_value(&k)?, false),
            },
        };
        return derived(traced::fold_in(&key, &to_value(&data)?)?, typed);
    }
    let data = scalar(&data, "data")? as i64 as u32;
    // As with split, a concrete key folds on the host.
    if let Some((key, typed)) = traced_single(&k, "fold_in")? {
        let data = Value::Concrete(Array::from_u32(&[], vec![data])?);
        return derived(traced::fold_in(&key, &data)?, typed);
    }
    let typed = keys_of(&k).map(|k| k.typed).unwrap_or(false);
    let key = single_key(&k, "fold_in")?;
    one_key(key.fold_in(data), typed)
}

fn key_data(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "keys", "key_data")?;
    if let Some((v, _)) = traced_key(&k) {
        return Ok(Obj::Array(v));
    }
    let keys = keys_of(&k).ok_or_else(|| {
        err!(
            TypeError,
            "key_data requires a PRNG key array, got {}",
            k.type_name()
        )
    })?;
    let (words, shape) = words(&keys);
    Ok(arr(Array::from_u32(
        &shape,
        words.into_iter().map(|w| w as u32).collect(),
    )?))
}

fn wrap_key_data(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key_bits_array", "wrap_key_data")?;
    // shardlab's keys are threefry2x32 keys, JAX's default implementation.
    let threefry = |o: &Obj| {
        matches!(
            crate::python::format::str_of(o).as_str(),
            "key<fry>" | "threefry2x32"
        )
    };
    for name in ["impl", "dtype"] {
        if let Some(o) = a.opt(None, name).filter(|o| !threefry(o)) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.random.wrap_key_data({name}={})",
                crate::python::format::repr_of(&o)
            );
        }
    }
    if let Obj::Array(v @ Value::Traced(_)) = &k {
        if v.dtype() != DType::U32 || v.shape().last() != Some(&2) {
            bail!(
                TypeError,
                "wrap_key_data requires uint32 data with a trailing axis of 2"
            );
        }
        return typed_key_of(v.clone());
    }
    let mut keys = keys_of(&k).ok_or_else(|| {
        err!(
            TypeError,
            "wrap_key_data requires uint32 data with a trailing axis of 2"
        )
    })?;
    keys.typed = true;
    key_obj(keys)
}

fn seed_of(a: &Args, func: &str) -> Result<i64> {
    let s = a.req(Some(0), "seed", func)?;
    match &s {
        Obj::Int(i) => Ok(*i),
        Obj::Bool(b) => Ok(*b as i64),
        Obj::Array(Value::Concrete(x)) if x.size() == 1 && x.dtype() != DType::F32 => {
            Ok(x.get_f64(0) as i64)
        }
        Obj::Array(Value::Traced(_)) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {func} with a traced seed"
        ),
        o => bail!(
            TypeError,
            "{func} seed must be an integer, got {}",
            o.type_name()
        ),
    }
}

fn normal(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "normal")?;
    let shape = shape_arg(a.get(Some(1), "shape"))?;
    float_dtype(&a, 2, "normal")?;
    if let Some((v, _)) = staged_single(&k, "normal")? {
        return Ok(Obj::Array(traced::normal(&v, &shape)?));
    }
    let key = single_key(&k, "normal")?;
    Ok(arr(dist::normal(key, &shape)?))
}

fn uniform(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "uniform")?;
    let shape = shape_arg(a.get(Some(1), "shape"))?;
    float_dtype(&a, 2, "uniform")?;
    let lo = match a.get(Some(3), "minval") {
        Some(o) => scalar(&o, "minval")?,
        None => 0.0,
    };
    let hi = match a.get(Some(4), "maxval") {
        Some(o) => scalar(&o, "maxval")?,
        None => 1.0,
    };
    if let Some((v, _)) = staged_single(&k, "uniform")? {
        return Ok(Obj::Array(traced::uniform(
            &v, &shape, lo as f32, hi as f32,
        )?));
    }
    let key = single_key(&k, "uniform")?;
    Ok(arr(dist::uniform(key, &shape, lo as f32, hi as f32)?))
}

/// `jax.random.gumbel(key, shape, dtype, mode)` in its default "low" mode:
/// `-log(-log(u))` for `u` uniform on `[tiny, 1)`, tiny being float32's
/// smallest normal number (so `log(u)` stays finite).
fn gumbel(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "gumbel")?;
    let shape = shape_arg(a.get(Some(1), "shape"))?;
    float_dtype(&a, 2, "gumbel")?;
    match a.opt(Some(3), "mode") {
        None => {}
        Some(Obj::Str(m)) if &*m == "low" => {}
        Some(Obj::Str(m)) if &*m == "high" || &*m == "highest" => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random.gumbel with mode='{m}'"
        ),
        Some(m) => bail!(
            ValueError,
            "Must provide valid mode for gumbel got: {}",
            crate::python::format::str_of(&m)
        ),
    }
    let src = super::random_dists::Source::of(&k, "gumbel")?;
    Ok(Obj::Array(super::random_dists::gumbel_value(&src, &shape)?))
}

fn truncated_normal(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "truncated_normal")?;
    let lower = scalar(&a.req(Some(1), "lower", "truncated_normal")?, "lower")? as f32;
    let upper = scalar(&a.req(Some(2), "upper", "truncated_normal")?, "upper")? as f32;
    let shape = shape_arg(a.get(Some(3), "shape"))?;
    float_dtype(&a, 4, "truncated_normal")?;
    if let Some((v, _)) = staged_single(&k, "truncated_normal")? {
        // Its uniform draw spans no power of two, which only a staged
        // program computes with XLA's rounding.
        if !crate::trace::staging() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.random.truncated_normal with a traced key outside jax.jit"
            );
        }
        return Ok(Obj::Array(traced::truncated_normal(
            &v, lower, upper, &shape,
        )?));
    }
    let key = single_key(&k, "truncated_normal")?;
    Ok(arr(dist::truncated_normal(key, lower, upper, &shape)?))
}

fn bernoulli(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "bernoulli")?;
    let p = match a.get(Some(1), "p") {
        Some(o) => scalar(&o, "p")?,
        None => 0.5,
    };
    let shape = shape_arg(a.get(Some(2), "shape"))?;
    if let Some((v, _)) = staged_single(&k, "bernoulli")? {
        return Ok(Obj::Array(traced::bernoulli(&v, p as f32, &shape)?));
    }
    let key = single_key(&k, "bernoulli")?;
    Ok(arr(dist::bernoulli(key, p as f32, &shape)?))
}

fn randint(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "randint")?;
    let shape = shape_arg(Some(a.req(Some(1), "shape", "randint")?))?;
    let lo = scalar(&a.req(Some(2), "minval", "randint")?, "minval")?;
    let hi = scalar(&a.req(Some(3), "maxval", "randint")?, "maxval")?;
    if let Some(d) = a.opt(Some(4), "dtype") {
        let dtype = super::numpy::dtype_of(&d)?;
        if dtype == DType::U32 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.random.randint with dtype uint32"
            );
        }
        if dtype != DType::I32 {
            bail!(
                ValueError,
                "dtype argument to `randint` must be an int dtype, got {}",
                crate::python::format::str_of(&d)
            );
        }
    }
    let clamp = |v: f64| v.clamp(i32::MIN as f64, i32::MAX as f64) as i32;
    // JAX clips the bounds to the dtype's range; a maxval beyond it still
    // allows the largest value.
    let (lo, hi) = (clamp(lo), hi);
    if let Some((v, _)) = staged_single(&k, "randint")? {
        let top = if hi > i32::MAX as f64 {
            i32::MAX
        } else {
            clamp(hi)
        };
        return Ok(Obj::Array(traced::randint(&v, &shape, lo, top)?));
    }
    let key = single_key(&k, "randint")?;
    if hi > i32::MAX as f64 {
        let span_top = i32::MAX;
        let r = dist::randint(key, &shape, lo, span_top)?;
        return Ok(arr(r));
    }
    Ok(arr(dist::randint(key, &shape, lo, clamp(hi))?))
}

fn permutation(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "permutation")?, "permutation")?;
    let x = a.req(Some(1), "x", "permutation")?;
    if let Some(ax) = a.opt(Some(2), "axis") {
        if to_int(&ax)? != 0 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.random.permutation with axis != 0"
            );
        }
    }
    match &x {
        Obj::Int(n) => {
            if *n < 0 {
                return Ok(arr(Array::from_i32(&[0], vec![])?));
            }
            Ok(arr(dist::permutation(key, *n as usize)?))
        }
        other => match to_value(other)? {
            Value::Concrete(c) => Ok(arr(dist::permutation_array(key, &c)?)),
            // The rows' order depends on the key and the length only: a
            // traced array is gathered in that order.
            v => {
                let n = v.shape().first().copied().unwrap_or(0);
                let order = Value::Concrete(dist::permutation(key, n)?);
                Ok(Obj::Array(crate::ops::take(&v, &order, 0)?))
            }
        },
    }
}

fn choice(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "choice")?, "choice")?;
    let x = a.req(Some(1), "a", "choice")?;
    let shape = shape_arg(a.get(Some(2), "shape"))?;
    let replace = match a.get(Some(3), "replace") {
        Some(o) => crate::python::ops::truthy(&o, "replace")?,
        None => true,
    };
    if a.opt(Some(4), "p").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random.choice with p"
        );
    }
    match &x {
        Obj::Int(n) => {
            if *n < 0 {
                bail!(
                    ValueError,
                    "a must be a positive integer or at least 1-dimensional"
                );
            }
            Ok(arr(dist::choice(key, *n as usize, &shape, replace)?))
        }
        other => match to_value(other)? {
            Value::Concrete(c) => Ok(arr(dist::choice_array(key, &c, &shape, replace)?)),
            v => {
                let n = v.shape().first().copied().unwrap_or(0);
                let picked = Value::Concrete(dist::choice(key, n, &shape, replace)?);
                Ok(Obj::Array(crate::ops::take(&v, &picked, 0)?))
            }
        },
    }
}

/// The `jax.random` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.random");
    b.func("PRNGKey", |_, a| {
        one_key(Key::from_seed(seed_of(&a, "PRNGKey")?), false)
    });
    b.func("key", |_, a| {
        one_key(Key::from_seed(seed_of(&a, "key")?), true)
    });
    b.func("key_data", key_data);
    b.func("wrap_key_data", wrap_key_data);
    b.func("split", split);
    b.func("fold_in", fold_in);
    // A key is a value here (nothing consumes it), so its clone is itself.
    b.func("clone", |_, a| {
        let k = a.req(Some(0), "key", "clone")?;
        if keys_of(&k).is_none() && traced_key(&k).is_none() {
            bail!(
                TypeError,
                "clone requires a PRNG key, got {}",
                crate::python::format::repr_of(&k)
            );
        }
        Ok(k)
    });
    b.func("normal", normal);
    b.func("uniform", uniform);
    b.func("gumbel", gumbel);
    b.func("truncated_normal", truncated_normal);
    b.func("bernoulli", bernoulli);
    b.func("randint", randint);
    b.func("permutation", permutation);
    b.func("choice", choice);
    super::random_dists::register(&mut b);
    super::random_gamma::register(&mut b);
    b.func("bits", |_, a| {
        let k = a.req(Some(0), "key", "bits")?;
        let shape = shape_arg(a.get(Some(1), "shape"))?;
        if let Some(d) = a.opt(Some(2), "dtype") {
            if super::numpy::dtype_of(&d)? != DType::U32 {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: jax.random.bits with dtype {}",
                    crate::python::format::str_of(&d)
                );
            }
        }
        if let Some((v, _)) = staged_single(&k, "bits")? {
            return Ok(Obj::Array(traced::random_bits(&v, &shape)?));
        }
        let key = single_key(&k, "bits")?;
        Ok(arr(Array::from_u32(
            &shape,
            rnd::random_bits(key, &shape)?,
        )?))
    });
    b.build()
}
