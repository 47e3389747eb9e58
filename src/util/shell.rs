//! Shell quoting, for the commands messages show.

/// `word` as a POSIX shell reads it back: quoted when it holds anything but safe characters. For
/// the commands messages show (a fork's command line, a command to run next).
pub fn quote_for_shell(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./~^+:@=,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::quote_for_shell;

    #[test]
    fn words_are_quoted_only_when_a_shell_would_change_them() {
        assert_eq!(quote_for_shell("hash::mix"), "hash::mix");
        assert_eq!(quote_for_shell("HEAD~1"), "HEAD~1");
        assert_eq!(quote_for_shell("json #2"), "'json #2'");
        assert_eq!(quote_for_shell("it's"), "'it'\\''s'");
        assert_eq!(quote_for_shell(""), "''");
    }
}
