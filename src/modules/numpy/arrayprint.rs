//! NumPy's `repr` of host arrays at a chosen precision (`array([1. , 2.5])`,
//! `array([1., 2.], dtype=float32)`), as `numpy.testing` prints the arrays
//! it compares: float64 values with their own shortest digits, float32
//! values with float32's, both cut to `precision` fractional digits.

use crate::array::format::{layout_words, measured_elements, PrintOptions};

use super::host::{shape_str, HostArray, Kind};

/// Most lines NumPy lets a line of printed array reach.
const LINE_WIDTH: usize = 75;

/// Shortest round-trip digits of `|x|` and the exponent of the first.
fn shortest(x: f64, single: bool) -> (String, i32) {
    let s = if single {
        format!("{:e}", (x as f32).abs())
    } else {
        format!("{:e}", x.abs())
    };
    split_exp(&s)
}

fn split_exp(s: &str) -> (String, i32) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp.parse().unwrap_or(0))
}

fn sign(x: f64) -> &'static str {
    if x.is_sign_negative() {
        "-"
    } else {
        ""
    }
}

/// Positional digits: (signed integer part, fractional digits without
/// trailing zeros), unique digits cut to `precision` fractional ones.
fn positional(x: f64, precision: usize, single: bool) -> (String, String) {
    if x == 0.0 {
        return (format!("{}0", sign(x)), String::new());
    }
    let (digits, exp) = shortest(x, single);
    let frac_len = digits.len() as i32 - 1 - exp;
    let (int, frac) = if frac_len > precision as i32 {
        let s = format!("{:.*}", precision, x.abs());
        let (i, f) = s.split_once('.').unwrap_or((&s, ""));
        (i.to_string(), f.trim_end_matches('0').to_string())
    } else if exp >= 0 {
        let e = exp as usize;
        let int: String = format!("{digits:0<w$}", w = e + 1)[..e + 1].to_string();
        (int, digits.get(e + 1..).unwrap_or("").to_string())
    } else {
        let zeros = "0".repeat((-exp - 1) as usize);
        ("0".to_string(), format!("{zeros}{digits}"))
    };
    (format!("{}{int}", sign(x)), frac)
}

/// Scientific parts: (signed leading digit, fractional digits without
/// trailing zeros, exponent), unique digits cut to `precision`.
fn scientific(x: f64, precision: usize, single: bool) -> (String, String, i32) {
    if x == 0.0 {
        return (format!("{}0", sign(x)), String::new(), 0);
    }
    let (mut digits, mut exp) = shortest(x, single);
    if digits.len() > precision + 1 {
        (digits, exp) = split_exp(&format!("{:.*e}", precision, x.abs()));
        digits = digits.trim_end_matches('0').to_string();
        if digits.is_empty() {
            digits.push('0');
        }
    }
    let frac = digits.get(1..).unwrap_or("").to_string();
    (format!("{}{}", sign(x), &digits[..1]), frac, exp)
}

fn exp_str(exp: i32, digits: usize) -> String {
    let s = if exp < 0 { '-' } else { '+' };
    format!("{s}{:0>digits$}", exp.unsigned_abs())
}

/// NumPy's `FloatingFormat` in `maxprec` mode for one array's values.
struct FloatFormat {
    exp: bool,
    pad_left: usize,
    pad_right: usize,
    precision: usize,
    exp_size: usize,
    single: bool,
}

impl FloatFormat {
    fn new(values: &[f64], o: &PrintOptions, single: bool) -> FloatFormat {
        let precision = o.precision;
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let mut f = FloatFormat {
            exp: exp_mode(&finite, single, o.suppress),
            pad_left: 0,
            pad_right: 0,
            precision,
            exp_size: 0,
            single,
        };
        if finite.is_empty() {
        } else if f.exp {
            let parts: Vec<_> = finite
                .iter()
                .map(|&v| scientific(v, precision, single))
                .collect();
            f.exp_size = parts
                .iter()
                .map(|p| exp_str(p.2, 2).len() - 1)
                .max()
                .unwrap_or(2);
            f.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            f.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let parts: Vec<_> = finite
                .iter()
                .map(|&v| positional(v, precision, single))
                .collect();
            f.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
            f.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        }
        if finite.len() != values.len() {
            let neginf = values.iter().any(|v| v.is_infinite() && *v < 0.0) as usize;
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + neginf).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            return format!("{s:>w$}", w = self.pad_left + self.pad_right + 1);
        }
        if self.exp {
            let (mut int, mut frac, mut exp) = scientific(x, self.precision, self.single);
            if frac.len() < self.precision && x != 0.0 {
                // Past the unique digits, Dragon4 goes on with the exact
                // value's digits.
                let (d, e) = split_exp(&format!("{:.*e}", self.precision, x.abs()));
                (int, frac, exp) = (format!("{}{}", sign(x), &d[..1]), d[1..].to_string(), e);
            }
            let frac = format!("{frac:0<p$}", p = self.precision);
            let e = exp_str(exp, self.exp_size);
            format!("{int:>w$}.{frac}e{e}", w = self.pad_left)
        } else {
            let (int, frac) = positional(x, self.precision, self.single);
            format!(
                "{int:>w$}.{frac:<r$}",
                w = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

/// Whether NumPy prints these finite values in scientific notation,
/// comparing in the array's own precision.
fn exp_mode(finite: &[f64], single: bool, suppress: bool) -> bool {
    let nonzero: Vec<f64> = finite
        .iter()
        .map(|v| v.abs())
        .filter(|&v| v != 0.0)
        .collect();
    if nonzero.is_empty() {
        return false;
    }
    let max = nonzero.iter().copied().fold(f64::MIN, f64::max);
    let min = nonzero.iter().copied().fold(f64::MAX, f64::min);
    if single {
        let (max, min) = (max as f32, min as f32);
        max >= 1e6 || (!suppress && (min < 1e-4 || max / min > 1000.0))
    } else {
        max >= 1e8 || (!suppress && (min < 1e-4 || max / min > 1000.0))
    }
}

/// A word formatter for the elements of `a`.
fn words<'a>(a: &'a HostArray, o: &PrintOptions) -> Box<dyn Fn(usize) -> String + 'a> {
    let measured: Vec<f64> = measured_elements(&a.shape, o)
        .iter()
        .map(|&i| a.data[i])
        .collect();
    match a.kind {
        Kind::Float32 | Kind::Float64 => {
            let ff = FloatFormat::new(&measured, o, a.kind == Kind::Float32);
            Box::new(move |i| ff.format(a.data[i]))
        }
        Kind::UInt8 | Kind::UInt32 | Kind::Int32 | Kind::Int64 => {
            let w = measured
                .iter()
                .map(|&v| (v as i64).to_string().len())
                .max()
                .unwrap_or(1);
            Box::new(move |i| format!("{:>w$}", a.data[i] as i64))
        }
        Kind::Bool => {
            let t = if a.shape.is_empty() { "True" } else { " True" };
            Box::new(move |i| if a.data[i] != 0.0 { t } else { "False" }.to_string())
        }
    }
}

/// `np.array2string` of a 0-d value (default precision 8): `0.1`, `4.`,
/// `1.e-09`.
pub fn scalar_str(x: f64, kind: Kind) -> String {
    let a = HostArray::scalar(x, kind);
    let word = words(&a, &PrintOptions::default())(0);
    word
}

/// `str(a)` of a NumPy array: `[0.3 0.6]`, `[[1 2]\n [3 4]]`.
pub fn array_str(a: &HostArray) -> String {
    if a.size() == 0 {
        return "[]".to_string();
    }
    if a.shape.is_empty() && a.kind != Kind::Float32 {
        // A 0-d array prints as its scalar does.
        return crate::python::format::repr_of(&a.item(0));
    }
    let o = crate::exec::run::print_options();
    if a.shape.is_empty() {
        return words(a, &o)(0);
    }
    layout_words(&a.shape, &*words(a, &o), (" ", "", ""), &o)
}

/// `repr(np.asarray(a))` under print options `o`.
pub fn array_repr(a: &HostArray, o: &PrintOptions) -> String {
    let prefix = "array(";
    let body = if a.size() == 0 {
        "[]".to_string()
    } else if a.shape.is_empty() {
        words(a, o)(0)
    } else {
        layout_words(&a.shape, &*words(a, o), (", ", prefix, ")"), o)
    };
    let mut extras = vec![];
    if a.size() == 0 && a.shape != [0] {
        extras.push(format!("shape={}", shape_str(&a.shape)));
    }
    if matches!(
        a.kind,
        Kind::Float32 | Kind::Int32 | Kind::UInt32 | Kind::UInt8
    ) || a.size() == 0
    {
        extras.push(format!("dtype={}", a.kind.name()));
    }
    if extras.is_empty() {
        return format!("{prefix}{body})");
    }
    let arr = format!("{prefix}{body},");
    let extra = format!("{})", extras.join(", "));
    let last_line = arr.len() - arr.rfind('\n').map_or(0, |i| i + 1);
    let spacer = if last_line + extra.len() + 1 > LINE_WIDTH {
        format!("\n{}", " ".repeat(prefix.len()))
    } else {
        " ".to_string()
    };
    format!("{arr}{spacer}{extra}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(shape: &[usize], data: &[f64], kind: Kind) -> HostArray {
        HostArray {
            shape: shape.to_vec(),
            data: data.to_vec(),
            kind,
        }
    }

    #[test]
    fn reprs_match_numpy() {
        // repr(np.asarray(...)) in NumPy 2.4.6 with np.set_printoptions
        // (precision=6) for the first five, the default 8 for scalar_str.
        let f64s = |d: &[f64]| host(&[d.len()], d, Kind::Float64);
        let p6 = PrintOptions {
            precision: 6,
            ..PrintOptions::default()
        };
        assert_eq!(
            array_repr(&f64s(&[1.0, 2.0, 3.1]), &p6),
            "array([1. , 2. , 3.1])"
        );
        assert_eq!(
            array_repr(&f64s(&[1.0, 2.0001]), &p6),
            "array([1.    , 2.0001])"
        );
        assert_eq!(
            array_repr(&f64s(&[1e-9, 1.0]), &p6),
            "array([1.e-09, 1.e+00])"
        );
        let f32s = host(&[3], &[1.0, 2.0, 3.1f32 as f64], Kind::Float32);
        assert_eq!(
            array_repr(&f32s, &p6),
            "array([1. , 2. , 3.1], dtype=float32)"
        );
        let m = host(&[2, 2], &[1.0, 2.5, 3.0, 0.0], Kind::Float64);
        assert_eq!(
            array_repr(&m, &p6),
            "array([[1. , 2.5],\n       [3. , 0. ]])"
        );
        assert_eq!(array_repr(&host(&[], &[2.0], Kind::Int64), &p6), "array(2)");
        assert_eq!(scalar_str(0.1, Kind::Float64), "0.1");
        assert_eq!(scalar_str(4.0, Kind::Float64), "4.");
        assert_eq!(scalar_str(1e-9, Kind::Float64), "1.e-09");
        assert_eq!(
            scalar_str(4.99975001249937e-05, Kind::Float64),
            "4.99975001e-05"
        );
        assert_eq!(scalar_str(0.1 / 3.1, Kind::Float64), "0.03225806");
        assert_eq!(
            scalar_str((3.1f32 - 3.0) as f64, Kind::Float32),
            "0.0999999"
        );
    }
}
