//! Prometheus' text exposition format, version 0.0.4: the plain text every
//! Prometheus server (and VictoriaMetrics, Grafana Agent, Telegraf, ...)
//! scrapes. One family is a `# HELP` line, a `# TYPE` line and its samples,
//! all together; a sample is `name{label="value",...} number`. Label values
//! escape backslash, double quote and newline; help text escapes backslash
//! and newline; numbers are Go's floats (`NaN`, `+Inf`, `-Inf`).
//!
//! Written by hand rather than with a client crate: diskbench has no
//! long-lived metric objects to register, only figures to print at each
//! scrape, and the crates' summaries compute their own quantiles from
//! observations, where diskbench already has them from its histograms.

use std::fmt::Write;

/// The `Content-Type` of this format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Gauge,
    Counter,
    Summary,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Gauge => "gauge",
            Kind::Counter => "counter",
            Kind::Summary => "summary",
        }
    }
}

/// A label set: names already valid, values any text.
pub type Labels = Vec<(String, String)>;

/// The exposition text, family by family.
#[derive(Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    /// One family with its samples (`suffix` is appended to the name:
    /// `_sum`, `_count`, or empty); a family without samples is left out.
    pub fn family(&mut self, name: &str, help: &str, kind: Kind, samples: &[Sample]) {
        if samples.is_empty() {
            return;
        }
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {}", kind.name());
        for s in samples {
            self.text.push_str(name);
            self.text.push_str(s.suffix);
            if !s.labels.is_empty() {
                self.text.push('{');
                for (i, (k, v)) in s.labels.iter().enumerate() {
                    if i > 0 {
                        self.text.push(',');
                    }
                    let _ = write!(self.text, "{k}=\"{}\"", escape_label_value(v));
                }
                self.text.push('}');
            }
            let _ = writeln!(self.text, " {}", number(s.value));
        }
    }

    pub fn into_text(self) -> String {
        self.text
    }
}

/// One line of a family.
pub struct Sample {
    pub suffix: &'static str,
    pub labels: Labels,
    pub value: f64,
}

impl Sample {
    pub fn new(labels: Labels, value: f64) -> Sample {
        Sample {
            suffix: "",
            labels,
            value,
        }
    }
}

fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn escape_label_value(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A float as Prometheus reads it; whole numbers without a fraction.
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v}")
    }
}

/// A valid label name made of a `--label` key: `label_` then the key with
/// every character outside `[a-zA-Z0-9_]` as `_` (`disk-type` becomes
/// `label_disk_type`). The prefix keeps user labels apart from diskbench's
/// own and from the `job` and `instance` labels Prometheus adds.
pub fn user_label_name(key: &str) -> String {
    let tail: String = key
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' => c,
            _ => '_',
        })
        .collect();
    format!("label_{tail}")
}
