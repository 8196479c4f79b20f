//! Errors and JSON across the boundary: every error from Rust is a Python
//! exception carrying the same message the CLI and the protocol give.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyString};

/// A `ValueError` with `error`'s message.
pub fn value_error(error: impl ToString) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A Python object (a dict, list, … or JSON text) as a JSON value, through
/// Python's own `json` module.
pub fn to_json_value(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(text) = object.cast::<PyString>() {
        let text = text.to_str()?;
        // Notation is a JSON string; JSON text is parsed.
        return Ok(match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value @ serde_json::Value::Object(_)) => value,
            _ => serde_json::Value::String(text.to_string()),
        });
    }
    let text: String = py
        .import("json")?
        .call_method1("dumps", (object,))?
        .extract()?;
    serde_json::from_str(&text).map_err(value_error)
}

/// JSON text as a Python object, through Python's `json` module.
pub fn from_json_text(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}
