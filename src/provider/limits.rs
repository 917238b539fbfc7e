//! The request size limits the providers document, checked on the body as it would be sent
//! (compact JSON). docs/providers.md, "Size limits", has the sources.
//!
//! A body over its API's request limit is still built whole, with `request_too_large`: no one
//! image is at fault, and choosing which screenshot to leave out would change what the model is
//! asked. An image over a per-image limit is left out (`image_over_provider_limit`), as other
//! images the API refuses are.

use std::io;

use serde_json::Value as Json;

use super::{Adapter, ChatProvider, Img, Sink};
use crate::report::DiagnosticCode;

const MIB: u64 = 1024 * 1024;

/// The API a body is sent to, as far as its size limits go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    /// OpenAI's own Responses and chat completions.
    OpenAi,
    Anthropic,
    Gemini,
    /// Servers that document no request size limit: Ollama, SGLang, DeepSeek, Tencent Cloud,
    /// and OpenAI's legacy completions (text only).
    Undocumented,
}

impl Api {
    pub(crate) fn of_adapter(adapter: Adapter) -> Api {
        match adapter {
            Adapter::OpenaiDesk => Api::OpenAi,
            Adapter::ClaudeDesk => Api::Anthropic,
            Adapter::GeminiDesk => Api::Gemini,
            Adapter::OllamaDesk
            | Adapter::SglangDesk
            | Adapter::DeepseekDesk
            | Adapter::TencentDsDesk
            | Adapter::OpenaiGenDesk => Api::Undocumented,
        }
    }

    pub(crate) fn of_chat(provider: ChatProvider) -> Api {
        match provider {
            ChatProvider::Openai => Api::OpenAi,
            ChatProvider::Anthropic => Api::Anthropic,
        }
    }

    /// The largest request body, in bytes, and how the provider words it. The documents say
    /// "MB"; Anthropic's own errors count 5 MB as 5,242,880 bytes, so MB is read as MiB.
    fn request_limit(self) -> Option<(u64, &'static str)> {
        match self {
            Api::OpenAi => Some((512 * MIB, "OpenAI's 512 MB total payload per request")),
            Api::Anthropic => Some((32 * MIB, "Anthropic's 32 MB Messages request limit")),
            Api::Gemini => Some((100 * MIB, "Gemini's 100 MB inline request limit")),
            Api::Undocumented => None,
        }
    }
}

/// The per-image limit of the API on an inline image's base64 data, when one is documented
/// (Anthropic: 10 MB of base64 per image on the Claude API): why the image is over it.
pub(crate) fn image_over(api: Api, img: &Img) -> Option<String> {
    let (Api::Anthropic, Img::Inline { data, .. }) = (api, img) else {
        return None;
    };
    let limit = 10 * MIB;
    let len = data.len() as u64;
    (len > limit).then(|| {
        format!(
            "its base64 data is {len} bytes, over the {limit} bytes (10 MB) Anthropic takes per image"
        )
    })
}

/// Counts the bytes written, so a body's size is known without holding its text.
struct Count(u64);

impl io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The size of the body as compact JSON, what a client sends.
pub(crate) fn body_bytes(body: &Json) -> u64 {
    let mut count = Count(0);
    // Writing a `Value` to a writer that never fails cannot fail.
    if serde_json::to_writer(&mut count, body).is_err() {
        return 0;
    }
    count.0
}

/// Warns when the body is over its API's request limit; the body is kept as built.
pub(crate) fn check_request(api: Api, body: &Json, sink: &mut Sink) {
    let Some((limit, what)) = api.request_limit() else {
        return;
    };
    let size = body_bytes(body);
    if size > limit {
        sink.warn(
            DiagnosticCode::RequestTooLarge,
            format!(
                "the request body is {size} bytes, over {what} ({limit} bytes); it is shown whole, with its images, but the provider will refuse it: send fewer or smaller images"
            ),
            None,
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_size_is_that_of_compact_json() {
        let body = json!({"a": [1, "é"], "b": null});
        assert_eq!(body_bytes(&body), r#"{"a":[1,"é"],"b":null}"#.len() as u64);
    }

    #[test]
    fn only_anthropic_limits_one_image_and_only_inline_data_counts() {
        let big = Img::Inline {
            mime: "image/png",
            data: "A".repeat(10 * 1024 * 1024 + 1),
        };
        let why = image_over(Api::Anthropic, &big).expect("over 10 MiB");
        assert!(why.contains("10485761 bytes"), "{why}");
        assert_eq!(image_over(Api::OpenAi, &big), None);
        let at_limit = Img::Inline {
            mime: "image/png",
            data: "A".repeat(10 * 1024 * 1024),
        };
        assert_eq!(image_over(Api::Anthropic, &at_limit), None);
        let url = Img::Url {
            url: "https://x.test/a.png".into(),
            mime: None,
        };
        assert_eq!(image_over(Api::Anthropic, &url), None);
    }
}
