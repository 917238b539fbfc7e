//! A JSON patch between two report trees, small enough to ship on every keystroke.
//!
//! Live editing re-renders the whole scene in the core (a few milliseconds) but the page only
//! needs what changed: one segment's text and pieces, a status chip, a figure. The diff walks
//! both trees; objects recurse per key, arrays keep their common head and tail and either recurse
//! element by element (same length) or splice the middle. The page applies the ops in order,
//! copying only the containers on their paths, so unchanged parts keep their identity and the
//! board re-renders only the cards that changed.

use serde::Serialize;
use serde_json::Value;

/// One step of a path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum PathStep {
    Key(String),
    Index(u32),
}

/// An edit of the previous tree; applied in order.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum PatchOp {
    /// Replace (or add, for an object key) the value at `path`; `[]` replaces the whole tree.
    Set {
        path: Vec<PathStep>,
        #[cfg_attr(feature = "specta", specta(type = specta_typescript::Unknown))]
        value: Value,
    },
    /// Remove an object key.
    Remove { path: Vec<PathStep> },
    /// Replace `delete` elements of the array at `path` from `start` with `items`.
    Splice {
        path: Vec<PathStep>,
        start: u32,
        delete: u32,
        #[cfg_attr(feature = "specta", specta(type = Vec<specta_typescript::Unknown>))]
        items: Vec<Value>,
    },
}

/// The ops that turn `prev` into `next`.
pub fn diff(prev: &Value, next: &Value) -> Vec<PatchOp> {
    let mut ops = Vec::new();
    let mut path = Vec::new();
    walk(prev, next, &mut path, &mut ops);
    ops
}

/// The differing middles of two lists after their common head and tail, and the head's length.
pub(super) fn middles<'a, T: PartialEq>(a: &'a [T], b: &'a [T]) -> (usize, &'a [T], &'a [T]) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (head, &a[head..a.len() - tail], &b[head..b.len() - tail])
}

fn index(i: usize) -> PathStep {
    PathStep::Index(crate::api::error::u32_of(i))
}

pub(super) fn walk(prev: &Value, next: &Value, path: &mut Vec<PathStep>, ops: &mut Vec<PatchOp>) {
    match (prev, next) {
        (Value::Object(a), Value::Object(b)) => {
            // Keys keep their order on the page only if the surviving keys are in the same order
            // and new ones come last (where a JavaScript object adds them); otherwise replace.
            let kept_in_order = a
                .keys()
                .filter(|k| b.contains_key(*k))
                .eq(b.keys().filter(|k| a.contains_key(*k)));
            let new_last = b
                .keys()
                .skip_while(|k| a.contains_key(*k))
                .all(|k| !a.contains_key(k));
            if !(kept_in_order && new_last) {
                ops.push(PatchOp::Set {
                    path: path.clone(),
                    value: next.clone(),
                });
                return;
            }
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                path.push(PathStep::Key(k.clone()));
                ops.push(PatchOp::Remove { path: path.clone() });
                path.pop();
            }
            for (k, vb) in b {
                path.push(PathStep::Key(k.clone()));
                match a.get(k) {
                    Some(va) => walk(va, vb, path, ops),
                    None => ops.push(PatchOp::Set {
                        path: path.clone(),
                        value: vb.clone(),
                    }),
                }
                path.pop();
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            let (head, am, bm) = middles(a, b);
            if am.is_empty() && bm.is_empty() {
                return;
            }
            if am.len() == bm.len() {
                for (i, (x, y)) in am.iter().zip(bm).enumerate() {
                    if x != y {
                        path.push(index(head + i));
                        walk(x, y, path, ops);
                        path.pop();
                    }
                }
            } else {
                ops.push(PatchOp::Splice {
                    path: path.clone(),
                    start: crate::api::error::u32_of(head),
                    delete: crate::api::error::u32_of(am.len()),
                    items: bm.to_vec(),
                });
            }
        }
        _ => {
            if prev != next {
                ops.push(PatchOp::Set {
                    path: path.clone(),
                    value: next.clone(),
                });
            }
        }
    }
}

/// Applies ops to a tree: what the page does (ui/src/lib/patch.ts), here to test the diff. An op
/// whose path does not exist is an error: the two sides disagree about the previous tree.
pub fn apply(tree: &mut Value, ops: &[PatchOp]) -> Result<(), String> {
    for op in ops {
        match op {
            PatchOp::Set { path, value } => {
                if path.is_empty() {
                    *tree = value.clone();
                    continue;
                }
                let (last, parent) = path.split_last().ok_or("empty path")?;
                match (at(tree, parent)?, last) {
                    (Value::Object(m), PathStep::Key(k)) => {
                        m.insert(k.clone(), value.clone());
                    }
                    (Value::Array(v), PathStep::Index(i)) => {
                        let slot = v.get_mut(*i as usize).ok_or("index out of range")?;
                        *slot = value.clone();
                    }
                    _ => return Err(format!("set: no container at {path:?}")),
                }
            }
            PatchOp::Remove { path } => {
                let (last, parent) = path.split_last().ok_or("empty path")?;
                match (at(tree, parent)?, last) {
                    (Value::Object(m), PathStep::Key(k)) => {
                        m.shift_remove(k).ok_or("remove: no such key")?;
                    }
                    _ => return Err(format!("remove: no object at {path:?}")),
                }
            }
            PatchOp::Splice {
                path,
                start,
                delete,
                items,
            } => {
                let Value::Array(v) = at(tree, path)? else {
                    return Err(format!("splice: no array at {path:?}"));
                };
                let (s, d) = (*start as usize, *delete as usize);
                if s + d > v.len() {
                    return Err("splice out of range".into());
                }
                v.splice(s..s + d, items.iter().cloned());
            }
        }
    }
    Ok(())
}

fn at<'a>(mut v: &'a mut Value, path: &[PathStep]) -> Result<&'a mut Value, String> {
    for step in path {
        v = match (v, step) {
            (Value::Object(m), PathStep::Key(k)) => m.get_mut(k).ok_or("no such key")?,
            (Value::Array(a), PathStep::Index(i)) => {
                a.get_mut(*i as usize).ok_or("no such index")?
            }
            _ => return Err(format!("no container at {step:?}")),
        };
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roundtrip(a: Value, b: Value) -> Vec<PatchOp> {
        let ops = diff(&a, &b);
        let mut t = a;
        apply(&mut t, &ops).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t, b);
        ops
    }

    #[test]
    fn equal_trees_need_no_ops() {
        let v = json!({"a": [1, {"b": "c"}], "d": null});
        assert!(roundtrip(v.clone(), v).is_empty());
    }

    #[test]
    fn a_changed_element_is_patched_in_place() {
        let ops = roundtrip(
            json!({"segments": [{"name": "a", "text": "x"}, {"name": "b", "text": "y"}]}),
            json!({"segments": [{"name": "a", "text": "x"}, {"name": "b", "text": "z"}]}),
        );
        assert_eq!(
            ops,
            vec![PatchOp::Set {
                path: vec![
                    PathStep::Key("segments".into()),
                    PathStep::Index(1),
                    PathStep::Key("text".into())
                ],
                value: json!("z")
            }]
        );
    }

    #[test]
    fn an_insertion_splices_only_the_middle() {
        let ops = roundtrip(json!([1, 2, 3, 4]), json!([1, 2, 9, 9, 3, 4]));
        assert_eq!(
            ops,
            vec![PatchOp::Splice {
                path: vec![],
                start: 2,
                delete: 0,
                items: vec![json!(9), json!(9)]
            }]
        );
    }

    #[test]
    fn keys_removed_added_and_reordered() {
        roundtrip(json!({"a": 1, "b": 2}), json!({"a": 1, "c": 3}));
        let ops = roundtrip(json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}));
        assert!(matches!(&ops[..], [PatchOp::Set { path, .. }] if path.is_empty()));
        roundtrip(json!({"a": 1}), json!([1]));
        roundtrip(json!([]), json!([{"x": [1, 2]}]));
    }
}
