//! `numpy.testing`: `assert_allclose`, `assert_array_equal`,
//! `assert_array_almost_equal`, `assert_almost_equal`, `assert_equal` and
//! `assert_`, with NumPy's checks and its `AssertionError` messages
//! ("Not equal to tolerance rtol=1e-07, atol=0", the mismatch count, the
//! first mismatching indices, the largest differences and the two arrays).
//!
//! Python numbers and lists compare as float64 / int64, shardlab arrays as
//! the float32 / int32 arrays JAX would hand to NumPy.

use crate::error::{Error, Result};
use crate::python::format::{float_repr, format_value, repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::ops::{getattr, iterate, py_eq, truthy};
use crate::python::value::{Args, Obj};
use crate::{bail, err};

use super::super::Builder;
use super::arrayprint::{array_repr, scalar_str};
use super::host::{broadcast_index, broadcast_shapes, shape_str, HostArray, Kind};

/// An element test: `(actual, desired, in float32?)`.
type Test<'a> = &'a dyn Fn(f64, f64, bool) -> bool;

/// What one array comparison checks and how it reports.
struct Compare<'a> {
    header: String,
    err_msg: String,
    precision: usize,
    verbose: bool,
    equal_nan: bool,
    test: Test<'a>,
}

/// NumPy's `build_err_msg`: the header (with a short `err_msg` on its
/// line), then `err_msg`, then the two values.
fn build_err_msg(values: [String; 2], err_msg: &str, header: &str, verbose: bool) -> String {
    let mut msg = vec![format!("\n{header}")];
    if !err_msg.is_empty() {
        if !err_msg.contains('\n') && (err_msg.len() as i64) < 79 - header.len() as i64 {
            msg[0] = format!("{} {err_msg}", msg[0]);
        } else {
            msg.push(err_msg.to_string());
        }
    }
    if verbose {
        for (name, r) in ["ACTUAL", "DESIRED"].iter().zip(values) {
            let r = if r.matches('\n').count() > 3 {
                format!("{}...", r.lines().take(3).collect::<Vec<_>>().join("\n"))
            } else {
                r
            };
            msg.push(format!(" {name}: {r}"));
        }
    }
    msg.join("\n")
}

/// A scalar as an f-string shows a NumPy scalar: floats as Python floats.
fn element_str(x: f64, kind: Kind) -> String {
    match kind {
        Kind::Bool => if x != 0.0 { "True" } else { "False" }.into(),
        Kind::UInt8 | Kind::UInt32 | Kind::Int32 | Kind::Int64 => (x as i64).to_string(),
        Kind::Float32 | Kind::Float64 => float_repr(x, false),
    }
}

/// Whether `(x, y)` holds a NaN (or an infinity, with `inf`) at exactly the
/// same places, and for infinities the same ones; when not, NumPy's reason
/// and, for unequal infinities, where they are.
fn same_positions(
    n: usize,
    at: &dyn Fn(usize) -> (f64, f64),
    inf: bool,
) -> Option<(&'static str, Vec<usize>)> {
    let special = |v: f64| if inf { v.is_infinite() } else { v.is_nan() };
    let mismatch = (0..n).any(|i| {
        let (x, y) = at(i);
        special(x) != special(y)
    });
    if mismatch {
        let reason = if inf {
            "\ninf location mismatch:"
        } else {
            "\nnan location mismatch:"
        };
        return Some((reason, vec![]));
    }
    let infs: Vec<usize> = (0..n).filter(|&i| inf && at(i).0.is_infinite()).collect();
    if infs.iter().any(|&i| at(i).0 != at(i).1) {
        return Some(("\ninf values mismatch:", infs));
    }
    None
}

/// The elements of `a` at `idx` (of a shape `a` broadcasts to), as a 1-d
/// array.
fn subset(a: &HostArray, shape: &[usize], idx: &[usize]) -> HostArray {
    let data = idx
        .iter()
        .map(|&i| a.data[broadcast_index(&a.shape, shape, i)])
        .collect();
    HostArray {
        shape: vec![idx.len()],
        data,
        kind: a.kind,
    }
}

/// The largest differences among the mismatches, as NumPy reports them.
fn differences(x: &HostArray, y: &HostArray, invalid: &[(f64, f64)]) -> Vec<String> {
    if x.kind == Kind::Bool && y.kind == Kind::Bool {
        return vec![];
    }
    let kind = x.kind.promote(y.kind);
    let round = |v: f64| {
        if kind == Kind::Float32 {
            v as f32 as f64
        } else {
            v
        }
    };
    let errors: Vec<f64> = invalid
        .iter()
        .map(|&(a, b)| round(round(a - b).abs()))
        .collect();
    let max_abs = errors.iter().copied().fold(f64::NAN, f64::max);
    let rel_kind = if kind.is_float() { kind } else { Kind::Float64 };
    let max_rel = invalid
        .iter()
        .zip(&errors)
        .filter(|((_, b), _)| *b != 0.0)
        .map(|((_, b), e)| round(e / b.abs()))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        .unwrap_or(f64::INFINITY);
    vec![
        format!(
            "Max absolute difference among violations: {}",
            scalar_str(max_abs, kind)
        ),
        format!(
            "Max relative difference among violations: {}",
            scalar_str(max_rel, rel_kind)
        ),
    ]
}

/// The mismatch lines: the count, up to five indices, the differences.
fn remarks(x: &HostArray, y: &HostArray, shape: &[usize], n: usize, bad: &[usize]) -> Vec<String> {
    let at = |i: usize| {
        (
            x.data[broadcast_index(&x.shape, shape, i)],
            y.data[broadcast_index(&y.shape, shape, i)],
        )
    };
    let pct =
        format_value(&Obj::Float(100.0 * bad.len() as f64 / n as f64), ".3g").unwrap_or_default();
    let mut out = vec![format!("Mismatched elements: {} / {n} ({pct}%)", bad.len())];
    if !shape.is_empty() {
        let lines: Vec<String> = bad
            .iter()
            .take(5)
            .map(|&i| {
                let (a, b) = at(i);
                format!(
                    " {}: {} (ACTUAL), {} (DESIRED)",
                    index_str(shape, i),
                    element_str(a, x.kind),
                    element_str(b, y.kind)
                )
            })
            .collect();
        let title = match bad.len() {
            1 => "Mismatch at index:",
            2..=5 => "Mismatch at indices:",
            _ => "First 5 mismatches are at indices:",
        };
        out.push(format!("{title}\n{}", lines.join("\n")));
    }
    let pairs: Vec<(f64, f64)> = bad.iter().map(|&i| at(i)).collect();
    out.extend(differences(x, y, &pairs));
    out
}

/// The multi-index of flat element `i` as a list: `[1, 2]`.
fn index_str(shape: &[usize], mut i: usize) -> String {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = i % shape[k].max(1);
        i /= shape[k].max(1);
    }
    let parts: Vec<String> = idx.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// NumPy's `assert_array_compare`.
fn assert_array_compare(actual: &Obj, desired: &Obj, c: &Compare) -> Result<()> {
    let x = HostArray::from_obj(actual)?;
    let y = HostArray::from_obj(desired)?;
    let fail_with = |x: &HostArray, y: &HostArray, extra: &str| -> Error {
        let o = crate::array::format::PrintOptions {
            precision: c.precision,
            ..crate::exec::run::print_options()
        };
        let values = [array_repr(x, &o), array_repr(y, &o)];
        let msg = build_err_msg(
            values,
            &format!("{}{extra}", c.err_msg),
            &c.header,
            c.verbose,
        );
        err!(AssertionError, "{msg}")
    };
    let fail = |extra: &str| fail_with(&x, &y, extra);
    if !(x.shape.is_empty() || y.shape.is_empty() || x.shape == y.shape) {
        let reason = format!(
            "\n(shapes {}, {} mismatch)",
            shape_str(&x.shape),
            shape_str(&y.shape)
        );
        return Err(fail(&reason));
    }
    let shape = broadcast_shapes(&[&x.shape, &y.shape])?;
    let n: usize = shape.iter().product();
    let at = |i: usize| {
        (
            x.data[broadcast_index(&x.shape, &shape, i)],
            y.data[broadcast_index(&y.shape, &shape, i)],
        )
    };
    let mut flagged = vec![false; n];
    for inf in [false, true] {
        if !inf && !c.equal_nan {
            continue;
        }
        let unflagged = |i: usize| {
            let (a, b) = at(i);
            if flagged[i] && inf {
                (0.0, 0.0)
            } else {
                (a, b)
            }
        };
        if let Some((reason, infs)) = same_positions(n, &unflagged, inf) {
            if infs.is_empty() || x.shape.is_empty() || y.shape.is_empty() {
                return Err(fail(reason));
            }
            let (xs, ys) = (subset(&x, &shape, &infs), subset(&y, &shape, &infs));
            return Err(fail_with(&xs, &ys, reason));
        }
        let marks: Vec<bool> = (0..n)
            .map(|i| {
                let (a, _) = unflagged(i);
                flagged[i] || if inf { a.is_infinite() } else { a.is_nan() }
            })
            .collect();
        flagged = marks;
    }
    let single = y.kind == Kind::Float32 && matches!(x.kind, Kind::Float32 | Kind::Bool);
    let bad: Vec<usize> = (0..n)
        .filter(|&i| {
            !flagged[i] && {
                let (a, b) = at(i);
                !(c.test)(a, b, single)
            }
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(fail(&format!(
        "\n{}",
        remarks(&x, &y, &shape, n, &bad).join("\n")
    )))
}

fn err_msg_arg(a: &Args, index: usize) -> String {
    a.opt(Some(index), "err_msg")
        .map(|o| str_of(&o))
        .unwrap_or_default()
}

fn flag(a: &Args, index: Option<usize>, name: &str, default: bool) -> Result<bool> {
    match a.get(index, name) {
        Some(o) => truthy(&o, name),
        None => Ok(default),
    }
}

fn number_arg(a: &Args, index: usize, name: &str, default: f64) -> Result<(f64, Obj)> {
    match a.opt(Some(index), name) {
        None => Ok((default, Obj::Float(default))),
        Some(o) => {
            let v = HostArray::from_obj(&o)?;
            Ok((v.data.first().copied().unwrap_or(f64::NAN), o))
        }
    }
}

fn refuse_strict(a: &Args) -> Result<()> {
    if flag(a, None, "strict", false)? {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.testing with strict=True"
        );
    }
    Ok(())
}

fn assert_allclose(a: &Args) -> Result<Obj> {
    let actual = a.req(Some(0), "actual", "assert_allclose")?;
    let desired = a.req(Some(1), "desired", "assert_allclose")?;
    let (rtol, rtol_obj) = number_arg(a, 2, "rtol", 1e-7)?;
    let (atol, atol_obj) = match a.opt(Some(3), "atol") {
        None => (0.0, Obj::Int(0)),
        Some(_) => number_arg(a, 3, "atol", 0.0)?,
    };
    refuse_strict(a)?;
    let test = move |x: f64, y: f64, single: bool| {
        if single {
            let (x, y, r, t) = (x as f32, y as f32, rtol as f32, atol as f32);
            ((x - y).abs() <= t + r * y.abs() && y.is_finite()) || x == y
        } else {
            ((x - y).abs() <= atol + rtol * y.abs() && y.is_finite()) || x == y
        }
    };
    let header = format!(
        "Not equal to tolerance rtol={}, atol={}",
        format_value(&rtol_obj, "g")?,
        format_value(&atol_obj, "g")?
    );
    let c = Compare {
        header,
        err_msg: err_msg_arg(a, 5),
        precision: 6,
        verbose: flag(a, Some(6), "verbose", true)?,
        equal_nan: flag(a, Some(4), "equal_nan", true)?,
        test: &test,
    };
    assert_array_compare(&actual, &desired, &c)?;
    Ok(Obj::None)
}

fn assert_array_equal(a: &Args) -> Result<Obj> {
    let actual = a.req(Some(0), "actual", "assert_array_equal")?;
    let desired = a.req(Some(1), "desired", "assert_array_equal")?;
    refuse_strict(a)?;
    let c = Compare {
        header: "Arrays are not equal".into(),
        err_msg: err_msg_arg(a, 2),
        precision: 6,
        verbose: flag(a, Some(3), "verbose", true)?,
        equal_nan: true,
        test: &|x, y, _| x == y,
    };
    assert_array_compare(&actual, &desired, &c)?;
    Ok(Obj::None)
}

/// `assert_array_almost_equal(actual, desired, decimal, err_msg)`.
fn array_almost_equal(
    actual: &Obj,
    desired: &Obj,
    decimal: i64,
    err_msg: String,
    verbose: bool,
) -> Result<Obj> {
    let bound = 1.5 * 10f64.powi(-decimal.clamp(-300, 300) as i32);
    let test = move |x: f64, y: f64, single: bool| {
        if single {
            ((x as f32) - (y as f32)).abs() < bound as f32
        } else {
            (x - y).abs() < bound
        }
    };
    let c = Compare {
        header: format!("Arrays are not almost equal to {decimal} decimals"),
        err_msg,
        precision: decimal.max(0) as usize,
        verbose,
        equal_nan: true,
        test: &test,
    };
    assert_array_compare(actual, desired, &c)?;
    Ok(Obj::None)
}

fn decimal_arg(a: &Args, default: i64) -> Result<i64> {
    match a.opt(Some(2), "decimal") {
        Some(o) => crate::python::builtins::to_int(&o),
        None => Ok(default),
    }
}

fn assert_almost_equal(a: &Args) -> Result<Obj> {
    let actual = a.req(Some(0), "actual", "assert_almost_equal")?;
    let desired = a.req(Some(1), "desired", "assert_almost_equal")?;
    let decimal = decimal_arg(a, 7)?;
    let err_msg = err_msg_arg(a, 3);
    let verbose = flag(a, Some(4), "verbose", true)?;
    let arrayish = |o: &Obj| {
        matches!(o, Obj::Array(_) | Obj::List(_) | Obj::Tuple(_)) || super::ndarray::is_ndarray(o)
    };
    if arrayish(&actual) || arrayish(&desired) {
        return array_almost_equal(&actual, &desired, decimal, err_msg, verbose);
    }
    let fail = || {
        let header = format!("Arrays are not almost equal to {decimal} decimals");
        let values = [repr_of(&actual), repr_of(&desired)];
        err!(
            AssertionError,
            "{}",
            build_err_msg(values, &err_msg, &header, verbose)
        )
    };
    let (Some(x), Some(y)) = (actual.as_number(), desired.as_number()) else {
        bail!(
            TypeError,
            "unsupported operand type(s) for -: '{}' and '{}'",
            desired.type_name(),
            actual.type_name()
        );
    };
    if !(x.is_finite() && y.is_finite()) {
        let same = if x.is_nan() || y.is_nan() {
            x.is_nan() && y.is_nan()
        } else {
            x == y
        };
        return if same { Ok(Obj::None) } else { Err(fail()) };
    }
    if (y - x).abs() >= 1.5 * 10f64.powi(-decimal.clamp(-300, 300) as i32) {
        return Err(fail());
    }
    Ok(Obj::None)
}

fn is_scalar(o: &Obj) -> bool {
    matches!(o, Obj::Int(_) | Obj::Float(_) | Obj::Bool(_) | Obj::Str(_))
}

/// NumPy's `assert_equal`: dicts by key, lists and tuples by item, arrays
/// by `assert_array_equal`, anything else by `==` (NaN equal to NaN, 0.0
/// not equal to -0.0).
fn assert_equal(actual: &Obj, desired: &Obj, err_msg: &str, verbose: bool) -> Result<()> {
    if let Obj::Dict(d) = desired {
        let Obj::Dict(ad) = actual else {
            bail!(AssertionError, "<class '{}'>", actual.type_name());
        };
        let (na, nd) = (ad.borrow().len() as i64, d.borrow().len() as i64);
        assert_equal(&Obj::Int(na), &Obj::Int(nd), err_msg, verbose)?;
        let items = d.borrow().items.clone();
        for (k, v) in items {
            let found = ad.borrow().get(&k);
            let Some(av) = found else {
                bail!(AssertionError, "{}", repr_of(&k));
            };
            let msg = format!("key={}\n{err_msg}", repr_of(&k));
            assert_equal(&av, &v, &msg, verbose)?;
        }
        return Ok(());
    }
    let seq = |o: &Obj| matches!(o, Obj::List(_) | Obj::Tuple(_));
    if seq(desired) && seq(actual) {
        let (xs, ys) = (iterate(actual)?, iterate(desired)?);
        let (nx, ny) = (Obj::Int(xs.len() as i64), Obj::Int(ys.len() as i64));
        assert_equal(&nx, &ny, err_msg, verbose)?;
        for (k, (x, y)) in xs.iter().zip(&ys).enumerate() {
            assert_equal(x, y, &format!("item={k}\n{err_msg}"), verbose)?;
        }
        return Ok(());
    }
    let array = |o: &Obj| matches!(o, Obj::Array(_)) || super::ndarray::is_ndarray(o);
    if array(actual) || array(desired) {
        let c = Compare {
            header: "Arrays are not equal".into(),
            err_msg: err_msg.to_string(),
            precision: 6,
            verbose,
            equal_nan: true,
            test: &|x, y, _| x == y,
        };
        return assert_array_compare(actual, desired, &c);
    }
    let fail = || {
        let values = [repr_of(actual), repr_of(desired)];
        err!(
            AssertionError,
            "{}",
            build_err_msg(values, err_msg, "Items are not equal:", verbose)
        )
    };
    if is_scalar(actual) != is_scalar(desired) {
        return Err(fail());
    }
    if let (Some(x), Some(y)) = (actual.as_number(), desired.as_number()) {
        if x.is_nan() && y.is_nan() {
            return Ok(());
        }
        if x == 0.0 && y == 0.0 && x.is_sign_negative() != y.is_sign_negative() {
            return Err(fail());
        }
    }
    if py_eq(desired, actual) {
        Ok(())
    } else {
        Err(fail())
    }
}

/// `assert_raises(exception_class, callable, *args, **kwargs)`: calls
/// `callable` and passes when it raises `exception_class` (or a subclass),
/// failing as unittest's `assertRaises` does when nothing is raised.
fn assert_raises(interp: &mut Interp, a: Args) -> Result<Obj> {
    let [expected, callable, rest @ ..] = &a.pos[..] else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.testing.assert_raises as a context manager"
        )
    };
    // The keywords are the callable's (`get` marks them as passed on).
    let kw =
        a.kw.iter()
            .filter_map(|(k, _)| a.get(None, k).map(|v| (k.clone(), v)))
            .collect();
    let args = Args::with(rest.to_vec(), kw);
    match interp.call(callable, args) {
        Ok(_) => {
            let name_of = |interp: &mut Interp, o: &Obj| match getattr(interp, o, "__name__") {
                Ok(n) => str_of(&n),
                Err(_) => str_of(o),
            };
            let exc = match expected {
                Obj::Tuple(_) => str_of(expected),
                e => name_of(interp, e),
            };
            let func = name_of(interp, callable);
            bail!(AssertionError, "{exc} not raised by {func}")
        }
        Err(e) if interp.exception_matches(expected, &e)? => {
            interp.forget_raised(&e);
            Ok(Obj::None)
        }
        Err(e) => Err(e),
    }
}

/// The `numpy.testing` module.
pub fn module() -> Obj {
    let mut b = Builder::new("numpy.testing");
    b.func("assert_allclose", |_, a| assert_allclose(&a));
    b.func("assert_array_equal", |_, a| assert_array_equal(&a));
    b.func("assert_array_almost_equal", |_, a| {
        let actual = a.req(Some(0), "actual", "assert_array_almost_equal")?;
        let desired = a.req(Some(1), "desired", "assert_array_almost_equal")?;
        let verbose = flag(&a, Some(4), "verbose", true)?;
        array_almost_equal(
            &actual,
            &desired,
            decimal_arg(&a, 6)?,
            err_msg_arg(&a, 3),
            verbose,
        )
    });
    b.func("assert_almost_equal", |_, a| assert_almost_equal(&a));
    b.func("assert_equal", |_, a| {
        let actual = a.req(Some(0), "actual", "assert_equal")?;
        let desired = a.req(Some(1), "desired", "assert_equal")?;
        refuse_strict(&a)?;
        let verbose = flag(&a, Some(3), "verbose", true)?;
        assert_equal(&actual, &desired, &err_msg_arg(&a, 2), verbose)?;
        Ok(Obj::None)
    });
    b.func("assert_raises", assert_raises);
    b.func("assert_", |i, a| {
        let val = a.req(Some(0), "val", "assert_")?;
        if truthy(&val, "assert_")? {
            return Ok(Obj::None);
        }
        let msg = match a.opt(Some(1), "msg") {
            Some(m @ (Obj::Func(_) | Obj::Native(_))) => str_of(&i.call(&m, Args::default())?),
            Some(m) => str_of(&m),
            None => String::new(),
        };
        bail!(AssertionError, "{msg}")
    });
    b.build()
}
