//! The Markdown the pages are written in, turned into a man page's roff.
//!
//! Only what the pages use is understood: `##` sections and `###`
//! subsections, paragraphs, `- ` lists (an entry that starts with a code
//! span and a colon, as each option does, becomes a tagged paragraph with
//! the option in bold), fenced code blocks and `|` tables (kept as they are,
//! unfilled), `code`, **bold**, *italic* and `[text](page.md)` links (the
//! text, then the man page it points to). roff's own characters are
//! escaped: a backslash, a hyphen (so `--flag` is not set as a dash), and a
//! period or quote at the start of a line, which roff would read as a
//! request.

/// A page cut into its sections: the title line's summary, then each `##`
/// section's name and its Markdown body.
pub struct Page {
    pub summary: String,
    pub sections: Vec<(String, String)>,
}

impl Page {
    pub fn parse(text: &str) -> Page {
        let mut summary = String::new();
        let mut sections: Vec<(String, String)> = Vec::new();
        let mut in_code = false;
        let mut before_first = true;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if !in_code {
                if let Some(name) = line.strip_prefix("## ") {
                    sections.push((name.trim().to_string(), String::new()));
                    before_first = false;
                    continue;
                }
            }
            if before_first {
                if !line.starts_with('#') && !line.trim().is_empty() {
                    if !summary.is_empty() {
                        summary.push(' ');
                    }
                    summary.push_str(line.trim());
                }
                continue;
            }
            let body = &mut sections.last_mut().expect("a section").1;
            body.push_str(line);
            body.push('\n');
        }
        Page { summary, sections }
    }

    /// A section's body, by its name as the page writes it (any case).
    pub fn section(&self, name: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, body)| body.as_str())
    }

    pub fn push(&mut self, name: &str, body: String) {
        self.sections.push((name.to_string(), body));
    }
}

/// The man page: `.TH`, NAME from the summary, then each section. Sections
/// are put in man(7)'s order where they are the usual ones.
pub fn render(
    title: &str,
    section: u8,
    version: &str,
    page: &Page,
    is_command: impl Fn(&str) -> bool,
) -> String {
    let mut out = format!(
        ".TH {title} {section} \"\" \"diskbench {version}\" \"diskbench manual\"\n.SH NAME\n{} \\- {}\n",
        escape(title),
        inline(page.summary.trim_end_matches('.'), &is_command)
    );
    const ORDER: [&str; 9] = [
        "Synopsis",
        "Arguments",
        "Description",
        "Options",
        "Examples",
        "Exit status",
        "Environment",
        "Files",
        "See also",
    ];
    let rank = |name: &str| {
        ORDER
            .iter()
            .position(|o| o.eq_ignore_ascii_case(name))
            .unwrap_or(2)
    };
    let mut sections: Vec<&(String, String)> = page.sections.iter().collect();
    sections.sort_by_key(|(name, _)| rank(name));
    for (name, body) in sections {
        out.push_str(&format!(".SH {}\n", name.to_uppercase()));
        out.push_str(&blocks(body, &is_command));
    }
    out
}

/// A section's body: paragraphs, lists, code blocks and subsections.
fn blocks(body: &str, is_command: &impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let mut item: Option<String> = None;
    let mut code = false;
    let flush = |out: &mut String, para: &mut Vec<&str>, item: &mut Option<String>| {
        if !para.is_empty() {
            out.push_str(".PP\n");
            out.push_str(&request_safe(inline(&para.join(" "), is_command)));
            out.push('\n');
            para.clear();
        }
        if let Some(text) = item.take() {
            out.push_str(&list_item(&text, is_command));
        }
    };
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            flush(&mut out, &mut para, &mut item);
            code = !code;
            out.push_str(if code {
                ".PP\n.RS 4\n.nf\n"
            } else {
                ".fi\n.RE\n"
            });
            continue;
        }
        if code || t.starts_with('|') {
            flush(&mut out, &mut para, &mut item);
            if !code {
                // A table outside a code block, kept as written.
                out.push_str(".nf\n");
                out.push_str(&escape(line));
                out.push_str("\n.fi\n");
            } else {
                out.push_str(&escape(line));
                out.push('\n');
            }
            continue;
        }
        if let Some(sub) = t.strip_prefix("### ") {
            flush(&mut out, &mut para, &mut item);
            out.push_str(&format!(".SS {}\n", inline(sub, is_command)));
        } else if let Some(rest) = t.strip_prefix("- ") {
            flush(&mut out, &mut para, &mut item);
            item = Some(rest.to_string());
        } else if t.is_empty() {
            flush(&mut out, &mut para, &mut item);
        } else if let Some(text) = item.as_mut() {
            text.push(' ');
            text.push_str(t);
        } else {
            para.push(t);
        }
    }
    flush(&mut out, &mut para, &mut item);
    out
}

/// One `- ` entry: an option's (`` `--flag X`: what it does ``) as a
/// tagged paragraph, any other as a bullet.
fn list_item(text: &str, is_command: &impl Fn(&str) -> bool) -> String {
    if text.starts_with('`') {
        if let Some(at) = text.find("`: ") {
            let (head, rest) = (&text[..=at], &text[at + 3..]);
            return format!(
                ".TP\n{}\n{}\n",
                inline(head, is_command),
                request_safe(inline(rest, is_command))
            );
        }
    }
    format!(".IP \\(bu 2\n{}\n", request_safe(inline(text, is_command)))
}

/// Inline Markdown into roff: code spans and bold in bold, italics, links
/// as their text and the page they name.
pub fn inline(text: &str, is_command: &impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let next = rest.find(['`', '*', '[']).unwrap_or(rest.len());
        out.push_str(&escape_words(&rest[..next]));
        rest = &rest[next..];
        if rest.is_empty() {
            break;
        }
        if let Some(span) = rest.strip_prefix('`') {
            if let Some(end) = span.find('`') {
                out.push_str(&format!("\\fB{}\\fR", escape_words(&span[..end])));
                rest = &span[end + 1..];
                continue;
            }
        } else if let Some(span) = rest.strip_prefix("**") {
            if let Some(end) = span.find("**") {
                out.push_str(&format!("\\fB{}\\fR", inline(&span[..end], is_command)));
                rest = &span[end + 2..];
                continue;
            }
        } else if let Some(span) = rest.strip_prefix('*') {
            if let Some(end) = span
                .find('*')
                .filter(|&e| e > 0 && !span[..e].contains(' '))
            {
                out.push_str(&format!("\\fI{}\\fR", escape_words(&span[..end])));
                rest = &span[end + 1..];
                continue;
            }
        } else if let Some(link) = rest.strip_prefix('[') {
            if let Some((label, target, len)) = split_link(link) {
                out.push_str(&inline(label, is_command));
                if let Some(page) = target
                    .strip_suffix(".md")
                    .or(target.split_once(".md#").map(|(p, _)| p))
                {
                    let page = if page == "README" { "diskbench" } else { page };
                    if !page.contains('/') {
                        let name = if page == "diskbench" {
                            "diskbench".to_string()
                        } else {
                            format!("diskbench-{page}")
                        };
                        let section = if is_command(page) { 1 } else { 7 };
                        out.push_str(&format!(" ({}({section}))", escape(&name)));
                    }
                }
                rest = &link[len..];
                continue;
            }
        }
        // A character that starts nothing: kept as it is.
        let c = rest.chars().next().unwrap();
        out.push_str(&escape_words(&c.to_string()));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `text](target)` after a `[`: the label, the target and the length read.
fn split_link(link: &str) -> Option<(&str, &str, usize)> {
    let close = link.find("](")?;
    let end = close + 2 + link[close + 2..].find(')')?;
    Some((&link[..close], &link[close + 2..end], end + 1))
}

/// Text escaped for roff inside a line.
fn escape_words(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// A whole line escaped: its characters, and a leading period or quote.
pub fn escape(line: &str) -> String {
    request_safe(escape_words(line))
}

/// A line of text that roff will not read as a request: one that starts
/// with a period or a quote gets the zero-width `\&` before it.
fn request_safe(text: String) -> String {
    if text.starts_with('.') || text.starts_with('\'') {
        format!("\\&{text}")
    } else {
        text
    }
}
