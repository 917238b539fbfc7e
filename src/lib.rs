//! Prompt Inspector core: the prompt-injection engine of TFRobot's design and xbot's
//! cache-friendly run loop, with no GUI dependency.
//!
//! Data flows from a scene file through [`value`] (JSON as Python reads it) into [`template`]s
//! (Python `str.format_map` and Jinja2), which render each prompt piece.

pub mod api;
pub mod billing;
pub mod check;
pub mod context;
pub mod conversation;
pub mod files;
pub mod html;
#[cfg(feature = "http-server")]
pub mod http_server;
pub mod import;
pub mod inject;
pub mod json;
pub mod json_out;
pub mod otlp;
pub mod pricing;
pub mod provider;
pub mod py;
pub mod report;
pub mod runloop;
pub mod scene;
pub mod segments;
pub mod template;
pub mod tokens;
pub mod usage;
pub mod value;
pub mod verify;

/// The core's version (its Cargo.toml's): what the app's About box and `--version` say.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use template::{Engine, ErrorKind, Template, TemplateError, Vars};
pub use value::{PyInt, Value};
