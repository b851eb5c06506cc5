//! The `time` module's clocks. `sleep` returns at once (a program's result
//! never depends on waiting), and the clocks read the host's: the wall
//! clock natively and `Date.now()` in the browser, the monotonic clock
//! through the engine's report timer.

use crate::bail;
use crate::python::value::Obj;

use super::super::Builder;
use super::to_f64;

/// Seconds since the Unix epoch.
fn wall_seconds() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0)
    }
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() / 1e3
    }
}

/// Seconds on a monotonic clock.
fn monotonic_seconds() -> f64 {
    crate::exec::log::now_us() / 1e6
}

/// The `time` module.
pub fn module() -> Obj {
    let mut b = Builder::new("time");
    b.func("time", |_, _| Ok(Obj::Float(wall_seconds())))
        .func("time_ns", |_, _| {
            Ok(Obj::Int((wall_seconds() * 1e9) as i64))
        })
        .func("sleep", |_, a| {
            let s = to_f64(&a.req(Some(0), "secs", "sleep")?)?;
            if s < 0.0 {
                bail!(ValueError, "sleep length must be non-negative");
            }
            Ok(Obj::None)
        });
    for name in ["perf_counter", "monotonic", "process_time"] {
        b.func(name, |_, _| Ok(Obj::Float(monotonic_seconds())));
    }
    for name in ["perf_counter_ns", "monotonic_ns", "process_time_ns"] {
        b.func(name, |_, _| {
            Ok(Obj::Int((monotonic_seconds() * 1e9) as i64))
        });
    }
    b.attr("timezone", Obj::Int(0))
        .attr("altzone", Obj::Int(0))
        .attr("daylight", Obj::Int(0))
        .attr("tzname", Obj::tuple(vec![Obj::str("UTC"), Obj::str("UTC")]));
    b.build()
}
