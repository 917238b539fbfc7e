//! Cache figures: how much of a request a provider's prompt cache can reuse from an earlier one.
//!
//! The request is serialised provider-neutrally (docs/run-loop.md): the concatenation over its messages
//! of `role + "\n" + content`. Token figures use `o200k_base` (OpenAI's current tokenizer); for
//! Anthropic, whose tokenizer is not public, they are an estimate. Sources of the rules:
//! docs/run-loop.md.

use std::ops::Range;

use serde::Serialize;

use crate::billing::image::{self, ImageRef};
use crate::pricing::cost::{automatic_read, CallCost, ModelCost};
use crate::pricing::{Growth, Row};
use crate::tokens::{self, Encoding};
use crate::usage::Api;

/// OpenAI caches a prompt automatically once it has this many tokens...
pub const OPENAI_MIN_TOKENS: usize = 1024;
/// ...and cache hits grow in steps of this many tokens past the minimum.
pub const OPENAI_STEP_TOKENS: usize = 128;
/// Anthropic: the shortest prefix a `cache_control` breakpoint caches (Claude Sonnet and Opus;
/// the Haiku models need 2,048).
pub const ANTHROPIC_MIN_TOKENS: usize = 1024;
/// Anthropic: at most this many `cache_control` breakpoints per request.
pub const ANTHROPIC_MAX_BREAKPOINTS: usize = 4;
/// Anthropic looks for hits at earlier block boundaries up to about this many blocks before a
/// breakpoint.
pub const ANTHROPIC_LOOKBACK_BLOCKS: usize = 20;

/// The model whose image rule prices images in the provider-neutral figures (a step's
/// `request_tokens`, its shared prefix, the Anthropic breakpoints): OpenAI's GPT-4o, whose
/// tokenizer `o200k_base` counts the text. Each model's costs price images by its own provider's
/// rule instead ([`image_model`]; docs/run-loop.md, "Images").
pub const REFERENCE_IMAGE_MODEL: (Api, &str) = (Api::OpenaiChat, "gpt-4o");

/// An image part in a serialisation: the bytes of its marker, and its pixel size when its bytes
/// are known (`None` for a remote URL or a file that was not read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marker {
    pub range: Range<usize>,
    pub size: Option<(u32, u32)>,
}

/// A request serialised for the cache figures as [`serialize`] does it, with each image part of a
/// content written as a short marker that names the image by its identity
/// (`provider::image::identity`): the markers in `text`, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Serialised {
    pub text: String,
    pub images: Vec<Marker>,
}

/// A prefix of a serialisation: the tokens of its text, and how many of the serialisation's
/// images (the first ones) lie wholly inside it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefix {
    pub text_tokens: usize,
    pub images: usize,
}

impl Prefix {
    /// Its tokens when the serialisation's images cost `image_tokens` each, in order
    /// ([`image_tokens`]).
    pub fn tokens(&self, image_tokens: &[usize]) -> usize {
        self.text_tokens + image_tokens.iter().take(self.images).sum::<usize>()
    }
}

impl Serialised {
    /// Appends a message: `role + "\n" + content`, `images` the markers with their ranges in
    /// `content`.
    pub fn push(&mut self, role: &str, content: &str, images: &[Marker]) {
        self.text.push_str(role);
        self.text.push('\n');
        let at = self.text.len();
        self.text.push_str(content);
        self.images.extend(images.iter().map(|m| Marker {
            range: at + m.range.start..at + m.range.end,
            size: m.size,
        }));
    }

    /// The whole request as a [`Prefix`].
    pub fn whole(&self) -> Prefix {
        self.prefix(self.text.len())
    }

    /// The first `at` bytes: the text between images counted with `o200k_base`, and the images
    /// whose marker lies wholly inside. A prefix that ends inside a marker ends before that image
    /// (two requests that differ there hold different images).
    pub fn prefix(&self, at: usize) -> Prefix {
        let at = at.min(self.text.len());
        let mut text_tokens = 0;
        let mut from = 0;
        for (k, m) in self.images.iter().enumerate() {
            let r = &m.range;
            if r.start >= at {
                return Prefix {
                    text_tokens: text_tokens
                        + count_tokens(prefix_text(&self.text[from..], at - from)),
                    images: k,
                };
            }
            text_tokens += count_tokens(&self.text[from..r.start]);
            if r.end > at {
                return Prefix {
                    text_tokens,
                    images: k,
                };
            }
            from = r.end;
        }
        Prefix {
            text_tokens: text_tokens + count_tokens(prefix_text(&self.text[from..], at - from)),
            images: self.images.len(),
        }
    }

    /// Tokens of the whole request, images priced for [`REFERENCE_IMAGE_MODEL`].
    pub fn tokens(&self) -> usize {
        self.whole().tokens(&self.reference_image_tokens())
    }

    /// Tokens of the first `at` bytes ([`Serialised::prefix`]), images priced for
    /// [`REFERENCE_IMAGE_MODEL`].
    pub fn prefix_tokens(&self, at: usize) -> usize {
        self.prefix(at).tokens(&self.reference_image_tokens())
    }

    /// What each image costs for [`REFERENCE_IMAGE_MODEL`].
    pub fn reference_image_tokens(&self) -> Vec<usize> {
        let (api, model) = REFERENCE_IMAGE_MODEL;
        image_tokens(&self.images, api, model)
    }
}

/// What each image costs sent to `api` for `model`, by its provider's rule
/// (`billing::image::tokens`): by its size where the bytes give it, else the rule's estimate for
/// an image of unknown size.
pub fn image_tokens(images: &[Marker], api: Api, model: &str) -> Vec<usize> {
    images
        .iter()
        .map(|m| {
            let image = ImageRef {
                size: m.size,
                ..ImageRef::default()
            };
            image::tokens(api, model, &image).0
        })
        .collect()
}

/// The API and model a row's images are priced for: its provider's (the `provider/` of its id:
/// `openai`, `anthropic`, `google`; any other provider is taken as speaking OpenAI's chat API)
/// and its first model name.
pub fn image_model(row: &Row) -> (Api, &str) {
    let api = match row.id.split('/').next() {
        Some("anthropic") => Api::Anthropic,
        Some("google") => Api::Gemini,
        _ => Api::OpenaiChat,
    };
    (
        api,
        row.models.first().map_or(row.id.as_str(), String::as_str),
    )
}

/// The serialisation the prefix figures are measured on.
pub fn serialize<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::new();
    for (role, content) in messages {
        out.push_str(role);
        out.push('\n');
        out.push_str(content);
    }
    out
}

/// Length in bytes of the common prefix of `a` and `b`.
pub fn common_prefix_bytes(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// `text[..at]` cut back to a character boundary, so a byte prefix can be tokenized.
pub fn prefix_text(text: &str, at: usize) -> &str {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

/// Tokens of a text under `o200k_base`.
pub fn count_tokens(text: &str) -> usize {
    tokens::count(text, Encoding::O200kBase)
}

/// The tokens OpenAI serves from its cache when `common` prompt tokens match an earlier request:
/// nothing below 1,024, then 1,024 plus whole 128-token steps.
pub fn openai_cached_tokens(common: usize) -> usize {
    if common < OPENAI_MIN_TOKENS {
        0
    } else {
        OPENAI_MIN_TOKENS + (common - OPENAI_MIN_TOKENS) / OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS
    }
}

/// The figures of one request against the previous one (all `None` for the first request).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Figures {
    /// The system message is byte-identical to the previous request's.
    pub system_identical: Option<bool>,
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub common_prefix_bytes: Option<usize>,
    /// Tokens of the common prefix (cut back to a character boundary).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub common_prefix_tokens: Option<usize>,
    /// The size of this request.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub request_bytes: usize,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub request_tokens: usize,
    /// OpenAI's automatic cache: tokens served from the cache (1,024 then 128-token steps).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub openai_cached_tokens: Option<usize>,
    /// Anthropic with xbot's one breakpoint (the `static` system message): its tokens when it is
    /// unchanged and long enough to be cached, else 0.
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub anthropic_cached_tokens: Option<usize>,
    /// Tokens of the system message, for pricing its breakpoint ([`price_run`]).
    #[serde(skip)]
    #[cfg_attr(feature = "specta", specta(skip))]
    pub system_tokens: usize,
}

/// Each model's input cost per round of a replayed loop. xbot marks one cache breakpoint, at
/// the end of its static system message: a breakpoint cache reads that message back when it
/// is unchanged and long enough, and writes it when it is new. The automatic caches read the
/// prefix each request shares with the one before.
pub fn price_run(figures: &[&Figures], models: &[&Row]) -> Vec<ModelCost> {
    models
        .iter()
        .map(|row| {
            let calls = figures
                .iter()
                .map(|f| {
                    let total = f.request_tokens;
                    let (read, write) = match row.cache.growth {
                        Growth::Breakpoints => {
                            let cacheable = f.system_tokens >= row.cache.min_tokens;
                            match (cacheable, f.system_identical) {
                                (false, _) => (0, 0),
                                (true, Some(true)) => (f.system_tokens, 0),
                                (true, _) => (0, f.system_tokens),
                            }
                        }
                        Growth::Units | Growth::ImplicitPrefix => {
                            let read = f
                                .common_prefix_tokens
                                .map_or(0, |common| automatic_read(row, common));
                            let write = if row.cache.writes_charged {
                                automatic_read(row, total).saturating_sub(read)
                            } else {
                                0
                            };
                            (read, write)
                        }
                    };
                    CallCost::of(row, total, read, write)
                })
                .collect();
            ModelCost::new(row, calls)
        })
        .collect()
}

/// The figures of a loop's requests, measured one after the other in linear time overall.
///
/// The loop only appends: each request is the previous one followed by new messages (a message
/// changes only before it is first sent). So the serialisation grows at its end, the common
/// prefix with the previous request is the whole previous serialisation, and the token counts
/// encode only the new text ([`tokens::GrowingCount`]).
pub struct RequestMeter {
    text: String,
    counter: tokens::GrowingCount,
    /// The previous request: its serialised length and tokens, and its system message.
    previous: Option<(usize, usize)>,
    system: Option<(String, usize)>,
}

impl Default for RequestMeter {
    fn default() -> Self {
        RequestMeter {
            text: String::new(),
            counter: tokens::GrowingCount::new(Encoding::O200kBase),
            previous: None,
            system: None,
        }
    }
}

impl RequestMeter {
    /// The figures of the next request: the previous one (empty at first) followed by
    /// `appended` `(role, content)` messages; `system` is its system message (empty for none).
    pub fn next<'a>(
        &mut self,
        system: &str,
        appended: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Figures {
        let shared = self.text.len();
        for (role, content) in appended {
            self.text.push_str(role);
            self.text.push('\n');
            self.text.push_str(content);
        }
        let request_tokens = self.counter.count(&self.text, shared);
        let mut f = Figures {
            request_bytes: self.text.len(),
            request_tokens,
            ..Figures::default()
        };
        let identical = self.system.as_ref().is_some_and(|(s, _)| s == system);
        if !identical {
            self.system = Some((system.to_owned(), count_tokens(system)));
        }
        let system_tokens = self.system.as_ref().map_or(0, |(_, t)| *t);
        f.system_tokens = system_tokens;
        if let Some((bytes, common)) = self.previous {
            f.system_identical = Some(identical);
            f.common_prefix_bytes = Some(bytes);
            f.common_prefix_tokens = Some(common);
            f.openai_cached_tokens = Some(openai_cached_tokens(common));
            f.anthropic_cached_tokens =
                Some(if identical && system_tokens >= ANTHROPIC_MIN_TOKENS {
                    system_tokens
                } else {
                    0
                });
        }
        self.previous = Some((f.request_bytes, request_tokens));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request with an image: the text around it through the tokenizer, the image by the
    /// reference model's rule (gpt-4o: a 1024×1024 image is 765 tokens), and a prefix cut inside
    /// the image's marker without it.
    #[test]
    fn an_image_is_one_part_priced_by_its_size() {
        let before = r#"[{"type":"text","text":"Here is my screen."},"#;
        let marker = format!(r#"{{"type":"image","image":"sha256:{}"}}"#, "ab".repeat(32));
        let content = format!("{before}{marker}]");
        let mut s = Serialised::default();
        s.push("system", "Be brief.", &[]);
        let in_content = Marker {
            range: before.len()..before.len() + marker.len(),
            size: Some((1024, 1024)),
        };
        s.push("user", &content, std::slice::from_ref(&in_content));
        let head = format!("system\nBe brief.user\n{before}");
        assert_eq!(s.images[0].range, head.len()..head.len() + marker.len());
        let text_tokens = tokens::count(&head, Encoding::O200kBase);
        assert_eq!(s.tokens(), text_tokens + 765 + 1, "`]` is one token");
        assert_eq!(s.prefix_tokens(head.len()), text_tokens);
        assert_eq!(s.prefix_tokens(head.len() + 20), text_tokens);
        assert_eq!(
            s.prefix_tokens(head.len() + marker.len()),
            text_tokens + 765
        );
        assert_eq!(s.prefix_tokens(usize::MAX), s.tokens());
        // The same image priced for Claude: 37 × 37 patches of 28 px; and at its size for
        // gpt-4o-mini, 2833 + 4 tiles × 5667.
        let whole = s.whole();
        assert_eq!(whole.images, 1);
        let claude = image_tokens(&s.images, Api::Anthropic, "claude-sonnet-4-5");
        assert_eq!(whole.tokens(&claude), text_tokens + 1 + 37 * 37);
        let mini = image_tokens(&s.images, Api::OpenaiChat, "gpt-4o-mini");
        assert_eq!(mini, vec![2833 + 4 * 5667]);
    }

    #[test]
    fn rows_price_images_for_their_provider() {
        let table = crate::pricing::Table::builtin();
        let api_of = |id: &str| {
            let row = table.models.iter().find(|r| r.id == id).expect("row");
            image_model(row)
        };
        assert_eq!(
            api_of("openai/gpt-4o-mini"),
            (Api::OpenaiChat, "gpt-4o-mini")
        );
        assert_eq!(
            api_of("anthropic/claude-sonnet-4-5"),
            (Api::Anthropic, "claude-sonnet-4-5")
        );
        assert_eq!(
            api_of("google/gemini-2.5-flash"),
            (Api::Gemini, "gemini-2.5-flash")
        );
        assert_eq!(
            api_of("deepseek/deepseek-flash"),
            (Api::OpenaiChat, "deepseek-flash")
        );
    }
}
