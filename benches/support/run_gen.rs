//! A long recorded tool-call loop for benchmarks: `rounds` rounds, each one tool call with a
//! tool result of about 300 bytes, the directory changing every tenth round, then a final
//! answer. Shared by `benches/bounded.rs` and `examples/gen_run.rs` (which writes it for bench/).

use std::fmt::Write as _;

pub fn run_scene(rounds: usize) -> String {
    let mut iterations = Vec::with_capacity(rounds + 1);
    for i in 1..=rounds {
        let dir = format!("/work/repo/crates/c{}", i / 10);
        let (tool, args) = if i % 10 == 0 {
            ("Cd", format!("{{\"path\": \"{dir}\"}}"))
        } else {
            ("Shell", format!("{{\"command\": \"cargo test -p c{i}\"}}"))
        };
        let mut result = String::new();
        for line in 0..6 {
            let _ = writeln!(
                result,
                "test c{i}::case_{line} ... ok (测试 {line} 通过, {} ms)",
                (i * 7 + line * 13) % 97
            );
        }
        let _ = write!(result, "test result: ok. 6 passed; 0 failed; round {i}");
        let call = serde_json::json!({
            "assistant": { "role": "assistant", "content": "",
                "tool_calls": [ { "id": format!("call_{i}"), "name": tool, "arguments": args } ] },
            "tool_results": [ { "role": "tool", "content": result, "tool_call_id": format!("call_{i}"), "name": tool } ],
            "cwd_after": dir,
            "todo": if i % 3 == 0 { format!("修复 c{i} 的测试") } else { String::new() },
        });
        iterations.push(call);
    }
    iterations.push(serde_json::json!({
        "assistant": { "role": "assistant", "content": "全部测试通过。" }
    }));
    let scene = serde_json::json!({
        "format": "prompt-inspector/scene@1",
        "name": format!("long-run-{rounds}"),
        "run": {
            "initial_cwd": "/work/repo",
            "system_parts": { "00_base": "你是 xbot，一个在终端里工作的编程助手。", "10_skills": "<available_skills>\n- git\n- cargo\n</available_skills>" },
            "history": [],
            "user_message": "运行所有 crate 的测试，修复失败的",
            "iterations": iterations,
        }
    });
    serde_json::to_string_pretty(&scene).unwrap_or_default()
}
