//! Cache conversations around a large screenshot: scenes whose intermediate messages carry an
//! image of a given size as base64, for the `cache` command's tests and its bench.

use base64::Engine as _;

/// The size every generated screenshot declares in its header.
pub const SCREEN: (u32, u32) = (1920, 1080);

/// A PNG of `len` bytes (at least its 33-byte header): the PNG signature and an `IHDR` chunk
/// declaring [`SCREEN`], then bytes from a small linear congruential generator seeded with
/// `seed` (the figures read an image's size from its header and never decode the rest).
pub fn png(len: usize, seed: u64) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend_from_slice(&SCREEN.0.to_be_bytes());
    bytes.extend_from_slice(&SCREEN.1.to_be_bytes());
    // Bit depth, colour type, compression, filter, interlace; then a CRC the figures never check.
    bytes.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
    let mut x = seed;
    while bytes.len() < len {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        bytes.extend_from_slice(&x.to_be_bytes()[..4]);
    }
    bytes.truncate(len.max(33));
    bytes
}

/// The system prompt every call shares: long enough that the prefix before the image is cached.
fn system_prompt() -> String {
    "Rule: describe what the screenshot shows, name every control, and say which one the user \
     should press next. "
        .repeat(60)
}

/// One call's scene: the shared system prompt, the user's question, then the intermediate
/// messages: a user message with a text part and the image (`data_base64`), and `replies`
/// assistant messages after it.
pub fn scene(image: &[u8], replies: usize) -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(image);
    let mut intermediate = format!(
        "{{\"role\": \"user\", \"content\": [{{\"type\": \"text\", \"text\": \"Here is my screen.\"}}, \
         {{\"type\": \"image\", \"data_base64\": \"{data}\"}}]}}"
    );
    for i in 0..replies {
        intermediate.push_str(&format!(
            ", {{\"role\": \"assistant\", \"content\": \"Reply {i}: it shows a login form.\"}}"
        ));
    }
    format!(
        "{{\"format\": \"prompt-inspector/scene@1\", \"name\": \"screenshot\", \
         \"context\": {{\"user_input\": {{\"input\": \"What should I press?\", \"additional_info\": {{}}}}, \
         \"conversation\": [], \"runtime_vars\": {{}}, \"neural\": {{}}}}, \
         \"intermediate_msgs\": [{intermediate}], \
         \"chat_llm\": {{\"system_msg_prompt\": [{{\"kind\": \"normalize\", \"template\": \
         {{\"engine\": \"fstring\", \"templates\": {{\"default\": \"{}\"}}}}}}]}}}}",
        system_prompt()
    )
}
