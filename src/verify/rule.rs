//! The order in which a cache miss is explained, kept in one place: `verify` gives it the facts
//! of a recorded call, the app's zero-read explanations (`api::explain`) the facts of a predicted
//! one, and both name the cause with the same `miss_…` code (docs/diagnostics.md).

use crate::report::DiagnosticCode;

/// The part of a request where it first differs from the call before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// A tool definition, the provider's tool-use prompt, a structured-output schema.
    Tools,
    /// The system prompt, instructions, or the provider's framing around them.
    System,
    /// An earlier message (edited, removed, or the conversation cut short).
    Messages,
    /// The same JSON value sent as other bytes.
    SameValue,
}

impl Changed {
    pub fn code(self) -> DiagnosticCode {
        match self {
            Changed::Tools => DiagnosticCode::MissToolsChanged,
            Changed::System => DiagnosticCode::MissSystemChanged,
            Changed::Messages => DiagnosticCode::MissMessagesRewritten,
            Changed::SameValue => DiagnosticCode::MissByteInstability,
        }
    }
}

/// What is known of a call that reads less than the call before it left in the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The call names another model than the call before.
    pub model_changed: bool,
    /// The first difference inside the prefix the call before had cached.
    pub changed: Option<Changed>,
    /// Tokens of the prefix the call repeats from the call before.
    pub repeated_tokens: usize,
    /// The least the model caches.
    pub min_tokens: usize,
    /// A cache that serves only up to the request's breakpoints, and none catches that prefix.
    pub no_breakpoint: bool,
    /// The cache entry's lifetime ran out before the call.
    pub expired: bool,
}

/// The cause of the miss: a change inside the cached prefix first, then what kept the prefix
/// from being cached or read, then time; what is left is the provider's side.
pub fn cause(f: &Facts) -> DiagnosticCode {
    if f.model_changed {
        DiagnosticCode::MissModelChanged
    } else if let Some(c) = f.changed {
        c.code()
    } else if f.repeated_tokens < f.min_tokens {
        DiagnosticCode::MissBelowMinimum
    } else if f.no_breakpoint {
        DiagnosticCode::MissNoBreakpoint
    } else if f.expired {
        DiagnosticCode::MissTtlExpired
    } else {
        DiagnosticCode::MissProviderSide
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_comes_before_the_length_and_the_breakpoints() {
        let f = Facts {
            changed: Some(Changed::System),
            repeated_tokens: 10,
            min_tokens: 1024,
            no_breakpoint: true,
            ..Facts::default()
        };
        assert_eq!(cause(&f), DiagnosticCode::MissSystemChanged);
        let f = Facts {
            model_changed: true,
            ..f
        };
        assert_eq!(cause(&f), DiagnosticCode::MissModelChanged);
    }

    #[test]
    fn an_intact_prefix_is_explained_by_length_then_breakpoints_then_time() {
        let base = Facts {
            repeated_tokens: 2000,
            min_tokens: 1024,
            ..Facts::default()
        };
        assert_eq!(cause(&base), DiagnosticCode::MissProviderSide);
        let expired = Facts {
            expired: true,
            ..base
        };
        assert_eq!(cause(&expired), DiagnosticCode::MissTtlExpired);
        let unmarked = Facts {
            no_breakpoint: true,
            ..expired
        };
        assert_eq!(cause(&unmarked), DiagnosticCode::MissNoBreakpoint);
        let short = Facts {
            repeated_tokens: 700,
            ..unmarked
        };
        assert_eq!(cause(&short), DiagnosticCode::MissBelowMinimum);
    }
}
