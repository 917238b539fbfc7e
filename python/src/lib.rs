//! `prompt_inspector._core`: the Rust core inside CPython. Three doors, each releasing the GIL
//! while the core works:
//!
//! - `format_map` and `render_jinja2`: the two template engines over Python values, converted
//!   to the core's values here (ints of any size exact, floats as floats, a pydantic model as its
//!   `model_dump(mode="json")`);
//! - `dispatch(operation, request)`: any operation of the core's one table (docs/api.md), its
//!   request and response the Python values of the JSON `serve` and the app take and give,
//!   converted here without JSON (`to_python`). The Python layer (`prompt_inspector`) builds
//!   the requests and raises the exceptions docs/python.md lists.
//!
//! Failures cross as `EngineError(kind, message, line, column, start, end)` for templates and
//! `CoreError(api_error_json)` for operations; the Python layer raises the classes docs/python.md
//! names from them.

use std::sync::{Arc, OnceLock};

mod to_python;

use prompt_inspector::api::{self, Live};
use prompt_inspector::value::{Dict, PyInt as CoreInt, Value};
use prompt_inspector::{Engine, Template, TemplateError, Vars};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

// The core's values are many and small (docs/performance.md has what mimalloc saves); Python's
// own objects keep Python's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(_core, EngineError, PyException);
create_exception!(_core, CoreError, PyException);

/// How deep a value may nest (Python's own `json` stops near the recursion limit too).
const MAX_DEPTH: usize = 512;

/// A Python value as a core value: what `json.dumps` would accept, plus any size of int.
fn to_value(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "the value nests more than {MAX_DEPTH} levels deep"
        )));
    }
    if obj.is_none() {
        return Ok(Value::None);
    }
    // bool before int: a bool is an int in Python.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(small) = obj.extract::<i64>() {
            return Ok(Value::Int(CoreInt::Small(small)));
        }
        let digits = obj.str()?.to_cow()?.into_owned();
        return CoreInt::parse(&digits)
            .map(Value::Int)
            .ok_or_else(|| PyValueError::new_err(format!("not an integer: {digits}")));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(Arc::from(s.to_cow()?.as_ref())));
    }
    if let Ok(list) = obj.cast::<PyList>() {
        let items: PyResult<Vec<Value>> = list.iter().map(|v| to_value(&v, depth + 1)).collect();
        return Ok(Value::List(Arc::new(items?)));
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        let items: PyResult<Vec<Value>> = tuple.iter().map(|v| to_value(&v, depth + 1)).collect();
        return Ok(Value::List(Arc::new(items?)));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        return dict_value(dict, depth);
    }
    if obj.hasattr("model_dump")? {
        let kwargs = PyDict::new(obj.py());
        kwargs.set_item("mode", "json")?;
        let dumped = obj.call_method("model_dump", (), Some(&kwargs))?;
        return to_value(&dumped, depth + 1);
    }
    if obj.hasattr("keys")? && obj.hasattr("__getitem__")? {
        let as_dict = obj.py().get_type::<PyDict>().call1((obj,))?;
        return dict_value(as_dict.cast::<PyDict>()?, depth);
    }
    Err(PyTypeError::new_err(format!(
        "Object of type {} is not JSON-like (str, int, float, bool, None, list, tuple, dict, or a model with model_dump)",
        obj.get_type().name()?
    )))
}

fn dict_value(dict: &Bound<'_, PyDict>, depth: usize) -> PyResult<Value> {
    let mut out = Dict::default();
    for (k, v) in dict.iter() {
        let Ok(key) = k.cast::<PyString>() else {
            return Err(PyTypeError::new_err(format!(
                "keys must be str, not {}",
                k.get_type().name()?
            )));
        };
        out.insert(Arc::from(key.to_cow()?.as_ref()), to_value(&v, depth + 1)?);
    }
    Ok(Value::Dict(Arc::new(out)))
}

fn engine_error(e: &TemplateError) -> PyErr {
    let range = e.range();
    EngineError::new_err((
        e.kind().python_name(),
        e.message().to_owned(),
        e.line(),
        e.column(),
        range.as_ref().map(|r| r.start),
        range.as_ref().map(|r| r.end),
    ))
}

fn render_with(
    py: Python<'_>,
    engine: Engine,
    template: &str,
    mapping: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let vars = Vars::new(to_value(mapping, 0)?);
    py.detach(|| Template::compile(engine, template).and_then(|t| t.render(&vars)))
        .map_err(|e| engine_error(&e))
}

/// `template.format_map(mapping)` (Python's `str.format_map`).
#[pyfunction]
fn format_map(py: Python<'_>, template: &str, mapping: &Bound<'_, PyAny>) -> PyResult<String> {
    render_with(py, Engine::Fstring, template, mapping)
}

/// `jinja2.Environment().from_string(template).render(mapping)`.
#[pyfunction]
fn render_jinja2(py: Python<'_>, template: &str, mapping: &Bound<'_, PyAny>) -> PyResult<String> {
    render_with(py, Engine::Jinja2, template, mapping)
}

fn live_documents() -> &'static Live {
    static LIVE: OnceLock<Live> = OnceLock::new();
    LIVE.get_or_init(Live::new)
}

/// Runs one operation of the core's table (docs/api.md) on its request, a JSON-like Python
/// value, and answers with Python values: the dicts and lists `json.loads` of the operation's
/// JSON response would give, built straight from the core's response (no JSON is written or
/// parsed on the way). A failure is `CoreError` with the `{code, message, ...}` error as JSON.
#[pyfunction]
fn dispatch<'py>(
    py: Python<'py>,
    operation: &str,
    request: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    // The table's types are written bare (src/api/operations.rs).
    use prompt_inspector::api::*;
    prompt_inspector::for_each_operation!([python_operations] py, operation, request)
}

// The Python door's expansion of the operations table (src/api/operations.rs).
macro_rules! python_operations {
    ([$py:ident, $operation:ident, $request:ident]
     $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
        match $operation {
            $( stringify!($name) => {
                python_operations!(@call $py $request $name ($($req)?))
            } )*
            other => Err(core_error(&api::ApiError::new(
                api::ErrorCode::UnknownOperation,
                format!("no operation {other:?}; the operations are {}", api::OPERATIONS.join(", ")),
            ))),
        }
    };
    (@call $py:ident $request:ident $name:ident ()) => {
        answer($py, $py.detach(|| {
            api::guarded(stringify!($name), || api::op::$name(live_documents()))
        }))
    };
    (@call $py:ident $request:ident $name:ident ($req:ty)) => {{
        let req: $req = request_of($request)?;
        answer($py, $py.detach(move || {
            api::guarded(stringify!($name), move || api::op::$name(live_documents(), req))
        }))
    }};
}
use python_operations;

/// A request from Python values: what `json.dumps` of them would give, read as the operation's
/// request type (a scene's text is copied, never escaped into JSON).
fn request_of<T: serde::de::DeserializeOwned>(request: &Bound<'_, PyAny>) -> PyResult<T> {
    let value = to_value(request, 0)?;
    serde_json::to_value(&value)
        .and_then(serde_json::from_value)
        .map_err(|e| {
            core_error(&api::ApiError::new(
                api::ErrorCode::BadRequest,
                format!("the request: {e}"),
            ))
        })
}

fn answer<'py, T: serde::Serialize>(
    py: Python<'py>,
    response: Result<T, api::ApiError>,
) -> PyResult<Bound<'py, PyAny>> {
    match response {
        Ok(value) => to_python::to_python(py, &value),
        Err(e) => Err(core_error(&e)),
    }
}

fn core_error(e: &api::ApiError) -> PyErr {
    CoreError::new_err(prompt_inspector::json_out::to_string_pretty(e))
}

/// A mapping as JSON text for the core to read as a scene: what `json.dumps` gives up to
/// spacing and the spelling of floats, written without Python's encoder (the slow half of
/// rendering a large scene given as a dict).
#[pyfunction]
fn scene_text(py: Python<'_>, mapping: &Bound<'_, PyAny>) -> PyResult<String> {
    let value = to_value(mapping, 0)?;
    py.detach(|| serde_json::to_string(&value))
        .map_err(|e| PyValueError::new_err(format!("the scene: {e}")))
}

/// The names of the core's operations, in table order.
#[pyfunction]
fn operations() -> Vec<&'static str> {
    api::OPERATIONS.to_vec()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(format_map, m)?)?;
    m.add_function(wrap_pyfunction!(render_jinja2, m)?)?;
    m.add_function(wrap_pyfunction!(dispatch, m)?)?;
    m.add_function(wrap_pyfunction!(operations, m)?)?;
    m.add_function(wrap_pyfunction!(scene_text, m)?)?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("CoreError", m.py().get_type::<CoreError>())?;
    Ok(())
}
