//! A bound on how deep a template's syntax tree may grow, checked on its tokens before it is
//! parsed. minijinja's parser refuses deep nesting of brackets and blocks, but it builds a chain
//! (`x|f|f|...`, `a.b.c...`, `a ~ b ~ ...`, `x[0][0]...`, `f()()...`, `not not ...`, `- - x`,
//! `a and b and ...`, `a if b else c if d else ...`, a long run of `{% elif %}`) into a tree one
//! level deeper per link without limit, and everything that walks the tree — the parser itself
//! for unary operators, conditional expressions and `elif`, the compiler, our checks, dropping
//! it — recurses once per level. A 20,000-link chain overflowed the stack of any thread and
//! aborted the process; past [`MAX_DEPTH`] the template is refused instead, with a
//! `LimitExceeded` error at the tag (docs/templates.md, "Limits on untrusted templates").
//!
//! The measure is an upper bound on the tree's depth, counted per tag: every operator, filter,
//! test, attribute, subscript, call and bracket of an expression is one level, items of a list,
//! tuple, dict or argument list (split by `,` and `:`) are side by side rather than nested, a
//! bracket is as deep as its deepest item, and each `{% elif %}` of the enclosing `if`
//! statements adds two levels to everything after it up to its `{% endif %}`.

use super::machinery::{tokenize, Token};
use crate::template::{ErrorKind, TemplateError};

/// The deepest a template may nest, in the levels counted above. Jinja2 itself stops at a few
/// hundred (Python's recursion limit in its compiler); the deepest accepted template of each kind
/// compiles, renders and is dropped on a 2 MiB thread stack with room to spare (the tests below,
/// `chains_at_the_limit_fit_a_small_stack`).
pub(crate) const MAX_DEPTH: usize = 500;

/// The levels an `{% elif %}` counts for: each nests a whole `if` statement, whose parsing and
/// compiling take about four times the stack of an operator's (measured: a chain of 1,500 elifs
/// fits a 2 MiB stack, 2,000 do not; operator chains of 5,000 fit).
const ELIF_LEVELS: usize = 2;

/// One bracket level of the tag being scanned (the tag itself is the outermost).
#[derive(Default)]
struct Frame {
    /// Levels of the current item: its operators, including the brackets it opens.
    ops: usize,
    /// The deepest bracket the current item has closed so far.
    child: usize,
    /// The deepest earlier item of this bracket.
    items: usize,
}

impl Frame {
    fn item_depth(&self) -> usize {
        self.ops + self.child
    }
}

/// `Ok` when every tag of `source` nests at most [`MAX_DEPTH`] deep; otherwise the error at the
/// first tag that does not, its range from the tag's start to the token that went past the limit.
/// A source the lexer refuses is scanned up to the error (the parser then reports it).
pub(crate) fn check(source: &str) -> Result<(), TemplateError> {
    let syntax = super::env::base().syntax().clone();
    // `elif`s so far of each open `if` statement, and their sum.
    let mut ifs: Vec<usize> = Vec::new();
    let mut elifs = 0usize;
    let mut frames: Vec<Frame> = Vec::new();
    // The operators of every open frame's current item, and where the tag started.
    let mut open_ops = 0usize;
    let mut tag_start = 0usize;
    let mut after_block_start = false;
    for item in tokenize(source, false, syntax) {
        let Ok((token, span)) = item else {
            break;
        };
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        let keyword = std::mem::take(&mut after_block_start);
        match token {
            Token::VariableStart | Token::BlockStart => {
                frames.clear();
                frames.push(Frame::default());
                open_ops = 0;
                tag_start = start;
                after_block_start = matches!(token, Token::BlockStart);
                continue;
            }
            Token::VariableEnd | Token::BlockEnd | Token::TemplateData(_) => {
                frames.clear();
                open_ops = 0;
                continue;
            }
            Token::Ident(word) if keyword => match word {
                "if" => ifs.push(0),
                "elif" => {
                    if let Some(n) = ifs.last_mut() {
                        *n += ELIF_LEVELS;
                        elifs += ELIF_LEVELS;
                    }
                }
                "endif" => elifs -= ifs.pop().unwrap_or(0),
                _ => {}
            },
            Token::BracketOpen | Token::ParenOpen | Token::BraceOpen => {
                if let Some(f) = frames.last_mut() {
                    f.ops += 1;
                    open_ops += 1;
                }
                frames.push(Frame::default());
            }
            // An unbalanced closer is the parser's error to report.
            Token::BracketClose | Token::ParenClose | Token::BraceClose if frames.len() > 1 => {
                if let Some(f) = frames.pop() {
                    open_ops -= f.ops;
                    let depth = f.items.max(f.item_depth());
                    if let Some(parent) = frames.last_mut() {
                        parent.child = parent.child.max(depth);
                    }
                }
            }
            Token::Comma | Token::Colon => {
                if let Some(f) = frames.last_mut() {
                    f.items = f.items.max(f.item_depth());
                    open_ops -= f.ops;
                    f.ops = 0;
                    f.child = 0;
                }
            }
            Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::FloorDiv
            | Token::Pow
            | Token::Mod
            | Token::Dot
            | Token::Tilde
            | Token::Pipe
            | Token::Eq
            | Token::Ne
            | Token::Gt
            | Token::Gte
            | Token::Lt
            | Token::Lte
            | Token::Ident("and" | "or" | "not" | "in" | "is" | "if") => {
                if let Some(f) = frames.last_mut() {
                    f.ops += 1;
                    open_ops += 1;
                }
            }
            _ => {}
        }
        let child = frames.last().map_or(0, |f| f.child);
        if elifs + open_ops + child > MAX_DEPTH {
            return Err(TemplateError::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the template nests deeper than the limit of {MAX_DEPTH} levels (each \
                     operator, filter, test, attribute, subscript, call or bracket of an \
                     expression is one level, each elif of the enclosing ifs two)"
                ),
            )
            .with_range(tag_start..end));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MAX_DEPTH;
    use crate::template::{Engine, ErrorKind, Template, TemplateError, Vars};
    use crate::value::Value;

    /// The stack of the threads that run templates outside the main thread: tokio's blocking
    /// pool, `check --jobs`, Tauri's async runtime and Python's threads all give about this much.
    const SMALL_STACK: usize = 2 << 20;

    /// A chain of `n` levels of one kind, and what it renders (`Err` for the kind of error).
    struct Chain {
        name: &'static str,
        build: fn(usize) -> String,
        renders: fn(usize) -> Result<String, ErrorKind>,
    }

    fn chains() -> Vec<Chain> {
        vec![
            Chain {
                name: "filter",
                build: |n| format!("{{{{ x{} }}}}", "|abs".repeat(n)),
                renders: |_| Ok("3".to_owned()),
            },
            Chain {
                name: "attribute",
                build: |n| format!("{{{{ d{} }}}}", ".a".repeat(n)),
                renders: |n| {
                    if n > 1 {
                        Err(ErrorKind::UndefinedError)
                    } else {
                        Ok(String::new())
                    }
                },
            },
            Chain {
                name: "plus",
                build: |n| format!("{{{{ 0{} }}}}", "+1".repeat(n)),
                renders: |n| Ok(n.to_string()),
            },
            Chain {
                name: "concat",
                build: |n| format!("{{{{ 'a'{} }}}}", "~'a'".repeat(n)),
                renders: |n| Ok("a".repeat(n + 1)),
            },
            Chain {
                name: "negation",
                build: |n| format!("{{{{ {}7 }}}}", "- ".repeat(n)),
                renders: |n| Ok(if n % 2 == 0 { "7" } else { "-7" }.to_owned()),
            },
            Chain {
                name: "not",
                build: |n| format!("{{{{ {}true }}}}", "not ".repeat(n)),
                renders: |n| Ok(if n % 2 == 0 { "True" } else { "False" }.to_owned()),
            },
            Chain {
                name: "and",
                build: |n| format!("{{{{ 1{} }}}}", " and 1".repeat(n)),
                renders: |_| Ok("1".to_owned()),
            },
            Chain {
                name: "subscript",
                build: |n| format!("{{{{ 'a'{} }}}}", "[0]".repeat(n)),
                renders: |_| Ok("a".to_owned()),
            },
            Chain {
                name: "call",
                build: |n| format!("{{{{ dict{} }}}}", "()".repeat(n)),
                renders: |n| {
                    if n > 1 {
                        Err(ErrorKind::TypeError)
                    } else {
                        Ok("{}".to_owned())
                    }
                },
            },
            Chain {
                name: "conditional",
                build: |n| {
                    format!(
                        "{{{{ 1{} else 2 }}}}",
                        " if 0 else 1".repeat(n - 1) + " if 0"
                    )
                },
                renders: |_| Ok("2".to_owned()),
            },
            Chain {
                name: "elif",
                build: |n| {
                    format!(
                        "{{% if 0 %}}{}{{% else %}}e{{% endif %}}",
                        "{% elif 0 %}".repeat(n.div_ceil(super::ELIF_LEVELS))
                    )
                },
                renders: |_| Ok("e".to_owned()),
            },
            Chain {
                // Blocks nested as deep as minijinja's parser allows around a chain at the limit.
                name: "filter in nested blocks",
                build: |n| {
                    let depth = 140;
                    format!(
                        "{}{{{{ x{} }}}}{}",
                        "{% if 1 %}".repeat(depth),
                        "|abs".repeat(n),
                        "{% endif %}".repeat(depth)
                    )
                },
                renders: |_| Ok("3".to_owned()),
            },
        ]
    }

    fn vars() -> Vars {
        Vars::new(Value::from_json_str(r#"{"x": -3, "d": {}}"#).expect("json"))
    }

    fn compile_and_render(source: &str) -> Result<String, TemplateError> {
        let template = Template::compile(Engine::Jinja2, source)?;
        let out = template.render(&vars());
        drop(template);
        out
    }

    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(SMALL_STACK)
            .spawn(f)
            .expect("spawn")
            .join()
            .expect("the thread finished")
    }

    #[test]
    fn chains_at_the_limit_fit_a_small_stack() {
        for chain in chains() {
            let source = (chain.build)(MAX_DEPTH);
            let got = on_small_stack(move || compile_and_render(&source).map_err(|e| e.kind()));
            assert_eq!(got, (chain.renders)(MAX_DEPTH), "{} chain", chain.name);
        }
    }

    #[test]
    fn chains_past_the_limit_are_refused_at_their_tag() {
        for chain in chains() {
            let source = format!("line one\n  {}", (chain.build)(MAX_DEPTH + 1));
            // The tag the limit is passed in: the expression's, or the `elif` past the limit.
            let tag = source
                .find("{{")
                .or_else(|| source.rfind("{% elif"))
                .expect("a tag");
            let column = source[..tag]
                .rsplit('\n')
                .next()
                .map_or(0, |l| l.chars().count())
                + 1;
            let e = on_small_stack(move || Template::compile(Engine::Jinja2, &source).err())
                .unwrap_or_else(|| panic!("{} chain past the limit compiled", chain.name));
            assert_eq!(
                e.kind(),
                ErrorKind::LimitExceeded,
                "{} chain: {e}",
                chain.name
            );
            assert!(
                e.message().contains("limit of 500 levels"),
                "{}",
                e.message()
            );
            assert_eq!(
                e.range().map(|r| r.start),
                Some(tag),
                "{} chain",
                chain.name
            );
            assert_eq!(
                (e.line(), e.column()),
                (Some(2), Some(column)),
                "{}",
                chain.name
            );
        }
    }

    /// The lengths that aborted the process before: refused, on a small stack, quickly.
    #[test]
    fn very_long_chains_are_refused_not_a_stack_overflow() {
        for chain in chains() {
            for n in [20_000, 60_000] {
                let source = (chain.build)(n);
                let e = on_small_stack(move || Template::compile(Engine::Jinja2, &source).err());
                assert_eq!(
                    e.map(|e| e.kind()),
                    Some(ErrorKind::LimitExceeded),
                    "{}",
                    chain.name
                );
            }
        }
    }

    /// Side by side is not nested: long lists, argument lists and many tags are not refused.
    #[test]
    fn breadth_is_not_depth() {
        let list = format!("{{{{ [{}]|length }}}}", vec!["x|abs|abs"; 2_000].join(", "));
        assert_eq!(compile_and_render(&list).as_deref(), Ok("2000"));
        let dict = format!(
            "{{{{ {{{}}}|length }}}}",
            (0..2_000)
                .map(|i| format!("{i}: x+1"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert_eq!(compile_and_render(&dict).as_deref(), Ok("2000"));
        let tags = "{{ x|abs|abs }}".repeat(2_000);
        assert_eq!(compile_and_render(&tags).map(|s| s.len()), Ok(2_000));
        // Closed brackets do not add up: the deepest item counts, once.
        let nested = format!(
            "{{{{ {} }}}}",
            vec![format!("({})", "x".to_owned() + &"|abs".repeat(MAX_DEPTH - 10)); 3].join(" + ")
        );
        assert!(compile_and_render(&nested).is_ok());
        // `elif`s count only inside their `if`.
        let ifs = "{% if 0 %}{% elif 0 %}{% elif 0 %}{% endif %}".repeat(MAX_DEPTH);
        assert_eq!(compile_and_render(&ifs).as_deref(), Ok(""));
    }
}
