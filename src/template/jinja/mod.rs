//! Jinja2 3.1 on minijinja, configured to print and behave like Jinja2's default `Environment()`:
//! Python printing of values, the default `Undefined`, Jinja2's filters and tests, Python's
//! operators, no loader, autoescape off, and bounds on the work an untrusted template may do.
//!
//! Templates are compiled with minijinja's machinery and their operator instructions swapped for
//! calls to our Python implementations (`ops.rs`), then run on the shared base environment. The
//! instruction streams that contain an `{% autoescape %}` tag are rebuilt first (`markup.rs`), so
//! that escaping follows Jinja2's compile-time scopes.

mod convert;
mod env;
mod errors;
mod filters;
mod json_dumps;
mod markup;
mod methods;
mod names;
mod objects;
mod ops;
mod percent;
mod pprint;
mod print;
mod pyobject;
mod pyops;
mod seqfilters;
mod source;
mod str_format;
mod tests_builtin;
mod undefined;
mod urlize;

#[cfg(test)]
mod tests;

use minijinja::machinery::{eval, make_string_output, CompiledTemplate};
use minijinja::AutoEscape;

use crate::template::{ErrorKind, TemplateError};

pub(crate) use convert::to_jinja_value;

/// Rendered output larger than this fails with `LimitExceeded` (fuel bounds it on the way).
const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

self_cell::self_cell!(
    /// The normalised source text and the template compiled from it, which borrows it.
    struct Cell {
        owner: source::Normalized,
        #[not_covariant]
        dependent: CompiledTemplate,
    }
);

/// A parsed template, reusable across renders and threads.
pub struct Compiled {
    cell: Cell,
}

pub fn compile(source: &str) -> Result<Compiled, TemplateError> {
    let cell = Cell::try_new(source::Normalized::new(source), |normalized| {
        let mut template =
            CompiledTemplate::new("<template>", normalized.text(), &env::template_config())
                .map_err(|e| {
                    normalized.fix_range(errors::map_compile_error(&e, normalized.text()))
                })?;
        names::check(normalized.text()).map_err(|e| normalized.fix_range(e))?;
        markup::apply_scopes(&mut template.instructions);
        for block in template.blocks.values_mut() {
            markup::apply_scopes(block);
        }
        rewrite(&mut template);
        Ok::<_, TemplateError>(template)
    })?;
    Ok(Compiled { cell })
}

/// Swaps minijinja's operators for calls to our Python ones, one instruction for one so that
/// jump targets and source spans stay valid.
fn rewrite(template: &mut CompiledTemplate<'_>) {
    let rewrite_one = |instrs: &mut minijinja::machinery::Instructions<'_>| {
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
    let result = c.cell.with_dependent(|_, template| {
        let mut out = make_string_output(&mut rendered);
        eval(
            env,
            &template.instructions,
            vars.clone(),
            &template.blocks,
            &mut out,
            AutoEscape::None,
        )
        .map(|_| ())
    });
    match result {
        Ok(()) if rendered.len() > MAX_OUTPUT_BYTES => Err(TemplateError::new(
            ErrorKind::LimitExceeded,
            "the template output grew past its size limit",
        )),
        Ok(()) => Ok(rendered),
        Err(e) => {
            tracing::debug!(error = %e, "jinja2 render failed");
            let err = errors::map_error(&e, |expr| undefined::describe(env, vars, expr));
            Err(c.cell.borrow_owner().fix_range(err))
        }
    }
}
