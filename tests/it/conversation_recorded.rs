//! The app's Conversation view on a folder of imported scenes that record their billed usage
//! (fixtures/cache/recorded: four calls of pydantic-ai's tool-search test on Claude Sonnet 4.5):
//! each call carries `verify`'s result for it, and the zero-read explanations speak the same
//! `miss_…` codes.

use prompt_inspector::api::{self, ConversationRequest, ConversationResponse, VerifyRequest};
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::usage::Provenance;

use crate::support::root;

const SONNET: &str = "anthropic/claude-sonnet-4-5";

fn open(folder: &str) -> ConversationResponse {
    api::conversation(&ConversationRequest {
        folder: root().join(folder).display().to_string(),
        models: vec![SONNET.to_owned()],
        scenes: None,
    })
    .unwrap_or_else(|e| panic!("{e:?}"))
}

/// The billed figures are the recording's (corpora/usage/pydantic-ai/008 to 011,
/// `response_usage.input_tokens`, no cache tokens), and call 4's miss is the one the corpus
/// table in docs/models.md names: it repeats call 3's prefix, past the 1,024-token minimum, and no
/// request marks a breakpoint. Its cost is the 1,119 tokens at Sonnet's input price less its
/// cache-read price ($3.00 - $0.30 a million).
#[test]
fn each_recorded_call_is_put_against_its_prediction() {
    let c = open("fixtures/cache/recorded");
    let recorded: Vec<_> = c
        .calls
        .iter()
        .map(|k| k.recorded.as_ref().expect("every scene records its usage"))
        .collect();
    let billed: Vec<u32> = recorded
        .iter()
        .map(|r| r.input.as_ref().expect("predicted").billed)
        .collect();
    assert_eq!(billed, [762, 889, 1122, 1218]);
    for r in &recorded {
        let input = r.input.as_ref().expect("predicted");
        assert_eq!(
            input.difference,
            input.predicted as i32 - input.billed as i32
        );
        assert!(input.within_bound, "{input:?}");
        assert_eq!(r.cache_read.as_ref().expect("reported").billed, 0);
    }
    let causes: Vec<Vec<DiagnosticCode>> = recorded
        .iter()
        .map(|r| r.causes.iter().map(|k| k.code).collect())
        .collect();
    assert_eq!(
        causes,
        [
            vec![],
            vec![DiagnosticCode::MissBelowMinimum],
            vec![DiagnosticCode::MissBelowMinimum],
            vec![DiagnosticCode::MissNoBreakpoint],
        ]
    );
    let last = &recorded[3].causes[0];
    assert_eq!(last.tokens, 1119);
    assert!(
        (last.cost_usd - 1119.0 * 2.7 / 1e6).abs() < 1e-9,
        "{last:?}"
    );
    let totals = c.recorded_totals.as_ref().expect("totals");
    assert_eq!(
        (totals.calls, totals.billed_input, totals.misses),
        (4, 762 + 889 + 1122 + 1218, 3)
    );
    assert!(c.recorded_errors.is_empty(), "{:?}", c.recorded_errors);
}

/// The view shows what the `verify` operation gives for the same folder, figure for figure.
#[test]
fn the_figures_are_the_verify_operations() {
    let c = open("fixtures/cache/recorded");
    let v = api::verify(&VerifyRequest {
        paths: vec![root().join("fixtures/cache/recorded").display().to_string()],
        models: vec![],
    })
    .expect("verify");
    let from_verify = &v.report.conversations[0].calls;
    assert_eq!(from_verify.len(), 4);
    for (call, expected) in c.calls.iter().zip(from_verify) {
        assert_eq!(call.recorded.as_ref(), Some(expected));
    }
}

/// The prediction-only explanation of the same calls counts the shared prefix as Anthropic bills
/// the two requests (tool definitions, tool-use system prompt and messages, by `verify`'s prefix
/// rule) and names the same cause as the record for every call. Call 4 repeats 1,092 predicted
/// tokens of call 3, an estimate within 12% of the 1,119 the record's ratio makes of them (the
/// chat messages alone are 457 in o200k, under the 1,024-token minimum).
#[test]
fn the_zero_reads_use_the_verify_vocabulary() {
    let c = open("fixtures/cache/recorded");
    let sonnet: Vec<_> = c.zero_reads.iter().filter(|z| z.model == SONNET).collect();
    assert_eq!(sonnet.len(), 4);
    assert_eq!(sonnet[0].cause, None, "the first call has nothing to read");
    for z in &sonnet[1..] {
        let code = z.cause.expect("a cause");
        assert!(code.as_str().starts_with("miss_"), "{code:?}");
    }
    let shared: Vec<u32> = sonnet.iter().map(|z| z.shared_tokens).collect();
    assert_eq!(shared, [0, 755, 881, 1092]);
    for z in &sonnet[1..] {
        assert_eq!(
            z.shared_provenance,
            Provenance::Estimate {
                bound_percent: 12.0
            },
            "{z:?}"
        );
    }
    let billed = &c.calls[3].recorded.as_ref().expect("recorded").causes[0];
    assert_eq!(billed.tokens, 1119);
    let off = (f64::from(billed.tokens) - f64::from(sonnet[3].shared_tokens)).abs();
    assert!(off <= 0.12 * f64::from(billed.tokens), "{off}");
    for (z, call) in sonnet[1..].iter().zip(&c.calls[1..]) {
        let recorded = call.recorded.as_ref().expect("recorded");
        assert_eq!(z.cause, Some(recorded.causes[0].code), "{z:?}");
    }
    assert_eq!(sonnet[3].cause, Some(DiagnosticCode::MissNoBreakpoint));
}

/// A conversation without recorded usage has no recorded figures and no errors about them.
#[test]
fn scenes_without_usage_have_no_recorded_figures() {
    let c = open("fixtures/cache/late-notes");
    assert!(c.calls.iter().all(|k| k.recorded.is_none()));
    assert_eq!(c.recorded_totals, None);
    assert!(c.recorded_errors.is_empty());
}

/// Each call's input, shared prefix and cost on Sonnet are the request its provider was sent (the
/// recorded one), as `verify` predicts it: the input is `verify`'s prediction, within its bound
/// of the 762, 889, 1,122 and 1,218 tokens billed, not the chat messages' o200k count (call 4's
/// 506); no request marks a breakpoint, so nothing is read or written and each call costs its
/// input at Sonnet's $3.00 a million, `verify`'s predicted cost; and the shared prefix is the
/// zero-read note's.
#[test]
fn each_call_is_counted_as_its_provider_bills_it() {
    use prompt_inspector::api::Basis;
    let c = open("fixtures/cache/recorded");
    let figures = &c.figures[0];
    assert_eq!(
        (figures.model.as_str(), figures.basis),
        (SONNET, Basis::Billed)
    );
    let cost = &c.models[0];
    assert_eq!(
        cost.provenance,
        Provenance::Estimate {
            bound_percent: 12.0
        }
    );
    for (k, call) in c.calls.iter().enumerate() {
        let recorded = call.recorded.as_ref().expect("recorded");
        let input = recorded.input.as_ref().expect("predicted");
        let mine = &figures.calls[k];
        assert_eq!(mine.input_tokens, input.predicted, "call {}", k + 1);
        assert_eq!(mine.provenance, input.provenance);
        let billed = f64::from(input.billed);
        assert!((f64::from(mine.input_tokens) - billed).abs() <= 0.12 * billed);
        assert!(mine.input_tokens > call.request_tokens, "{mine:?} {call:?}");
        let bill = &cost.calls[k];
        assert_eq!((bill.cache_read_tokens, bill.cache_write_tokens), (0, 0));
        assert_eq!(bill.uncached_tokens, input.predicted as usize);
        assert_eq!(Some(bill.cost_usd), recorded.cost.predicted_low_usd);
        assert_eq!(Some(bill.cost_usd), recorded.cost.predicted_high_usd);
        assert!((bill.cost_usd - f64::from(input.predicted) * 3.0 / 1e6).abs() < 1e-9);
    }
    let totals = c.recorded_totals.as_ref().expect("totals");
    let inputs: u32 = figures.calls.iter().map(|f| f.input_tokens).sum();
    assert_eq!(inputs, totals.predicted_input);
    assert!((cost.total.cost_usd - totals.predicted_low_usd).abs() < 1e-9);
    let shared: Vec<Option<u32>> = figures.calls.iter().map(|f| f.shared_tokens).collect();
    let notes: Vec<u32> = c.zero_reads.iter().map(|z| z.shared_tokens).collect();
    assert_eq!(shared[0], None);
    assert_eq!(
        shared[1..]
            .iter()
            .map(|s| s.unwrap_or(0))
            .collect::<Vec<_>>(),
        notes[1..]
    );
}

/// A breakpoint cache's requests built rather than recorded keep the chat messages' count (the
/// blame places their breakpoints), and say so; an automatic cache's are counted as billed.
#[test]
fn built_requests_are_counted_as_billed_on_an_automatic_cache_only() {
    use prompt_inspector::api::Basis;
    let c = api::conversation(&ConversationRequest {
        folder: root()
            .join("fixtures/cache/system-notes")
            .display()
            .to_string(),
        models: vec![SONNET.to_owned(), "openai/gpt-5".to_owned()],
        scenes: None,
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    let basis: Vec<Basis> = c.figures.iter().map(|f| f.basis).collect();
    assert_eq!(basis, [Basis::ChatMessages, Basis::Billed]);
    let counted: Vec<u32> = c.figures[0].calls.iter().map(|f| f.input_tokens).collect();
    let chat: Vec<u32> = c.calls.iter().map(|k| k.request_tokens).collect();
    assert_eq!(counted, chat);
    // gpt-5's: o200k with the chat framing, exact, a little over the messages' text alone.
    for (f, call) in c.figures[1].calls.iter().zip(&c.calls) {
        assert_eq!(f.provenance, Provenance::Exact);
        assert!(
            f.input_tokens > call.request_tokens
                && f64::from(f.input_tokens) <= 1.05 * f64::from(call.request_tokens),
            "{f:?} {}",
            call.request_tokens
        );
    }
}

/// The Live view's conversations are not on disk: the same scenes given as texts (`scenes`) are
/// priced and verified as the folder's are, each labelled by its place.
#[test]
fn scene_texts_are_a_conversation_as_a_folder_is() {
    let folder = root().join("fixtures/cache/recorded");
    let mut paths: Vec<_> = std::fs::read_dir(&folder)
        .expect("the fixture folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".scene.json"))
        .collect();
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("a scene"))
        .collect();
    let c = api::conversation(&ConversationRequest {
        folder: String::new(),
        models: vec![SONNET.to_owned()],
        scenes: Some(texts.clone()),
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    let labels: Vec<&str> = c.calls.iter().map(|k| k.scene.as_str()).collect();
    assert_eq!(labels, ["call 1", "call 2", "call 3", "call 4"]);
    let billed: Vec<u32> = c
        .calls
        .iter()
        .map(|k| {
            let recorded = k.recorded.as_ref().expect("every scene records its usage");
            recorded.input.as_ref().expect("predicted").billed
        })
        .collect();
    assert_eq!(billed, [762, 889, 1122, 1218]);
    let causes: Vec<Vec<DiagnosticCode>> = c
        .calls
        .iter()
        .map(|k| {
            k.recorded
                .as_ref()
                .map_or(vec![], |r| r.causes.iter().map(|x| x.code).collect())
        })
        .collect();
    assert_eq!(
        causes[3],
        [DiagnosticCode::MissNoBreakpoint],
        "call 4 misses for want of a breakpoint, as in the folder"
    );
    let from_folder = open("fixtures/cache/recorded");
    assert_eq!(c.models, from_folder.models, "the same prices");

    // A text that does not load is named by its place; none, or too many, are refused.
    let mut broken = texts;
    broken[1] = "{\"format\": ".to_owned();
    let e = api::conversation(&ConversationRequest {
        folder: String::new(),
        models: vec![],
        scenes: Some(broken),
    })
    .expect_err("a broken scene");
    assert!(e.to_string().contains("call 2"), "{e}");
    let e = api::conversation(&ConversationRequest {
        folder: String::new(),
        models: vec![],
        scenes: Some(vec![]),
    })
    .expect_err("no scenes");
    assert_eq!(e.field.as_deref(), Some("scenes"));
}
