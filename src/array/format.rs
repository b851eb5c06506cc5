//! Printing arrays exactly as NumPy 2 does (`str(np_array)`, which is what
//! `print(jax_array)` shows) and as JAX's `repr` does (`Array([1., 2.],
//! dtype=float32)`).
//!
//! Floats print with the shortest digits that round-trip as float32 (NumPy's
//! Dragon4 in unique mode), at most 8 fractional digits, padded to one width
//! per array; an array switches to scientific notation when its nonzero
//! magnitudes span more than 1e3, reach 1e6 or drop below 1e-4 (compared in
//! float32, as NumPy does). Lines wrap at 75 columns, and arrays of more than
//! 1000 elements are summarised with `...` around 3 edge items per axis.

use super::{strides, Array, Buffer};

/// NumPy's print options (`np.set_printoptions`, `np.printoptions`, which
/// `jnp` shares): what of them shardlab honours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrintOptions {
    /// Most fractional digits a float shows.
    pub precision: usize,
    /// Fixed-point notation whatever the magnitudes (tiny values print as
    /// zeros).
    pub suppress: bool,
    /// Arrays of more elements are summarised with `...`.
    pub threshold: usize,
    /// Items shown at each end of a summarised axis.
    pub edgeitems: usize,
    /// Columns a line may reach.
    pub linewidth: usize,
}

impl Default for PrintOptions {
    fn default() -> PrintOptions {
        PrintOptions {
            precision: 8,
            suppress: false,
            threshold: 1000,
            edgeitems: 3,
            linewidth: 75,
        }
    }
}

/// Shortest round-trip decimal digits of `|x|` (finite, nonzero) and the
/// decimal exponent of the first digit: `x = d.ddd * 10^exp`.
fn shortest_digits(x: f32, half: bool) -> (Vec<u8>, i32) {
    if half {
        return shortest_half_digits(x);
    }
    let (mut digits, exp) = split_exp(&format!("{:e}", x.abs()));
    // When x lies exactly halfway between two shortest candidates, Dragon4
    // takes the one with the even last digit; Rust's shortest form may take
    // the other. 112 fractional digits print any f32 exactly.
    let (exact, exact_exp) = split_exp(&format!("{:.112e}", x.abs() as f64));
    let n = digits.len();
    let tie = exact_exp == exp
        && exact.get(n) == Some(&b'5')
        && exact[n + 1..].iter().all(|&d| d == b'0');
    if tie {
        let mut low = exact[..n].to_vec();
        if (low[n - 1] - b'0') % 2 == 1 {
            // Take the high candidate: the low one plus one in its last
            // place, carrying through 9s.
            let mut i = n - 1;
            loop {
                if low[i] == b'9' {
                    low[i] = b'0';
                    if i == 0 {
                        return (vec![b'1'], exp + 1);
                    }
                    i -= 1;
                } else {
                    low[i] += 1;
                    break;
                }
            }
        }
        while low.len() > 1 && low.last() == Some(&b'0') {
            low.pop();
        }
        digits = low;
    }
    (digits, exp)
}

/// [`shortest_digits`] for a float16 value: the fewest digits whose
/// correctly rounded decimal reads back as the same float16.
fn shortest_half_digits(x: f32) -> (Vec<u8>, i32) {
    let v = (x as f64).abs();
    for n in 1..17 {
        let s = format!("{:.*e}", n - 1, v);
        let back: f64 = s.parse().unwrap_or(f64::NAN);
        if super::narrow::round_f16(back) == v {
            let (mut digits, exp) = split_exp(&s);
            while digits.len() > 1 && digits.last() == Some(&b'0') {
                digits.pop();
            }
            return (digits, exp);
        }
    }
    split_exp(&format!("{v:e}"))
}

/// The digits and exponent of Rust's `LowerExp` output (`d.ddde-5`).
fn split_exp(s: &str) -> (Vec<u8>, i32) {
    let (mant, exp) = s.split_once('e').expect("LowerExp has an exponent");
    let digits: Vec<u8> = mant.bytes().filter(|b| b.is_ascii_digit()).collect();
    (digits, exp.parse().expect("integer exponent"))
}

/// Positional digits of `x`, unique but with at most `precision` fractional
/// digits when given (rounding the exact value there), trailing zeros
/// removed. Returns (integer part with sign, fractional digits).
fn positional_parts(x: f32, precision: Option<usize>, half: bool) -> (String, String) {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return (format!("{sign}0"), String::new());
    }
    let (digits, exp) = shortest_digits(x, half);
    let frac_len = digits.len() as i32 - 1 - exp;
    let (int, frac) = if let Some(p) = precision.filter(|&p| frac_len > p as i32) {
        // Dragon4 stops at the cutoff and rounds the exact binary value.
        let s = format!("{:.*}", p, (x as f64).abs());
        let (i, f) = s.split_once('.').expect("fixed precision has a point");
        (i.to_string(), f.trim_end_matches('0').to_string())
    } else if exp >= 0 {
        let e = exp as usize;
        let mut int: String = digits.iter().take(e + 1).map(|&b| b as char).collect();
        while int.len() < e + 1 {
            int.push('0');
        }
        let frac: String = digits.iter().skip(e + 1).map(|&b| b as char).collect();
        (int, frac)
    } else {
        let zeros = "0".repeat((-exp - 1) as usize);
        let d: String = digits.iter().map(|&b| b as char).collect();
        ("0".to_string(), format!("{zeros}{d}"))
    };
    (format!("{sign}{int}"), frac)
}

/// Scientific parts of `x`: (integer digit with sign, fractional digits,
/// exponent), shortest unique digits (float16's when `half`), at most
/// `precision` fractional ones (rounding the exact value there).
fn scientific_parts(x: f32, precision: usize, half: bool) -> (String, String, i32) {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return (format!("{sign}0"), String::new(), 0);
    }
    let (mut digits, mut exp) = shortest_digits(x, half);
    if digits.len() > precision + 1 {
        (digits, exp) = split_exp(&format!("{:.*e}", precision, (x as f64).abs()));
        while digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
        }
    }
    let frac: String = digits[1..].iter().map(|&b| b as char).collect();
    (format!("{sign}{}", digits[0] as char), frac, exp)
}

fn exp_string(exp: i32, min_digits: usize) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{:0>width$}", exp.unsigned_abs(), width = min_digits)
}

/// NumPy's `FloatingFormat` for one array (`floatmode='maxprec'`).
struct FloatFormat {
    exp_format: bool,
    pad_left: usize,
    pad_right: usize,
    /// Fractional digits in scientific mode (all values padded to it).
    precision: usize,
    exp_size: usize,
    /// Writes `+` before non-negative values (the imaginary parts of a
    /// complex array).
    plus: bool,
    /// The print options' precision.
    max_precision: usize,
    /// The values are float16 ones: their shortest digits are float16's.
    half: bool,
}

impl FloatFormat {
    fn new(data: &[f32], o: &PrintOptions) -> FloatFormat {
        Self::with_sign(data, false, false, o)
    }

    /// `+` in front of an integer part that has no `-`, when `plus` is set.
    fn signed(&self, int: String) -> String {
        if self.plus && !int.starts_with('-') {
            format!("+{int}")
        } else {
            int
        }
    }

    fn with_sign(data: &[f32], plus: bool, half: bool, o: &PrintOptions) -> FloatFormat {
        let finite: Vec<f32> = data.iter().copied().filter(|v| v.is_finite()).collect();
        let nonzero: Vec<f32> = finite
            .iter()
            .map(|v| v.abs())
            .filter(|&v| v != 0.0)
            .collect();
        let mut exp_format = false;
        if !nonzero.is_empty() {
            let max = nonzero.iter().copied().fold(f32::MIN, f32::max);
            let min = nonzero.iter().copied().fold(f32::MAX, f32::min);
            // NumPy compares these in the array's own precision; the upper
            // cutoff is 10^(float32's 6 decimal digits).
            // (10^3 for float16's 3 digits).
            let cutoff = if half { 1e3f32 } else { 1e6f32 };
            exp_format = max >= cutoff || (!o.suppress && (min < 1e-4f32 || max / min > 1000f32));
        }
        let mut f = FloatFormat {
            exp_format,
            pad_left: 0,
            pad_right: 0,
            precision: 0,
            exp_size: 0,
            plus,
            max_precision: o.precision,
            half,
        };
        if finite.is_empty() {
            // Nothing to measure: widths come from nan/inf below.
        } else if exp_format {
            let parts: Vec<(String, String, i32)> = finite
                .iter()
                .map(|&v| scientific_parts(v, o.precision, half))
                .collect();
            f.exp_size = parts
                .iter()
                .map(|p| exp_string(p.2, 2).len() - 1)
                .max()
                .unwrap_or(2);
            f.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            f.pad_left = parts
                .iter()
                .map(|p| f.signed(p.0.clone()).len())
                .max()
                .unwrap_or(0);
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let parts: Vec<(String, String)> = finite
                .iter()
                .map(|&v| positional_parts(v, Some(o.precision), half))
                .collect();
            f.pad_left = parts
                .iter()
                .map(|p| f.signed(p.0.clone()).len())
                .max()
                .unwrap_or(0);
            f.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        }
        if finite.len() != data.len() {
            let neginf = data.iter().any(|v| v.is_infinite() && *v < 0.0) as usize;
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max((3usize).saturating_sub(offset))
                .max((3 + neginf).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f32) -> String {
        if !x.is_finite() {
            let ret = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            let ret = self.signed(ret.to_string());
            let width = self.pad_left + self.pad_right + 1;
            return format!("{ret:>width$}");
        }
        if self.exp_format {
            let (mut int, mut frac, mut exp) = scientific_parts(x, self.max_precision, self.half);
            if frac.len() < self.precision {
                // Asked for more digits than the shortest form has, Dragon4
                // keeps generating the exact value's digits (not zeros).
                let s = format!("{:.*e}", self.precision, x as f64);
                let (mant, e) = s.split_once('e').expect("LowerExp has an exponent");
                let (i, f) = mant.split_once('.').unwrap_or((mant, ""));
                (int, frac, exp) = (
                    i.to_string(),
                    f.to_string(),
                    e.parse().expect("integer exponent"),
                );
            }
            let int = self.signed(int);
            format!(
                "{int:>w$}.{frac}e{}",
                exp_string(exp, self.exp_size),
                w = self.pad_left
            )
        } else {
            let (int, frac) = positional_parts(x, Some(self.max_precision), self.half);
            let int = self.signed(int);
            format!(
                "{int:>w$}.{frac:<r$}",
                w = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

/// `str()` of a float32 NumPy scalar: positional for `1e-4 <= |x| < 1e6`
/// (keeping one zero: `6.0`), scientific otherwise (`1e-05`, `1.5e+08`).
fn float_scalar_str(x: f32, half: bool) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let a = (x as f64).abs();
    if x == 0.0 || (1e-4..1e6).contains(&a) {
        let (int, frac) = positional_parts(x, None, half);
        let frac = if frac.is_empty() {
            "0".to_string()
        } else {
            frac
        };
        format!("{int}.{frac}")
    } else {
        let (int, frac, exp) = scientific_parts(x, 8, half);
        let dot = if frac.is_empty() {
            String::new()
        } else {
            format!(".{frac}")
        };
        format!("{int}{dot}e{}", exp_string(exp, 2))
    }
}

/// `str()` of a complex64 NumPy scalar: CPython's layout (`(1+2j)`, `2j`)
/// with each part written as a float32 scalar without a trailing `.0`.
fn complex_scalar_str(z: super::C64) -> String {
    let part = |x: f32| {
        let s = float_scalar_str(x, false);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    let im = part(z.im);
    if z.re == 0.0 && z.re.is_sign_positive() {
        return format!("{im}j");
    }
    let sign = if im.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{im}j)", part(z.re))
}

/// `x` as C's `%g` writes it (six significant digits, trailing zeros
/// dropped, an exponent of two or more digits below 1e-4 and from 1e6):
/// how a bfloat16 value prints.
pub fn general6(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{x:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        format!("{}e{}", trim(mant), exp_string(exp, 2))
    } else {
        trim(&format!("{:.*}", (5 - exp) as usize, x))
    }
}

/// The elements NumPy measures when choosing widths: all of them, or with
/// summarisation only the `edge` leading and trailing ones per axis.
fn measured_indices(shape: &[usize], summarise: bool, edge: usize) -> Vec<usize> {
    let st = strides(shape);
    let per_axis: Vec<Vec<usize>> = shape
        .iter()
        .map(|&n| {
            if summarise && n > 2 * edge {
                (0..edge).chain(n - edge..n).collect()
            } else {
                (0..n).collect()
            }
        })
        .collect();
    let mut out = vec![0usize];
    for (d, idx) in per_axis.iter().enumerate() {
        let stride = st[d];
        out = out
            .iter()
            .flat_map(|&base| idx.iter().map(move |&i| base + i * stride))
            .collect();
    }
    out
}

/// NumPy's `_extendLine`: wraps before `word` if it would pass `width`,
/// unless the line holds only the indent.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, indent: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > indent.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = indent.to_string();
    }
    line.push_str(word);
}

/// NumPy's `_formatArray`: nested brackets, separators and line wrapping.
struct Layout<'a> {
    shape: &'a [usize],
    strides: Vec<usize>,
    word: &'a dyn Fn(usize) -> String,
    separator: &'a str,
    summarise: bool,
    edgeitems: usize,
}

impl Layout<'_> {
    fn recurse(&self, axis: usize, offset: usize, indent: &str, width: usize) -> String {
        if axis == self.shape.len() {
            return (self.word)(offset);
        }
        let next_indent = format!("{indent} ");
        let next_width = width.saturating_sub(1);
        let n = self.shape[axis];
        let edge = self.edgeitems;
        let show_summary = self.summarise && 2 * edge < n;
        let (leading, trailing) = if show_summary { (edge, edge) } else { (0, n) };
        let at = |i: usize| offset + i * self.strides[axis];
        let axes_left = self.shape.len() - axis;
        let mut s = String::new();
        if axes_left == 1 {
            let elem_width = width.saturating_sub(self.separator.trim_end().len().max(1));
            let mut line = indent.to_string();
            for i in 0..leading {
                let w = self.recurse(axis + 1, at(i), &next_indent, next_width);
                extend_line(&mut s, &mut line, &w, elem_width, indent);
                line.push_str(self.separator);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, indent);
                line.push_str(self.separator);
            }
            for k in (2..=trailing).rev() {
                let w = self.recurse(axis + 1, at(n - k), &next_indent, next_width);
                extend_line(&mut s, &mut line, &w, elem_width, indent);
                line.push_str(self.separator);
            }
            let w = self.recurse(axis + 1, at(n - 1), &next_indent, next_width);
            extend_line(&mut s, &mut line, &w, elem_width, indent);
            s.push_str(&line);
        } else {
            let line_sep = format!(
                "{}{}",
                self.separator.trim_end(),
                "\n".repeat(axes_left - 1)
            );
            for i in 0..leading {
                let nested = self.recurse(axis + 1, at(i), &next_indent, next_width);
                s.push_str(&format!("{indent}{nested}{line_sep}"));
            }
            if show_summary {
                s.push_str(&format!("{indent}...{line_sep}"));
            }
            for k in (2..=trailing).rev() {
                let nested = self.recurse(axis + 1, at(n - k), &next_indent, next_width);
                s.push_str(&format!("{indent}{nested}{line_sep}"));
            }
            let nested = self.recurse(axis + 1, at(n - 1), &next_indent, next_width);
            s.push_str(&format!("{indent}{nested}"));
        }
        format!("[{}]", &s[indent.len()..])
    }
}

/// NumPy's `array2string` for a non-empty array with at least one axis.
/// Integers right-aligned to the widest of those shown.
fn int_words<'a, T: std::fmt::Display>(
    d: &'a [T],
    measured: &[usize],
) -> Box<dyn Fn(usize) -> String + 'a> {
    let w = measured
        .iter()
        .map(|&i| d[i].to_string().len())
        .max()
        .unwrap_or(1);
    Box::new(move |i| format!("{:>w$}", d[i]))
}

fn array2string(
    a: &Array,
    separator: &str,
    prefix: &str,
    suffix: &str,
    o: &PrintOptions,
) -> String {
    let summarise = a.size() > o.threshold;
    let measured = measured_indices(a.shape(), summarise, o.edgeitems);
    let dtype = a.dtype();
    let word: Box<dyn Fn(usize) -> String + '_> = match a.buffer() {
        // ml_dtypes prints each bfloat16 as C++ streams a float: six
        // significant digits, unpadded.
        Buffer::F32(d) if dtype == super::DType::BF16 => Box::new(move |i| general6(d[i] as f64)),
        Buffer::F32(d) => {
            let vals: Vec<f32> = measured.iter().map(|&i| d[i]).collect();
            let ff = FloatFormat::with_sign(&vals, false, dtype == super::DType::F16, o);
            Box::new(move |i| ff.format(d[i]))
        }
        Buffer::I32(d) => int_words(d, &measured),
        Buffer::U32(d) => int_words(d, &measured),
        Buffer::C64(d) => {
            let re: Vec<f32> = measured.iter().map(|&i| d[i].re).collect();
            let im: Vec<f32> = measured.iter().map(|&i| d[i].im).collect();
            let (rf, imf) = (
                FloatFormat::new(&re, o),
                FloatFormat::with_sign(&im, true, false, o),
            );
            Box::new(move |i| {
                // NumPy puts the `j` before the imaginary part's padding.
                let im = imf.format(d[i].im);
                let body = im.trim_end();
                let pad = &im[body.len()..];
                format!("{}{body}j{pad}", rf.format(d[i].re))
            })
        }
        Buffer::Bool(d) => {
            let truestr = if a.ndim() == 0 { "True" } else { " True" };
            Box::new(move |i| {
                if d[i] {
                    truestr.to_string()
                } else {
                    "False".to_string()
                }
            })
        }
    };
    if a.ndim() == 0 {
        return word(0);
    }
    let layout = Layout {
        shape: a.shape(),
        strides: strides(a.shape()),
        word: &*word,
        separator,
        summarise,
        edgeitems: o.edgeitems,
    };
    let indent = format!(" {}", " ".repeat(prefix.len()));
    layout.recurse(0, 0, &indent, o.linewidth.saturating_sub(suffix.len()))
}

/// The flat indices of the elements NumPy measures when it lays out an
/// array of `shape`: all of them, or the edge items of a summarised one.
pub fn measured_elements(shape: &[usize], o: &PrintOptions) -> Vec<usize> {
    measured_indices(
        shape,
        shape.iter().product::<usize>() > o.threshold,
        o.edgeitems,
    )
}

/// NumPy's `array2string` layout around words the caller formats: the
/// elements of a non-empty array of `shape` with at least one axis,
/// `word(i)` giving flat element `i`, wrapped as after `prefix` and before
/// `suffix`, and summarised past `o.threshold` elements.
pub fn layout_words(
    shape: &[usize],
    word: &dyn Fn(usize) -> String,
    (separator, prefix, suffix): (&str, &str, &str),
    o: &PrintOptions,
) -> String {
    let layout = Layout {
        shape,
        strides: strides(shape),
        word,
        separator,
        summarise: shape.iter().product::<usize>() > o.threshold,
        edgeitems: o.edgeitems,
    };
    let indent = format!(" {}", " ".repeat(prefix.len()));
    layout.recurse(0, 0, &indent, o.linewidth.saturating_sub(suffix.len()))
}

/// What NumPy's `str()` prints for the same values as a float32 / int32 /
/// bool array (and so what `print(jax_array)` shows), with NumPy's default
/// print options.
pub fn format_numpy(a: &Array) -> String {
    format_numpy_with(a, &PrintOptions::default())
}

/// [`format_numpy`] under print options `o` (a 0-d array prints as its
/// scalar, which ignores them).
pub fn format_numpy_with(a: &Array, o: &PrintOptions) -> String {
    if a.ndim() == 0 {
        return match a.buffer() {
            Buffer::F32(d) if a.dtype() == super::DType::BF16 => general6(d[0] as f64),
            Buffer::F32(d) => float_scalar_str(d[0], a.dtype() == super::DType::F16),
            Buffer::I32(d) => d[0].to_string(),
            Buffer::U32(d) => d[0].to_string(),
            Buffer::Bool(d) => if d[0] { "True" } else { "False" }.to_string(),
            Buffer::C64(d) => complex_scalar_str(d[0]),
        };
    }
    if a.size() == 0 {
        return "[]".to_string();
    }
    array2string(a, " ", "", "", o)
}

/// JAX's `repr` of an array: `Array([1., 2.], dtype=float32)`,
/// `Array(True, dtype=bool)`, `Array([], shape=(0, 3), dtype=float32)`,
/// `Array(1., dtype=float32, weak_type=True)`, with NumPy's default print
/// options.
pub fn format_jax_repr(a: &Array) -> String {
    format_jax_repr_with(a, &PrintOptions::default())
}

/// [`format_jax_repr`] under print options `o`.
pub fn format_jax_repr_with(a: &Array, o: &PrintOptions) -> String {
    let prefix = "Array(";
    let weak = if a.is_weak() { ", weak_type=True" } else { "" };
    let dtype_str = format!("dtype={}{weak}", a.dtype().name());
    let s = if a.size() == 0 {
        format!("[], shape={}", super::shape_ops::fmt_shape(a.shape()))
    } else {
        array2string(a, ", ", prefix, ",", o)
    };
    let last_line_len = match s.rfind('\n') {
        Some(i) => s.len() - i + 1,
        None => s.len() + 2,
    };
    let sep = if last_line_len + dtype_str.len() + 2 > o.linewidth {
        " ".repeat(prefix.len())
    } else {
        " ".to_string()
    };
    format!("{prefix}{s},{sep}{dtype_str})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::DType;

    fn fbits(shape: &[usize], bits: &[u32]) -> Array {
        Array::from_f32(shape, bits.iter().map(|&b| f32::from_bits(b)).collect()).unwrap()
    }

    /// (array, NumPy 2.4's `str`, JAX 0.10.2's `repr`) for float32 inputs
    /// given as bit patterns, int32 and bool inputs; each string was printed
    /// by the real library for the same values.
    fn numpy_cases() -> Vec<(Array, &'static str, &'static str)> {
        vec![
        (fbits(&[], &[0x40c00000]), "6.0", "Array(6., dtype=float32)"),
        (fbits(&[2], &[0x40000000, 0x40000000]), "[2. 2.]", "Array([2., 2.], dtype=float32)"),
        (Array::from_i32(&[2, 2], vec![12, 16, 44, 48]).unwrap(), "[[12 16]\n [44 48]]", "Array([[12, 16],\n       [44, 48]], dtype=int32)"),
        (fbits(&[2], &[0x3dcccccd, 0x3e4ccccd]), "[0.1 0.2]", "Array([0.1, 0.2], dtype=float32)"),
        (fbits(&[2], &[0x377ba882, 0x40000000]), "[1.5e-05 2.0e+00]", "Array([1.5e-05, 2.0e+00], dtype=float32)"),
        (Array::from_bool(&[2], vec![true, false]).unwrap(), "[ True False]", "Array([ True, False], dtype=bool)"),
        (Array::from_i32(&[3], vec![1, 2, 3]).unwrap(), "[1 2 3]", "Array([1, 2, 3], dtype=int32)"),
        (Array::from_i32(&[], vec![3]).unwrap(), "3", "Array(3, dtype=int32)"),
        (Array::from_bool(&[], vec![true]).unwrap(), "True", "Array(True, dtype=bool)"),
        (fbits(&[3], &[0xbfc00000, 0x40000000, 0xbe800000]), "[-1.5   2.   -0.25]", "Array([-1.5 ,  2.  , -0.25], dtype=float32)"),
        (fbits(&[4], &[0x7fc00000, 0x7f800000, 0xff800000, 0x3f800000]), "[ nan  inf -inf   1.]", "Array([ nan,  inf, -inf,   1.], dtype=float32)"),
        (fbits(&[1], &[0x7fc00000]), "[nan]", "Array([nan], dtype=float32)"),
        (fbits(&[2, 3, 4], &[0x00000000, 0x3e124925, 0x3e924925, 0x3edb6db7, 0x3f124925, 0x3f36db6e, 0x3f5b6db7, 0x3f800000, 0x3f924925, 0x3fa49249, 0x3fb6db6e, 0x3fc92492, 0x3fdb6db7, 0x3fedb6db, 0x40000000, 0x40092492, 0x40124925, 0x401b6db7, 0x40249249, 0x402db6db, 0x4036db6e, 0x40400000, 0x40492492, 0x40524925]), "[[[0.         0.14285715 0.2857143  0.42857143]\n  [0.5714286  0.71428573 0.85714287 1.        ]\n  [1.1428572  1.2857143  1.4285715  1.5714285 ]]\n\n [[1.7142857  1.8571428  2.         2.142857  ]\n  [2.2857144  2.4285715  2.5714285  2.7142856 ]\n  [2.857143   3.         3.142857   3.2857144 ]]]", "Array([[[0.        , 0.14285715, 0.2857143 , 0.42857143],\n        [0.5714286 , 0.71428573, 0.85714287, 1.        ],\n        [1.1428572 , 1.2857143 , 1.4285715 , 1.5714285 ]],\n\n       [[1.7142857 , 1.8571428 , 2.        , 2.142857  ],\n        [2.2857144 , 2.4285715 , 2.5714285 , 2.7142856 ],\n        [2.857143  , 3.        , 3.142857  , 3.2857144 ]]], dtype=float32)"),
        (fbits(&[2], &[0x4cbebc20, 0x3f800000]), "[1.e+08 1.e+00]", "Array([1.e+08, 1.e+00], dtype=float32)"),
        (fbits(&[2], &[0x501502f9, 0x509502f9]), "[1.e+10 2.e+10]", "Array([1.e+10, 2.e+10], dtype=float32)"),
        (fbits(&[2], &[0x47f12065, 0x3f800000]), "[1.2345679e+05 1.0000000e+00]", "Array([1.2345679e+05, 1.0000000e+00], dtype=float32)"),
        (fbits(&[2], &[0x3727c5ac, 0x37a7c5ac]), "[1.e-05 2.e-05]", "Array([1.e-05, 2.e-05], dtype=float32)"),
        (fbits(&[30], &[0x00000000, 0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, 0x40e00000, 0x41000000, 0x41100000, 0x41200000, 0x41300000, 0x41400000, 0x41500000, 0x41600000, 0x41700000, 0x41800000, 0x41880000, 0x41900000, 0x41980000, 0x41a00000, 0x41a80000, 0x41b00000, 0x41b80000, 0x41c00000, 0x41c80000, 0x41d00000, 0x41d80000, 0x41e00000, 0x41e80000]), "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]", "Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n       26., 27., 28., 29.], dtype=float32)"),
        (fbits(&[100], &[0x00000000, 0x3eaaaaab, 0x3f2aaaab, 0x3f800000, 0x3faaaaab, 0x3fd55555, 0x40000000, 0x40155555, 0x402aaaab, 0x40400000, 0x40555555, 0x406aaaab, 0x40800000, 0x408aaaab, 0x40955555, 0x40a00000, 0x40aaaaab, 0x40b55555, 0x40c00000, 0x40caaaab, 0x40d55555, 0x40e00000, 0x40eaaaab, 0x40f55555, 0x41000000, 0x41055555, 0x410aaaab, 0x41100000, 0x41155555, 0x411aaaab, 0x41200000, 0x41255555, 0x412aaaab, 0x41300000, 0x41355555, 0x413aaaab, 0x41400000, 0x41455555, 0x414aaaab, 0x41500000, 0x41555555, 0x415aaaab, 0x41600000, 0x41655555, 0x416aaaab, 0x41700000, 0x41755555, 0x417aaaab, 0x41800000, 0x4182aaab, 0x41855555, 0x41880000, 0x418aaaab, 0x418d5555, 0x41900000, 0x4192aaab, 0x41955555, 0x41980000, 0x419aaaab, 0x419d5555, 0x41a00000, 0x41a2aaab, 0x41a55555, 0x41a80000, 0x41aaaaab, 0x41ad5555, 0x41b00000, 0x41b2aaab, 0x41b55555, 0x41b80000, 0x41baaaab, 0x41bd5555, 0x41c00000, 0x41c2aaab, 0x41c55555, 0x41c80000, 0x41caaaab, 0x41cd5555, 0x41d00000, 0x41d2aaab, 0x41d55555, 0x41d80000, 0x41daaaab, 0x41dd5555, 0x41e00000, 0x41e2aaab, 0x41e55555, 0x41e80000, 0x41eaaaab, 0x41ed5555, 0x41f00000, 0x41f2aaab, 0x41f55555, 0x41f80000, 0x41faaaab, 0x41fd5555, 0x42000000, 0x42015555, 0x4202aaab, 0x42040000]), "[ 0.          0.33333334  0.6666667   1.          1.3333334   1.6666666\n  2.          2.3333333   2.6666667   3.          3.3333333   3.6666667\n  4.          4.3333335   4.6666665   5.          5.3333335   5.6666665\n  6.          6.3333335   6.6666665   7.          7.3333335   7.6666665\n  8.          8.333333    8.666667    9.          9.333333    9.666667\n 10.         10.333333   10.666667   11.         11.333333   11.666667\n 12.         12.333333   12.666667   13.         13.333333   13.666667\n 14.         14.333333   14.666667   15.         15.333333   15.666667\n 16.         16.333334   16.666666   17.         17.333334   17.666666\n 18.         18.333334   18.666666   19.         19.333334   19.666666\n 20.         20.333334   20.666666   21.         21.333334   21.666666\n 22.         22.333334   22.666666   23.         23.333334   23.666666\n 24.         24.333334   24.666666   25.         25.333334   25.666666\n 26.         26.333334   26.666666   27.         27.333334   27.666666\n 28.         28.333334   28.666666   29.         29.333334   29.666666\n 30.         30.333334   30.666666   31.         31.333334   31.666666\n 32.         32.333332   32.666668   33.        ]", "Array([ 0.        ,  0.33333334,  0.6666667 ,  1.        ,  1.3333334 ,\n        1.6666666 ,  2.        ,  2.3333333 ,  2.6666667 ,  3.        ,\n        3.3333333 ,  3.6666667 ,  4.        ,  4.3333335 ,  4.6666665 ,\n        5.        ,  5.3333335 ,  5.6666665 ,  6.        ,  6.3333335 ,\n        6.6666665 ,  7.        ,  7.3333335 ,  7.6666665 ,  8.        ,\n        8.333333  ,  8.666667  ,  9.        ,  9.333333  ,  9.666667  ,\n       10.        , 10.333333  , 10.666667  , 11.        , 11.333333  ,\n       11.666667  , 12.        , 12.333333  , 12.666667  , 13.        ,\n       13.333333  , 13.666667  , 14.        , 14.333333  , 14.666667  ,\n       15.        , 15.333333  , 15.666667  , 16.        , 16.333334  ,\n       16.666666  , 17.        , 17.333334  , 17.666666  , 18.        ,\n       18.333334  , 18.666666  , 19.        , 19.333334  , 19.666666  ,\n       20.        , 20.333334  , 20.666666  , 21.        , 21.333334  ,\n       21.666666  , 22.        , 22.333334  , 22.666666  , 23.        ,\n       23.333334  , 23.666666  , 24.        , 24.333334  , 24.666666  ,\n       25.        , 25.333334  , 25.666666  , 26.        , 26.333334  ,\n       26.666666  , 27.        , 27.333334  , 27.666666  , 28.        ,\n       28.333334  , 28.666666  , 29.        , 29.333334  , 29.666666  ,\n       30.        , 30.333334  , 30.666666  , 31.        , 31.333334  ,\n       31.666666  , 32.        , 32.333332  , 32.666668  , 33.        ],      dtype=float32)"),
        (Array::from_i32(&[50], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]).unwrap(), "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47\n 48 49]", "Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,\n       34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49],      dtype=int32)"),
        (fbits(&[2], &[0x00000000, 0x00000000]), "[0. 0.]", "Array([0., 0.], dtype=float32)"),
        (fbits(&[], &[0x3727c5ac]), "1e-05", "Array(1.e-05, dtype=float32)"),
        (fbits(&[], &[0x5a0e1bca]), "1e+16", "Array(1.e+16, dtype=float32)"),
        (fbits(&[], &[0x3fc00000]), "1.5", "Array(1.5, dtype=float32)"),
        (fbits(&[], &[0x80000000]), "-0.0", "Array(-0., dtype=float32)"),
        (fbits(&[], &[0x7fc00000]), "nan", "Array(nan, dtype=float32)"),
        (fbits(&[], &[0x7f800000]), "inf", "Array(inf, dtype=float32)"),
        (fbits(&[], &[0xff800000]), "-inf", "Array(-inf, dtype=float32)"),
        (fbits(&[], &[0x3dcccccd]), "0.1", "Array(0.1, dtype=float32)"),
        (fbits(&[], &[0x38d1b717]), "1e-04", "Array(0.0001, dtype=float32)"),
        (fbits(&[], &[0x5a0e1826]), "9.999e+15", "Array(9.999e+15, dtype=float32)"),
        (fbits(&[], &[0x477fe000]), "65504.0", "Array(65504., dtype=float32)"),
        (fbits(&[0], &[]), "[]", "Array([], shape=(0,), dtype=float32)"),
        (fbits(&[0, 3], &[]), "[]", "Array([], shape=(0, 3), dtype=float32)"),
        (Array::from_i32(&[2, 0], vec![]).unwrap(), "[]", "Array([], shape=(2, 0), dtype=int32)"),
        (fbits(&[2], &[0x3b000000, 0x3f800000]), "[0.00195312 1.        ]", "Array([0.00195312, 1.        ], dtype=float32)"),
        (fbits(&[2], &[0xb727c5ac, 0x47c35000]), "[-1.e-05  1.e+05]", "Array([-1.e-05,  1.e+05], dtype=float32)"),
        (Array::from_bool(&[2, 2], vec![true, true, true, true]).unwrap(), "[[ True  True]\n [ True  True]]", "Array([[ True,  True],\n       [ True,  True]], dtype=bool)"),
        (fbits(&[2, 3, 4], &[0xc422d1fc, 0x44579c78, 0xc2fb2f26, 0x442749cf, 0x44985aff, 0x43bf76fd, 0xc45aee27, 0xc4bd4a32, 0x44db2c4b, 0xc2de959a, 0xc42c2428, 0x431041d1, 0xc33f694d, 0x4455091b, 0x4207b675, 0x415bfe4b, 0xc432a51a, 0x43eac8b7, 0xc4813bbc, 0x442678ed, 0x44be7e00, 0xc4be95f4, 0xc51a23ab, 0x441a383e]), "[[[ -651.281      862.4448    -125.59209    669.15326 ]\n  [ 1218.8436     382.9296    -875.7211   -1514.3186  ]\n  [ 1753.3842    -111.29219   -688.56494    144.2571  ]]\n\n [[ -191.41133    852.1423      33.92818     13.749583]\n  [ -714.5797     469.56808  -1033.8667     665.88947 ]\n  [ 1523.9375   -1524.686    -2466.2292     616.8788  ]]]", "Array([[[ -651.281   ,   862.4448  ,  -125.59209 ,   669.15326 ],\n        [ 1218.8436  ,   382.9296  ,  -875.7211  , -1514.3186  ],\n        [ 1753.3842  ,  -111.29219 ,  -688.56494 ,   144.2571  ]],\n\n       [[ -191.41133 ,   852.1423  ,    33.92818 ,    13.749583],\n        [ -714.5797  ,   469.56808 , -1033.8667  ,   665.88947 ],\n        [ 1523.9375  , -1524.686   , -2466.2292  ,   616.8788  ]]],      dtype=float32)"),
        (Array::from_i32(&[2, 2], vec![1, -200, 30000, 4]).unwrap(), "[[    1  -200]\n [30000     4]]", "Array([[    1,  -200],\n       [30000,     4]], dtype=int32)"),
        (fbits(&[2], &[0x33d6bf95, 0x33d6bf95]), "[1.e-07 1.e-07]", "Array([1.e-07, 1.e-07], dtype=float32)"),
        (fbits(&[2], &[0x3851b717, 0x3b449ba6]), "[5.e-05 3.e-03]", "Array([5.e-05, 3.e-03], dtype=float32)"),
        (fbits(&[5], &[0x3f800000, 0x41200000, 0x42c80000, 0x447a0000, 0x447a4000]), "[1.000e+00 1.000e+01 1.000e+02 1.000e+03 1.001e+03]", "Array([1.000e+00, 1.000e+01, 1.000e+02, 1.000e+03, 1.001e+03], dtype=float32)"),
        (fbits(&[2], &[0x7f7fffff, 0x3f800000]), "[3.4028235e+38 1.0000000e+00]", "Array([3.4028235e+38, 1.0000000e+00], dtype=float32)"),
        (Array::from_bool(&[1, 1], vec![true]).unwrap(), "[[ True]]", "Array([[ True]], dtype=bool)"),
        (fbits(&[1, 6, 1], &[0x00000000, 0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000]), "[[[0.]\n  [1.]\n  [2.]\n  [3.]\n  [4.]\n  [5.]]]", "Array([[[0.],\n        [1.],\n        [2.],\n        [3.],\n        [4.],\n        [5.]]], dtype=float32)"),
        (fbits(&[2], &[0x4996b43e, 0x3f000000]), "[1.2345678e+06 5.0000000e-01]", "Array([1.2345678e+06, 5.0000000e-01], dtype=float32)"),
        ]
    }

    #[test]
    fn matches_numpy_str_and_jax_repr() {
        let cases = numpy_cases();
        assert!(cases.len() >= 15);
        for (a, want_str, want_repr) in cases {
            assert_eq!(format_numpy(&a), want_str, "{a:?}");
            assert_eq!(format_jax_repr(&a), want_repr, "{a:?}");
        }
    }

    #[test]
    fn summarises_large_arrays() {
        // NumPy 2.4 / JAX 0.10.2 output for np.arange(2000, dtype=float32),
        // the same reshaped to (2, 1000), and np.arange(1001, dtype=int32).
        let a = Array::arange(0.0, 2000.0, 1.0, DType::F32).unwrap();
        assert_eq!(
            format_numpy(&a),
            "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"
        );
        assert_eq!(
            format_jax_repr(&a),
            "Array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], dtype=float32)"
        );
        let b = a.reshape(&[2, 1000]).unwrap();
        assert_eq!(
            format_numpy(&b),
            "[[0.000e+00 1.000e+00 2.000e+00 ... 9.970e+02 9.980e+02 9.990e+02]\n [1.000e+03 1.001e+03 1.002e+03 ... 1.997e+03 1.998e+03 1.999e+03]]"
        );
        let i = Array::arange(0.0, 1001.0, 1.0, DType::I32).unwrap();
        assert_eq!(format_numpy(&i), "[   0    1    2 ...  998  999 1000]");
        assert_eq!(
            format_jax_repr(&i),
            "Array([   0,    1,    2, ...,  998,  999, 1000], dtype=int32)"
        );
    }

    #[test]
    fn shortest_digits_break_ties_to_even() {
        // The float32 nearest 1240289.2 is 1240289.25, halfway between the
        // shortest candidates 1240289.2 and 1240289.3; NumPy prints the even
        // one.
        assert_eq!(1_240_289.2f32 as f64, 1_240_289.25);
        assert_eq!(
            shortest_digits(1_240_289.2, false),
            (b"12402892".to_vec(), 6)
        );
        assert_eq!(float_scalar_str(1_240_289.2, false), "1.2402892e+06");
    }
}
