//! The small HTTP vocabulary of the server: replies, API errors as JSON, query strings.

use std::collections::HashMap;

use serde_json::json;

/// An answer to send: status, content type and body.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type` header value.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A `200 OK` JSON reply of `value`.
    pub fn json(value: &impl serde::Serialize) -> Reply {
        Reply::json_status(200, value)
    }

    /// A JSON reply with `status`.
    pub fn json_status(status: u16, value: &impl serde::Serialize) -> Reply {
        Reply {
            status,
            content_type: "application/json; charset=utf-8",
            // Serializing our own types never fails (no maps with non-string keys).
            body: serde_json::to_vec(value).unwrap_or_else(|e| {
                format!("{{\"error\":\"cannot encode the answer: {e}\"}}").into_bytes()
            }),
        }
    }
}

/// Why a request was refused: an HTTP status and a message for people, sent as
/// `{"error": message}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    /// HTTP status code (4xx for the client's mistakes, 503 when busy, 500 otherwise).
    pub status: u16,
    /// What was wrong.
    pub message: String,
}

impl ApiError {
    /// `400 Bad Request`.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    /// `404 Not Found`.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: message.into(),
        }
    }

    /// `409 Conflict` (e.g. a move while the engine thinks).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 409,
            message: message.into(),
        }
    }

    /// `503 Service Unavailable` (a full queue).
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 503,
            message: message.into(),
        }
    }

    /// The JSON reply for this error.
    pub fn reply(&self) -> Reply {
        Reply::json_status(self.status, &json!({ "error": self.message }))
    }
}

/// Library errors: a user's invalid input is the client's mistake (400), a statement
/// past its time limit too; SQLite out of memory (the heap limit that all connections
/// share) is a busy server (503); anything else is the server's (500).
impl From<chessgraph_store::Error> for ApiError {
    fn from(e: chessgraph_store::Error) -> ApiError {
        if chessgraph_store::browse::is_interrupted(&e) {
            return ApiError::bad(
                "the query ran past its time limit; narrow the condition (e.g. add `AND phase > 20`)",
            );
        }
        if let chessgraph_store::Error::Sqlite(rusqlite::Error::SqliteFailure(f, _)) = &e
            && f.code == rusqlite::ErrorCode::OutOfMemory
        {
            // The heap limit is shared: other requests' queries hold it for now.
            return ApiError::busy(
                "the server's memory for SQL is in use by other queries; try again in a moment",
            );
        }
        if chessgraph_store::filter::is_too_big(&e) {
            return ApiError::bad(
                "the condition makes a string or blob over the server's length limit",
            );
        }
        // The library's messages name command-line flags; the page calls it `where`.
        let message = chessgraph_core::error::error_chain(&e).replace("--where", "where");
        if e.is_users() {
            ApiError::bad(message)
        } else {
            ApiError {
                status: 500,
                message,
            }
        }
    }
}

/// An error while a user's SQL condition was prepared or ran: besides what
/// [`From<chessgraph_store::Error>`] makes a `400`, SQLite failing on what the condition computes
/// (an integer overflow, a `LIKE` pattern too complex, a type it cannot compare) or on
/// the memory it needs past [`super::sql::SQL_HEAP_LIMIT`] is the condition's fault, answered
/// `400` in plain words; only the server's own failures (I/O, a corrupt file) stay `500`.
pub fn condition_error(e: chessgraph_store::Error) -> ApiError {
    use rusqlite::ErrorCode;
    let chessgraph_store::Error::Sqlite(rusqlite::Error::SqliteFailure(failure, message)) = &e
    else {
        return ApiError::from(e);
    };
    let why = message
        .clone()
        .unwrap_or_else(|| rusqlite::ffi::code_to_str(failure.extended_code).to_owned());
    match failure.code {
        ErrorCode::OutOfMemory => too_much_memory(),
        ErrorCode::Unknown
        | ErrorCode::TypeMismatch
        | ErrorCode::ConstraintViolation
        | ErrorCode::ParameterOutOfRange => {
            ApiError::bad(format!("the condition cannot be evaluated: {why}"))
        }
        _ => ApiError::from(e),
    }
}

/// A user's condition stopped for the memory it took (`400`).
pub fn too_much_memory() -> ApiError {
    ApiError::bad(format!(
        "the query needs more memory than the server allows ({} MiB for all queries at once); narrow the condition",
        super::sql::CONDITION_HEAP_LIMIT >> 20
    ))
}

/// The result of a handler.
pub type ApiResult = Result<Reply, ApiError>;

/// A request's query string, decoded (`a=1&b=x%20y`).
#[derive(Debug, Default, Clone)]
pub struct Query(HashMap<String, String>);

impl Query {
    /// Parses a query string (without the `?`); a key given twice keeps its last value.
    pub fn parse(text: &str) -> Result<Query, ApiError> {
        let mut map = HashMap::new();
        for part in text.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            map.insert(decode(k)?, decode(v)?);
        }
        Ok(Query(map))
    }

    /// The value of `key`, if given and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// The value of `key` as a number in `lo..=hi`, or `default` when not given.
    pub fn number<T>(&self, key: &str, default: T, lo: T, hi: T) -> Result<T, ApiError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        match v.trim().parse::<T>() {
            Ok(x) if x >= lo && x <= hi => Ok(x),
            _ => Err(ApiError::bad(format!(
                "{key}={v:?}: expected a number from {lo} to {hi}"
            ))),
        }
    }
}

/// Decodes `%XX` escapes and `+` (a space) of a URL component.
pub fn decode(s: &str) -> Result<String, ApiError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| ApiError::bad(format!("bad %-escape in {s:?}")))?;
                out.push(hex);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| ApiError::bad(format!("{s:?} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite_failure(code: i32, message: &str) -> chessgraph_store::Error {
        chessgraph_store::Error::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            Some(message.into()),
        ))
    }

    #[test]
    fn sqlite_failures_are_answered_in_plain_words() {
        let overflow = || sqlite_failure(rusqlite::ffi::SQLITE_ERROR, "integer overflow");
        let nomem = || sqlite_failure(rusqlite::ffi::SQLITE_NOMEM, "out of memory");
        let e = condition_error(overflow());
        assert_eq!(e.status, 400);
        assert_eq!(
            e.message,
            "the condition cannot be evaluated: integer overflow"
        );
        let e = condition_error(nomem());
        assert_eq!(e.status, 400);
        assert!(
            e.message.contains("more memory than the server allows"),
            "{e:?}"
        );
        // Outside a user's condition: memory taken by others is a busy server.
        assert_eq!(ApiError::from(nomem()).status, 503);
        let io = sqlite_failure(rusqlite::ffi::SQLITE_IOERR, "disk I/O error");
        assert_eq!(condition_error(io).status, 500);
    }

    #[test]
    fn query_strings_decode() {
        let q = Query::parse("fen=8%2F8+w&where=phase%20%3E%2012&n=5&empty=").unwrap();
        assert_eq!(q.get("fen"), Some("8/8 w"));
        assert_eq!(q.get("where"), Some("phase > 12"));
        assert_eq!(q.get("empty"), None);
        assert_eq!(q.number("n", 1, 1, 10).unwrap(), 5);
        assert_eq!(q.number("missing", 7, 1, 10).unwrap(), 7);
        assert_eq!(q.number("n", 1, 1, 4).unwrap_err().status, 400);
        assert!(Query::parse("a=%zz").is_err());
        assert!(Query::parse("a=%ff").is_err());
        assert!(Query::parse("a=%4").is_err());
    }
}
