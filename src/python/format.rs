//! Text forms of objects: `str`, `repr`, format specs, `%` formatting, Python
//! float repr and NumPy's array printing.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::trace::Value;

use super::value::Obj;

/// Shortest round-trip digits and decimal exponent of a finite nonzero value:
/// `digits` × 10^(exp - len + 1).
fn shortest_digits(x: f64, single: bool) -> (String, i32) {
    let s = if single {
        format!("{:e}", x.abs() as f32)
    } else {
        format!("{:e}", x.abs())
    };
    let (mant, _) = s.split_once('e').unwrap_or((&s, "0"));
    let n = mant.chars().filter(|c| c.is_ascii_digit()).count().max(1);
    // Of the shortest digit strings that read back as `x`, Python prints the
    // one nearest `x`, ties to even: the correctly rounded value at that
    // length (which the shortest-digits search may not pick on a tie).
    let rounded = if single {
        format!("{:.*e}", n - 1, x.abs() as f32)
    } else {
        format!("{:.*e}", n - 1, x.abs())
    };
    // Next to a power of two the gap below is half the gap above, so the
    // correctly rounded digits can miss `x` (2**-24 reads back only as
    // ...063, not the nearer ...062): then the shortest search's are the
    // only ones.
    let reads_back = match rounded.parse::<f64>() {
        Ok(r) if single => r as f32 == x.abs() as f32,
        Ok(r) => r == x.abs(),
        Err(_) => false,
    };
    let s = if reads_back { rounded } else { s };
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// Python's `repr(float)` (and NumPy's scalar str with `single` for float32).
pub fn float_repr(x: f64, single: bool) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, exp) = shortest_digits(x, single);
    let body = if (-4..16).contains(&exp) {
        positional(&digits, exp, true)
    } else {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        format!("{m}e{}{:02}", if exp < 0 { "-" } else { "+" }, exp.abs())
    };
    format!("{sign}{body}")
}

/// Digits placed around the decimal point; `dot_zero` writes `6.0` not `6.`.
fn positional(digits: &str, exp: i32, dot_zero: bool) -> String {
    let n = digits.len() as i32;
    let (int, frac) = if exp >= 0 {
        if n > exp + 1 {
            (
                digits[..(exp + 1) as usize].to_string(),
                digits[(exp + 1) as usize..].to_string(),
            )
        } else {
            (
                format!("{digits}{}", "0".repeat((exp + 1 - n) as usize)),
                String::new(),
            )
        }
    } else {
        (
            "0".to_string(),
            format!("{}{digits}", "0".repeat((-exp - 1) as usize)),
        )
    };
    if frac.is_empty() {
        if dot_zero {
            format!("{int}.0")
        } else {
            format!("{int}.")
        }
    } else {
        format!("{int}.{frac}")
    }
}

/// `str(x)`.
pub fn str_of(o: &Obj) -> String {
    match o {
        Obj::Str(s) => s.to_string(),
        Obj::Array(v) => array_str(v),
        Obj::DType(d) => d.name().to_string(),
        Obj::Lib(_) | Obj::Instance(_) => o
            .behaviour()
            .and_then(|b| b.str(o).or_else(|| b.repr(o)))
            .unwrap_or_else(|| repr_of(o)),
        _ => repr_of(o),
    }
}

fn seq_repr(items: &[Obj]) -> String {
    items.iter().map(repr_of).collect::<Vec<_>>().join(", ")
}

thread_local! {
    /// The containers whose repr is being built, innermost last, so a
    /// container that holds itself prints as Python's `[...]`.
    static IN_REPR: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` to build the repr of the container at `addr`, unless that repr
/// is already being built further out (a container that holds itself):
/// then the result is `cycle`, Python's `[...]` or `{...}`.
pub fn repr_once<E>(
    addr: usize,
    cycle: &str,
    f: impl FnOnce() -> std::result::Result<String, E>,
) -> std::result::Result<String, E> {
    if IN_REPR.with(|r| r.borrow().contains(&addr)) {
        return Ok(cycle.to_string());
    }
    IN_REPR.with(|r| r.borrow_mut().push(addr));
    let text = f();
    IN_REPR.with(|r| r.borrow_mut().pop());
    text
}

/// The repr of a list or dict, `[...]`-style when it is already being
/// printed further out (a cycle), and `...` past the depth limit, which
/// raises `RecursionError` when the expression ends.
fn container_repr(o: &Obj, addr: usize, cycle: &str) -> String {
    let Some(_level) = super::depth::enter_repr() else {
        return "...".to_string();
    };
    let text: std::result::Result<String, ()> = repr_once(addr, cycle, || Ok(repr_plain(o)));
    text.unwrap_or_default()
}

/// `repr(x)`.
pub fn repr_of(o: &Obj) -> String {
    match o {
        Obj::List(l) => container_repr(o, std::rc::Rc::as_ptr(l) as *const u8 as usize, "[...]"),
        Obj::Dict(d) => container_repr(o, std::rc::Rc::as_ptr(d) as *const u8 as usize, "{...}"),
        Obj::Tuple(_) => match super::depth::enter_repr() {
            Some(_level) => repr_plain(o),
            None => "...".to_string(),
        },
        _ => repr_plain(o),
    }
}

fn repr_plain(o: &Obj) -> String {
    match o {
        Obj::None => "None".into(),
        Obj::Bool(b) => if *b { "True" } else { "False" }.into(),
        Obj::Int(i) => i.to_string(),
        Obj::Float(f) => float_repr(*f, false),
        Obj::Complex(re, im) => super::complex::repr(*re, *im),
        Obj::Str(s) => str_repr(s),
        Obj::List(l) => format!("[{}]", seq_repr(&l.borrow())),
        Obj::Tuple(t) => {
            if t.len() == 1 {
                format!("({},)", repr_of(&t[0]))
            } else {
                format!("({})", seq_repr(t))
            }
        }
        Obj::Dict(d) => dict_repr(&d.borrow()),
        Obj::Set(st) => set_repr(&st.borrow()),
        Obj::Slice(s) => format!(
            "slice({}, {}, {})",
            repr_of(&s[0]),
            repr_of(&s[1]),
            repr_of(&s[2])
        ),
        Obj::Ellipsis => "Ellipsis".into(),
        Obj::Range(a, b, s) => {
            if *s == 1 {
                format!("range({a}, {b})")
            } else {
                format!("range({a}, {b}, {s})")
            }
        }
        Obj::Array(v) => array_repr(v),
        // ml_dtypes' types print unquoted, as NumPy shows them.
        Obj::DType(crate::array::DType::BF16) => "dtype(bfloat16)".to_string(),
        Obj::DType(d) => format!("dtype('{}')", d.name()),
        // CPython names a function's address; the object's own stands in.
        Obj::Func(f) => format!(
            "<function {} at {:#x}>",
            f.qualname,
            std::rc::Rc::as_ptr(f) as *const u8 as usize
        ),
        Obj::Native(n) => format!("<function {}>", n.name),
        Obj::Class(c) => class_repr(c),
        Obj::Instance(i) => o.behaviour().and_then(|b| b.repr(o)).unwrap_or_else(|| {
            let at = std::rc::Rc::as_ptr(i) as usize;
            let module = own_module(&i.class).unwrap_or_else(|| "__main__".into());
            format!("<{module}.{} object at {at:#x}>", i.class.qualname)
        }),
        Obj::Lib(x) => x
            .repr(o)
            .unwrap_or_else(|| format!("<{} object>", x.type_name())),
        Obj::Method(m) => format!("<bound method of {}>", repr_of(&m.0)),
        Obj::Module(m) => format!("<module '{}'>", m.name),
        Obj::Type("ArrayImpl") => "<class 'jaxlib._jax.ArrayImpl'>".into(),
        Obj::Type(t) => format!("<class '{t}'>"),
    }
}

/// A dict's repr, or a defaultdict's with its factory.
fn dict_repr(d: &super::dict::Dict) -> String {
    let body = format!(
        "{{{}}}",
        d.items
            .iter()
            .map(|(k, v)| format!("{}: {}", repr_of(k), repr_of(v)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    match &d.default_factory {
        Some(f) => format!("defaultdict({}, {body})", repr_of(f)),
        // Python 3.11 spells an OrderedDict as a call on its item pairs.
        None if d.ordered && d.items.is_empty() => "OrderedDict()".into(),
        None if d.ordered => format!(
            "OrderedDict([{}])",
            d.items
                .iter()
                .map(|(k, v)| format!("({}, {})", repr_of(k), repr_of(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => body,
    }
}

/// A set's or frozenset's repr; empty ones are spelled as calls.
fn set_repr(st: &super::set::Set) -> String {
    let items = st.items();
    match (st.frozen, items.is_empty()) {
        (false, true) => "set()".into(),
        (true, true) => "frozenset()".into(),
        (false, false) => format!("{{{}}}", seq_repr(&items)),
        (true, false) => format!("frozenset({{{}}})", seq_repr(&items)),
    }
}

/// `<class '...'>`: a program's classes live in `__main__`; a library class
/// may name its Python module (`__module__`) or carry it in its name
/// (`numpy.ndarray`).
fn class_repr(c: &super::value::Class) -> String {
    let library = c.native().is_some() && c.bases.iter().all(|b| b.native().is_some())
        || c.bases.is_empty() && c.attrs.borrow().iter().any(|(k, _)| k == "__module__");
    if library {
        return match own_module(c) {
            Some(m) => format!("<class '{m}.{}'>", c.name),
            None => format!("<class '{}'>", c.name),
        };
    }
    if c.name.contains('.') {
        return format!("<class '{}'>", c.name);
    }
    format!("<class '__main__.{}'>", c.qualname)
}

/// The Python module a class names as its `__module__`, if it names one.
fn own_module(c: &super::value::Class) -> Option<String> {
    c.attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == "__module__")
        .and_then(|(_, v)| match v {
            Obj::Str(m) => Some(m.to_string()),
            _ => None,
        })
}

/// Python's repr of a string (the engine prints strings in jaxprs too).
pub use super::str_repr::{str_repr, to_ascii};

/// A parsed format spec: `[[fill]align][sign][0][width][,][.prec][type]`.
struct Spec {
    fill: char,
    /// `#`: the alternate form (`0x`, `0o`, `0b` before integer digits).
    alternate: bool,
    align: Option<char>,
    sign: char,
    width: usize,
    comma: bool,
    prec: Option<usize>,
    ty: Option<char>,
}

impl Spec {
    fn parse(spec: &str) -> Result<Spec> {
        let mut chars: Vec<char> = spec.chars().collect();
        let mut fill = ' ';
        let mut align = None;
        if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^' | '=') {
            fill = chars[0];
            align = Some(chars[1]);
            chars.drain(..2);
        } else if !chars.is_empty() && matches!(chars[0], '<' | '>' | '^' | '=') {
            align = Some(chars[0]);
            chars.drain(..1);
        }
        let mut sign = '-';
        if !chars.is_empty() && matches!(chars[0], '+' | '-' | ' ') {
            sign = chars[0];
            chars.drain(..1);
        }
        let alternate = chars.first() == Some(&'#');
        if alternate {
            chars.drain(..1);
        }
        if !chars.is_empty() && chars[0] == '0' {
            fill = '0';
            align = align.or(Some('='));
            chars.drain(..1);
        }
        let rest: String = chars.iter().collect();
        let ty = rest
            .chars()
            .last()
            .filter(|c| c.is_ascii_alphabetic() || *c == '%');
        let body = match ty {
            Some(_) => &rest[..rest.len() - 1],
            None => &rest[..],
        };
        let (width_s, prec_s) = match body.split_once('.') {
            Some((w, p)) => (w, Some(p)),
            None => (body, None),
        };
        let width: usize = width_s
            .trim_matches(|c| c == ',' || c == '_')
            .parse()
            .unwrap_or(0);
        let prec: Option<usize> = prec_s.and_then(|p| p.parse().ok());
        if width.max(prec.unwrap_or(0)) > MAX_FORMAT_WIDTH {
            crate::bail!(
                MemoryError,
                "format spec '{spec}' asks for a string of over {MAX_FORMAT_WIDTH} characters"
            );
        }
        Ok(Spec {
            fill,
            alternate,
            align,
            sign,
            width,
            comma: width_s.contains(','),
            prec,
            ty,
        })
    }

    /// Pads `text` to the width: numbers to the right, the rest to the left,
    /// unless the spec aligns them; `=` pads between the sign and the digits.
    fn pad(&self, text: String, numeric: bool) -> String {
        let len = text.chars().count();
        if self.width <= len {
            return text;
        }
        let pad = self.width - len;
        let fill = |n: usize| self.fill.to_string().repeat(n);
        match self.align.unwrap_or(if numeric { '>' } else { '<' }) {
            '<' => format!("{text}{}", fill(pad)),
            '^' => format!("{}{text}{}", fill(pad / 2), fill(pad - pad / 2)),
            '=' => {
                // Padding goes after the sign and the alternate form's prefix.
                let mut lead = usize::from(text.starts_with(['-', '+', ' ']));
                let prefixed = text[lead..].starts_with("0x")
                    || text[lead..].starts_with("0X")
                    || text[lead..].starts_with("0o")
                    || text[lead..].starts_with("0b");
                if self.alternate && prefixed {
                    lead += 2;
                }
                let (s, digits) = text.split_at(lead);
                format!("{s}{}{digits}", fill(pad))
            }
            _ => format!("{}{text}", fill(pad)),
        }
    }
}

/// Applies a format spec (`.4f`, `>8`, `,`, `e`, `%`, ...) as `format(v, spec)`.
pub fn format_value(v: &Obj, spec: &str) -> Result<String> {
    if let Some(scalar) = numpy_scalar(v) {
        return format_value(&scalar, spec);
    }
    if spec.is_empty() {
        return Ok(str_of(v));
    }
    let parsed = Spec::parse(spec)?;
    let num = match v {
        Obj::Array(a) => {
            let c = a.concrete("formatting an array")?;
            if c.size() == 1 && parsed.ty.is_some() {
                Some(c.get_f64(0))
            } else {
                None
            }
        }
        o => o.as_number(),
    };
    let mut text = format_typed(v, &parsed, num)?;
    if parsed.comma {
        text = group_thousands(&text);
    }
    if parsed.sign == '+' && num.is_some_and(|x| x >= 0.0) {
        text.insert(0, '+');
    } else if parsed.sign == ' ' && num.is_some_and(|x| x >= 0.0) {
        text.insert(0, ' ');
    }
    Ok(parsed.pad(text, num.is_some()))
}

/// The text of `v` under the spec's presentation type, before its sign and
/// padding.
fn format_typed(v: &Obj, spec: &Spec, num: Option<f64>) -> Result<String> {
    let is_int = matches!(v, Obj::Int(_) | Obj::Bool(_))
        || matches!(v, Obj::Array(a) if !a.dtype().is_inexact());
    let prec = spec.prec.unwrap_or(6);
    let text = match (spec.ty, num) {
        (Some('f') | Some('F'), Some(x)) => fmt_fixed(x, prec),
        (Some('e'), Some(x)) => fmt_exp(x, prec),
        (Some('E'), Some(x)) => fmt_exp(x, prec).to_uppercase(),
        (Some('g'), Some(x)) => fmt_general(x, prec),
        (Some('G'), Some(x)) => fmt_general(x, prec).to_uppercase(),
        (Some('%'), Some(x)) => format!("{}%", fmt_fixed(x * 100.0, prec)),
        (Some('d'), Some(x)) => {
            if !is_int {
                bail!(
                    ValueError,
                    "Unknown format code 'd' for object of type '{}'",
                    v.type_name()
                );
            }
            format!("{}", x as i64)
        }
        (Some('c'), Some(x)) if is_int => {
            match u32::try_from(x as i64).ok().and_then(char::from_u32) {
                Some(ch) => ch.to_string(),
                None => bail!(OverflowError, "%c arg not in range(0x110000)"),
            }
        }
        (Some(c @ ('x' | 'X' | 'o' | 'b')), Some(x)) if is_int => {
            radix_digits(c, x as i64, spec.alternate)
        }
        (Some('s'), _) => str_of(v),
        (None, Some(x)) if spec.prec.is_some() && !is_int => fmt_general(x, prec),
        (None, _) => str_of(v),
        (Some(c), _) => bail!(
            ValueError,
            "Unknown format code '{c}' for object of type '{}'",
            v.type_name()
        ),
    };
    Ok(text)
}

/// `n` in hex, octal or binary, with a leading minus for negatives and, in
/// the alternate form, the base's prefix after it.
fn radix_digits(c: char, n: i64, alternate: bool) -> String {
    let m = n.unsigned_abs();
    let digits = match c {
        'x' => format!("{m:x}"),
        'X' => format!("{m:X}"),
        'o' => format!("{m:o}"),
        _ => format!("{m:b}"),
    };
    let digits = if alternate {
        format!("0{c}{digits}")
    } else {
        digits
    };
    if n < 0 {
        format!("-{digits}")
    } else {
        digits
    }
}

/// The Python scalar a concrete 0-d array formats as. JAX formats a 0-d
/// array through its NumPy scalar, and NumPy's scalars format as Python's
/// `float`, `int` and `bool`: `f"{loss}"` prints float32 0.3 as
/// `0.30000001192092896` while `str(loss)` prints `0.3`. A tracer keeps its
/// own text; complex keeps `str`.
fn numpy_scalar(v: &Obj) -> Option<Obj> {
    if let Some(s) = v.lib_scalar() {
        return Some(s);
    }
    let Obj::Array(crate::trace::Value::Concrete(a)) = v else {
        return None;
    };
    if a.ndim() != 0 {
        return None;
    }
    match a.dtype() {
        DType::Bool => Some(Obj::Bool(a.get_f64(0) != 0.0)),
        d if d.is_float() => Some(Obj::Float(a.get_f64(0))),
        d if d.is_int() => Some(Obj::Int(a.get_f64(0) as i64)),
        _ => None,
    }
}

fn group_thousands(s: &str) -> String {
    let (sign, rest) = if let Some(r) = s.strip_prefix('-') {
        ("-", r)
    } else {
        ("", s)
    };
    let (int, frac) = match rest.find('.') {
        Some(p) => rest.split_at(p),
        None => (rest, ""),
    };
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}{frac}")
}

/// Widest field or most digits a format spec may ask for (the output
/// limit), so a spec cannot allocate without bound.
const MAX_FORMAT_WIDTH: usize = 64 << 20;

/// Most digits worth computing: a double's exact decimal expansion has at
/// most 767 significant digits and 1074 after the point, so every digit
/// past this many is a zero (Rust's formatter takes at most 65535).
const EXACT_DIGITS: usize = 1100;

/// `s` with `n` zeros appended.
fn zero_padded(mut s: String, n: usize) -> String {
    s.extend(std::iter::repeat_n('0', n));
    s
}

fn fmt_fixed(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let computed = prec.min(EXACT_DIGITS);
    zero_padded(format!("{x:.computed$}"), prec - computed)
}

/// `%.{prec}e`, as C and Python print it (`3.4028235e+38`).
pub fn fmt_exp(x: f64, prec: usize) -> String {
    let computed = prec.min(EXACT_DIGITS);
    let s = format!("{x:.computed$e}");
    let s = match s.split_once('e') {
        Some((m, e)) if x.is_finite() => {
            format!("{}e{e}", zero_padded(m.to_string(), prec - computed))
        }
        _ => s,
    };
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%g` with `prec` significant digits, as C and Python print it.
pub fn fmt_general(x: f64, prec: usize) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return fmt_fixed(x, 0);
    }
    // Trailing zeros are dropped, so digits past the exact ones change nothing.
    let p = prec.clamp(1, EXACT_DIGITS);
    let exp = format!("{:.*e}", p - 1, x);
    let e: i32 = exp
        .split_once('e')
        .map(|(_, e)| e.parse().unwrap_or(0))
        .unwrap_or(0);
    if e >= -4 && e < p as i32 {
        let s = format!("{:.*}", (p as i32 - 1 - e).max(0) as usize, x);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let (m, _) = exp.split_once('e').unwrap_or((&exp, ""));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    }
}

/// `fmt % args`, as CPython's printf-style formatting: positional
/// conversions take the items of a tuple (or `args` itself), `%(key)s`
/// conversions look their key up in a mapping.
pub fn percent_format(fmt: &str, args: &Obj) -> Result<String> {
    let mapping = match args {
        Obj::Dict(d) => Some(d.clone()),
        _ => None,
    };
    let items: Vec<Obj> = match args {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let mut it = items.into_iter();
    let mut used_mapping = false;
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let key = percent_key(&mut chars)?;
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            chars.next();
            if d.is_ascii_alphabetic() || d == '%' {
                spec.push(d);
                break;
            }
            spec.push(d);
        }
        if spec == "%" && key.is_none() {
            out.push('%');
            continue;
        }
        let v = match (&key, &mapping) {
            (Some(k), Some(m)) => {
                used_mapping = true;
                match m.borrow().get(&Obj::str(k.as_str())) {
                    Some(v) => v,
                    None => bail!(KeyError, "'{k}'"),
                }
            }
            (Some(_), None) => bail!(TypeError, "format requires a mapping"),
            (None, _) => match it.next() {
                Some(v) => v,
                None => bail!(TypeError, "not enough arguments for format string"),
            },
        };
        out.push_str(&percent_one(&v, spec)?);
    }
    // CPython lets an unused mapping (anything subscriptable but a tuple or
    // a string) pass; any other argument must be consumed.
    let mapping_like = matches!(args, Obj::Dict(_) | Obj::List(_));
    if it.next().is_some() && !used_mapping && !mapping_like {
        bail!(
            TypeError,
            "not all arguments converted during string formatting"
        );
    }
    Ok(out)
}

/// The `(key)` right after a `%`, if there is one.
fn percent_key(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<Option<String>> {
    if chars.peek() != Some(&'(') {
        return Ok(None);
    }
    chars.next();
    let mut key = String::new();
    let mut depth = 1;
    for c in chars.by_ref() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(Some(key));
                }
            }
            _ => {}
        }
        key.push(c);
    }
    bail!(ValueError, "incomplete format key")
}

/// One printf-style conversion of `v`: `spec` is its flags, width,
/// precision and conversion letter.
fn percent_one(v: &Obj, mut spec: String) -> Result<String> {
    let ty = spec.pop().unwrap_or('s');
    let text_conv = matches!(ty, 's' | 'r' | 'a') || (ty == 'c' && matches!(v, Obj::Str(_)));
    let spec = printf_spec(&spec, text_conv);
    match ty {
        's' => format_value(&Obj::str(str_of(v)), &spec),
        'r' => format_value(&Obj::str(repr_of(v)), &spec),
        'a' => format_value(&Obj::str(to_ascii(&repr_of(v))), &spec),
        'c' if matches!(v, Obj::Str(_)) => format_value(v, &spec),
        'i' | 'd' | 'u' => {
            let n = v.as_number().unwrap_or(0.0).trunc() as i64;
            format_value(&Obj::Int(n), &format!("{spec}d"))
        }
        t => format_value(v, &format!("{spec}{t}")),
    }
}

/// A printf conversion's flags, width and precision (`-08.3`) as a format
/// spec: `-` justifies left, text is right-justified unless it says so,
/// `0` pads numbers with zeros, `+` and space are signs, `#` the alternate form.
fn printf_spec(flags: &str, text: bool) -> String {
    let rest = flags.trim_start_matches(['-', '+', ' ', '0', '#']);
    let lead = &flags[..flags.len() - rest.len()];
    let mut spec = String::new();
    if lead.contains('-') {
        spec.push('<');
    } else if text && !rest.is_empty() {
        spec.push('>');
    }
    if lead.contains('+') {
        spec.push('+');
    } else if lead.contains(' ') {
        spec.push(' ');
    }
    if lead.contains('#') {
        spec.push('#');
    }
    if lead.contains('0') && !lead.contains('-') && !text {
        spec.push('0');
    }
    spec.push_str(rest);
    spec
}

/// `str(x)` for an array, as JAX prints it (NumPy's formatting).
pub fn array_str(v: &Value) -> String {
    match v {
        Value::Concrete(a) => unreduced_text(a).unwrap_or_else(|| {
            crate::array::format::format_numpy_with(a, &crate::exec::run::print_options())
        }),
        Value::Traced(t) => match crate::trace::device_blocks(t) {
            Some(Ok((mesh, blocks))) => device_blocks_text(&mesh, &blocks),
            _ => crate::trace::tracer_text(t),
        },
    }
}

/// How JAX prints an array unreduced over some mesh axes, whose devices
/// hold partial values: its shape, dtype and sharding, never its values.
fn unreduced_text(a: &crate::array::Array) -> Option<String> {
    let Some(crate::sharding::Placement::Named(s)) = a.placement() else {
        return None;
    };
    if s.spec.unreduced.is_empty() {
        return None;
    }
    let weak = if a.is_weak() { ", weak_type=True" } else { "" };
    Some(format!(
        "Array(shape={}, dtype={}{weak}, sharding=NamedSharding(mesh={}, spec={}, memory_kind={}))",
        crate::array::fmt_shape(a.shape()),
        a.dtype().name(),
        s.mesh.text(),
        s.spec,
        s.memory_kind.name()
    ))
}

/// A value of a top-level shard_map's body as JAX's eager shard_map prints
/// it: each device's block under its device and mesh coordinates.
fn device_blocks_text(mesh: &crate::mesh::Mesh, blocks: &[crate::array::Array]) -> String {
    let tuple = |items: Vec<String>| match items.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    };
    // JAX writes the names with a trailing comma whatever their number.
    let names = format!("({},)", mesh.axis_names().join(", "));
    blocks
        .iter()
        .enumerate()
        .map(|(p, b)| {
            let coords = tuple(mesh.coords(p).iter().map(|c| c.to_string()).collect());
            let id = mesh.device_ids().get(p).copied().unwrap_or(p);
            format!(
                "On cpu:{id} at mesh coordinates {names} = {coords}:\n{}\n",
                crate::array::format::format_numpy_with(b, &crate::exec::run::print_options())
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `repr(x)` for an array: `Array([1., 2.], dtype=float32)`.
pub fn array_repr(v: &Value) -> String {
    match v {
        Value::Concrete(a) => unreduced_text(a).unwrap_or_else(|| {
            crate::array::format::format_jax_repr_with(a, &crate::exec::run::print_options())
        }),
        Value::Traced(_) => array_str(v),
    }
}

#[cfg(test)]
mod tests {
    use super::float_repr;

    #[test]
    fn ties_between_shortest_digits_go_to_even() {
        // CPython 3.11: repr(626927628383493.25) == '626927628383493.2',
        // repr(1e23) == '1e+23', repr(2.5e-5) == '2.5e-05',
        // repr(0.1 + 0.2) == '0.30000000000000004', repr(1/3) == '0.3333333333333333'.
        // 626927628383493.25 is a double (they are 0.125 apart there).
        assert_eq!(
            float_repr(626927628383493.0 + 0.25, false),
            "626927628383493.2"
        );
        assert_eq!(float_repr(1e23, false), "1e+23");
        assert_eq!(float_repr(2.5e-5, false), "2.5e-05");
        assert_eq!(float_repr(0.1 + 0.2, false), "0.30000000000000004");
        assert_eq!(float_repr(1.0 / 3.0, false), "0.3333333333333333");
    }
}
