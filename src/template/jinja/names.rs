//! Unknown filter and test names, checked as Jinja2's compiler checks them: outside `if`
//! statements and conditional expressions an unknown name fails the compile with
//! `TemplateAssertionError`; inside them Jinja2 compiles a stub that raises
//! `TemplateRuntimeError: No filter named 'f' found.` only when that branch runs (its "soft"
//! frames). A new scope (loop body, macro, block, `{% filter %}`, `{% set %}` block, `with` body)
//! is a fresh frame and not soft again, as in Jinja2's `Frame.inner()`. Chained `is` tests, which
//! minijinja parses and Jinja2's parser refuses, are rejected here too.

use super::machinery::ast::{CallArg, Expr, Stmt};
use super::machinery::{tokenize, Span, Token};

use super::{errors, filters, tests_builtin};
use crate::template::{ErrorKind, TemplateError};

/// `{% do %}` is an extension in Jinja2 (`jinja2.ext.do`), so its default environment's parser
/// stops at the tag as at any unknown one; minijinja has it built in.
pub(crate) fn reject_do(source: &str) -> Result<(), TemplateError> {
    if !has_do_tag(source) {
        return Ok(());
    }
    let mut after_start = false;
    for item in tokenize(source, false, super::env::base().syntax().clone()) {
        let Ok((token, span)) = item else {
            return Ok(());
        };
        if after_start && matches!(token, Token::Ident("do")) {
            let start = span.start_offset as usize;
            let frames = errors::open_blocks(source, start)
                .map(|scan| scan.frames)
                .unwrap_or_default();
            return Err(TemplateError::new(
                ErrorKind::TemplateSyntaxError,
                errors::unclosed_message(Some("do"), &frames),
            )
            .with_range(start..span.end_offset as usize));
        }
        after_start = matches!(token, Token::BlockStart);
    }
    Ok(())
}

/// A cheap look for `{% do` (with whitespace control) before tokenizing the whole template.
fn has_do_tag(source: &str) -> bool {
    source.match_indices("{%").any(|(i, _)| {
        let rest = source[i + 2..].trim_start_matches(['-', '+']).trim_start();
        rest.strip_prefix("do")
            .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

/// [`check`] on a parsed template.
pub(crate) fn check_ast(ast: &Stmt<'_>) -> Result<(), TemplateError> {
    stmt(ast, false)
}

fn fail(what: &str, name: &str, span: Span) -> Result<(), TemplateError> {
    Err(TemplateError::new(
        ErrorKind::TemplateAssertionError,
        format!("No {what} named '{name}'."),
    )
    .with_range(span.start_offset as usize..span.end_offset as usize))
}

fn stmts(body: &[Stmt<'_>], soft: bool) -> Result<(), TemplateError> {
    body.iter().try_for_each(|s| stmt(s, soft))
}

fn stmt(s: &Stmt<'_>, soft: bool) -> Result<(), TemplateError> {
    match s {
        Stmt::Template(t) => stmts(&t.children, false),
        Stmt::EmitExpr(e) => expr(&e.expr, soft),
        Stmt::EmitRaw(_) => Ok(()),
        Stmt::ForLoop(f) => {
            // The iterable is evaluated in the enclosing frame; the rest in the loop's own.
            expr(&f.iter, soft)?;
            if let Some(filter) = &f.filter_expr {
                expr(filter, false)?;
            }
            stmts(&f.body, false)?;
            stmts(&f.else_body, false)
        }
        Stmt::IfCond(i) => {
            expr(&i.expr, true)?;
            stmts(&i.true_body, true)?;
            stmts(&i.false_body, true)
        }
        Stmt::WithBlock(w) => {
            for (_, value) in &w.assignments {
                expr(value, soft)?;
            }
            stmts(&w.body, false)
        }
        Stmt::Set(set) => expr(&set.expr, soft),
        Stmt::SetBlock(set) => {
            if let Some(filter) = &set.filter {
                expr(filter, false)?;
            }
            stmts(&set.body, false)
        }
        Stmt::AutoEscape(a) => {
            expr(&a.enabled, soft)?;
            stmts(&a.body, soft)
        }
        Stmt::FilterBlock(f) => {
            expr(&f.filter, false)?;
            stmts(&f.body, false)
        }
        Stmt::Block(b) => stmts(&b.body, false),
        Stmt::Import(i) => expr(&i.expr, soft),
        Stmt::FromImport(i) => expr(&i.expr, soft),
        Stmt::Extends(e) => expr(&e.name, soft),
        Stmt::Include(i) => expr(&i.name, soft),
        Stmt::Macro(m) => {
            m.defaults.iter().try_for_each(|d| expr(d, false))?;
            stmts(&m.body, false)
        }
        Stmt::CallBlock(c) => {
            expr(&c.call.expr, soft)?;
            call_order(&c.call.args, c.call.span())?;
            args(&c.call.args, soft)?;
            c.macro_decl
                .defaults
                .iter()
                .try_for_each(|d| expr(d, false))?;
            stmts(&c.macro_decl.body, false)
        }
        Stmt::Do(d) => {
            expr(&d.call.expr, soft)?;
            call_order(&d.call.args, d.call.span())?;
            args(&d.call.args, soft)
        }
    }
}

/// The argument order Jinja2's parser accepts (`Parser.parse_call_args`): positional
/// arguments first, at most one `*args` and one `**kwargs`, nothing after `**kwargs`, no
/// positional argument after `*args` or a keyword. A keyword given twice is Python's
/// `SyntaxError` when Jinja2 compiles the template; here it is a syntax error too.
fn call_order(list: &[CallArg<'_>], span: Span) -> Result<(), TemplateError> {
    let (mut dyn_args, mut dyn_kwargs, mut kwargs) = (false, false, false);
    let mut names: Vec<&str> = Vec::new();
    let fail = |message: String| {
        Err(TemplateError::new(ErrorKind::TemplateSyntaxError, message)
            .with_range(span.start_offset as usize..span.end_offset as usize))
    };
    for a in list {
        let ok = match a {
            CallArg::PosSplat(_) => !dyn_args && !dyn_kwargs,
            CallArg::KwargSplat(_) | CallArg::Kwarg(..) => !dyn_kwargs,
            CallArg::Pos(_) => !dyn_args && !dyn_kwargs && !kwargs,
        };
        if !ok {
            return fail("invalid syntax for function call expression".to_owned());
        }
        match a {
            CallArg::PosSplat(_) => dyn_args = true,
            CallArg::KwargSplat(_) => dyn_kwargs = true,
            CallArg::Kwarg(name, _) => {
                kwargs = true;
                if names.contains(name) {
                    return fail(format!("keyword argument repeated: {name}"));
                }
                names.push(name);
            }
            CallArg::Pos(_) => {}
        }
    }
    Ok(())
}

fn args(list: &[CallArg<'_>], soft: bool) -> Result<(), TemplateError> {
    list.iter().try_for_each(|a| match a {
        CallArg::Pos(e) | CallArg::Kwarg(_, e) | CallArg::PosSplat(e) | CallArg::KwargSplat(e) => {
            expr(e, soft)
        }
    })
}

fn opt(e: &Option<Expr<'_>>, soft: bool) -> Result<(), TemplateError> {
    e.as_ref().map_or(Ok(()), |e| expr(e, soft))
}

fn expr(e: &Expr<'_>, soft: bool) -> Result<(), TemplateError> {
    match e {
        Expr::Var(_) | Expr::Const(_) => Ok(()),
        Expr::Slice(s) => {
            expr(&s.expr, soft)?;
            opt(&s.start, soft)?;
            opt(&s.stop, soft)?;
            opt(&s.step, soft)
        }
        Expr::UnaryOp(u) => expr(&u.expr, soft),
        Expr::BinOp(b) => {
            expr(&b.left, soft)?;
            expr(&b.right, soft)
        }
        Expr::Compare(c) => {
            expr(&c.expr, soft)?;
            c.ops.iter().try_for_each(|op| expr(&op.expr, soft))
        }
        Expr::IfExpr(i) => {
            expr(&i.test_expr, true)?;
            expr(&i.true_expr, true)?;
            opt(&i.false_expr, true)
        }
        Expr::Filter(f) => {
            opt(&f.expr, soft)?;
            call_order(&f.args, f.span())?;
            args(&f.args, soft)?;
            if !soft && filters::lookup(f.name).is_none() {
                return fail("filter", f.name, f.span());
            }
            Ok(())
        }
        Expr::Test(t) => {
            if matches!(t.expr, Expr::Test(_)) {
                // Jinja2's parser refuses `x is a is b` (minijinja's reads it as `(x is a) is b`).
                return Err(TemplateError::new(
                    ErrorKind::TemplateSyntaxError,
                    "You cannot chain multiple tests with is",
                )
                .with_range(t.span().start_offset as usize..t.span().end_offset as usize));
            }
            expr(&t.expr, soft)?;
            call_order(&t.args, t.span())?;
            args(&t.args, soft)?;
            if !soft && !tests_builtin::is_test_name(t.name) {
                return fail("test", t.name, t.span());
            }
            Ok(())
        }
        Expr::GetAttr(g) => expr(&g.expr, soft),
        Expr::GetItem(g) => {
            expr(&g.expr, soft)?;
            expr(&g.subscript_expr, soft)
        }
        Expr::Call(c) => {
            expr(&c.expr, soft)?;
            call_order(&c.args, c.span())?;
            args(&c.args, soft)
        }
        Expr::List(l) => l.items.iter().try_for_each(|i| expr(i, soft)),
        Expr::Tuple(t) => t.items.iter().try_for_each(|i| expr(i, soft)),
        Expr::Map(m) => {
            m.keys.iter().try_for_each(|k| expr(k, soft))?;
            m.values.iter().try_for_each(|v| expr(v, soft))
        }
    }
}
