//! The terminal: its width, prose wrapped to it, and wall times as people read them.

use unicode_width::UnicodeWidthStr;

/// A standard stream that may be a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The width of the terminal `stream` writes to (the kernel's window size), `None` when it is
/// not a terminal or does not say.
#[cfg(unix)]
pub fn terminal_columns(stream: Stream) -> Option<u16> {
    let fd = match stream {
        Stream::Stdout => libc::STDOUT_FILENO,
        Stream::Stderr => libc::STDERR_FILENO,
    };
    // SAFETY: TIOCGWINSZ only writes a `winsize` into the struct we pass; a failing call leaves
    // it zeroed, which we treat as unknown.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col)
}

#[cfg(not(unix))]
pub fn terminal_columns(_stream: Stream) -> Option<u16> {
    None
}

/// Below this width prose is left to the terminal.
const MIN_WRAP_WIDTH: usize = 40;

/// `text` broken between words into lines at most `width` wide (a word longer than that stays
/// whole), continuation lines indented by two spaces; unchanged when the width is unknown or too
/// small to be worth it.
pub fn wrap_words(text: &str, width: Option<u16>) -> String {
    match width.map(usize::from).filter(|&w| w >= MIN_WRAP_WIDTH) {
        Some(width) => text
            .split('\n')
            .map(|line| wrap_line(line, width))
            .collect::<Vec<_>>()
            .join("\n"),
        None => text.to_string(),
    }
}

fn wrap_line(line: &str, width: usize) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    // Width of the current output line, and whether it holds a word yet.
    let (mut current, mut has_word) = (0, false);
    for word in unbreakable_words(line) {
        let word_width = word.width();
        if has_word && current + 1 + word_width > width {
            out.push_str("\n  ");
            current = 2;
        } else if has_word {
            out.push(' ');
            current += 1;
        }
        out.push_str(&word);
        current += word_width;
        has_word = true;
    }
    out
}

/// The words of `line`, a unit kept with the number before it (`±2 %`, `911 µs`) so that a
/// figure is never split across lines, and a short last word kept with the one before.
fn unbreakable_words(line: &str) -> Vec<String> {
    const UNITS: [&str; 7] = ["%", "ns", "µs", "ms", "s", "min", "h"];
    let is_unit = |word: &str| UNITS.contains(&word.trim_end_matches([')', ',', ';', ':', '.']));
    let mut words: Vec<String> = Vec::new();
    for word in line.split(' ') {
        match words.last_mut() {
            Some(previous) if is_unit(word) && previous.ends_with(|c: char| c.is_ascii_digit()) => {
                previous.push(' ');
                previous.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    // Nor is a short last word (`seed 1`) left alone on a line.
    if words.len() > 1 && words.last().is_some_and(|w| w.width() <= 3) {
        let last = words.pop().unwrap_or_default();
        if let Some(previous) = words.last_mut() {
            previous.push(' ');
            previous.push_str(&last);
        }
    }
    words
}

/// A wall time for people: `850 ms`, `38.6 s`, `3 min 50 s`, `1 h 02 min`.
pub fn wall_time(ms: u64) -> String {
    let seconds = ms as f64 / 1e3;
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_949 => format!("{seconds:.1} s"),
        59_950..=3_599_499 => {
            let whole = seconds.round() as u64;
            format!("{} min {:02} s", whole / 60, whole % 60)
        }
        _ => {
            let minutes = (seconds / 60.0).round() as u64;
            format!("{} h {:02} min", minutes / 60, minutes % 60)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_between_words_with_an_indent() {
        let line = "note: one two three four five six seven eight nine ten eleven twelve";
        let wrapped = wrap_words(line, Some(40));
        assert_eq!(
            wrapped,
            "note: one two three four five six seven\n  eight nine ten eleven twelve"
        );
        assert!(wrapped.lines().all(|l| l.width() <= 40));
        // A word longer than the width stays whole, on a line of its own.
        let path = format!("samples: {}", "x".repeat(60));
        assert_eq!(
            wrap_words(&path, Some(40)),
            format!("samples:\n  {}", "x".repeat(60))
        );
        // A figure stays whole: its unit is not put on the next line.
        let figure = "note: the noise hides changes below ±13.31 % (threshold ±2 %), 911 µs";
        let wrapped = wrap_words(figure, Some(40));
        assert_eq!(
            wrapped,
            "note: the noise hides changes below\n  ±13.31 % (threshold ±2 %), 911 µs"
        );
        // Unknown or tiny widths leave the line to the terminal.
        assert_eq!(wrap_words(line, None), line);
        assert_eq!(wrap_words(line, Some(20)), line);
    }

    #[test]
    fn wall_times_read_naturally() {
        assert_eq!(wall_time(850), "850 ms");
        assert_eq!(wall_time(38_640), "38.6 s");
        assert_eq!(wall_time(59_949), "59.9 s");
        assert_eq!(wall_time(59_950), "1 min 00 s");
        assert_eq!(wall_time(229_553), "3 min 50 s");
        assert_eq!(wall_time(3_599_499), "59 min 59 s");
        assert_eq!(wall_time(3_720_000), "1 h 02 min");
    }
}
