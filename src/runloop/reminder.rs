//! xbot's system reminder (`agent/reminder.go`, as of commit ffbcf30): appended to the last
//! message after every round with tool calls, after the dynamic-context block.

use crate::scene::run::RunMessage;
use crate::scene::Role;

/// The goal is cut to this many characters (Unicode scalar values, Go's `[]rune`).
pub const GOAL_MAX_CHARS: usize = 500;

/// The fixed lines that end every reminder.
pub const FIXED_LINES: [&str; 4] = [
    "行为提醒:",
    "- 优先编辑已有文件，避免创建新文件",
    "- 修改后运行测试验证",
    "- 错误时先分析根因再修改",
];

/// The user's original request: the first user message of the whole list whose trimmed text is
/// not empty, trimmed, cut to 500 characters plus `...`. `None` when there is none.
pub fn goal(messages: &[RunMessage]) -> Option<String> {
    let text = messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.trim())
        .find(|t| !t.is_empty())?;
    Some(match text.char_indices().nth(GOAL_MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    })
}

/// How many messages with role `tool` the list holds (xbot's progress figure).
pub fn tool_count(messages: &[RunMessage]) -> usize {
    messages.iter().filter(|m| m.role == Role::Tool).count()
}

/// The reminder block for the list as it stands after a round: goal (when there is one), tool
/// count, this round's tool names, the TODO (when non-empty), then the fixed lines.
pub fn build(messages: &[RunMessage], round_tools: &[&str], todo: Option<&str>) -> String {
    let mut parts = Vec::with_capacity(8);
    if let Some(goal) = goal(messages) {
        parts.push(format!("用户原始需求: {goal}"));
    }
    parts.push(format!("已完成 {} 次工具调用", tool_count(messages)));
    parts.push(format!("本轮使用: {}", round_tools.join(", ")));
    if let Some(todo) = todo.filter(|t| !t.is_empty()) {
        parts.push(format!("TODO: {todo}"));
    }
    parts.extend(FIXED_LINES.iter().map(|l| (*l).to_owned()));
    format!(
        "<system-reminder>\n{}\n</system-reminder>",
        parts.join("\n")
    )
}
