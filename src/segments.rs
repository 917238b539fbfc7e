//! The 14 segments of TFRobot's two LLM families and the rules that decide where a tool may
//! inject: the one source of truth read by validation, assembly, the report, `prompt-inspector
//! rules`, the docs (docs/rules.md, whose segment table a test keeps in step with this one) and
//! (via the `rules` operation) the app.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The two LLM families of TFRobot; a tool's `prompt_position` is a `(chat, desk)` pair. In
/// JSON (the API's `llm`) `"chat"` or `"desk"`; the TypeScript bindings call the type `Llm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename = "Llm", rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Family {
    Chat,
    Desk,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Chat, Family::Desk];

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Chat => "chat",
            Family::Desk => "desk",
        }
    }

    /// The family named `s` (`chat`, `desk`).
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// The class name in TFRobot.
    pub fn class_name(self) -> &'static str {
        match self {
            Family::Chat => "ChatLLM",
            Family::Desk => "DeskLLM",
        }
    }

    /// The family's segments in assembly order.
    pub fn segments(self) -> impl Iterator<Item = &'static Segment> {
        SEGMENTS.iter().filter(move |s| s.family == self)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a segment is closed to tools: two iron rules and one architecture boundary (docs/rules.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// 铁律 1: no injection into positions that express the user's intent.
    IronRule1,
    /// 铁律 2: no injection into history snapshots the system maintains.
    IronRule2,
    /// 架构边界: only `list[BasePrompt]` fields are injection targets, not message streams.
    ArchitectureBoundary,
}

impl Rule {
    pub const ALL: [Rule; 3] = [Rule::IronRule1, Rule::IronRule2, Rule::ArchitectureBoundary];

    /// The stable identifier used in diagnostics, reports and errors.
    pub fn id(self) -> &'static str {
        match self {
            Rule::IronRule1 => "iron_rule_1",
            Rule::IronRule2 => "iron_rule_2",
            Rule::ArchitectureBoundary => "architecture_boundary",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Rule::IronRule1 => "Iron rule 1: user intent (铁律 1：用户意图表达位)",
            Rule::IronRule2 => "Iron rule 2: history snapshot (铁律 2：系统维护的历史快照位)",
            Rule::ArchitectureBoundary => "Architecture boundary: message streams (架构边界)",
        }
    }

    /// The rule in a few words, for a badge: what the forbidden fields are (`user's words`,
    /// `history`, `message stream`), so a badge reads "forbidden: history".
    pub fn short(self) -> &'static str {
        match self {
            Rule::IronRule1 => "user's words",
            Rule::IronRule2 => "history",
            Rule::ArchitectureBoundary => "message stream",
        }
    }

    /// What the fields this rule closes are, said as what they hold and who writes them (the
    /// boundary is a property of the fields, not a policy laid over them).
    pub fn holds(self) -> &'static str {
        match self {
            Rule::IronRule1 => {
                "The user's input: what the person typed, the task's purpose and the last \
                 instruction before the answer. This text comes from the user or the task, not \
                 from the LLM's configuration: a tool's text here would read as the user's own \
                 words."
            }
            Rule::IronRule2 => {
                "The history snapshot: the desk as the system recorded it when the task started. \
                 It is a record, written once by the system; a tool's text here would read as \
                 what the desk was."
            }
            Rule::ArchitectureBoundary => {
                "Message streams: the conversation and the tool loop's messages, recorded while \
                 the agent runs. They are lists of messages (list[BaseMessage]), not prompt lists: \
                 there is no prompt in them for a tool to add to."
            }
        }
    }

    /// The rule's reasoning, in one paragraph (docs/rules.md says more).
    pub fn reason(self) -> &'static str {
        match self {
            Rule::IronRule1 => {
                "Tools must not write where the user's own words, the task's purpose or the last \
                 behavioural instruction are expressed. A tool bug there silently rewrites what the \
                 user asked for, and the model acts on an intent nobody can trace back."
            }
            Rule::IronRule2 => {
                "History is the system's record of the desk and the world. A tool that rewrites the \
                 initial snapshot breaks the causality of the desk timeline: the run can no longer be \
                 replayed or audited."
            }
            Rule::ArchitectureBoundary => {
                "Only the LLM's configured list[BasePrompt] fields are injection targets. \
                 conversation_msgs and intermediate_msgs are list[BaseMessage] runtime streams; a \
                 tool's intermediate results belong in ToolReturn → intermediate_msgs."
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What a segment holds, which decides how assembly renders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// A `list[BasePrompt]` rendered and joined with `\n` into one message (chat) or block (desk).
    Prompts,
    /// `reformat_input_prompt`: replaces the user's input text when it renders non-empty.
    UserInput,
    /// A stream of recorded messages (`conversation`, `intermediate_msgs`).
    Messages,
}

/// One of the 14 segments.
#[derive(Debug, PartialEq, Eq)]
pub struct Segment {
    /// The field name in TFRobot (`system_msg_prompt`).
    pub name: &'static str,
    /// The segment in a few words (`system message`, `the desk at the start`), for badges and
    /// a presenter's view; `name` stays the id.
    pub label: &'static str,
    pub family: Family,
    pub kind: SegmentKind,
    /// `None` when tools may inject here; otherwise the rule that forbids it.
    pub rule: Option<Rule>,
    /// The segment's use, in one line: what it holds and, when tools may write, what for.
    pub purpose: &'static str,
    /// In the prefix a prompt cache reuses from call to call: every segment before the first one
    /// whose text is new in each call of a tool-call loop (chat: the summary after the
    /// intermediate messages; desk: the intermediate actions and the live screenshot onwards).
    /// Text that changes here re-bills everything after it (docs/diagnostics.md, "Cache-safety
    /// lint").
    pub cached_prefix: bool,
}

impl Segment {
    pub fn legal(&self) -> bool {
        self.rule.is_none()
    }

    /// Position of the segment within its family's assembly order (0-based).
    pub fn order(&self) -> usize {
        self.family
            .segments()
            .position(|s| s.name == self.name)
            .unwrap_or(0)
    }
}

const fn seg(
    (name, label): (&'static str, &'static str),
    family: Family,
    kind: SegmentKind,
    rule: Option<Rule>,
    cached_prefix: bool,
    purpose: &'static str,
) -> Segment {
    Segment {
        name,
        label,
        family,
        kind,
        rule,
        purpose,
        cached_prefix,
    }
}

use Family::{Chat, Desk};
use SegmentKind::{Messages, Prompts, UserInput};

/// What the segments open to tools are: the system side, next to what [`Rule::holds`] says of
/// the others.
pub const SYSTEM_SIDE: &str = "System-side prompt lists: the LLM's configuration \
    (list[BasePrompt]) that the developer writes, rendered before each call. Tools add their text \
    here, as more of the system's own instructions, beside the configured prompts.";

/// All 14 segments: the 7 chat ones, then the 7 desk ones, each in assembly order.
pub static SEGMENTS: [Segment; 14] = [
    seg(("system_msg_prompt", "system message"), Chat, Prompts, None, true,
        "System message: role, global background, long-term memory. The most used injection position."),
    seg(("conversation_msgs", "conversation history"), Chat, Messages, Some(Rule::ArchitectureBoundary), true,
        "The conversation history (list[BaseMessage]). Tools can read prompt_ctx.conversation and render into a legal position."),
    seg(("before_input_msg_prompt", "before the user's input"), Chat, Prompts, None, true,
        "Guidance just before the user's input; a system-role message from the LLM's configuration, not the input itself."),
    seg(("reformat_input_prompt", "the user's input"), Chat, UserInput, Some(Rule::IronRule1), true,
        "Replaces the user's input text: a tool writing here would rewrite what the user said."),
    seg(("after_input_msg_prompt", "after the user's input"), Chat, Prompts, None, true,
        "Supplementary system message after the user's input."),
    seg(("intermediate_msgs", "tool-loop messages"), Chat, Messages, Some(Rule::ArchitectureBoundary), true,
        "Intermediate messages of the tool-call loop (list[BaseMessage]); tool results travel as ToolReturn."),
    seg(("after_intermediate_msg_prompt", "after the tool loop"), Chat, Prompts, None, false,
        "Summary position after the intermediate messages."),
    seg(("system_prompt", "system message"), Desk, Prompts, None, true,
        "System message, as system_msg_prompt for chat."),
    seg(("instruction_prompt", "instructions and examples"), Desk, Prompts, None, true,
        "Few-shot examples; experience-replay tools can inject here."),
    seg(("original_desk_screenshot_prompt", "the desk at the start"), Desk, Prompts, Some(Rule::IronRule2), true,
        "The desk as it was when the task started, recorded by the system and never changed."),
    seg(("intermediate_prompt", "intermediate actions"), Desk, Prompts, None, false,
        "Intermediate actions."),
    seg(("current_desk_screenshot_prompt", "the desk now"), Desk, Prompts, None, false,
        "The live state of the desk now (the dual of the original snapshot); tools may add dimensions of it."),
    seg(("purpose_prompt", "the task's purpose"), Desk, Prompts, Some(Rule::IronRule1), false,
        "The task's purpose, usually the user's input or the current task description."),
    seg(("prefix_prompt", "the last words before the answer"), Desk, Prompts, Some(Rule::IronRule1), false,
        "The very last words before the model's output, the most position-sensitive instruction."),
];

/// The latest segment of a family tools may write: text there shifts nothing a cache reuses
/// from the calls before (chat `after_intermediate_msg_prompt`, desk `current_desk_screenshot_prompt`).
pub fn latest_legal(family: Family) -> &'static Segment {
    family
        .segments()
        .filter(|s| s.legal() && s.kind == SegmentKind::Prompts)
        .last()
        .unwrap_or(&SEGMENTS[0])
}

/// The first segment of a family tools may write outside the cached prefix (chat
/// `after_intermediate_msg_prompt`, desk `intermediate_prompt`).
pub fn first_legal_after_prefix(family: Family) -> &'static Segment {
    family
        .segments()
        .find(|s| s.legal() && !s.cached_prefix)
        .unwrap_or_else(|| latest_legal(family))
}

/// Looks a segment up by name within a family.
pub fn find(family: Family, name: &str) -> Option<&'static Segment> {
    family.segments().find(|s| s.name == name)
}

/// Looks a segment up by name in either family.
pub fn find_any(name: &str) -> Option<&'static Segment> {
    SEGMENTS.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_legal_positions_per_family() {
        let legal = |f: Family| {
            f.segments()
                .filter(|s| s.legal())
                .map(|s| s.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            legal(Chat),
            [
                "system_msg_prompt",
                "before_input_msg_prompt",
                "after_input_msg_prompt",
                "after_intermediate_msg_prompt"
            ]
        );
        assert_eq!(
            legal(Desk),
            [
                "system_prompt",
                "instruction_prompt",
                "intermediate_prompt",
                "current_desk_screenshot_prompt"
            ]
        );
    }

    #[test]
    fn forbidden_positions_carry_their_rules() {
        let rule = |n: &str| find_any(n).and_then(|s| s.rule);
        assert_eq!(rule("reformat_input_prompt"), Some(Rule::IronRule1));
        assert_eq!(rule("purpose_prompt"), Some(Rule::IronRule1));
        assert_eq!(rule("prefix_prompt"), Some(Rule::IronRule1));
        assert_eq!(
            rule("original_desk_screenshot_prompt"),
            Some(Rule::IronRule2)
        );
        assert_eq!(rule("conversation_msgs"), Some(Rule::ArchitectureBoundary));
        assert_eq!(rule("intermediate_msgs"), Some(Rule::ArchitectureBoundary));
    }

    #[test]
    fn the_cached_prefix_ends_where_each_call_adds_text() {
        let prefix = |f: Family| {
            f.segments()
                .filter(|s| s.cached_prefix)
                .map(|s| s.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(prefix(Chat).len(), 6, "all but the summary after the loop");
        assert_eq!(
            prefix(Desk),
            [
                "system_prompt",
                "instruction_prompt",
                "original_desk_screenshot_prompt"
            ]
        );
        // The prefix is a prefix: no segment in it follows one outside it.
        for f in [Chat, Desk] {
            let flags: Vec<bool> = f.segments().map(|s| s.cached_prefix).collect();
            assert!(flags.windows(2).all(|w| w[0] || !w[1]), "{f}: {flags:?}");
        }
        assert_eq!(latest_legal(Chat).name, "after_intermediate_msg_prompt");
        assert_eq!(latest_legal(Desk).name, "current_desk_screenshot_prompt");
        assert_eq!(first_legal_after_prefix(Desk).name, "intermediate_prompt");
    }

    #[test]
    fn names_are_unique_and_orders_follow_the_table() {
        for (i, s) in Chat.segments().enumerate() {
            assert_eq!(s.order(), i);
        }
        let mut names: Vec<_> = SEGMENTS.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 14);
        assert!(find(Desk, "system_msg_prompt").is_none());
    }
}
