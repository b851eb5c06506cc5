//! `nnx.Rngs` and `nnx.RngStream` as Flax 0.12.8 has them.
//!
//! An `Rngs` is an nnx node whose attributes are `RngStream`s, one per
//! stream name. A stream holds its `tag`, an `RngKey` variable (a typed key
//! or a batch of them) and an `RngCount` variable (`uint32` counters of the
//! key's shape). Calling a stream returns `fold_in(key, count)` and counts
//! up; a name an `Rngs` lacks falls back to its `default` stream. Because
//! streams, keys and counts are ordinary nnx nodes and variables, they show
//! in `nnx.state`, `nnx.split` and `nnx.display` exactly as Flax shows them.
//! The stream methods (`rngs.normal(shape)`, `rngs.params.uniform(...)`)
//! call the `jax.random` function of that name with the next key.

use super::*;
use crate::modules::std::warnings::Place;

use super::super::random::{key_obj, typed_key_of, Keys};

/// The `uint32` counters of a stream, an array of the key's shape. JAX
/// prints them as `Array(0, dtype=uint32)`; they only count and fold in.
#[derive(Clone, Debug)]
pub struct Counts {
    /// Row-major counters.
    pub data: Vec<u32>,
    /// The key batch shape.
    pub shape: Vec<usize>,
}

impl Object for Counts {
    fn type_name(&self) -> String {
        "ArrayImpl".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jaxlib._jax")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let dims = || Obj::tuple(self.shape.iter().map(|&d| Obj::Int(d as i64)).collect());
        Ok(Some(match name {
            "shape" => dims(),
            "ndim" => Obj::Int(self.shape.len() as i64),
            "size" => Obj::Int(self.data.len() as i64),
            "dtype" => Obj::str("uint32"),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("Array({}, dtype=uint32)", self.text(", ")))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(self.text(" "))
    }

    /// The uint32 array JAX holds: what `jax.jit` and arithmetic see.
    fn array(&self, _: &Obj) -> Option<Obj> {
        let a = crate::array::Array::from_u32(&self.shape, self.data.clone()).ok()?;
        Some(Obj::Array(Value::Concrete(a)))
    }
}

impl Counts {
    /// The counts a stream's `RngCount` holds: these objects, or the
    /// concrete uint32 array a JAX function returned in their place.
    fn of(o: &Obj) -> Option<Counts> {
        if let Some(c) = o.downcast::<Counts>() {
            return Some(c.clone());
        }
        match o {
            Obj::Array(Value::Concrete(a)) => Some(Counts {
                data: a.u32_data().ok()?.to_vec(),
                shape: a.shape().to_vec(),
            }),
            _ => None,
        }
    }
}

impl Counts {
    fn text(&self, sep: &str) -> String {
        if self.shape.is_empty() {
            return self.data.first().copied().unwrap_or(0).to_string();
        }
        let items: Vec<String> = self.data.iter().map(|c| c.to_string()).collect();
        if self.shape.len() == 1 {
            return format!("[{}]", items.join(sep));
        }
        // Counts stay far below 2**31, so an int32 array prints the same
        // digits in the same layout.
        let data = self.data.iter().map(|&c| c as i32).collect();
        match crate::array::Array::from_i32(&self.shape, data) {
            Ok(a) if sep == " " => crate::python::format::array_str(&Value::Concrete(a)),
            Ok(a) => {
                let r = crate::python::format::array_repr(&Value::Concrete(a));
                let body = r.trim_start_matches("Array(");
                body.rsplit_once(", dtype=int32")
                    .map_or(body.to_string(), |(b, _)| b.to_string())
            }
            Err(_) => format!("<uint32 array of shape {:?}>", self.shape),
        }
    }
}

/// The nnx classes of streams and their variables.
#[derive(Clone)]
pub(super) struct RngClasses {
    pub rngs: Rc<Class>,
    pub stream: Rc<Class>,
    pub rng_state: Rc<Class>,
    pub key: Rc<Class>,
    pub count: Rc<Class>,
}

/// The `jax.random` samplers shardlab has, offered as stream methods.
const SAMPLERS: [&str; 9] = [
    "normal",
    "gumbel",
    "uniform",
    "truncated_normal",
    "bernoulli",
    "randint",
    "permutation",
    "choice",
    "bits",
];

/// Samplers Flax offers as stream methods that `jax.random` in shardlab
/// does not have yet.
const MISSING_SAMPLERS: [&str; 11] = [
    "beta",
    "cauchy",
    "dirichlet",
    "exponential",
    "gamma",
    "categorical",
    "laplace",
    "logistic",
    "poisson",
    "multivariate_normal",
    "orthogonal",
];

fn variable_of(class: &Rc<Class>, value: Obj, tag: &str) -> Obj {
    instance(
        class,
        vec![("value".into(), value), ("tag".into(), Obj::str(tag))],
    )
}

/// A new `RngStream` with `keys` and zero counts.
fn new_stream(c: &RngClasses, keys: Keys, tag: &str) -> Result<Obj> {
    let counts = Counts {
        data: vec![0; keys.keys.len()],
        shape: keys.batch.clone(),
    };
    stream_of(c, key_obj(keys)?, counts, tag)
}

/// A new `RngStream` from a single traced key (a key made or passed in a
/// jitted function) with a zero count: its draws fold the count into the
/// key in equations.
fn new_traced_stream(c: &RngClasses, key: Obj, tag: &str) -> Result<Obj> {
    let counts = Counts {
        data: vec![0],
        shape: vec![],
    };
    stream_of(c, key, counts, tag)
}

/// A new `RngStream` from traced key data of shape `batch + [2]` with
/// zero counts of shape `batch`: what forking, splitting or broadcasting a
/// stream gives inside a trace.
fn new_batched_traced_stream(c: &RngClasses, data: Value, tag: &str) -> Result<Obj> {
    let shape = data.shape();
    let batch = shape[..shape.len().saturating_sub(1)].to_vec();
    let counts = Counts {
        data: vec![0; batch.iter().product()],
        shape: batch,
    };
    stream_of(c, typed_key_of(data)?, counts, tag)
}

/// The traced single key `o` holds, as a typed key object, or None.
fn traced_stream_key(o: &Obj) -> Result<Option<Obj>> {
    match crate::modules::random::traced_key(o) {
        Some((data, _)) if data.shape() == [2] => Ok(Some(typed_key_of(data)?)),
        _ => Ok(None),
    }
}

fn stream_of(c: &RngClasses, key: Obj, counts: Counts, tag: &str) -> Result<Obj> {
    Ok(instance(
        &c.stream,
        vec![
            ("tag".into(), Obj::str(tag)),
            ("key".into(), variable_of(&c.key, key, tag)),
            ("count".into(), variable_of(&c.count, Obj::lib(counts), tag)),
        ],
    ))
}

/// The keys a stream starts from: an int seed, a typed key or raw key data.
pub(super) fn stream_keys(o: &Obj) -> Result<Keys> {
    if let Some(mut k) = keys_of(o) {
        k.typed = true;
        return Ok(k);
    }
    match o {
        Obj::Int(_) | Obj::Bool(_) => Ok(Keys {
            keys: vec![Key::from_seed(to_int(o)?)],
            batch: vec![],
            typed: true,
        }),
        Obj::Array(_) => Ok(Keys {
            keys: vec![Key::from_seed(to_int(o)?)],
            batch: vec![],
            typed: true,
        }),
        other => bail!(
            ValueError,
            "Invalid rng value: {}, expected a jax.Array of jax.dtypes.prng_key sub-dtype",
            repr_of(other)
        ),
    }
}

pub(super) fn var_slot(stream: &Instance, name: &str) -> Result<Rc<Instance>> {
    match iattr(stream, name) {
        Some(Obj::Instance(v)) if is_variable(&v) => Ok(v),
        _ => bail!(TypeError, "RngStream has no {name} variable"),
    }
}

/// `stream()`: `fold_in(key, count)` for every key, counting up.
pub(super) fn stream_next(stream: &Instance) -> Result<Obj> {
    let (kv, cv) = (var_slot(stream, "key")?, var_slot(stream, "count")?);
    // Inside a JAX transformation that the stream was passed through
    // (`jax.jit(model)`), its key and count are traced.
    let traced = || {
        err!(
            NotImplementedError,
            "not supported by shardlab yet: drawing from an nnx.Rngs stream whose key or count is traced"
        )
    };
    let key = iattr(&kv, "value").unwrap_or(Obj::None);
    if let Some(Obj::Array(count @ Value::Traced(_))) = iattr(&cv, "value") {
        return traced_count_next(&cv, &key, &count).ok_or_else(traced)?;
    }
    let counts = iattr(&cv, "value")
        .as_ref()
        .and_then(Counts::of)
        .ok_or_else(traced)?;
    if let (Some((data, _)), [count]) = (
        crate::modules::random::traced_key(&key),
        counts.data.as_slice(),
    ) {
        let count = Value::Concrete(crate::array::Array::from_u32(&[], vec![*count])?);
        let folded = crate::random::traced::fold_in(&data, &count)?;
        let next = Counts {
            data: vec![count_after(counts.data[0])],
            shape: counts.shape.clone(),
        };
        set_iattr(&cv, "value", Obj::lib(next));
        return typed_key_of(folded);
    }
    let keys = keys_of(&key).ok_or_else(traced)?;
    if !keys.batch.is_empty() {
        // Flax folds the count into the key with `jax.random.fold_in`,
        // which takes one key: a split stream draws inside a vmap only.
        bail!(
            ValueError,
            "fold_in accepts a single key, but was given a key array of shape {} != (). Use jax.vmap for batching.",
            repr_of(&Obj::tuple(keys.batch.iter().map(|&d| Obj::Int(d as i64)).collect()))
        );
    }
    let folded: Vec<Key> = keys
        .keys
        .iter()
        .zip(&counts.data)
        .map(|(k, &c)| crate::random::fold_in(*k, c))
        .collect();
    let next = Counts {
        data: counts.data.iter().map(|&c| count_after(c)).collect(),
        shape: counts.shape.clone(),
    };
    set_iattr(&cv, "value", Obj::lib(next));
    key_obj(Keys {
        keys: folded,
        batch: keys.batch,
        typed: true,
    })
}

/// The next key of a stream whose count is traced (its state went into
/// `jax.jit` as arrays): `fold_in(key, count)` in equations, the count
/// written back as `count + 1`. None when the key or count is not a single
/// one (a split stream), which only a vmap draws from.
fn traced_count_next(cv: &Instance, key: &Obj, count: &Value) -> Option<Result<Obj>> {
    if !count.shape().is_empty() || count.dtype() != crate::array::DType::U32 {
        return None;
    }
    let data = match crate::modules::random::traced_key(key) {
        Some((data, _)) => data,
        None => {
            let keys = keys_of(key)?;
            let [k] = keys.keys.as_slice() else {
                return None;
            };
            match crate::array::Array::from_u32(&[2], k.data().to_vec()) {
                Ok(a) => Value::Concrete(a),
                Err(e) => return Some(Err(e)),
            }
        }
    };
    if data.shape() != [2] {
        return None;
    }
    Some((|| {
        let folded = crate::random::traced::fold_in(&data, count)?;
        let one = crate::ops::scalar(1.0, crate::array::DType::U32);
        set_iattr(cv, "value", Obj::Array(crate::ops::add(count, &one)?));
        typed_key_of(folded)
    })())
}

/// The count after a draw: uint32, wrapping.
fn count_after(c: u32) -> u32 {
    c.wrapping_add(1)
}

pub(super) fn is_stream(o: &Obj) -> Option<Rc<Instance>> {
    match o {
        Obj::Instance(i) if i.class.name == "RngStream" => Some(i.clone()),
        _ => None,
    }
}

/// The stream `name` of an `Rngs`, or its `default` stream.
fn get_stream(rngs: &Instance, name: &str, kind: crate::error::ErrorKind) -> Result<Rc<Instance>> {
    if let Some(s) = iattr(rngs, name).as_ref().and_then(is_stream) {
        return Ok(s);
    }
    if let Some(s) = iattr(rngs, "default").as_ref().and_then(is_stream) {
        return Ok(s);
    }
    Err(crate::error::Error::new(
        kind,
        format!("No RngStream named '{name}' found in Rngs."),
    ))
}

/// The next key of stream `name` of `rngs` (an `nnx.Rngs` or a stream).
pub(super) fn next_key_obj(rngs: &Obj, name: &str) -> Result<Obj> {
    match rngs {
        Obj::Instance(i) if i.class.name == "RngStream" => stream_next(i),
        Obj::Instance(i) if iattr(i, "default").is_some() || is_rngs(i) => stream_next(
            &*get_stream(i, name, crate::error::ErrorKind::AttributeError)?,
        ),
        other => bail!(
            TypeError,
            "rngs must be an nnx.Rngs, got {}",
            other.type_name()
        ),
    }
}

fn is_rngs(i: &Instance) -> bool {
    marked(i, "__nnx_rngs__")
}

/// The key a method of an `Rngs` (its `default` stream) or of a stream draws.
fn method_key(me: &Instance) -> Result<Obj> {
    if is_rngs(me) {
        stream_next(&*get_stream(
            me,
            "default",
            crate::error::ErrorKind::AttributeError,
        )?)
    } else {
        stream_next(me)
    }
}

/// Initializers Flax offers as stream methods: `rngs.lecun_normal()` is
/// the initializer with its key drawn from the stream at each call.
const INITIALIZERS: [&str; 12] = [
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
];

/// `stream.NAME(*args, **kwargs)` for an initializer NAME: the keyless
/// initializer, which draws a key from the stream (the default stream of
/// an `Rngs`) each time it is called.
fn initializer_method(name: &'static str) -> Obj {
    Obj::native(format!("RngStream.{name}"), move |interp, a| {
        let me = self_arg(&a, name)?;
        let inits = crate::modules::import(interp, "jax.nn.initializers")?;
        let make = crate::python::ops::getattr(interp, &inits, name)?;
        let pos = a.pos[1..].to_vec();
        let init_fn = interp.call(&make, Args::with(pos, a.kw))?;
        Ok(Obj::native(name, move |interp, b| {
            let mut pos = vec![method_key(&me)?];
            pos.extend(b.pos);
            interp.call(&init_fn, Args::with(pos, b.kw))
        }))
    })
}

fn sampler_methods() -> Vec<(String, Obj)> {
    let mut out: Vec<(String, Obj)> = INITIALIZERS
        .iter()
        .map(|name| (name.to_string(), initializer_method(name)))
        .collect();
    for name in SAMPLERS {
        let m = Obj::native(format!("RngStream.{name}"), move |interp, a| {
            let me = self_arg(&a, name)?;
            let key = method_key(&me)?;
            let random = crate::modules::import(interp, "jax.random")?;
            let f = crate::python::ops::getattr(interp, &random, name)?;
            let mut pos = vec![key];
            pos.extend(a.pos[1..].iter().cloned());
            interp.call(&f, Args::with(pos, a.kw))
        });
        out.push((name.to_string(), m));
    }
    for name in MISSING_SAMPLERS {
        let m = Obj::native(format!("RngStream.{name}"), move |_, _| {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.Rngs.{name}"
            )
        });
        out.push((name.to_string(), m));
    }
    out
}

fn rngs_init(c: &RngClasses) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let c = c.clone();
    move |_, a| {
        let me = self_arg(&a, "Rngs")?;
        // Flax puts the keyword streams first and then `default`; a mapping
        // given as `default` comes before the keywords.
        let mut streams: Vec<(String, Obj)> = vec![];
        let default = a.get(Some(1), "default");
        if let Some(Obj::Dict(d)) = &default {
            for (k, v) in d.borrow().items.iter() {
                streams.push((str_of(k), v.clone()));
            }
        }
        for (k, v) in &a.kw {
            if k != "default" {
                streams.retain(|(n, _)| n != k);
                streams.push((k.clone(), v.clone()));
            }
        }
        match default {
            None | Some(Obj::None) | Some(Obj::Dict(_)) => {}
            Some(d) => {
                streams.retain(|(n, _)| n != "default");
                streams.push(("default".into(), d));
            }
        }
        for (tag, v) in streams {
            if let Some(key) = traced_stream_key(&v)? {
                set_iattr(&me, &tag, new_traced_stream(&c, key, &tag)?);
                continue;
            }
            let keys = match is_stream(&v) {
                Some(s) => {
                    stream_keys(&iattr(&*var_slot(&s, "key")?, "value").unwrap_or(Obj::None))?
                }
                None => stream_keys(&v)?,
            };
            set_iattr(&me, &tag, new_stream(&c, keys, &tag)?);
        }
        Ok(Obj::None)
    }
}

fn stream_names(me: &Instance) -> Vec<(String, Obj)> {
    me.attrs
        .borrow()
        .iter()
        .filter(|(_, v)| is_stream(v).is_some())
        .cloned()
        .collect()
}

/// `rngs.fork()` / `stream.fork()`: new streams keyed by the next key of
/// each stream; `split=n` splits that key first.
fn fork_stream(c: &RngClasses, s: &Instance, split: &Option<Obj>) -> Result<Obj> {
    let key = stream_next(s)?;
    let tag = str_of(&iattr(s, "tag").unwrap_or(Obj::str("default")));
    if let Some((data, _)) = crate::modules::random::traced_key(&key) {
        let data = match split {
            Some(n) => crate::random::traced::split(&data, &size_shape(n)?)?,
            None => data,
        };
        return new_batched_traced_stream(c, data, &tag);
    }
    let mut keys = keys_of(&key).ok_or_else(|| {
        err!(
            NotImplementedError,
            "not supported by shardlab yet: RngStream.fork of this key"
        )
    })?;
    if let Some(n) = split {
        keys = split_keys(&keys, n)?;
    }
    new_stream(c, keys, &tag)
}

/// A size argument: an int or a tuple of ints.
fn size_shape(n: &Obj) -> Result<Vec<usize>> {
    Ok(match n {
        Obj::Tuple(t) => t
            .iter()
            .map(|d| Ok(to_int(d)? as usize))
            .collect::<Result<_>>()?,
        other => vec![to_int(other)? as usize],
    })
}

/// `stream.broadcast(k)`: a new stream whose keys are the next key of
/// `s` repeated over the shape `k` (in front of the key's own shape).
fn broadcast_stream(c: &RngClasses, s: &Instance, k: &Obj) -> Result<Obj> {
    let key = stream_next(s)?;
    let tag = str_of(&iattr(s, "tag").unwrap_or(Obj::str("default")));
    if let Some((data, _)) = crate::modules::random::traced_key(&key) {
        let mut shape = size_shape(k)?;
        shape.extend(data.shape().iter().copied());
        let data = crate::ops::broadcast_to(&data, &shape)?;
        return new_batched_traced_stream(c, data, &tag);
    }
    let Some(keys) = keys_of(&key) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: RngStream.broadcast of this key"
        );
    };
    let shape = size_shape(k)?;
    let total: usize = shape.iter().product();
    let mut batch = shape;
    batch.extend(keys.batch.iter().copied());
    let all = (0..total).flat_map(|_| keys.keys.iter().copied()).collect();
    new_stream(
        c,
        Keys {
            keys: all,
            batch,
            typed: true,
        },
        &tag,
    )
}

pub(super) fn split_keys(keys: &Keys, n: &Obj) -> Result<Keys> {
    let shape = size_shape(n)?;
    if keys.keys.len() != 1 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: splitting a batch of stream keys"
        );
    }
    let total: usize = shape.iter().product();
    Ok(Keys {
        keys: crate::random::split(keys.keys[0], total)?,
        batch: shape,
        typed: true,
    })
}

fn stream_methods(c: &RngClasses) -> Vec<(String, Obj)> {
    let (c1, c2, c3, c4) = (c.clone(), c.clone(), c.clone(), c.clone());
    let mut m = vec![
        (
            "__init__".to_string(),
            Obj::native("RngStream.__init__", move |_, a| {
                let me = self_arg(&a, "RngStream")?;
                let keys = stream_keys(&a.req(Some(1), "key", "RngStream")?)?;
                let tag = str_of(&a.req(None, "tag", "RngStream")?);
                if let Obj::Instance(s) = new_stream(&c1, keys, &tag)? {
                    *me.attrs.borrow_mut() = s.attrs.borrow().clone();
                }
                Ok(Obj::None)
            }),
        ),
        (
            "__call__".to_string(),
            Obj::native("RngStream.__call__", |_, a| {
                let me = self_arg(&a, "RngStream.__call__")?;
                if a.pos.len() > 1 || !a.kw.is_empty() {
                    bail!(
                        TypeError,
                        "RngStream.__call__() takes 1 positional argument but {} were given",
                        a.pos.len() + a.kw.len()
                    );
                }
                stream_next(&me)
            }),
        ),
        (
            "fork".to_string(),
            Obj::native("RngStream.fork", move |i, a| {
                let me = self_arg(&a, "fork")?;
                let split = a.opt(None, "split");
                if split.is_some() {
                    warn_fork_split(i, Place::Program(1))?;
                }
                fork_stream(&c2, &me, &split)
            }),
        ),
        (
            "split".to_string(),
            Obj::native("RngStream.split", move |_, a| {
                let me = self_arg(&a, "split")?;
                fork_stream(&c3, &me, &Some(a.req(Some(1), "k", "split")?))
            }),
        ),
        (
            "broadcast".to_string(),
            Obj::native("RngStream.broadcast", move |_, a| {
                let me = self_arg(&a, "broadcast")?;
                broadcast_stream(&c4, &me, &a.req(Some(1), "k", "broadcast")?)
            }),
        ),
    ];
    m.extend(sampler_methods());
    m
}

/// Flax's DeprecationWarning for `fork(split=...)`.
fn warn_fork_split(interp: &mut Interp, place: Place) -> Result<()> {
    let text = "The 'split' argument of 'fork' is deprecated; use the 'split' method instead.";
    crate::modules::std::warnings::warn(interp, "DeprecationWarning", text, place)
}

fn rngs_methods(c: &RngClasses) -> Vec<(String, Obj)> {
    let mut m = vec![
        ("__nnx_rngs__".to_string(), Obj::Bool(true)),
        (
            "__init__".to_string(),
            Obj::native("Rngs.__init__", rngs_init(c)),
        ),
        (
            "__call__".to_string(),
            Obj::native("Rngs.__call__", |_, a| {
                let me = self_arg(&a, "Rngs.__call__")?;
                stream_next(&*get_stream(
                    &me,
                    "default",
                    crate::error::ErrorKind::AttributeError,
                )?)
            }),
        ),
    ];
    m.extend(mapping_methods());
    m.extend(fork_methods(c));
    m.extend(sampler_methods());
    m
}

/// An `Rngs`' streams as a mapping: by attribute, by key, `in`, `len`,
/// iteration and `items()`.
fn mapping_methods() -> Vec<(String, Obj)> {
    vec![
        (
            "__getattr__".to_string(),
            Obj::native("Rngs.__getattr__", |_, a| {
                let me = self_arg(&a, "Rngs.__getattr__")?;
                let name = str_of(&a.req(Some(1), "name", "__getattr__")?);
                if name.starts_with("__") && name.ends_with("__") {
                    bail!(AttributeError, "{name}");
                }
                Ok(Obj::Instance(get_stream(
                    &me,
                    &name,
                    crate::error::ErrorKind::AttributeError,
                )?))
            }),
        ),
        (
            "__getitem__".to_string(),
            Obj::native("Rngs.__getitem__", |_, a| {
                let me = self_arg(&a, "Rngs.__getitem__")?;
                let name = str_of(&a.req(Some(1), "name", "__getitem__")?);
                Ok(Obj::Instance(get_stream(
                    &me,
                    &name,
                    crate::error::ErrorKind::KeyError,
                )?))
            }),
        ),
        (
            "__contains__".to_string(),
            Obj::native("Rngs.__contains__", |_, a| {
                let me = self_arg(&a, "Rngs.__contains__")?;
                let name = str_of(&a.req(Some(1), "name", "__contains__")?);
                Ok(Obj::Bool(iattr(&me, &name).is_some()))
            }),
        ),
        (
            "__len__".to_string(),
            Obj::native("Rngs.__len__", |_, a| {
                let me = self_arg(&a, "Rngs.__len__")?;
                Ok(Obj::Int(stream_names(&me).len() as i64))
            }),
        ),
        (
            "__iter__".to_string(),
            Obj::native("Rngs.__iter__", |_, a| {
                let me = self_arg(&a, "Rngs.__iter__")?;
                let names = stream_names(&me)
                    .into_iter()
                    .map(|(k, _)| Obj::str(k))
                    .collect();
                Ok(Obj::list(names))
            }),
        ),
        (
            "items".to_string(),
            Obj::native("Rngs.items", |_, a| {
                let me = self_arg(&a, "Rngs.items")?;
                Ok(Obj::list(
                    stream_names(&me)
                        .into_iter()
                        .map(|(k, v)| Obj::tuple(vec![Obj::str(k), v]))
                        .collect(),
                ))
            }),
        ),
    ]
}

/// `rngs.broadcast(k)`: new `Rngs` whose streams are broadcast to the
/// shape `k` (an int, a tuple, or None to keep a stream), or with a mapping
/// from filters to those, per stream by the first filter that selects it.
fn rngs_broadcast(interp: &mut Interp, c: &RngClasses, me: &Instance, k: &Obj) -> Result<Obj> {
    let rules: Vec<(Obj, Obj)> = match k {
        Obj::Dict(d) => d.borrow().items.clone(),
        other => vec![(Obj::Ellipsis, other.clone())],
    };
    let mut preds = vec![];
    for (f, n) in rules {
        preds.push((super::filters::to_predicate(&f)?, n));
    }
    let out = Rc::new(Instance::new(c.rngs.clone()));
    for (name, s) in stream_names(me) {
        let Some(stream) = is_stream(&s) else {
            continue;
        };
        let mut new = s.clone();
        for (pred, n) in &preds {
            if pred.eval(interp, &Obj::tuple(vec![]), &s)? {
                if !matches!(n, Obj::None) {
                    new = broadcast_stream(c, &stream, n)?;
                }
                break;
            }
        }
        set_iattr(&out, &name, new);
    }
    Ok(Obj::Instance(out))
}

/// `Rngs.fork`, `Rngs.split` and `Rngs.broadcast`: new `Rngs` whose
/// streams are forked or broadcast.
fn fork_methods(c: &RngClasses) -> Vec<(String, Obj)> {
    let (c1, c2, c3) = (c.clone(), c.clone(), c.clone());
    vec![
        (
            "broadcast".to_string(),
            Obj::native("Rngs.broadcast", move |i, a| {
                let me = self_arg(&a, "Rngs.broadcast")?;
                rngs_broadcast(i, &c3, &me, &a.req(Some(1), "k", "broadcast")?)
            }),
        ),
        (
            "fork".to_string(),
            Obj::native("Rngs.fork", move |i, a| {
                let me = self_arg(&a, "Rngs.fork")?;
                let split = a.opt(None, "split");
                if split.is_some() {
                    warn_fork_split(i, Place::Program(1))?;
                }
                let out = Rc::new(Instance::new(c1.rngs.clone()));
                for (name, s) in stream_names(&me) {
                    if let Some(s) = is_stream(&s) {
                        // Flax forks each stream with the same argument,
                        // from its own code (hidden by the default filters).
                        if split.is_some() {
                            warn_fork_split(i, Place::Library("flax.nnx.rnglib", 606))?;
                        }
                        set_iattr(&out, &name, fork_stream(&c1, &s, &split)?);
                    }
                }
                Ok(Obj::Instance(out))
            }),
        ),
        (
            "split".to_string(),
            Obj::native("Rngs.split", move |_, a| {
                let me = self_arg(&a, "Rngs.split")?;
                let k = a.req(Some(1), "k", "split")?;
                if matches!(k, Obj::Dict(_)) {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: nnx.Rngs.split with a mapping"
                    );
                }
                let out = Rc::new(Instance::new(c2.rngs.clone()));
                for (name, s) in stream_names(&me) {
                    if let Some(s) = is_stream(&s) {
                        set_iattr(&out, &name, fork_stream(&c2, &s, &Some(k.clone()))?);
                    }
                }
                Ok(Obj::Instance(out))
            }),
        ),
    ]
}

/// Builds `Rngs`, `RngStream`, `RngState`, `RngKey` and `RngCount`.
pub(super) fn rng_classes(pytree: &Rc<Class>, variable: &Rc<Class>) -> RngClasses {
    let rng_state = new_class("RngState", vec![variable.clone()], vec![]);
    let key = new_class("RngKey", vec![rng_state.clone()], vec![]);
    let count = new_class("RngCount", vec![rng_state.clone()], vec![]);
    let stream = new_class("RngStream", vec![pytree.clone()], vec![]);
    let rngs = new_class("Rngs", vec![pytree.clone()], vec![]);
    let c = RngClasses {
        rngs,
        stream,
        rng_state,
        key,
        count,
    };
    c.stream.attrs.borrow_mut().extend(stream_methods(&c));
    c.rngs.attrs.borrow_mut().extend(rngs_methods(&c));
    c
}

/// `nnx.Dropout(rate, *, broadcast_dims=(), deterministic=False,
/// rng_collection='dropout', rngs=None)`: keeps a fork of the stream it is
/// given and masks with `bernoulli(key, 1 - rate, shape)`.
pub(super) fn dropout_class(module: &Rc<Class>) -> Rc<Class> {
    let init = Obj::native("Dropout.__init__", |_, a| {
        let me = self_arg(&a, "Dropout")?;
        let rate = a.req(Some(1), "rate", "Dropout")?;
        let collection = a.get(None, "rng_collection").unwrap_or(Obj::str("dropout"));
        set_iattr(&me, "rate", rate);
        let dims = a.get(None, "broadcast_dims").unwrap_or(Obj::tuple(vec![]));
        set_iattr(&me, "broadcast_dims", dims);
        let det = a.get(None, "deterministic").unwrap_or(Obj::Bool(false));
        set_iattr(&me, "deterministic", det);
        set_iattr(&me, "rng_collection", collection.clone());
        let rngs = match a.get(None, "rngs") {
            None | Some(Obj::None) => Obj::None,
            Some(Obj::Instance(r)) if is_rngs(&r) => {
                let s = get_stream(&r, &str_of(&collection), crate::error::ErrorKind::KeyError)?;
                fork_of(&s)?
            }
            Some(Obj::Instance(s)) if s.class.name == "RngStream" => fork_of(&s)?,
            Some(other) => bail!(
                TypeError,
                "rngs must be a Rngs, RngStream or None, but got <class '{}'>.",
                other.type_name()
            ),
        };
        set_iattr(&me, "rngs", rngs);
        Ok(Obj::None)
    });
    let mut methods = vec![
        ("__init__".into(), init),
        (
            "__call__".into(),
            Obj::native("Dropout.__call__", dropout_call),
        ),
    ];
    methods.extend(super::recursive::set_view_attrs(
        &["deterministic"],
        "  deterministic: bool | None = None\n    if True, disables dropout masking.",
    ));
    new_class("Dropout", vec![module.clone()], methods)
}

/// A fork of a stream: a new stream of the same class keyed by its next key.
fn fork_of(s: &Rc<Instance>) -> Result<Obj> {
    let key = stream_next(s)?;
    let tag = str_of(&iattr(s, "tag").unwrap_or(Obj::str("default")));
    let (key_value, counts) = match crate::modules::random::traced_key(&key) {
        Some((data, _)) => {
            let batch = data.shape()[..data.shape().len().saturating_sub(1)].to_vec();
            let counts = Counts {
                data: vec![0; batch.iter().product()],
                shape: batch,
            };
            (typed_key_of(data)?, counts)
        }
        None => {
            let keys = keys_of(&key).ok_or_else(|| {
                err!(
                    NotImplementedError,
                    "not supported by shardlab yet: RngStream.fork of this key"
                )
            })?;
            let counts = Counts {
                data: vec![0; keys.keys.len()],
                shape: keys.batch.clone(),
            };
            (key_obj(keys)?, counts)
        }
    };
    let out = Rc::new(Instance::new(s.class.clone()));
    let (kv, cv) = (var_slot(s, "key")?, var_slot(s, "count")?);
    set_iattr(&out, "tag", Obj::str(&tag));
    let var = |v: &Rc<Instance>, value: Obj| {
        instance(
            &v.class,
            vec![("value".into(), value), ("tag".into(), Obj::str(&tag))],
        )
    };
    set_iattr(&out, "key", var(&kv, key_value));
    set_iattr(&out, "count", var(&cv, Obj::lib(counts)));
    Ok(Obj::Instance(out))
}

fn first_some(a: Option<Obj>, b: Option<Obj>) -> Option<Obj> {
    match a {
        Some(Obj::None) | None => match b {
            Some(Obj::None) | None => None,
            b => b,
        },
        a => a,
    }
}

fn dropout_call(interp: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "Dropout.__call__")?;
    let x = a.req(Some(1), "inputs", "Dropout.__call__")?;
    let Some(det) = first_some(a.get(None, "deterministic"), iattr(&me, "deterministic")) else {
        bail!(ValueError, "No `deterministic` argument was provided to Dropout. Consider one of the following options:\n\n1. Pass `deterministic` to the Dropout constructor:\n\n  self.dropout = nnx.Dropout(..., deterministic=True/False)\n\n2. Pass `deterministic` to the Dropout __call__:\n\n  self.dropout(x, deterministic=True/False)\n\n3. Use `nnx.view` to create a view of the model with a specific `deterministic` value:\n\n  model_view = nnx.view(model, deterministic=True/False)\n");
    };
    let rate = iattr(&me, "rate").unwrap_or(Obj::Float(0.0));
    let r = rate.as_number().unwrap_or(0.0);
    let jnp = crate::modules::import(interp, "jax.numpy")?;
    if r == 0.0 || truthy(&det, "deterministic")? {
        return Ok(x);
    }
    if r == 1.0 {
        let f = crate::python::ops::getattr(interp, &jnp, "zeros_like")?;
        return interp.call(&f, Args::new(vec![x]));
    }
    let Some(rngs) = first_some(a.get(None, "rngs"), iattr(&me, "rngs")) else {
        bail!(ValueError, "`deterministic` is False, but no `rngs` argument was provided to Dropout\n          as either a __call__ argument or class attribute.");
    };
    let collection = str_of(&iattr(&me, "rng_collection").unwrap_or(Obj::str("dropout")));
    let key = match &rngs {
        Obj::Instance(r) if is_rngs(r) => stream_next(&*get_stream(
            r,
            &collection,
            crate::error::ErrorKind::KeyError,
        )?)?,
        Obj::Instance(s) if s.class.name == "RngStream" => stream_next(s)?,
        other if keys_of(other).is_some() => other.clone(),
        other => bail!(
            TypeError,
            "rngs must be a Rngs, RngStream or jax.Array, but got {}.",
            other.type_name()
        ),
    };
    dropout_mask_apply(interp, &me, &jnp, key, x, 1.0 - r)
}

/// `select(bernoulli(key, keep, shape), x / keep, 0)` with the mask shared
/// along `broadcast_dims`.
pub(super) fn dropout_mask_apply(
    interp: &mut Interp,
    me: &Instance,
    jnp: &Obj,
    key: Obj,
    x: Obj,
    keep: f64,
) -> Result<Obj> {
    let xv = to_value(&x)?;
    let mut shape: Vec<i64> = xv.shape().iter().map(|&d| d as i64).collect();
    let dims = iattr(me, "broadcast_dims").unwrap_or(Obj::tuple(vec![]));
    for d in iterate(&dims)? {
        let d = to_int(&d)?;
        let k = if d < 0 { d + shape.len() as i64 } else { d };
        if let Some(slot) = shape.get_mut(k as usize) {
            *slot = 1;
        }
    }
    let random = crate::modules::import(interp, "jax.random")?;
    let bern = crate::python::ops::getattr(interp, &random, "bernoulli")?;
    let shape_obj = Obj::tuple(shape.into_iter().map(Obj::Int).collect());
    let mask = interp.call(
        &bern,
        Args::with(
            vec![key],
            vec![("p".into(), Obj::Float(keep)), ("shape".into(), shape_obj)],
        ),
    )?;
    let xs = Obj::tuple(xv.shape().iter().map(|&d| Obj::Int(d as i64)).collect());
    let bcast = crate::python::ops::getattr(interp, jnp, "broadcast_to")?;
    let mask = interp.call(&bcast, Args::new(vec![mask, xs]))?;
    let scaled = Obj::Array(jops::div(&xv, &jops::scalar(keep, xv.dtype()))?);
    let zeros = Obj::Array(jops::zeros_like(&xv));
    let wh = crate::python::ops::getattr(interp, jnp, "where")?;
    interp.call(&wh, Args::new(vec![mask, scaled, zeros]))
}
