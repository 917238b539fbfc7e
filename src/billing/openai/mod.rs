//! OpenAI's chat completions and Responses requests as billed: the prompt the model reads,
//! rebuilt from the body and counted with the model's encoding (docs/models.md, "Predicted
//! billed input: OpenAI").
//!
//! The prompt is: one system (or developer) message holding the request's own first system
//! message, then the tool namespace (`tools`), then the output format section; the other
//! messages, tool calls and tool results in order; the reply priming. `chat` and `responses`
//! reduce their body to [`turns::Turns`]; [`assemble`] frames them for the model's format
//! ([`family`]); [`prompt`] counts the result into billed parts.

mod chat;
mod family;
mod formats;
mod prompt;
mod responses;
mod tools;
mod turns;

use serde_json::Value as Json;

use super::{BilledPart, BillingError, PartKind};
use crate::usage::Provenance;
use family::{Format, Model, Standing};
use prompt::{Header, Piece, Prompt};
use turns::{bound, Turn, Turns};

pub(super) fn chat(
    model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let turns = chat::turns(model, body)?;
    Ok(finish(assemble(family::model(model), turns)))
}

pub(super) fn responses(
    model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let turns = responses::turns(model, body)?;
    Ok(finish(assemble(family::model(model), turns)))
}

fn finish(prompt: Prompt) -> (Vec<BilledPart>, Provenance) {
    let mut provenance = prompt.provenance.clone();
    let margin = prompt.image_margin;
    let parts = prompt.into_parts();
    let total: usize = parts.iter().map(|p| p.tokens).sum();
    provenance = provenance.combine(&margin.provenance(total));
    (parts, provenance)
}

/// Frames the turns as `model` reads them.
fn assemble(model: Model, turns: Turns<'_>) -> Prompt {
    let mut prompt = Prompt::new(model);
    for b in &turns.estimates.bounds {
        prompt.estimate(*b);
    }
    prompt.image_margin = turns.estimates.images;
    match model.standing {
        Standing::Proven => {}
        Standing::Newer if !turns.tools.is_empty() => prompt.estimate(bound::NEWER_TOOLS),
        Standing::Newer => {}
        Standing::Foreign => prompt.estimate(bound::FOREIGN),
    }
    let has_tools = !turns.tools.is_empty();
    let has_calls = turns
        .turns
        .iter()
        .any(|t| matches!(t, Turn::Call { .. } | Turn::Result { .. }));
    if model.format == Format::Harmony && has_calls {
        prompt.estimate(bound::HARMONY_CALLS);
    }
    if model.format == Format::ChatMl && model.short_priming && has_tools {
        prompt.estimate(bound::O_SERIES_TOOLS);
    }
    let mut system_extra = Vec::new();
    if has_tools {
        let namespace = tools::namespace(&turns.tools, model.tight_parameters);
        if namespace.approximate {
            prompt.estimate(bound::COMPLEX_SCHEMA);
        }
        system_extra.extend(
            namespace
                .tools
                .into_iter()
                .map(|t| Piece::text(PartKind::Tool, t.pointer, t.text)),
        );
    }
    if let Some((pointer, format)) = turns.format {
        if let Some(b) = format.bound {
            prompt.estimate(b);
        }
        if model.standing == Standing::Newer {
            prompt.estimate(bound::NEWER_FORMAT);
        }
        system_extra.push(Piece::text(PartKind::Schema, pointer, format.text));
    }
    let mut rest = turns.turns.into_iter().peekable();
    if !system_extra.is_empty() {
        let first_is_system = matches!(rest.peek(), Some(Turn::Message { role, .. })
            if role == "system" || role == "developer");
        if !first_is_system && has_tools && model.format == Format::Harmony {
            prompt.estimate(bound::HARMONY_TOOLS_ALONE);
        }
        let (role, mut pieces) = match first_is_system.then(|| rest.next()).flatten() {
            Some(Turn::Message { role, pieces, .. }) => (role, pieces),
            _ => (system_role(model.format).to_owned(), Vec::new()),
        };
        if !pieces.is_empty() {
            if let Some(first) = system_extra.first_mut() {
                first.text.insert_str(0, "\n\n");
            }
        }
        for (i, piece) in system_extra.iter_mut().enumerate() {
            if i > 0 && piece.kind == PartKind::Schema {
                piece.text.insert_str(0, "\n\n");
            }
        }
        pieces.extend(system_extra);
        prompt.push(Header::plain(model.format, &role), pieces);
    }
    for turn in rest {
        let (header, pieces) = frame(model.format, turn);
        prompt.push(header, pieces);
    }
    prompt.priming = match model.format {
        Format::ChatMl if model.priming_tokens(has_tools) == 3 => {
            (3, "<|im_start|>assistant<|im_sep|>".to_owned())
        }
        Format::ChatMl => (2, "<|im_start|>assistant".to_owned()),
        Format::Harmony => (2, "<|start|>assistant".to_owned()),
    };
    prompt
}

/// The role of the message OpenAI adds to hold tools when the request has no system message.
fn system_role(format: Format) -> &'static str {
    match format {
        Format::ChatMl => "system",
        Format::Harmony => "developer",
    }
}

/// One turn's header and content.
fn frame(format: Format, turn: Turn) -> (Header, Vec<Piece>) {
    match (format, turn) {
        (
            Format::Harmony,
            Turn::Message {
                role,
                commentary,
                pieces,
                ..
            },
        ) if role == "assistant" => {
            let channel = if commentary { "commentary" } else { "final" };
            (
                Header::harmony("assistant", channel, None, "<|end|>"),
                pieces,
            )
        }
        (
            _,
            Turn::Message {
                role, name, pieces, ..
            },
        ) => {
            let mut header = Header::plain(format, &role);
            if let Some(name) = name {
                header.runs.push(format!(":{name}"));
                header.open = header.open.replacen(&role, &format!("{role}:{name}"), 1);
            }
            (header, pieces)
        }
        (
            _,
            Turn::Call {
                name,
                arguments,
                pointer,
                ..
            },
        ) => {
            let author = format!("assistant to=functions.{name}");
            let header = match format {
                Format::ChatMl => Header::plain(format, &author),
                Format::Harmony => Header::harmony(&author, "commentary", Some("json"), "<|call|>"),
            };
            (
                header,
                vec![Piece::text(PartKind::Message, pointer, arguments)],
            )
        }
        (Format::ChatMl, Turn::Result { name, pieces, chat }) => {
            // Chat's tool messages are authored by the function's bare name, Responses'
            // outputs by `functions.name` (each exact on the recorded calls of its API).
            let author = if chat {
                format!("{name} to=assistant")
            } else {
                format!("functions.{name} to=assistant")
            };
            (Header::plain(format, &author), pieces)
        }
        (Format::Harmony, Turn::Result { name, pieces, .. }) => (
            Header::harmony(
                &format!("functions.{name} to=assistant"),
                "commentary",
                None,
                "<|end|>",
            ),
            pieces,
        ),
        (
            format,
            Turn::Reasoning {
                pointer,
                tokens,
                id,
            },
        ) => {
            let header = match format {
                Format::ChatMl => Header::plain(format, "assistant"),
                Format::Harmony => Header::harmony("assistant", "analysis", None, "<|end|>"),
            };
            let piece = Piece::opaque(
                PartKind::Reasoning,
                pointer,
                tokens,
                format!("<reasoning {id}>"),
            );
            (header, vec![piece])
        }
    }
}

#[cfg(test)]
mod tests;
