//! Token counting of a megabyte (docs/performance.md, "Token counts (issue 15)"): the engine
//! (`tokens::count`, two threads from 256 KB on) against tiktoken-rs, its reference, on the
//! generated scene's conversation (Chinese and English) and on one letter repeated (a single
//! piece of a megabyte, tiktoken's worst case). tiktoken-rs's encoder is built before timing;
//! the engine has nothing to build.

#[path = "support/scene_gen.rs"]
mod scene_gen;

use std::sync::OnceLock;

use divan::{black_box, Bencher};
use prompt_inspector::tokens::{self, Encoding};
use prompt_inspector::{inject, scene, segments::Family, Value};

fn main() {
    divan::main();
}

const MEGABYTE: usize = 1_000_000;

/// The generated scene's message texts, one per line, repeated to a megabyte.
fn conversation() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let json = scene_gen::scene(&scene_gen::Params {
            tools: 300,
            messages: 5000,
        });
        let s = scene::load_str(&json).expect("generated scene loads");
        let options = inject::Options {
            skip_tokens: true,
            ..Default::default()
        };
        let report = inject::render_with(&s, Family::Chat, &options);
        let lines: Vec<String> = report
            .messages
            .unwrap_or_default()
            .iter()
            .filter_map(|m| match &m.content {
                Value::Str(s) => Some(s.to_string()),
                _ => None,
            })
            .collect();
        let mut text = String::with_capacity(MEGABYTE + 4096);
        while text.len() < MEGABYTE {
            for l in &lines {
                text.push_str(l);
                text.push('\n');
            }
        }
        let mut end = MEGABYTE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text
    })
}

fn one_letter() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| "x".repeat(MEGABYTE))
}

fn reference(encoding: Encoding) -> tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
    }
    .expect("tiktoken-rs builds its encoder")
}

#[divan::bench(args = Encoding::ALL)]
fn count_1mb_conversation(bencher: Bencher, encoding: Encoding) {
    let text = conversation();
    bencher.bench(|| tokens::count(black_box(text), encoding));
}

/// The same megabyte on one thread: counted in chunks of under 64 KB cut after a newline that
/// a letter follows (a safe split, where counts add up), each of which `count` keeps on the
/// calling thread.
#[divan::bench(args = Encoding::ALL)]
fn count_1mb_conversation_one_thread(bencher: Bencher, encoding: Encoding) {
    let text = conversation();
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + 60_000).min(text.len());
        while end < text.len() && !(is_letter_at(text, end) && text[..end].ends_with('\n')) {
            end -= 1;
        }
        chunks.push(&text[start..end]);
        start = end;
    }
    let whole = tokens::count(text, encoding);
    let sum =
        |chunks: &[&str]| -> usize { chunks.iter().map(|c| tokens::count(c, encoding)).sum() };
    assert_eq!(sum(&chunks), whole);
    bencher.bench(|| sum(black_box(&chunks)));
}

fn is_letter_at(text: &str, at: usize) -> bool {
    text.is_char_boundary(at) && text[at..].chars().next().is_some_and(char::is_alphabetic)
}

#[divan::bench(args = Encoding::ALL)]
fn count_1mb_conversation_tiktoken_rs(bencher: Bencher, encoding: Encoding) {
    let text = conversation();
    let bpe = reference(encoding);
    assert_eq!(
        bpe.encode_ordinary(text).len(),
        tokens::count(text, encoding)
    );
    bencher.bench(|| bpe.encode_ordinary(black_box(text)).len());
}

#[divan::bench(args = Encoding::ALL)]
fn count_1mb_one_letter(bencher: Bencher, encoding: Encoding) {
    let text = one_letter();
    bencher.bench(|| tokens::count(black_box(text), encoding));
}

#[divan::bench(args = Encoding::ALL)]
fn count_1mb_one_letter_tiktoken_rs(bencher: Bencher, encoding: Encoding) {
    let text = one_letter();
    let bpe = reference(encoding);
    bencher.bench(|| bpe.encode_ordinary(black_box(text)).len());
}

/// What tiktoken-rs did before counting at all, once per process.
#[divan::bench(args = Encoding::ALL, sample_count = 10)]
fn build_encoder_tiktoken_rs(encoding: Encoding) -> tiktoken_rs::CoreBPE {
    reference(encoding)
}
