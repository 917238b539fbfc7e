//! One budget of work and of output for all the templates of a scene render (docs/templates.md,
//! "Limits").
//!
//! Each template has its own limits (the Jinja2 engine's fuel, both engines' output caps), but a
//! scene renders hundreds of templates: 200 tools that each use up their fuel, or 24 tools that
//! each print 16 MB, would together take seconds or gigabytes. A [`Budget`] is made once per scene
//! render and every template of it renders through [`Template::render_with`]: a template gets at
//! most what is left, and what it used is taken off. When the budget is used up, the templates
//! still to render fail with [`ErrorKind::LimitExceeded`] and the message [`FUEL_EXHAUSTED`] or
//! [`OUTPUT_EXHAUSTED`].
//!
//! A budget also carries a cancellation flag: `serve` sets it when the client goes away, and the
//! engines stop at their next charge with [`CANCELLED`]. The flag reaches budgets made anywhere
//! below [`with_cancel`] on the same thread.
//!
//! [`Template::render_with`]: super::Template::render_with

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::{ErrorKind, TemplateError};

/// Work one scene render may do, in the Jinja2 engine's fuel (one instruction, or 64 bytes of
/// data made or scanned): sixteen templates' worth of [`TEMPLATE_FUEL`].
pub const SCENE_FUEL: u64 = 16 * TEMPLATE_FUEL;

/// Fuel one Jinja2 template may use (less when the scene has less left).
pub const TEMPLATE_FUEL: u64 = 1_000_000;

/// Bytes all the templates of one scene render may output together.
pub const SCENE_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// The message of the error a template gets when the scene's fuel is used up.
pub const FUEL_EXHAUSTED: &str =
    "the scene's templates did too much work together (the scene render's fuel budget is used up)";

/// The message of the error a template gets when the scene's output budget is used up.
pub const OUTPUT_EXHAUSTED: &str =
    "the scene's templates output too much together (the scene render's output budget of 64 MiB is used up)";

/// The message of the error a template gets when the render was cancelled.
pub const CANCELLED: &str = "the render was cancelled";

/// What one scene render may still spend. Shared by reference by every template of the render;
/// the counters are atomic so a budget can be read from another thread (a benchmark, a test).
#[derive(Debug)]
pub struct Budget {
    fuel_left: AtomicU64,
    output_left: AtomicU64,
    fuel_spent: AtomicU64,
    output_spent: AtomicU64,
    /// Set when a template was refused (or cut short) by this budget rather than by its own limits.
    tripped: AtomicBool,
    cancel: Option<Arc<AtomicBool>>,
}

/// What one template render took from a budget, as [`Budget::measure`] records it, so that a
/// memoised render can take the same again ([`Budget::replay`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    fuel: u64,
    output: u64,
    /// The fuel the template was given: a replay needs at least this much left.
    allotted: u64,
    /// The budget refused or cut short the render: its result depends on the budget, not on the
    /// template and its variables alone.
    limited: bool,
}

impl Cost {
    /// The render's result depends on how much of the budget was left; it must not be reused.
    pub fn limited(&self) -> bool {
        self.limited
    }
}

thread_local! {
    static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` with `flag` as the cancellation flag of every [`Budget::scene`] made on this thread
/// meanwhile (and handed to worker threads through [`current_cancel`]).
pub fn with_cancel<T>(flag: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CANCEL.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CANCEL.with(|c| c.borrow_mut().replace(flag));
    let _restore = Restore(previous);
    f()
}

/// The cancellation flag [`with_cancel`] installed on this thread, if any.
pub fn current_cancel() -> Option<Arc<AtomicBool>> {
    CANCEL.with(|c| c.borrow().clone())
}

impl Budget {
    /// A scene render's budget ([`SCENE_FUEL`], [`SCENE_OUTPUT_BYTES`]), cancelled by this thread's
    /// [`with_cancel`] flag.
    pub fn scene() -> Budget {
        Budget::new(SCENE_FUEL, SCENE_OUTPUT_BYTES).cancelled_by(current_cancel())
    }

    /// A budget of `fuel` and `output_bytes`.
    pub fn new(fuel: u64, output_bytes: u64) -> Budget {
        Budget {
            fuel_left: AtomicU64::new(fuel),
            output_left: AtomicU64::new(output_bytes),
            fuel_spent: AtomicU64::new(0),
            output_spent: AtomicU64::new(0),
            tripped: AtomicBool::new(false),
            cancel: None,
        }
    }

    /// This budget, stopped when `flag` is set.
    pub fn cancelled_by(mut self, flag: Option<Arc<AtomicBool>>) -> Budget {
        self.cancel = flag;
        self
    }

    pub fn fuel_left(&self) -> u64 {
        self.fuel_left.load(Ordering::Relaxed)
    }

    pub fn output_left(&self) -> u64 {
        self.output_left.load(Ordering::Relaxed)
    }

    /// Fuel taken so far (never more than the budget).
    pub fn fuel_spent(&self) -> u64 {
        self.fuel_spent.load(Ordering::Relaxed)
    }

    /// Output bytes taken so far.
    pub fn output_spent(&self) -> u64 {
        self.output_spent.load(Ordering::Relaxed)
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    pub(crate) fn cancel_flag(&self) -> Option<&Arc<AtomicBool>> {
        self.cancel.as_ref()
    }

    /// The fuel a template may use now: its own limit, or what the scene has left if less.
    pub(crate) fn allot(&self) -> u64 {
        self.fuel_left().min(TEMPLATE_FUEL)
    }

    /// Takes `fuel` off (all that is left if less is left).
    pub(crate) fn take_fuel(&self, fuel: u64) {
        let taken = take(&self.fuel_left, fuel);
        self.fuel_spent.fetch_add(taken, Ordering::Relaxed);
    }

    /// Takes `bytes` of output off, or refuses them (and takes nothing) when less is left.
    pub(crate) fn take_output(&self, bytes: u64) -> Result<(), TemplateError> {
        let left = &self.output_left;
        let mut current = left.load(Ordering::Relaxed);
        loop {
            if bytes > current {
                return Err(self.output_refused());
            }
            match left.compare_exchange_weak(
                current,
                current - bytes,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => current = now,
            }
        }
        self.output_spent.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// The error of a render whose output does not fit in what is left.
    pub(crate) fn output_refused(&self) -> TemplateError {
        self.trip();
        TemplateError::new(ErrorKind::LimitExceeded, OUTPUT_EXHAUSTED)
    }

    /// Records that this budget, not the template's own limits, decided a render's outcome.
    pub(crate) fn trip(&self) {
        self.tripped.store(true, Ordering::Relaxed);
    }

    /// The error for a render refused before it starts (cancelled, or no fuel left), if any.
    pub(crate) fn refusal(&self) -> Option<TemplateError> {
        if self.is_cancelled() {
            self.trip();
            return Some(TemplateError::new(ErrorKind::LimitExceeded, CANCELLED));
        }
        if self.fuel_left() == 0 {
            self.trip();
            return Some(TemplateError::new(ErrorKind::LimitExceeded, FUEL_EXHAUSTED));
        }
        None
    }

    /// Runs one template render (`f`), recording what it took from this budget.
    pub fn measure<T>(&self, f: impl FnOnce() -> T) -> (T, Cost) {
        let (fuel, output) = (self.fuel_spent(), self.output_spent());
        let allotted = self.allot();
        let tripped = self.tripped.swap(false, Ordering::Relaxed);
        let result = f();
        let limited = self.tripped.load(Ordering::Relaxed);
        if tripped {
            self.trip();
        }
        let cost = Cost {
            fuel: self.fuel_spent() - fuel,
            output: self.output_spent() - output,
            allotted,
            limited,
        };
        (result, cost)
    }

    /// Takes `cost` again for a render kept from before, when this budget would have let that
    /// render happen as it did: at least as much fuel for it, room for its output, not
    /// cancelled. `false` (and nothing taken) otherwise: the render must be made again.
    pub fn replay(&self, cost: &Cost) -> bool {
        if cost.limited
            || self.is_cancelled()
            || self.allot() < cost.allotted
            || self.output_left() < cost.output
        {
            return false;
        }
        self.take_fuel(cost.fuel);
        self.take_output(cost.output).is_ok()
    }
}

/// Subtracts up to `n` from `counter`, returning how much was subtracted.
fn take(counter: &AtomicU64, n: u64) -> u64 {
    let mut current = counter.load(Ordering::Relaxed);
    loop {
        let taken = n.min(current);
        match counter.compare_exchange_weak(
            current,
            current - taken,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return taken,
            Err(now) => current = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::{Engine, Template, Vars};
    use crate::value::Value;

    fn render(engine: Engine, source: &str, budget: &Budget) -> Result<String, TemplateError> {
        Template::compile(engine, source)
            .expect("compiles")
            .render_with(&Vars::new(Value::None), budget)
    }

    /// Two distinct strings of 1 MB: comparing them touches every byte.
    const SETUP: &str = "{% set a = 'x' * 1000000 %}{% set b = 'x' * 1000000 %}";

    /// Each scan touches about 200 MB in a few hundred instructions: far past the template's
    /// fuel (64 MB of data) when scans are charged by the bytes they touch, well within it when
    /// they cost an instruction each.
    #[test]
    fn scans_of_long_strings_are_charged_by_the_bytes_they_touch() {
        let scans = [
            "{% for i in range(200) %}{% if 'y' in a %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if b in [a] %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if a == b %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if a != b %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if a < b %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if a is lower %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if a is eq b %}{% endif %}{% endfor %}",
            "{% for i in range(200) %}{% if a is in b %}{% endif %}{% endfor %}",
            "{% set m = ([a, b] * 100) | min %}",
            "{% set m = ([a, b] * 100) | max(case_sensitive=true) %}",
            "{% set m = ([a, b] * 100) | sort %}",
            "{% set m = ([a, b] * 100) | unique | list %}",
            "{% set m = ([{'k': a}, {'k': b}] * 100) | groupby('k') %}",
            "{% set m = ([{'k': a}] * 200) | selectattr('k', 'eq', b) | list %}",
            "{% set m = ([a] * 200) | map('lower') | list %}",
            "{% set m = ([a] * 200) | select('lower') | list %}",
        ];
        let not_charged: Vec<&str> = scans
            .into_iter()
            .filter(|scan| {
                let budget = Budget::scene();
                let result = render(Engine::Jinja2, &format!("{SETUP}{scan}"), &budget);
                // What the scans did is taken off the scene's budget too.
                !matches!(&result, Err(e) if e.kind() == ErrorKind::LimitExceeded
                    && e.message() == "the template did too much work (out of fuel)")
                    || budget.fuel_spent() < TEMPLATE_FUEL
            })
            .collect();
        assert_eq!(not_charged, Vec::<&str>::new());
    }

    #[test]
    fn a_template_gets_what_the_scene_has_left() {
        let budget = Budget::new(1000, SCENE_OUTPUT_BYTES);
        let err = render(
            Engine::Jinja2,
            "{% for i in range(100000) %}{% endfor %}",
            &budget,
        )
        .expect_err("past the scene's fuel");
        assert_eq!(
            (err.kind(), err.message()),
            (ErrorKind::LimitExceeded, FUEL_EXHAUSTED)
        );
        assert_eq!((budget.fuel_left(), budget.fuel_spent()), (0, 1000));
        // Nothing left: the next template is refused, whatever its engine.
        for engine in Engine::ALL {
            let err = render(engine, "hi", &budget).expect_err("refused");
            assert_eq!(err.message(), FUEL_EXHAUSTED);
        }
    }

    #[test]
    fn output_is_taken_off_the_scene_and_refused_past_it() {
        let budget = Budget::new(SCENE_FUEL, 10);
        assert_eq!(
            render(Engine::Jinja2, "{{ 'ab' * 3 }}", &budget).as_deref(),
            Ok("ababab")
        );
        assert_eq!(
            render(Engine::Fstring, "abc", &budget).as_deref(),
            Ok("abc")
        );
        assert_eq!(budget.output_spent(), 9);
        for engine in Engine::ALL {
            let err = render(engine, "xy", &budget).expect_err("past the output budget");
            assert_eq!(
                (err.kind(), err.message()),
                (ErrorKind::LimitExceeded, OUTPUT_EXHAUSTED)
            );
        }
        assert_eq!(budget.output_spent(), 9);
    }

    #[test]
    fn a_cancelled_budget_stops_a_render_in_its_scans() {
        let flag = Arc::new(AtomicBool::new(true));
        let budget = Budget::scene().cancelled_by(Some(flag));
        let err = render(Engine::Jinja2, "x", &budget).expect_err("cancelled");
        assert_eq!(err.message(), CANCELLED);
        // The flag reaches budgets made below `with_cancel`.
        let flag = Arc::new(AtomicBool::new(false));
        let budget = with_cancel(Arc::clone(&flag), Budget::scene);
        assert!(!budget.is_cancelled());
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(budget.is_cancelled());
        assert!(current_cancel().is_none());
    }
}
