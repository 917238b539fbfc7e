//! Jinja2 3.1 on minijinja, configured to print and behave like Jinja2's default `Environment()`:
//! Python printing of values, the default `Undefined`, Jinja2's filters and tests, Python's
//! operators, no loader, autoescape off, and bounds on the work an untrusted template may do.
//!
//! Templates are compiled with minijinja's machinery and their operator instructions swapped for
//! calls to our Python implementations (`ops.rs`), then run on the shared base environment.

mod convert;
mod env;
mod errors;
mod filters;
mod methods;
mod objects;
mod ops;
mod print;
mod pyfmt;
mod pyops;
mod seqfilters;
mod source;
mod tests_builtin;
mod undefined;

#[cfg(test)]
mod tests;

use minijinja::machinery::{eval, make_string_output, CompiledTemplate};
use minijinja::AutoEscape;

use crate::template::{ErrorKind, TemplateError};

pub(crate) use convert::to_jinja_value;

/// Rendered output larger than this fails with `LimitExceeded` (fuel bounds it on the way).
const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// A parsed template, reusable across renders and threads.
pub struct Compiled {
    // Declared before `source`: it borrows from it and must be dropped first.
    template: CompiledTemplate<'static>,
    source: source::Normalized,
}

pub fn compile(source: &str) -> Result<Compiled, TemplateError> {
    let normalized = source::Normalized::new(source);
    // SAFETY: the text lives in a heap allocation owned by `Normalized`, which never mutates or
    // moves it and is stored next to the template in `Compiled`; the template (declared first)
    // is dropped before it, and no reference with this lifetime leaves `Compiled`: rendering
    // returns owned strings and errors.
    let text: &'static str = unsafe { &*(normalized.text() as *const str) };
    let mut template = CompiledTemplate::new("<template>", text, &env::template_config())
        .map_err(|e| normalized.fix_range(errors::map_error(&e, |_| None)))?;
    env::check_names(&template).map_err(|e| normalized.fix_range(e))?;
    rewrite(&mut template);
    Ok(Compiled {
        template,
        source: normalized,
    })
}

/// Swaps minijinja's operators for calls to our Python ones, one instruction for one so that
/// jump targets and source spans stay valid.
fn rewrite(template: &mut CompiledTemplate<'static>) {
    let rewrite_one = |instrs: &mut minijinja::machinery::Instructions<'static>| {
        let mut pc = 0u32;
        while let Some(instr) = instrs.get_mut(pc) {
            if let Some(new) = ops::replacement(instr) {
                *instr = new;
            }
            pc += 1;
        }
    };
    rewrite_one(&mut template.instructions);
    for block in template.blocks.values_mut() {
        rewrite_one(block);
    }
}

pub fn render(c: &Compiled, vars: &minijinja::Value) -> Result<String, TemplateError> {
    let env = env::base();
    let mut rendered = String::new();
    let result = {
        let mut out = make_string_output(&mut rendered);
        eval(
            env,
            &c.template.instructions,
            vars.clone(),
            &c.template.blocks,
            &mut out,
            AutoEscape::None,
        )
        .map(|_| ())
    };
    match result {
        Ok(()) if rendered.len() > MAX_OUTPUT_BYTES => Err(TemplateError::new(
            ErrorKind::LimitExceeded,
            "the template output grew past its size limit",
        )),
        Ok(()) => Ok(rendered),
        Err(e) => {
            tracing::debug!(error = %e, "jinja2 render failed");
            let err = errors::map_error(&e, |expr| undefined::describe(env, vars, expr));
            Err(c.source.fix_range(err))
        }
    }
}
