//! The context templates render over (docs/scene-format.md): the scene's context as written, keys in file
//! order, with the standard keys Python's `PromptContext` always has appended when missing.

use std::sync::Arc;

use crate::scene::Tool;
use crate::value::{Dict, Value};

/// The effective context: `context` as written plus missing standard keys, in this order:
/// `user_input`, `conversation`, `runtime_vars`, `neural`, `tools` (one `{name, description}` per
/// distinct valid tool, as `PromptTool` views).
pub fn effective(context: &Value, valid_tools: &[&Tool]) -> Value {
    let mut map: Dict = match context {
        Value::Dict(m) => (**m).clone(),
        _ => Dict::default(),
    };
    let empty_dict = || Value::Dict(Arc::new(Dict::default()));
    let defaults: [(&str, &dyn Fn() -> Value); 4] = [
        ("user_input", &|| {
            let mut ui = Dict::default();
            ui.insert(Arc::from("input"), Value::str(""));
            ui.insert(Arc::from("additional_info"), empty_dict());
            Value::Dict(Arc::new(ui))
        }),
        ("conversation", &|| Value::List(Arc::new(Vec::new()))),
        ("runtime_vars", &empty_dict),
        ("neural", &empty_dict),
    ];
    for (key, make) in defaults {
        if !map.contains_key(key) {
            map.insert(Arc::from(key), make());
        }
    }
    if !map.contains_key("tools") {
        let tools = valid_tools
            .iter()
            .map(|t| {
                let mut v = Dict::default();
                v.insert(Arc::from("name"), Value::str(&t.name));
                v.insert(
                    Arc::from("description"),
                    Value::str(t.description.as_deref().unwrap_or("")),
                );
                Value::Dict(Arc::new(v))
            })
            .collect();
        map.insert(Arc::from("tools"), Value::List(Arc::new(tools)));
    }
    Value::Dict(Arc::new(map))
}

/// `ctx[key]` when the context is a dict.
pub fn get<'v>(ctx: &'v Value, key: &str) -> Option<&'v Value> {
    match ctx {
        Value::Dict(m) => m.get(key),
        _ => None,
    }
}
