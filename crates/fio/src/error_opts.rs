//! fio's error options and the options of a job that fills its filesystem:
//! `continue_on_error`, `ignore_error`, `error_dump` (see `model::errors`
//! for what they do), `fill_device` (`fill_fs`), and two that change only
//! how fio goes about the work, not what it does:
//!
//! - `create_serialize`: fio makes the jobs' files one job at a time (its
//!   default) or all at once. diskbench always lays out a group's files one
//!   clone after another, in job order, before the group starts: each value
//!   is that order's effect, since no two layouts interleave.
//! - `verify_async=N`: fio verifies in N threads beside the one doing the
//!   I/O. Which blocks are read back and what is checked are the same; only
//!   the thread that checks them differs. diskbench checks each block in the
//!   worker's thread as it completes, so N is accepted and changes nothing.

use crate::error::FioError;
use crate::options::Key;
use crate::values::Given;
use model::errors::{ErrorPolicy, ErrorType};
use model::JobSpec;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let p = &mut spec.errors;
    match o.key {
        Key::ContinueOnError => {
            p.continue_on = ErrorPolicy::parse_continue(o.text.trim()).ok_or_else(|| {
                o.invalid("use none, read, write, io, verify, all, 0 (none) or 1 (all)")
            })?
        }
        Key::IgnoreError => ignore_error(p, o)?,
        Key::ErrorDump => p.dump = o.boolean()?,
        Key::FillDevice => spec.fill_device = o.boolean()?,
        Key::CreateSerialize => {
            o.boolean()?;
        }
        Key::VerifyAsync => {
            o.int_u32()?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `ignore_error=READ,WRITE,VERIFY`: each a `:`-separated list of errno
/// names or numbers; a list given makes the job continue past those errors
/// of its type (as fio 3.33 does, without `continue_on_error`).
fn ignore_error(p: &mut ErrorPolicy, o: &Given) -> Result<(), FioError> {
    let lists: Vec<&str> = o.text.split(',').collect();
    if lists.len() > ErrorType::ALL.len() {
        return Err(o.invalid("give at most three lists: READ,WRITE,VERIFY"));
    }
    for (i, list) in lists.iter().enumerate() {
        let list = list.trim();
        if list.is_empty() {
            continue;
        }
        let errnos = list
            .split(':')
            .map(|e| errno(e.trim()))
            .collect::<Option<Vec<i32>>>()
            .ok_or_else(|| {
                o.invalid(format!(
                    "'{list}' names an unknown error: use errno names (ENOSPC, EIO, ...) or \
                     numbers above 0, separated by ':'"
                ))
            })?;
        p.ignore[i] = Some(errnos);
        p.continue_on[i] = true;
    }
    Ok(())
}

/// Linux's errno names, by number from 1 (an empty name: no such errno).
const ERRNO_NAMES: [&str; 133] = [
    "EPERM",
    "ENOENT",
    "ESRCH",
    "EINTR",
    "EIO",
    "ENXIO",
    "E2BIG",
    "ENOEXEC",
    "EBADF",
    "ECHILD",
    "EAGAIN",
    "ENOMEM",
    "EACCES",
    "EFAULT",
    "ENOTBLK",
    "EBUSY",
    "EEXIST",
    "EXDEV",
    "ENODEV",
    "ENOTDIR",
    "EISDIR",
    "EINVAL",
    "ENFILE",
    "EMFILE",
    "ENOTTY",
    "ETXTBSY",
    "EFBIG",
    "ENOSPC",
    "ESPIPE",
    "EROFS",
    "EMLINK",
    "EPIPE",
    "EDOM",
    "ERANGE",
    "EDEADLK",
    "ENAMETOOLONG",
    "ENOLCK",
    "ENOSYS",
    "ENOTEMPTY",
    "ELOOP",
    "",
    "ENOMSG",
    "EIDRM",
    "ECHRNG",
    "EL2NSYNC",
    "EL3HLT",
    "EL3RST",
    "ELNRNG",
    "EUNATCH",
    "ENOCSI",
    "EL2HLT",
    "EBADE",
    "EBADR",
    "EXFULL",
    "ENOANO",
    "EBADRQC",
    "EBADSLT",
    "",
    "EBFONT",
    "ENOSTR",
    "ENODATA",
    "ETIME",
    "ENOSR",
    "ENONET",
    "ENOPKG",
    "EREMOTE",
    "ENOLINK",
    "EADV",
    "ESRMNT",
    "ECOMM",
    "EPROTO",
    "EMULTIHOP",
    "EDOTDOT",
    "EBADMSG",
    "EOVERFLOW",
    "ENOTUNIQ",
    "EBADFD",
    "EREMCHG",
    "ELIBACC",
    "ELIBBAD",
    "ELIBSCN",
    "ELIBMAX",
    "ELIBEXEC",
    "EILSEQ",
    "ERESTART",
    "ESTRPIPE",
    "EUSERS",
    "ENOTSOCK",
    "EDESTADDRREQ",
    "EMSGSIZE",
    "EPROTOTYPE",
    "ENOPROTOOPT",
    "EPROTONOSUPPORT",
    "ESOCKTNOSUPPORT",
    "EOPNOTSUPP",
    "EPFNOSUPPORT",
    "EAFNOSUPPORT",
    "EADDRINUSE",
    "EADDRNOTAVAIL",
    "ENETDOWN",
    "ENETUNREACH",
    "ENETRESET",
    "ECONNABORTED",
    "ECONNRESET",
    "ENOBUFS",
    "EISCONN",
    "ENOTCONN",
    "ESHUTDOWN",
    "ETOOMANYREFS",
    "ETIMEDOUT",
    "ECONNREFUSED",
    "EHOSTDOWN",
    "EHOSTUNREACH",
    "EALREADY",
    "EINPROGRESS",
    "ESTALE",
    "EUCLEAN",
    "ENOTNAM",
    "ENAVAIL",
    "EISNAM",
    "EREMOTEIO",
    "EDQUOT",
    "ENOMEDIUM",
    "EMEDIUMTYPE",
    "ECANCELED",
    "ENOKEY",
    "EKEYEXPIRED",
    "EKEYREVOKED",
    "EKEYREJECTED",
    "EOWNERDEAD",
    "ENOTRECOVERABLE",
    "ERFKILL",
    "EHWPOISON",
];

/// An errno by name (Linux's, and the aliases EWOULDBLOCK, EDEADLOCK,
/// ENOTSUP) or number (above 0).
fn errno(text: &str) -> Option<i32> {
    if let Ok(n) = text.parse::<i32>() {
        return (n > 0).then_some(n);
    }
    let name = match text {
        "EWOULDBLOCK" => "EAGAIN",
        "EDEADLOCK" => "EDEADLK",
        "ENOTSUP" => "EOPNOTSUPP",
        other => other,
    };
    let at = ERRNO_NAMES
        .iter()
        .position(|&n| !n.is_empty() && n == name)?;
    Some(at as i32 + 1)
}

/// What `--parse-only` shows of these.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let p = &job.errors;
    if p.any() {
        opts.push(("continue_on_error", Some(p.fio_name().to_string())));
        let lists: Vec<String> = p
            .ignore
            .iter()
            .map(|l| {
                l.iter()
                    .flatten()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(":")
            })
            .collect();
        if p.ignore.iter().any(Option::is_some) {
            opts.push(("ignore_error", Some(lists.join(","))));
        }
        if !p.dump {
            opts.push(("error_dump", Some("0".into())));
        }
    }
    if job.fill_device {
        opts.push(("fill_device", Some("1".into())));
    }
}

#[cfg(test)]
mod tests {
    use super::errno;

    #[test]
    fn errno_names_and_numbers() {
        assert_eq!(errno("ENOSPC"), Some(28));
        assert_eq!(errno("EIO"), Some(5));
        assert_eq!(errno("EILSEQ"), Some(84));
        assert_eq!(errno("EDQUOT"), Some(122));
        assert_eq!(errno("EHWPOISON"), Some(133));
        assert_eq!(errno("ENOTSUP"), Some(95));
        assert_eq!(errno("122"), Some(122));
        assert_eq!(errno("0"), None);
        assert_eq!(errno("ENOSPCX"), None);
        assert_eq!(errno(""), None);
    }
}
