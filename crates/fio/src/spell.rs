//! How diskbench spells a time when it writes a job back as fio options
//! (`--showcmd`, `--parse-only`): exactly, in the largest unit that loses
//! nothing, so fio reads back the same value. Kept apart from `showcmd` so
//! that each option group can spell its own options without importing it.

use std::time::Duration;

/// A time for an option fio reads in microseconds when bare: always with a unit.
pub(crate) fn format_micros(d: Duration) -> String {
    match d.subsec_nanos() % 1000 {
        0 => format!("{}us", d.as_micros()),
        _ => format!("{}ns", d.as_nanos()),
    }
}

/// fio's time spelling, exact: whole seconds bare, else ms, us or ns.
pub(crate) fn format_duration(d: Duration) -> String {
    let nanos = d.subsec_nanos();
    let secs = d.as_secs();
    if nanos == 0 {
        secs.to_string()
    } else if nanos.is_multiple_of(1_000_000) {
        format!("{}ms", d.as_millis())
    } else if nanos.is_multiple_of(1_000) {
        format!("{}us", d.as_micros())
    } else {
        format!("{}ns", d.as_nanos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_exact() {
        assert_eq!(format_duration(Duration::from_secs(300)), "300");
        assert_eq!(format_duration(Duration::from_millis(1200)), "1200ms");
        assert_eq!(format_duration(Duration::from_micros(1500)), "1500us");
        assert_eq!(format_duration(Duration::from_nanos(7)), "7ns");
    }
}
