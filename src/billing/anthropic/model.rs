//! What Anthropic's billing depends on in a model's name: its family and version, the size of
//! the tool-use system prompt Anthropic adds for it, and whether it uses the tokenizer that Claude
//! Opus 4.7 introduced.

/// A Claude model's family (`opus`, `sonnet`, `haiku`) and version (`4.5` is `(4, 5)`), read
/// from either naming scheme: `claude-sonnet-4-5[-20250929]` or `claude-3-5-sonnet-20240620`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Claude<'a> {
    pub family: &'a str,
    pub version: (u32, u32),
    /// The dated snapshot (`20240620`), when named.
    pub date: Option<u32>,
}

impl<'a> Claude<'a> {
    pub fn parse(model: &'a str) -> Option<Claude<'a>> {
        let rest = model.strip_prefix("claude-")?;
        let mut family = None;
        let mut numbers = Vec::new();
        let mut date = None;
        for word in rest.split('-') {
            match word.parse::<u32>() {
                // A dated snapshot, not a version number.
                Ok(n) if word.len() == 8 => date = Some(n),
                Ok(n) if numbers.len() < 2 => numbers.push(n),
                Ok(_) => {}
                Err(_) if family.is_none() && word != "latest" => family = Some(word),
                Err(_) => {}
            }
        }
        let major = *numbers.first()?;
        Some(Claude {
            family: family.unwrap_or(""),
            version: (major, numbers.get(1).copied().unwrap_or(0)),
            date,
        })
    }

    /// Claude Opus 4.7 and every later model count text with a newer tokenizer, which Anthropic
    /// says gives up to 1.35 times as many tokens for the same text.
    pub fn new_tokenizer(&self) -> bool {
        self.version >= (4, 7)
    }
}

/// The documented size of the tool-use system prompt: for `tool_choice` `auto` or `none`, and
/// for `any` or `tool` ("Tool use system prompt token count", Anthropic's tool-use docs).
type ToolPromptRow = (&'static str, (u32, u32), usize, usize);

const TOOL_PROMPT: &[ToolPromptRow] = &[
    ("opus", (4, 8), 290, 410),
    ("opus", (4, 7), 675, 804),
    ("opus", (4, 6), 497, 589),
    ("opus", (4, 5), 496, 588),
    ("opus", (4, 1), 313, 315),
    ("opus", (4, 0), 313, 315),
    ("sonnet", (5, 0), 354, 474),
    ("sonnet", (4, 6), 497, 589),
    ("sonnet", (4, 5), 496, 588),
    ("sonnet", (4, 0), 313, 315),
    ("haiku", (4, 5), 496, 588),
    ("haiku", (3, 5), 264, 355),
    // Earlier editions of the same table.
    ("sonnet", (3, 7), 346, 313),
    ("sonnet", (3, 5), 346, 313),
    ("opus", (3, 0), 530, 281),
    ("sonnet", (3, 0), 159, 235),
    ("haiku", (3, 0), 264, 340),
];

/// Claude Sonnet 3.5's first snapshot (June 2024) has a smaller prompt than the October one.
const SONNET_3_5_JUNE: (usize, usize) = (294, 261);

/// The tool-use system prompt's tokens for `model` and the request's `tool_choice` type (`auto`
/// when absent). A model the table does not name takes the row of the same version in another
/// family, else the latest earlier version of its family, else the latest row.
pub(super) fn tool_prompt_tokens(model: &str, choice: &str) -> usize {
    let forced = matches!(choice, "any" | "tool");
    let pick = |(auto, any): (usize, usize)| if forced { any } else { auto };
    let Some(claude) = Claude::parse(model) else {
        return pick((TOOL_PROMPT[0].2, TOOL_PROMPT[0].3));
    };
    if claude.family == "sonnet"
        && claude.version == (3, 5)
        && claude.date.is_some_and(|d| d < 20_241_001)
    {
        return pick(SONNET_3_5_JUNE);
    }
    let row = |pred: &dyn Fn(&ToolPromptRow) -> bool| {
        TOOL_PROMPT
            .iter()
            .filter(|r| pred(r))
            .max_by_key(|r| r.1)
            .map(|r| (r.2, r.3))
    };
    let found = row(&|r| r.0 == claude.family && r.1 == claude.version)
        .or_else(|| row(&|r| r.1 == claude.version))
        .or_else(|| row(&|r| r.0 == claude.family && r.1 <= claude.version))
        .or_else(|| row(&|r| r.1 <= claude.version))
        .unwrap_or((TOOL_PROMPT[0].2, TOOL_PROMPT[0].3));
    pick(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_naming_schemes_and_dated_snapshots_parse() {
        let c = Claude::parse("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!(
            (c.family, c.version, c.date),
            ("sonnet", (4, 5), Some(20250929))
        );
        let c = Claude::parse("claude-3-5-sonnet-20240620").unwrap();
        assert_eq!((c.family, c.version), ("sonnet", (3, 5)));
        let c = Claude::parse("claude-3-5-haiku-latest").unwrap();
        assert_eq!((c.family, c.version, c.date), ("haiku", (3, 5), None));
        assert_eq!(Claude::parse("claude-opus-5").unwrap().version, (5, 0));
        assert_eq!(Claude::parse("gpt-4o"), None);
    }

    #[test]
    fn the_newer_tokenizer_starts_with_opus_4_7() {
        let newer = |m| Claude::parse(m).unwrap().new_tokenizer();
        assert!(newer("claude-opus-4-7"));
        assert!(newer("claude-sonnet-5"));
        assert!(!newer("claude-sonnet-4-6"));
        assert!(!newer("claude-3-7-sonnet-20250219"));
    }

    #[test]
    fn the_tool_prompt_follows_the_documented_table() {
        assert_eq!(tool_prompt_tokens("claude-sonnet-4-5", "auto"), 496);
        assert_eq!(tool_prompt_tokens("claude-sonnet-4-5-20250929", "any"), 588);
        assert_eq!(tool_prompt_tokens("claude-opus-4-6", "tool"), 589);
        assert_eq!(tool_prompt_tokens("claude-opus-4-8", "none"), 290);
        assert_eq!(tool_prompt_tokens("claude-3-5-haiku-20241022", "auto"), 264);
        assert_eq!(
            tool_prompt_tokens("claude-3-5-sonnet-20240620", "auto"),
            294
        );
        assert_eq!(
            tool_prompt_tokens("claude-3-5-sonnet-20241022", "auto"),
            346
        );
        assert_eq!(tool_prompt_tokens("claude-3-opus-20240229", "any"), 281);
    }

    #[test]
    fn an_unlisted_model_borrows_the_nearest_row() {
        // Same version, another family.
        assert_eq!(tool_prompt_tokens("claude-opus-5", "auto"), 354);
        assert_eq!(tool_prompt_tokens("claude-haiku-4-6", "auto"), 497);
        // The latest earlier version of its family.
        assert_eq!(tool_prompt_tokens("claude-haiku-4-9", "auto"), 496);
    }
}
