//! The library's errors as Python exceptions.
//!
//! The exception classes live in the pure-Python module `agghoo.exceptions` (so that they pickle,
//! and so that `AgghooIOError` can be both an `AgghooError` and an `OSError`); this module only
//! decides which class a library error becomes. The message is the library's `Display` text.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// A library error on its way to Python.
pub(crate) struct Failure(agghoo::Error);

/// The binding's result type: `?` converts library errors, and a `Failure` becomes a `PyErr`.
pub(crate) type Outcome<T> = std::result::Result<T, Failure>;

impl From<agghoo::Error> for Failure {
    fn from(e: agghoo::Error) -> Self {
        Failure(e)
    }
}

impl Failure {
    /// A broken invariant of the binding itself.
    pub(crate) fn internal(message: String) -> Self {
        Failure(agghoo::Error::Internal(message))
    }
}

/// A parameter that broke its rule.
pub(crate) fn invalid(name: &'static str, expected: &'static str, got: impl ToString) -> Failure {
    Failure(agghoo::Error::invalid(name, expected, got))
}

/// The name of the `agghoo.exceptions` class an error becomes: one class per
/// [`ErrorKind`](agghoo::ErrorKind).
fn class_of(e: &agghoo::Error) -> &'static str {
    use agghoo::ErrorKind as K;
    match e.kind() {
        K::Io => "AgghooIOError",
        K::Data => "DataError",
        K::Parameter => "ParameterError",
        K::Fit => "FitError",
        K::Numerical => "NumericalError",
        K::CorruptFile => "CorruptFileError",
        K::ResourceLimit => "ResourceLimitError",
        K::Internal => "InternalError",
        _ => "AgghooError",
    }
}

impl From<Failure> for PyErr {
    fn from(Failure(e): Failure) -> PyErr {
        let message = e.to_string();
        Python::attach(|py| {
            match py.import("agghoo.exceptions").and_then(|m| m.getattr(class_of(&e))).and_then(|class| class.call1((message.clone(),))) {
                Ok(instance) => PyErr::from_value(instance),
                // The package's Python half is missing: still raise, with the message.
                Err(_) => PyRuntimeError::new_err(message),
            }
        })
    }
}
