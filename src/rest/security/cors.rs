//! Cross-origin requests as Jetty's `CrossOriginFilter` answers them in Kafka Connect when
//! `access.control.allow.origin` is set: allowed origins are a comma-separated list (`*` = any,
//! `*` inside an entry = a wildcard, e.g. `https://*.example.com`); allowed methods come from
//! `access.control.allow.methods` (default `GET,POST,HEAD`); allowed request headers are
//! Jetty's default `X-Requested-With,Content-Type,Accept,Origin`; credentials are allowed and
//! preflights cached 1800 s. A matching origin is echoed in `Access-Control-Allow-Origin`.
//!
//! Unlike Jetty (which passes a preflight on to Jersey), a preflight (`OPTIONS` with
//! `Origin` and `Access-Control-Request-Method`) is answered here, 200 with no body and
//! before authentication: browsers never send credentials on a preflight.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use regex::Regex;
use tracing::debug;

/// Jetty's default allowed methods.
const DEFAULT_METHODS: &str = "GET,POST,HEAD";
/// Jetty's default allowed request headers.
const ALLOWED_HEADERS: [&str; 4] = ["X-Requested-With", "Content-Type", "Accept", "Origin"];
/// Jetty's default preflight max age, seconds.
const MAX_AGE: &str = "1800";

/// The CORS policy.
#[derive(Debug)]
pub struct Cors {
    any_origin: bool,
    exact: Vec<String>,
    wildcards: Vec<Regex>,
    methods: Vec<String>,
}

impl Cors {
    /// The policy of `access.control.allow.origin` (`None` when blank: CORS off, as Kafka)
    /// and `access.control.allow.methods` (blank = `GET,POST,HEAD`).
    pub fn new(allowed_origins: &str, allowed_methods: &str) -> Option<Self> {
        if allowed_origins.trim().is_empty() {
            return None;
        }
        let mut cors = Self {
            any_origin: false,
            exact: Vec::new(),
            wildcards: Vec::new(),
            methods: Vec::new(),
        };
        for origin in allowed_origins
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
        {
            if origin == "*" {
                cors.any_origin = true;
            } else if origin.contains('*') {
                let pattern = format!("^{}$", regex::escape(origin).replace(r"\*", ".*"));
                if let Ok(re) = Regex::new(&pattern) {
                    cors.wildcards.push(re);
                }
            } else {
                cors.exact.push(origin.to_owned());
            }
        }
        let methods = if allowed_methods.trim().is_empty() {
            DEFAULT_METHODS
        } else {
            allowed_methods
        };
        cors.methods = methods
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .collect();
        Some(cors)
    }

    /// Whether one of the space-separated origins of an `Origin` header is allowed.
    fn origin_allowed(&self, origins: &str) -> bool {
        self.any_origin
            || origins.split(' ').filter(|o| !o.is_empty()).any(|o| {
                self.exact.iter().any(|e| e == o) || self.wildcards.iter().any(|re| re.is_match(o))
            })
    }

    /// The CORS headers for a request with this `Origin` (none when it is not allowed, or for
    /// a preflight asking for a method or headers that are not allowed).
    fn response_headers(&self, origin: &str, request: &HeaderMap, preflight: bool) -> HeaderMap {
        let mut out = HeaderMap::new();
        if !self.origin_allowed(origin) {
            debug!(
                origin,
                "Cross-origin request does not match the allowed origins"
            );
            return out;
        }
        if preflight {
            let method = request
                .get(header::ACCESS_CONTROL_REQUEST_METHOD)
                .and_then(|m| m.to_str().ok())
                .unwrap_or_default();
            if !self.methods.iter().any(|m| m == method) {
                return out;
            }
            let requested = request
                .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
                .and_then(|h| h.to_str().ok())
                .unwrap_or_default();
            let headers_allowed = requested
                .split(',')
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .all(|h| ALLOWED_HEADERS.iter().any(|a| a.eq_ignore_ascii_case(h)));
            if !headers_allowed {
                return out;
            }
        }
        let Ok(origin_value) = HeaderValue::from_str(origin) else {
            return out;
        };
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin_value);
        if !self.any_origin {
            out.append(header::VARY, HeaderValue::from_static("Origin"));
        }
        out.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
        if preflight {
            out.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static(MAX_AGE),
            );
            if let Ok(methods) = HeaderValue::from_str(&self.methods.join(",")) {
                out.insert(header::ACCESS_CONTROL_ALLOW_METHODS, methods);
            }
            if let Ok(headers) = HeaderValue::from_str(&ALLOWED_HEADERS.join(",")) {
                out.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, headers);
            }
        }
        out
    }
}

/// The middleware: answers preflights and adds the CORS headers to other responses.
pub async fn cross_origin(State(cors): State<Arc<Cors>>, req: Request, next: Next) -> Response {
    let Some(origin) = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(str::to_owned)
    else {
        return next.run(req).await;
    };
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let headers = cors.response_headers(&origin, req.headers(), preflight);
    let mut response = if preflight {
        StatusCode::OK.into_response()
    } else {
        next.run(req).await
    };
    for (name, value) in &headers {
        if name == header::VARY {
            response.headers_mut().append(name, value.clone());
        } else {
            response.headers_mut().insert(name, value.clone());
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preflight(method: &str, headers: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCESS_CONTROL_REQUEST_METHOD,
            HeaderValue::from_str(method).unwrap(),
        );
        if !headers.is_empty() {
            h.insert(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                HeaderValue::from_str(headers).unwrap(),
            );
        }
        h
    }

    #[test]
    fn blank_origin_disables_cors() {
        assert!(Cors::new(" ", "GET").is_none());
    }

    #[test]
    fn matches_exact_and_wildcard_origins() {
        let cors = Cors::new("https://ui.example.com, https://*.corp.example", "").unwrap();
        assert!(cors.origin_allowed("https://ui.example.com"));
        assert!(cors.origin_allowed("https://a.b.corp.example"));
        assert!(!cors.origin_allowed("https://evil.example.com"));
        assert!(!cors.origin_allowed("https://corpXexample"));
        assert!(Cors::new("*", "")
            .unwrap()
            .origin_allowed("http://anything"));
    }

    #[test]
    fn preflight_checks_method_and_headers_as_jetty() {
        let cors = Cors::new("https://ui.example.com", "GET,PUT").unwrap();
        let ok = cors.response_headers(
            "https://ui.example.com",
            &preflight("PUT", "content-type"),
            true,
        );
        assert_eq!(
            ok[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://ui.example.com"
        );
        assert_eq!(ok[header::ACCESS_CONTROL_ALLOW_METHODS], "GET,PUT");
        assert_eq!(ok[header::ACCESS_CONTROL_MAX_AGE], "1800");
        assert_eq!(ok[header::ACCESS_CONTROL_ALLOW_CREDENTIALS], "true");
        assert_eq!(ok[header::VARY], "Origin");
        assert!(cors
            .response_headers("https://ui.example.com", &preflight("DELETE", ""), true)
            .is_empty());
        assert!(cors
            .response_headers(
                "https://ui.example.com",
                &preflight("GET", "X-Custom"),
                true
            )
            .is_empty());
        let defaults = Cors::new("*", "").unwrap();
        let h = defaults.response_headers("http://x", &preflight("POST", ""), true);
        assert_eq!(h[header::ACCESS_CONTROL_ALLOW_METHODS], "GET,POST,HEAD");
        assert!(!h.contains_key(header::VARY));
    }
}
