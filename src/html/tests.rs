use super::*;

#[test]
fn escape_leaves_no_markup_and_marks_controls() {
    assert_eq!(
        escape("<script>alert('x') & \"y\"</script>\u{1}\tz"),
        "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;\u{FFFD}\tz"
    );
}

#[test]
fn anchors_are_plain_ascii() {
    assert_eq!(
        anchor(&["s0", "chat", "system_msg_prompt"]),
        "s0-chat-system-msg-prompt"
    );
    assert_eq!(anchor(&["a b/ç"]), "a-b-");
}

#[test]
fn usd_shows_small_sums_with_more_decimals() {
    assert_eq!(usd(0.0), "$0");
    assert_eq!(usd(0.000_125), "$0.000125");
    assert_eq!(usd(1.5), "$1.5000");
}
