//! What an OpenTelemetry GenAI span says about its call beyond the messages: the provider
//! (`gen_ai.provider.name`, or the older `gen_ai.system`, or OpenInference's `llm.provider` /
//! `llm.system`), which names the API, the model (`gen_ai.request.model` or OpenInference's
//! `llm.model_name`, else `gen_ai.response.model`), the request parameters
//! (`gen_ai.request.max_tokens`, `temperature`, `top_p`, `top_k`, `frequency_penalty`,
//! `presence_penalty`, `seed`, `stop_sequences`, `choice.count`) under the API's own names, and
//! the span's start time. They go into the scene's `recorded`; a span that names no provider
//! the project knows keeps them in the list of what was not mapped.

use serde_json::{json, Map, Value as Json};

use super::draft::Draft;
use crate::usage::Api;

/// The API a provider name stands for: OpenAI's (and those serving its chat completions:
/// Azure OpenAI, DeepSeek) chat completions, Anthropic's Messages, Gemini on Google AI or Vertex.
fn api_of(provider: &str) -> Option<Api> {
    match provider {
        "openai" | "azure" | "azure.ai.openai" | "az.ai.openai" | "deepseek" => {
            Some(Api::OpenaiChat)
        }
        "anthropic" => Some(Api::Anthropic),
        "gcp.gemini" | "gcp.vertex_ai" | "gcp.gen_ai" | "gemini" | "vertex_ai" | "google" => {
            Some(Api::Gemini)
        }
        _ => None,
    }
}

/// The span's recorded facts as they are read.
pub(super) struct Recording {
    api: Api,
    model: Option<String>,
    response_model: Option<String>,
    params: Map<String, Json>,
}

impl Recording {
    /// From the span's provider attribute's value, when it names an API.
    pub(super) fn new(provider: Option<&Json>) -> Option<Recording> {
        let api = api_of(provider?.as_str()?)?;
        Some(Recording {
            api,
            model: None,
            response_model: None,
            params: Map::new(),
        })
    }

    /// Takes an attribute this knows (its value as JSON); `false` leaves it to the caller.
    pub(super) fn take(&mut self, key: &str, value: &Json) -> bool {
        match key {
            "gen_ai.provider.name" | "gen_ai.system" | "llm.provider" | "llm.system" => true,
            "gen_ai.request.model" | "llm.model_name" => self.set_model(value, false),
            "gen_ai.response.model" => self.set_model(value, true),
            _ => match key.strip_prefix("gen_ai.request.") {
                Some(name) => self.param(name, value),
                None => false,
            },
        }
    }

    /// OpenInference's `llm.invocation_parameters`: the call's own arguments, under the API's
    /// names already. Its `model` is the one the request named (`llm.model_name` is often the
    /// one that answered, `gpt-4-0613` for `gpt-4`).
    pub(super) fn invocation_parameters(&mut self, parameters: Map<String, Json>) {
        for (name, value) in parameters {
            if name == "model" {
                self.set_model(&value, false);
                continue;
            }
            self.params.insert(name, value);
        }
    }

    fn set_model(&mut self, value: &Json, response: bool) -> bool {
        let Some(m) = value.as_str().filter(|m| !m.trim().is_empty()) else {
            return false;
        };
        if response {
            self.response_model = Some(m.to_owned());
        } else {
            self.model = Some(m.to_owned());
        }
        true
    }

    /// A request parameter under the API's name: top-level for OpenAI and Anthropic, in
    /// `generationConfig` for Gemini.
    fn param(&mut self, name: &str, value: &Json) -> bool {
        let api_name = match (self.api, name) {
            (Api::Gemini, "max_tokens") => "maxOutputTokens",
            (Api::Gemini, "temperature") => "temperature",
            (Api::Gemini, "top_p") => "topP",
            (Api::Gemini, "top_k") => "topK",
            (Api::Gemini, "frequency_penalty") => "frequencyPenalty",
            (Api::Gemini, "presence_penalty") => "presencePenalty",
            (Api::Gemini, "seed") => "seed",
            (Api::Gemini, "stop_sequences") => "stopSequences",
            (Api::Gemini, "choice.count") => "candidateCount",
            (Api::Anthropic, "top_k") => "top_k",
            (Api::Anthropic, "stop_sequences") => "stop_sequences",
            (Api::OpenaiChat, "stop_sequences") => "stop",
            (Api::OpenaiChat, "choice.count") => "n",
            (Api::OpenaiChat, "frequency_penalty" | "presence_penalty" | "seed") => name,
            (_, "max_tokens" | "temperature" | "top_p") => name,
            _ => return false,
        };
        // OTLP/JSON writes integers as strings; OpenAI's and Anthropic's bodies take numbers.
        let value = match value {
            Json::String(s) if name != "stop_sequences" => match s.parse::<serde_json::Number>() {
                Ok(n) => Json::Number(n),
                Err(_) => return false,
            },
            other => other.clone(),
        };
        if self.api == Api::Gemini {
            let config = self
                .params
                .entry("generationConfig")
                .or_insert_with(|| Json::Object(Map::new()));
            if let Json::Object(c) = config {
                c.insert(api_name.to_owned(), value);
            }
        } else {
            self.params.insert(api_name.to_owned(), value);
        }
        true
    }

    /// Writes what was read into the draft's `recorded`, with the span's start (RFC 3339) as the
    /// timestamp.
    pub(super) fn finish(self, draft: &mut Draft, start: Option<&str>) {
        draft
            .recorded
            .insert("api".into(), json!(self.api.as_str()));
        if let Some(m) = self.model.or(self.response_model) {
            draft.recorded.insert("model".into(), json!(m));
        }
        if !self.params.is_empty() {
            draft
                .recorded
                .insert("params".into(), Json::Object(self.params));
        }
        if let Some(t) = start {
            draft.recorded.insert("timestamp".into(), json!(t));
        }
    }
}
