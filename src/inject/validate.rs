//! Tool validation as TFRobot's `__init_subclass__` does it at class definition
//! (docs/rules.md), in the same order, with the same exception classes.

use std::fmt;

use crate::scene::Tool;
use crate::segments::{self, Family, Rule};

/// Why a tool failed validation: the exception class and, for a position, what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// `TypeError` or `ValueError`, as TFRobot raises.
    pub exception: &'static str,
    pub reason: Reason,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// `prompt_position` set but `_format_2_prompt` not overridden.
    PositionWithoutOverride,
    /// `_format_2_prompt` overridden but no `prompt_position`.
    OverrideWithoutPosition,
    /// `(None, None)`.
    BothSidesNull,
    /// A segment a rule forbids.
    Forbidden(Family, Rule),
    /// The other family's segment, or a made-up name.
    Unknown(Family),
}

impl Reason {
    /// Stable code: the rule id for forbidden positions, `unknown` for unknown names.
    pub fn code(self) -> &'static str {
        match self {
            Reason::PositionWithoutOverride => "position_without_override",
            Reason::OverrideWithoutPosition => "override_without_position",
            Reason::BothSidesNull => "both_sides_null",
            Reason::Forbidden(_, rule) => rule.id(),
            Reason::Unknown(_) => "unknown",
        }
    }

    pub fn rule(self) -> Option<Rule> {
        match self {
            Reason::Forbidden(_, rule) => Some(rule),
            _ => None,
        }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.exception, self.message)
    }
}

/// Validates one tool; `Ok` means it takes part in rendering.
pub fn validate(tool: &Tool) -> Result<(), Invalid> {
    let name = &tool.name;
    let overrides = tool.format_2_prompt.is_some();
    let Some(position) = &tool.prompt_position else {
        if overrides {
            return Err(Invalid {
                exception: "TypeError",
                reason: Reason::OverrideWithoutPosition,
                message: format!(
                    "{name} overrides _format_2_prompt() but declares no prompt_position; declare \
                     (chat_pos | None, desk_pos | None) with at least one side set"
                ),
            });
        }
        return Ok(());
    };
    if !overrides {
        return Err(Invalid {
            exception: "TypeError",
            reason: Reason::PositionWithoutOverride,
            message: format!(
                "{name} sets prompt_position but does not override _format_2_prompt(): the \
                 declaration has no effect"
            ),
        });
    }
    if position.chat.is_none() && position.desk.is_none() {
        return Err(Invalid {
            exception: "ValueError",
            reason: Reason::BothSidesNull,
            message: format!(
                "{name}.prompt_position = (None, None) repeats prompt_position = None; to inject \
                 nothing, drop the _format_2_prompt override and set prompt_position back to None"
            ),
        });
    }
    for (index, family, side) in [
        (0, Family::Chat, &position.chat),
        (1, Family::Desk, &position.desk),
    ] {
        if let Some(segment) = side {
            check_side(name, index, family, segment)?;
        }
    }
    Ok(())
}

fn check_side(tool: &str, index: usize, family: Family, name: &str) -> Result<(), Invalid> {
    let legal: Vec<&str> = family
        .segments()
        .filter(|s| s.legal())
        .map(|s| s.name)
        .collect();
    match segments::find(family, name) {
        Some(seg) => match seg.rule {
            None => Ok(()),
            Some(rule) => Err(Invalid {
                exception: "ValueError",
                reason: Reason::Forbidden(family, rule),
                message: format!(
                    "{tool}.prompt_position[{index}]={name:?} is not a legal {} position: {} \
                     ({}). {}",
                    family.class_name(),
                    rule.id(),
                    rule.title(),
                    rule.reason()
                ),
            }),
        },
        None => {
            let hint = match segments::find_any(name) {
                Some(other) => format!(" (it is a {} segment)", other.family.class_name()),
                None => String::new(),
            };
            Err(Invalid {
                exception: "ValueError",
                reason: Reason::Unknown(family),
                message: format!(
                    "{tool}.prompt_position[{index}]={name:?} is not a {} position{hint}; legal: {}",
                    family.class_name(),
                    legal.join(", ")
                ),
            })
        }
    }
}
