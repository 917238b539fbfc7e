//! `check` in CI: JUnit XML, GitHub annotations, shards, threads, the progress bar, and the HTML
//! reports (`check --html`, `render --format html`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use quick_xml::events::Event;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(args)
        .output()
        .expect("run prompt-inspector")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-check-ci-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

const TEMPLATE: &str = "Trace this answer.\\nRequest id: {ctx[request_id]}";

/// A corpus of four scenes: one that matches its golden, one whose tool template changed since
/// its golden was written, one with no golden, and one that does not load.
fn corpus(tag: &str) -> PathBuf {
    let d = tempdir(tag);
    let src = root().join("fixtures/lint/volatile-values.scene.json");
    let text = std::fs::read_to_string(&src).expect("fixture");
    assert!(
        text.contains(TEMPLATE),
        "the fixture still has the template the test edits"
    );
    for name in ["a-match", "b-mismatch", "c-missing"] {
        std::fs::write(d.join(format!("{name}.scene.json")), &text).expect("write scene");
    }
    let o = run(&["check", "--bless", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    std::fs::remove_file(d.join("c-missing.golden.json")).expect("remove golden");
    let changed = text.replace("Trace this answer.", "Trace this reply.");
    std::fs::write(d.join("b-mismatch.scene.json"), changed).expect("write scene");
    std::fs::write(
        d.join("d-broken.scene.json"),
        "{\n  \"name\": \"x\",\n  \"oops\": ]\n}\n",
    )
    .expect("write scene");
    d
}

/// The 1-based line of the scene file that holds `needle` (found by reading the file, not by the
/// code under test).
fn line_of(path: &Path, needle: &str) -> usize {
    let text = std::fs::read_to_string(path).expect("scene");
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .expect("needle in file")
}

/// A parsed JUnit element: its name, attributes and text, in document order.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    depth: usize,
}

impl Element {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_xml(xml: &str) -> Vec<Element> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out: Vec<Element> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let element = |e: &quick_xml::events::BytesStart, depth| Element {
        name: e.name().into_inner().to_owned(),
        attrs: e
            .attributes()
            .map(|a| {
                let a = a.expect("attribute");
                (
                    a.key.into_inner().to_owned(),
                    a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                        .expect("attribute value")
                        .into_owned(),
                )
            })
            .collect(),
        text: String::new(),
        depth,
    };
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => {
                out.push(element(&e, open.len()));
                open.push(out.len() - 1);
            }
            Event::Empty(e) => out.push(element(&e, open.len())),
            Event::End(_) => {
                open.pop();
            }
            Event::Text(t) => {
                if let Some(&i) = open.last() {
                    out[i].text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                let ch = if r.is_char_ref() {
                    r.resolve_char_ref().expect("char ref").expect("a char")
                } else {
                    match &*r.xml10_content() {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => panic!("undeclared entity &{other};"),
                    }
                };
                if let Some(&i) = open.last() {
                    out[i].text.push(ch);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(open.is_empty(), "every element is closed");
    out
}

#[test]
fn junit_has_a_case_per_scene_with_the_segment_diff() {
    let d = corpus("junit");
    let xml_path = d.join("report.xml");
    let o = run(&[
        "check",
        &d.display().to_string(),
        "--junit",
        &xml_path.display().to_string(),
    ]);
    // An unreadable scene wins: exit 2, as without --junit.
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let xml = std::fs::read_to_string(&xml_path).expect("junit written");
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    let els = parse_xml(&xml);
    assert_eq!(els[0].name, "testsuites");
    assert_eq!(els[1].name, "testsuite");
    for root in &els[..2] {
        assert_eq!(root.attr("tests"), Some("4"));
        assert_eq!(
            root.attr("failures"),
            Some("2"),
            "mismatch and missing golden"
        );
        assert_eq!(
            root.attr("errors"),
            Some("1"),
            "the scene that does not load"
        );
        let time = root.attr("time").expect("time");
        // junit-10.xsd's SUREFIRE_TIME: at most three decimals.
        let decimals = time.split_once('.').map_or(0, |(_, d)| d.len());
        assert!(decimals <= 3, "{time}");
    }
    let cases: Vec<&Element> = els.iter().filter(|e| e.name == "testcase").collect();
    let names: Vec<&str> = cases.iter().filter_map(|c| c.attr("name")).collect();
    assert_eq!(
        names,
        [
            "a-match.scene.json",
            "b-mismatch.scene.json",
            "c-missing.scene.json",
            "d-broken.scene.json"
        ]
    );
    let dir = d.display().to_string();
    assert!(cases
        .iter()
        .all(|c| c.attr("classname") == Some(dir.as_str())));
    let child = |i: usize| {
        let at = els
            .iter()
            .position(|e| std::ptr::eq(e, cases[i]))
            .expect("case");
        els.get(at + 1).filter(|e| e.depth == cases[i].depth + 1)
    };
    assert!(child(0).is_none(), "a match has no child element");
    let mismatch = child(1).expect("failure");
    assert_eq!(mismatch.name, "failure");
    assert_eq!(mismatch.attr("type"), Some("mismatch"));
    assert_eq!(
        mismatch.attr("message"),
        Some("the golden differs: first in chat · after_input_msg_prompt (tracer's text)")
    );
    assert!(
        mismatch.text.contains(
            "  chat · after_input_msg_prompt\n    - Trace this answer.\n    + Trace this reply.\n"
        ),
        "{}",
        mismatch.text
    );
    assert!(
        mismatch.text.contains("\"content\": \"Trace this reply."),
        "the JSON diff follows"
    );
    let missing = child(2).expect("failure");
    assert_eq!(
        (missing.name.as_str(), missing.attr("type")),
        ("failure", Some("missing_golden"))
    );
    let broken = child(3).expect("error");
    assert_eq!(
        (broken.name.as_str(), broken.attr("type")),
        ("error", Some("unreadable"))
    );
    assert!(
        broken.text.contains("d-broken.scene.json:3:"),
        "{}",
        broken.text
    );
}

#[test]
fn junit_escapes_what_xml_cannot_carry() {
    use prompt_inspector::check::junit::escape;
    assert_eq!(
        escape("a<b>&\"c'\u{0}\u{1b}\r\n\t"),
        "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}\u{FFFD}&#13;\n\t"
    );
    let xml = format!("<x a=\"{}\">{}</x>", escape("\"<&>"), escape("\u{0}<&>"));
    let els = parse_xml(&xml);
    assert_eq!(els[0].attr("a"), Some("\"<&>"));
    assert_eq!(els[0].text, "\u{FFFD}<&>");
}

#[test]
fn github_annotates_the_scene_and_the_template_line() {
    let d = corpus("github");
    let o = run(&["check", "--format", "github", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8_lossy(&o.stdout);
    let scene = d.join("b-mismatch.scene.json");
    let file = scene.display().to_string();
    let template_line = line_of(&scene, "Trace this reply.");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    let mismatch = format!(
        "::error file={file},title=Golden mismatch::the golden differs: first in chat · \
         after_input_msg_prompt (tracer's text) ({})",
        d.join("b-mismatch.golden.json").display()
    );
    // Then, on lines of the same message, what the change costs per model.
    let annotation = lines
        .iter()
        .find(|l| l.starts_with(&mismatch))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        annotation[mismatch.len()..].starts_with("%0ACost change, golden → now"),
        "{annotation}"
    );
    let on_template = lines
        .iter()
        .find(|l| l.contains("title=Golden mismatch%3A template"))
        .expect("an annotation on the template");
    assert!(
        on_template.starts_with(&format!("::error file={file},line={template_line},col=")),
        "{on_template}"
    );
    assert!(out.contains(&format!("::group::Diff of {file}\n")));
    assert!(out.contains("::endgroup::\n"));
    let broken = d.join("d-broken.scene.json").display().to_string();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("::error file={broken},line=3,col="))),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.contains("title=Missing golden")));
    assert!(out.ends_with("1 passed, 3 failed\n"), "{out}");
}

#[test]
fn github_puts_denied_findings_on_their_template() {
    let scene = root().join("fixtures/lint/volatile-values.scene.json");
    let o = run(&[
        "check",
        "--format",
        "github",
        "--deny",
        "cache_volatile_value",
        &scene.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let denied: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("title=Denied cache_volatile_value"))
        .collect();
    assert_eq!(denied.len(), 3, "{out}");
    let system = line_of(&scene, "The time is {now}.");
    assert!(
        denied[0].contains(&format!(",line={system},col=")),
        "{}",
        denied[0]
    );
    let tool = line_of(&scene, "Trace this answer.");
    assert!(
        denied[2].contains(&format!(",line={tool},col=")),
        "{}",
        denied[2]
    );
}

#[test]
fn github_escapes_messages_and_properties() {
    use prompt_inspector::check::github::{escape_data, escape_property};
    assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
    assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
}

fn json_paths(args: &[&str]) -> Vec<String> {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    v["scenes"]
        .as_array()
        .expect("scenes")
        .iter()
        .map(|s| s["path"].as_str().expect("path").to_owned())
        .collect()
}

#[test]
fn shards_cover_every_scene_exactly_once() {
    let fixtures = root().join("fixtures").display().to_string();
    let all = json_paths(&["check", "--format", "json", &fixtures]);
    assert!(all.len() > 20, "a corpus worth splitting");
    for n in [1, 2, 3, 7] {
        let mut seen: Vec<String> = Vec::new();
        for i in 1..=n {
            let shard = format!("{i}/{n}");
            seen.extend(json_paths(&[
                "check", "--format", "json", "--shard", &shard, &fixtures,
            ]));
        }
        let unique: BTreeSet<&String> = seen.iter().collect();
        assert_eq!(seen.len(), all.len(), "{n} shards: each scene once");
        assert_eq!(
            unique,
            all.iter().collect::<BTreeSet<_>>(),
            "{n} shards: every scene"
        );
    }
}

#[test]
fn a_scene_keeps_its_shard_when_others_come_and_go() {
    use prompt_inspector::check::{Found, Shard};
    let shard = |s: &str| s.parse::<Shard>().expect("shard");
    let paths: Vec<PathBuf> = (0..200)
        .map(|i| PathBuf::from(format!("c/{i}.scene.json")))
        .collect();
    let owner = |p: &PathBuf| {
        (1..=4)
            .find(|i| shard(&format!("{i}/4")).takes(&Found::Scene(p.clone())))
            .expect("a shard takes it")
    };
    let before: Vec<usize> = paths.iter().map(owner).collect();
    // The split depends on the path alone, not on which other scenes exist.
    let after: Vec<usize> = paths.iter().rev().map(owner).collect();
    assert_eq!(before, after.into_iter().rev().collect::<Vec<_>>());
    for i in 1..=4 {
        let n = before.iter().filter(|&&s| s == i).count();
        assert!((30..=70).contains(&n), "shard {i} has {n} of 200");
    }
    for bad in ["0/2", "3/2", "1/0", "1", "a/b", "1/2/3"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
    let o = run(&["check", "--shard", "3/2", "fixtures"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a shard"));
}

#[test]
fn threads_change_nothing_but_the_time() {
    let fixtures = root().join("fixtures").display().to_string();
    let one = run(&["check", "--jobs", "1", &fixtures]);
    let two = run(&["check", "--jobs", "2", &fixtures]);
    let four = run(&["check", "--jobs", "4", &fixtures]);
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stdout, four.stdout);
    // Piped, there is no progress bar: nothing on stderr.
    assert!(
        two.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&two.stderr)
    );
}

/// The `<style>` element's text and the policy's hash of it.
fn style_and_policy(html: &str) -> (String, String) {
    let style = html
        .split_once("<style>")
        .and_then(|(_, rest)| rest.split_once("</style>"))
        .map(|(s, _)| s.to_owned())
        .expect("a style element");
    let policy = html
        .split_once("http-equiv=\"Content-Security-Policy\" content=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(p, _)| p.to_owned())
        .expect("a policy");
    (style, policy)
}

fn assert_self_contained(html: &str) {
    use base64::Engine as _;
    use sha2::Digest as _;
    let (style, policy) = style_and_policy(html);
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&style));
    assert!(policy.starts_with("default-src 'none'; "), "{policy}");
    assert!(
        policy.contains(&format!("style-src 'sha256-{hash}'")),
        "{policy}"
    );
    assert_eq!(html.matches("<style>").count(), 1);
    for forbidden in [
        "<script",
        "<link",
        "<iframe",
        "<img src=\"http",
        "src=\"http",
        "href=\"http",
        "url(",
    ] {
        assert!(!html.contains(forbidden), "{forbidden}");
    }
    assert!(
        !html.contains(" style=\""),
        "inline style attributes would need 'unsafe-inline'"
    );
}

#[test]
fn render_html_draws_both_boards_self_contained() {
    let scene = root().join("fixtures/default.scene.json");
    let o = run(&["render", "--format", "html", &scene.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let html = String::from_utf8(o.stdout).expect("utf-8");
    assert_self_contained(&html);
    let rules = prompt_inspector::segments::Family::Chat
        .segments()
        .chain(prompt_inspector::segments::Family::Desk.segments());
    let mut forbidden = 0;
    for seg in rules {
        assert!(
            html.contains(&format!("<code>{}</code></h", seg.name)),
            "{}",
            seg.name
        );
        forbidden += usize::from(!seg.legal());
    }
    assert_eq!(html.matches("class=\"card forbidden\"").count(), forbidden);
    assert_eq!(
        html.matches("<strong>Forbidden to tools</strong>").count(),
        forbidden
    );
    // Every piece is labelled in words as well as coloured.
    let tags = html.matches("<span class=\"tag\">").count();
    let pieces = html.matches("<span class=\"piece ").count();
    assert!(pieces > 0);
    assert_eq!(tags, pieces);
    assert!(html.contains("<span class=\"tag\">tool tf_notes</span>"));
    assert!(
        html.contains("✗ invalid"),
        "a tool status in words and a sign"
    );
    assert!(
        html.contains("<th scope=\"row\">openai/gpt-5</th>"),
        "the default models price the call"
    );
}

#[test]
fn render_html_escapes_the_scene_text() {
    let d = tempdir("html-escape");
    let src = std::fs::read_to_string(root().join("fixtures/default.scene.json")).expect("scene");
    let marked = src.replacen(
        "You are TFRobot",
        "<script>alert(1)</script><img src=x onerror=alert(2)> You are TFRobot",
        1,
    );
    assert_ne!(marked, src);
    let scene = d.join("x.scene.json");
    std::fs::write(&scene, marked).expect("write");
    let o = run(&["render", "--format", "html", &scene.display().to_string()]);
    assert_eq!(o.status.code(), Some(0));
    let html = String::from_utf8(o.stdout).expect("utf-8");
    assert_self_contained(&html);
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;")
    );
}

#[test]
fn check_html_shows_the_mismatch_side_by_side() {
    let d = corpus("html");
    let page = d.join("report.html");
    let o = run(&[
        "check",
        "--html",
        &page.display().to_string(),
        &d.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let html = std::fs::read_to_string(&page).expect("page written");
    assert_self_contained(&html);
    assert!(html.contains("<h1>Check: 1 passed, 3 failed</h1>"));
    for status in ["✓ ok", "✗ mismatch", "✗ missing_golden", "✗ unreadable"] {
        assert!(html.contains(status), "{status}");
    }
    assert!(
        html.contains(
            "<tr><td class=\"del\"><span class=\"sign\">−</span>Trace this answer.</td>\
         <td class=\"ins\"><span class=\"sign\">+</span>Trace this reply.</td></tr>"
        ),
        "the changed line beside its new form"
    );
    // A small run draws every loadable scene's boards, and leaves nothing out.
    assert_eq!(html.matches("<section class=\"scene\"").count(), 3);
    assert!(!html.contains("left out of this page"));
}

#[test]
fn a_report_that_cannot_be_written_fails_the_run() {
    let d = tempdir("unwritable");
    let scene = root()
        .join("fixtures/default.scene.json")
        .display()
        .to_string();
    // A folder where the file should go, and a folder that does not exist.
    for target in [d.clone(), d.join("missing/report.xml")] {
        let target = target.display().to_string();
        for flag in ["--junit", "--html"] {
            let o = run(&["check", flag, &target, &scene]);
            assert_eq!(o.status.code(), Some(1), "{flag} {target}: {o:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("error: cannot write the "), "{err}");
            assert!(err.contains(&target), "{err}");
        }
    }
    assert!(d.is_dir(), "the folder is left as it was");
}

#[test]
fn jobs_are_bounded() {
    let scene = root()
        .join("fixtures/default.scene.json")
        .display()
        .to_string();
    for bad in ["0", "257", "-1", "x"] {
        let o = run(&["check", "--jobs", bad, &scene]);
        assert_eq!(o.status.code(), Some(2), "--jobs {bad}");
    }
}

/// A scene whose tool's argument schema nests `levels` objects deep, blessed, then with its tool
/// template changed since (so one segment's text differs from the golden).
fn deep_schema_scene(tag: &str, levels: usize) -> PathBuf {
    let d = tempdir(tag);
    let text = std::fs::read_to_string(root().join("fixtures/lint/volatile-values.scene.json"))
        .expect("fixture");
    let schema = format!("{}1{}", "{\"x\": ".repeat(levels), "}".repeat(levels));
    let deep = text.replacen(
        "\"tools\": [",
        &format!(
            "\"tools\": [\n    {{\"name\": \"deep\", \"description\": \"d\", \"parameters\": {schema}}},"
        ),
        1,
    );
    assert_ne!(deep, text, "the fixture has a tools array");
    let scene = d.join("deep.scene.json");
    std::fs::write(&scene, &deep).expect("write scene");
    let o = run(&["check", "--bless", &scene.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let golden = std::fs::read_to_string(d.join("deep.golden.json")).expect("golden");
    // The golden nests deeper than serde_json reads by default (128 levels).
    let mut depth: usize = 0;
    let mut deepest = 0;
    for ch in golden.chars() {
        match ch {
            '{' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    assert!(deepest > levels, "the schema is in the golden: {deepest}");
    let changed = deep.replace("Trace this answer.", "Trace this reply.");
    std::fs::write(&scene, changed).expect("write scene");
    scene
}

#[test]
fn a_deeply_nested_tool_schema_keeps_the_segment_difference_and_the_boards() {
    let scene = deep_schema_scene("deep", 200);
    let o = run(&["check", "--format", "json", &scene.display().to_string()]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let entry = &out["scenes"][0];
    assert_eq!(entry["status"], "mismatch");
    assert_eq!(
        entry["difference"]["segment"], "after_input_msg_prompt",
        "{entry}"
    );
    assert_eq!(entry["difference"]["tool"], "tracer", "{entry}");
    let diff = entry["diff"].as_str().expect("diff");
    assert!(
        diff.starts_with("Segments whose text differs (- golden, + now):\n"),
        "{diff}"
    );
    assert!(diff.contains("+ Trace this reply."), "{diff}");

    let page = scene.with_file_name("report.html");
    let o = run(&[
        "check",
        "--html",
        &page.display().to_string(),
        &scene.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(html.contains("<h3>What differs from the golden</h3>"));
    assert!(
        html.contains("<span class=\"sign\">+</span>Trace this reply.</td>"),
        "the changed line side by side"
    );
    assert_eq!(
        html.matches("<ol class=\"board\">").count(),
        2,
        "both families' boards"
    );
}

#[test]
fn check_html_of_many_failing_scenes_stays_under_its_bound_and_says_what_it_left_out() {
    const SCENES: usize = 2000;
    let d = tempdir("html-bound");
    let text = std::fs::read_to_string(root().join("fixtures/default.scene.json")).expect("scene");
    let first = d.join("s0000.scene.json");
    std::fs::write(&first, &text).expect("write scene");
    let o = run(&["check", "--bless", &first.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // Every golden is out of date: the scene's text changed since it was written.
    let golden = std::fs::read_to_string(d.join("s0000.golden.json")).expect("golden");
    let changed = text.replacen("You are TFRobot", "You are TFRobot, renamed", 1);
    assert_ne!(changed, text);
    for i in 0..SCENES {
        std::fs::write(d.join(format!("s{i:04}.scene.json")), &changed).expect("scene");
        std::fs::write(d.join(format!("s{i:04}.golden.json")), &golden).expect("golden");
    }
    let page = d.join("report.html");
    let o = run(&[
        "check",
        "--format",
        "json",
        "--html",
        &page.display().to_string(),
        &d.display().to_string(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(
        html.len() <= prompt_inspector::html::MAX_PAGE_BYTES,
        "{} bytes",
        html.len()
    );
    assert_self_contained(&html);
    assert!(html.contains(&format!("<h1>Check: 0 passed, {SCENES} failed</h1>")));
    let drawn = html.matches("<section class=\"scene\"").count();
    assert!(drawn > 0 && drawn < SCENES, "{drawn} scenes drawn");
    let note = format!(
        "{} failing scenes' mismatches and boards are left out of this page to keep it under 8 MB",
        SCENES - drawn
    );
    assert!(html.contains(&note), "{note}");
    assert!(html.contains("<code>check --format json</code>"));
    // What the page leaves out, the JSON output has: every scene with its difference.
    let out: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let scenes = out["scenes"].as_array().expect("scenes");
    assert_eq!(scenes.len(), SCENES);
    assert!(scenes
        .iter()
        .all(|s| s["difference"]["segment"].is_string()));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_models_table_with_an_absurd_price_is_refused_at_the_number() {
    let d = tempdir("absurd-price");
    let builtin = std::fs::read_to_string(root().join("data/models.json")).expect("table");
    let scene = root()
        .join("fixtures/default.scene.json")
        .display()
        .to_string();
    for bad in ["1e308", "-1", "1000001"] {
        // The first row's input price, whatever it is.
        let at = builtin.find("\"input\": ").expect("an input price") + "\"input\": ".len();
        let end = at + builtin[at..].find([',', '}']).expect("end of the number");
        let table = format!("{}{bad}{}", &builtin[..at], &builtin[end..]);
        let path = d.join("models.json");
        std::fs::write(&path, &table).expect("write table");
        let line = table[..at].matches('\n').count() + 1;
        let column = at - table[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
        for format in ["text", "json", "html"] {
            let o = run(&[
                "render",
                "--models",
                &path.display().to_string(),
                "--format",
                format,
                &scene,
            ]);
            assert_eq!(o.status.code(), Some(2), "{bad} {format}: {o:?}");
            assert!(o.stdout.is_empty(), "nothing printed: {o:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains(&format!("models.json:{line}:{column}: models[0] (")),
                "{bad}: {err}"
            );
            assert!(err.contains(".prices_per_mtok.input: "), "{err}");
            assert!(err.contains("is not a price"), "{err}");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A workflow command as GitHub's runner reads it: `::name props::data`.
#[derive(Debug)]
struct RunnerCommand {
    name: String,
    properties: Vec<(String, String)>,
    data: String,
}

fn unescape(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// The commands the runner acts on in `log`: every line that starts, after leading whitespace,
/// with `::` or `##[`, except inside a `::stop-commands::TOKEN` … `::TOKEN::` block. Lines end at
/// LF or CR.
fn runner_commands(log: &str) -> Vec<RunnerCommand> {
    let mut found = Vec::new();
    let mut stopped: Option<String> = None;
    for line in log.split(['\n', '\r']) {
        let line = line.trim_start();
        if let Some(token) = &stopped {
            if line == format!("::{token}::") {
                stopped = None;
            }
            continue;
        }
        if let Some(legacy) = line.strip_prefix("##[") {
            found.push(RunnerCommand {
                name: format!("##[{legacy}"),
                properties: Vec::new(),
                data: String::new(),
            });
            continue;
        }
        let Some(rest) = line.strip_prefix("::") else {
            continue;
        };
        let Some((head, data)) = rest.split_once("::") else {
            continue;
        };
        let (name, props) = head.split_once(' ').unwrap_or((head, ""));
        let properties = props
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_owned(), unescape(v))
            })
            .collect();
        if name == "stop-commands" {
            stopped = Some(data.to_owned());
        }
        found.push(RunnerCommand {
            name: name.to_owned(),
            properties,
            data: unescape(data),
        });
    }
    assert!(stopped.is_none(), "a stop-commands block is never ended");
    found
}

#[test]
fn github_output_holds_no_command_but_ours() {
    let d = tempdir("github-injection");
    let text = std::fs::read_to_string(root().join("fixtures/lint/volatile-values.scene.json"))
        .expect("fixture");
    assert!(text.contains(TEMPLATE));
    let name = "evil\n::warning::x,y:z.scene.json";
    let scene = d.join(name);
    // Blessed with the hostile lines, then the lines between them changed: they are the
    // diff's context, printed with only leading spaces before them.
    let hostile =
        "Trace this answer.\\n::notice title=X::pwned\\nv1\\n  ::add-mask::secret\\nv1\\n\
                   ##[warning]x\\nv1\\n%0A";
    let text = text.replace("Trace this answer.", hostile);
    std::fs::write(&scene, &text).expect("write scene");
    let o = run(&["check", "--bless", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    std::fs::write(&scene, text.replace("v1", "v2")).expect("write scene");
    let o = run(&["check", "--format", "github", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    // The scene's text and the golden's name are in the log as lines the runner would act on
    // were they not fenced off.
    let live = |start: &str| out.lines().any(|l| l.trim_start().starts_with(start));
    for line in [
        "::notice title=X::pwned",
        "::add-mask::secret",
        "##[warning]x",
        "::warning::x,y:z.golden.json (golden)",
    ] {
        assert!(live(line), "{line} is not in the log: {out}");
    }
    let commands = runner_commands(&out);
    let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["error", "error", "group", "stop-commands", "endgroup"],
        "{out}"
    );
    let file = scene.display().to_string();
    for error in &commands[..2] {
        assert_eq!(
            error.properties[0],
            ("file".to_owned(), file.clone()),
            "{out}"
        );
    }
    assert_eq!(commands[0].properties[1].1, "Golden mismatch");
    assert_eq!(
        commands[1].properties.last().expect("title").1,
        "Golden mismatch: template"
    );
    assert!(commands[0].data.contains(
        &d.join("evil\n::warning::x,y:z.golden.json")
            .display()
            .to_string()
    ));
    assert_eq!(commands[2].data, format!("Diff of {file}"));
    // The token is unguessable: 128 bits, new on every run.
    let token = &commands[3].data;
    assert_eq!(token.len(), "pi-".len() + 32, "{token}");
    let again = run(&["check", "--format", "github", &d.display().to_string()]);
    let again = runner_commands(&String::from_utf8_lossy(&again.stdout));
    assert_ne!(&again[3].data, token);
}
