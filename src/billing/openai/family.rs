//! Which prompt format and encoding a model name means, and how sure the count can be.
//!
//! OpenAI has used two prompt formats on its API: ChatML (`<|im_start|>role<|im_sep|>text
//! <|im_end|>`, GPT-3.5 to GPT-4.1 and the `o` series) and harmony (`<|start|>role<|channel|>
//! ...<|message|>text<|end|>`, GPT-5 and gpt-oss). Both bill a plain message as its text plus
//! three special tokens plus its role; they differ in the reply priming and in how assistant
//! turns, tool calls and tool results are framed (docs/models.md, "Predicted billed input:
//! OpenAI").

use crate::tokens::Encoding;

/// The prompt format a model reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    ChatMl,
    Harmony,
}

/// What the corpus proves about a model's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// The model or its family was measured exact on recorded usage.
    Proven,
    /// A newer model of a proven family: its plain messages are counted as the family's, but its
    /// tool prompt was measured larger than the family's (gpt-5.4-mini, docs/models.md).
    Newer,
    /// Not an OpenAI model (an OpenAI-compatible server): OpenAI's framing and `o200k_base`
    /// are a guess.
    Foreign,
}

/// How a model's prompt is framed and counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Model {
    pub format: Format,
    pub encoding: Encoding,
    /// The reply is primed with two tokens (`<|start|>assistant`) rather than three
    /// (`<|im_start|>assistant<|im_sep|>`): reasoning models, and ChatML models when the request
    /// has tools (the model may then address a tool after `assistant`).
    pub short_priming: bool,
    /// The parameter list of a tool opens as `(_:{` rather than `(_: {` (GPT-4o and GPT-4.1:
    /// measured one token shorter exactly when the first parameter has no comment line).
    pub tight_parameters: bool,
    pub standing: Standing,
}

impl Model {
    /// Tokens of the reply priming for a request with or without tools.
    pub fn priming_tokens(&self, has_tools: bool) -> usize {
        if self.short_priming || has_tools {
            2
        } else {
            3
        }
    }
}

/// The model a request names (a `provider/` prefix, as routers write it, is ignored).
pub(crate) fn model(name: &str) -> Model {
    let lower = name.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let chatml = |encoding, short_priming, tight_parameters| Model {
        format: Format::ChatMl,
        encoding,
        short_priming,
        tight_parameters,
        standing: Standing::Proven,
    };
    if name.starts_with("gpt-3.5") || name == "gpt-4" || name.starts_with("gpt-4-") {
        return chatml(Encoding::Cl100kBase, false, false);
    }
    if ["gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return chatml(Encoding::O200kBase, false, true);
    }
    if ["o1", "o3", "o4"].iter().any(|p| is_series(name, p)) {
        return chatml(Encoding::O200kBase, true, true);
    }
    if let Some(rest) = name.strip_prefix("gpt-5") {
        let newer = rest.starts_with('.');
        return Model {
            format: Format::Harmony,
            encoding: Encoding::O200kBase,
            short_priming: true,
            tight_parameters: false,
            standing: if newer {
                Standing::Newer
            } else {
                Standing::Proven
            },
        };
    }
    if name.starts_with("gpt-oss") {
        return Model {
            format: Format::Harmony,
            encoding: Encoding::O200kBase,
            short_priming: true,
            tight_parameters: false,
            standing: Standing::Newer,
        };
    }
    Model {
        standing: Standing::Foreign,
        ..chatml(Encoding::O200kBase, false, true)
    }
}

/// `name` is `series` itself or `series-...` (`o3`, `o3-mini`), not a longer word (`o30`).
fn is_series(name: &str, series: &str) -> bool {
    name.strip_prefix(series)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_by_name() {
        assert_eq!(model("gpt-3.5-turbo").encoding, Encoding::Cl100kBase);
        assert_eq!(model("gpt-4").encoding, Encoding::Cl100kBase);
        assert_eq!(model("gpt-4-vision-preview").encoding, Encoding::Cl100kBase);
        assert_eq!(model("gpt-4o-mini").encoding, Encoding::O200kBase);
        assert_eq!(model("gpt-4.1-nano").format, Format::ChatMl);
        assert!(model("o3-mini").short_priming);
        assert!(!model("o30").short_priming);
        assert_eq!(model("gpt-5-mini").format, Format::Harmony);
        assert_eq!(model("gpt-5").standing, Standing::Proven);
        assert_eq!(model("gpt-5.4-mini").standing, Standing::Newer);
        assert_eq!(model("openai/gpt-4o").standing, Standing::Proven);
        assert_eq!(model("deepseek-chat").standing, Standing::Foreign);
    }

    #[test]
    fn priming_is_three_tokens_unless_tools_or_reasoning() {
        // Cookbook: every reply is primed with <|start|>assistant<|message|> (3 tokens); the
        // corpus: 2 with tools (GPT-3.5 and GPT-4o) and on o3-mini and GPT-5.
        assert_eq!(model("gpt-4o").priming_tokens(false), 3);
        assert_eq!(model("gpt-4o").priming_tokens(true), 2);
        assert_eq!(model("o3-mini").priming_tokens(false), 2);
        assert_eq!(model("gpt-5").priming_tokens(false), 2);
    }
}
