//! Jinja2 3.1 on minijinja, configured to print and behave like Jinja2's default `Environment()`:
//! Python printing of values, the default `Undefined`, Jinja2's filters and tests, Python's
//! operators, no loader, autoescape off, and bounds on the work an untrusted template may do.
//!
//! Templates are compiled with minijinja's machinery and their operator instructions swapped for
//! calls to our Python implementations (`ops.rs`), then run on the shared base environment. The
//! instruction streams that contain an `{% autoescape %}` tag are rebuilt first (`markup.rs`), so
//! that escaping follows Jinja2's compile-time scopes.

mod bound;
mod convert;
mod depth;
mod env;
mod errors;
mod filters;
mod json_dumps;
mod machinery;
mod markup;
mod methods;
mod mutable;
mod names;
mod objects;
mod ops;
mod percent;
mod pprint;
mod print;
mod pyobject;
mod pyops;
mod rebuild;
mod seqfilters;
mod source;
mod str_format;
mod tests_builtin;
mod undefined;
mod urlize;
mod work;

#[cfg(test)]
mod tests;

use machinery::{eval, make_string_output, parse, CodeGenerator, CompiledTemplate};
use minijinja::AutoEscape;

use crate::template::budget::{self, Budget};
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
    /// The template can change lists and dicts: it renders over [`mutable::MutableRoot`].
    mutates: bool,
}

pub fn compile(source: &str) -> Result<Compiled, TemplateError> {
    let mut mutates = false;
    let cell = Cell::try_new(source::Normalized::new(source), |normalized| {
        let text = normalized.text();
        let config = env::template_config();
        // Before parsing: a chain too long to parse, walk or drop within a thread's stack.
        depth::check(text).map_err(|e| normalized.fix_range(e))?;
        let ast = parse(text, "<template>", config.syntax_config.clone()).map_err(|e| {
            let err = errors::map_compile_error(&e, text);
            // minijinja parses `do` (an extension in Jinja2); an error after one is Jinja2's
            // unknown-tag error at the `do`.
            let at = |e: &TemplateError| e.range().map_or(usize::MAX, |r| r.start);
            let err = match names::reject_do(text) {
                Err(d) if at(&d) <= at(&err) => d,
                _ => err,
            };
            normalized.fix_range(err)
        })?;
        names::reject_do(text).map_err(|e| normalized.fix_range(e))?;
        names::check_ast(&ast).map_err(|e| normalized.fix_range(e))?;
        // What `CompiledTemplate::new` does, from the tree parsed once above.
        let mut generator = CodeGenerator::new("<template>", text);
        generator.compile_stmt(&ast);
        let buffer_size_hint = generator.buffer_size_hint();
        let (instructions, blocks) = generator.finish();
        let mut template = CompiledTemplate {
            instructions,
            blocks,
            buffer_size_hint,
            syntax_config: config.syntax_config.clone(),
            initial_auto_escape: (config.default_auto_escape)("<template>"),
        };
        // In this order: the rebuild counts the `with` statements' `PushWith`s, which the
        // autoescape scopes add to; the scopes find `~` as `StringConcat`, which the operator
        // swap replaces.
        let plan = rebuild::plan(&ast);
        mutates = plan.mutates();
        rebuild::apply(&plan, &mut template.instructions, &mut template.blocks);
        markup::apply_scopes(&mut template.instructions);
        for block in template.blocks.values_mut() {
            markup::apply_scopes(block);
        }
        rewrite(&mut template);
        Ok::<_, TemplateError>(template)
    })?;
    Ok(Compiled { cell, mutates })
}

/// Swaps minijinja's operators for calls to our Python ones, one instruction for one so that
/// jump targets and source spans stay valid.
fn rewrite(template: &mut CompiledTemplate<'_>) {
    let rewrite_one = |instrs: &mut machinery::Instructions<'_>| {
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

/// Renders `c` over `vars` on its own (see [`render_in`]).
pub fn render(c: &Compiled, vars: &minijinja::Value) -> Result<String, TemplateError> {
    render_in(c, vars, &Budget::scene())
}

/// Renders `c` over `vars` within what `budget` has left: at most [`budget::TEMPLATE_FUEL`] of
/// fuel (less when the scene has less left), and its output within the scene's output budget.
/// What the render used (instructions, data made and the bytes scanned, `work.rs`) is taken off
/// the budget, whether it succeeds or fails.
pub fn render_in(
    c: &Compiled,
    vars: &minijinja::Value,
    budget: &Budget,
) -> Result<String, TemplateError> {
    if let Some(refused) = budget.refusal() {
        return Err(refused);
    }
    let allotted = budget.allot();
    // The scene, not the template's own limit, decides how far this render may go.
    let scene_limited = allotted < budget::TEMPLATE_FUEL;
    let limited_env;
    let env = if scene_limited {
        limited_env = env::with_fuel(allotted);
        &limited_env
    } else {
        env::base()
    };
    let root = if c.mutates {
        mutable::MutableRoot::wrap(vars)
    } else {
        vars.clone()
    };
    // Printing stops at the template's own limit or what the scene has left, whichever is less.
    let print_allowance = budget.output_left().min(MAX_OUTPUT_BYTES as u64 + 1);
    let scene_output_limited = budget.output_left() <= MAX_OUTPUT_BYTES as u64;
    let meter = work::Meter::install(allotted, print_allowance, budget.cancel_flag().cloned());
    let mut rendered = String::new();
    let result = c.cell.with_dependent(|_, template| {
        let mut out = make_string_output(&mut rendered);
        eval(
            env,
            &template.instructions,
            root,
            &template.blocks,
            &mut out,
            AutoEscape::None,
        )
        .map(|(_, state)| state.fuel_levels().map_or(0, |(consumed, _)| consumed))
    });
    let counted = meter.counted();
    drop(meter);
    let consumed = match &result {
        Ok(consumed) => *consumed,
        Err(e) if e.kind() == minijinja::ErrorKind::OutOfFuel => allotted,
        // A failed render does not report its fuel: take what it was last seen to have used.
        Err(_) => counted.seen,
    };
    budget.take_fuel(consumed.saturating_add(counted.fuel));
    let out_of_fuel = counted.over
        || counted.cancelled
        || matches!(&result, Err(e) if e.kind() == minijinja::ErrorKind::OutOfFuel);
    if out_of_fuel && (counted.cancelled || budget.is_cancelled()) {
        budget.trip();
        return Err(TemplateError::new(
            ErrorKind::LimitExceeded,
            budget::CANCELLED,
        ));
    }
    if out_of_fuel && scene_limited {
        budget.trip();
        return Err(TemplateError::new(
            ErrorKind::LimitExceeded,
            budget::FUEL_EXHAUSTED,
        ));
    }
    if counted.print_over && scene_output_limited {
        return Err(budget.output_refused());
    }
    match result {
        _ if counted.over => Err(TemplateError::new(
            ErrorKind::LimitExceeded,
            errors::OUT_OF_FUEL,
        )),
        Ok(_) if rendered.len() > MAX_OUTPUT_BYTES => Err(TemplateError::new(
            ErrorKind::LimitExceeded,
            "the template output grew past its size limit",
        )),
        Ok(_) => {
            budget.take_output(rendered.len() as u64)?;
            Ok(rendered)
        }
        Err(e) => {
            tracing::debug!(error = %e, "jinja2 render failed");
            let err = errors::map_error(&e, |expr| undefined::describe(env, vars, expr));
            Err(c.cell.borrow_owner().fix_range(err))
        }
    }
}
