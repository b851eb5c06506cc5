//! One error type for the whole engine.
//!
//! Every failure a user can cause is an [`Error`] carrying the kind of exception
//! JAX (or Python) would raise for the same mistake, so front ends can report
//! `ValueError: ...` exactly where JAX would, plus a message that says what to
//! change: which argument, which dimension, which sizes, which names exist.

use std::fmt;

/// The Python exception class a failure corresponds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Wrong value for an otherwise well-typed argument (shapes, specs, divisibility).
    ValueError,
    /// Wrong type or dtype, wrong number of arguments.
    TypeError,
    /// An axis name (or variable name) that nothing binds.
    NameError,
    /// An index out of range.
    IndexError,
    /// A missing key in a dict or pytree.
    KeyError,
    /// A missing attribute.
    AttributeError,
    /// `assert` failed.
    AssertionError,
    /// Division by zero in Python arithmetic.
    ZeroDivisionError,
    /// A result too large for its type (`math.exp(1000)`).
    OverflowError,
    /// Something JAX supports but shardlab does not yet, or no derivative rule.
    NotImplementedError,
    /// Python control flow on a traced value (JAX's `ConcretizationTypeError`).
    ConcretizationTypeError,
    /// Operands whose shardings over explicit mesh axes do not determine the
    /// result's (JAX's `ShardingTypeError`).
    ShardingTypeError,
    /// `bool()` of a traced value (`if`, `while`, `and`, `or`).
    TracerBoolConversionError,
    /// `np.asarray()` of a traced value.
    TracerArrayConversionError,
    /// `__index__()` of a traced value (a list index, `range`).
    TracerIntegerConversionError,
    /// A boolean mask index whose value is not known while tracing.
    NonConcreteBooleanIndexError,
    /// An nnx object changed under a trace other than the one it was made
    /// in (Flax's `flax.errors.TraceContextError`).
    TraceContextError,
    /// A linen variable of an immutable collection was assigned (Flax's
    /// `flax.errors.ModifyScopeVariableError`).
    ModifyScopeVariableError,
    /// A linen variable was read from a collection the module's variables
    /// lack (`flax.errors.ScopeCollectionNotFound`).
    ScopeCollectionNotFound,
    /// A linen variable its collection lacks was read
    /// (`flax.errors.ScopeVariableNotFoundError`).
    ScopeVariableNotFoundError,
    /// A linen module drew from an rng stream that neither it nor `params`
    /// was given (`flax.errors.InvalidRngError`).
    InvalidRngError,
    /// A device failed, the barrier timed out, or a resource limit was hit.
    RuntimeError,
    /// What JAX's runtime raises when a compiled program fails (a host
    /// callback that raised or returned the wrong type):
    /// `jax.errors.JaxRuntimeError`, a RuntimeError.
    JaxRuntimeError,
    /// The caller cancelled the run.
    Cancelled,
    /// Nesting deeper than the interpreter's native stack allows (calls,
    /// expressions, containers being printed or walked).
    RecursionError,
    /// An array or container larger than the run's memory budget or the
    /// per-array element limit.
    MemoryError,
    /// The run went past its wall-clock limit.
    TimeoutError,
    /// The program text does not parse.
    SyntaxError,
    /// An exception of a class with no more specific kind (`Exception`,
    /// `LookupError`, a program's own exception classes).
    Exception,
}

impl ErrorKind {
    /// The exception's class name as Python prints it.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorKind::ValueError => "ValueError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::NameError => "NameError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::KeyError => "KeyError",
            ErrorKind::AttributeError => "AttributeError",
            ErrorKind::AssertionError => "AssertionError",
            ErrorKind::ZeroDivisionError => "ZeroDivisionError",
            ErrorKind::OverflowError => "OverflowError",
            ErrorKind::NotImplementedError => "NotImplementedError",
            ErrorKind::ConcretizationTypeError => "ConcretizationTypeError",
            ErrorKind::ShardingTypeError => "ShardingTypeError",
            ErrorKind::TracerBoolConversionError => "TracerBoolConversionError",
            ErrorKind::TracerArrayConversionError => "TracerArrayConversionError",
            ErrorKind::TracerIntegerConversionError => "TracerIntegerConversionError",
            ErrorKind::NonConcreteBooleanIndexError => "NonConcreteBooleanIndexError",
            ErrorKind::TraceContextError => "TraceContextError",
            ErrorKind::ModifyScopeVariableError => "ModifyScopeVariableError",
            ErrorKind::ScopeCollectionNotFound => "ScopeCollectionNotFound",
            ErrorKind::ScopeVariableNotFoundError => "ScopeVariableNotFoundError",
            ErrorKind::InvalidRngError => "InvalidRngError",
            ErrorKind::RuntimeError => "RuntimeError",
            ErrorKind::JaxRuntimeError => "JaxRuntimeError",
            ErrorKind::Cancelled => "Cancelled",
            ErrorKind::RecursionError => "RecursionError",
            ErrorKind::MemoryError => "MemoryError",
            ErrorKind::TimeoutError => "TimeoutError",
            ErrorKind::SyntaxError => "SyntaxError",
            ErrorKind::Exception => "Exception",
        }
    }
}

/// A failure with its kind and a message a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Which exception this is.
    pub kind: ErrorKind,
    /// What went wrong and what would fix it.
    pub message: String,
    /// The exception object a program raised, when it raised one of its own
    /// classes: the front end keeps the object and names it here.
    pub raised: Option<Raised>,
}

/// Which exception object a front end raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raised {
    /// The front end's handle of the object.
    pub id: u64,
    /// Its class's name, which is what a traceback prints.
    pub class_name: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            raised: None,
        }
    }

    /// The exception's class name: the raised object's class, or the kind's.
    pub fn type_name(&self) -> &str {
        match &self.raised {
            Some(r) => &r.class_name,
            None => self.kind.python_name(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.type_name(), self.message)
    }
}

impl std::error::Error for Error {}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns early with an [`Error`] of the given kind and a formatted message.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*)))
    };
}

/// Builds an [`Error`] of the given kind with a formatted message.
#[macro_export]
macro_rules! err {
    ($kind:ident, $($arg:tt)*) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*))
    };
}
