//! OpenAI's two ways of pricing an image (docs/models.md, "Images"): 512 px tiles over a resized
//! image plus base tokens (GPT-4o, GPT-4.1, GPT-5, o1/o3), or 32 px patches within a budget times
//! a model multiplier (GPT-4.1 mini and nano, o4-mini, GPT-5 mini and nano, GPT-5.2 and later).
//! Which model uses which rule is the table [`MODELS`].

use super::Bounds;

/// A model family's rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Family {
    /// Model names that start with this (the longest matching prefix wins).
    pub prefix: &'static str,
    pub rule: Rule,
    /// How far the family's figures can be off: 0 where the guide documents the numbers, else
    /// the spread between the guide and measurements (docs/models.md, "Images").
    pub bound_percent: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Rule {
    /// `detail: low` costs `base`; otherwise the image is fitted into 2048×2048, its short side
    /// brought down to 768, and each 512 px tile covering it costs `tile`, plus `base`.
    Tiles { base: usize, tile: usize },
    /// 32 px patches, fitted into a budget, times a multiplier.
    Patches(Patches),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Patches {
    /// `high` (and `auto` unless `auto_original`): at most this many patches and this long an
    /// edge.
    pub high: Budget,
    /// `original`, on the models that take it.
    pub original: Option<Budget>,
    /// `auto` is read as `original`.
    pub auto_original: bool,
    pub multiplier: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Budget {
    /// `None`: the image is never resized for patches (a larger one is refused by the API).
    pub patches: Option<u64>,
    pub max_edge: u32,
}

const PATCH: u64 = 32;

/// `detail: low`: the image is seen at most 512×512.
const LOW: Budget = Budget {
    patches: None,
    max_edge: 512,
};
const BUDGET_1536: Budget = Budget {
    patches: Some(1536),
    max_edge: 2048,
};
const BUDGET_2500: Budget = Budget {
    patches: Some(2500),
    max_edge: 2048,
};
/// The patches an `original` image may cover before the API refuses it.
const REFUSED_ABOVE: u64 = 30_000;

const fn tiles(prefix: &'static str, base: usize, tile: usize, bound_percent: f64) -> Family {
    Family {
        prefix,
        rule: Rule::Tiles { base, tile },
        bound_percent,
    }
}

const fn patches_1536(prefix: &'static str, multiplier: f64, bound_percent: f64) -> Family {
    Family {
        prefix,
        rule: Rule::Patches(Patches {
            high: BUDGET_1536,
            original: None,
            auto_original: false,
            multiplier,
        }),
        bound_percent,
    }
}

/// GPT-5.4 and later: `high` within 2,500 patches; `original` within 10,000 patches or 6,000 px
/// (GPT-5.4, GPT-5.5) or unresized (GPT-5.6, GPT-6, which also read `auto` as `original`).
const fn patches_2500(prefix: &'static str, unresized_original: bool) -> Family {
    Family {
        prefix,
        rule: Rule::Patches(Patches {
            high: BUDGET_2500,
            original: Some(if unresized_original {
                Budget {
                    patches: None,
                    max_edge: 65_535,
                }
            } else {
                Budget {
                    patches: Some(10_000),
                    max_edge: 6000,
                }
            }),
            auto_original: unresized_original,
            multiplier: 1.2,
        }),
        bound_percent: 20.0,
    }
}

/// Every OpenAI model family with images, by name prefix. Bounds: 0 where OpenAI's guide gives
/// the numbers; where measurements published on OpenAI's forum disagree with the guide's
/// multiplier (GPT-5 mini 1.2 against 1.62, nano 1.5 against 2.46) the spread; 20% where the
/// rule is inferred from a family the guide names (the 1.2 multiplier of GPT-5.2 and later is
/// measured, not in the guide).
pub(super) const MODELS: &[Family] = &[
    tiles("gpt-4", 85, 170, 0.0),
    tiles("gpt-4o", 85, 170, 0.0),
    tiles("chatgpt-4o", 85, 170, 0.0),
    tiles("gpt-4o-mini", 2833, 5667, 0.0),
    tiles("gpt-4.1", 85, 170, 0.0),
    patches_1536("gpt-4.1-mini", 1.62, 0.0),
    patches_1536("gpt-4.1-nano", 2.46, 0.0),
    tiles("gpt-4.5", 85, 170, 0.0),
    tiles("o1", 75, 150, 0.0),
    tiles("o3", 75, 150, 0.0),
    patches_1536("o4-mini", 1.72, 0.0),
    patches_1536("codex-mini", 1.72, 20.0),
    tiles("computer-use-preview", 65, 129, 0.0),
    tiles("gpt-5", 70, 140, 0.0),
    patches_1536("gpt-5-mini", 1.62, 35.0),
    patches_1536("gpt-5-nano", 2.46, 64.0),
    patches_1536("gpt-5-codex-mini", 1.62, 35.0),
    tiles("gpt-5.1", 70, 140, 20.0),
    patches_1536("gpt-5.1-codex-mini", 1.62, 35.0),
    patches_1536("gpt-5.2", 1.2, 20.0),
    patches_1536("gpt-5.3", 1.2, 20.0),
    patches_2500("gpt-5.4", false),
    patches_1536("gpt-5.4-mini", 1.2, 20.0),
    patches_1536("gpt-5.4-nano", 1.2, 20.0),
    patches_2500("gpt-5.5", false),
    patches_2500("gpt-5.6", true),
    patches_2500("gpt-6", true),
];

/// A model not in [`MODELS`] is priced as GPT-4o prices images, with this bound.
pub(super) const UNKNOWN: Family = tiles("", 85, 170, 100.0);

/// The family of `model` (a `provider/` prefix and letter case ignored).
pub(super) fn family(model: &str) -> Family {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    MODELS
        .iter()
        .filter(|f| name.starts_with(f.prefix))
        .max_by_key(|f| f.prefix.len())
        .copied()
        .unwrap_or(UNKNOWN)
}

/// The tokens an image of `size` costs under `rule` at `detail` (`None` is `auto`).
pub(super) fn tokens(rule: Rule, detail: Option<&str>, (w, h): (u32, u32)) -> usize {
    let detail = detail.map(str::to_ascii_lowercase);
    match rule {
        Rule::Tiles { base, tile } => {
            if detail.as_deref() == Some("low") {
                return base;
            }
            let (tw, th) = tiles_across(w, h);
            base + tile * (tw * th) as usize
        }
        Rule::Patches(p) => {
            let patches = patch_count(p.budget(detail.as_deref()), w, h);
            multiply(patches, p.multiplier)
        }
    }
}

/// The fewest and most tokens any image costs under `rule` at `detail`.
pub(super) fn bounds(rule: Rule, detail: Option<&str>) -> Bounds {
    let detail = detail.map(str::to_ascii_lowercase);
    match rule {
        Rule::Tiles { base, tile } => {
            if detail.as_deref() == Some("low") {
                return Bounds::exact(base);
            }
            // After the resize the short side is at most 768 (2 tiles) and the long one at most
            // 2048 (4 tiles).
            Bounds {
                min: base + tile,
                max: base + tile * 8,
            }
        }
        Rule::Patches(p) => {
            let budget = p.budget(detail.as_deref());
            let edge = u64::from(budget.max_edge).div_ceil(PATCH);
            let most = budget.patches.unwrap_or(REFUSED_ABOVE).min(edge * edge);
            Bounds {
                min: multiply(1, p.multiplier),
                max: multiply(most, p.multiplier),
            }
        }
    }
}

impl Patches {
    fn budget(&self, detail: Option<&str>) -> Budget {
        match detail {
            Some("low") => LOW,
            Some("original") => self.original.unwrap_or(self.high),
            Some("high") => self.high,
            _ if self.auto_original => self.original.unwrap_or(self.high),
            _ => self.high,
        }
    }
}

/// Billed tokens are the patches times the multiplier, rounded up (measurements published on
/// OpenAI's forum: 432 patches billed 519 at 1.2 and 648 at 1.5).
fn multiply(patches: u64, multiplier: f64) -> usize {
    let tokens = (patches as f64 * multiplier - 1e-9).ceil();
    if tokens <= 0.0 {
        0
    } else {
        tokens as usize
    }
}

/// 512 px tiles across and down after the tile rule's two downscales (never an upscale: an
/// 800×400 image is 2 tiles, as billed in the usage corpus).
fn tiles_across(w: u32, h: u32) -> (u64, u64) {
    let (mut w, mut h) = (f64::from(w), f64::from(h));
    let long = w.max(h);
    if long > 2048.0 {
        let s = 2048.0 / long;
        (w, h) = ((w * s).floor().max(1.0), (h * s).floor().max(1.0));
    }
    let short = w.min(h);
    if short > 768.0 {
        let s = 768.0 / short;
        (w, h) = ((w * s).floor().max(1.0), (h * s).floor().max(1.0));
    }
    ((w / 512.0).ceil() as u64, (h / 512.0).ceil() as u64)
}

/// Patches covering the image once fitted into `budget`: first within the longest edge, then,
/// if it still needs more patches than the budget, shrunk by OpenAI's factor
/// `sqrt(32² × budget / (w × h))`, adjusted so that whole patches fit, to integer pixels.
fn patch_count(budget: Budget, w: u32, h: u32) -> u64 {
    let cover = |w: f64, h: f64| ((w / 32.0).ceil() * (h / 32.0).ceil()) as u64;
    let (wf, hf) = (f64::from(w), f64::from(h));
    let mut scale = (f64::from(budget.max_edge) / wf.max(hf)).min(1.0);
    if let Some(limit) = budget.patches {
        if cover((wf * scale).floor(), (hf * scale).floor()) > limit {
            let shrink = (1024.0 * limit as f64 / (wf * hf)).sqrt();
            let fit = |side: f64| {
                let across = side * shrink / 32.0;
                across.floor() / across
            };
            scale = scale.min(shrink * fit(wf).min(fit(hf)));
        }
    }
    // A tiny tolerance so that a side the factor brings to a whole 1056.0 is not floored to 1055.
    let side = |s: f64| (s * scale + 1e-6).floor().max(1.0);
    let patches = cover(side(wf), side(hf));
    // An unresized image over the refusal limit is a request the API turns down; it is counted
    // at the limit.
    patches.min(budget.patches.unwrap_or(REFUSED_ABOVE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule_of(model: &str) -> Rule {
        family(model).rule
    }

    /// OpenAI's worked examples (images-vision guide, "Calculating costs").
    #[test]
    fn the_guides_tile_examples() {
        let gpt_4o = rule_of("gpt-4o");
        // "A 1024 x 1024 square image in detail: high mode costs 765 tokens".
        assert_eq!(tokens(gpt_4o, Some("high"), (1024, 1024)), 765);
        // "A 2048 x 4096 image in detail: high mode costs 1105 tokens".
        assert_eq!(tokens(gpt_4o, Some("high"), (2048, 4096)), 1105);
        // "A 4096 x 8192 image in detail: low most costs 85 tokens".
        assert_eq!(tokens(gpt_4o, Some("low"), (4096, 8192)), 85);
        // `auto` is priced as `high`.
        assert_eq!(tokens(gpt_4o, None, (2048, 4096)), 1105);
    }

    /// The guide's patch examples, before the model multiplier: 1024×1024 is 1024 patches,
    /// 1800×2400 is 1452 (resized to 1056×1408).
    #[test]
    fn the_guides_patch_examples() {
        assert_eq!(patch_count(BUDGET_1536, 1024, 1024), 1024);
        assert_eq!(patch_count(BUDGET_1536, 1800, 2400), 1452);
        // With gpt-4.1-mini's multiplier of 1.62, rounded up.
        assert_eq!(
            tokens(rule_of("gpt-4.1-mini"), Some("high"), (1024, 1024)),
            1659
        );
        assert_eq!(
            tokens(rule_of("gpt-4.1-nano-2025-04-14"), None, (1800, 2400)),
            3572
        );
    }

    /// The tile table: base and tile tokens per family.
    #[test]
    fn each_family_has_its_numbers() {
        let tiles_of = |model: &str| match rule_of(model) {
            Rule::Tiles { base, tile } => (base, tile),
            other => panic!("{model}: {other:?}"),
        };
        assert_eq!(tiles_of("gpt-4o-2024-08-06"), (85, 170));
        assert_eq!(tiles_of("gpt-4.1"), (85, 170));
        assert_eq!(tiles_of("gpt-4-vision-preview"), (85, 170));
        assert_eq!(tiles_of("gpt-4o-mini-2024-07-18"), (2833, 5667));
        assert_eq!(tiles_of("o3"), (75, 150));
        assert_eq!(tiles_of("o1-pro"), (75, 150));
        assert_eq!(tiles_of("gpt-5"), (70, 140));
        assert_eq!(tiles_of("gpt-5-chat-latest"), (70, 140));
        assert_eq!(tiles_of("computer-use-preview"), (65, 129));
        assert_eq!(tiles_of("openai/GPT-4o"), (85, 170));
        let multiplier = |model: &str| match rule_of(model) {
            Rule::Patches(p) => p.multiplier,
            other => panic!("{model}: {other:?}"),
        };
        assert_eq!(multiplier("gpt-4.1-mini"), 1.62);
        assert_eq!(multiplier("gpt-4.1-nano"), 2.46);
        assert_eq!(multiplier("o4-mini-2025-04-16"), 1.72);
        assert_eq!(multiplier("gpt-5-mini"), 1.62);
        assert_eq!(multiplier("gpt-5-nano"), 2.46);
        assert_eq!(multiplier("gpt-5.6-sol"), 1.2);
        assert_eq!(family("gpt-4o").bound_percent, 0.0);
        assert_eq!(family("llava-13b"), UNKNOWN);
    }

    /// An image smaller than a tile is one tile: the usage corpus's 1×1 PNG on gpt-4o-mini
    /// (billed 8,512 with its text) and 800×400 on gpt-4-vision-preview (billed 438).
    #[test]
    fn small_images_are_not_scaled_up() {
        assert_eq!(tokens(rule_of("gpt-4o-mini"), None, (1, 1)), 8500);
        assert_eq!(
            tokens(rule_of("gpt-4-vision-preview"), None, (800, 400)),
            425
        );
        assert_eq!(tokens(rule_of("gpt-4o"), None, (128, 128)), 255);
    }

    /// GPT-5.4 and later: `high` fits 2,500 patches in 2048 px; GPT-5.6 reads `auto` as
    /// `original`, which keeps the image's size.
    #[test]
    fn newer_models_have_larger_budgets() {
        let sol = rule_of("gpt-5.6-sol");
        // 1600×1600 is 50×50 = 2,500 patches, the whole `high` budget: ×1.2.
        assert_eq!(tokens(sol, Some("high"), (1600, 1600)), 3000);
        // 3200×3200 at `high`: into 2048 px, then 2,500 patches at most.
        assert_eq!(tokens(sol, Some("high"), (3200, 3200)), 3000);
        // At `auto` (original), 100×100 patches are kept.
        assert_eq!(tokens(sol, None, (3200, 3200)), 12_000);
        let terra_low = tokens(rule_of("gpt-5.6-terra"), Some("low"), (1920, 1080));
        // Fitted into 512×512: 512×288, 16×9 patches.
        assert_eq!(terra_low, multiply(144, 1.2));
        // GPT-5.5: `original` within 10,000 patches.
        assert_eq!(
            tokens(rule_of("gpt-5.5"), Some("original"), (6000, 6000)),
            12_000
        );
        assert_eq!(tokens(rule_of("gpt-5.5"), None, (6000, 6000)), 3000);
    }

    #[test]
    fn bounds_hold_the_figures() {
        for family in MODELS {
            for detail in [None, Some("low"), Some("high"), Some("original")] {
                let b = bounds(family.rule, detail);
                for size in [
                    (1, 1),
                    (512, 512),
                    (1024, 1024),
                    (768, 2048),
                    (1, 9000),
                    (6000, 4000),
                ] {
                    let t = tokens(family.rule, detail, size);
                    assert!(
                        b.min <= t && t <= b.max,
                        "{} {detail:?} {size:?}: {t} outside {b:?}",
                        family.prefix
                    );
                }
            }
        }
    }
}
