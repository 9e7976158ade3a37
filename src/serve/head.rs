//! A connection's request header, read by the server itself before hyper sees it, and
//! the connections still waiting for theirs.
//!
//! Reading the header here (then handing hyper the bytes read, [`Rewind`]) lets the
//! server answer what hyper answers without a body — a header block over
//! the header limit the connection loop passes in or with more than
//! [`MAX_HEADER_FIELDS`] fields (`431`), a `Content-Length` over
//! [`super::MAX_BODY`], even one too large for a number (`413`) — with the API's JSON
//! error, and tells which connections have not sent their whole request yet: [`Waiting`]
//! keeps them oldest first (a connection stays listed while its body arrives), and a
//! server at its connection cap closes the oldest to serve a new one, so silent or slow
//! connections never keep a request out.

use std::collections::BTreeMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use hyper::body::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::http::{ApiError, Reply};

/// Why a header was not read.
#[derive(Debug)]
pub enum HeadError {
    /// The connection closed or failed before the header's end.
    Closed,
    /// The header block is longer than the limit: answer this (`431`).
    TooLarge(Reply),
    /// The announced body is longer than the limit: answer this (`413`).
    BodyTooLarge(Reply),
}

/// Where the header block ends in `buf` (the index after its blank line), if it does.
fn header_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Most header fields a request may have: hyper's own limit, past which it would answer
/// `431` with an empty body; [`read_head`] answers with the API's JSON error first.
pub const MAX_HEADER_FIELDS: usize = 100;

/// How many header fields a header block (request line, fields, blank line) has.
fn header_fields(head: &[u8]) -> usize {
    head.split(|&b| b == b'\n')
        .skip(1)
        .filter(|line| !line.trim_ascii().is_empty())
        .count()
}

/// Whether a header block announces a body over `max` bytes: any `Content-Length` made
/// of digits whose value is over `max`, however many digits it has.
pub fn announces_more_than(head: &[u8], max: u64) -> bool {
    head.split(|&b| b == b'\n').any(|line| {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return false;
        };
        if !line[..colon].eq_ignore_ascii_case(b"content-length") {
            return false;
        }
        let value = line[colon + 1..].trim_ascii();
        if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let zeros = value.iter().take_while(|&&b| b == b'0').count();
        let digits = &value[zeros..];
        digits.len() > 19
            || (!digits.is_empty()
                && std::str::from_utf8(digits)
                    .ok()
                    .and_then(|d| d.parse::<u64>().ok())
                    .is_none_or(|n| n > max))
    })
}

/// Reads `stream` until the end of the request header (at most `max_header` bytes),
/// refusing an announced body over `max_body`. Returns every byte read, the header and
/// whatever of the body came with it.
pub async fn read_head(
    stream: &mut TcpStream,
    max_header: usize,
    max_body: usize,
) -> Result<Vec<u8>, HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        stream.readable().await.map_err(|_| HeadError::Closed)?;
        let n = match stream.try_read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(_) => return Err(HeadError::Closed),
        };
        if n == 0 {
            return Err(HeadError::Closed);
        }
        // Search from a little before the new bytes: the blank line may straddle reads.
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        match header_end(&buf[from..]).map(|e| e + from) {
            Some(end) if end <= max_header => {
                if header_fields(&buf[..end]) > MAX_HEADER_FIELDS {
                    return Err(HeadError::TooLarge(too_many_fields()));
                }
                if announces_more_than(&buf[..end], max_body as u64) {
                    return Err(HeadError::BodyTooLarge(body_too_large(max_body)));
                }
                return Ok(buf);
            }
            Some(_) => return Err(HeadError::TooLarge(header_too_large(max_header))),
            None if buf.len() > max_header => {
                return Err(HeadError::TooLarge(header_too_large(max_header)));
            }
            None => {}
        }
    }
}

/// The `413` answer for a body over `max` bytes.
pub fn body_too_large(max: usize) -> Reply {
    ApiError {
        status: 413,
        message: format!("the request body is over {max} bytes"),
    }
    .reply()
}

fn too_many_fields() -> Reply {
    ApiError {
        status: 431,
        message: format!("the request has more than {MAX_HEADER_FIELDS} header fields"),
    }
    .reply()
}

fn header_too_large(max: usize) -> Reply {
    ApiError {
        status: 431,
        message: format!("the request header is over {max} bytes"),
    }
    .reply()
}

/// Writes `reply` as a whole HTTP/1.1 answer on `stream` and closes it.
pub async fn answer_and_close(stream: &mut TcpStream, reply: &Reply) {
    let reason = hyper::StatusCode::from_u16(reply.status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    )
    .into_bytes();
    out.extend_from_slice(&reply.body);
    let mut rest = &out[..];
    while !rest.is_empty() {
        if stream.writable().await.is_err() {
            return;
        }
        match stream.try_write(rest) {
            Ok(0) => return,
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
    let _ = std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_shutdown(cx)).await;
}

/// A stream that first gives back bytes already read from it.
pub struct Rewind {
    pre: Bytes,
    inner: TcpStream,
}

impl Rewind {
    /// `inner`, with `pre` read again first.
    pub fn new(pre: Vec<u8>, inner: TcpStream) -> Rewind {
        Rewind {
            pre: Bytes::from(pre),
            inner,
        }
    }
}

impl AsyncRead for Rewind {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.pre.is_empty() {
            let n = self.pre.len().min(buf.remaining());
            let first = self.pre.split_to(n);
            buf.put_slice(&first);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Rewind {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Connections still waiting for their header, oldest first; each is told to close
/// through its [`Notify`].
#[derive(Default)]
pub struct Waiting {
    inner: Mutex<(u64, BTreeMap<u64, Arc<Notify>>)>,
}

impl Waiting {
    /// Adds a connection; returns its number and what tells it to close.
    pub fn add(&self) -> (u64, Arc<Notify>) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let id = g.0;
        g.0 += 1;
        let notify = Arc::new(Notify::new());
        g.1.insert(id, notify.clone());
        (id, notify)
    }

    /// Removes connection `id` (its header arrived, or it closed).
    pub fn remove(&self, id: u64) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.1.remove(&id);
    }

    /// Tells the connection that has waited longest to close; whether there was one.
    pub fn close_oldest(&self) -> bool {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        match g.1.pop_first() {
            Some((_, notify)) => {
                // Stored if the connection is not waiting on it yet: never lost.
                notify.notify_one();
                true
            }
            None => false,
        }
    }

    /// How many connections wait for their header.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).1.len()
    }

    /// Whether none does.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_content_lengths_are_seen_whatever_their_digits() {
        let head = |v: &str| format!("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {v}\r\n\r\n");
        for over in [
            "65537",
            "99999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "999999999999999999999999",
        ] {
            assert!(announces_more_than(head(over).as_bytes(), 65536), "{over}");
        }
        for fine in ["0", "65536", "00000000000000000000000012", "abc", ""] {
            assert!(!announces_more_than(head(fine).as_bytes(), 65536), "{fine}");
        }
        assert!(announces_more_than(
            b"GET / HTTP/1.1\ncontent-LENGTH:70000\n\n",
            65536
        ));
    }

    #[test]
    fn header_fields_are_counted() {
        let head = |n: usize| {
            let mut h = "GET / HTTP/1.1\r\n".to_owned();
            for i in 0..n {
                h.push_str(&format!("X-{i}: a\r\n"));
            }
            h + "\r\n"
        };
        assert_eq!(header_fields(head(0).as_bytes()), 0);
        assert_eq!(header_fields(head(101).as_bytes()), 101);
        assert_eq!(header_fields(b"GET / HTTP/1.1\nHost: x\n\n"), 1);
    }

    #[test]
    fn header_ends_at_the_first_blank_line() {
        assert_eq!(
            header_end(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nbody"),
            Some(27)
        );
        assert_eq!(header_end(b"GET / HTTP/1.1\nHost: x\n\nbody"), Some(24));
        assert_eq!(header_end(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    #[test]
    fn the_oldest_waiting_connection_is_closed_first() {
        let w = Waiting::default();
        let (a, na) = w.add();
        let (b, _nb) = w.add();
        let (_c, _nc) = w.add();
        w.remove(b);
        assert_eq!(w.len(), 2);
        assert!(w.close_oldest());
        assert_eq!(w.len(), 1);
        // The notification waits for the connection that has not listened yet.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(5), na.notified())
                .await
                .expect("connection a was told to close");
        });
        w.remove(a);
        assert!(w.close_oldest());
        assert!(!w.close_oldest());
        assert!(w.is_empty());
    }
}
