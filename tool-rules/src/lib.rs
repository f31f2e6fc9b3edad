//! The rules a tool's declaration must follow, defined once for the two
//! places that check them: `tool-derive` at compile time (with messages
//! spanned at what the user wrote) and `tool-core` when a registry is built
//! (for tools added at run time). Use them through `tool_core`, which
//! re-exports the functions.

#![no_std]
#![forbid(unsafe_code)]

/// The longest tool name, in characters.
pub const TOOL_NAME_MAX: usize = 64;

/// The longest group name, in characters.
pub const GROUP_NAME_MAX: usize = 64;

/// The longest description, in characters: what every big provider takes.
pub const DESCRIPTION_MAX: usize = 1024;

/// The longest timeout a tool may declare, in milliseconds: one hour.
pub const TIMEOUT_MAX_MILLIS: u64 = 3_600_000;

/// Whether `c` may appear in a tool name: an ASCII letter or digit, `_`
/// or `-`.
pub const fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `^[A-Za-z0-9_-]{1,64}$`, the strictest rule the big providers share.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=TOOL_NAME_MAX).contains(&name.len()) && name.chars().all(is_tool_name_char)
}

/// Whether `c` may appear in a group name after its first letter: a
/// lower-case ASCII letter or digit, `_` or `-`.
pub const fn is_group_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'
}

/// `^[a-z][a-z0-9_-]{0,63}$`: a crate-like group name, so the recommended
/// value (the crate's name) always fits and settings keys stay unambiguous.
pub fn is_valid_group_name(group: &str) -> bool {
    group.len() <= GROUP_NAME_MAX
        && group.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && group.chars().all(is_group_name_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert!(is_valid_tool_name("get_env"));
        assert!(is_valid_tool_name("Bash-2"));
        assert!(is_valid_tool_name(&"a".repeat(TOOL_NAME_MAX)));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name(&"a".repeat(TOOL_NAME_MAX + 1)));
        assert!(!is_valid_tool_name("get.env"));
        assert!(!is_valid_tool_name("gét"));
    }

    #[test]
    fn group_names() {
        assert!(is_valid_group_name("tools-builtin"));
        assert!(is_valid_group_name("a_1"));
        assert!(is_valid_group_name(&"a".repeat(GROUP_NAME_MAX)));
        assert!(!is_valid_group_name(""));
        assert!(!is_valid_group_name("1a"));
        assert!(!is_valid_group_name("Editing"));
        assert!(!is_valid_group_name(&"a".repeat(GROUP_NAME_MAX + 1)));
    }
}
