//! The smallest HTTP/1.1 server a scraper needs: `GET /metrics` (and
//! `HEAD`) answered with the exposition text, anything else a 404, 405 or
//! 400, every connection closed after its answer.
//!
//! Hand-written on std's `TcpListener` because that is all it is: one
//! path, no keep-alive, no body to read. An HTTP crate would bring a
//! runtime or a handful of dependencies for the same 100 lines. Requests
//! are served one at a time on the server's own thread, each with a read
//! and a write timeout, so a client that connects and says nothing holds
//! the next scrape back by [`READ_TIMEOUT`] at most and never the run.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// How long a client may take to send its request's headers.
pub const READ_TIMEOUT: Duration = Duration::from_secs(2);
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// A request's line and headers beyond this are refused (a scraper's are a
/// few hundred bytes).
const MAX_HEAD: usize = 16 * 1024;

/// Serves `render()` at `/metrics` until the process ends.
pub fn serve(
    listener: TcpListener,
    content_type: &'static str,
    render: impl Fn() -> String + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("metrics-http".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                // A client that goes away mid-answer costs only its answer.
                let _ = answer(stream, content_type, &render);
            }
        })
}

fn answer(
    mut stream: TcpStream,
    content_type: &str,
    render: &dyn Fn() -> String,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let response = match read_head(&mut stream)? {
        Some(head) => respond(&head, content_type, render),
        None => plain(400, "Bad Request", "the request's headers did not end\n"),
    };
    stream.write_all(&response)?;
    stream.flush()?;
    // Half-close, then wait briefly for the client's FIN, so the answer is
    // not cut off by a reset when the client sent more than was read.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let _ = stream.read(&mut [0u8; 512]);
    Ok(())
}

/// The request up to its blank line; `None` if it never came within
/// [`MAX_HEAD`] bytes before the client stopped sending.
fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        if let Some(end) = find_blank_line(&head) {
            return Ok(Some(String::from_utf8_lossy(&head[..end]).into_owned()));
        }
        if head.len() > MAX_HEAD {
            return Ok(None);
        }
        match stream.read(&mut buf) {
            Ok(0) => return Ok(None),
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e),
        }
    }
}

fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    let crlf = bytes.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = bytes.windows(2).position(|w| w == b"\n\n");
    crlf.into_iter().chain(lf).min()
}

/// The whole response to a request whose line and headers are `head`.
pub fn respond(head: &str, content_type: &str, render: &dyn Fn() -> String) -> Vec<u8> {
    let line = head.lines().next().unwrap_or_default();
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return plain(400, "Bad Request", "not an HTTP request line\n");
    };
    if !version.starts_with("HTTP/1.") {
        return plain(
            505,
            "HTTP Version Not Supported",
            "diskbench speaks HTTP/1.x\n",
        );
    }
    let path = target.split('?').next().unwrap_or_default();
    if path != "/metrics" {
        return plain(
            404,
            "Not Found",
            "diskbench serves its live figures at /metrics\n",
        );
    }
    match method {
        "GET" => response(200, "OK", content_type, render().as_bytes(), true),
        "HEAD" => response(200, "OK", content_type, render().as_bytes(), false),
        _ => {
            let mut r = plain(405, "Method Not Allowed", "use GET /metrics\n");
            // The Allow header goes with a 405: put it before the blank line.
            let at = find_blank_line(&r).unwrap_or(0);
            r.splice(at..at, b"\r\nAllow: GET, HEAD".iter().copied());
            r
        }
    }
}

fn plain(code: u16, reason: &str, body: &str) -> Vec<u8> {
    response(
        code,
        reason,
        "text/plain; charset=utf-8",
        body.as_bytes(),
        true,
    )
}

fn response(code: u16, reason: &str, content_type: &str, body: &[u8], with_body: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    if with_body {
        out.extend_from_slice(body);
    }
    out
}
