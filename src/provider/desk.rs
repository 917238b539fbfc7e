//! The rendered desk segments in provider-neutral form ([`DeskInput`]): which side each segment
//! is on, and its attachments resolved (or dropped, with the reason, where they cannot go).

use std::path::Path;

use super::{image, takes_images, Block, DeskInput, Sink};
use crate::report::DiagnosticCode;
use crate::report::SegmentOut;
use crate::scene::Adapter;

/// Segments that instruct the model: system text on every provider, which takes no images there.
pub(crate) const SYSTEM_SIDE: [&str; 2] = ["system_prompt", "instruction_prompt"];

pub(crate) fn gather(
    adapter: Adapter,
    model: &str,
    segments: &[SegmentOut],
    base_dir: Option<&Path>,
    sink: &mut Sink,
) -> DeskInput {
    let images_ok = takes_images(adapter, model);
    let mut input = DeskInput::default();
    for seg in segments {
        let system = SYSTEM_SIDE.contains(&seg.name);
        let mut images = Vec::new();
        for piece in &seg.pieces {
            for (i, att) in piece.attachments.iter().enumerate() {
                let tool = piece.tool.as_deref();
                let whose = match (tool, piece.index) {
                    (Some(t), _) => format!("tool {t}'s prompt"),
                    (None, Some(n)) => format!("{}[{n}]", seg.name),
                    (None, None) => seg.name.to_owned(),
                };
                if system || !images_ok {
                    let why = if system {
                        "system instructions take text only".to_owned()
                    } else if adapter == Adapter::OpenaiGenDesk {
                        "openai_gen_desk sends to OpenAI's legacy completions API, which takes text only".to_owned()
                    } else {
                        format!(
                            "{} sends to {model:?}, a model that takes text only",
                            adapter.as_str()
                        )
                    };
                    sink.warn(
                        DiagnosticCode::ImageDropped,
                        format!("attachment {i} of {whose} is left out of the request: {why}"),
                        Some(seg.name),
                        tool,
                    );
                    continue;
                }
                match image::resolve(att, base_dir) {
                    Ok(img) => images.push(Block::Image(img)),
                    Err(p) => sink.warn(
                        p.code,
                        format!(
                            "attachment {i} of {whose} is left out of the request: {}",
                            p.message
                        ),
                        Some(seg.name),
                        tool,
                    ),
                }
            }
        }
        if system {
            if !seg.text.is_empty() {
                input.system.push((seg.name, seg.text.clone()));
            }
            continue;
        }
        let mut blocks = Vec::with_capacity(1 + images.len());
        if !seg.text.is_empty() {
            blocks.push(Block::Text(seg.text.clone()));
        }
        blocks.extend(images);
        if !blocks.is_empty() {
            input.user.push((seg.name, blocks));
        }
    }
    input
}
