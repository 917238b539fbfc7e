//! The one door to minijinja's `unstable_machinery`: its lexer, parser, AST, compiler,
//! instruction set and VM entry point, which have no stable interface. Every other file reaches
//! them through here, and Cargo.toml pins minijinja to the exact version this was written
//! against, so an upgrade is a deliberate change reviewed in one place (docs/templates.md).

pub(crate) use minijinja::machinery::ast;
pub(crate) use minijinja::machinery::{
    eval, make_string_output, parse, tokenize, CodeGenerator, CompiledTemplate, Instruction,
    Instructions, Span, TemplateConfig, Token,
};
