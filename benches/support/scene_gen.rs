//! A large, deterministic scene for benchmarks: many tools (a third of them injecting), a long
//! conversation mixing Chinese and English, configured prompts that read context fields.
//! Shared by `benches/render.rs` and `examples/gen_scene.rs` (which writes it for bench/).

use std::fmt::Write as _;

pub struct Params {
    pub tools: usize,
    pub messages: usize,
}

/// Tiny xorshift generator: the same scene on every machine, no dependency. Also drives the
/// random edits of tests/it/live.rs.
pub struct Rng(pub u64);

#[allow(dead_code)] // Each includer uses a different part.
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const EN: [&str; 6] = [
    "Please extract the table of contents from the PDF.",
    "The quarterly numbers look better than expected, but check the footnotes.",
    "Can you compare the methodology section with last year's report?",
    "I noted the key risks in the summary {not a placeholder}.",
    "Let's move on to chapter three and the appendix tables.",
    "Summarise the discussion so far in five bullet points.",
];
const ZH: [&str; 6] = [
    "我想分析这份 PDF 的目录结构。",
    "用户更关心方法论而非具体数字。",
    "请把第三章的要点整理成表格。",
    "这里的数据需要和去年的报告对比一下。",
    "先抽取目录，再逐章总结。",
    "记录一下：附录里的表格格式不统一。",
];

const CHAT_POS: [&str; 4] = [
    "system_msg_prompt",
    "before_input_msg_prompt",
    "after_input_msg_prompt",
    "after_intermediate_msg_prompt",
];
const DESK_POS: [&str; 4] = [
    "system_prompt",
    "instruction_prompt",
    "intermediate_prompt",
    "current_desk_screenshot_prompt",
];

fn json_str(s: &str) -> String {
    // serde_json escapes exactly as JSON needs; a String always serialises.
    serde_json::to_string(s).unwrap_or_default()
}

fn prompt(engine: &str, template: &str) -> String {
    format!(
        r#"{{"kind": "normalize", "template": {{"engine": "{engine}", "templates": {{"default": {}}}}}}}"#,
        json_str(template)
    )
}

/// The scene as JSON text.
pub fn scene(p: &Params) -> String {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut conv = String::new();
    for i in 0..p.messages {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let text = format!("{} {} (#{i})", rng.pick(&ZH), rng.pick(&EN));
        if i > 0 {
            conv.push_str(",\n    ");
        }
        let _ = write!(
            conv,
            r#"{{"role": "{role}", "content": {}}}"#,
            json_str(&text)
        );
    }
    let mut tools = String::new();
    for i in 0..p.tools {
        if i > 0 {
            tools.push_str(",\n    ");
        }
        let name = format!("tool_{i:03}");
        let state = format!(
            r#"{{"name": "{name}", "items": [{}], "count": {}}}"#,
            (0..3)
                .map(|k| json_str(&format!("{} #{k}", rng.pick(&ZH))))
                .collect::<Vec<_>>()
                .join(", "),
            rng.next() % 1000
        );
        let chat = CHAT_POS[i % 4];
        let desk = DESK_POS[(i / 4) % 4];
        let entry = match i % 6 {
            // A third inject: a literal string rendered from state and context...
            0 => format!(
                r##"{{"name": "{name}", "description": "Notes tool {i}", "prompt_position": ["{chat}", "{desk}"], "state": {state},
      "format_2_prompt": {{"returns": "str", "source": {{"engine": "fstring", "templates": {{"default": "# {name} notes ({{state[count]}} items) for {{ctx[user_input][input]}}\n- {{state[items][0]}}\n- {{state[items][1]}}"}}}}}}}}"##
            ),
            // ...or a Jinja2 prompt of their own over the whole context.
            3 => format!(
                r#"{{"name": "{name}", "description": "Context tool {i}", "prompt_position": ["{chat}", "{desk}"], "state": {state},
      "format_2_prompt": {{"returns": "prompt", "prompt": {}}}}}"#,
                prompt("jinja2", "{{ tools | length }} tools; {{ conversation | length }} messages; last speaker: {{ conversation[-1].role }}; input: {{ user_input.input }}")
            ),
            // The rest: one-sided and silent under desk, returning nothing, or plain tools.
            1 => format!(r#"{{"name": "{name}", "description": "Chat-only memo {i}", "prompt_position": ["{chat}", null], "state": {state}, "format_2_prompt": {{"returns": "none"}}}}"#),
            2 | 4 => format!(r#"{{"name": "{name}", "description": "Plain tool {i}"}}"#),
            _ => format!(r#"{{"name": "{name}", "description": "Desk-only tool {i}", "prompt_position": [null, "{desk}"], "state": {state}, "format_2_prompt": {{"returns": "none"}}}}"#),
        };
        tools.push_str(&entry);
    }
    let sys = [
        prompt("fstring", "You are TFRobot. The user said: {user_input[input]!r}. Trace {runtime_vars[trace_id]}."),
        prompt("jinja2", "{{ conversation | length }} earlier messages; the first was: {{ conversation[0].content }}"),
        r#"{"kind": "additional_info", "template": {"engine": "fstring", "templates": {"default": "Language: {lang}; project: {project}"}}}"#.to_owned(),
    ];
    format!(
        r#"{{
  "format": "prompt-inspector/scene@1",
  "name": "generated-{n_tools}-tools-{messages}-messages",
  "description": "Generated by benches/support/scene_gen.rs for benchmarks.",
  "context": {{
    "user_input": {{"input": "请根据笔记总结第三章，and list the open questions.", "additional_info": {{"lang": "zh", "project": "quarterly-report"}}}},
    "conversation": [
    {conv}
    ],
    "runtime_vars": {{"trace_id": "t-0001", "turn": {messages}}},
    "neural": {{"memo": "长期记忆：用户偏好中文回答"}}
  }},
  "chat_llm": {{
    "system_msg_prompt": [{sys}],
    "before_input_msg_prompt": [{before}],
    "after_input_msg_prompt": [{after}],
    "after_intermediate_msg_prompt": [{after_int}]
  }},
  "desk_llm": {{
    "adapter": "openai_desk",
    "system_prompt": [{sys}],
    "purpose_prompt": [{purpose}]
  }},
  "tools": [
    {tools}
  ]
}}
"#,
        n_tools = p.tools,
        messages = p.messages,
        sys = sys.join(", "),
        before = prompt("jinja2", "Memo: {{ neural.memo }}"),
        after = prompt(
            "fstring",
            "Answer in {user_input[additional_info][lang]} when possible."
        ),
        after_int = prompt(
            "jinja2",
            "{% for m in conversation[-3:] %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
        ),
        purpose = prompt("fstring", "Task: {user_input[input]}"),
    )
}
