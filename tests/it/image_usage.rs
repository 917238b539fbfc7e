//! The usage corpus's calls with images (`corpora/usage/selection.json`, flag `image`) against
//! the image rules (`billing::image`): each image priced by its provider's rule, and what the
//! provider billed less the image is the call's text part. The text part here is an
//! approximation (OpenAI: `o200k_base` tokens of the text plus 4 per message and 3 for the
//! reply; Anthropic: the text's `o200k_base` tokens), so the check is that the rest is
//! close to it, not the end-to-end prediction (docs/models.md, "Images").

use prompt_inspector::billing::image::{self, ImageRef};
use prompt_inspector::tokens::{self, Encoding};
use prompt_inspector::usage::{Api, Provenance};
use serde_json::Value as Json;

use crate::support::root;

/// One image pair: the file, its API and model, what was billed, and the images' prices.
struct Pair {
    file: String,
    api: Api,
    model: String,
    billed: u64,
    images: Vec<Priced>,
    /// The approximate text part.
    text: usize,
    tools: bool,
}

/// An image as the rules price it: the size read from its header (`None` for a URL), its tokens
/// and their provenance.
#[derive(Debug)]
struct Priced {
    size: Option<(u32, u32)>,
    tokens: usize,
    provenance: Provenance,
}

fn pairs() -> Vec<Pair> {
    let dir = root().join("corpora/usage");
    let selection: Json = serde_json::from_str(
        &std::fs::read_to_string(dir.join("selection.json")).expect("selection.json"),
    )
    .expect("selection.json is JSON");
    let mut out = Vec::new();
    for entry in selection.as_array().expect("a list") {
        let flags = entry["flags"].as_array().expect("flags");
        if !flags.iter().any(|f| f == "image") {
            continue;
        }
        let file = entry["file"].as_str().expect("file").to_owned();
        let pair: Json =
            serde_json::from_str(&std::fs::read_to_string(dir.join(&file)).expect("pair file"))
                .expect("pair is JSON");
        let api = Api::parse(entry["endpoint"].as_str().expect("endpoint")).expect("an API");
        let model = pair["model"].as_str().expect("model").to_owned();
        let request = &pair["request"];
        let usage = &pair["response_usage"];
        let billed = match api {
            Api::Anthropic => usage["input_tokens"].as_u64(),
            _ => usage["prompt_tokens"]
                .as_u64()
                .or_else(|| usage["input_tokens"].as_u64()),
        }
        .expect("billed input");
        let mut images = Vec::new();
        let mut text = 0;
        let messages = request["messages"].as_array().expect("messages");
        for message in messages {
            if api != Api::Anthropic {
                text += 4;
            }
            let parts = match &message["content"] {
                Json::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
                Json::Array(parts) => parts.clone(),
                _ => Vec::new(),
            };
            for part in &parts {
                match part["type"].as_str() {
                    Some("text") => {
                        text += tokens::count(
                            part["text"].as_str().unwrap_or_default(),
                            Encoding::O200kBase,
                        );
                    }
                    Some("image_url") => {
                        let (url, detail) = match &part["image_url"] {
                            Json::String(u) => (u.as_str(), None),
                            o => (o["url"].as_str().expect("url"), o["detail"].as_str()),
                        };
                        let size = url
                            .starts_with("data:")
                            .then(|| image::pixel_size_base64(url))
                            .flatten();
                        let (n, p) = image::tokens(
                            api,
                            &model,
                            &ImageRef {
                                size,
                                detail,
                                ..ImageRef::default()
                            },
                        );
                        images.push(Priced {
                            size,
                            tokens: n,
                            provenance: p,
                        });
                    }
                    Some("image") => {
                        let source = &part["source"];
                        let size = source["data"].as_str().and_then(image::pixel_size_base64);
                        let (n, p) = image::tokens(
                            api,
                            &model,
                            &ImageRef {
                                size,
                                ..ImageRef::default()
                            },
                        );
                        images.push(Priced {
                            size,
                            tokens: n,
                            provenance: p,
                        });
                    }
                    _ => {}
                }
            }
        }
        if api != Api::Anthropic {
            text += 3;
        }
        out.push(Pair {
            file,
            api,
            model,
            billed,
            images,
            text,
            tools: request.get("tools").is_some(),
        });
    }
    out
}

#[test]
fn billed_image_calls_agree_with_the_image_rules() {
    let pairs = pairs();
    assert_eq!(pairs.len(), 4, "the corpus's image pairs");
    for p in &pairs {
        let image_tokens: usize = p.images.iter().map(|i| i.tokens).sum();
        let rest = p.billed as i64 - image_tokens as i64;
        eprintln!(
            "{} {} {}: billed {}, images {:?}, billed less images {rest}, text part ≈ {}",
            p.file,
            p.api.as_str(),
            p.model,
            p.billed,
            p.images,
            p.text
        );
        assert_eq!(p.images.len(), 1, "{}", p.file);
        if let Priced {
            size: None,
            tokens: estimate,
            provenance,
        } = &p.images[0]
        {
            // A URL image: what the bill leaves for it after the text is within the estimate's
            // bound (the corpus's 800×400 image, 2 tiles: 425 tokens).
            let billed_image = p.billed as usize - p.text;
            assert_eq!(billed_image, 425, "{}", p.file);
            assert!(
                estimate.abs_diff(billed_image) as f64
                    <= provenance.bound() / 100.0 * *estimate as f64,
                "{}: {billed_image} outside {estimate} {provenance}",
                p.file
            );
            continue;
        }
        assert!(rest > 0, "{}: the image alone is over the bill", p.file);
        match p.api {
            // OpenAI without tools: the text part is known to about a token.
            Api::OpenaiChat if !p.tools => {
                assert!(
                    rest.abs_diff(p.text as i64) <= 1,
                    "{}: {rest} left for a text part of {}",
                    p.file,
                    p.text
                );
            }
            // With tool definitions, their framing is not counted here; the rest must still
            // hold the messages.
            Api::OpenaiChat => assert!(rest >= p.text as i64, "{}", p.file),
            // Claude's tokenizer counts more than o200k and frames a message in a few tokens:
            // the rest is the text's tokens plus a small overhead.
            _ => assert!(
                rest >= p.text as i64 && rest <= p.text as i64 * 2 + 16,
                "{}: {rest} left for {} text tokens",
                p.file,
                p.text
            ),
        }
    }
    // The sizes the rules were given, read from the images' headers (the URL image has none).
    let sizes: Vec<Option<(u32, u32)>> = pairs.iter().map(|p| p.images[0].size).collect();
    assert_eq!(
        sizes,
        [Some((228, 148)), Some((1, 1)), Some((128, 128)), None]
    );
}
