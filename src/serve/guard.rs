//! Who may talk to the server: the checks made on every request's headers before it is
//! read further.
//!
//! - **Host** must name the address the server listens on (its IP, the host name given
//!   to `--addr`, or `localhost`, with the port), unless `--public`: a DNS-rebinding page
//!   (`evil.example` resolving to 127.0.0.1) sends its own name and is refused.
//! - **Cross-site requests** to the API are refused: an `Origin` header must be this
//!   server's own (`http://` + Host), and a browser's `Sec-Fetch-Site` must say
//!   `same-origin` or `none` (typed by the user). A page elsewhere cannot fire a costly
//!   search with an `<img>`, nor start, move or end games.
//! - **State-changing requests** (POST, DELETE) must send `Content-Type:
//!   application/json`: a browser sends that cross-site only after a CORS preflight, which
//!   this server never grants.

use std::net::SocketAddr;

use super::http::ApiError;

/// The header checks of one server.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Any Host is accepted (`--public`).
    public: bool,
    /// Accepted `Host` values, lower case, with the port.
    hosts: Vec<String>,
}

impl Guard {
    /// The checks for a server listening on `addr`, asked for as `host` (the host part of
    /// `--addr`, a name or an IP).
    pub fn new(addr: SocketAddr, host: &str, public: bool) -> Guard {
        let port = addr.port();
        let ip = match addr {
            SocketAddr::V4(a) => a.ip().to_string(),
            SocketAddr::V6(a) => format!("[{}]", a.ip()),
        };
        let mut names = vec![ip, "localhost".to_owned()];
        let mut host = host.trim().to_ascii_lowercase();
        if host.contains(':') && !host.starts_with('[') {
            host = format!("[{host}]");
        }
        if !host.is_empty() && !names.contains(&host) {
            names.push(host);
        }
        Guard {
            public,
            hosts: names.iter().map(|n| format!("{n}:{port}")).collect(),
        }
    }

    /// Whether the `Host` header names this server.
    pub fn host(&self, host: Option<&str>) -> Result<(), ApiError> {
        if self.public {
            return Ok(());
        }
        let Some(host) = host.map(|h| h.trim().to_ascii_lowercase()) else {
            return Err(forbidden("a request without a Host header"));
        };
        let has_port = if host.starts_with('[') {
            host.contains("]:")
        } else {
            host.contains(':')
        };
        // A Host without a port means port 80.
        let with_port = if has_port {
            host.clone()
        } else {
            format!("{host}:80")
        };
        if self.hosts.contains(&with_port) {
            Ok(())
        } else {
            Err(forbidden(format!(
                "Host {host:?} is not this server ({}); start it with --public to answer other names",
                self.hosts.join(", ")
            )))
        }
    }

    /// Whether an API request comes from this server's own page (or from no page):
    /// every `Origin` and every `Sec-Fetch-Site` header is checked, raw, and one that is
    /// not text counts as foreign, never as absent.
    pub fn same_origin(
        &self,
        host: Option<&str>,
        origins: &[&[u8]],
        fetch_sites: &[&[u8]],
    ) -> Result<(), ApiError> {
        for site in fetch_sites {
            let site = std::str::from_utf8(site)
                .map_err(|_| forbidden("a Sec-Fetch-Site header that is not text"))?
                .trim();
            if !matches!(site, "same-origin" | "none") {
                return Err(forbidden(format!(
                    "a {site} request (Sec-Fetch-Site): the API answers this server's own page only"
                )));
            }
        }
        let own = host.map(|h| format!("http://{}", h.trim().to_ascii_lowercase()));
        for origin in origins {
            let origin = std::str::from_utf8(origin)
                .map_err(|_| forbidden("an Origin header that is not text"))?;
            if own.as_deref() != Some(origin.trim().to_ascii_lowercase().as_str()) {
                return Err(forbidden(format!(
                    "Origin {origin:?}: the API answers this server's own page only"
                )));
            }
        }
        Ok(())
    }
}

/// Whether a request that changes state says it sends JSON (`415` otherwise).
pub fn json_content_type(method: &str, content_type: Option<&str>) -> Result<(), ApiError> {
    if !matches!(method, "POST" | "PUT" | "PATCH" | "DELETE") {
        return Ok(());
    }
    let media = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase());
    if media.as_deref() == Some("application/json") {
        Ok(())
    } else {
        Err(ApiError {
            status: 415,
            message: format!(
                "{method} needs Content-Type: application/json (got {})",
                content_type.map_or_else(|| "none".to_owned(), |c| format!("{c:?}"))
            ),
        })
    }
}

fn forbidden(message: impl Into<String>) -> ApiError {
    ApiError {
        status: 403,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(addr: &str, host: &str, public: bool) -> Guard {
        Guard::new(addr.parse().unwrap(), host, public)
    }

    #[test]
    fn host_must_name_the_server() {
        let g = guard("127.0.0.1:8080", "127.0.0.1", false);
        assert!(g.host(Some("127.0.0.1:8080")).is_ok());
        assert!(g.host(Some("LOCALHOST:8080")).is_ok());
        for bad in [
            Some("evil.example:8080"),
            Some("127.0.0.1:8081"),
            Some("127.0.0.1"),
            Some(""),
            None,
        ] {
            assert_eq!(g.host(bad).unwrap_err().status, 403, "{bad:?}");
        }
        let named = guard("127.0.0.1:8080", "chess.local", false);
        assert!(named.host(Some("chess.local:8080")).is_ok());
        let v6 = guard("[::1]:80", "::1", false);
        assert!(v6.host(Some("[::1]")).is_ok());
        assert!(v6.host(Some("localhost")).is_ok());
        assert!(
            guard("0.0.0.0:8080", "0.0.0.0", true)
                .host(Some("anything"))
                .is_ok()
        );
    }

    #[test]
    fn cross_site_requests_are_refused() {
        let g = guard("127.0.0.1:8080", "127.0.0.1", false);
        let host = Some("127.0.0.1:8080");
        let own: &[u8] = b"http://127.0.0.1:8080";
        assert!(g.same_origin(host, &[], &[]).is_ok());
        assert!(g.same_origin(host, &[own], &[b"same-origin"]).is_ok());
        assert!(g.same_origin(host, &[own, own], &[b"none"]).is_ok());
        type Headers<'a> = &'a [&'a [u8]];
        let cases: [(Headers, Headers); 9] = [
            (&[b"http://evil.example"], &[]),
            (&[b"null"], &[]),
            (&[b"http://127.0.0.1:8081"], &[]),
            (&[], &[b"cross-site"]),
            (&[], &[b"same-site"]),
            // Not text: refused, not taken for absent.
            (&[b"http://evil.example\xff"], &[]),
            (&[], &[b"cross-site\xff"]),
            // Every header counts, not the first.
            (&[own, b"http://evil.example"], &[]),
            (&[], &[b"same-origin", b"cross-site"]),
        ];
        for (origins, sites) in cases {
            assert_eq!(
                g.same_origin(host, origins, sites).unwrap_err().status,
                403,
                "{origins:?} {sites:?}"
            );
        }
    }

    #[test]
    fn state_changes_need_json() {
        assert!(json_content_type("GET", None).is_ok());
        assert!(json_content_type("POST", Some("application/json; charset=utf-8")).is_ok());
        assert!(json_content_type("DELETE", Some("Application/JSON")).is_ok());
        for bad in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
        ] {
            assert_eq!(json_content_type("POST", bad).unwrap_err().status, 415);
        }
    }
}
