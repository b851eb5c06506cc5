//! The complex64 element: a float32 real and imaginary part, with the
//! arithmetic and the elementary functions JAX's complex64 operations
//! compute, each in float32 as XLA evaluates them.

/// One complex64 value.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct C64 {
    /// Real part.
    pub re: f32,
    /// Imaginary part.
    pub im: f32,
}

impl C64 {
    /// `re + im*j`.
    pub const fn new(re: f32, im: f32) -> C64 {
        C64 { re, im }
    }

    /// A real value with a zero imaginary part.
    pub const fn real(re: f32) -> C64 {
        C64 { re, im: 0.0 }
    }

    /// The complex conjugate.
    pub fn conj(self) -> C64 {
        C64::new(self.re, -self.im)
    }

    /// `|a|` as XLA computes it, `max * sqrt(1 + (min/max)^2)`, which
    /// cannot overflow in between.
    pub fn abs(self) -> f32 {
        let (x, y) = (self.re.abs(), self.im.abs());
        let (big, small) = if x >= y { (x, y) } else { (y, x) };
        if big == 0.0 || !big.is_finite() || small.is_nan() {
            return self.re.hypot(self.im);
        }
        let r = small / big;
        big * (1.0 + r * r).sqrt()
    }

    /// The argument, in (-pi, pi].
    pub fn arg(self) -> f32 {
        self.im.atan2(self.re)
    }

    /// `e^a`.
    pub fn exp(self) -> C64 {
        let m = self.re.exp();
        if self.im == 0.0 {
            return C64::new(m, self.im);
        }
        C64::new(m * self.im.cos(), m * self.im.sin())
    }

    /// The principal natural logarithm; `log|a|` as
    /// `log(max) + log1p((min/max)^2)/2`, exact where `|a|` would round.
    pub fn ln(self) -> C64 {
        let (x, y) = (self.re.abs(), self.im.abs());
        let (big, small) = if x >= y { (x, y) } else { (y, x) };
        let re = if big == 0.0 || !big.is_finite() {
            self.abs().ln()
        } else {
            let r = small / big;
            big.ln() + 0.5 * (r * r).ln_1p()
        };
        C64::new(re, self.arg())
    }

    /// `(sinh b, cosh b)` through `expm1`, which keeps small `b` exact, as
    /// JAX lowers complex sine and cosine.
    fn sinh_cosh(b: f32) -> (f32, f32) {
        let (e1, e2) = (b.exp_m1(), (-b).exp_m1());
        ((e1 - e2) / 2.0, (e1 + e2 + 2.0) / 2.0)
    }

    /// `sin(a)`; a zero real part gives a zero real part (not NaN) however
    /// large the imaginary one.
    pub fn sin(self) -> C64 {
        let (snh, csh) = Self::sinh_cosh(self.im);
        let im = self.re.cos() * snh;
        if self.re == 0.0 {
            return C64::new(0.0, im);
        }
        C64::new(self.re.sin() * csh, im)
    }

    /// `cos(a)`; a zero real part gives a zero imaginary part.
    pub fn cos(self) -> C64 {
        let (snh, csh) = Self::sinh_cosh(self.im);
        let re = self.re.cos() * csh;
        if self.re == 0.0 {
            return C64::new(re, 0.0);
        }
        C64::new(re, -self.re.sin() * snh)
    }

    /// The principal square root, from `t = sqrt((|re| + |a|) / 2)`: the
    /// larger part is `t` and the other `|im| / 2t`, which loses nothing
    /// to cancellation whatever the sign of the real part.
    pub fn sqrt(self) -> C64 {
        if self.re == 0.0 && self.im == 0.0 {
            return C64::new(0.0, self.im);
        }
        let t = ((self.re.abs() + self.abs()) * 0.5).sqrt();
        if self.re >= 0.0 {
            C64::new(t, self.im / (2.0 * t))
        } else {
            C64::new(self.im.abs() / (2.0 * t), t.copysign(self.im))
        }
    }

    /// `a^n` for an integer `n` by repeated squaring, as `lax.integer_pow`.
    pub fn powi(self, n: i32) -> C64 {
        let (mut acc, mut base, mut k) = (C64::real(1.0), self, n.unsigned_abs());
        while k > 0 {
            if k & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            k >>= 1;
        }
        if n < 0 {
            C64::real(1.0) / acc
        } else {
            acc
        }
    }
}

impl std::ops::Add for C64 {
    type Output = C64;
    fn add(self, b: C64) -> C64 {
        C64::new(self.re + b.re, self.im + b.im)
    }
}

impl std::ops::Sub for C64 {
    type Output = C64;
    fn sub(self, b: C64) -> C64 {
        C64::new(self.re - b.re, self.im - b.im)
    }
}

impl std::ops::Mul for C64 {
    type Output = C64;
    fn mul(self, b: C64) -> C64 {
        C64::new(
            self.re * b.re - self.im * b.im,
            self.re * b.im + self.im * b.re,
        )
    }
}

/// Smith's division, which avoids overflowing `|b|^2`.
impl std::ops::Div for C64 {
    type Output = C64;
    fn div(self, b: C64) -> C64 {
        if b.re.abs() >= b.im.abs() {
            let ratio = b.im / b.re;
            let denom = b.re + b.im * ratio;
            C64::new(
                (self.re + self.im * ratio) / denom,
                (self.im - self.re * ratio) / denom,
            )
        } else {
            let ratio = b.re / b.im;
            let denom = b.re * ratio + b.im;
            C64::new(
                (self.re * ratio + self.im) / denom,
                (self.im * ratio - self.re) / denom,
            )
        }
    }
}

impl std::ops::Neg for C64 {
    type Output = C64;
    fn neg(self) -> C64 {
        C64::new(-self.re, -self.im)
    }
}
