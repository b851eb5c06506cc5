//! `jax.lax`: the named-axis collectives and the lower-level array operations.

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::Builder;
use crate::primitives::collectives::IndexGroups;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten_known, unflatten_known};
use crate::python::value::{Args, Obj};

/// Axis names from a string or a tuple/list of strings.
pub fn axis_names(o: &Obj) -> Result<Vec<String>> {
    match o {
        Obj::Str(s) => Ok(vec![s.to_string()]),
        Obj::Tuple(_) | Obj::List(_) => iterate(o)?
            .iter()
            .map(|x| match x {
                Obj::Str(s) => Ok(s.to_string()),
                other => bail!(
                    TypeError,
                    "axis names must be strings, got {}",
                    other.type_name()
                ),
            })
            .collect(),
        other => bail!(
            TypeError,
            "axis_name must be a string or a tuple of strings, got {}",
            other.type_name()
        ),
    }
}

fn axes_of(a: &Args, func: &str) -> Result<Vec<String>> {
    axis_names(&a.req(Some(1), "axis_name", func)?)
}

/// The axes of a reduction (psum, pmean, pmax, pmin), where JAX also takes
/// integer positions of the operand: refused with groups as JAX refuses
/// them, and otherwise not supported yet.
fn reduction_axes(a: &Args, func: &str, groups: bool) -> Result<Vec<String>> {
    let o = a.req(Some(1), "axis_name", func)?;
    let items = match &o {
        Obj::Tuple(_) | Obj::List(_) => iterate(&o)?,
        other => vec![other.clone()],
    };
    if items.iter().any(|x| matches!(x, Obj::Int(_))) {
        if groups {
            bail!(
                ValueError,
                "axis_index_groups only supported for sums over just named axes"
            );
        }
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {func} over positional (integer) axes"
        );
    }
    axis_names(&o)
}

/// Checks a call against a Python signature of `positional` parameters
/// (which may also be passed by keyword) followed by `keyword_only` ones,
/// raising the TypeErrors Python raises for extra positional arguments,
/// unknown or repeated keywords and missing required ones (`required`
/// names those without a default).
fn signature(
    a: &Args,
    func: &str,
    positional: &[&str],
    keyword_only: &[&str],
    required: &[&str],
) -> Result<()> {
    let n = positional.len();
    if a.pos.len() > n {
        let s = if n == 1 { "" } else { "s" };
        let were = if a.pos.len() == 1 { "was" } else { "were" };
        bail!(
            TypeError,
            "{func}() takes {n} positional argument{s} but {} {were} given",
            a.pos.len()
        );
    }
    for (i, (k, _)) in a.kw.iter().enumerate() {
        match positional.iter().position(|p| p == k) {
            Some(at) if at < a.pos.len() => {
                bail!(TypeError, "{func}() got multiple values for argument '{k}'")
            }
            Some(_) => {}
            None if keyword_only.contains(&k.as_str()) => {}
            None => bail!(
                TypeError,
                "{func}() got an unexpected keyword argument '{k}'"
            ),
        }
        if a.kw[..i].iter().any(|(j, _)| j == k) {
            bail!(
                TypeError,
                "{func}() got multiple values for keyword argument '{k}'"
            );
        }
    }
    let given = |name: &&str| {
        let at = positional.iter().position(|p| p == name);
        at.is_some_and(|i| i < a.pos.len()) || a.kw.iter().any(|(k, _)| k == name)
    };
    // Python names the missing positional arguments, or failing those the
    // missing keyword-only ones.
    let missing_of = |among: &[&str]| -> Vec<String> {
        required
            .iter()
            .filter(|r| among.contains(r) && !given(r))
            .map(|r| format!("'{r}'"))
            .collect()
    };
    let (missing, kind) = match missing_of(positional) {
        m if m.is_empty() => (missing_of(keyword_only), "keyword-only"),
        m => (m, "positional"),
    };
    if let Some(last) = missing.last() {
        let list = match missing.len() {
            1 => last.clone(),
            k => format!("{} and {last}", missing[..k - 1].join(", ")),
        };
        let s = if missing.len() == 1 { "" } else { "s" };
        bail!(
            TypeError,
            "{func}() missing {} required {kind} argument{s}: {list}",
            missing.len()
        );
    }
    Ok(())
}

/// JAX sums a value that is not traced without a collective, multiplying it
/// by the first group's size, but traces arrays made inside a map body, which
/// shardlab cannot tell from arrays made outside. The two agree unless the
/// groups differ in size or leave devices out; then only Python scalars are
/// taken.
fn refuse_untraced_arrays(
    a: &Args,
    func: &str,
    axes: &[String],
    groups: Option<&IndexGroups>,
) -> Result<()> {
    let Some(g) = groups else { return Ok(()) };
    let covered: usize = g.groups().iter().map(Vec::len).sum();
    let regular = g.equal_sizes() && jops::axis_size(axes).ok() == Some(covered);
    if regular || !crate::trace::tracing() {
        return Ok(());
    }
    let (leaves, _) = flatten_known(&a.req(Some(0), "x", func)?)?;
    for leaf in &leaves {
        if let Obj::Array(Value::Concrete(_)) = leaf {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: {func} with axis_index_groups of unequal sizes \
                 (or leaving indices out) of an array that is not traced"
            );
        }
    }
    Ok(())
}

/// JAX's `axis_index_groups` argument: None, or a sequence of sequences of
/// axis indices that must cover `0..total` exactly once (checked as JAX's
/// Python API checks it; whether they fit the axis is checked when the
/// collective runs).
fn index_groups(a: &Args) -> Result<Option<IndexGroups>> {
    let Some(o) = a.opt(None, "axis_index_groups") else {
        return Ok(None);
    };
    let cover = || {
        crate::err!(
            ValueError,
            "axis_index_groups must cover all indices exactly once"
        )
    };
    let mut groups = vec![];
    for g in iterate(&o)? {
        let mut group = vec![];
        for i in iterate(&g)? {
            let index = match i {
                Obj::Float(f) if f.fract() == 0.0 => bail!(
                    TypeError,
                    "tuple indices must be integers or slices, not float"
                ),
                Obj::Float(_) | Obj::Str(_) | Obj::None => return Err(cover()),
                other => to_int(&other)?,
            };
            group.push(usize::try_from(index).map_err(|_| cover())?);
        }
        groups.push(group);
    }
    IndexGroups::new(groups).map(Some)
}

/// Applies `f` to every leaf of the pytree argument 0 (collectives map over pytrees).
fn tree_apply(a: &Args, func: &str, f: &dyn Fn(&Value) -> Result<Value>) -> Result<Obj> {
    let x = a.req(Some(0), "x", func)?;
    let (leaves, def) = flatten_known(&x)?;
    let mut out = vec![];
    for l in &leaves {
        out.push(Obj::Array(f(&to_value(l)?)?));
    }
    unflatten_known(&def, &out)
}

fn flag(a: &Args, name: &str, default: bool) -> Result<bool> {
    match a.get(None, name) {
        Some(o) => truthy(&o, name),
        None => Ok(default),
    }
}

/// A reduction over named axes: `name(x, axis_name, *, axis_index_groups=None)`.
type Reduction = fn(&Value, &[String], Option<&IndexGroups>) -> Result<Value>;

fn reduction(b: &mut Builder, name: &'static str, f: Reduction) {
    b.func(name, move |_, a| {
        signature(
            &a,
            name,
            &["x", "axis_name"],
            &["axis_index_groups"],
            &["x", "axis_name"],
        )?;
        let has_groups = a.opt(None, "axis_index_groups").is_some();
        let axes = reduction_axes(&a, name, has_groups)?;
        let groups = index_groups(&a)?;
        if matches!(name, "psum" | "pmean") {
            refuse_untraced_arrays(&a, name, &axes, groups.as_ref())?;
        }
        tree_apply(&a, name, &|x| f(x, &axes, groups.as_ref()))
    });
}

/// The `jax.lax` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.lax");
    register_collectives(&mut b);
    register_slicing(&mut b);
    b.func("dot_general", |_, a| dot_general(&a));
    super::lax_dot::register(&mut b);
    super::lax_structural::register(&mut b);
    super::lax_numeric::register(&mut b);
    super::lax_elementwise::register(&mut b);
    super::lax_shape::register(&mut b);
    super::lax_reductions::register(&mut b);
    super::lax_gather::register(&mut b);
    b.attr("Precision", super::lax_precision::class());
    super::lax_scan_ops::register(&mut b);
    b.func("clamp", |_, a| clamp(&a));
    b.func("convert_element_type", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "convert_element_type")?)?;
        let d = super::numpy::dtype_of(&a.req(Some(1), "new_dtype", "convert_element_type")?)?;
        Ok(Obj::Array(jops::astype(&x, d)?))
    });
    super::control::register(&mut b);
    register_elementwise(&mut b);
    for (name, p) in super::jaxpr_api::lax_primitives() {
        b.attr(&name, p);
    }
    register_cumulative(&mut b);
    super::conv::register_lax(&mut b);
    super::lax_conv_local::register(&mut b);
    super::lax_conv_transpose::register(&mut b);
    super::conv::register_window(&mut b);
    super::numpy::fft::register_lax(&mut b);
    b.func(
        "with_sharding_constraint",
        super::sharding::constraint::with_sharding_constraint,
    );
    b.build()
}

/// The `jax.lax` module with `RoundingMethod`, an enumeration made with
/// the interpreter.
pub fn with_rounding_method(interp: &mut crate::python::interp::Interp, m: Obj) -> Result<Obj> {
    let m = super::sharding::context::placing_functions(m);
    if let Obj::Module(module) = &m {
        let rm = super::lax_numeric::rounding_method(interp)?;
        let modes = super::lax_numeric::gather_scatter_mode(interp)?;
        let mut attrs = module.attrs.borrow_mut();
        attrs.push(("RoundingMethod".into(), rm));
        attrs.push(("GatherScatterMode".into(), modes));
    }
    Ok(m)
}

/// `stop_gradient` (over a pytree) and the elementwise functions under
/// their lax names.
fn register_elementwise(b: &mut Builder) {
    b.func("stop_gradient", |_, a| {
        tree_apply(&a, "stop_gradient", &jops::stop_gradient)
    });
    let unary = [
        ("neg", UnaryOp::Neg),
        ("abs", UnaryOp::Abs),
        ("sign", UnaryOp::Sign),
        ("exp", UnaryOp::Exp),
        ("log", UnaryOp::Log),
        ("log1p", UnaryOp::Log1p),
        ("expm1", UnaryOp::Expm1),
        ("atanh", UnaryOp::Atanh),
        ("sqrt", UnaryOp::Sqrt),
        ("rsqrt", UnaryOp::Rsqrt),
        ("tanh", UnaryOp::Tanh),
        ("logistic", UnaryOp::Logistic),
        ("sin", UnaryOp::Sin),
        ("cos", UnaryOp::Cos),
        ("tan", UnaryOp::Tan),
        ("asin", UnaryOp::Asin),
        ("acos", UnaryOp::Acos),
        ("atan", UnaryOp::Atan),
        ("sinh", UnaryOp::Sinh),
        ("cosh", UnaryOp::Cosh),
        ("asinh", UnaryOp::Asinh),
        ("acosh", UnaryOp::Acosh),
        ("cbrt", UnaryOp::Cbrt),
        ("floor", UnaryOp::Floor),
        ("ceil", UnaryOp::Ceil),
        ("real", UnaryOp::Real),
        ("imag", UnaryOp::Imag),
        ("conj", UnaryOp::Conj),
        ("erf", UnaryOp::Erf),
        ("erf_inv", UnaryOp::ErfInv),
        ("erfc", UnaryOp::Erfc),
        ("lgamma", UnaryOp::Lgamma),
        ("digamma", UnaryOp::Digamma),
        ("bessel_i0e", UnaryOp::BesselI0e),
        ("bessel_i1e", UnaryOp::BesselI1e),
    ];
    for (name, op) in unary {
        b.func(name, move |_, a| {
            let x = to_value(&a.req(Some(0), "x", name)?)?;
            Ok(Obj::Array(jops::unary(op, &x)?))
        });
    }
    let binary = [
        ("add", BinaryOp::Add),
        ("sub", BinaryOp::Sub),
        ("mul", BinaryOp::Mul),
        ("div", BinaryOp::Div),
        ("max", BinaryOp::Max),
        ("min", BinaryOp::Min),
        ("pow", BinaryOp::Pow),
        ("complex", BinaryOp::Complex),
    ];
    for (name, op) in binary {
        b.func(name, move |_, a| {
            let x = a.req(Some(0), "x", name)?;
            let y = a.req(Some(1), "y", name)?;
            // lax keeps a Python number weakly typed, where jnp converts it
            // to the other operand's dtype.
            let (x, y) = (to_value(&x)?, to_value(&y)?);
            if op != BinaryOp::Pow {
                same_dtypes(name, &x, &y)?;
            }
            let (x, y) = crate::python::array::binary_operands(op, &Obj::Array(x), &Obj::Array(y))?;
            if op == BinaryOp::Div && x.dtype().is_int() {
                return Ok(Obj::Array(super::lax_elementwise::int_div(&x, &y)?));
            }
            Ok(Obj::Array(jops::binary(op, &x, &y)?))
        });
    }
    b.func("integer_pow", |_, a| {
        let x = to_value(&a.req(Some(0), "x", "integer_pow")?)?;
        let y = to_int(&a.req(Some(1), "y", "integer_pow")?)?;
        Ok(Obj::Array(jops::integer_pow(&x, y as i32)?))
    });
}

/// lax's check that both operands have one dtype: a Python scalar has its
/// default dtype here (`lax.add(x, 1)` fails for a float32 `x`), weakly
/// typed or not.
pub(super) fn same_dtypes(name: &str, x: &Value, y: &Value) -> Result<()> {
    if x.dtype() == y.dtype() {
        return Ok(());
    }
    // The jax.numpy function JAX's message points to, where it names one.
    let jnp = match name {
        "sub" => Some("subtract"),
        "mul" => Some("multiply"),
        "div" => Some("divide"),
        "max" => Some("maximum"),
        "min" => Some("minimum"),
        "eq" => Some("equal"),
        "ne" => Some("not_equal"),
        "atan2" => Some("arctan2"),
        "shift_left" => Some("left_shift"),
        "shift_right_logical" | "shift_right_arithmetic" => Some("right_shift"),
        "add" | "bitwise_and" | "bitwise_or" | "bitwise_xor" => Some(name),
        _ => None,
    };
    let tip = jnp.map_or(String::new(), |j| {
        format!(
            " (Tip: jnp.{j} is a similar function that does automatic type promotion on inputs)."
        )
    });
    bail!(
        TypeError,
        "lax.{name} requires arguments to have the same dtypes, got {}, {}.{tip}",
        x.dtype().name(),
        y.dtype().name()
    )
}

/// The collectives over named axes, and `axis_index`/`axis_size`.
fn register_collectives(b: &mut Builder) {
    reduction(b, "psum", jops::psum_groups);
    reduction(b, "pmean", jops::pmean_groups);
    reduction(b, "pmax", jops::pmax_groups);
    reduction(b, "pmin", jops::pmin_groups);
    b.func("pcast", |_, a| pcast(&a));
    b.func("all_gather", |_, a| all_gather(&a));
    b.func("psum_scatter", |_, a| {
        signature(
            &a,
            "psum_scatter",
            &["x", "axis_name"],
            &["scatter_dimension", "axis_index_groups", "tiled"],
            &["x", "axis_name"],
        )?;
        let axes = axes_of(&a, "psum_scatter")?;
        let dim = a
            .get(None, "scatter_dimension")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(0);
        let groups = index_groups(&a)?;
        let tiled = flag(&a, "tiled", false)?;
        tree_apply(&a, "psum_scatter", &|x| {
            jops::psum_scatter_groups(x, &axes, groups.as_ref(), dim, tiled)
        })
    });
    b.func("ppermute", |_, a| ppermute(&a));
    b.func("pshuffle", |_, a| pshuffle(&a));
    b.func("pswapaxes", |_, a| {
        let params = ["x", "axis_name", "axis"];
        signature(&a, "pswapaxes", &params, &["axis_index_groups"], &params)?;
        let axes = axes_of(&a, "pswapaxes")?;
        let axis = to_int(&a.req(Some(2), "axis", "pswapaxes")?)?;
        let groups = index_groups(&a)?;
        tree_apply(&a, "pswapaxes", &|x| {
            jops::all_to_all_groups(x, &axes, groups.as_ref(), axis, axis, false)
        })
    });
    b.func("all_to_all", |_, a| {
        let params = ["x", "axis_name", "split_axis", "concat_axis"];
        signature(
            &a,
            "all_to_all",
            &params,
            &["axis_index_groups", "tiled"],
            &params,
        )?;
        let axes = axes_of(&a, "all_to_all")?;
        let split = to_int(&a.req(Some(2), "split_axis", "all_to_all")?)?;
        let concat = to_int(&a.req(Some(3), "concat_axis", "all_to_all")?)?;
        let groups = index_groups(&a)?;
        let tiled = flag(&a, "tiled", false)?;
        tree_apply(&a, "all_to_all", &|x| {
            jops::all_to_all_groups(x, &axes, groups.as_ref(), split, concat, tiled)
        })
    });
    b.func("axis_index", |_, a| {
        signature(&a, "axis_index", &["axis_name"], &[], &["axis_name"])?;
        let axes = axis_names(&a.req(Some(0), "axis_name", "axis_index")?)?;
        Ok(Obj::Array(jops::axis_index(&axes)?))
    });
    b.func("axis_size", |_, a| {
        signature(&a, "axis_size", &["axis_name"], &[], &["axis_name"])?;
        let axes = axis_names(&a.req(Some(0), "axis_name", "axis_size")?)?;
        Ok(Obj::Int(jops::axis_size(&axes)? as i64))
    });
}

/// `all_gather(x, axis_name, axis=0, tiled=False, to=...)`; `to='invarying'`
/// makes the result the same on every member of the axes.
fn all_gather(a: &Args) -> Result<Obj> {
    signature(
        a,
        "all_gather",
        &["x", "axis_name"],
        &["axis_index_groups", "axis", "tiled", "to"],
        &["x", "axis_name"],
    )?;
    let to = match a.get(None, "to") {
        None => "varying".to_string(),
        Some(Obj::Str(s)) if matches!(&*s, "varying" | "invarying" | "reduced") => s.to_string(),
        Some(_) => bail!(
            ValueError,
            "Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values are: \
             {{'reduced', 'varying', 'invarying'}}"
        ),
    };
    if to != "varying" && a.opt(None, "axis_index_groups").is_some() {
        bail!(NotImplementedError, "");
    }
    if to == "reduced" {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: all_gather(to='reduced')"
        );
    }
    let axes = axes_of(a, "all_gather")?;
    let axis = a
        .get(None, "axis")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(0);
    let tiled = flag(a, "tiled", false)?;
    let groups = index_groups(a)?;
    tree_apply(a, "all_gather", &|x| {
        jops::all_gather_groups(x, &axes, groups.as_ref(), axis, tiled, to == "invarying")
    })
}

/// `pcast(x, axis_name, *, to)`: only `to='varying'` of a value invariant
/// over the axes (JAX's pvary) is supported; JAX refuses a value that already
/// varies over them.
fn pcast(a: &Args) -> Result<Obj> {
    signature(
        a,
        "pcast",
        &["x", "axis_name"],
        &["to"],
        &["x", "axis_name", "to"],
    )?;
    let axes = axes_of(a, "pcast")?;
    match a.req(None, "to", "pcast")? {
        Obj::Str(s) if &*s == "varying" => {}
        Obj::Str(s) if matches!(&*s, "reduced" | "unreduced") => bail!(
            NotImplementedError,
            "not supported by shardlab yet: pcast(to='{s}')"
        ),
        _ => bail!(
            ValueError,
            "Got unexpected `to` value. Allowed `to` values are: {{'unreduced', 'reduced', \
             'varying'}}"
        ),
    }
    if axes.is_empty() {
        return a.req(Some(0), "x", "pcast");
    }
    let tracked = crate::trace::axis_env().tracked;
    tree_apply(a, "pcast", &|x| {
        let vma = x.aval().vma;
        let varying = axes
            .iter()
            .filter(|n| tracked.contains(*n) && vma.contains(*n));
        match varying.count() {
            0 => jops::pvary(x, &axes),
            k if k == axes.len() => {
                bail!(ValueError, "Unsupported pcast from=varying, to='varying'")
            }
            _ => bail!(
                ValueError,
                "jax.lax.pcast can only accept axis_name which corresponds to one of varying, \
                 unreduced, reduced or invarying state of the input. Got axes: {}",
                crate::mesh::fmt_names(&axes)
            ),
        }
    })
}

/// `ppermute(x, axis_name, perm)` with `perm` a sequence of
/// `(source, destination)` pairs.
fn ppermute(a: &Args) -> Result<Obj> {
    let params = ["x", "axis_name", "perm"];
    signature(a, "ppermute", &params, &[], &params)?;
    let axes = axes_of(a, "ppermute")?;
    let perm_obj = a.req(Some(2), "perm", "ppermute")?;
    let mut perm = vec![];
    for p in iterate(&perm_obj)? {
        let pair = iterate(&p)?;
        if pair.len() != 2 {
            bail!(
                ValueError,
                "ppermute perm entries must be (source, destination) pairs"
            );
        }
        perm.push((to_int(&pair[0])? as usize, to_int(&pair[1])? as usize));
    }
    tree_apply(a, "ppermute", &|x| jops::ppermute(x, &axes, &perm))
}

/// `pshuffle(x, axis_name, perm)`: the member of rank `i` receives the value
/// of rank `perm[i]` (a ppermute of the pairs `(perm[i], i)`).
fn pshuffle(a: &Args) -> Result<Obj> {
    let params = ["x", "axis_name", "perm"];
    signature(a, "pshuffle", &params, &[], &params)?;
    let axes = axes_of(a, "pshuffle")?;
    let perm_obj = a.req(Some(2), "perm", "pshuffle")?;
    let sources = iterate(&perm_obj)?
        .iter()
        .map(to_int)
        .collect::<Result<Vec<i64>>>()?;
    let mut seen = vec![false; sources.len()];
    for &s in &sources {
        match usize::try_from(s).ok().filter(|&s| s < seen.len()) {
            Some(s) => seen[s] = true,
            None => seen.push(false),
        }
    }
    if seen.iter().any(|s| !s) {
        bail!(
            ValueError,
            "`perm` does not represent a permutation: {}",
            crate::python::format::repr_of(&perm_obj)
        );
    }
    let perm: Vec<(usize, usize)> = sources
        .iter()
        .enumerate()
        .map(|(i, &s)| (s as usize, i))
        .collect();
    tree_apply(a, "pshuffle", &|x| jops::ppermute(x, &axes, &perm))
}

/// `dynamic_slice`, `dynamic_slice_in_dim` and `dynamic_update_slice`.
fn register_slicing(b: &mut Builder) {
    b.func("dynamic_slice", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "dynamic_slice")?)?;
        let starts = start_indices(&a.req(Some(1), "start_indices", "dynamic_slice")?)?;
        let sizes: Vec<usize> = iterate(&a.req(Some(2), "slice_sizes", "dynamic_slice")?)?
            .iter()
            .map(|o| to_int(o).map(|i| i as usize))
            .collect::<Result<_>>()?;
        Ok(Obj::Array(jops::dynamic_slice(&x, &starts, &sizes)?))
    });
    b.func("dynamic_slice_in_dim", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "dynamic_slice_in_dim")?)?;
        let start = jops::convert(
            &to_value(&a.req(Some(1), "start_index", "dynamic_slice_in_dim")?)?,
            DType::I32,
        )?;
        let size = to_int(&a.req(Some(2), "slice_size", "dynamic_slice_in_dim")?)? as usize;
        let axis = a
            .get(Some(3), "axis")
            .map(|o| to_int(&o))
            .transpose()?
            .unwrap_or(0);
        Ok(Obj::Array(jops::dynamic_slice_in_dim(
            &x, &start, size, axis,
        )?))
    });
    b.func("dynamic_update_slice", |_, a| {
        let x = to_value(&a.req(Some(0), "operand", "dynamic_update_slice")?)?;
        let u = to_value(&a.req(Some(1), "update", "dynamic_update_slice")?)?;
        let starts = start_indices(&a.req(Some(2), "start_indices", "dynamic_update_slice")?)?;
        Ok(Obj::Array(jops::dynamic_update_slice(&x, &u, &starts)?))
    });
}

/// Start indices as int32 scalars (they may be traced).
fn start_indices(o: &Obj) -> Result<Vec<Value>> {
    iterate(o)?
        .iter()
        .map(|o| to_value(o).and_then(|v| jops::convert(&v, DType::I32)))
        .collect()
}

/// `dot_general(lhs, rhs, ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)))`.
fn dot_general(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "lhs", "dot_general")?)?;
    let y = to_value(&a.req(Some(1), "rhs", "dot_general")?)?;
    let dims = iterate(&a.req(Some(2), "dimension_numbers", "dot_general")?)?;
    if dims.len() != 2 {
        bail!(TypeError, "dot_general dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))");
    }
    let ints = |o: &Obj| -> Result<Vec<usize>> {
        iterate(o)?
            .iter()
            .map(|i| to_int(i).map(|v| v as usize))
            .collect()
    };
    let c = iterate(&dims[0])?;
    let bt = iterate(&dims[1])?;
    if c.len() != 2 || bt.len() != 2 {
        bail!(TypeError, "dot_general dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))");
    }
    let (ca, cb, ba, bb) = (ints(&c[0])?, ints(&c[1])?, ints(&bt[0])?, ints(&bt[1])?);
    Ok(Obj::Array(jops::dot_general(
        &x,
        &y,
        (&ca, &cb),
        (&ba, &bb),
    )?))
}

/// `lax.cumsum(operand, axis=0, reverse=False)` and its siblings.
fn register_cumulative(b: &mut Builder) {
    use crate::primitives::CumOp;
    for op in [
        CumOp::Sum,
        CumOp::Prod,
        CumOp::Max,
        CumOp::Min,
        CumOp::LogSumExp,
    ] {
        let name = op.name();
        b.func(name, move |_, a| {
            let x = to_value(&a.req(Some(0), "operand", name)?)?;
            let axis = match a.opt(Some(1), "axis") {
                Some(o) => to_int(&o)?,
                None => 0,
            };
            let reverse = match a.opt(Some(2), "reverse") {
                Some(o) => truthy(&o, name)?,
                None => false,
            };
            let shape = x.shape();
            if axis < 0 || axis as usize >= shape.len() {
                crate::bail!(
                    ValueError,
                    "axis {axis} is out of bounds for array of shape {}",
                    crate::array::shape_tuple(&shape)
                );
            }
            Ok(Obj::Array(jops::cumulative(
                &x,
                op,
                axis as usize,
                reverse,
            )?))
        });
    }
}

/// `lax.clamp(min, x, max)`: all three of one dtype (a Python int bound on
/// a float operand is an error, as in JAX).
fn clamp(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(1), "x", "clamp")?)?;
    let lo = to_value(&a.req(Some(0), "min", "clamp")?)?;
    let hi = to_value(&a.req(Some(2), "max", "clamp")?)?;
    if lo.dtype() != x.dtype() || hi.dtype() != x.dtype() {
        bail!(
            TypeError,
            "lax.clamp requires arguments to have the same dtypes, got {}, {}, {}.",
            lo.dtype().name(),
            x.dtype().name(),
            hi.dtype().name()
        );
    }
    Ok(Obj::Array(jops::clamp(&lo, &x, &hi)?))
}
