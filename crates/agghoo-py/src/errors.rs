//! The library's errors as Python exceptions.
//!
//! The exception classes live in the pure-Python module `agghoo.exceptions` (so that they pickle,
//! and so that `AgghooIOError` can be both an `AgghooError` and an `OSError`); this module only
//! decides which class a library error becomes. The message is the library's `Display` text
//! followed by its causes (`split 0: grid point 3: fit failed: …`, as the CLI prints it), each
//! cause also raised as the exception's `__cause__`; a limit's advice names the Python call that
//! raises it (`agghoo.set_limits(...)`), not the CLI's flag.

use agghoo::limits::Count;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;

/// A library error on its way to Python, or an exception Python itself raised during the call
/// (a signal handler's `KeyboardInterrupt`).
pub(crate) enum Failure {
    Library(agghoo::Error),
    Python(PyErr),
}

/// The binding's result type: `?` converts library errors, and a `Failure` becomes a `PyErr`.
pub(crate) type Outcome<T> = std::result::Result<T, Failure>;

impl From<agghoo::Error> for Failure {
    fn from(e: agghoo::Error) -> Self {
        Failure::Library(e)
    }
}

impl Failure {
    /// A broken invariant of the binding itself.
    pub(crate) fn internal(message: String) -> Self {
        Failure::Library(agghoo::Error::Internal(message))
    }

    /// An exception raised by Python during the call.
    pub(crate) fn python(e: PyErr) -> Self {
        Failure::Python(e)
    }

    /// A panic caught at the binding's edge (a bug): its message as an [`agghoo::Error::Internal`].
    pub(crate) fn panic(payload: Box<dyn std::any::Any + Send>) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Self::internal(format!("panic: {message}"))
    }
}

/// A parameter that broke its rule.
pub(crate) fn invalid(name: &'static str, expected: &'static str, got: impl ToString) -> Failure {
    Failure::Library(agghoo::Error::invalid(name, expected, got))
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

/// The CLI's advice on raising a limit, rewritten for Python: `--limit KEY=N` and
/// `--max-memory SIZE` become the keyword of `agghoo.set_limits`.
fn python_advice(text: &str) -> String {
    let mut out = text.replace(
        "raise it with `--max-memory SIZE`, e.g. `--max-memory 32G` (library: `Limits::max_memory`)",
        "raise it with `agghoo.set_limits(max_memory=\"32G\")`",
    );
    let keys = Count::ALL.iter().map(|c| c.key()).chain(["libsvm-expansion"]);
    for key in keys {
        let python = key.replace('-', "_");
        out = out
            .replace(
                &format!("raise it with `--limit {key}=N` (library: `Limits::{python}`)"),
                &format!("raise it with `agghoo.set_limits({python}=N)`"),
            )
            .replace(&format!("`--limit {key}=N`"), &format!("`agghoo.set_limits({python}=N)`"));
    }
    out.replace("`--max-memory SIZE`", "`agghoo.set_limits(max_memory=...)`")
}

/// The message of `e` with its causes, `outer: inner: …`, each once.
fn chain(e: &agghoo::Error) -> String {
    python_advice(&agghoo::one_line(e))
}

/// The exception of `e` (its class per [`class_of`], its message per [`chain`]), its
/// `__cause__` the exception of its library cause, if any.
fn exception(py: Python<'_>, e: &agghoo::Error) -> PyResult<PyErr> {
    let module = py.import("agghoo.exceptions")?;
    let instance = module.getattr(class_of(e))?.call1((chain(e),))?;
    let err = PyErr::from_value(instance);
    let cause = std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<agghoo::Error>().or_else(|| s.downcast_ref::<Box<agghoo::Error>>().map(|b| &**b)));
    if let Some(cause) = cause {
        err.set_cause(py, Some(exception(py, cause)?));
    }
    Ok(err)
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Python(e) => e,
            // A run cancelled between units without a signal seen here (a nested call's).
            Failure::Library(e) if e.kind() == agghoo::ErrorKind::Interrupted => PyKeyboardInterrupt::new_err(chain(&e)),
            // The package's Python half is missing: still raise, with the message.
            Failure::Library(e) => Python::attach(|py| exception(py, &e).unwrap_or_else(|_| PyRuntimeError::new_err(chain(&e)))),
        }
    }
}
