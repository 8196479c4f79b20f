//! The wire to a bot behind this project's HTTP API: each request is
//! POSTed to `URL/v1/request`, with the move's time limit as the timeout of
//! the whole exchange, redirects included, and at most
//! [`MAX_LINE`](super::link::MAX_LINE) bytes of the answer read.
//!
//! What a bot's server can make the harness do is bounded here:
//!
//! * no redirect is followed, unless the entry says
//!   `redirects = "same-origin"`, and then only to the bot's own scheme,
//!   host and port, at most [`MAX_REDIRECTS`] in a row: a 3xx elsewhere is a
//!   forfeit that names where it pointed, and nothing is fetched from there;
//! * `https://` bots are reached over TLS (rustls) with their certificate
//!   verified against the system's roots, or against the entry's `ca` file
//!   only when it has one;
//! * a loopback address (`localhost`, 127.0.0.0/8, `::1`) bypasses any proxy
//!   the environment names; other addresses use it, minus `NO_PROXY`;
//! * a password in the address is sent as basic authentication and written
//!   nowhere: messages show `user:***@`.

use std::time::{Duration, Instant};

use super::defs::{HttpBot, MAX_REDIRECTS, Redirects, redacted};
use super::link::{Link, LinkError, MAX_LINE};
use sawah_agents::FailureKind;
use sawah_engine::text::printable;

/// A bot behind this project's HTTP API.
pub struct HttpLink {
    /// Where requests go: the bot's address and `/v1/request`.
    url: String,
    /// The address as messages write it (a password replaced by `***`).
    shown: String,
    redirects: Redirects,
    agent: ureq::Agent,
}

/// Whether `url`'s host is this machine (`localhost`, 127.0.0.0/8, `::1`):
/// such a bot is reached directly, never through a proxy.
fn is_loopback(url: &str) -> bool {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return false;
    };
    let host = uri
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The TLS settings for `bot`: rustls, verifying the certificate against
/// the `ca` file's authorities when the entry names one, else the system's.
#[cfg(feature = "https")]
fn tls_config(bot: &HttpBot) -> ureq::tls::TlsConfig {
    use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};
    let roots = match &bot.ca {
        Some(ca) => {
            let certificates: Vec<Certificate<'static>> = ca
                .certificates
                .iter()
                .map(|der| Certificate::from_der(der).to_owned())
                .collect();
            RootCerts::new_with_certs(&certificates)
        }
        None => RootCerts::PlatformVerifier,
    };
    TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .root_certs(roots)
        .build()
}

impl HttpLink {
    /// A link to `bot` (its address checked when the bots file loaded).
    pub fn new(bot: &HttpBot) -> HttpLink {
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_response_header_size(64 << 10);
        #[cfg(feature = "https")]
        {
            config = config.tls_config(tls_config(bot));
        }
        if is_loopback(&bot.url) {
            config = config.proxy(None);
        }
        let agent: ureq::Agent = config.build().into();
        HttpLink {
            url: format!("{}/v1/request", bot.url),
            shown: format!("{}/v1/request", redacted(&bot.url)),
            redirects: bot.redirects,
            agent,
        }
    }

    /// `text` with every address written as messages show it (an error of
    /// the HTTP library may quote the address it was given, password and all).
    fn redact_in(&self, text: &str, target: &str) -> String {
        text.replace(target, &redacted(target))
            .replace(&self.url, &self.shown)
    }

    /// Posts `request` to `target` within `limit`.
    fn post(
        &self,
        target: &str,
        request: &str,
        limit: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, LinkError> {
        self.agent
            .post(target)
            .config()
            .timeout_global(Some(limit))
            .build()
            .header("content-type", "application/json")
            .send(request)
            .map_err(|e| match e {
                ureq::Error::Timeout(_) => time_out(limit),
                e => {
                    let said = self.redact_in(&e.to_string(), target);
                    let hint = if said.contains("certificate") || said.contains("Certificate") {
                        "; if the bot's certificate is signed by an authority of your own, name its certificate as ca = \"FILE\" in the bot's entry"
                    } else {
                        ""
                    };
                    failed(
                        FailureKind::Crash,
                        format!("request to {} failed: {said}{hint}", redacted(target)),
                    )
                }
            })
    }
}

fn failed(kind: FailureKind, reason: String) -> LinkError {
    LinkError {
        kind,
        reason,
        broken: false,
    }
}

fn time_out(limit: Duration) -> LinkError {
    failed(
        FailureKind::Time,
        format!("no answer in {:.1} s", limit.as_secs_f64()),
    )
}

/// `url` split into its origin (`scheme://authority`, credentials
/// included) and the rest (path, query and fragment).
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after_scheme + i);
    url.split_at(end)
}

/// The scheme, lower-cased host and port (the scheme's default when not
/// written) of `url`.
fn origin_of(url: &str) -> Option<(String, String, u16)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let host = uri.host()?.to_ascii_lowercase();
    Some((scheme, host, uri.port_u16().unwrap_or(default_port)))
}

/// Where a redirect from `current` to `location` leads, if it stays on
/// `current`'s scheme, host and port: the address to POST to next, with
/// `current`'s credentials, or `None` for any other place.
pub fn same_origin_target(current: &str, location: &str) -> Option<String> {
    let location = location.trim();
    let location = location.split('#').next().unwrap_or_default();
    let (origin, current_path) = split_origin(current);
    let path = if location.starts_with("http://") || location.starts_with("https://") {
        if origin_of(location)? != origin_of(current)? {
            return None;
        }
        split_origin(location).1.to_string()
    } else if let Some(rest) = location.strip_prefix("//") {
        let scheme = &current[..current.find("://")?];
        let absolute = format!("{scheme}://{rest}");
        if origin_of(&absolute)? != origin_of(current)? {
            return None;
        }
        split_origin(&absolute).1.to_string()
    } else if location.starts_with('/') {
        location.to_string()
    } else if location.is_empty() || location.contains("://") || location.contains(':') {
        return None;
    } else {
        // A relative path, taken from the current path's folder.
        let current_path = current_path.split(['?', '#']).next().unwrap_or_default();
        let folder = current_path.rfind('/').map_or("/", |i| &current_path[..=i]);
        format!("{folder}{location}")
    };
    let path = if path.is_empty() {
        "/".to_string()
    } else {
        path
    };
    let next = format!("{origin}{path}");
    // The result must still be an address of the same place.
    (origin_of(&next)? == origin_of(current)?).then_some(next)
}

impl Link for HttpLink {
    fn ask(&mut self, request: &str, _id: u64, limit: Duration) -> Result<Vec<u8>, LinkError> {
        let deadline = Instant::now() + limit;
        let mut target = self.url.clone();
        let mut hops = 0;
        let mut response = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(time_out(limit));
            }
            let response = self.post(&target, request, left).map_err(|e| {
                if e.kind == FailureKind::Time {
                    time_out(limit)
                } else {
                    e
                }
            })?;
            let status = response.status();
            if !status.is_redirection() {
                break response;
            }
            let location = response
                .headers()
                .get("location")
                .map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned())
                .unwrap_or_default();
            let pointing = format!(
                "answered HTTP {status} pointing to {:?}",
                printable(&redacted(&location), 200)
            );
            let why = match self.redirects {
                Redirects::None => "the harness follows no redirect: give the bot's own address, or redirects = \"same-origin\" in its entry".to_string(),
                Redirects::SameOrigin => match same_origin_target(&target, &location) {
                    Some(_) if hops == MAX_REDIRECTS => {
                        format!("the harness follows at most {MAX_REDIRECTS} redirects in a row")
                    }
                    Some(next) => {
                        hops += 1;
                        target = next;
                        continue;
                    }
                    None => "redirects = \"same-origin\" follows only redirects to the bot's own scheme, host and port".to_string(),
                },
            };
            return Err(failed(FailureKind::Malformed, format!("{pointing}; {why}")));
        };
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_LINE as u64)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => failed(
                    FailureKind::Malformed,
                    format!("answered with a body over {} MiB", MAX_LINE >> 20),
                ),
                ureq::Error::Timeout(_) => time_out(limit),
                e => failed(
                    FailureKind::Crash,
                    format!(
                        "reading the answer from {} failed: {}",
                        redacted(&target),
                        self.redact_in(&e.to_string(), &target)
                    ),
                ),
            })?;
        if body.is_empty() {
            return Err(failed(
                FailureKind::Malformed,
                format!("answered HTTP {status} with no body"),
            ));
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_bot_s_scheme_host_and_port() {
        let current = "http://me:pw@127.0.0.1:8080/base/v1/request";
        for (location, expected) in [
            (
                "/v2/request",
                Some("http://me:pw@127.0.0.1:8080/v2/request"),
            ),
            (
                "request2",
                Some("http://me:pw@127.0.0.1:8080/base/v1/request2"),
            ),
            (
                "http://127.0.0.1:8080/x?y=1#frag",
                Some("http://me:pw@127.0.0.1:8080/x?y=1"),
            ),
            ("//127.0.0.1:8080/x", Some("http://me:pw@127.0.0.1:8080/x")),
            ("HTTP://127.0.0.1:8080/x", None),
            ("http://127.0.0.1:8081/x", None),
            ("http://127.0.0.2:8080/x", None),
            ("https://127.0.0.1:8080/x", None),
            ("//evil.example/x", None),
            ("http://127.0.0.1:8080@evil.example/x", None),
            ("file:///etc/passwd", None),
            ("javascript:x", None),
            ("", None),
        ] {
            assert_eq!(
                same_origin_target(current, location).as_deref(),
                expected,
                "{location}"
            );
        }
        // The default port is the scheme's, written or not.
        assert_eq!(
            same_origin_target("https://h/v1/request", "https://H:443/v").as_deref(),
            Some("https://h/v")
        );
        assert_eq!(
            same_origin_target("http://h/v1/request", "http://h:80/v").as_deref(),
            Some("http://h/v")
        );
    }

    /// A loopback server answering each request with `answer(path)`; the
    /// paths asked are kept in order.
    fn server(
        answer: impl Fn(&str) -> String + Send + 'static,
    ) -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = asked.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let path = first.split(' ').nth(1).unwrap_or_default().to_string();
                kept.lock().unwrap().push(path.clone());
                let _ = stream.write_all(answer(&path).as_bytes());
            }
        });
        (port, asked)
    }

    fn link(port: u16, redirects: Redirects) -> HttpLink {
        HttpLink::new(&HttpBot {
            url: format!("http://127.0.0.1:{port}"),
            ca: None,
            redirects,
        })
    }

    fn ok(body: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    fn moved(location: &str) -> String {
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    }

    #[test]
    fn same_origin_redirects_are_followed_only_when_the_entry_allows_them() {
        let (port, asked) = server(|path| match path {
            "/v1/request" => moved("/moved"),
            _ => ok(r#"{"id":1}"#),
        });
        let limit = Duration::from_secs(5);
        let e = link(port, Redirects::None).ask("{}", 1, limit).unwrap_err();
        assert_eq!(e.kind, FailureKind::Malformed);
        assert!(
            e.reason.contains("307") && e.reason.contains("\"/moved\""),
            "{}",
            e.reason
        );
        assert!(
            e.reason.contains("redirects = \"same-origin\""),
            "{}",
            e.reason
        );
        assert_eq!(*asked.lock().unwrap(), ["/v1/request"]);
        let answer = link(port, Redirects::SameOrigin)
            .ask("{}", 1, limit)
            .unwrap();
        assert_eq!(answer, br#"{"id":1}"#);
        assert_eq!(
            *asked.lock().unwrap(),
            ["/v1/request", "/v1/request", "/moved"]
        );
    }

    #[test]
    fn a_redirect_elsewhere_or_without_end_is_a_forfeit() {
        let (elsewhere, elsewhere_asked) = server(|_| ok("SECRET"));
        let limit = Duration::from_secs(5);
        // Another port of the same host is another origin.
        let (port, _) = server(move |_| moved(&format!("http://127.0.0.1:{elsewhere}/secret")));
        let e = link(port, Redirects::SameOrigin)
            .ask("{}", 1, limit)
            .unwrap_err();
        assert!(
            e.reason.contains("only redirects to the bot's own"),
            "{}",
            e.reason
        );
        assert!(!e.reason.contains("SECRET"), "{}", e.reason);
        assert!(elsewhere_asked.lock().unwrap().is_empty());
        // A loop ends after MAX_REDIRECTS hops.
        let (port, asked) = server(|path| moved(&format!("{path}x")));
        let e = link(port, Redirects::SameOrigin)
            .ask("{}", 1, limit)
            .unwrap_err();
        assert!(e.reason.contains("at most 5 redirects"), "{}", e.reason);
        assert_eq!(asked.lock().unwrap().len(), MAX_REDIRECTS + 1);
    }

    #[test]
    fn loopback_addresses_are_known() {
        for url in [
            "http://localhost:1",
            "http://127.0.0.1",
            "http://127.9.9.9:80/x",
            "http://[::1]:8080",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["http://10.0.0.1", "http://bots.example", "http://[::2]"] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
