//! The compiled-template cache behind [`Template::compile_shared`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::{Engine, Template, TemplateError};

/// Entries and source bytes kept before the cache starts over: a few live scenes' worth.
const MAX_ENTRIES: usize = 4096;
const MAX_BYTES: usize = 16 * 1024 * 1024;

type Compiled = Result<Arc<Template>, TemplateError>;

#[derive(Default)]
struct Cache {
    map: HashMap<(Engine, Arc<str>), Compiled, foldhash::fast::RandomState>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

pub fn compile(engine: Engine, source: &str) -> Compiled {
    let key = (engine, Arc::<str>::from(source));
    if let Some(hit) = CACHE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|c| c.map.get(&key))
    {
        return hit.clone();
    }
    // Compiled outside the lock: another thread may compile the same source meanwhile, which
    // only costs the time.
    let compiled = Template::compile(engine, source).map(Arc::new);
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(Cache::default);
    if cache.map.len() >= MAX_ENTRIES || cache.bytes + source.len() > MAX_BYTES {
        cache.map.clear();
        cache.bytes = 0;
    }
    cache.bytes += source.len();
    cache.map.insert(key, compiled.clone());
    compiled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_source_is_compiled_once_and_errors_are_kept() {
        let a = compile(Engine::Jinja2, "{{ cache_test }}").ok();
        let b = compile(Engine::Jinja2, "{{ cache_test }}").ok();
        assert!(matches!((&a, &b), (Some(x), Some(y)) if Arc::ptr_eq(x, y)));
        // Same text, other engine: another template.
        let c = compile(Engine::Fstring, "{{ cache_test }}").ok();
        assert!(matches!((&a, &c), (Some(x), Some(y)) if !Arc::ptr_eq(x, y)));
        let e1 = compile(Engine::Jinja2, "{% if %}").err();
        let e2 = compile(Engine::Jinja2, "{% if %}").err();
        assert!(e1.is_some() && e1 == e2);
    }
}
