//! Jinja2 3.1 on minijinja, configured to print and behave like Jinja2's default `Environment()`:
//! Python printing of values, the default `Undefined`, Jinja2's filters and tests, no loader,
//! autoescape off, and bounds on the work an untrusted template may do.

mod convert;
mod env;
mod errors;
mod filters;
mod methods;
mod objects;
mod pyfmt;
mod print;
mod pyops;
mod seqfilters;
mod tests_builtin;
mod undefined;

#[cfg(test)]
mod tests;

use std::io;

use minijinja::Environment;

use crate::template::{ErrorKind, TemplateError};

pub(crate) use convert::to_jinja_value;

/// The name the template is stored under in its environment; includes never reach it because
/// every template name is redirected to one that does not exist (there is no loader).
const TEMPLATE_NAME: &str = "<template>";

/// Rendered output larger than this fails with `LimitExceeded` (fuel bounds captured output).
const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// A parsed template: a cheap clone of the shared base environment holding just this template.
pub struct Compiled {
    env: Environment<'static>,
}

pub fn compile(source: &str) -> Result<Compiled, TemplateError> {
    let mut env = env::base().clone();
    env.add_template_owned(TEMPLATE_NAME, source.to_owned())
        .map_err(|e| errors::map_error(&e, |_| None))?;
    env::check_names(&env, TEMPLATE_NAME)?;
    Ok(Compiled { env })
}

pub fn render(c: &Compiled, vars: &minijinja::Value) -> Result<String, TemplateError> {
    let template = c
        .env
        .get_template(TEMPLATE_NAME)
        .map_err(|e| errors::map_error(&e, |_| None))?;
    let mut out = CappedWriter::default();
    let result = template.render_captured_to(vars, &mut out);
    match result {
        Ok(_) => String::from_utf8(out.buf).map_err(|_| {
            TemplateError::new(ErrorKind::TemplateRuntimeError, "output is not valid UTF-8")
        }),
        Err(e) => {
            tracing::debug!(error = %e, "jinja2 render failed");
            Err(errors::map_error(&e, |expr| {
                undefined::describe(&c.env, vars, expr)
            }))
        }
    }
}

/// Collects the output, refusing to grow past [`MAX_OUTPUT_BYTES`].
#[derive(Default)]
struct CappedWriter {
    buf: Vec<u8>,
}

impl io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len().saturating_add(data.len()) > MAX_OUTPUT_BYTES {
            return Err(io::Error::other("output size limit exceeded"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
