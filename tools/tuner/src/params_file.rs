//! Reading and rewriting `src/eval/params.rs`.
//!
//! The file is kept as text: only the numbers inside the `s(mg, eg)` pairs of
//! the `params!` entries and the integers of `KING_DANGER` are replaced, so
//! names, lengths, order, line breaks, comments and every other constant stay
//! exactly as they were.

use std::ops::Range;

/// One `NAME[len] in Term = [s(mg, eg), ...];` entry of the `params!` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub len: usize,
    /// The `(mg, eg)` pairs as written.
    pub values: Vec<(i32, i32)>,
    /// Byte range of each `s(..)` in the text.
    spans: Vec<Range<usize>>,
}

/// One `value, // comment` line of `KING_DANGER`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct KdLine {
    /// Byte range of the whole line (without its newline).
    span: Range<usize>,
    indent: String,
    value: i32,
    /// Everything after the comma and the padding (usually `// comment`).
    rest: String,
}

/// A parsed `params.rs`.
#[derive(Clone, Debug)]
pub struct ParamsFile {
    text: String,
    pub entries: Vec<Entry>,
    kd_lines: Vec<KdLine>,
}

const PARAMS_START: &str = "params! {";
const KD_START: &str = "pub const KING_DANGER: [i32; kd::COUNT] = [";

fn parse_int(s: &str) -> Result<i32, String> {
    s.trim()
        .parse::<i32>()
        .map_err(|_| format!("bad number '{}'", s.trim()))
}

/// Parses `NAME[len] in Term = [` at the start of `line` (trimmed).
fn entry_header(line: &str) -> Option<(String, usize)> {
    let line = line.trim();
    let open = line.find('[')?;
    let name = &line[..open];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let close = line[open..].find(']')? + open;
    let len = line[open + 1..close].parse::<usize>().ok()?;
    let rest = line[close + 1..].trim_start();
    let rest = rest.strip_prefix("in ")?;
    if !rest.contains("= [") {
        return None;
    }
    Some((name.to_string(), len))
}

/// The `(mg, eg)` pairs found in a text and the byte range of each.
type Pairs = (Vec<(i32, i32)>, Vec<Range<usize>>);

/// Finds every `s(a, b)` in `text[range]`.
fn pairs_in(text: &str, range: Range<usize>) -> Result<Pairs, String> {
    let mut values = Vec::new();
    let mut spans = Vec::new();
    let mut pos = range.start;
    while let Some(found) = text[pos..range.end].find("s(") {
        let start = pos + found;
        // Not part of a longer identifier.
        let prev = text[..start].chars().next_back();
        if prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            pos = start + 2;
            continue;
        }
        let close = text[start..range.end]
            .find(')')
            .ok_or_else(|| format!("unclosed s( at byte {start}"))?
            + start;
        let inner = &text[start + 2..close];
        let (a, b) = inner
            .split_once(',')
            .ok_or_else(|| format!("bad pair 's({inner})'"))?;
        values.push((parse_int(a)?, parse_int(b)?));
        spans.push(start..close + 1);
        pos = close + 1;
    }
    Ok((values, spans))
}

impl ParamsFile {
    pub fn parse(text: &str) -> Result<ParamsFile, String> {
        let text = text.to_string();
        // The invocation, not the `macro_rules! params {` definition.
        let block_start = text
            .find(&format!("\n{PARAMS_START}\n"))
            .ok_or("no `params! {` block")?
            + 1;
        let block_end = text[block_start..]
            .find("\n}\n")
            .ok_or("unterminated `params!` block")?
            + block_start;

        let mut entries = Vec::new();
        let mut offset = block_start + PARAMS_START.len();
        while offset < block_end {
            let line_end = text[offset..].find('\n').map_or(text.len(), |i| i + offset);
            let line = &text[offset..line_end];
            if let Some((name, len)) = entry_header(line) {
                let body_start = offset + line.find("= [").unwrap() + 3;
                let body_end = text[body_start..block_end]
                    .find("];")
                    .ok_or_else(|| format!("entry {name} has no closing `];`"))?
                    + body_start;
                let (values, spans) = pairs_in(&text, body_start..body_end)?;
                if values.len() != len {
                    return Err(format!("{name}[{len}] holds {} values", values.len()));
                }
                entries.push(Entry {
                    name,
                    len,
                    values,
                    spans,
                });
                offset = text[body_end..]
                    .find('\n')
                    .map_or(text.len(), |i| i + body_end + 1);
            } else {
                offset = line_end + 1;
            }
        }
        if entries.is_empty() {
            return Err("no entries in the `params!` block".into());
        }

        let kd_start = text.find(KD_START).ok_or("no KING_DANGER array")? + KD_START.len();
        let kd_end = text[kd_start..]
            .find("];")
            .ok_or("unterminated KING_DANGER")?
            + kd_start;
        let mut kd_lines = Vec::new();
        let mut offset = kd_start;
        while offset < kd_end {
            let line_end = text[offset..kd_end]
                .find('\n')
                .map_or(kd_end, |i| i + offset);
            let line = &text[offset..line_end];
            if !line.trim().is_empty() {
                let indent_len = line.len() - line.trim_start().len();
                let body = line.trim_start();
                let comma = body
                    .find(',')
                    .ok_or_else(|| format!("KING_DANGER line without a comma: '{line}'"))?;
                kd_lines.push(KdLine {
                    span: offset..line_end,
                    indent: line[..indent_len].to_string(),
                    value: parse_int(&body[..comma])?,
                    rest: body[comma + 1..].trim_start().to_string(),
                });
            }
            offset = line_end + 1;
        }
        Ok(ParamsFile {
            text,
            entries,
            kd_lines,
        })
    }

    /// All `(mg, eg)` pairs in declaration order (the engine's `VALUES`).
    pub fn values(&self) -> Vec<(i32, i32)> {
        self.entries
            .iter()
            .flat_map(|e| e.values.iter().copied())
            .collect()
    }

    /// The `KING_DANGER` weights.
    pub fn king_danger(&self) -> Vec<i32> {
        self.kd_lines.iter().map(|l| l.value).collect()
    }

    /// The file with new values (same count as [`Self::values`] and
    /// [`Self::king_danger`]); everything else is kept byte for byte.
    pub fn render(&self, values: &[(i32, i32)], king_danger: &[i32]) -> Result<String, String> {
        let total: usize = self.entries.iter().map(|e| e.len).sum();
        if values.len() != total || king_danger.len() != self.kd_lines.len() {
            return Err(format!(
                "got {} pairs and {} king-danger weights, the file has {} and {}",
                values.len(),
                king_danger.len(),
                total,
                self.kd_lines.len()
            ));
        }
        // (byte range, replacement), in text order.
        let mut edits: Vec<(Range<usize>, String)> = Vec::new();
        let spans = self.entries.iter().flat_map(|e| e.spans.iter());
        for (span, (mg, eg)) in spans.zip(values) {
            edits.push((span.clone(), format!("s({mg}, {eg})")));
        }
        // KING_DANGER lines: `value,` padded to a common width, as rustfmt
        // leaves trailing comments aligned.
        let width = king_danger
            .iter()
            .map(|v| format!("{v},").len())
            .max()
            .unwrap_or(0);
        for (line, value) in self.kd_lines.iter().zip(king_danger) {
            let head = format!("{value},");
            let text = if line.rest.is_empty() {
                format!("{}{head}", line.indent)
            } else {
                format!("{}{head:<width$} {}", line.indent, line.rest)
            };
            edits.push((line.span.clone(), text));
        }
        edits.sort_by_key(|(r, _)| r.start);
        let mut out = String::with_capacity(self.text.len() + 1024);
        let mut last = 0;
        for (range, replacement) in edits {
            out.push_str(&self.text[last..range.start]);
            out.push_str(&replacement);
            last = range.end;
        }
        out.push_str(&self.text[last..]);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "//! doc\n\nmacro_rules! params {\n    () => {};\n}\n\n\
        #[rustfmt::skip]\nparams! {\n    /// Two.\n    A[2] in Material = [\n        s(1, -2), s(3, 4),\n    ];\n\
        \x20   /// One.\n    B_C[1] in Tempo = [\n        s(-5, 6),\n    ];\n}\n\n\
        pub const KING_DANGER: [i32; kd::COUNT] = [\n    22,  // a\n    -12, // b\n];\n";

    #[test]
    fn parses_and_renders_a_sample() {
        let file = ParamsFile::parse(SAMPLE).unwrap();
        assert_eq!(file.entries.len(), 2);
        assert_eq!(file.entries[0].name, "A");
        assert_eq!(file.entries[1].name, "B_C");
        assert_eq!(file.values(), vec![(1, -2), (3, 4), (-5, 6)]);
        assert_eq!(file.king_danger(), vec![22, -12]);
        assert_eq!(
            file.render(&file.values(), &file.king_danger()).unwrap(),
            SAMPLE
        );
        let new = file
            .render(&[(10, 20), (-30, 40), (0, 0)], &[5, 123])
            .unwrap();
        assert!(new.contains("s(10, 20), s(-30, 40),"));
        assert!(new.contains("    5,   // a\n    123, // b\n"));
        let again = ParamsFile::parse(&new).unwrap();
        assert_eq!(again.values(), vec![(10, 20), (-30, 40), (0, 0)]);
        assert_eq!(again.king_danger(), vec![5, 123]);
        assert!(file.render(&[(0, 0)], &[1, 2]).is_err());
    }
}
