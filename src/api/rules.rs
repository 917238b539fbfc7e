//! `rules`: the 14 segments and the three rules from the core's one table, in the shape
//! `prompt-inspector rules --format json` prints (the command line prints this very value).

use serde::{Deserialize, Serialize};

use super::error::u32_of;
use crate::scene::Adapter;
use crate::segments::{Rule, SEGMENTS};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RulesResponse {
    pub segments: Vec<SegmentInfo>,
    pub rules: Vec<RuleInfo>,
    /// What the segments open to tools are (the system side), as each rule's `holds` says of
    /// the segments it closes.
    pub system_side: String,
    /// The DeskLLM adapters a scene may name, the default (`openai_desk`) first.
    pub adapters: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SegmentInfo {
    pub name: String,
    /// The segment in a few words (`the desk at the start`), for a badge.
    pub label: String,
    /// `chat` or `desk`.
    #[cfg_attr(feature = "specta", specta(type = crate::segments::Family))]
    pub family: String,
    /// 0-based assembly order within its family.
    pub order: u32,
    pub legal: bool,
    /// Whether the LLM's configuration holds a prompt list for it (a key of a scene's `chat_llm`
    /// or `desk_llm`); the message streams do not.
    pub configured: bool,
    pub purpose: String,
    /// In the prefix a prompt cache reuses from call to call (docs/rules.md).
    pub cached_prefix: bool,
    /// The rule forbidding tools here, for forbidden segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RuleInfo {
    pub id: String,
    pub title: String,
    /// The rule in a few words for a badge (`history`: "forbidden: history").
    pub short: String,
    /// What the fields it closes are: what they hold and who writes them.
    pub holds: String,
    pub reason: String,
    /// The segments this rule forbids.
    pub segments: Vec<String>,
}

pub fn rules() -> RulesResponse {
    RulesResponse {
        segments: SEGMENTS
            .iter()
            .map(|s| SegmentInfo {
                name: s.name.to_owned(),
                label: s.label.to_owned(),
                family: s.family.as_str().to_owned(),
                order: u32_of(s.order()),
                legal: s.legal(),
                configured: s.kind != crate::segments::SegmentKind::Messages,
                purpose: s.purpose.to_owned(),
                cached_prefix: s.cached_prefix,
                rule: s.rule.map(|r| r.id().to_owned()),
                reason: s.rule.map(|r| r.reason().to_owned()),
            })
            .collect(),
        rules: Rule::ALL
            .iter()
            .map(|r| RuleInfo {
                id: r.id().to_owned(),
                title: r.title().to_owned(),
                short: r.short().to_owned(),
                holds: r.holds().to_owned(),
                reason: r.reason().to_owned(),
                segments: SEGMENTS
                    .iter()
                    .filter(|s| s.rule == Some(*r))
                    .map(|s| s.name.to_owned())
                    .collect(),
            })
            .collect(),
        system_side: crate::segments::SYSTEM_SIDE.to_owned(),
        adapters: Adapter::ALL.iter().map(|a| a.as_str().to_owned()).collect(),
    }
}
