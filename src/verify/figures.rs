//! One conversation verified: each call's predicted figures against its billed usage (input,
//! cache read and write, cost, with their provenance), its causes (`cause`), and the
//! conversation's totals.

use super::cache::{Predicted, Prepared, Simulation};
use super::cause::causes;
use super::price::{self, Priced};
use super::report::{
    n32, CallResult, ConversationResult, CostFigure, InputFigure, ReadFigure, Totals, TtlTokens,
    WriteFigure,
};
use super::Call;
use crate::billing::{self, Prediction};
use crate::usage::Provenance;

/// How far a predicted cache read may be from the billed one and still agree, in percent of the
/// billed read: at least this...
const AGREEMENT_PERCENT: f64 = 2.0;

/// ...and at most this, whatever the prediction's bound.
const MAX_SLACK_PERCENT: f64 = 10.0;
/// Verifies one conversation's calls (in order), each priced with its row.
pub fn conversation(name: String, calls: &[&Call], priced: &[Priced<'_>]) -> ConversationResult {
    let predictions: Vec<Result<Prediction, billing::BillingError>> = calls
        .iter()
        .map(|c| billing::predict(c.api, &c.model, &c.body))
        .collect();
    let prepared: Vec<Option<Prepared<'_>>> = calls
        .iter()
        .zip(priced)
        .zip(&predictions)
        .map(|((c, p), pred)| pred.as_ref().ok().map(|pred| Prepared::new(c, p.row, pred)))
        .collect();
    let mut simulation = Simulation::default();
    let mut out = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let predicted = simulation.step(&prepared, i);
        let error = predictions[i]
            .as_ref()
            .err()
            .map(|e| format!("the request cannot be predicted: /request{e}"));
        out.push(call_result(
            i,
            call,
            &priced[i],
            &prepared,
            predicted.as_ref(),
            error,
        ));
    }
    let totals = totals(&out);
    ConversationResult {
        name,
        calls: out,
        totals,
    }
}

fn call_result(
    i: usize,
    call: &Call,
    priced: &Priced<'_>,
    prepared: &[Option<Prepared<'_>>],
    predicted: Option<&Predicted>,
    error: Option<String>,
) -> CallResult {
    let row = priced.row;
    let billed_cost = price::billed_cost(row, &call.usage);
    let mut result = CallResult {
        label: call.label.clone(),
        call: n32(i + 1),
        api: call.api,
        model: call.model.clone(),
        priced_as: row.id.clone(),
        price_note: priced.fallback.clone(),
        billed: call.usage.clone(),
        input: None,
        cache_read: None,
        cache_write: None,
        cost: CostFigure {
            predicted_low_usd: None,
            predicted_high_usd: None,
            billed_usd: billed_cost,
            difference_usd: None,
        },
        miss: false,
        causes: Vec::new(),
        error,
    };
    let (Some(now), Some(predicted)) = (prepared[i].as_ref(), predicted) else {
        return result;
    };
    let provenance = &now.prediction.provenance;
    let total = now.prediction.input_tokens as u64;
    let billed = call.usage.input_total;
    let difference = total as i64 - billed as i64;
    let error_percent = if billed == 0 {
        if total == 0 {
            0.0
        } else {
            100.0
        }
    } else {
        difference as f64 * 100.0 / billed as f64
    };
    result.input = Some(InputFigure {
        predicted: n32(total),
        billed: n32(billed),
        difference: i32::try_from(difference).unwrap_or(if difference < 0 {
            i32::MIN
        } else {
            i32::MAX
        }),
        error_percent,
        provenance: provenance.clone(),
        within_bound: error_percent.abs() <= provenance.bound() + 1e-9,
    });
    let scale = count_scale(billed, now.prediction.input_tokens);
    let agrees = agrees(predicted, call.usage.cache_read, scale, provenance);
    result.cache_read = Some(ReadFigure {
        predicted_low: n32(predicted.read_low),
        predicted_high: n32(predicted.read_high),
        billed: n32(call.usage.cache_read),
        agrees,
        automatic: predicted.automatic,
        from_call: predicted.from.map(|j| n32(j + 1)),
        reported: call.cache_reported,
        provenance: provenance.clone(),
    });
    let ttl = predicted
        .write
        .first()
        .map(|(t, _)| t.clone())
        .or_else(|| row.default_ttl().map(str::to_owned))
        .unwrap_or_default();
    let write = predicted.write_total() as u64;
    result.cache_write = Some(WriteFigure {
        predicted: n32(write),
        billed: n32(call.usage.cache_write_total()),
        predicted_by_ttl: predicted
            .write
            .iter()
            .map(|(ttl, n)| TtlTokens {
                ttl: ttl.clone(),
                tokens: n32(*n),
            })
            .collect(),
        provenance: provenance.clone(),
    });
    let low = price::predicted_cost(row, total, predicted.read_high as u64, write, &ttl);
    let high = price::predicted_cost(row, total, predicted.read_low as u64, write, &ttl);
    result.cost.predicted_low_usd = Some(low);
    result.cost.predicted_high_usd = Some(high);
    result.cost.difference_usd = Some(if billed_cost < low {
        billed_cost - low
    } else if billed_cost > high {
        billed_cost - high
    } else {
        0.0
    });
    let (miss, causes) = causes(i, prepared, predicted, agrees);
    result.miss = miss;
    result.causes = causes;
    result
}

/// Whether the billed read is the predicted one, within the prediction's bound (from
/// [`AGREEMENT_PERCENT`] to [`MAX_SLACK_PERCENT`] of the billed read, at least a token). For
/// explicit breakpoints the predicted figure is first scaled by the call's billed-to-predicted
/// input: the read prefix is part of the same request, so its count error, reported on the input
/// line, is not counted twice. For an automatic cache, whose reads come in units of the true
/// count, the billed read may be anywhere from 0 to the top of the range.
fn agrees(predicted: &Predicted, billed: u64, scale: f64, provenance: &Provenance) -> bool {
    let billed = billed as f64;
    let share = provenance
        .bound()
        .clamp(AGREEMENT_PERCENT, MAX_SLACK_PERCENT);
    let slack = (billed * share / 100.0).max(1.0);
    if predicted.automatic {
        return billed == 0.0
            || (predicted.read_high > 0 && billed <= predicted.read_high as f64 + slack);
    }
    (predicted.read_high as f64 * scale - billed).abs() <= slack
}

/// The billed input over the predicted one (1 when either is 0).
pub fn count_scale(billed: u64, predicted: usize) -> f64 {
    if billed == 0 || predicted == 0 {
        1.0
    } else {
        billed as f64 / predicted as f64
    }
}
fn totals(calls: &[CallResult]) -> Totals {
    let mut t = Totals {
        calls: n32(calls.len()),
        ..Totals::default()
    };
    for c in calls {
        t.billed_input = t.billed_input.saturating_add(n32(c.billed.input_total));
        t.billed_read = t.billed_read.saturating_add(n32(c.billed.cache_read));
        t.billed_write = t
            .billed_write
            .saturating_add(n32(c.billed.cache_write_total()));
        t.billed_usd += c.cost.billed_usd;
        if let Some(input) = &c.input {
            t.predicted_input = t.predicted_input.saturating_add(input.predicted);
        }
        if let Some(r) = &c.cache_read {
            t.predicted_read_low = t.predicted_read_low.saturating_add(r.predicted_low);
            t.predicted_read_high = t.predicted_read_high.saturating_add(r.predicted_high);
        }
        if let Some(w) = &c.cache_write {
            t.predicted_write = t.predicted_write.saturating_add(w.predicted);
        }
        t.predicted_low_usd += c.cost.predicted_low_usd.unwrap_or(0.0);
        t.predicted_high_usd += c.cost.predicted_high_usd.unwrap_or(0.0);
        if c.miss {
            t.misses += 1;
            t.miss_cost_usd += c.causes.iter().map(|k| k.cost_usd).sum::<f64>();
        }
    }
    t
}
