//! A minimal blocking HTTP/1.1 client over `std::net::TcpStream` for the REST tests: one
//! request per connection (`Connection: close`), JSON bodies with `Content-Length`; reads the
//! response to the end (Content-Length or chunked bodies).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long one request may take before the test fails.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// A response: status, headers (in order, names as sent) and body text.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; fails the test when it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| {
            panic!(
                "response body is not JSON ({e}); status {}: {:?}",
                self.status, self.body
            )
        })
    }
}

/// A client of one server.
#[derive(Debug, Clone, Copy)]
pub struct Client {
    pub addr: SocketAddr,
}

impl Client {
    pub fn new(addr: SocketAddr) -> Self {
        Self { addr }
    }

    /// A client of `127.0.0.1:port`.
    pub fn local(port: u16) -> Self {
        Self::new(SocketAddr::from(([127, 0, 0, 1], port)))
    }

    pub fn get(&self, path: &str) -> Response {
        self.send("GET", path, None)
    }

    pub fn delete(&self, path: &str) -> Response {
        self.send("DELETE", path, None)
    }

    pub fn post(&self, path: &str, body: &serde_json::Value) -> Response {
        self.send("POST", path, Some(("application/json", &body.to_string())))
    }

    pub fn put(&self, path: &str, body: &serde_json::Value) -> Response {
        self.send("PUT", path, Some(("application/json", &body.to_string())))
    }

    /// Sends one request (body with its content type) and reads the whole response; fails the
    /// test on an I/O or protocol error.
    pub fn send(&self, method: &str, path: &str, body: Option<(&str, &str)>) -> Response {
        self.try_send(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path} on {}: {e}", self.addr))
    }

    /// Like [`Client::send`], returning the error instead.
    pub fn try_send(
        &self,
        method: &str,
        path: &str,
        body: Option<(&str, &str)>,
    ) -> std::io::Result<Response> {
        self.try_send_with(method, path, &[], body)
    }

    /// `POST path` of a JSON `body` (sent exactly as given) with extra `headers`.
    pub fn post_with(&self, path: &str, headers: &[(&str, &str)], body: &str) -> Response {
        self.try_send_with("POST", path, headers, Some(("application/json", body)))
            .unwrap_or_else(|e| panic!("POST {path} on {}: {e}", self.addr))
    }

    /// Like [`Client::try_send`], with extra `headers`.
    pub fn try_send_with(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<(&str, &str)>,
    ) -> std::io::Result<Response> {
        let mut stream = TcpStream::connect_timeout(&self.addr, HTTP_TIMEOUT)?;
        stream.set_read_timeout(Some(HTTP_TIMEOUT))?;
        stream.set_write_timeout(Some(HTTP_TIMEOUT))?;
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\n\
             Connection: close\r\n",
            self.addr
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        match body {
            Some((content_type, body)) => request.push_str(&format!(
                "Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )),
            None => request.push_str("\r\n"),
        }
        stream.write_all(request.as_bytes())?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        parse_response(&raw)
    }
}

fn invalid(what: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.into())
}

/// Parses a complete HTTP/1.1 response.
pub fn parse_response(raw: &[u8]) -> std::io::Result<Response> {
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| {
            invalid(format!(
                "no end of headers in {:?}",
                String::from_utf8_lossy(raw)
            ))
        })?;
    let head = std::str::from_utf8(&raw[..head_end]).map_err(|e| invalid(e.to_string()))?;
    let rest = &raw[head_end + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid(format!("bad status line {status_line:?}")))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        dechunk(rest)?
    } else if let Some(len) = header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| invalid(format!("bad Content-Length {len}")))?;
        rest.get(..len)
            .ok_or_else(|| invalid(format!("body shorter than Content-Length {len}")))?
            .to_vec()
    } else {
        rest.to_vec()
    };
    let body = String::from_utf8(body).map_err(|e| invalid(e.to_string()))?;
    Ok(Response {
        status,
        headers,
        body,
    })
}

fn dechunk(mut data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| invalid("truncated chunk size"))?;
        let size_text =
            std::str::from_utf8(&data[..line_end]).map_err(|e| invalid(e.to_string()))?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| invalid(format!("bad chunk size {size_text:?}")))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = data.get(..size).ok_or_else(|| invalid("truncated chunk"))?;
        out.extend_from_slice(chunk);
        data = data
            .get(size + 2..)
            .ok_or_else(|| invalid("truncated chunk end"))?;
    }
}
