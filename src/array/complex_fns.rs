//! The trigonometric and hyperbolic functions of a complex64 element and
//! their inverses. Each is evaluated in double precision with a formula
//! free of cancellation on its branch (Kahan's for the inverses), then
//! rounded once to float32: the correctly rounded value, which is what
//! XLA's float32 expansions give to within their last bit.

use super::complex::C64;

/// A complex number in double precision, for the intermediate steps.
#[derive(Debug, Clone, Copy)]
struct Z {
    re: f64,
    im: f64,
}

impl Z {
    fn of(z: C64) -> Z {
        Z {
            re: z.re as f64,
            im: z.im as f64,
        }
    }

    fn to_c64(self) -> C64 {
        C64::new(self.re as f32, self.im as f32)
    }

    fn add(self, b: Z) -> Z {
        Z {
            re: self.re + b.re,
            im: self.im + b.im,
        }
    }

    fn mul(self, b: Z) -> Z {
        Z {
            re: self.re * b.re - self.im * b.im,
            im: self.re * b.im + self.im * b.re,
        }
    }

    fn conj(self) -> Z {
        Z {
            re: self.re,
            im: -self.im,
        }
    }

    /// `i * z`.
    fn times_i(self) -> Z {
        Z {
            re: -self.im,
            im: self.re,
        }
    }

    /// `-i * z`.
    fn times_minus_i(self) -> Z {
        Z {
            re: self.im,
            im: -self.re,
        }
    }

    fn real(re: f64) -> Z {
        Z { re, im: 0.0 }
    }

    /// The principal square root; the sign of a zero imaginary part picks
    /// the side of the cut along the negative reals.
    fn sqrt(self) -> Z {
        if self.re == 0.0 && self.im == 0.0 {
            return Z {
                re: 0.0,
                im: self.im,
            };
        }
        let t = ((self.re.abs() + self.re.hypot(self.im)) * 0.5).sqrt();
        if self.re >= 0.0 {
            Z {
                re: t,
                im: self.im / (2.0 * t),
            }
        } else {
            Z {
                re: self.im.abs() / (2.0 * t),
                im: t.copysign(self.im),
            }
        }
    }
}

/// `tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y)`; for large
/// `|x|` the real part is `±1` and the imaginary part decays as `e^-2|x|`.
fn tanh_z(z: Z) -> Z {
    let (x, y) = (z.re, z.im);
    if x.abs() > 20.0 {
        let im = 4.0 * y.sin() * y.cos() * (-2.0 * x.abs()).exp();
        return Z {
            re: 1f64.copysign(x),
            im,
        };
    }
    let d = (2.0 * x).cosh() + (2.0 * y).cos();
    Z {
        re: (2.0 * x).sinh() / d,
        im: (2.0 * y).sin() / d,
    }
}

/// Kahan's arcsine: `atan2(x, Re(sqrt(1-z) sqrt(1+z)))` and
/// `asinh(Im(conj(sqrt(1-z)) sqrt(1+z)))`.
fn asin_z(z: Z) -> Z {
    let one = Z::real(1.0);
    let a = one
        .add(Z {
            re: -z.re,
            im: -z.im,
        })
        .sqrt();
    let b = one.add(z).sqrt();
    Z {
        re: z.re.atan2(a.mul(b).re),
        im: a.conj().mul(b).im.asinh(),
    }
}

/// Kahan's arccosine: `2 atan2(Re sqrt(1-z), Re sqrt(1+z))` and
/// `asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))`.
fn acos_z(z: Z) -> Z {
    let one = Z::real(1.0);
    let a = one
        .add(Z {
            re: -z.re,
            im: -z.im,
        })
        .sqrt();
    let b = one.add(z).sqrt();
    Z {
        re: 2.0 * a.re.atan2(b.re),
        im: b.conj().mul(a).im.asinh(),
    }
}

/// Kahan's inverse hyperbolic cosine: `asinh(Re(conj(sqrt(z-1))
/// sqrt(z+1)))` and `2 atan2(Im sqrt(z-1), Re sqrt(z+1))`.
fn acosh_z(z: Z) -> Z {
    let a = z.add(Z::real(-1.0)).sqrt();
    let b = z.add(Z::real(1.0)).sqrt();
    Z {
        re: a.conj().mul(b).re.asinh(),
        im: 2.0 * a.im.atan2(b.re),
    }
}

/// `atanh(x + iy)`: real part `log1p(4x / ((1-x)^2 + y^2)) / 4`,
/// imaginary part `atan2(2y, (1-x)(1+x) - y^2) / 2`.
fn atanh_z(z: Z) -> Z {
    let (x, y) = (z.re, z.im);
    let re = 0.25 * (4.0 * x / ((1.0 - x) * (1.0 - x) + y * y)).ln_1p();
    let im = 0.5 * (2.0 * y).atan2((1.0 - x) * (1.0 + x) - y * y);
    Z { re, im }
}

impl C64 {
    /// `tan(z) = -i tanh(iz)`.
    pub fn tan(self) -> C64 {
        tanh_z(Z::of(self).times_i()).times_minus_i().to_c64()
    }

    /// The hyperbolic tangent.
    pub fn tanh(self) -> C64 {
        tanh_z(Z::of(self)).to_c64()
    }

    /// `sinh(x + iy) = sinh x cos y + i cosh x sin y`.
    pub fn sinh(self) -> C64 {
        let z = Z::of(self);
        Z {
            re: z.re.sinh() * z.im.cos(),
            im: z.re.cosh() * z.im.sin(),
        }
        .to_c64()
    }

    /// `cosh(x + iy) = cosh x cos y + i sinh x sin y`.
    pub fn cosh(self) -> C64 {
        let z = Z::of(self);
        Z {
            re: z.re.cosh() * z.im.cos(),
            im: z.re.sinh() * z.im.sin(),
        }
        .to_c64()
    }

    /// The principal arcsine.
    pub fn asin(self) -> C64 {
        asin_z(Z::of(self)).to_c64()
    }

    /// The principal arccosine.
    pub fn acos(self) -> C64 {
        acos_z(Z::of(self)).to_c64()
    }

    /// The principal arctangent, `atan(z) = -i atanh(iz)`.
    pub fn atan(self) -> C64 {
        atanh_z(Z::of(self).times_i()).times_minus_i().to_c64()
    }

    /// `asinh(z) = -i asin(iz)`.
    pub fn asinh(self) -> C64 {
        asin_z(Z::of(self).times_i()).times_minus_i().to_c64()
    }

    /// The principal inverse hyperbolic cosine.
    pub fn acosh(self) -> C64 {
        acosh_z(Z::of(self)).to_c64()
    }

    /// The principal inverse hyperbolic tangent.
    pub fn atanh(self) -> C64 {
        atanh_z(Z::of(self)).to_c64()
    }

    /// `z / |z|`, and 0 at 0, as `lax.sign` on complex numbers.
    pub fn sign(self) -> C64 {
        if self.re == 0.0 && self.im == 0.0 {
            return self;
        }
        let z = Z::of(self);
        let m = z.re.hypot(z.im);
        Z {
            re: z.re / m,
            im: z.im / m,
        }
        .to_c64()
    }

    /// `log(1 + z)`, exact for small `z`.
    pub fn ln_1p(self) -> C64 {
        let z = Z::of(self);
        // |1+z|^2 - 1 = 2x + x^2 + y^2 keeps the digits of a small z.
        let re = 0.5 * (z.re * (2.0 + z.re) + z.im * z.im).ln_1p();
        Z {
            re,
            im: z.im.atan2(1.0 + z.re),
        }
        .to_c64()
    }

    /// `exp(z) - 1`, exact for small `z`.
    pub fn exp_m1(self) -> C64 {
        let z = Z::of(self);
        // Re: e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2).
        let h = (z.im / 2.0).sin();
        Z {
            re: z.re.exp_m1() * z.im.cos() - 2.0 * h * h,
            im: z.re.exp() * z.im.sin(),
        }
        .to_c64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: C64, re: f32, im: f32) {
        assert!(
            (a.re - re).abs() < 1e-5 && (a.im - im).abs() < 1e-5,
            "{a:?}"
        );
    }

    #[test]
    fn inverse_functions_invert() {
        let z = C64::new(0.3, -0.7);
        close(z.sin().asin(), 0.3, -0.7);
        close(z.cos().acos(), 0.3, -0.7);
        close(z.tan().atan(), 0.3, -0.7);
        close(z.sinh().asinh(), 0.3, -0.7);
        close(z.tanh().atanh(), 0.3, -0.7);
        close(C64::new(0.3, 0.7).cosh().acosh(), 0.3, 0.7);
    }

    #[test]
    fn values_off_the_real_line() {
        // NumPy in double precision: arccos(4-1j), arcsinh(2j).
        close(C64::new(4.0, -1.0).acos(), 0.252_179_4, 2.096_596_4);
        close(
            C64::new(0.0, 2.0).asinh(),
            1.316_958,
            std::f32::consts::FRAC_PI_2,
        );
        close(C64::new(2.0, -5.0).tanh(), 1.031_008, 0.020_553_017);
    }
}
