//! Naming the tests a line of output is about, in the room the line has
//! left. A check that fires on seven tests is said once, on one line a
//! reader takes in at a glance (at most [`LINE_MAX`] characters), so the
//! names shrink as the line needs: every name, then the first and last of
//! them, then only how many ("all 7 tests" when it is every test of the run).

/// The longest line a check or warning is said in, prefix included.
pub const LINE_MAX: usize = 160;

/// The tests `names` (in the order given, each once), of `of_all` tests in
/// the run, in one of its forms from longest to shortest.
fn forms(names: &[&str], of_all: usize) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if !seen.contains(n) {
            seen.push(n);
        }
    }
    let n = seen.len();
    let mut out = Vec::new();
    if n > 1 && n == of_all {
        out.push(format!("all {n} tests"));
        return out;
    }
    match seen.as_slice() {
        [] => out.push("the run".to_string()),
        [one] => out.push(one.to_string()),
        [first, .., last] => {
            out.push(seen.join(", "));
            out.push(format!("{n} tests ({first} ... {last})"));
            out.push(format!("{n} tests"));
        }
    }
    out
}

/// The line `line(tests)` with the longest form of the tests' names that
/// keeps it within `max` characters; the shortest form when none does.
pub fn fit(names: &[&str], of_all: usize, max: usize, line: impl Fn(&str) -> String) -> String {
    let forms = forms(names, of_all);
    let mut last = String::new();
    for form in &forms {
        last = line(form);
        if last.chars().count() <= max {
            return last;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_shrink_to_fit_the_line() {
        let names = ["seq-read-1m-qd8", "seq-write-1m-qd8", "rand-read-4k-qd32"];
        let line = |t: &str| format!("check: {t}: a cache may answer");
        assert_eq!(
            fit(&names, 7, 160, line),
            "check: seq-read-1m-qd8, seq-write-1m-qd8, rand-read-4k-qd32: a cache may answer"
        );
        assert_eq!(
            fit(&names, 7, 75, line),
            "check: 3 tests (seq-read-1m-qd8 ... rand-read-4k-qd32): a cache may answer"
        );
        assert_eq!(
            fit(&names, 7, 40, line),
            "check: 3 tests: a cache may answer"
        );
        assert_eq!(
            fit(&names, 3, 160, line),
            "check: all 3 tests: a cache may answer"
        );
        assert_eq!(
            fit(&["a", "a"], 3, 160, line),
            "check: a: a cache may answer"
        );
    }
}
