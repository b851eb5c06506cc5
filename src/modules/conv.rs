//! The convolution functions of `jax.lax` (`conv_general_dilated`, `conv`,
//! `conv_with_general_padding`, `conv_dimension_numbers`,
//! `ConvDimensionNumbers`) and of `jax.numpy` (`convolve`, `correlate`).
//!
//! Each resolves its arguments as JAX's wrapper does, string padding to
//! explicit pairs and string dimension numbers to permutations, and binds
//! the single primitive `conv_general_dilated`.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::conv::{bind_conv, ConvParams};
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::repr_of;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

const DN_FIELDS: [&str; 3] = ["lhs_spec", "rhs_spec", "out_spec"];

/// A `ConvDimensionNumbers` named tuple.
pub(super) fn dimension_numbers_obj(specs: [Vec<usize>; 3]) -> Obj {
    let fields = DN_FIELDS
        .iter()
        .zip(specs)
        .map(|(name, spec)| {
            let t = Obj::tuple(spec.into_iter().map(|d| Obj::Int(d as i64)).collect());
            (*name, t)
        })
        .collect();
    super::named_tuple::instance("ConvDimensionNumbers", fields)
}

fn ints(o: &Obj) -> Result<Vec<i64>> {
    iterate(o)?.iter().map(to_int).collect()
}

fn usizes(o: &Obj, what: &str) -> Result<Vec<usize>> {
    ints(o)?
        .into_iter()
        .map(|i| {
            if i < 0 {
                bail!(ValueError, "{what} must be non-negative, got {i}");
            }
            Ok(i as usize)
        })
        .collect()
}

/// JAX's `conv_general_permutations`: the (batch, feature, spatial...)
/// positions named by three layout strings, the spatial dimensions of the
/// input and output ordered as the kernel's.
fn permutations(specs: &[String]) -> Result<[Vec<usize>; 3]> {
    let pairs = [('N', 'C'), ('O', 'I'), ('N', 'C')];
    for (i, (s, (a, b))) in specs.iter().zip(pairs).enumerate() {
        if s.matches(a).count() != 1 || s.matches(b).count() != 1 {
            bail!(TypeError, "convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' exactly once, got {s}.");
        }
        let mut chars: Vec<char> = s.chars().collect();
        chars.sort_unstable();
        chars.dedup();
        if chars.len() != s.chars().count() {
            bail!(
                TypeError,
                "convolution dimension_numbers[{i}] cannot have duplicate characters, got {s}."
            );
        }
    }
    let spatial_set = |s: &str, (a, b): (char, char)| {
        let mut v: Vec<char> = s.chars().filter(|&c| c != a && c != b).collect();
        v.sort_unstable();
        v
    };
    let sets: Vec<Vec<char>> = specs
        .iter()
        .zip(pairs)
        .map(|(s, p)| spatial_set(s, p))
        .collect();
    if sets[0] != sets[1] || sets[1] != sets[2] {
        let quoted: Vec<String> = specs.iter().map(|s| format!("'{s}'")).collect();
        bail!(TypeError, "convolution dimension_numbers elements must each have the same set of spatial characters, got ({}).", quoted.join(", "));
    }
    let rhs: Vec<char> = specs[1].chars().collect();
    let perm = |s: &str, (a, b): (char, char), is_rhs: bool| -> Vec<usize> {
        let cs: Vec<char> = s.chars().collect();
        let pos = |c: char| cs.iter().position(|&x| x == c).unwrap_or(0);
        let mut spatial: Vec<usize> = (0..cs.len())
            .filter(|&i| cs[i] != a && cs[i] != b)
            .collect();
        if !is_rhs {
            spatial.sort_by_key(|&i| rhs.iter().position(|&x| x == cs[i]).unwrap_or(0));
        }
        let mut out = vec![pos(a), pos(b)];
        out.extend(spatial);
        out
    };
    Ok([
        perm(&specs[0], pairs[0], false),
        perm(&specs[1], pairs[1], true),
        perm(&specs[2], pairs[2], false),
    ])
}

/// JAX's `conv_dimension_numbers`: None, three layout strings or a
/// `ConvDimensionNumbers`, resolved for operands of ranks `lhs` and `rhs`.
pub(super) fn dimension_numbers(
    o: Option<&Obj>,
    lhs: &[usize],
    rhs: &[usize],
) -> Result<[Vec<usize>; 3]> {
    if let Some(Obj::Instance(i)) = o {
        if i.class.name == "ConvDimensionNumbers" {
            let field = |n: &str| -> Result<Vec<usize>> {
                let v = i.get(n).unwrap_or(Obj::None);
                usizes(&v, n)
            };
            return Ok([field("lhs_spec")?, field("rhs_spec")?, field("out_spec")?]);
        }
    }
    if lhs.len() != rhs.len() {
        bail!(
            TypeError,
            "convolution requires lhs and rhs ndim to be equal, got {} and {}.",
            lhs.len(),
            rhs.len()
        );
    }
    let Some(o) = o else {
        let iota: Vec<usize> = (0..lhs.len()).collect();
        return Ok([iota.clone(), iota.clone(), iota]);
    };
    if !matches!(o, Obj::Tuple(_) | Obj::List(_)) {
        bail!(
            TypeError,
            "convolution dimension_numbers must be tuple/list or None, got <class '{}'>.",
            o.type_name()
        );
    }
    let items = iterate(o)?;
    if items.len() != 3 {
        bail!(
            TypeError,
            "convolution dimension_numbers list/tuple must be length 3, got {}.",
            items.len()
        );
    }
    let mut specs = vec![];
    for it in &items {
        match it {
            Obj::Str(s) => specs.push(s.to_string()),
            _ => {
                let types: Vec<String> = items
                    .iter()
                    .map(|x| format!("<class '{}'>", x.type_name()))
                    .collect();
                bail!(
                    TypeError,
                    "convolution dimension_numbers elements must be strings, got ({}).",
                    types.join(", ")
                );
            }
        }
    }
    for (i, s) in specs.iter().enumerate() {
        if s.chars().count() != lhs.len() {
            bail!(TypeError, "convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, got {} for lhs and rhs shapes {} and {}.", s.chars().count(), crate::array::shape_tuple(lhs), crate::array::shape_tuple(rhs));
        }
    }
    permutations(&specs)
}

/// JAX's `padtype_to_pads` for 'SAME', 'SAME_LOWER' and 'VALID'.
pub(super) fn padtype_to_pads(
    kind: &str,
    inputs: &[usize],
    window: &[usize],
    strides: &[usize],
) -> Result<Vec<(i64, i64)>> {
    let upper = kind.to_uppercase();
    match upper.as_str() {
        "VALID" => Ok(vec![(0, 0); inputs.len()]),
        "SAME" | "SAME_LOWER" => Ok((0..inputs.len())
            .map(|s| {
                let (n, k, st) = (inputs[s] as i64, window[s] as i64, strides[s].max(1) as i64);
                let out = (n + st - 1) / st;
                let pad = ((out - 1) * st + k - n).max(0);
                if upper == "SAME" {
                    (pad / 2, pad - pad / 2)
                } else {
                    (pad - pad / 2, pad / 2)
                }
            })
            .collect()),
        _ => bail!(
            RuntimeError,
            "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {kind}."
        ),
    }
}

/// The arguments of `conv_general_dilated` after its first four.
pub(super) struct Options<'a> {
    pub(super) lhs_dilation: Option<&'a Obj>,
    pub(super) rhs_dilation: Option<&'a Obj>,
    pub(super) dimension_numbers: Option<&'a Obj>,
    pub(super) feature_group_count: usize,
    pub(super) batch_group_count: usize,
}

/// JAX's `conv_general_dilated` wrapper: resolves the arguments and binds
/// the primitive.
pub(super) fn conv_general(
    lhs: &Value,
    rhs: &Value,
    strides: &Obj,
    padding: &Obj,
    o: Options,
) -> Result<Value> {
    let p = conv_params(&lhs.shape(), &rhs.shape(), strides, padding, o)?;
    bind_conv(lhs, rhs, p)
}

/// The primitive's parameters for operands of shapes `ls` and `rs`, the
/// arguments resolved as JAX's wrapper resolves them.
fn conv_params(
    ls: &[usize],
    rs: &[usize],
    strides: &Obj,
    padding: &Obj,
    o: Options,
) -> Result<ConvParams> {
    let [lhs_spec, rhs_spec, out_spec] = dimension_numbers(o.dimension_numbers, ls, rs)?;
    let nsp = ls.len().saturating_sub(2);
    let window_strides = usizes(strides, "window_strides")?;
    let lhs_dilation = match o.lhs_dilation {
        None => vec![1; nsp],
        Some(d) => {
            let d = usizes(d, "lhs_dilation")?;
            if matches!(padding, Obj::Str(_)) && d.iter().any(|&x| x != 1) {
                bail!(ValueError, "String padding is not implemented for transposed convolution using this op. Please either exactly specify the required padding or use conv_transpose.");
            }
            d
        }
    };
    let rhs_dilation = match o.rhs_dilation {
        None => vec![1; rs.len().saturating_sub(2)],
        Some(d) => usizes(d, "rhs_dilation")?,
    };
    let padding = match padding {
        Obj::Str(kind) => {
            let inputs: Vec<usize> = lhs_spec.iter().skip(2).map(|&d| ls[d]).collect();
            let window: Vec<usize> = rhs_spec
                .iter()
                .skip(2)
                .zip(&rhs_dilation)
                .map(|(&d, &r)| if rs[d] == 0 { 0 } else { (rs[d] - 1) * r + 1 })
                .collect();
            padtype_to_pads(kind, &inputs, &window, &window_strides)?
        }
        other => explicit_pads(other)?,
    };
    let p = ConvParams {
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        lhs_spec,
        rhs_spec,
        out_spec,
        feature_group_count: o.feature_group_count,
        batch_group_count: o.batch_group_count,
    };
    Ok(p)
}

/// Padding given as (low, high) pairs.
fn explicit_pads(o: &Obj) -> Result<Vec<(i64, i64)>> {
    let bad = || {
        crate::err!(
            ValueError,
            "padding argument to conv_general_dilated should be a string or a sequence of \
             (low, high) pairs, got {}",
            repr_of(o)
        )
    };
    let items = iterate(o).map_err(|_| bad())?;
    items
        .iter()
        .map(|pair| {
            let v = ints(pair).map_err(|_| bad())?;
            match v[..] {
                [lo, hi] => Ok((lo, hi)),
                _ => Err(bad()),
            }
        })
        .collect()
}

fn group_count(a: &Args, index: usize, name: &str) -> Result<usize> {
    match a.opt(Some(index), name) {
        None => Ok(1),
        Some(o) => Ok(to_int(&o)?.max(0) as usize),
    }
}

/// Refuses `precision=` and `preferred_element_type=` values other than the
/// defaults, which shardlab does not model.
pub(super) fn defaults_only(a: &Args, names: &[(usize, &str)]) -> Result<()> {
    for &(i, n) in names {
        // Every precision computes the same float32 convolution on the CPU.
        if let (Some(p), "precision") = (a.opt(Some(i), n), n) {
            super::lax_dot::check_precision(&p)?;
            continue;
        }
        if a.opt(Some(i), n).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: convolution with {n}="
            );
        }
    }
    Ok(())
}

pub(super) fn operands(a: &Args, func: &str) -> Result<(Value, Value)> {
    let x = to_value(&a.req(Some(0), "lhs", func)?)?;
    let y = to_value(&a.req(Some(1), "rhs", func)?)?;
    Ok((x, y))
}

fn conv_general_dilated(a: &Args) -> Result<Obj> {
    let f = "conv_general_dilated";
    let (x, y) = operands(a, f)?;
    defaults_only(a, &[(9, "precision"), (10, "preferred_element_type")])?;
    let lhs_d = a.opt(Some(4), "lhs_dilation");
    let rhs_d = a.opt(Some(5), "rhs_dilation");
    let dn = a.opt(Some(6), "dimension_numbers");
    let o = Options {
        lhs_dilation: lhs_d.as_ref(),
        rhs_dilation: rhs_d.as_ref(),
        dimension_numbers: dn.as_ref(),
        feature_group_count: group_count(a, 7, "feature_group_count")?,
        batch_group_count: group_count(a, 8, "batch_group_count")?,
    };
    let strides = a.req(Some(2), "window_strides", f)?;
    let padding = a.req(Some(3), "padding", f)?;
    Ok(Obj::Array(conv_general(&x, &y, &strides, &padding, o)?))
}

/// No dilation, default dimension numbers, one group.
fn plain() -> Options<'static> {
    Options {
        lhs_dilation: None,
        rhs_dilation: None,
        dimension_numbers: None,
        feature_group_count: 1,
        batch_group_count: 1,
    }
}

/// Registers the lax convolution functions.
pub fn register_lax(b: &mut Builder) {
    b.func("conv_general_dilated", |_, a| conv_general_dilated(&a));
    b.func("conv", |_, a| {
        let (x, y) = operands(&a, "conv")?;
        defaults_only(&a, &[(4, "precision"), (5, "preferred_element_type")])?;
        let strides = a.req(Some(2), "window_strides", "conv")?;
        let padding = a.req(Some(3), "padding", "conv")?;
        Ok(Obj::Array(conv_general(
            &x,
            &y,
            &strides,
            &padding,
            plain(),
        )?))
    });
    b.func("conv_with_general_padding", |_, a| {
        let f = "conv_with_general_padding";
        let (x, y) = operands(&a, f)?;
        defaults_only(&a, &[(6, "precision"), (7, "preferred_element_type")])?;
        let strides = a.req(Some(2), "window_strides", f)?;
        let padding = a.req(Some(3), "padding", f)?;
        let lhs_d = a.req(Some(4), "lhs_dilation", f)?;
        let rhs_d = a.req(Some(5), "rhs_dilation", f)?;
        let some = |o: &Obj| !matches!(o, Obj::None);
        let o = Options {
            lhs_dilation: Some(&lhs_d).filter(|o| some(o)),
            rhs_dilation: Some(&rhs_d).filter(|o| some(o)),
            ..plain()
        };
        Ok(Obj::Array(conv_general(&x, &y, &strides, &padding, o)?))
    });
    b.func("conv_dimension_numbers", |_, a| {
        let f = "conv_dimension_numbers";
        let ls = super::numpy::shape_of(&a.req(Some(0), "lhs_shape", f)?)?;
        let rs = super::numpy::shape_of(&a.req(Some(1), "rhs_shape", f)?)?;
        let dn = a.opt(Some(2), "dimension_numbers");
        if let Some(o @ Obj::Instance(i)) = &dn {
            if i.class.name == "ConvDimensionNumbers" {
                return Ok(o.clone());
            }
        }
        Ok(dimension_numbers_obj(dimension_numbers(
            dn.as_ref(),
            &ls,
            &rs,
        )?))
    });
    b.func("ConvDimensionNumbers", |_, a| {
        let mut specs = vec![];
        for (i, n) in DN_FIELDS.iter().enumerate() {
            let o = a.req(Some(i), n, "ConvDimensionNumbers.__new__")?;
            specs.push(usizes(&o, n)?);
        }
        let [l, r, o]: [Vec<usize>; 3] = specs
            .try_into()
            .map_err(|_| crate::err!(RuntimeError, "three specs expected"))?;
        Ok(dimension_numbers_obj([l, r, o]))
    });
}

/// `jnp.convolve` and `jnp.correlate`: a one-dimensional convolution of
/// the operands promoted to float, the shorter one the kernel.
fn conv_1d(a: &Args, op: &str, default_mode: &str) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "a", op)?)?;
    let y = to_value(&a.req(Some(1), "v", op)?)?;
    if a.opt(None, "precision").is_some() || a.opt(None, "preferred_element_type").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {op} with precision= or preferred_element_type="
        );
    }
    let mode = match a.opt(Some(2), "mode") {
        None => default_mode.to_string(),
        Some(Obj::Str(s)) => s.to_string(),
        Some(other) => repr_of(&other),
    };
    if x.ndim() != 1 || y.ndim() != 1 {
        bail!(ValueError, "{op}() only support 1-dimensional inputs.");
    }
    if x.dtype() == DType::C64 || y.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.{op}"
        );
    }
    let float = |v: &Value| -> Result<Value> {
        if v.dtype() == DType::F32 {
            Ok(v.clone())
        } else {
            jops::convert(v, DType::F32)
        }
    };
    let (mut x, mut y) = (float(&x)?, float(&y)?);
    if x.shape()[0] == 0 || y.shape()[0] == 0 {
        bail!(
            ValueError,
            "{op}: inputs cannot be empty, got shapes {} and {}.",
            crate::array::shape_tuple(&x.shape()),
            crate::array::shape_tuple(&y.shape())
        );
    }
    let mut reverse_out = false;
    if x.shape()[0] < y.shape()[0] {
        std::mem::swap(&mut x, &mut y);
        reverse_out = op == "correlate";
    }
    if op == "convolve" {
        y = jops::rev(&y, &[0])?;
    }
    let k = y.shape()[0] as i64;
    let pad = match mode.as_str() {
        "valid" => (0, 0),
        "same" => (k / 2, k - k / 2 - 1),
        "full" => (k - 1, k - 1),
        _ => bail!(ValueError, "mode must be one of ['full', 'same', 'valid']"),
    };
    let lift = |v: &Value| jops::reshape(v, &[1, 1, v.shape()[0]]);
    let p = ConvParams {
        window_strides: vec![1],
        padding: vec![pad],
        lhs_dilation: vec![1],
        rhs_dilation: vec![1],
        lhs_spec: vec![0, 1, 2],
        rhs_spec: vec![0, 1, 2],
        out_spec: vec![0, 1, 2],
        feature_group_count: 1,
        batch_group_count: 1,
    };
    let out = bind_conv(&lift(&x)?, &lift(&y)?, p)?;
    let n = out.shape()[2];
    let mut out = jops::reshape(&out, &[n])?;
    if reverse_out {
        out = jops::rev(&out, &[0])?;
    }
    Ok(Obj::Array(out))
}

/// Registers `jnp.convolve` and `jnp.correlate`.
pub fn register_numpy(b: &mut Builder) {
    b.func("convolve", |_, a| conv_1d(&a, "convolve", "full"));
    b.func("correlate", |_, a| conv_1d(&a, "correlate", "valid"));
}

/// A windowed reduction over `x`: `padding` is 'SAME'/'VALID' or pairs,
/// the dilations default to ones.
pub fn reduce_window(
    x: &Value,
    op: crate::primitives::WindowOp,
    window_dimensions: Vec<usize>,
    window_strides: Vec<usize>,
    padding: &Obj,
    base_dilation: Option<Vec<usize>>,
    window_dilation: Option<Vec<usize>>,
) -> Result<Value> {
    let shape = x.shape();
    let padding = match padding {
        Obj::Str(kind) => padtype_to_pads(kind, &shape, &window_dimensions, &window_strides)?,
        other => explicit_pads(other)?,
    };
    let p = crate::primitives::WindowParams {
        op,
        base_dilation: base_dilation.unwrap_or_else(|| vec![1; shape.len()]),
        window_dilation: window_dilation.unwrap_or_else(|| vec![1; shape.len()]),
        window_dimensions,
        window_strides,
        padding,
    };
    crate::primitives::window::bind_window(x, p)
}

/// The windowed reduction a `lax.reduce_window` call names: `lax.add`
/// from 0 or `lax.max` from -inf.
fn window_op(computation: &Obj, init: &Obj) -> Result<crate::primitives::WindowOp> {
    use crate::primitives::WindowOp;
    let name = match computation {
        Obj::Native(n) => n.name.rsplit('.').next().unwrap_or("").to_string(),
        _ => String::new(),
    };
    let init = match to_value(init)? {
        Value::Concrete(a) if a.size() == 1 => Some(a.get_f64(0)),
        _ => None,
    };
    match (name.as_str(), init) {
        ("add", Some(0.0)) => Ok(WindowOp::Sum),
        ("max", Some(m)) if m == f64::NEG_INFINITY => Ok(WindowOp::Max),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: lax.reduce_window other than lax.add from 0 or lax.max from -inf"
        ),
    }
}

/// Registers `lax.reduce_window`.
pub fn register_window(b: &mut Builder) {
    b.func("reduce_window", |_, a| {
        let f = "reduce_window";
        let x = to_value(&a.req(Some(0), "operand", f)?)?;
        let op = window_op(
            &a.req(Some(2), "computation", f)?,
            &a.req(Some(1), "init_value", f)?,
        )?;
        let dims = usizes(
            &a.req(Some(3), "window_dimensions", f)?,
            "window_dimensions",
        )?;
        let strides = usizes(&a.req(Some(4), "window_strides", f)?, "window_strides")?;
        let padding = a.req(Some(5), "padding", f)?;
        let base = match a.opt(Some(6), "base_dilation") {
            Some(o) => Some(usizes(&o, "base_dilation")?),
            None => None,
        };
        let wdil = match a.opt(Some(7), "window_dilation") {
            Some(o) => Some(usizes(&o, "window_dilation")?),
            None => None,
        };
        let y = reduce_window(&x, op, dims, strides, &padding, base, wdil)?;
        Ok(Obj::Array(y))
    });
}

/// Flax's `pool`: a window over the dimensions between the leading batch
/// dimension and the trailing feature dimension (a batch of one added and
/// removed for an unbatched input).
fn flax_pool(a: &Args, func: &str, op: crate::primitives::WindowOp) -> Result<Value> {
    let x = to_value(&a.req(Some(0), "inputs", func)?)?;
    let window = usizes(&a.req(Some(1), "window_shape", func)?, "window_shape")?;
    let strides = match a.opt(Some(2), "strides") {
        Some(o) => usizes(&o, "strides")?,
        None => vec![1; window.len()],
    };
    let padding = a.opt(Some(3), "padding").unwrap_or(Obj::str("VALID"));
    if strides.len() != window.len() {
        bail!(
            AssertionError,
            "len({}) must equal len({})",
            repr_of(&a.req(Some(1), "window_shape", func)?),
            repr_of(&a.opt(Some(2), "strides").unwrap_or(Obj::None))
        );
    }
    let nb = x.ndim() as i64 - (window.len() as i64 + 1);
    if !(0..=1).contains(&nb) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {func} over {nb} batch dimensions"
        );
    }
    let single = nb == 0;
    let x = if single {
        let mut s = vec![1];
        s.extend(x.shape());
        jops::reshape(&x, &s)?
    } else {
        x
    };
    let wrap = |v: &[usize]| -> Vec<usize> {
        let mut out = vec![1];
        out.extend_from_slice(v);
        out.push(1);
        out
    };
    let padding = match &padding {
        Obj::Str(_) => padding.clone(),
        other => {
            let mut pairs = vec![Obj::tuple(vec![Obj::Int(0), Obj::Int(0)])];
            pairs.extend(iterate(other)?);
            pairs.push(Obj::tuple(vec![Obj::Int(0), Obj::Int(0)]));
            Obj::tuple(pairs)
        }
    };
    let y = reduce_window(&x, op, wrap(&window), wrap(&strides), &padding, None, None)?;
    if single {
        let s = y.shape()[1..].to_vec();
        return jops::reshape(&y, &s);
    }
    Ok(y)
}

/// Registers Flax's `avg_pool` and `max_pool` (shared by `flax.linen` and
/// `flax.nnx`).
pub fn register_pooling(b: &mut Builder) {
    use crate::primitives::WindowOp;
    b.func("avg_pool", |_, a| {
        let y = flax_pool(&a, "avg_pool", WindowOp::Sum)?;
        let include = match a.get(Some(4), "count_include_pad") {
            Some(o) => crate::python::ops::truthy(&o, "count_include_pad")?,
            None => true,
        };
        if !include {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: avg_pool with count_include_pad=False"
            );
        }
        let window = usizes(&a.req(Some(1), "window_shape", "avg_pool")?, "window_shape")?;
        let count: usize = window.iter().product();
        let y = if y.dtype() == DType::F32 {
            y
        } else {
            jops::convert(&y, DType::F32)?
        };
        Ok(Obj::Array(jops::div(
            &y,
            &jops::scalar(count as f64, DType::F32),
        )?))
    });
    b.func("max_pool", |_, a| {
        Ok(Obj::Array(flax_pool(&a, "max_pool", WindowOp::Max)?))
    });
}

/// A convolution with the strides, dilations and dimension numbers given
/// as Rust values and the padding as JAX takes it (a string or pairs), as
/// the layers built on `conv_general_dilated` call it.
pub fn conv_with(
    lhs: &Value,
    rhs: &Value,
    strides: &[usize],
    padding: &Obj,
    dilations: (&[usize], &[usize]),
    specs: [Vec<usize>; 3],
    feature_group_count: usize,
) -> Result<Value> {
    let (ls, rs) = (lhs.shape(), rhs.shape());
    let p = params_with(
        &ls,
        &rs,
        strides,
        padding,
        dilations,
        specs,
        feature_group_count,
    )?;
    bind_conv(lhs, rhs, p)
}

/// The output shape of [`conv_with`] for operands of shapes `ls` and `rs`
/// (`eval_shape` of the convolution), with JAX's errors.
pub fn conv_with_shape(
    (ls, rs): (&[usize], &[usize]),
    strides: &[usize],
    padding: &Obj,
    dilations: (&[usize], &[usize]),
    specs: [Vec<usize>; 3],
) -> Result<Vec<usize>> {
    params_with(ls, rs, strides, padding, dilations, specs, 1)?.out_shape(ls, rs)
}

fn params_with(
    ls: &[usize],
    rs: &[usize],
    strides: &[usize],
    padding: &Obj,
    dilations: (&[usize], &[usize]),
    specs: [Vec<usize>; 3],
    feature_group_count: usize,
) -> Result<ConvParams> {
    let tuple = |v: &[usize]| Obj::tuple(v.iter().map(|&d| Obj::Int(d as i64)).collect());
    let (l, r) = (tuple(dilations.0), tuple(dilations.1));
    let dn = dimension_numbers_obj(specs);
    let o = Options {
        lhs_dilation: Some(&l),
        rhs_dilation: Some(&r),
        dimension_numbers: Some(&dn),
        feature_group_count,
        batch_group_count: 1,
    };
    conv_params(ls, rs, &tuple(strides), padding, o)
}
