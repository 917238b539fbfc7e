//! Instruction rewrites that need more room than one instruction for one (`ops::replacement`):
//! the compiled instructions are copied into a new list with instructions inserted or moved,
//! and every jump target remapped. Templates that need none of them keep their instructions.
//!
//! - An attribute named like a Python method (`s.upper`, `d.keys`, `loop.cycle`) goes through
//!   `bound::fix_attr`, which gives a bound method where Jinja2's `getattr` finds one.
//! - The iterable of a `for` loop and of `loop(...)` goes through `bound::check_iterable`
//!   first: Jinja2 raises `TypeError` for `None` and numbers, where minijinja iterates nothing.
//! - `loop(x)` in a recursive loop with an `if` filter filters `x` first (`recursion_sites`).
//! - `{% with a=1, b=a %}` evaluates every right-hand side before entering the new scope, as
//!   Jinja2 does, where minijinja assigns each before evaluating the next.
//! - In a template that calls a list or dict method that changes its object, list and dict
//!   literals build mutable objects (`mutable.rs`); every other template keeps minijinja's
//!   immutable (and faster) values.

use std::collections::BTreeMap;

use super::machinery::ast::{CallArg, Expr, Stmt};
use super::machinery::{Instruction, Instructions, Span};
use minijinja::value::Value as JValue;

use super::{bound, mutable, ops};

/// What the AST tells the rebuild about one list of instructions (the template's or a block's).
#[derive(Default)]
pub(crate) struct Shape {
    /// One entry per `PushWith` in instruction order: the number of `with` assignments, or
    /// `None` for a `PushWith` that is not a `with` statement (imports) or has a target that
    /// is not a plain name.
    withs: Vec<Option<usize>>,
}

/// The shapes of the template's instructions and of each of its blocks, and whether the
/// template can mutate lists and dicts.
pub(crate) struct Plan<'s> {
    main: Shape,
    blocks: BTreeMap<&'s str, Shape>,
    /// Required blocks keep their instructions (the flag cannot be carried over).
    required: Vec<&'s str>,
    mutates: bool,
}

impl Plan<'_> {
    pub(crate) fn mutates(&self) -> bool {
        self.mutates
    }
}

pub(crate) fn plan<'s>(ast: &Stmt<'s>) -> Plan<'s> {
    let mut p = Plan {
        main: Shape::default(),
        blocks: BTreeMap::new(),
        required: Vec::new(),
        mutates: false,
    };
    let mut main = Shape::default();
    walk(ast, &mut main, &mut p);
    p.main = main;
    p
}

fn walk<'s>(s: &Stmt<'s>, cur: &mut Shape, p: &mut Plan<'s>) {
    let body = |b: &[Stmt<'s>], cur: &mut Shape, p: &mut Plan<'s>| {
        b.iter().for_each(|s| walk(s, cur, p));
    };
    match s {
        Stmt::Template(t) => body(&t.children, cur, p),
        Stmt::EmitExpr(e) => expr(&e.expr, p),
        Stmt::EmitRaw(_) => {}
        Stmt::ForLoop(f) => {
            expr(&f.iter, p);
            if let Some(e) = &f.filter_expr {
                expr(e, p);
            }
            body(&f.body, cur, p);
            body(&f.else_body, cur, p);
        }
        Stmt::IfCond(i) => {
            expr(&i.expr, p);
            body(&i.true_body, cur, p);
            body(&i.false_body, cur, p);
        }
        Stmt::WithBlock(w) => {
            let simple = w.assignments.iter().all(|(t, _)| matches!(t, Expr::Var(_)));
            cur.withs.push(simple.then_some(w.assignments.len()));
            w.assignments.iter().for_each(|(_, e)| expr(e, p));
            body(&w.body, cur, p);
        }
        Stmt::Set(set) => expr(&set.expr, p),
        Stmt::SetBlock(set) => {
            body(&set.body, cur, p);
            if let Some(e) = &set.filter {
                expr(e, p);
            }
        }
        Stmt::AutoEscape(a) => {
            expr(&a.enabled, p);
            body(&a.body, cur, p);
        }
        Stmt::FilterBlock(f) => {
            body(&f.body, cur, p);
            expr(&f.filter, p);
        }
        Stmt::Block(b) => {
            let mut shape = Shape::default();
            body(&b.body, &mut shape, p);
            if b.required {
                p.required.push(b.name);
            }
            p.blocks.insert(b.name, shape);
        }
        Stmt::Import(_) | Stmt::FromImport(_) => cur.withs.push(None),
        Stmt::Extends(e) => expr(&e.name, p),
        Stmt::Include(i) => expr(&i.name, p),
        Stmt::Macro(m) => {
            m.defaults.iter().for_each(|d| expr(d, p));
            body(&m.body, cur, p);
        }
        Stmt::CallBlock(c) => {
            expr(&c.call.expr, p);
            args(&c.call.args, p);
            body(&c.macro_decl.body, cur, p);
        }
        Stmt::Do(d) => {
            expr(&d.call.expr, p);
            args(&d.call.args, p);
        }
    }
}

fn args(list: &[CallArg<'_>], p: &mut Plan<'_>) {
    for a in list {
        match a {
            CallArg::Pos(e)
            | CallArg::Kwarg(_, e)
            | CallArg::PosSplat(e)
            | CallArg::KwargSplat(e) => expr(e, p),
        }
    }
}

/// Only looks for calls of mutating methods (expressions hold no statements).
fn expr(e: &Expr<'_>, p: &mut Plan<'_>) {
    match e {
        Expr::Var(_) | Expr::Const(_) => {}
        Expr::Slice(s) => {
            expr(&s.expr, p);
            for part in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                expr(part, p);
            }
        }
        Expr::UnaryOp(u) => expr(&u.expr, p),
        Expr::BinOp(b) => {
            expr(&b.left, p);
            expr(&b.right, p);
        }
        Expr::Compare(c) => {
            expr(&c.expr, p);
            c.ops.iter().for_each(|op| expr(&op.expr, p));
        }
        Expr::IfExpr(i) => {
            expr(&i.test_expr, p);
            expr(&i.true_expr, p);
            if let Some(f) = &i.false_expr {
                expr(f, p);
            }
        }
        Expr::Filter(f) => {
            if let Some(e) = &f.expr {
                expr(e, p);
            }
            args(&f.args, p);
        }
        Expr::Test(t) => {
            expr(&t.expr, p);
            args(&t.args, p);
        }
        Expr::GetAttr(g) => {
            // `(l.append)(x)` and `l.append` handed around count as calls too.
            if mutable::is_mutating_method(g.name) {
                p.mutates = true;
            }
            expr(&g.expr, p);
        }
        Expr::GetItem(g) => {
            expr(&g.expr, p);
            expr(&g.subscript_expr, p);
        }
        Expr::Call(c) => {
            expr(&c.expr, p);
            args(&c.args, p);
        }
        Expr::List(l) => l.items.iter().for_each(|i| expr(i, p)),
        Expr::Tuple(t) => t.items.iter().for_each(|i| expr(i, p)),
        Expr::Map(m) => {
            m.keys.iter().for_each(|k| expr(k, p));
            m.values.iter().for_each(|v| expr(v, p));
        }
    }
}

/// One instruction of the new list: `from` is the old instruction whose span and line it
/// takes, `anchors` the old positions whose jumps now land on it.
struct Entry<'s> {
    instr: Instruction<'s>,
    from: u32,
    anchors: Vec<u32>,
}

fn old_list<'s>(old: &Instructions<'s>) -> Vec<Instruction<'s>> {
    let mut v = Vec::new();
    let mut pc = 0u32;
    while let Some(i) = old.get(pc) {
        v.push(i.clone());
        pc += 1;
    }
    v
}

/// Rewrites the template's instructions and its blocks' as the plan says.
pub(crate) fn apply<'s>(
    plan: &Plan<'s>,
    instructions: &mut Instructions<'s>,
    blocks: &mut BTreeMap<&'s str, Instructions<'s>>,
) {
    if let Some(new) = rebuild(instructions, &plan.main, plan.mutates) {
        *instructions = new;
    }
    for (name, block) in blocks.iter_mut() {
        if plan.required.contains(name) {
            continue;
        }
        let empty = Shape::default();
        let shape = plan.blocks.get(name).unwrap_or(&empty);
        if let Some(new) = rebuild(block, shape, plan.mutates) {
            *block = new;
        }
    }
}

/// The length of the assignment target starting at `at` (`StoreLocal`, or `UnpackList(n)`
/// and its `n` targets), if one starts there.
fn target_len(list: &[Instruction<'_>], at: usize) -> Option<usize> {
    match list.get(at)? {
        Instruction::StoreLocal(_) => Some(1),
        Instruction::UnpackList(n) => {
            let mut len = 1;
            for _ in 0..*n {
                len += target_len(list, at + len)?;
            }
            Some(len)
        }
        _ => None,
    }
}

/// The `with` header starting at the `PushWith` at `at`, as (start, end) ranges of each
/// right-hand side and of each target, if the instructions have the expected form.
type Header = Vec<((usize, usize), (usize, usize))>;

fn with_header(list: &[Instruction<'_>], at: usize, count: usize) -> Option<Header> {
    let mut out = Vec::with_capacity(count);
    let mut pos = at + 1;
    for _ in 0..count {
        let start = pos;
        // Expressions hold neither stores nor unpacking, so the first one ends the value.
        while !matches!(
            list.get(pos)?,
            Instruction::StoreLocal(_) | Instruction::UnpackList(_)
        ) {
            pos += 1;
        }
        if pos == start {
            return None;
        }
        let len = target_len(list, pos)?;
        out.push(((start, pos), (pos, pos + len)));
        pos += len;
    }
    Some(out)
}

/// The new instructions for the old one at `pc` (outside `with` headers).
fn expand<'s>(
    list: &[Instruction<'s>],
    pc: usize,
    mutates: bool,
    out: &mut Vec<Entry<'s>>,
) -> bool {
    expand_at(list, pc, pc as u32, mutates, out)
}

/// [`expand`] with jumps to `anchor` landing on the result.
fn expand_at<'s>(
    list: &[Instruction<'s>],
    pc: usize,
    anchor: u32,
    mutates: bool,
    out: &mut Vec<Entry<'s>>,
) -> bool {
    let instr = &list[pc];
    let first = |instr: Instruction<'s>| Entry {
        instr,
        from: pc as u32,
        anchors: vec![anchor],
    };
    let extra = |instr: Instruction<'s>| Entry {
        instr,
        from: pc as u32,
        anchors: Vec::new(),
    };
    match instr {
        Instruction::GetAttr(name) if bound::may_be_method(name) => {
            // obj -> obj obj -> obj attr -> obj attr name -> fixed attr
            out.push(first(Instruction::DupTop));
            out.push(extra(instr.clone()));
            out.push(extra(Instruction::LoadConst(JValue::from(*name))));
            out.push(extra(Instruction::CallFunction(bound::FIX_ATTR, Some(3))));
            true
        }
        Instruction::PushLoop(_)
        | Instruction::FastRecurse
        | Instruction::CallFunction("loop", Some(1)) => {
            out.push(first(Instruction::CallFunction(
                bound::CHECK_ITERABLE,
                Some(1),
            )));
            out.push(extra(instr.clone()));
            true
        }
        Instruction::LoadConst(v) if mutates && mutable::is_container(v) => {
            // A literal is a new object each time it is evaluated, as in Python.
            out.push(first(instr.clone()));
            out.push(extra(Instruction::CallFunction(mutable::COPY, Some(1))));
            true
        }
        Instruction::BuildList(Some(n)) if mutates => match u16::try_from(*n) {
            Ok(n) => {
                out.push(first(Instruction::CallFunction(
                    mutable::BUILD_LIST,
                    Some(n),
                )));
                true
            }
            Err(_) => {
                out.push(first(instr.clone()));
                false
            }
        },
        // A dict literal, before or after the operator swap (`ops::replacement`) made it a call.
        Instruction::BuildMap(pairs) if mutates => {
            match pairs.checked_mul(2).and_then(|n| u16::try_from(n).ok()) {
                Some(n) => {
                    out.push(first(Instruction::CallFunction(
                        mutable::BUILD_DICT,
                        Some(n),
                    )));
                    true
                }
                None => {
                    out.push(first(instr.clone()));
                    false
                }
            }
        }
        Instruction::CallFunction(name, n) if mutates && *name == ops::BUILD_MAP => {
            out.push(first(Instruction::CallFunction(mutable::BUILD_DICT, *n)));
            true
        }
        _ => {
            out.push(first(instr.clone()));
            false
        }
    }
}

fn rebuild<'s>(old: &Instructions<'s>, shape: &Shape, mutates: bool) -> Option<Instructions<'s>> {
    let list = old_list(old);
    let mut entries: Vec<Entry<'s>> = Vec::with_capacity(list.len() + 8);
    let mut changed = false;
    let mut withs = shape.withs.iter();
    let sites = recursion_sites(&list);
    // Copies of filter loops get positions past the old end, so their jumps can be remapped.
    let mut virtual_pcs = list.len() as u32 + 1;
    let mut pc = 0usize;
    while pc < list.len() {
        if let Some(&(_, (from, to))) = sites.iter().find(|(site, _)| *site == pc) {
            changed = true;
            // x -> 0 x -> (the filter loop over x) -> filtered list, then the recursion.
            entries.push(Entry {
                instr: Instruction::LoadConst(JValue::from(0usize)),
                from: pc as u32,
                anchors: vec![pc as u32],
            });
            entries.push(Entry {
                instr: Instruction::Swap,
                from: pc as u32,
                anchors: Vec::new(),
            });
            let base = virtual_pcs;
            virtual_pcs += (to - from + 1) as u32;
            for i in from..=to {
                let at = entries.len();
                expand_at(&list, i, base + (i - from) as u32, mutates, &mut entries);
                let relocate = |t: u32| {
                    if (from as u32..=to as u32).contains(&t) {
                        base + (t - from as u32)
                    } else {
                        t
                    }
                };
                for e in &mut entries[at..] {
                    e.instr = retarget(e.instr.clone(), relocate);
                }
            }
            entries.push(Entry {
                instr: Instruction::BuildList(None),
                from: pc as u32,
                anchors: Vec::new(),
            });
            entries.push(Entry {
                instr: list[pc].clone(),
                from: pc as u32,
                anchors: Vec::new(),
            });
            pc += 1;
            continue;
        }
        if let Instruction::PushWith = list[pc] {
            let header = withs
                .next()
                .copied()
                .flatten()
                .filter(|&n| n >= 2)
                .and_then(|n| with_header(&list, pc, n));
            if let Some(header) = header {
                changed = true;
                // The values in the outer scope, then the new scope, then the stores, the
                // last value (on top of the stack) first. Jumps to the `with` land on the
                // first value.
                // A jump to the end of a value (the old position of its store, from a
                // conditional expression) lands on what now follows the value.
                let mut pending = vec![pc as u32];
                for &((start, end), _) in &header {
                    let at = entries.len();
                    for i in start..end {
                        expand(&list, i, mutates, &mut entries);
                    }
                    if let Some(e) = entries.get_mut(at) {
                        e.anchors.append(&mut pending);
                    }
                    pending.push(end as u32);
                }
                entries.push(Entry {
                    instr: Instruction::PushWith,
                    from: pc as u32,
                    anchors: pending,
                });
                for &(_, (start, end)) in header.iter().rev() {
                    for i in start..end {
                        expand(&list, i, mutates, &mut entries);
                    }
                }
                pc = header.last().map_or(pc + 1, |h| h.1 .1);
                continue;
            }
        }
        changed |= expand(&list, pc, mutates, &mut entries);
        pc += 1;
    }
    if !changed {
        return None;
    }
    // Old position -> new position; one past the end maps to one past the new end.
    let mut map = vec![u32::MAX; virtual_pcs as usize];
    for (i, e) in entries.iter().enumerate() {
        for &a in &e.anchors {
            if map[a as usize] == u32::MAX {
                map[a as usize] = i as u32;
            }
        }
    }
    map[list.len()] = entries.len() as u32;
    let fix = |t: u32| map.get(t as usize).copied().unwrap_or(t);
    let mut out = Instructions::new(old.name(), old.source());
    for e in entries {
        let instr = retarget(e.instr, fix);
        add(&mut out, instr, old.get_span(e.from), old.get_line(e.from));
    }
    Some(out)
}

/// `instr` with its jump target (or macro body offset) passed through `f`.
pub(crate) fn retarget<'s>(instr: Instruction<'s>, f: impl Fn(u32) -> u32) -> Instruction<'s> {
    match instr {
        Instruction::Jump(t) => Instruction::Jump(f(t)),
        Instruction::JumpIfFalse(t) => Instruction::JumpIfFalse(f(t)),
        Instruction::JumpIfFalseOrPop(t) => Instruction::JumpIfFalseOrPop(f(t)),
        Instruction::JumpIfTrueOrPop(t) => Instruction::JumpIfTrueOrPop(f(t)),
        Instruction::Iterate(t) => Instruction::Iterate(f(t)),
        Instruction::BuildMacro(name, offset, flags) => {
            Instruction::BuildMacro(name, f(offset), flags)
        }
        other => other,
    }
}

/// The `loop(x)` calls of recursive loops with an `if` filter, each with the range of its
/// loop's filter loop. minijinja filters a loop's items in a loop of its own before the real
/// one, and recursion jumps to the real one, so `loop(x)` would skip the filter; Jinja2 applies
/// it at every level. A copy of the filter loop before the call filters `x` the same way.
fn recursion_sites(list: &[Instruction<'_>]) -> Vec<(usize, (usize, usize))> {
    use super::machinery::Instruction as I;
    const RECURSIVE: u8 = 2;
    const WITH_LOOP_VAR: u8 = 1;
    let mut out = Vec::new();
    for m in 2..list.len() {
        let I::PushLoop(flags) = list[m] else {
            continue;
        };
        if flags & RECURSIVE == 0
            || !matches!(list[m - 1], I::BuildList(None))
            || !matches!(list[m - 2], I::PopLoopFrame)
        {
            continue;
        }
        let end_filter = (m - 2) as u32;
        let Some(f) = (0..m - 2).rev().find(|&f| {
            matches!(list[f], I::PushLoop(0))
                && matches!(list.get(f + 1), Some(I::Iterate(t)) if *t == end_filter)
        }) else {
            continue;
        };
        let Some(&I::Iterate(end)) = list.get(m + 1) else {
            continue;
        };
        let mut pc = m + 2;
        while pc < end as usize {
            match &list[pc] {
                // A nested loop with its own `loop` hides this one.
                I::PushLoop(inner) if inner & WITH_LOOP_VAR != 0 => {
                    if let Some(&I::Iterate(inner_end)) = list.get(pc + 1) {
                        pc = inner_end as usize;
                        continue;
                    }
                }
                I::FastRecurse | I::CallFunction("loop", Some(1)) => out.push((pc, (f, m - 2))),
                _ => {}
            }
            pc += 1;
        }
    }
    out
}

fn add<'s>(
    out: &mut Instructions<'s>,
    instr: Instruction<'s>,
    span: Option<Span>,
    line: Option<usize>,
) {
    match span {
        Some(span) => out.add_with_span(instr, span),
        None => out.add_with_line(
            instr,
            line.map_or(0, |l| u16::try_from(l).unwrap_or(u16::MAX)),
        ),
    };
}
