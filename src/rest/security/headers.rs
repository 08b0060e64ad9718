//! `response.http.headers.config`: response header rules as Jetty's `HeaderFilter` applies them
//! in Kafka Connect. Comma-separated rules (a rule holding a comma is double-quoted), each
//! `[set|add|setDate|addDate] Name: value`; `set` replaces, `add` appends, the `Date` forms take
//! milliseconds from now and send an HTTP date. Rules are checked at start-up with Kafka's
//! messages.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use super::SetupError;

/// The worker key.
pub const KEY: &str = "response.http.headers.config";
const ACTIONS: [&str; 4] = ["set", "add", "setDate", "addDate"];

#[derive(Debug)]
enum Value {
    Text(HeaderValue),
    /// Milliseconds from now.
    Date(i64),
}

#[derive(Debug)]
struct Rule {
    add: bool,
    name: HeaderName,
    value: Value,
}

/// The parsed rules.
#[derive(Debug)]
pub struct HeaderRules(Vec<Rule>);

impl HeaderRules {
    /// The rules of `config`; `None` when it is blank.
    ///
    /// # Errors
    /// A rule that Kafka's validator refuses (its message, with the key), or one that is not a
    /// valid HTTP header.
    pub fn parse(config: &str) -> Result<Option<Self>, SetupError> {
        if config.trim().is_empty() {
            return Ok(None);
        }
        let mut rules = Vec::new();
        for rule in csv_split(config) {
            rules.push(parse_rule(&rule).map_err(|m| SetupError::invalid(KEY, m))?);
        }
        Ok(Some(Self(rules)))
    }

    fn apply(&self, response: &mut Response) {
        let headers = response.headers_mut();
        for rule in &self.0 {
            let value = match &rule.value {
                Value::Text(v) => v.clone(),
                Value::Date(ms) => {
                    let now = SystemTime::now();
                    let offset = Duration::from_millis(ms.unsigned_abs());
                    let at = if *ms >= 0 {
                        now.checked_add(offset)
                    } else {
                        now.checked_sub(offset)
                    };
                    let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(at.unwrap_or(now)))
                    else {
                        continue;
                    };
                    v
                }
            };
            if rule.add {
                headers.append(rule.name.clone(), value);
            } else {
                headers.insert(rule.name.clone(), value);
            }
        }
    }
}

/// Kafka's validation of one rule, then the header itself.
fn parse_rule(rule: &str) -> Result<Rule, String> {
    let mut tokens = rule.trim().splitn(2, char::is_whitespace);
    let (Some(action), Some(header)) = (tokens.next(), tokens.next()) else {
        return Err(format!(
            "Invalid format of header config '{rule}'. Expected: '[action] [header name]:[header value]'"
        ));
    };
    let Some(action) = ACTIONS
        .iter()
        .find(|a| a.eq_ignore_ascii_case(action.trim()))
    else {
        return Err(format!(
            "Invalid header config action: '{}'. Expected one of [set, add, setDate, addDate]",
            action.trim()
        ));
    };
    let parts: Vec<&str> = header.trim().split(':').collect();
    let [name, value] = parts.as_slice() else {
        return Err(format!(
            "Invalid format of header name and header value pair '{header}'. Expected: '[header name]:[header value]'"
        ));
    };
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!(
            "Invalid header name '{name}'. The '[header name]' cannot contain whitespace"
        ));
    }
    let header_name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("Invalid header name '{name}'"))?;
    let value = value.trim();
    let value = if action.ends_with("Date") {
        Value::Date(value.parse().map_err(|_| {
            format!("Invalid value '{value}' of {action} {name}: expected milliseconds from now")
        })?)
    } else {
        Value::Text(
            HeaderValue::from_str(value)
                .map_err(|_| format!("Invalid value '{value}' of header '{name}'"))?,
        )
    };
    Ok(Rule {
        add: action.starts_with("add"),
        name: header_name,
        value,
    })
}

/// Jetty's CSV split: commas outside double quotes separate items; items are trimmed and
/// lose their surrounding quotes (`\` escapes inside quotes).
fn csv_split(s: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut item = String::new();
    let mut quoted = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' if quoted => {
                if let Some(n) = chars.next() {
                    item.push(n);
                }
            }
            ',' if !quoted => items.push(std::mem::take(&mut item)),
            c => item.push(c),
        }
    }
    items.push(item);
    items
        .into_iter()
        .map(|i| i.trim().to_owned())
        .filter(|i| !i.is_empty())
        .collect()
}

/// The middleware: applies the rules to every response.
pub async fn response_headers(
    State(rules): State<Arc<HeaderRules>>,
    req: Request,
    next: Next,
) -> Response {
    let mut response = next.run(req).await;
    rules.apply(&mut response);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::response::IntoResponse;

    fn err(config: &str) -> String {
        HeaderRules::parse(config).unwrap_err().to_string()
    }

    #[test]
    fn applies_set_add_and_dates() {
        let rules = HeaderRules::parse(
            "set X-Frame-Options: DENY, add Cache-Control: no-store,\"add Cache-Control: no-cache, private\", setDate Expires: 3600000",
        )
        .unwrap()
        .unwrap();
        let mut r = "body".into_response();
        rules.apply(&mut r);
        assert_eq!(r.headers()["x-frame-options"], "DENY");
        let cc: Vec<_> = r.headers().get_all("cache-control").iter().collect();
        assert_eq!(cc, ["no-store", "no-cache, private"]);
        let expires = r.headers()["expires"].to_str().unwrap();
        assert!(expires.ends_with(" GMT"), "{expires}");
        assert!(HeaderRules::parse("  ").unwrap().is_none());
    }

    #[test]
    fn refuses_invalid_rules_with_kafkas_messages() {
        let e = err("X-Frame-Options: DENY");
        assert!(
            e.contains("response.http.headers.config") && e.contains("Invalid"),
            "{e}"
        );
        let e = err("put X-Frame-Options: DENY");
        assert!(
            e.contains(
                "Invalid header config action: 'put'. Expected one of [set, add, setDate, addDate]"
            ),
            "{e}"
        );
        let e = err("set X-Frame-Options DENY");
        assert!(
            e.contains("Invalid format of header name and header value pair"),
            "{e}"
        );
        let e = err("set X Frame: DENY");
        assert!(e.contains("cannot contain whitespace"), "{e}");
        let e = err("setDate Expires: tomorrow");
        assert!(e.contains("milliseconds"), "{e}");
    }
}
